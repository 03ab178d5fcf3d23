"""Inference benchmark: eir (C API, tools/bench/run_bench.c) against torch eager,
ONNX Runtime and ExecuTorch (XNNPACK) on the models of python/bench/models.py.

    python3 python/bench/bench.py [--quick] [--models a,b] [--contenders eir,torch,ort,et]
                                  [--runs N] [--threads T] [--decomp] [--full] [--out docs/BENCHMARKS.md]
    python3 python/bench/bench.py --threads-list 1,2 [--models a,b] [--runs N] [--out docs/BENCHMARKS.md]

Each model is exported once with torch.export.export (after run_decompositions()
with --decomp); every contender runs that program on the same inputs: eir from
the saved .pt2, torch eager as ep.module() under torch.inference_mode(), ONNX
Runtime on torch.onnx.export(ep, dynamo=True), ExecuTorch on
to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()]). After
warm-up the contenders are timed round-robin, one run each per round (in an order
shuffled per round, seeded; each run after --pause seconds of idleness, so that the
previous contender's spinning threads have stopped), and the
median of N rounds is reported. eir's outputs must match torch's within
python/tests/tolerances.py, else the run fails (exit status 1). Then each
contender is started once more as a fresh process that loads the model and
runs it once: the time from process start to first result, and the peak RSS;
eir also on the program written ahead by `eir convert --to backend` (next to
--exe), as ONNX Runtime and ExecuTorch run the files written for them (the
"eir, Backend program" columns; its outputs checked like the others).
A contender that fails on a model is reported with the reason.

--threads-list 1,2 compares eir with torch eager at each of those thread
counts instead: one eir process per count (run_bench --threads T) and torch
in-process with torch.set_num_threads(T) before each of its runs, all of them
alternating round-robin in one run; eir's outputs are checked at every count.
It writes the "Threads" section of the report.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))

from tolerances import tolerance  # noqa: E402

CONTENDERS = ("eir", "torch", "ort", "et")
LABEL = {"eir": "eir", "torch": "torch eager", "ort": "ONNX Runtime", "et": "ExecuTorch+XNNPACK",
         "eir_be": "eir, Backend program"}
SECTION = "<!-- make bench: inference -->"
THREADS_SECTION = "<!-- make bench: threads -->"

# Deep random-weight networks amplify summation-order differences layer after
# layer (eir's BLAS and convolution loops vs torch's oneDNN/MKL); like the real
# models suite, these get a looser absolute tolerance, relative to output scale.
DEEP_ATOL_SCALE = 1e-4
# In bfloat16 / float16 every layer rounds to 8 / 11 bits, and a value rounded the other way
# early moves the logits of a deep model by a unit in the last place of the largest ones (GPT-2's
# bfloat16 logits: torch's and eir's each up to 2.2 from the same network computed in float32,
# at a largest magnitude of 580): one such unit at the output's scale.
DEEP_ATOL_REDUCED = {"bfloat16": 2.0 ** -7, "float16": 2.0 ** -10}


class BenchError(Exception):
    pass


# ---------------------------------------------------------------- output check

def check_outputs(got, want, deep=False, dtype=None):
    """(ok, message): eir's outputs `got` against torch's `want` (lists of numpy
    arrays), dtype by dtype with the suite's tolerances. deep: the atol is at
    least DEEP_ATOL_SCALE times the largest magnitude of the expected output.
    dtype: the tolerance of this torch dtype for floating outputs (a bfloat16
    model's outputs travel as float32)."""
    if len(got) != len(want):
        return False, f"{len(got)} outputs, torch has {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        if g.shape != w.shape:
            return False, f"output {i}: shape {g.shape}, torch {w.shape}"
        rtol, atol = tolerance(dtype if dtype and np.issubdtype(w.dtype, np.floating) else str(w.dtype))
        if deep and w.size and np.issubdtype(w.dtype, np.floating):
            atol = max(atol, DEEP_ATOL_REDUCED.get(dtype, DEEP_ATOL_SCALE) * float(np.max(np.abs(w))))
        if not np.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True):
            diff = np.abs(g.astype(np.float64) - w.astype(np.float64))
            return False, (f"output {i}: max abs diff {np.nanmax(diff):.3g} > atol {atol:.3g} + rtol {rtol:.3g}*|torch| "
                           f"({int(np.sum(~np.isclose(g, w, rtol=rtol, atol=atol)))} of {w.size} elements)")
    return True, "ok"


