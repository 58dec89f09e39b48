"""One rank of a harness scenario, played by a Python grafter: graft's own
(graft.Grafter) or sglang's (its _Grafter, reached through dumper.dump as
sglang's model code reaches it). Started by `graft run --grafter python|sglang`
and `graft conformance`, not by hand:

    python -m graft.scenario_worker --plan FOLDER/ROLE-RANK.plan.json --grafter graft|sglang
    python -m graft.scenario_worker --check --grafter graft|sglang

The plan (harness/include/graft/harness/worker_protocol.hpp) is the rank's
part, resolved by the runner; the worker leaves ROLE-RANK.result.json (the
same schema as graft_worker's) and, for graft, ROLE-RANK.events.jsonl beside
it. --check only says whether this Python can play (exit 0) or why not.

Exit codes: 0 played (see the result file), 2 bad arguments or plan, 3 the
rank could not play its part (the result file says why). An exception the
grafter lets escape from a dump call is played, not an error: the step says
"raised", and the rank makes no further calls, as a host program would not.
"""

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

import torch
import torch.distributed as dist

RESULT_SCHEMA_VERSION = 1
SPECIAL_FLOATS = {"NaN": math.nan, "Inf": math.inf, "-Inf": -math.inf, "-0.0": -0.0}
DTYPES = {"float32": torch.float32, "float64": torch.float64, "float16": torch.float16,
          "bfloat16": torch.bfloat16, "int32": torch.int32, "int64": torch.int64}


def decode(value):
    return SPECIAL_FLOATS[value] if isinstance(value, str) else float(value)


def encode(value):
    """A double as the result file writes it: NaN, the infinities and -0.0 as strings."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Inf" if value > 0 else "-Inf"
    if value == 0 and math.copysign(1.0, value) < 0:
        return "-0.0"
    return value


def dtype_name(dtype):
    for name, known in DTYPES.items():
        if known == dtype:
            return name
    return str(dtype).replace("torch.", "")


class FixtureError(Exception):
    """A plan whose tensor this rank cannot make."""


def unrepresentable(values, dtype):
    """The index of the first value `dtype` cannot hold, and how many there are."""
    if dtype.is_floating_point:
        info = torch.finfo(dtype)
        bad = values.isfinite() & (values.abs() > info.max)
    else:
        info = torch.iinfo(dtype)
        bad = ~values.isfinite() | (values != values.trunc()) | (values < info.min) | (values > info.max)
    indices = bad.flatten().nonzero().flatten()
    return (int(indices[0]), int(indices.numel())) if indices.numel() else (None, 0)


def make_tensor(spec, variables):
    """The tensor a plan's SPEC describes (as harness/src/worker/tensor_factory.cpp makes it)."""
    f64 = torch.float64
    source, shape = spec["source"], spec["shape"]
    if source == "values":
        dense = torch.tensor([decode(v) for v in spec["values"]], dtype=f64).reshape(shape)
    elif source == "fill":
        dense = torch.full(shape, decode(spec["fill"]), dtype=f64)
    elif source == "arange":
        numel = math.prod(shape)
        dense = (torch.arange(numel, dtype=f64) * decode(spec["step"]) + decode(spec["start"])).reshape(shape)
    elif source == "random":
        generator = torch.Generator().manual_seed(int(spec["seed"]))
        draw = torch.rand if spec["distribution"] == "uniform" else torch.randn
        dense = draw(shape, generator=generator, dtype=f64)
    elif source == "from":
        if spec["from"] not in variables:
            raise FixtureError(f'tensor.from: variable "{spec["from"]}" holds no tensor on this rank')
        base = variables[spec["from"]]
        base = base.to_dense() if base.layout != torch.strided else base
        dense = base.to(f64) * decode(spec["scale"]) + decode(spec["offset"])
        dtype = DTYPES[spec["dtype"]] if spec["dtype"] else base.dtype
        first, count = unrepresentable(dense, dtype)
        if first is not None:
            raise FixtureError(f'tensor.from: "{spec["from"]}" * {spec["scale"]} + {spec["offset"]}, element '
                               f"{first}: {dtype_name(dtype)} cannot hold it ({count} of {dense.numel()} elements "
                               "cannot be held)")
        spec = dict(spec, dtype=dtype_name(dtype))
    else:
        raise FixtureError(f"tensor: unknown source {source!r}")
    tensor = dense.to(DTYPES[spec["dtype"] or "float32"]).contiguous()
    return tensor.to_sparse() if spec["layout"] == "sparse" else tensor


