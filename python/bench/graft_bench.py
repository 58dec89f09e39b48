"""graft from Python against the floor: a 1+1 b2t graft of N MiB, timed on the
target (the receiver), against a raw torch.distributed send/recv of the same
bytes over Gloo in the same processes, in the same run; and sglang's own
grafter beside them, when sglang's dumper is installed (pip install --no-deps
sglang==0.5.23 pyzmq), driven as sglang drives it.

    PYTHONPATH=build/python python3 python/bench/graft_bench.py [--sizes 1 16 64] [--reps 15] [--out FILE]

For each size it reports the medians of raw recv, graft with measure=off,
graft with measure=full and sglang's grafter, and each one's ratio to raw
(graft's goal: <= 1.3x at >= 16 MiB). Each timed call starts after a barrier,
so that neither side's lateness is counted. Each process is its side's world
of one in torch.distributed's default group, as in an engine (sglang's grafter
takes its rank there); the raw send/recv runs on a Gloo group of the two
processes of its own. Writes JSON to --out (default
reports/bench/python_bench.json) and the table as markdown beside it
(python_bench.md, shown on the report page).

Both ranks run on this host, so the ranks run with OMP_WAIT_POLICY=PASSIVE
unless it is set: by default the OpenMP threads of ATen's parallel regions
(the graft's write and measuring pass; a raw recv has none) spin for a while
after each region, on cores the other rank and Gloo's threads need (pip torch
2.11, 2 cores: a 1 MiB graft 5.5 ms spinning, 1.4 ms passive).
"""

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from datetime import timedelta


TARGET_RATIO = 1.3
MODES = ("off", "full")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def interleaved_medians(variants, barrier, reps, warmup=2):
    """Median seconds of each variant's call, timed in turns (raw, off, full,
    raw, ...) so that a slow spell of a shared machine falls on all of them
    alike. variants: name -> (call, check), check run untimed after each call."""
    samples = {name: [] for name in variants}
    for i in range(warmup + reps):
        for name, (call, check) in variants.items():
            barrier()
            started = time.perf_counter()
            call()
            elapsed = time.perf_counter() - started
            check()
            if i >= warmup:
                samples[name].append(elapsed)
    return {name: statistics.median(times) for name, times in samples.items()}


def ratio_names(with_sglang):
    """Each timed variant but raw, by its ratio's name in the results (ratio_off, ...)."""
    names = {f"graft_{mode}": mode for mode in MODES}
    if with_sglang:
        names["sglang"] = "sglang"
    return names


def sglang_grafter(role, port):
    """sglang's own _Grafter as its dumper makes it, or the reason there is none."""
    from graft import sglang_reference
    missing = sglang_reference.missing_reason()
    if missing:
        return None, missing
    module = sglang_reference.load()
    config = module.DumperConfig(
        enable=True, enable_output_file=False, enable_output_console=False, exp_name="graft_bench",
        grafter_enable=True, grafter_role=role, grafter_b2t_filter="name == 't'",
        grafter_master_address="127.0.0.1", grafter_master_port=port, grafter_baseline_world_size=1,
        grafter_target_world_size=1, grafter_backend="gloo", grafter_group_name="bench_sglang", grafter_timeout=120)
    return module._Dumper(config=config)._grafter, None


