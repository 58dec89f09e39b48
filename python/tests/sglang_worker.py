"""One rank of a world driven as sglang's model code drives its dumper: the
module imported first, the rank's own default process group (Gloo, its side's
ranks) set up after, then dumper.dump calls. Whether sglang's grafter or
graft's serves them is the switch's business, not this program's.

    sglang_worker.py PROGRAM RESULT_PATH

Environment: DUMPER_* (sglang's and graft's settings), RANK and WORLD_SIZE,
GRAFT_TEST_SIDE_PORT (the side's default group), GRAFT_SGLANG (the switch);
GRAFT_TEST_SITE_DIR: where graft lies when that is not a site-packages folder
(the build folder), added as Python adds site-packages at start-up;
GRAFT_TEST_READY_FILE / GRAFT_TEST_WAIT_FILE: a file this rank writes when it
reaches its first matched call / waits for before it makes that call.
"""

import json
import os
import site
import sys
import time
from pathlib import Path

HOOK_AT_STARTUP = "graft_sglang_hook" in sys.modules
if not HOOK_AT_STARTUP and os.environ.get("GRAFT_TEST_SITE_DIR"):
    site.addsitedir(os.environ["GRAFT_TEST_SITE_DIR"])

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

from graft import sglang_reference  # noqa: E402
from world_values import CALLS, own_value  # noqa: E402


def join_side():
    rank, size = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{os.environ['GRAFT_TEST_SIDE_PORT']}",
                            rank=rank, world_size=size)
    return rank


def meet_peer():
    if os.environ.get("GRAFT_TEST_READY_FILE"):
        Path(os.environ["GRAFT_TEST_READY_FILE"]).touch()
    waited_for = os.environ.get("GRAFT_TEST_WAIT_FILE")
    deadline = time.monotonic() + 120
    while waited_for and not Path(waited_for).exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{waited_for} did not appear within 120 s")
        time.sleep(0.05)


def dump_calls(dumper, role):
    """An unmatched call before the default group exists, then CALLS matched
    calls named 'h' under a context tag, each with grafter_extras."""
    early = torch.ones(2)
    dumper.dump("embedding", early)
    rank = join_side()
    values = []
    dumper.set_ctx(phase="decode")
    meet_peer()
    first_matched_call_at = time.time()
    for call in range(CALLS):
        value = own_value(role, rank, call)
        dumper.dump("h", value, layer_id=call, grafter_extras={"rank": rank, "call": call})
        values.append(value.tolist())
    dumper.set_ctx(phase=None)
    return {"values": values, "early": early.tolist(), "first_matched_call_at": first_matched_call_at}


def dumper_in_code(module, role):
    """graft.sglang.install() called by the program, and a dumper it builds itself."""
    import graft.sglang
    installed = graft.sglang.install(module)
    config = module.DumperConfig(
        enable=True, enable_output_file=False, enable_output_console=False, exp_name="graft_test",
        grafter_enable=True, grafter_role=role, grafter_b2t_filter="name == 'h'",
        grafter_master_address="127.0.0.1", grafter_master_port=int(os.environ["DUMPER_GRAFTER_MASTER_PORT"]),
        grafter_baseline_world_size=int(os.environ["DUMPER_GRAFTER_BASELINE_WORLD_SIZE"]),
        grafter_target_world_size=int(os.environ["DUMPER_GRAFTER_TARGET_WORLD_SIZE"]),
        grafter_backend="gloo", grafter_timeout=30)
    return installed, module._Dumper(config=config)


def main(program, result_path):
    module = sglang_reference.load()
    role = os.environ["DUMPER_GRAFTER_ROLE"]
    installed = None
    if program == "dumper_in_code":
        installed, dumper = dumper_in_code(module, role)
    else:
        dumper = module.dumper  # the singleton sglang's model code imports
    result = dump_calls(dumper, role)
    result.update(installed=installed, hook_at_startup=HOOK_AT_STARTUP, grafter=type(dumper._grafter).__name__)
    with open(result_path, "w", encoding="utf-8") as out:
        json.dump(result, out)
    dist.destroy_process_group()


if __name__ == "__main__":
    main(*sys.argv[1:])
