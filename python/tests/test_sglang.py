"""graft under sglang's own dumper (sglang==0.5.23's dumper.py, run as shipped):
worlds of processes that call dumper.dump as sglang's model code does, with
GRAFT_SGLANG on (graft grafts; its events prove it) and off (sglang's grafter
grafts), and the checks a user meets when the switch cannot apply."""

import os
import site
import types
import warnings
from pathlib import Path

import pytest
import torch

import graft
from graft import sglang_reference
from world import run_world
from world_values import CALLS, own_value

_missing = sglang_reference.missing_reason()
# CI installs sglang into every pip torch it tests (ci/install-torch.sh):
# there a missing sglang is a failure, not a skip.
if _missing and os.environ.get("CI", "").lower() in ("true", "1") and int(torch.__version__.split(".")[0]) >= 2:
    raise RuntimeError(f"CI: {_missing}; ci/install-torch.sh installs it")
if _missing:
    pytest.skip(f"sglang's dumper cannot be loaded: {_missing}", allow_module_level=True)

GRAFT_DIR = str(Path(graft.__file__).resolve().parent.parent)
IN_SITE_PACKAGES = GRAFT_DIR in [str(Path(p).resolve()) for p in site.getsitepackages()]
SETTINGS = {"b2t_filter": "name == 'h'", "backend": "gloo"}
DUMPER_ENV = {"DUMPER_ENABLE": "1", "DUMPER_ENABLE_OUTPUT_FILE": "0", "DUMPER_ENABLE_OUTPUT_CONSOLE": "0",
              "DUMPER_EXP_NAME": "graft_test"}


def worker_env(**more):
    env = dict(DUMPER_ENV, **more)
    if not IN_SITE_PACKAGES:
        env["GRAFT_TEST_SITE_DIR"] = GRAFT_DIR
    return env


def sglang_world(tmp_path, program, baseline, target, switch, settings=SETTINGS):
    return run_world(tmp_path, program, baseline, target, settings=settings, extra_env=worker_env(GRAFT_SGLANG=switch),
                     worker="sglang_worker.py")


def expected_values(side, rank):
    return [own_value(side, rank, call).tolist() for call in range(CALLS)]


def assert_identity_by_rank_grafts(world, baseline, target):
    for rank in range(baseline):
        assert world[("baseline", rank)].result["values"] == expected_values("baseline", rank)
    for rank in range(target):
        assert world[("target", rank)].result["values"] == expected_values("baseline", rank), world[("target", rank)]


@pytest.mark.parametrize("baseline,target", [(1, 1), (2, 2)])
def test_switch_on_grafts_through_graft_with_the_dumpers_tags(tmp_path, baseline, target):
    world = sglang_world(tmp_path, "dump_calls", baseline, target, switch="1")
    assert_identity_by_rank_grafts(world, baseline, target)
    # ci/test-pip-install.sh installs graft into a virtual environment's site-packages.
    assert IN_SITE_PACKAGES or os.environ.get("GRAFT_TEST_INSTALLED") != "1"
    for (side, rank), process in world.items():
        assert process.result["grafter"] == "SglangGrafter"
        # In site-packages the .pth file put the hook in place as Python started.
        assert process.result["hook_at_startup"] == IN_SITE_PACKAGES
        assert process.result["early"] == [1.0, 1.0]
        (init,) = process.events_of("group_init")
        assert init["backend"] == "gloo"
        assert init["backend_source"] == "DUMPER_GRAFTER_BACKEND"
        assert init["rank_source"] == "torch.distributed's default group"
        assert init["host"] == f"sglang {sglang_reference.VERSION} dumper"
        kind = "send" if side == "baseline" else "recv_grafted"
        calls = process.events_of(kind)
        assert [e["tags"] for e in calls] == [
            {"name": "h", "recompute_status": "disabled", "layer_id": call, "phase": "decode"}
            for call in range(CALLS)]
        if side == "target":
            assert [e["sender_extras"] for e in calls] == [
                [{"rank": sender, "call": call} for sender in range(baseline)] for call in range(CALLS)]
            assert all(e["metrics"]["max_abs"] == 1000.0 for e in calls)


@pytest.mark.parametrize("baseline,target", [(1, 1), (2, 2)])
def test_switch_off_leaves_sglangs_own_grafter_grafting(tmp_path, baseline, target):
    world = sglang_world(tmp_path, "dump_calls", baseline, target, switch="0")
    assert_identity_by_rank_grafts(world, baseline, target)
    for process in world.values():
        assert process.result["grafter"] == "_Grafter"
        assert process.events == []  # graft never ran
    assert "[Grafter] recv" in (tmp_path / "stdout-target-0.txt").read_text()  # sglang logs each graft


