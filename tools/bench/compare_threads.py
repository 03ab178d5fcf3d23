#!/usr/bin/env python3
"""compare_threads.py — two builds of eir's run_bench, side by side on the
benchmark models, at several thread counts, alternating in one run (the
one-thread comparison with torch eager as the yardstick is
python/bench/compare_builds.py).

    python3 tools/bench/compare_threads.py --before /tmp/base/build/run_bench \
        --after build/run_bench [--models resnet18,mobilenet_v2] [--threads-list 1,2] \
        [--rounds 7] [--runs 5] [--work /tmp/eir-compare]

Each model of python/bench/models.py is exported once (torch.export.export, as
python/bench/bench.py does) into --work with its inputs. Then, round after
round, every (build, thread count) pair runs as one run_bench process (2
warm-up runs, then --runs timed runs; the process's median), in the same
order each round, so both builds see the same machine load. Reported: the
median over rounds, and the ratio after / before (below 1: the after build is
faster) and 1T / T (the speed-up from threads). Both builds' outputs are
compared with torch's at every thread count before timing (bench.py's check:
the suite's tolerances, atol scaled to the output); a mismatch stops the run.
Prints a markdown table.
"""
import argparse
import glob
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "python", "bench"))
sys.path.insert(0, os.path.join(REPO, "python", "tests"))


def export(name, work):
    import numpy as np
    import torch
    import models

    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    m, args = models.build(name, False)
    ep = torch.export.export(m, args)
    torch.export.save(ep, os.path.join(d, "model.pt2"))
    for i, a in enumerate(args):
        np.save(os.path.join(d, f"in{i}.npy"), a.numpy())
    with torch.inference_mode():
        want = ep.module()(*args)
    want = want if isinstance(want, (tuple, list)) else (want,)
    return d, [t.numpy() for t in want]


def run(exe, d, threads, runs, out=None):
    ins = sorted(glob.glob(os.path.join(d, "in*.npy")))
    cmd = [exe, os.path.join(d, "model.pt2"), "--threads", str(threads), "--warmup", "2", "--runs", str(runs)]
    if out:
        cmd += ["--out", out]
    res = subprocess.run(cmd + ins, capture_output=True, text=True, check=True).stdout
    us = [float(line.split()[1]) for line in res.splitlines() if line.startswith("run_us")]
    return statistics.median(us) / 1000


def check(exe, d, threads, want):
    import numpy as np
    import bench

    out = os.path.join(d, f"out-{threads}")
    os.makedirs(out, exist_ok=True)
    run(exe, d, threads, 1, out)
    got = [np.load(os.path.join(out, f"out{i}.npy")) for i in range(len(want))]
    ok, msg = bench.check_outputs(got, want, deep=True)
    if not ok:
        sys.exit(f"{exe}: {d}: at {threads} threads: {msg}")


def ms(x):
    return f"{x:.3f} ms" if x < 1 else f"{x:.2f} ms"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--models", default="resnet18,mobilenet_v2,mobilenet_v3_large,bert_encoder,gpt2_decoder,llama_block,lstm,mlp")
    ap.add_argument("--threads-list", default="1,2")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--work", default="/tmp/eir-compare")
    a = ap.parse_args()
    threads = [int(t) for t in a.threads_list.split(",")]
    builds = [("before", a.before), ("after", a.after)]
    load0 = os.getloadavg()[0]
    rows = []
    for name in a.models.split(","):
        d, want = export(name, a.work)
        for _, exe in builds:
            for t in threads:
                check(exe, d, t, want)
        times = {}
        for _ in range(a.rounds):
            for b, exe in builds:
                for t in threads:
                    times.setdefault((b, t), []).append(run(exe, d, t, a.runs))
        med = {k: statistics.median(v) for k, v in times.items()}
        rows.append((name, med))
        print(f"{name}: " + ", ".join(f"{b} {t}T {med[(b, t)]:.2f} ms" for b, _ in builds for t in threads),
              file=sys.stderr, flush=True)
    load1 = os.getloadavg()[0]
    head = ["model"] + [f"{b} {t}T" for b, _ in builds for t in threads] + [f"after / before {t}T" for t in threads]
    head += [f"{b} 1T / {t}T" for b, _ in builds for t in threads if t != threads[0]]
    print("| " + " | ".join(head) + " |")
    print("|---|" + "---:|" * (len(head) - 1))
    for name, med in rows:
        cells = [name] + [ms(med[(b, t)]) for b, _ in builds for t in threads]
        cells += [f"{med[('after', t)] / med[('before', t)]:.2f}x" for t in threads]
        cells += [f"{med[(b, threads[0])] / med[(b, t)]:.2f}x" for b, _ in builds for t in threads if t != threads[0]]
        print("| " + " | ".join(cells) + " |")
    print(f"\nload average (1 min) {load0:.1f} at the start, {load1:.1f} at the end")


if __name__ == "__main__":
    main()
