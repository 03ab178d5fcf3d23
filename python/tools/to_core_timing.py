#!/usr/bin/env python3
"""to_core_timing.py — time `eir convert --to core` against torch's
ep.run_decompositions() on the largest exported zoo programs, in one run.

The candidates are the zoo's programs as exported (NAME.pt2, not
NAME.decomp.pt2), ranked by the number of call_function nodes of torch's
printed graph beside them (NAME.graph.txt, nested graphs included); the
first N that `eir convert --to core` converts are timed. Per program, five
rounds (--rounds), each timing in turn:

  - `eir convert --to core --time IN OUT` as a process (wall time: start-up,
    load, to-core, dce, write);
  - eir's to-core pass alone (the `time: --to-core` line the same process
    reports);
  - torch's ep.run_decompositions() on a program torch.export.load read
    before the clock starts.

Medians are reported. The table goes into docs/TO-CORE.md between the markers
<!-- to-core-timing:begin --> and <!-- to-core-timing:end --> (placed after the
summary when absent); `make to-core-doc` (conversion_sweep.py) keeps that
block when it rewrites the page.

    python3 python/tools/to_core_timing.py [--zoo DIR] [--eir build/eir]
        [--count 6] [--rounds 5] [--doc docs/TO-CORE.md]
"""
from __future__ import annotations

import argparse
import glob
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BEGIN, END = "<!-- to-core-timing:begin -->", "<!-- to-core-timing:end -->"


def node_count(pt2):
    txt = pt2[:-len(".pt2")] + ".graph.txt"
    if not os.path.exists(txt):
        return -1
    with open(txt) as f:
        return sum(1 for line in f if "= call_function[" in line)


def eir_convert(eir, src, dst):
    """(wall seconds, to-core pass seconds, dce seconds) of one `eir convert --to core --time`."""
    t0 = time.perf_counter()
    r = subprocess.run([eir, "convert", "--to", "core", "--time", src, dst], capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip())
    passes = dict((m.group(1), float(m.group(2)) / 1e3)
                  for m in re.finditer(r"^time: --(\S+) ([0-9.]+) ms", r.stderr, re.M))
    return wall, passes.get("to-core", float("nan")), passes.get("dce", float("nan"))


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def section(rows, rounds, load_before, load_after, cmd):
    import torch
    L = [BEGIN, "## Time", "",
         f"`eir convert --to core` against torch's `ep.run_decompositions()` on the {len(rows)} largest zoo programs "
         "as exported (by call_function nodes of torch's printed graph, nested graphs included) that eir converts, "
         f"in one run: median of {rounds} rounds, eir and torch alternating. `eir convert` is the whole process "
         "(start-up, load, to-core, dce, write the archive); `to-core pass` is the pass alone as that process "
         "reports it (`--time`); torch's time is `run_decompositions()` alone, on a program `torch.export.load` "
         "read before the clock starts. The ratio is torch's time over the eir process's.", "",
         "| program | nodes | eir convert (process) | to-core pass | dce | torch run_decompositions() | torch / eir process |",
         "|---|--:|--:|--:|--:|--:|--:|"]
    for r in rows:
        L.append(f"| `{r['name']}` | {r['nodes']} | {r['wall'] * 1e3:.1f} ms | {r['pass'] * 1e3:.2f} ms | "
                 f"{r['dce'] * 1e3:.2f} ms | {r['torch'] * 1e3:.1f} ms | {r['torch'] / r['wall']:.0f}x |")
    L += ["", f"Machine: {cpu_model()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}; "
          f"torch {torch.__version__}, Python {platform.python_version()}. The machine was busy with other work (builds and tests of "
          f"parallel jobs: load average {load_before:.1f} before and {load_after:.1f} after the run), so "
          "the absolute times are noisy; eir and torch alternate round by round and share that noise.", "",
          f"Command: `{cmd}`", END]
    return "\n".join(L) + "\n"


def put_section(doc, text):
    old = open(doc).read() if os.path.exists(doc) else ""
    if BEGIN in old and END in old:
        new = old[:old.index(BEGIN)] + text.rstrip("\n") + old[old.index(END) + len(END):]
    else:
        # after the summary paragraph, before the first "## " section
        i = old.find("\n## ")
        new = (old[:i + 1] + text + "\n" + old[i + 1:]) if i >= 0 else old + "\n" + text
    with open(doc, "w") as f:
        f.write(new)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--zoo", default=os.environ.get("EIR_ZOO_DIR", "/work/zoo"))
    ap.add_argument("--eir", default=os.path.join(REPO, "build", "eir"))
    ap.add_argument("--count", type=int, default=6)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--doc", default=os.path.join(REPO, "docs", "TO-CORE.md"))
    ap.add_argument("--no-doc", action="store_true", help="print the section only")
    a = ap.parse_args(argv)
    import torch
    load_before = os.getloadavg()[0]
    cands = [p for p in glob.glob(os.path.join(a.zoo, "*.pt2")) if not p.endswith(".decomp.pt2")]
    cands = sorted(((node_count(p), p) for p in cands), key=lambda t: (-t[0], t[1]))
    work = tempfile.mkdtemp(prefix="eir-to-core-time-")
    chosen = []
    for n, p in cands:
        if len(chosen) == a.count:
            break
        dst = os.path.join(work, os.path.basename(p))
        try:
            eir_convert(a.eir, p, dst)
        except RuntimeError as e:
            print(f"skip {os.path.basename(p)} ({n} nodes): {str(e).splitlines()[0][:160]}", file=sys.stderr)
            continue
        chosen.append((n, p))
    rows = []
    for n, p in chosen:
        name = os.path.basename(p)[:-4]
        dst = os.path.join(work, name + ".core.pt2")
        walls, passes, dces, ts = [], [], [], []
        for _ in range(a.rounds):
            w, ps, dc = eir_convert(a.eir, p, dst)
            walls.append(w)
            passes.append(ps)
            dces.append(dc)
            ep = torch.export.load(p)
            t0 = time.perf_counter()
            ep.run_decompositions()
            ts.append(time.perf_counter() - t0)
        rows.append({"name": name, "nodes": n, "wall": statistics.median(walls), "pass": statistics.median(passes),
                     "dce": statistics.median(dces), "torch": statistics.median(ts)})
        print(f"{name}: {n} nodes, eir {rows[-1]['wall'] * 1e3:.1f} ms (pass {rows[-1]['pass'] * 1e3:.2f} ms), "
              f"torch {rows[-1]['torch'] * 1e3:.1f} ms", file=sys.stderr)
    cmd = "python3 python/tools/to_core_timing.py" + (f" --zoo {a.zoo}" if a.zoo else "") + \
          f" --count {a.count} --rounds {a.rounds}"
    text = section(rows, a.rounds, load_before, os.getloadavg()[0], cmd)
    if a.no_doc:
        print(text)
    else:
        put_section(a.doc, text)
        print(f"wrote the Time section of {a.doc}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