def rank_main(args):
    import torch
    import torch.distributed as dist

    import graft

    role = args.role
    rank = 0 if role == "baseline" else 1
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{args.side_ports[rank]}", rank=0, world_size=1)
    store = dist.TCPStore("127.0.0.1", args.raw_port, 2, rank == 0, timedelta(seconds=120))
    pair = dist.ProcessGroupGloo(store, rank, 2, timedelta(seconds=120))
    grafters = {mode: graft.Grafter(role=role, master_address="127.0.0.1", master_port=args.graft_ports[i],
                                    baseline_world_size=1, target_world_size=1, b2t_filter="name == 't'",
                                    measure=mode, group_name=f"bench_{mode}", timeout=120, rank=0,
                                    world_size=1, events=lambda event: None)
                for i, mode in enumerate(MODES)}
    sglang, sglang_missing = sglang_grafter(role, args.graft_ports[len(MODES)])
    results = []
    for mib in args.sizes:
        numel = mib * (1 << 20) // 4
        value = torch.full((numel,), 1.0 + rank)
        reps = max(3, args.reps if mib <= 16 else args.reps // 2)

        def raw():
            if role == "baseline":
                pair.send([value], 1, 0).wait()
            else:
                pair.recv([value], 0, 0).wait()

        def grafted(variant):
            """The target holds the baseline's values; put its own back for the next call."""
            def check():
                if role == "target":
                    if not torch.equal(value, torch.full_like(value, 1.0)):
                        raise SystemExit(f"graft_bench: the {variant} graft of {mib} MiB did not bring the "
                                         f"baseline's values")
                    value.fill_(1.0 + rank)
            return check

        variants = {"raw": (raw, grafted("raw")),
                    **{f"graft_{mode}": (lambda mode=mode: grafters[mode].maybe_intercept(value, name="t"),
                                         grafted(mode)) for mode in MODES}}
        if sglang is not None:
            variants["sglang"] = (lambda: sglang.maybe_intercept(value=value, tags={"name": "t"}, extras=None),
                                  grafted("sglang"))
        medians = interleaved_medians(variants, lambda: pair.barrier().wait(), reps)
        row = {"mib": mib, "bytes": numel * 4, "reps": reps, "raw_s": medians["raw"]}
        for variant, ratio in ratio_names(sglang is not None).items():
            row[f"{variant}_s"] = medians[variant]
            row[f"ratio_{ratio}"] = medians[variant] / row["raw_s"]
        results.append(row)
    pair.barrier().wait()
    if role == "target":
        print(json.dumps({"results": results, "sglang": sglang_missing or f"sglang {sglang_version()}"}))


def sglang_version():
    import importlib.metadata
    return importlib.metadata.version("sglang")


def table(results, sglang):
    """The results as a markdown table: medians and each one's ratio to raw."""
    with_sglang = all("sglang_s" in row for row in results)
    head = ["size", "raw recv", "graft off", "ratio", "graft full", "ratio"] + (
        ["sglang's grafter", "ratio"] if with_sglang else [])
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for row in results:
        cells = [f"{row['mib']} MiB", f"{row['raw_s'] * 1e3:.2f} ms"]
        for variant, ratio in ratio_names(with_sglang).items():
            cells += [f"{row[variant + '_s'] * 1e3:.2f} ms", f"{row['ratio_' + ratio]:.2f}x"]
        lines.append("| " + " | ".join(cells) + " |")
    if not with_sglang:
        lines.append(f"\nsglang's grafter: not run ({sglang}).")
    return "\n".join(lines)


def report(results, sglang, out, omp_wait_policy):
    import torch
    import graft
    markdown = (f"## Python: graft and sglang's grafter against raw send/recv\n\n"
                f"1+1 over Gloo on loopback, float32, target-side medians from one run (torch {torch.__version__}, "
                f"graft {graft.__version__}, {sglang}); graft's goal: <= {TARGET_RATIO}x at >= 16 MiB.\n\n"
                + table(results, sglang) + "\n")
    print(markdown)
    document = {"what": "Python 1+1 b2t graft (and sglang's grafter) vs raw torch.distributed send/recv over "
                        "Gloo on loopback, target-side medians",
                "torch": torch.__version__, "graft": graft.__version__, "sglang": sglang,
                "target_ratio": TARGET_RATIO, "omp_wait_policy": omp_wait_policy, "results": results}
    judged = [row[f"ratio_{m}"] <= TARGET_RATIO for row in results if row["mib"] >= 16 for m in MODES]
    # None: no size of 16 MiB or more was run, so the goal was not judged.
    document["met"] = all(judged) if judged else None
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(document, f, indent=2)
    with open(os.path.splitext(out)[0] + ".md", "w", encoding="utf-8") as f:
        f.write(markdown)
    print(f"graft_bench: wrote {out}; goal met: {document['met']}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 16, 64], help="tensor sizes in MiB")
    parser.add_argument("--reps", type=int, default=21, help="timed calls per size and variant (half above 16 MiB)")
    parser.add_argument("--out", default="reports/bench/python_bench.json", help="JSON report path")
    parser.add_argument("--role", help=argparse.SUPPRESS)
    parser.add_argument("--raw-port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--side-ports", type=int, nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--graft-ports", type=int, nargs=len(MODES) + 1, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if any(size < 1 for size in args.sizes) or args.reps < 1:
        parser.error("sizes and --reps must be whole numbers of at least 1")
    if args.role:
        return rank_main(args)

    ports = [str(free_port()) for _ in range(3 + len(MODES) + 1)]
    env = dict(os.environ)
    env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    common = [sys.executable, os.path.abspath(__file__), "--sizes", *map(str, args.sizes), "--reps", str(args.reps),
              "--raw-port", ports[0], "--side-ports", *ports[1:3], "--graft-ports", *ports[3:]]
    print(f"graft_bench: sizes {args.sizes} MiB, {args.reps} timed calls each, "
          f"OMP_WAIT_POLICY={env['OMP_WAIT_POLICY']}", flush=True)
    # sglang's grafter prints a line per call: the baseline's lines are not kept.
    baseline = subprocess.Popen(common + ["--role", "baseline"], env=env, stdout=subprocess.DEVNULL)
    target = subprocess.run(common + ["--role", "target"], env=env, stdout=subprocess.PIPE, text=True, timeout=1800)
    baseline.wait(timeout=120)
    if target.returncode != 0 or baseline.returncode != 0:
        raise SystemExit(f"graft_bench: a rank failed (baseline exit {baseline.returncode}, "
                         f"target exit {target.returncode})")
    answer = json.loads(target.stdout.strip().splitlines()[-1])
    report(answer["results"], answer["sglang"], args.out, env["OMP_WAIT_POLICY"])


if __name__ == "__main__":
    main()