def tensor_value(tensor):
    """TV of the result file: dtype, shape, the values as doubles and the elements' own bytes."""
    dense = tensor.detach()
    dense = (dense.to_dense() if dense.layout != torch.strided else dense).cpu().contiguous()
    raw = dense.reshape(-1).view(torch.uint8) if dense.numel() else torch.empty(0, dtype=torch.uint8)
    return {"dtype": dtype_name(tensor.dtype), "shape": list(tensor.shape),
            "values": [encode(v) for v in dense.to(torch.float64).flatten().tolist()],
            "element_size": dense.element_size(), "bytes": bytes(raw.tolist()).hex()}


def events_after(path, offset):
    """The events appended to a JSON-lines file since offset, summarised as the result lists
    them (kind, error_kind, message), and the new offset."""
    if not path.exists():
        return [], offset
    with open(path, "rb") as lines:
        lines.seek(offset)
        text = lines.read()
    summaries = []
    for line in text.decode("utf-8").splitlines():
        if line.strip():
            event = json.loads(line)
            summaries.append({key: event[key] for key in ("kind", "error_kind", "message") if key in event})
    return summaries, offset + len(text)


class GraftPlayer:
    """graft's Python package, with its events in the rank's events file."""

    def __init__(self, plan, events_path):
        from graft import ConfigError, Grafter
        self._events_path = events_path
        self._offset = 0
        side = plan["world"][plan["role"]]
        try:
            self._grafter = Grafter(plan["grafter"], events=os.fspath(events_path),
                                    rank=plan["local_rank"], world_size=side)
        except ConfigError as error:
            # As graft_worker does: the host runs on without grafting, and the
            # rejection is an event, so the snapshot shows it.
            self._grafter = None
            event = {"message": str(error), "source": "graft_worker", "schema_version": 1, "kind": "config_error",
                     "time": time.time(), "pid": os.getpid(), "role": plan["role"],
                     "graft_rank": plan["graft_rank"], "local_rank": plan["local_rank"]}
            with open(events_path, "a", encoding="utf-8") as out:
                out.write(json.dumps(event) + "\n")

    def new_events(self):
        summaries, self._offset = events_after(self._events_path, self._offset)
        return summaries

    def call(self, value, tags, extras):
        if self._grafter is None:
            return
        if isinstance(value, torch.Tensor):
            self._grafter.maybe_intercept(value, extras=extras, **tags)
        else:
            self._grafter.maybe_intercept_non_tensor(value, **tags)


class SglangPlayer:
    """sglang's own dumper and _Grafter, as sglang's model code drives them: the
    side's default process group first, then dumper.dump(name, value, **tags,
    grafter_extras=...). It logs text only: no graft events."""

    def __init__(self, plan, events_path):
        from graft import sglang_reference
        module = sglang_reference.load()
        settings = plan["grafter"]
        side = plan["world"][plan["role"]]
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{plan['side_port']}",
                                rank=plan["local_rank"], world_size=side)
        config = {"grafter_" + key: value for key, value in settings.items()
                  if key not in ("measure", "events_path")}
        config.setdefault("grafter_backend", "gloo")
        config["grafter_timeout"] = int(math.ceil(config["grafter_timeout"]))
        self._dumper = module._Dumper(config=module.DumperConfig(
            enable=True, enable_output_file=False, enable_output_console=False, exp_name="graft_scenario", **config))

    def new_events(self):
        return []

    def call(self, value, tags, extras):
        tags = dict(tags)
        name = tags.pop("name")
        self._dumper.dump(name, value, grafter_extras=extras, **tags)