# ---------------------------------------------------------------- preparing a model

def prepare(name, work, decomp, full, contenders, log, eir_cli=None, dtype=None):
    """Export the model into `work`: model.pt2, in<i>.npy, torch's outputs, and
    the ONNX / .pte files for the contenders asked for, and for eir the program
    written ahead as a Backend program (`eir convert --to backend`, with eir_cli)
    as a C developer would ship it; a failure is recorded in the returned dict,
    not raised. dtype (a torch floating dtype): the model's parameters and
    floating inputs cast to it first (bfloat16 inputs and outputs travel as
    float32 .npy; prep["dtype"] names it for check_outputs)."""
    import torch
    import models

    m, args = models.build(name, full)
    if dtype is not None:
        m = m.to(dtype)
        args = tuple(a.to(dtype) if a.is_floating_point() else a for a in args)
    as_np = lambda t: (t.float() if t.dtype == torch.bfloat16 else t).numpy()  # noqa: E731
    ep = torch.export.export(m, args)
    if decomp:
        ep = ep.run_decompositions()
    pt2 = os.path.join(work, "model.pt2")
    torch.export.save(ep, pt2)
    inputs = []
    for i, a in enumerate(args):
        p = os.path.join(work, f"in{i}.npy")
        np.save(p, as_np(a))
        inputs.append(p)
    with torch.inference_mode():
        want = ep.module()(*args)
    want = [as_np(t) for t in (want if isinstance(want, (tuple, list)) else (want,))]
    prep = {"pt2": pt2, "inputs": inputs, "args": args, "want": want, "errors": {},
            "dtype": str(dtype).replace("torch.", "") if dtype is not None else None}
    if "eir" in contenders and eir_cli:
        backend = os.path.join(work, "model.backend.pt2")
        try:
            r = subprocess.run([eir_cli, "convert", "--to", "backend", pt2, backend], capture_output=True, text=True)
            if r.returncode == 0:
                prep["pt2_backend"] = backend
            else:
                prep["errors"]["eir_be"] = "convert: " + (r.stderr.strip().splitlines() or ["failed"])[-1][:200]
        except OSError as e:
            prep["errors"]["eir_be"] = "convert: " + _short(e)
    if "ort" in contenders:
        try:
            onnx_path = os.path.join(work, "model.onnx")
            torch.onnx.export(ep, args, onnx_path, dynamo=True, verbose=False)
            prep["onnx"] = onnx_path
        except Exception as e:  # noqa: BLE001
            prep["errors"]["ort"] = "export: " + _short(e)
    if "et" in contenders:
        try:
            from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
            from executorch.exir import to_edge_transform_and_lower

            prog = to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()]).to_executorch()
            pte = os.path.join(work, "model.pte")
            with open(pte, "wb") as fh:
                fh.write(prog.buffer)
            prep["pte"] = pte
        except Exception as e:  # noqa: BLE001
            prep["errors"]["et"] = "lowering: " + _short(e)
    return prep


def _short(e):
    s = f"{type(e).__name__}: {e}".strip().splitlines()
    return (s[0] if s else type(e).__name__)[:200]


def rotated(order, rnd):
    """the order of round rnd: the contenders shuffled, seeded by the round. A run right after
    another contender's is slower by a few percent (its caches refilled, the other's threads
    still spinning: measured 3% on MobileNetV3-Small), so no contender always takes the place
    after the same one."""
    out = list(order)
    random.Random(rnd).shuffle(out)
    return out


# ---------------------------------------------------------------- contenders, in-process

