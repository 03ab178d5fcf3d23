"""fusion_bench.py — eir with and without the Backend dialect's fusion.

Exports torchvision's ResNet-18 and MobileNetV2 (random weights, 1x3x224x224,
as python/bench/models.py builds them; as exported and after
run_decompositions()), then times build/run_bench on each program with the
runtime's bind-time fusion on (default) and off (EIR_NO_FUSION=1),
alternating the two ROUNDS times, each round a fresh process with its own
warm-up; prints the median run time of each setting (the median over
rounds of each round's median) and checks both give the same outputs.

    python3 python/bench/fusion_bench.py [--rounds 5] [--runs 15] [--models resnet18 mobilenet_v2]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import models  # noqa: E402


def one_round(bench, pt2, inp, runs, fusion, out):
    env = dict(os.environ)
    if fusion:
        env.pop("EIR_NO_FUSION", None)
    else:
        env["EIR_NO_FUSION"] = "1"
    r = subprocess.run([bench, pt2, "--warmup", "3", "--runs", str(runs), "--out", out, inp],
                       capture_output=True, text=True, env=env, timeout=600)
    if r.returncode:
        raise SystemExit(r.stderr)
    times = [float(l.split()[1]) for l in r.stdout.splitlines() if l.startswith("run_us")]
    load = [float(l.split()[1]) for l in r.stdout.splitlines() if l.startswith("load_us")]
    return statistics.median(times), load[0] if load else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--models", nargs="*", default=["resnet18", "mobilenet_v2"])
    a = ap.parse_args()
    bench = os.path.join(REPO, "build", "run_bench")
    work = tempfile.mkdtemp(prefix="fusion_bench")
    for k in (0, 1):
        os.makedirs(os.path.join(work, f"out{k}"), exist_ok=True)
    print("| model | form | fusion off (ms) | fusion on (ms) | speed-up | load+bind off / on (ms) |")
    print("|---|---|---:|---:|---:|---:|")
    for name in a.models:
        m, args = models.build(name)
        for decomp in (False, True):
            ep = torch.export.export(m, args)
            if decomp:
                ep = ep.run_decompositions()
            pt2 = os.path.join(work, f"{name}{'.decomp' if decomp else ''}.pt2")
            torch.export.save(ep, pt2)
            inp = os.path.join(work, "x.npy")
            np.save(inp, args[0].numpy())
            res = {True: [], False: []}
            loads = {True: [], False: []}
            for _ in range(a.rounds):
                for fusion in (False, True):
                    t, l = one_round(bench, pt2, inp, a.runs, fusion, os.path.join(work, f"out{int(fusion)}"))
                    res[fusion].append(t)
                    loads[fusion].append(l)
            y0 = np.load(os.path.join(work, "out0", "out0.npy"))
            y1 = np.load(os.path.join(work, "out1", "out0.npy"))
            with torch.no_grad():
                want = m(*args).numpy()
            d0, d1 = np.abs(y0 - want).max(), np.abs(y1 - want).max()
            off, on = statistics.median(res[False]) / 1e3, statistics.median(res[True]) / 1e3
            print(f"| {name} | {'decomposed' if decomp else 'as exported'} | {off:.2f} | {on:.2f} | "
                  f"{off / on:.2f}x | {statistics.median(loads[False]) / 1e3:.1f} / "
                  f"{statistics.median(loads[True]) / 1e3:.1f} |", flush=True)
            print(f"<!-- max |eir - torch|: fusion off {d0:.2e}, on {d1:.2e} -->", flush=True)


if __name__ == "__main__":
    main()