class NonTensorValue:
    """A dump value that is not a tensor, of the type name the scenario gives."""


def non_tensor_value(type_name):
    return type(type_name, (NonTensorValue,), {})()


def first_line(text, limit=300):
    """An exception's first line, shortened: torch's dispatcher errors run to pages."""
    line = text.splitlines()[0] if text else text
    return line if len(line) <= limit else line[:limit - 3] + "..."


def play(plan, player_class, events_path):
    result = {"schema_version": RESULT_SCHEMA_VERSION, "role": plan["role"], "local_rank": plan["local_rank"],
              "graft_rank": plan["graft_rank"], "error": None, "setup": {"events": []}, "steps": []}
    try:
        if plan["device"] != "cpu":
            raise FixtureError(f"device {plan['device']}: the Python workers make CPU tensors only")
        player = player_class(plan, events_path)
        result["setup"]["events"] = player.new_events()
        variables = {}
        for index, step in enumerate(plan["steps"]):
            record = {"ran": step["runs"], "events": [], "initial": None, "final": None}
            result["steps"].append(record)
            if not step["runs"]:
                continue
            tags = {**step["tags"], "name": step["name"]}
            if step["tensor"] is not None:
                try:
                    value = make_tensor(step["tensor"], variables)
                except FixtureError as error:
                    raise FixtureError(f"steps[{index}] '{step['step']}': {error}") from None
                variables[step["var"]] = value
                record["initial"] = tensor_value(value)
            else:
                value = non_tensor_value(step["non_tensor"] or "object")
            try:
                player.call(value, tags, step["extras"] if step["tensor"] is not None else None)
            except Exception as error:  # what the grafter let escape into the host program, whatever it was
                record["raised"] = first_line(f"{type(error).__name__}: {error}")
                break
            finally:
                record["events"] = player.new_events()
            if step["tensor"] is not None:
                record["final"] = tensor_value(value)
    except Exception as error:  # the result says why this rank could not play, whatever it was
        result["error"] = f"{type(error).__name__}: {error}"
    return result


def check(grafter):
    """Whether this Python can play: graft imports, and for sglang its dumper loads."""
    from graft import _graft  # noqa: F401  (the native module, built for this torch)
    print(f"torch {torch.__version__}, graft from {Path(__file__).parent}")
    if grafter == "sglang":
        from graft import sglang_reference
        module = sglang_reference.load()
        print(f"sglang's dumper: {module.__file__}")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m graft.scenario_worker", description=__doc__.split("\n\n")[0])
    parser.add_argument("--grafter", choices=("graft", "sglang"), required=True)
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--plan", type=Path, help="the rank's plan, written by the runner")
    action.add_argument("--check", action="store_true", help="only say whether this Python can play")
    args = parser.parse_args(argv)
    if args.check:
        try:
            check(args.grafter)
        except Exception as error:  # any reason this Python cannot play is the answer
            print(f"cannot play scenarios with --grafter {args.grafter}: {type(error).__name__}: {error}",
                  file=sys.stderr)
            return 3
        return 0
    try:
        plan = json.loads(args.plan.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        print(f"{args.plan}: cannot read the plan: {error}", file=sys.stderr)
        return 2
    stem = args.plan.name[:-len(".plan.json")] if args.plan.name.endswith(".plan.json") else args.plan.stem
    folder = args.plan.parent
    events_path = folder / f"{stem}.events.jsonl"
    events_path.write_text("", encoding="utf-8")  # sglang's grafter leaves it empty: it logs text only
    player = SglangPlayer if args.grafter == "sglang" else GraftPlayer
    result = play(plan, player, events_path)
    (folder / f"{stem}.result.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    if args.grafter == "sglang" and dist.is_initialized():
        dist.destroy_process_group()
    return 0 if result["error"] is None else 3


if __name__ == "__main__":
    sys.exit(main())
