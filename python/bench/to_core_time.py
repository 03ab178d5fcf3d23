"""Time of `eir convert --to core` against torch's `ep.run_decompositions()` on the
largest zoo programs, measured in one run, alternating the two, median of N.

    python3 python/bench/to_core_time.py --zoo build/zoo [--eir build/eir] [--runs 5]

torch's time is load + run_decompositions() + save (what `eir convert --to core`
does: read the archive, decompose, write the result); torch's import is not counted.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

PROGRAMS = ["resnet18", "mobilenetv2", "transformer_encoder", "gpt"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--zoo", required=True)
    ap.add_argument("--eir", default="build/eir")
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    import torch
    warnings.filterwarnings("ignore")
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for name in PROGRAMS:
            src = os.path.join(a.zoo, name + ".pt2")
            if not os.path.exists(src):
                print(f"{src}: missing", file=sys.stderr)
                return 1
            te, tt = [], []
            for _ in range(a.runs):
                t0 = time.perf_counter()
                subprocess.run([a.eir, "convert", "--to", "core", src, os.path.join(d, "e.pt2")], check=True,
                               capture_output=True)
                te.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                ep = torch.export.load(src)
                torch.export.save(ep.run_decompositions(), os.path.join(d, "t.pt2"))
                tt.append(time.perf_counter() - t0)
            nodes = sum(1 for _ in torch.export.load(src).graph.nodes)
            rows.append((name, nodes, statistics.median(te), statistics.median(tt)))
    print("| program | nodes | eir convert --to core | torch load + run_decompositions() + save | torch / eir |")
    print("|---|---:|---:|---:|---:|")
    for name, nodes, e, t in rows:
        print(f"| {name} | {nodes} | {e * 1e3:.0f} ms | {t * 1e3:.0f} ms | {t / e:.0f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
