"""Load time of each zoo program: eir (C, map + parse + build) against
torch.export.load on the same file, measured side by side in one run.

    python3 python/bench/load_time.py [--zoo DIR] [--out docs/BENCHMARKS.md]

Without --zoo the zoo is exported into a temporary directory first. Reports
medians and the ratio torch/eir."""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python", "zoo"))


def torch_load_median(path, repeat):
    import torch

    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        torch.export.load(path)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def eir_load_median(path, repeat, exe=None):
    exe = exe or os.path.join(ROOT, "build", "load_bench")
    out = subprocess.run([exe, path, str(repeat)], check=True, capture_output=True, text=True).stdout.split()
    return float(out[1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--zoo", help="directory of .pt2 files (default: export the zoo now)")
    ap.add_argument("--out", help="write a markdown report here")
    ap.add_argument("--torch-repeat", type=int, default=7)
    ap.add_argument("--eir-repeat", type=int, default=51)
    ap.add_argument("--compare", metavar="LOAD_BENCH",
                    help="another build's load_bench (e.g. an older commit), timed side by side")
    ap.add_argument("--compare-label", default="baseline")
    args = ap.parse_args()

    import torch

    zoo_dir = args.zoo
    if not zoo_dir:
        zoo_dir = tempfile.mkdtemp(prefix="eir-zoo-")
        subprocess.run([sys.executable, os.path.join(ROOT, "python", "zoo", "gen.py"), "--out", zoo_dir], check=True,
                       stdout=subprocess.DEVNULL)
    import importlib

    importlib.import_module("zoo")  # as gen.py imports it; registers mylib::sin and the dataclass so torch can load them

    rows = []
    for f in sorted(os.listdir(zoo_dir)):
        if not f.endswith(".pt2"):
            continue
        path = os.path.join(zoo_dir, f)
        torch_load_median(path, 1)  # warm-up: imports, op registration
        t = torch_load_median(path, args.torch_repeat)
        e = eir_load_median(path, args.eir_repeat)
        c = eir_load_median(path, args.eir_repeat, args.compare) if args.compare else None
        rows.append((f[:-4], os.path.getsize(path), t, e, t / e, c))
        extra = f"  {args.compare_label} {c / 1000:8.3f} ms" if c else ""
        print(f"{f[:-4]:32s} {os.path.getsize(path) / 1024:9.0f} KiB  torch {t / 1000:9.2f} ms  "
              f"eir {e / 1000:8.3f} ms  x{t / e:7.0f}{extra}", flush=True)
    ratios = [r[4] for r in rows]
    summary = (f"median ratio {statistics.median(ratios):.0f}x, minimum {min(ratios):.0f}x "
               f"over {len(rows)} programs")
    print(summary)
    if args.out:
        # the sections after this one (make bench's, from their "<!-- " marker on) are kept
        kept = ""
        if os.path.exists(args.out):
            old = open(args.out).read()
            kept = old[old.find("\n<!-- "):] if "\n<!-- " in old else ""
        with open(args.out, "w") as fh:
            fh.write("# Benchmarks\n\n## Load time: eir vs `torch.export.load`\n\n")
            fh.write(f"Measured by `make bench-load` (python/bench/load_time.py) in one run on this machine "
                     f"(2-core AMD EPYC, Debian 12), torch {torch.__version__}. Each program of the conformance "
                     f"zoo is exported and saved once, then loaded from the same file by both: torch median of "
                     f"{args.torch_repeat} loads after a warm-up, eir median of {args.eir_repeat} loads "
                     f"(`eir_program_load` + `eir_program_free`: map the file, read the ZIP directory, parse "
                     f"model.json and the payload configs, build the IR, bind weights in place). Target: at "
                     f"least 50x faster than torch.\n\n")
            if args.compare:
                fh.write(f"| program | file | torch.export.load | eir | torch / eir | {args.compare_label} | "
                         f"{args.compare_label} / eir |\n|---|---:|---:|---:|---:|---:|---:|\n")
            else:
                fh.write("| program | file | torch.export.load | eir | torch / eir |\n|---|---:|---:|---:|---:|\n")
            for name, size, t, e, r, c in rows:
                fh.write(f"| {name} | {size / 1024:.0f} KiB | {t / 1000:.2f} ms | {e / 1000:.3f} ms | {r:.0f}x |")
                fh.write(f" {c / 1000:.3f} ms | {c / e:.1f}x |\n" if c else "\n")
            fh.write(f"\n{summary}.\n")
            fh.write(kept)


if __name__ == "__main__":
    main()