def test_install_in_code_reaches_a_dumper_the_program_builds(tmp_path):
    world = sglang_world(tmp_path, "dumper_in_code", 1, 1, switch="", settings={"b2t_filter": "name == 'h'"})
    assert_identity_by_rank_grafts(world, 1, 1)
    for process in world.values():
        assert process.result["installed"] is True
        assert process.result["grafter"] == "SglangGrafter"
        (init,) = process.events_of("group_init")
        assert init["backend_source"] == "the DumperConfig the program built"


@pytest.mark.parametrize("graft_side", ["baseline", "target"])
def test_a_graft_process_facing_sglangs_grafter_says_so_within_its_timeout(tmp_path, graft_side):
    sglang_side = "target" if graft_side == "baseline" else "baseline"
    timeout, slack = 5, 10
    ready = str(tmp_path / "sglang-side-ready")
    world = run_world(
        tmp_path, "dump_calls", 1, 1, settings=dict(SETTINGS, timeout=timeout), worker="sglang_worker.py",
        extra_env=worker_env(),
        side_env={graft_side: {"GRAFT_SGLANG": "1", "GRAFT_TEST_WAIT_FILE": ready},
                  sglang_side: {"GRAFT_SGLANG": "0", "GRAFT_TEST_READY_FILE": ready}},
        # sglang's grafter waits 30 minutes for a graft peer (torch's default): it is killed.
        wait_for=(graft_side,))
    mine = world[(graft_side, 0)]
    (error,) = mine.events_of("group_error")
    assert error["phase"] == "init"
    assert "holds no graft world" in error["message"], error["message"]
    assert "sglang's own grafter" in error["message"] and "GRAFT_SGLANG=1" in error["message"]
    assert error["time"] - mine.result["first_matched_call_at"] <= timeout + slack
    assert mine.result["values"] == expected_values(graft_side, 0)  # unchanged: nothing was grafted
    assert world[(sglang_side, 0)].result is None  # still waiting when it was killed


def test_a_dumper_of_another_shape_gets_one_warning_and_keeps_its_grafter():
    import graft.sglang
    module = sglang_reference.load()

    class OtherGrafter(module._Grafter):
        def maybe_intercept(self, value, tags):  # positional: not the interface graft plugs into
            return None

    other = types.SimpleNamespace(_Grafter=OtherGrafter, _Dumper=module._Dumper)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert graft.sglang.install(other) is False
    assert len(caught) == 1
    message = str(caught[0].message)
    assert f"sglang {sglang_reference.VERSION}'s dumper" in message
    assert "maybe_intercept" in message and "sglang's own grafter stays in place" in message
    assert other._Grafter is OtherGrafter


def target_config(module, world_size, **more):
    """An enabled target's DumperConfig, world_size ranks a side, for grafters made in this process."""
    return module.DumperConfig(
        enable=True, grafter_enable=True, grafter_role="target", grafter_b2t_filter="name == 'h'",
        grafter_master_address="127.0.0.1", grafter_master_port=29999, grafter_baseline_world_size=world_size,
        grafter_target_world_size=world_size, **more)


def test_an_invalid_graft_setting_is_a_config_error_when_the_dumper_is_made(monkeypatch):
    import graft.sglang
    module = sglang_reference.load()
    monkeypatch.setenv("DUMPER_GRAFTER_MEASURE", "sometimes")
    config = target_config(module, world_size=1)
    with pytest.raises(graft.ConfigError, match="DUMPER_GRAFTER_MEASURE: expected 'full'"):
        graft.sglang.SglangGrafter(config=config)


def test_a_side_world_that_disagrees_is_said_once_and_grafts_nothing(monkeypatch, capsys):
    import graft.sglang
    module = sglang_reference.load()
    for name in ("RANK", "WORLD_SIZE"):
        monkeypatch.delenv(name, raising=False)
    config = target_config(module, world_size=2, grafter_backend="gloo")
    grafter = graft.sglang.SglangGrafter(config=config)
    assert not torch.distributed.is_initialized()  # so the side is RANK/WORLD_SIZE's: 0 of 1
    value = torch.arange(3.0)
    for _ in range(2):
        grafter.maybe_intercept(value=value, tags={"name": "h"})
    assert value.tolist() == [0.0, 1.0, 2.0]
    assert grafter.enabled is False
    said = capsys.readouterr().err
    assert said.count("grafting is off in this process") == 1, said
    assert "target_world_size=2 but this process's side has WORLD_SIZE=1" in said


def test_the_startup_hook_reads_its_switch(capsys):
    import graft_sglang_hook
    assert graft_sglang_hook.switched_on({"GRAFT_SGLANG": " On "}) is True
    assert graft_sglang_hook.switched_on({}) is False
    assert graft_sglang_hook.switched_on({"GRAFT_SGLANG": "0"}) is False
    assert capsys.readouterr().err == ""
    assert graft_sglang_hook.switched_on({"GRAFT_SGLANG": "2"}) is False
    assert "GRAFT_SGLANG='2' is neither on" in capsys.readouterr().err
