"""Two builds of eir side by side, with torch eager as the yardstick: the
before/after table of a kernel change, measured in one run on the same inputs.

    python3 python/bench/compare_builds.py --base /tmp/base/build/run_bench \
        [--new build/run_bench] [--models resnet18,mobilenet_v2,...] [--runs N] [--warmup W]
        [--out docs/BENCHMARKS.md]

Each model of python/bench/models.py is exported once as exported and once after
run_decompositions(); both builds' run_bench (--serve) load the same .pt2 and
inputs, their outputs are checked against torch's (bench.check_outputs, deep
tolerance) and then the three contenders (base eir, new eir, torch eager under
inference_mode) are timed round-robin, one run each per round in an order shuffled per
round (bench.rotated, seeded), one thread each (--threads T: T each, with 50 ms of idleness
before each timed run, as bench.py does on more than one thread).
The medians and ratios go to stdout as a markdown table and, with --out, into
the file between the markers <!-- compare_builds --> ... <!-- /compare_builds -->
(with --section TAG: <!-- compare_builds TAG --> ... <!-- /compare_builds TAG -->).

--cpu also records each run's CPU time (for eir the on-CPU time of all the
run_bench process's threads from /proc/PID/task/*/schedstat, for torch
time.process_time() of this process) and reports its medians beside the wall
medians: on a machine shared with other jobs the CPU time of a one-thread run
moves much less than its wall time. --no-decomp skips the run_decompositions()
variants. --dtype bfloat16 (or float16) casts each model and its floating
inputs to that dtype before export. --peers ort,et puts ONNX Runtime and
ExecuTorch+XNNPACK in the rotation too, as `make bench` runs them (their
footprints in the caches change what eir's runs find there: a weight read once
per run comes from memory rather than L3), with their medians and ratios.

--startup measures start-up instead: per round a fresh process each of base eir,
new eir and torch eager (bench.fresh_with_rss, as `make bench` measures the first
result: from the spawn to the end of the first run, with the process's peak RSS),
in an order shuffled per round; the harness and the processes pinned to one CPU.
Both builds' outputs of that first run are checked against torch's.
"""
from __future__ import annotations

import argparse
import datetime
import os
import shutil
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import bench  # noqa: E402

DEFAULT_MODELS = "resnet18,mobilenet_v2,mobilenet_v3_large,mlp"
BEGIN, END = "<!-- compare_builds -->", "<!-- /compare_builds -->"