class Eir:
    """run_bench --serve: the C driver loads the program once; each "run 1"
    returns the time of one eir_runtime_run measured inside the driver."""

    def __init__(self, prep, threads, exe):
        # eir runs OpenBLAS on one thread itself and splits products over its own threads
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
        self.p = subprocess.Popen([exe, prep["pt2"], "--serve", "--threads", str(threads), *prep["inputs"]],
                                  stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise BenchError(self.p.stderr.read().strip()[:300] or "run_bench exited")
            if line.strip() == "ready":
                break

    def _cmd(self, c):
        self.p.stdin.write(c + "\n")
        self.p.stdin.flush()
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise BenchError(self.p.stderr.read().strip()[:300] or "run_bench exited")
            if line.strip() == "ok":
                return lines
            lines.append(line.strip())

    def run(self):
        return float(self._cmd("run 1")[0].split()[1]) / 1e6

    def outputs(self, n):
        d = tempfile.mkdtemp(prefix="eir-out-")
        try:
            self._cmd("out " + d)
            return [np.load(os.path.join(d, f"out{i}.npy")) for i in range(n)]
        finally:
            shutil.rmtree(d, ignore_errors=True)

    def close(self):
        try:
            self.p.stdin.write("quit\n")
            self.p.stdin.close()
            self.p.wait(timeout=30)
        except Exception:  # noqa: BLE001
            self.p.kill()


class TorchEager:
    def __init__(self, prep, threads):
        import torch

        self.saved_threads = torch.get_num_threads()
        torch.set_num_threads(threads)
        self.torch = torch
        self.m = torch.export.load(prep["pt2"]).module()
        self.args = prep["args"]

    def run(self):
        with self.torch.inference_mode():
            t0 = time.perf_counter()
            self.m(*self.args)
            return time.perf_counter() - t0

    def close(self):
        self.torch.set_num_threads(self.saved_threads)  # the caller's setting, as it was


class OnnxRuntime:
    def __init__(self, prep, threads):
        if "onnx" not in prep:
            raise BenchError(prep["errors"].get("ort", "no ONNX file"))
        import onnxruntime as ort

        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        self.s = ort.InferenceSession(prep["onnx"], so, providers=["CPUExecutionProvider"])
        self.feed = {i.name: a.numpy() for i, a in zip(self.s.get_inputs(), prep["args"])}

    def run(self):
        t0 = time.perf_counter()
        self.s.run(None, self.feed)
        return time.perf_counter() - t0

    def close(self):
        pass


class ExecuTorch:
    def __init__(self, prep, threads):
        if "pte" not in prep:
            raise BenchError(prep["errors"].get("et", "no .pte file"))
        from executorch.extension.pybindings import portable_lib
        from executorch.runtime import Runtime

        portable_lib._unsafe_reset_threadpool(threads)
        self.method = Runtime.get().load_program(prep["pte"]).load_method("forward")
        self.args = list(prep["args"])

    def run(self):
        t0 = time.perf_counter()
        self.method.execute(self.args)
        return time.perf_counter() - t0

    def close(self):
        pass


def make(c, prep, threads, exe):
    if c == "eir":
        return Eir(prep, threads, exe)
    return {"torch": TorchEager, "ort": OnnxRuntime, "et": ExecuTorch}[c](prep, threads)


# ---------------------------------------------------------------- fresh processes

# A fresh python process: load the model the contender's way, run it once,
# print the wall-clock time (epoch seconds) at which the first result exists.
FIRST_RESULT = r"""
import sys, time, numpy as np
kind, path, threads, inputs = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
arrs = [np.load(p) for p in inputs]
if kind == "torch":
    import torch
    torch.set_num_threads(threads)
    m = torch.export.load(path).module()
    with torch.inference_mode():
        m(*[torch.from_numpy(a) for a in arrs])
elif kind == "ort":
    import onnxruntime as ort
    so = ort.SessionOptions(); so.intra_op_num_threads = threads; so.inter_op_num_threads = 1
    s = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    s.run(None, {i.name: a for i, a in zip(s.get_inputs(), arrs)})
elif kind == "et":
    import torch
    from executorch.extension.pybindings import portable_lib
    from executorch.runtime import Runtime
    portable_lib._unsafe_reset_threadpool(threads)
    meth = Runtime.get().load_program(path).load_method("forward")
    meth.execute([torch.from_numpy(a) for a in arrs])
print("first_result_epoch_us %.0f" % (time.time() * 1e6))
"""


def fresh_with_rss(c, prep, threads, exe, out=None):
    """fresh(), run under a process of its own so that its peak RSS is the
    child's own (getrusage of the children of a one-child helper). c "eir_be":
    eir on the Backend program written ahead, its outputs written to `out`
    (after the first result's time stamp)."""
    helper = (
        "import json, resource, subprocess, sys, time\n"
        "t0 = time.time()\n"
        "p = subprocess.run(json.loads(sys.argv[1]), capture_output=True, env=json.loads(sys.argv[2]))\n"
        "ru = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(json.dumps({'rc': p.returncode, 't0': t0, 'out': p.stdout.decode(errors='replace'),"
        " 'err': p.stderr.decode(errors='replace')[-2000:], 'maxrss_kib': ru.ru_maxrss}))\n"
    )
    if c in ("eir", "eir_be"):
        cmd = [exe, prep["pt2" if c == "eir" else "pt2_backend"], "--warmup", "0", "--runs", "0", "--threads",
               str(threads), *prep["inputs"]] + (["--out", out] if out else [])
    else:
        path = {"torch": prep["pt2"], "ort": prep.get("onnx"), "et": prep.get("pte")}[c]
        if not path:
            raise BenchError(prep["errors"].get(c, "no model file"))
        cmd = [sys.executable, "-c", FIRST_RESULT, c, path, str(threads), *prep["inputs"]]
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads))
    r = subprocess.run([sys.executable, "-S", "-c", helper, json.dumps(cmd), json.dumps(env)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise BenchError(r.stderr.strip()[-200:])
    res = json.loads(r.stdout)
    if res["rc"] != 0:
        lines = res["err"].strip().splitlines()
        raise BenchError(lines[-1][:200] if lines else f"exit status {res['rc']}")
    stamp = [ln for ln in res["out"].splitlines() if ln.startswith("first_result_epoch_us")]
    return float(stamp[-1].split()[1]) / 1e6 - res["t0"], res["maxrss_kib"] / 1024


# ---------------------------------------------------------------- one model

def bench_model(name, args, log):
    import models

    row = {"name": name + (".decomp" if args.decomp else ""), "desc": models.describe(name, args.full),
           "median": {}, "fail": {}, "first": {}, "rss": {}, "check": None}
    work = tempfile.mkdtemp(prefix=f"eir-bench-{name}-")
    runners = {}
    try:
        t0 = time.time()
        prep = prepare(name, work, args.decomp, args.full, args.contenders, log,
                       eir_cli=None if args.no_fresh else os.path.join(os.path.dirname(args.exe), "eir"))
        log(f"[{name}] exported in {time.time() - t0:.1f}s")
        for c in args.contenders:
            try:
                runners[c] = make(c, prep, args.threads, args.exe)
            except Exception as e:  # noqa: BLE001
                row["fail"][c] = _short(e) if not isinstance(e, BenchError) else str(e)
        # eir's answer first: a fast wrong answer is not a result
        if "eir" in runners:
            try:
                runners["eir"].run()
                got = runners["eir"].outputs(len(prep["want"]))
                ok, msg = check_outputs(got, prep["want"], deep=True)
                if args.corrupt_eir:
                    got[0] = got[0] + np.asarray(1.0, got[0].dtype) * (np.abs(got[0]).max() + 1)
                    ok, msg = check_outputs(got, prep["want"], deep=True)
                row["check"] = msg
                if not ok:
                    row["fail"]["eir"] = "WRONG OUTPUT: " + msg
                    runners.pop("eir").close()
            except Exception as e:  # noqa: BLE001
                row["fail"]["eir"] = str(e) if isinstance(e, BenchError) else _short(e)
                runners.pop("eir").close()
        times = {c: [] for c in runners}
        for c in list(runners):
            try:
                for _ in range(args.warmup):
                    runners[c].run()
            except Exception as e:  # noqa: BLE001
                row["fail"][c] = _short(e)
                runners.pop(c).close()
                times.pop(c)
        for rnd in range(args.runs):
            for c in rotated(list(runners), rnd):
                try:
                    if args.pause > 0:
                        time.sleep(args.pause)
                    times[c].append(runners[c].run())
                except Exception as e:  # noqa: BLE001
                    row["fail"][c] = _short(e)
                    runners.pop(c).close()
                    times.pop(c)
        for c, ts in times.items():
            row["median"][c] = statistics.median(ts)
        log(f"[{name}] " + ", ".join(f"{c} {t * 1e3:.2f} ms" for c, t in row["median"].items())
            + "".join(f"; {c} FAILED: {r}" for c, r in row["fail"].items()))
        for c in list(runners):
            runners.pop(c).close()
        if not args.no_fresh:
            for c in args.contenders:
                if c in row["fail"]:
                    continue
                try:
                    row["first"][c], row["rss"][c] = fresh_with_rss(c, prep, args.threads, args.exe)
                except Exception as e:  # noqa: BLE001
                    row["first"][c] = None
                    row["fail"].setdefault(c + " (fresh)", str(e))
            if "eir" in args.contenders and "eir" not in row["fail"]:
                fresh_backend(row, prep, args)
    except Exception as e:  # noqa: BLE001
        row["fail"]["export"] = _short(e)
        if args.verbose:
            traceback.print_exc()
    finally:
        for r in runners.values():
            r.close()
        shutil.rmtree(work, ignore_errors=True)
    return row


def fresh_backend(row, prep, args):
    """First result and peak RSS of eir on the Backend program written ahead (its weights packed
    for the products, convolutions fused: what `eir convert --to backend` writes), its outputs
    checked against torch's like the exported program's."""
    if "pt2_backend" not in prep:
        row["fail"]["eir_be"] = prep["errors"].get("eir_be", "no Backend program")
        return
    out = os.path.join(os.path.dirname(prep["pt2"]), "backend-out")
    os.makedirs(out, exist_ok=True)
    try:
        row["first"]["eir_be"], row["rss"]["eir_be"] = fresh_with_rss("eir_be", prep, args.threads, args.exe, out)
        got = [np.load(os.path.join(out, f"out{i}.npy")) for i in range(len(prep["want"]))]
        ok, msg = check_outputs(got, prep["want"], deep=True)
        if not ok:
            row["first"].pop("eir_be"), row["rss"].pop("eir_be")
            row["fail"]["eir_be"] = "WRONG OUTPUT: " + msg
    except Exception as e:  # noqa: BLE001
        row["first"].pop("eir_be", None)
        row["fail"]["eir_be"] = str(e) if isinstance(e, BenchError) else _short(e)


# ---------------------------------------------------------------- report

def _ms(t):
    if t is None:
        return "—"
    return f"{t * 1e3:.3f} ms" if t < 1e-2 else f"{t * 1e3:.2f} ms" if t < 1 else f"{t * 1e3:.0f} ms"


def table(rows, contenders):
    fails = [(r["name"], c, why) for r in rows for c, why in r["fail"].items()]
    others = [c for c in contenders if c != "eir"]
    head = ["model"] + [LABEL[c] for c in contenders] + [f"eir / {LABEL[c]}" for c in others]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" + "---:|" * (len(head) - 1)]
    for r in rows:
        cells = [r["name"]]
        for c in contenders:
            cells.append(_ms(r["median"][c]) if c in r["median"] else "failed")
        for c in others:
            e, o = r["median"].get("eir"), r["median"].get(c)
            cells.append(f"{e / o:.2f}x" if e and o else "—")
        out.append("| " + " | ".join(cells) + " |")
    fresh_rows = [r for r in rows if r["first"]]
    if not fresh_rows:
        rows = []
    else:
        out += ["", "Time from process start to first result (load + first run, fresh process) and peak RSS:", ""]
    fresh = list(contenders)
    if any("eir_be" in r["first"] for r in rows):
        fresh.insert(fresh.index("eir") + 1 if "eir" in fresh else 0, "eir_be")
    head = ["model"] + [f"{LABEL[c]} first result" for c in fresh] + [f"{LABEL[c]} peak RSS" for c in fresh]
    if rows:
        out += ["| " + " | ".join(head) + " |", "|" + "---|" + "---:|" * (len(head) - 1)]
    for r in rows:
        cells = [r["name"]] + [_ms(r["first"].get(c)) for c in fresh]
        cells += [f"{r['rss'][c]:.0f} MiB" if r["rss"].get(c) else "—" for c in fresh]
        out.append("| " + " | ".join(cells) + " |")
    if fails:
        out += ["", "Failures:", ""] + [f"- {n}, {LABEL.get(c, c)}: {why}" for n, c, why in fails]
    return "\n".join(out)


def machine_info():
    info = {}
    try:
        lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        for line in lscpu.splitlines():
            k, _, v = line.partition(":")
            info[k.strip()] = v.strip()
    except OSError:
        pass
    flags = info.get("Flags", "").split()
    vers = {"torch": _ver("torch"), "onnxruntime": _ver("onnxruntime"), "executorch": _ver("executorch")}
    return (f"{info.get('Model name', platform.processor())}, {info.get('CPU(s)', os.cpu_count())} CPUs, "
            f"AVX2 {'yes' if 'avx2' in flags else 'no'}, AVX-512 {'yes' if any(f.startswith('avx512') for f in flags) else 'no'}; "
            f"{platform.system()} {platform.release()}; "
            + ", ".join(f"{k} {v}" for k, v in vers.items()))


def _commit():
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _ver(mod):
    try:
        from importlib.metadata import version

        return version(mod)
    except Exception:  # noqa: BLE001
        return "not installed"


def write_doc(path, rows, args, models_desc):
    import models

    shown, skip = [], False
    for a in args.argv:  # the command as run, without where the JSON went
        if skip or a == "--json":
            skip = not skip
            continue
        shown.append(a)
    cmd = "python3 python/bench/bench.py " + shlex.join(shown)
    text = [SECTION, "", "## Inference latency: eir vs torch eager, ONNX Runtime, ExecuTorch", "",
            f"Measured by `make bench` (`{cmd.strip()}`) on {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC. "
            f"Machine: {machine_info()}; eir at commit {_commit()}.", ""]
    if args.note:
        text += [f"**{args.note}**", ""]
    text += [f"Median of {args.runs} rounds after {args.warmup} warm-up runs, the contenders alternating "
             f"round-robin on the same inputs (the order shuffled per round, seeded"
             + (f"; {args.pause * 1e3:g} ms of idleness before each timed run, so that no run shares the CPUs "
                "with the previous contender's spinning threads" if args.pause > 0 else "")
             + f"), {args.threads} thread(s) each: eir through its C API "
             "(tools/bench/run_bench.c with `--threads`: eir_runtime_set_threads; OpenBLAS on one thread, "
             "eir splits the work itself), torch eager as `ep.module()` under "
             "`torch.inference_mode()` with `torch.set_num_threads`, ONNX Runtime on "
             "`torch.onnx.export(ep, dynamo=True)` with intra-op threads set, ExecuTorch with the XNNPACK "
             "partitioner through `executorch.runtime.Runtime` with its threadpool reset to the same count. "
             "eir's outputs were checked against torch's before timing "
             "(python/tests/tolerances.py; atol at least 1e-4 of the output's scale for these deep random-weight "
             "networks). A ratio eir / contender below 1 means eir is faster. The transformer stacks have 2 layers "
             "(`--full` for 12). Time to first result is measured from the parent's spawn of a fresh process to "
             "the moment its first run returns: the C driver for eir, python with the contender's imports "
             "(`import torch` dominates torch's and ExecuTorch's) for the others; peak RSS is that process's "
             "maximum resident set." + (f" {args.pinned}" if getattr(args, "pinned", None) else ""), "",
             "Models (seeded random weights, python/bench/models.py):", ""]
    text += [f"- {r['name']}: {models_desc[r['name'].split('.')[0]]}" for r in rows]
    text += ["", table(rows, args.contenders), ""]
    write_section(path, SECTION, "\n".join(text))


def write_section(path, marker, body):
    """Replace the section that starts at `marker` (up to the next "<!-- "
    marker) with body, which starts with the marker; append it if absent."""
    old = open(path).read() if os.path.exists(path) else "# Benchmarks\n"
    if marker in old:
        before, _, after = old.partition(marker)
        # keep sections that follow ours (marked by the next "<!-- " marker)
        rest = after[after.find("\n<!-- "):] if "\n<!-- " in after else ""
        new = before + body + rest
    else:
        new = old.rstrip("\n") + "\n\n" + body
    with open(path, "w") as fh:
        fh.write(new)


# ---------------------------------------------------------------- threads

class TorchAt:
    """torch eager at a given thread count: torch.set_num_threads before each run."""

    def __init__(self, eager, threads):
        self.eager, self.threads = eager, threads

    def run(self):
        self.eager.torch.set_num_threads(self.threads)
        return self.eager.run()


def bench_threads_model(name, args, log):
    """{"name", "desc", "median": {(contender, T): seconds}, "fail": {...}}"""
    import models

    row = {"name": name + (".decomp" if args.decomp else ""), "desc": models.describe(name, args.full),
           "median": {}, "fail": {}}
    work = tempfile.mkdtemp(prefix=f"eir-bench-threads-{name}-")
    runners, eager = {}, None
    try:
        prep = prepare(name, work, args.decomp, args.full, ["eir", "torch"], log)
        eager = TorchEager(prep, args.threads_list[0])
        for t in args.threads_list:
            eir = Eir(prep, t, args.exe)
            runners[("eir", t)] = eir
            eir.run()
            ok, msg = check_outputs(eir.outputs(len(prep["want"])), prep["want"], deep=True)
            if not ok:
                row["fail"][f"eir, {t} threads"] = "WRONG OUTPUT: " + msg
                runners.pop(("eir", t)).close()
            runners[("torch", t)] = TorchAt(eager, t)
        times = {k: [] for k in runners}
        for k, r in runners.items():
            for _ in range(args.warmup):
                r.run()
        for rnd in range(args.runs):
            for k in rotated(list(runners), rnd):
                times[k].append(runners[k].run())
        row["median"] = {k: statistics.median(ts) for k, ts in times.items()}
        log(f"[{name}] " + ", ".join(f"{c} x{t} {m * 1e3:.2f} ms" for (c, t), m in row["median"].items()))
    except Exception as e:  # noqa: BLE001
        row["fail"]["run"] = _short(e)
        if args.verbose:
            traceback.print_exc()
    finally:
        for k, r in runners.items():
            if k[0] == "eir":
                r.close()
        if eager:
            eager.close()
        shutil.rmtree(work, ignore_errors=True)
    return row


def threads_table(rows, counts):
    head = ["model"]
    for t in counts:
        head += [f"eir {t}T", f"torch {t}T", f"eir / torch {t}T"]
    head += [f"eir {counts[0]}T / {t}T" for t in counts[1:]] + [f"torch {counts[0]}T / {t}T" for t in counts[1:]]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" + "---:|" * (len(head) - 1)]
    for r in rows:
        m = r["median"]
        cells = [r["name"]]
        for t in counts:
            e, o = m.get(("eir", t)), m.get(("torch", t))
            cells += [_ms(e) if e else "failed", _ms(o) if o else "failed", f"{e / o:.2f}x" if e and o else "—"]
        for c in ("eir", "torch"):
            for t in counts[1:]:
                a, b = m.get((c, counts[0])), m.get((c, t))
                cells.append(f"{a / b:.2f}x" if a and b else "—")
        out.append("| " + " | ".join(cells) + " |")
    fails = [(r["name"], k, why) for r in rows for k, why in r["fail"].items()]
    if fails:
        out += ["", "Failures:", ""] + [f"- {n}, {k}: {why}" for n, k, why in fails]
    return "\n".join(out)


def write_threads_doc(path, rows, args):
    cmd = "python3 python/bench/bench.py " + shlex.join(args.argv)
    counts = args.threads_list
    text = [THREADS_SECTION, "", "## Threads", "",
            f"`{cmd.strip()}` on {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC. Machine: {machine_info()}; "
            f"eir at commit {_commit()}.", ""]
    if args.note:
        text += [f"**{args.note}**", ""]
    text += [f"Median of {args.runs} rounds after {args.warmup} warm-up runs; in each round eir and torch eager "
             f"run once at each thread count ({', '.join(map(str, counts))}), alternating. eir: one "
             "tools/bench/run_bench.c process per count (`--threads T`, eir_runtime_set_threads); torch: "
             "`ep.module()` under `torch.inference_mode()` with `torch.set_num_threads(T)` before each run. "
             "eir's outputs were checked against torch's at every count. `eir / torch` below 1: eir is faster; "
             f"`{counts[0]}T / T`: the speed-up from more threads.", ""]
    text += [f"- {r['name']}: {r['desc']}" for r in rows]
    text += ["", threads_table(rows, counts), ""]
    write_section(path, THREADS_SECTION, "\n".join(text))


def pin_one_cpu(args, log):
    """At one thread, this process and the ones it starts (eir's run_bench, the fresh processes)
    are pinned to one CPU, so that every contender runs where the others ran: torch, ONNX Runtime
    and ExecuTorch run in this process's thread, eir in its child, which the scheduler otherwise
    woke on whichever CPU (measured: eir on MobileNetV2 7.7 ms in one run and 10.1 ms in the next
    unpinned, 7.6-7.7 ms in both pinned; the peers within 2% either way). --no-pin: not. Returns
    the sentence the report says about it (None: not pinned)."""
    if args.threads != 1 or args.no_pin or not hasattr(os, "sched_setaffinity"):
        return None
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        return None
    cpu = cpus[-1]
    os.sched_setaffinity(0, {cpu})
    log(f"pinned to CPU {cpu} (one thread; --no-pin: not)")
    return (f"At one thread the harness and the processes it starts are pinned to one CPU (CPU {cpu}; "
            "`--no-pin`: not), so that eir's driver process runs where the in-process contenders run.")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="smoke mode: 3 rounds, 1 warm-up")
    ap.add_argument("--models", help="comma-separated subset of python/bench/models.py MODELS")
    ap.add_argument("--contenders", default=",".join(CONTENDERS))
    ap.add_argument("--runs", type=int, help="timed rounds (default 15, 3 with --quick)")
    ap.add_argument("--warmup", type=int, help="untimed runs per contender (default 3, 1 with --quick)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--pause", type=float,
                    help="seconds of idleness before each timed run, so that the previous contender's "
                         "threads have stopped spinning and no run shares the CPUs with them "
                         "(default 0.05 with more than one thread, 0 with one: nothing spins there)")
    ap.add_argument("--threads-list", help="comma-separated thread counts: eir vs torch eager at each (Threads section)")
    ap.add_argument("--decomp", action="store_true", help="benchmark ep.run_decompositions()")
    ap.add_argument("--full", action="store_true", help="12-layer BERT and GPT-2 stacks (default 2 layers)")
    ap.add_argument("--no-fresh", action="store_true", help="skip the fresh-process first-result and RSS runs")
    ap.add_argument("--out", help="write the report into this markdown file (its inference section)")
    ap.add_argument("--note", help="a line printed in bold above the table (e.g. about machine load)")
    ap.add_argument("--json", help="write the rows as JSON here")
    ap.add_argument("--exe", default=os.path.join(ROOT, "build", "run_bench"))
    ap.add_argument("--corrupt-eir", action="store_true",
                    help="perturb eir's first output before the check (tests that the check fails the run)")
    ap.add_argument("--no-pin", action="store_true",
                    help="at one thread, do not pin the harness and its processes to one CPU")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    args.argv = list(argv if argv is not None else sys.argv[1:])
    args.runs = args.runs if args.runs is not None else (3 if args.quick else 15)
    args.warmup = args.warmup if args.warmup is not None else (1 if args.quick else 3)
    args.pause = args.pause if args.pause is not None else (0.05 if args.threads > 1 else 0.0)
    args.contenders = [c for c in args.contenders.split(",") if c]
    bad = [c for c in args.contenders if c not in CONTENDERS]
    if bad:
        ap.error(f"unknown contenders {bad}; choose from {CONTENDERS}")
    import models

    names = args.models.split(",") if args.models else list(models.MODELS)
    bad = [n for n in names if n not in models.MODELS]
    if bad:
        ap.error(f"unknown models {bad}; choose from {list(models.MODELS)}")
    if "eir" in args.contenders and not os.path.exists(args.exe):
        ap.error(f"{args.exe} not found: make build/run_bench")

    def log(s):
        print(s, file=sys.stderr, flush=True)

    if args.threads_list:
        args.threads_list = [int(t) for t in args.threads_list.split(",") if t]
        rows = [bench_threads_model(n, args, log) for n in names]
        print(threads_table(rows, args.threads_list))
        if args.out:
            write_threads_doc(args.out, rows, args)
        return 1 if any(str(w).startswith("WRONG OUTPUT") for r in rows for w in r["fail"].values()) else 0

    before = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    args.pinned = pin_one_cpu(args, log)
    try:
        rows = [bench_model(n, args, log) for n in names]
    finally:
        if args.pinned and before:
            os.sched_setaffinity(0, before)  # the caller's, as it was (the tests call main in-process)
    print(table(rows, args.contenders))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump([{k: v for k, v in r.items()} for r in rows], fh, indent=1)
    if args.out:
        write_doc(args.out, rows, args, {n: models.describe(n, args.full) for n in models.MODELS})
    wrong = [r["name"] for r in rows if str(r["fail"].get("eir", "")).startswith("WRONG OUTPUT")]
    if wrong:
        log("eir gave wrong outputs on: " + ", ".join(wrong))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
