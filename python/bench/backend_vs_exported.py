"""eir on a program as torch.export wrote it against the same program written ahead as a Backend
program (`eir convert --to backend`: convolutions fused with their batch norms folded, linear
weights packed for the products), measured in one run.

    python3 python/bench/backend_vs_exported.py [--models a,b] [--runs N] [--fresh F] [--threads T]

For each model of python/bench/models.py: the exported .pt2 and its Backend program, both
checked against torch's outputs (bench.check_outputs, deep tolerance); the steady-state median of
N runs each (run_bench --serve, the two alternating in an order shuffled per round), and the time
from process start to first result, median of F fresh processes each, alternating. Prints a
markdown table.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import bench  # noqa: E402


def one_model(name, args):
    work = tempfile.mkdtemp(prefix=f"eir-be-{name}-")
    try:
        prep = bench.prepare(name, work, False, False, ["eir"], print,
                             eir_cli=os.path.join(os.path.dirname(args.exe), "eir"))
        if "pt2_backend" not in prep:
            return name, None, prep["errors"].get("eir_be")
        progs = {"exported": prep["pt2"], "backend": prep["pt2_backend"]}
        runners = {k: bench.Eir(dict(prep, pt2=p), args.threads, args.exe) for k, p in progs.items()}
        try:
            for k, r in runners.items():
                r.run()
                ok, msg = bench.check_outputs(r.outputs(len(prep["want"])), prep["want"], deep=True)
                if not ok:
                    return name, None, f"{k}: WRONG OUTPUT: {msg}"
                for _ in range(args.warmup):
                    r.run()
            times = {k: [] for k in runners}
            for rnd in range(args.runs):
                for k in bench.rotated(list(runners), rnd):
                    times[k].append(runners[k].run())
        finally:
            for r in runners.values():
                r.close()
        first = {k: [] for k in progs}
        for rnd in range(args.fresh):
            for k in bench.rotated(list(progs), rnd):
                t, _ = bench.fresh_with_rss("eir", dict(prep, pt2=progs[k]), args.threads, args.exe)
                first[k].append(t)
        size = {k: os.path.getsize(p) for k, p in progs.items()}
        return name, ({k: statistics.median(v) for k, v in times.items()},
                      {k: statistics.median(v) for k, v in first.items()}, size), None
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", help="comma-separated subset of python/bench/models.py MODELS")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--fresh", type=int, default=7, help="fresh processes per program for the first result")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--exe", default=os.path.join(ROOT, "build", "run_bench"))
    args = ap.parse_args(argv)
    import models

    names = args.models.split(",") if args.models else list(models.MODELS)
    rows = ["| model | run, exported | run, Backend program | ratio | first result, exported | "
            "first result, Backend program | ratio | file, exported | file, Backend program |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    failed = False
    for name in names:
        name, res, err = one_model(name, args)
        if err:
            rows.append(f"| {name} | failed: {err} |")
            failed = True
            continue
        med, first, size = res
        rows.append(f"| {name} | {bench._ms(med['exported'])} | {bench._ms(med['backend'])} | "
                    f"{med['backend'] / med['exported']:.2f}x | {bench._ms(first['exported'])} | "
                    f"{bench._ms(first['backend'])} | {first['backend'] / first['exported']:.2f}x | "
                    f"{size['exported'] / 2**20:.0f} MiB | {size['backend'] / 2**20:.0f} MiB |")
        print(rows[-1], flush=True)
    print("\n".join(rows))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
