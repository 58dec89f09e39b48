"""graft from Python against the floor: a 1+1 b2t graft of N MiB, timed on the
target (the receiver), against a raw torch.distributed send/recv of the same
bytes over Gloo in the same processes, in the same run.

    PYTHONPATH=build/python python3 python/bench/graft_bench.py [--sizes 1 16 64] [--reps 15] [--out FILE]

For each size it reports the medians of raw recv, graft with measure=off and
graft with measure=full, and each graft's ratio to raw (target: <= 1.3x at
>= 16 MiB). Each timed call starts after a barrier, so that neither side's
lateness is counted. Writes JSON to --out (default reports/bench/python_bench.json).
"""

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time

TARGET_RATIO = 1.3
MODES = ("off", "full")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def timed_median(call, barrier, reps, warmup=2):
    samples = []
    for i in range(warmup + reps):
        barrier()
        started = time.perf_counter()
        call()
        if i >= warmup:
            samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def rank_main(args):
    import torch
    import torch.distributed as dist

    import graft

    role = args.role
    rank = 0 if role == "baseline" else 1
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{args.raw_port}", rank=rank, world_size=2)
    grafters = {mode: graft.Grafter(role=role, master_address="127.0.0.1", master_port=args.graft_ports[i],
                                    baseline_world_size=1, target_world_size=1, b2t_filter="name == 't'",
                                    measure=mode, group_name=f"bench_{mode}", timeout=120, rank=0,
                                    world_size=1, events=lambda event: None)
                for i, mode in enumerate(MODES)}
    results = []
    for mib in args.sizes:
        numel = mib * (1 << 20) // 4
        value = torch.full((numel,), 1.0 + rank)
        reps = max(3, args.reps if mib <= 16 else args.reps // 2)
        if role == "baseline":
            raw = lambda: dist.send(value, dst=1)
        else:
            raw = lambda: dist.recv(value, src=0)
        row = {"mib": mib, "bytes": numel * 4, "reps": reps, "raw_s": timed_median(raw, dist.barrier, reps)}
        for mode in MODES:
            g = grafters[mode]
            row[f"graft_{mode}_s"] = timed_median(lambda: g.maybe_intercept(value, name="t"), dist.barrier, reps)
            row[f"ratio_{mode}"] = row[f"graft_{mode}_s"] / row["raw_s"]
            if role == "target" and not torch.equal(value, torch.full_like(value, 1.0)):
                raise SystemExit(f"graft_bench: the {mode} graft of {mib} MiB did not bring the baseline's values")
            value.fill_(1.0 + rank)
        results.append(row)
    dist.barrier()
    if role == "target":
        print(json.dumps(results))


def report(results, out):
    lines = ["size     raw recv   graft off   ratio   graft full   ratio   (target-side medians; goal <= "
             f"{TARGET_RATIO}x at >= 16 MiB)"]
    for row in results:
        lines.append(f"{row['mib']:>3} MiB {row['raw_s'] * 1e3:8.2f} ms {row['graft_off_s'] * 1e3:8.2f} ms "
                     f"{row['ratio_off']:6.2f}x {row['graft_full_s'] * 1e3:9.2f} ms {row['ratio_full']:6.2f}x")
    print("\n".join(lines))
    import torch
    import graft
    document = {"what": "Python 1+1 b2t graft vs raw torch.distributed send/recv over Gloo on loopback, "
                        "target-side medians",
                "torch": torch.__version__, "graft": graft.__version__, "target_ratio": TARGET_RATIO,
                "results": results,
                "met": all(row[f"ratio_{m}"] <= TARGET_RATIO for row in results if row["mib"] >= 16 for m in MODES)}
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(document, f, indent=2)
    print(f"graft_bench: wrote {out}; goal met: {document['met']}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 16, 64], help="tensor sizes in MiB")
    parser.add_argument("--reps", type=int, default=15, help="timed calls per size and variant (half above 16 MiB)")
    parser.add_argument("--out", default="reports/bench/python_bench.json", help="JSON report path")
    parser.add_argument("--role", help=argparse.SUPPRESS)
    parser.add_argument("--raw-port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--graft-ports", type=int, nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if any(size < 1 for size in args.sizes) or args.reps < 1:
        parser.error("sizes and --reps must be whole numbers of at least 1")
    if args.role:
        return rank_main(args)

    ports = [str(free_port()) for _ in range(3)]
    common = [sys.executable, os.path.abspath(__file__), "--sizes", *map(str, args.sizes), "--reps", str(args.reps),
              "--raw-port", ports[0], "--graft-ports", ports[1], ports[2]]
    print(f"graft_bench: sizes {args.sizes} MiB, {args.reps} timed calls each", flush=True)
    baseline = subprocess.Popen(common + ["--role", "baseline"])
    target = subprocess.run(common + ["--role", "target"], stdout=subprocess.PIPE, text=True, timeout=1800)
    baseline.wait(timeout=120)
    if target.returncode != 0 or baseline.returncode != 0:
        raise SystemExit(f"graft_bench: a rank failed (baseline exit {baseline.returncode}, "
                         f"target exit {target.returncode})")
    report(json.loads(target.stdout.strip().splitlines()[-1]), args.out)


if __name__ == "__main__":
    main()