def _task_cpu_s(pid):
    """On-CPU seconds of every thread of process pid (the first field of schedstat, ns)."""
    total = 0
    d = f"/proc/{pid}/task"
    for t in os.listdir(d):
        try:
            with open(f"{d}/{t}/schedstat") as fh:
                total += int(fh.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return total / 1e9


def _cpu_s(r):
    return _task_cpu_s(r.p.pid) if isinstance(r, bench.Eir) else time.process_time()


def measure(name, decomp, args, log):
    work = tempfile.mkdtemp(prefix=f"eir-cmp-{name}-")
    runners = {}
    try:
        import torch
        dtype = getattr(torch, args.dtype) if args.dtype else None
        prep = bench.prepare(name, work, decomp, False, ("torch",) + args.peers, log, dtype=dtype)
        runners["base"] = bench.Eir(prep, args.threads, args.base)
        runners["new"] = bench.Eir(prep, args.threads, args.new)
        runners["torch"] = bench.TorchEager(prep, args.threads)
        for k in args.peers:
            runners[k] = bench.make(k, prep, args.threads, None)
        checks = {}
        for k in ("base", "new"):
            runners[k].run()
            ok, msg = bench.check_outputs(runners[k].outputs(len(prep["want"])), prep["want"], deep=True,
                                          dtype=prep["dtype"])
            if not ok:
                raise bench.BenchError(f"{k} build: WRONG OUTPUT: {msg}")
            checks[k] = msg
        for r in runners.values():
            for _ in range(args.warmup):
                r.run()
        times = {k: [] for k in runners}
        cpu = {k: [] for k in runners}
        for rnd in range(args.runs):
            for k in bench.rotated(list(runners), rnd):
                r = runners[k]
                if args.threads > 1:
                    time.sleep(0.05)
                c0 = _cpu_s(r) if args.cpu else 0
                times[k].append(r.run())
                if args.cpu:
                    cpu[k].append(_cpu_s(r) - c0)
        med = {k: statistics.median(v) for k, v in times.items()}
        if args.cpu:
            med.update({k + "_cpu": statistics.median(v) for k, v in cpu.items()})
        log(f"[{name}{'.decomp' if decomp else ''}] " + ", ".join(f"{k} {v * 1e3:.2f} ms" for k, v in med.items()))
        return med
    finally:
        for r in runners.values():
            r.close()
        shutil.rmtree(work, ignore_errors=True)


def measure_startup(name, decomp, args, log):
    work = tempfile.mkdtemp(prefix=f"eir-cmp-{name}-")
    try:
        prep = bench.prepare(name, work, decomp, False, ("torch",), log)
        first = {k: [] for k in ("base", "new", "torch")}
        rss = {k: [] for k in first}
        for k in ("base", "new"):
            out = os.path.join(work, "out_" + k)
            os.makedirs(out, exist_ok=True)
            bench.fresh_with_rss("eir", prep, 1, getattr(args, k), out=out)
            got = [bench.np.load(os.path.join(out, f"out{i}.npy")) for i in range(len(prep["want"]))]
            ok, msg = bench.check_outputs(got, prep["want"], deep=True, dtype=prep["dtype"])
            if not ok:
                raise bench.BenchError(f"{k} build: WRONG OUTPUT: {msg}")
        for rnd in range(args.runs):
            for k in bench.rotated(list(first), rnd):
                t, r = bench.fresh_with_rss("torch" if k == "torch" else "eir", prep, 1, getattr(args, k, None))
                first[k].append(t)
                rss[k].append(r)
        med = {k: statistics.median(v) for k, v in first.items()}
        med.update({k + "_rss": statistics.median(v) for k, v in rss.items()})
        log(f"[{name}{'.decomp' if decomp else ''}] " + ", ".join(f"{k} {med[k] * 1e3:.1f} ms" for k in first))
        return med
    finally:
        shutil.rmtree(work, ignore_errors=True)


def report_startup(rows, args):
    begin, end = _markers(args)
    out = [begin, "",
           f"Measured by `python3 python/bench/compare_builds.py --startup --base {args.base} --runs {args.runs}` "
           f"(before: {args.base_label}) on {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC: "
           f"medians of {args.runs} rounds, each a fresh process of every contender (the order shuffled per "
           "round, seeded), from the spawn to the end of the first run (load + first run; torch: python with "
           "`import torch`, `torch.export.load`, the module's first call), and the process's peak RSS; one "
           "thread, pinned to one CPU. Both builds' outputs were checked against torch's first.", ""]
    if args.note:
        out += [f"**{args.note}**", ""]
    out += ["| model | eir before | eir after | speed-up | torch eager | torch / before | torch / after "
            "| RSS before | RSS after | RSS torch |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, med in rows:
        if isinstance(med, str):
            out.append(f"| {name} | failed: {med} | | | | | | | | |")
            continue
        b, n, t = med["base"], med["new"], med["torch"]
        out.append(f"| {name} | {bench._ms(b)} | {bench._ms(n)} | {b / n:.2f}x | {bench._ms(t)} | {t / b:.1f}x | "
                   f"{t / n:.1f}x | {med['base_rss']:.0f} MiB | {med['new_rss']:.0f} MiB | {med['torch_rss']:.0f} MiB |")
    out += ["", end]
    return "\n".join(out)


def report(rows, args):
    begin, end = _markers(args)
    out = [begin, "",
           f"Measured by `python3 python/bench/compare_builds.py --base {args.base} --runs {args.runs}"
           f"{' --threads ' + str(args.threads) if args.threads != 1 else ''}"
           f"{' --dtype ' + args.dtype if args.dtype else ''}"
           f"{' --peers ' + ','.join(args.peers) if args.peers else ''}` "
           f"(before: {args.base_label}) on "
           f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC: median of {args.runs} rounds after "
           f"{args.warmup} warm-up runs, the {2 + 1 + len(args.peers)} contenders alternating round-robin on the same inputs (the order shuffled per round, seeded), "
           f"{'one thread' if args.threads == 1 else f'{args.threads} threads'} each"
           f"{' (50 ms of idleness before each timed run)' if args.threads > 1 else ''}. Both builds' outputs were checked against torch's first.", ""]
    if args.note:
        out += [f"**{args.note}**", ""]
    head = "| model | eir before | eir after | speed-up | torch eager | before / torch | after / torch |"
    rule = "|---|---:|---:|---:|---:|---:|---:|"
    if args.cpu:
        head += " eir before CPU | eir after CPU | CPU speed-up | torch CPU | after / torch CPU |"
        rule += "---:|---:|---:|---:|---:|"
    for k in args.peers:
        head += f" {bench.LABEL[k]} | before / {bench.LABEL[k]} | after / {bench.LABEL[k]} |"
        rule += "---:|---:|---:|"
    out += [head, rule]
    for name, med in rows:
        if isinstance(med, str):
            out.append(f"| {name} | failed: {med} | | | | | |")
            continue
        b, n, t = med["base"], med["new"], med["torch"]
        line = f"| {name} | {bench._ms(b)} | {bench._ms(n)} | {b / n:.2f}x | {bench._ms(t)} | {b / t:.2f}x | {n / t:.2f}x |"
        if args.cpu:
            bc, nc, tc = med["base_cpu"], med["new_cpu"], med["torch_cpu"]
            line += f" {bench._ms(bc)} | {bench._ms(nc)} | {bc / nc:.2f}x | {bench._ms(tc)} | {nc / tc:.2f}x |"
        for k in args.peers:
            line += f" {bench._ms(med[k])} | {b / med[k]:.2f}x | {n / med[k]:.2f}x |"
        out.append(line)
    out += ["", end]
    return "\n".join(out)


def _markers(args):
    if args.section:
        return f"<!-- compare_builds {args.section} -->", f"<!-- /compare_builds {args.section} -->"
    return BEGIN, END


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", required=True, help="run_bench of the baseline build")
    ap.add_argument("--base-label", help="how the report names the baseline (default: the path)")
    ap.add_argument("--new", default=os.path.join(ROOT, "build", "run_bench"))
    ap.add_argument("--models", default=DEFAULT_MODELS)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--note")
    ap.add_argument("--cpu", action="store_true", help="also report each run's CPU time (medians)")
    ap.add_argument("--no-decomp", action="store_true", help="skip the run_decompositions() variants")
    ap.add_argument("--dtype", help="cast each model and its floating inputs to this torch dtype first (bfloat16, float16)")
    ap.add_argument("--peers", default="",
                    help="also time these contenders in the rotation, comma-separated: ort (ONNX Runtime), "
                         "et (ExecuTorch+XNNPACK); not with --startup")
    ap.add_argument("--threads", type=int, default=1, help="threads of every contender (not with --startup)")
    ap.add_argument("--startup", action="store_true",
                    help="time fresh processes to their first result (and peak RSS) instead of warm runs")
    ap.add_argument("--section", help="write between <!-- compare_builds SECTION --> markers instead")
    ap.add_argument("--out", help="write the table into this markdown file, between its markers")
    args = ap.parse_args()
    args.base_label = args.base_label or args.base
    args.peers = tuple(k for k in args.peers.split(",") if k)
    for k in args.peers:
        if k not in ("ort", "et"):
            ap.error(f"--peers: unknown contender {k!r} (ort, et)")
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    if args.startup and hasattr(os, "sched_setaffinity") and len(os.sched_getaffinity(0)) > 1:
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[-1]})
    rows = []
    for name in args.models.split(","):
        for decomp in (False,) if args.no_decomp else (False, True):
            label = name + (".decomp" if decomp else "")
            t0 = time.time()
            try:
                rows.append((label, (measure_startup if args.startup else measure)(name, decomp, args, log)))
            except Exception as e:  # noqa: BLE001
                rows.append((label, bench._short(e) if not isinstance(e, bench.BenchError) else str(e)))
                log(f"[{label}] FAILED: {rows[-1][1]}")
            log(f"[{label}] {time.time() - t0:.0f}s")
    text = (report_startup if args.startup else report)(rows, args)
    print(text)
    if args.out:
        doc = open(args.out).read() if os.path.exists(args.out) else ""
        begin, end = _markers(args)
        if begin in doc and end in doc:
            doc = doc[:doc.index(begin)] + text + doc[doc.index(end) + len(end):]
        else:
            doc = doc.rstrip("\n") + "\n\n" + text + "\n"
        with open(args.out, "w") as fh:
            fh.write(doc)
    return 1 if any(isinstance(m, str) for _, m in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
