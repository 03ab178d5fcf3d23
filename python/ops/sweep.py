#!/usr/bin/env python3
"""sweep.py — the per-op conformance sweep: every forward op of the Core ATen
opset of the installed torch (torch.Tag.core, *_backward ops left out) x every
dtype of samples.DTYPES, eir against torch in the same run.

For one (op, dtype): the samples of samples.py that torch accepts eagerly
become ONE program (a module calling torch.ops.aten.<op>.<overload> once per
sample), exported with torch.export and saved; `eir run` runs it on the
samples' inputs and each output is compared with ep.module()'s within the
tolerance of its dtype (python/tests/tolerances.py; integers and bool exact),
and so is each input the op writes (running stats, eir's DIR/input_<i>.npy).
Both runs start from the same input values, written before torch runs.
An eir error is re-run sample by sample to name the sample at fault.

Status of a cell (STATUS): ok, mismatch, eir: missing kernel, eir: error,
torch: unsupported (torch refuses the first, ordinary sample in eager mode;
other samples it refuses are left out), not in graph (export turned the call
into other ops, or export/save failed), not sampled (samples.py has nothing
for the op, e.g. a core op new in this torch).

    python3 python/ops/sweep.py [--only OP ...] [--dtypes f32,i64] [--jobs 2]
                                [--table build/OPS.md] [--doc docs/OPS.md] [-v]
                                [--exact float16,bfloat16]

Exits 1 if a failing cell is not excused by python/ops/known_gaps.txt (a whole
cell, or each failing sample of it), or if the list names a gap that no longer
fails (it must stay honest). --exact compares the named dtypes bit for bit: a
diagnostic for rounding differences the tolerances hide (torch's own scalar
and vectorized paths round differently, so expect some).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
for p in (HERE, os.path.join(REPO, "python", "tests")):
    if p not in sys.path:
        sys.path.insert(0, p)

from tolerances import tolerance  # noqa: E402

GAPS_FILE = os.path.join(HERE, "known_gaps.txt")

# status -> (table mark, meaning)
STATUS = {
    "ok": ("ok", "eir matches torch on every sample"),
    "mismatch": ("≠", "eir runs, a result differs from torch's"),
    "missing": ("M", "eir: missing kernel"),
    "error": ("E", "eir: error (refuses or fails to run the program)"),
    "unsupported": ("·", "torch: unsupported (torch refuses this dtype)"),
    "not-in-graph": ("G", "not in graph: torch.export gives no saved program calling the op (it turns the call "
                          "into other ops, or export or save fails)"),
    "not-sampled": ("?", "not sampled: python/ops/samples.py has no samples for the op"),
}
FAILING = ("mismatch", "missing", "error", "not-sampled")


def core_ops():
    """"name.overload" of every Core ATen forward op of the installed torch.
    From every registered schema: iterating torch.ops.aten lists only the
    op packets Python has touched so far."""
    import torch
    out = set()
    for sc in torch._C._jit_get_all_schemas():
        if not sc.name.startswith("aten::"):
            continue
        name, ov = sc.name[6:], sc.overload_name or "default"
        if name.endswith("_backward"):
            continue
        try:
            op = getattr(getattr(torch.ops.aten, name), ov)
        except (AttributeError, RuntimeError):
            continue
        if torch.Tag.core in op.tags:
            out.add(f"{name}.{ov}")
    return sorted(out)


def resolve(op_name):
    import torch
    name, ov = op_name.rsplit(".", 1)
    return getattr(getattr(torch.ops.aten, name), ov)


# ---------------------------------------------------------------------------
# one (op, dtype)
# ---------------------------------------------------------------------------

def _short(e, n=300):
    s = f"{type(e).__name__}: {e}".strip().splitlines()
    return (s[0] if s else "")[:n]


def _program(op, samples):
    import torch
    from samples import materialize

    class OpProgram(torch.nn.Module):
        def forward(self, *flat):
            it = iter(flat)
            take = lambda i: i.view(next(it)) if i.view else next(it)  # noqa: E731
            outs = []
            for s in samples:
                args = materialize(s.args, take)
                kwargs = {k: materialize(v, take) for k, v in s.kwargs.items()}
                outs.append(op(*args, **kwargs))
            return tuple(outs)

    return OpProgram()


def _export(op, samples):
    import torch
    ins = [i for s in samples for i in s.inputs()]
    flat = tuple(i.base for i in ins)
    dyn = None
    if any(i.dynamic for i in ins):
        auto = torch.export.Dim.AUTO
        dyn = (tuple({d: auto for d in i.dynamic} if i.dynamic else None for i in ins),)
    ep = torch.export.export(_program(op, samples), flat, dynamic_shapes=dyn)
    return ep, flat


# dtype names compared bit for bit instead (sweep.py --exact, a diagnostic for
# rounding differences the tolerances hide); inherited by the worker processes
EXACT = set(filter(None, os.environ.get("EIR_OPS_EXACT", "").split(",")))


def _tolerance(dtype):
    return (0.0, 0.0) if str(dtype).replace("torch.", "") in EXACT else tolerance(dtype)


def _to_numpy(t):
    import torch
    t = t.detach()
    if t.dtype == torch.bfloat16:
        t = t.float()  # eir reads and writes bfloat16 as float32 (exact)
    return t.contiguous().numpy()


def _compare_leaf(got, want):
    """None if eir's array matches torch's value, else what differs."""
    import numpy as np
    import torch
    if not isinstance(want, torch.Tensor):
        if got.shape != ():
            return f"shape {got.shape}, torch a scalar {want!r}"
        g = got.item()
        if isinstance(want, float) or isinstance(g, float):
            ok = g == want or (g != g and want != want) or abs(g - want) <= 1e-6 * max(1.0, abs(want))
        else:
            ok = g == want
        return None if ok else f"eir {g!r}, torch {want!r}"
    w = _to_numpy(want)
    if got.shape != w.shape:
        return f"shape {got.shape}, torch {w.shape}"
    if got.dtype != w.dtype:
        return f"dtype {got.dtype}, torch {w.dtype}"
    if want.dtype.is_floating_point:
        rtol, atol = _tolerance(want.dtype)
        bad = ~np.isclose(got, w, rtol=rtol, atol=atol, equal_nan=True)
    elif want.dtype.is_complex:  # part by part, so inf + 1.25i is close to inf + 1.2500001i
        rtol, atol = _tolerance(want.dtype)
        bad = ~(np.isclose(got.real, w.real, rtol=rtol, atol=atol, equal_nan=True) &
                np.isclose(got.imag, w.imag, rtol=rtol, atol=atol, equal_nan=True))
    else:
        bad = got != w
    if not bad.any():
        return None
    idx = tuple(int(i) for i in np.argwhere(bad)[0])
    return (f"{int(bad.sum())} of {bad.size} elements differ, first at {list(idx)}: "
            f"eir {got[idx]!r}, torch {w[idx]!r}")


class SaveError(Exception):
    pass


def _run_eir(eir, ep, flat, d):
    """(returncode, stderr, list of output arrays, {input index: its new value})
    of `eir run` on the program; flat: its inputs, tensors or NumPy arrays.
    The dict holds the inputs the program writes (eir's DIR/input_<i>.npy)."""
    import numpy as np
    import torch
    os.makedirs(d, exist_ok=True)
    pt2 = os.path.join(d, "p.pt2")
    try:
        torch.export.save(ep, pt2)
    except Exception as e:  # noqa: BLE001
        raise SaveError(_short(e)) from e
    paths = []
    for k, x in enumerate(flat):
        p = os.path.join(d, f"in_{k}.npy")
        np.save(p, x if isinstance(x, np.ndarray) else _to_numpy(x))
        paths.append(p)
    out = os.path.join(d, "out")
    try:
        r = subprocess.run([eir, "run", pt2, *paths, "--out", out], capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return 1, "eir run timed out after 120 s", [], {}
    if r.returncode != 0:
        return r.returncode, r.stderr.strip(), [], {}
    arrays, k = [], 0
    while os.path.exists(os.path.join(out, f"output_{k}.npy")):
        arrays.append(np.load(os.path.join(out, f"output_{k}.npy")))
        k += 1
    mutated = {k: np.load(os.path.join(out, f"input_{k}.npy")) for k in range(len(flat))
               if os.path.exists(os.path.join(out, f"input_{k}.npy"))}
    return 0, "", arrays, mutated


def _eir_failure(stderr):
    status = "missing" if "cannot run yet" in stderr else "error"
    msg = " ".join(stderr.split())
    if msg.startswith("eir: ") and ".pt2: " in msg:  # drop the temporary archive's path
        msg = "eir: " + msg.split(".pt2: ", 1)[1]
    return status, msg[:400]


def _check_sample(s, got, want):
    if callable(s.check):
        return s.check(got, want)
    if len(got) != len(want):
        return f"{len(got)} outputs, torch {len(want)}"
    for k, (a, b) in enumerate(zip(got, want)):
        if s.check == "meta":
            import torch
            if isinstance(b, torch.Tensor) and (a.shape != tuple(b.shape) or a.dtype != _to_numpy(b[:0] if b.dim() else b).dtype):
                return f"output {k}: shape/dtype {a.shape} {a.dtype}, torch {tuple(b.shape)} {b.dtype}"
            continue
        bad = _compare_leaf(a, b)
        if bad:
            return f"output {k}: {bad}"
    return None


def run_one(op_name, dt_name, eir, workdir):
    """Status of one (op, dtype): a dict with status, msg, samples, bad (per-sample problems), seconds."""
    import torch
    from samples import DTYPES, SAMPLERS, G, materialize

    t0 = time.time()
    res = {"op": op_name, "dtype": dt_name, "status": "ok", "msg": "", "samples": 0, "bad": [], "refused": []}

    def done(status, msg=""):
        res.update(status=status, msg=msg, seconds=round(time.time() - t0, 3))
        return res

    if op_name not in SAMPLERS:
        return done("not-sampled")
    op = resolve(op_name)
    torch.manual_seed(zlib.crc32(op_name.encode()))
    g = G(DTYPES[dt_name], zlib.crc32(f"{op_name}/{dt_name}".encode()))
    samples = SAMPLERS[op_name](g)

    # torch decides: the dtype is unsupported if torch refuses the first
    # (ordinary) sample; other samples it refuses are left out. (Empty and
    # 0-d samples can pass where the dtype has no kernel at all.)
    kept, counts = [], []
    for k, s in enumerate(samples):
        try:
            with torch.no_grad():
                out = op(*materialize(s.args, lambda i: i.value()),
                         **{k: materialize(v, lambda i: i.value()) for k, v in s.kwargs.items()})
        except Exception as e:  # noqa: BLE001  (torch's refusal is data here)
            if k == 0:
                return done("unsupported", f"{s.label}: {_short(e, 160)}")
            res["refused"].append(f"{s.label}: {_short(e, 160)}")
            continue
        kept.append(s)
        counts.append(len(torch.utils._pytree.tree_leaves(out)))
    if not kept:
        return done("unsupported", "no samples")
    res["samples"] = len(kept)

    try:
        ep, flat = _export(op, kept)
    except Exception as e:  # noqa: BLE001
        # find the samples export cannot take and go on without them
        ok, okc = [], []
        for s, c in zip(kept, counts):
            try:
                _export(op, [s])
                ok.append(s)
                okc.append(c)
            except Exception as e1:  # noqa: BLE001
                res["refused"].append(f"{s.label}: export: {_short(e1, 160)}")
        if not ok:
            return done("not-in-graph", f"export fails: {_short(e)}")
        kept, counts = ok, okc
        res["samples"] = len(kept)
        ep, flat = _export(op, kept)
    targets = [n.target for n in ep.graph.nodes if n.op == "call_function"]
    if op not in targets:
        seen = sorted({getattr(t, "__name__", str(t)) if callable(t) and not hasattr(t, "_schema")
                       else str(t).replace("aten.", "") for t in targets})
        return done("not-in-graph", "the exported graph calls " + ", ".join(seen[:12]))

    # An op may write its arguments (_native_batch_norm_legit updates
    # running_mean in place), so eir's input files are written before torch
    # runs: both start from the same values. Samples may share an input tensor
    # (export then reads one placeholder for both); torch gets distinct
    # tensors, as eir gets distinct files, so each input's new value can be
    # compared on its own.
    run_flat, seen = [], set()
    for x in flat:
        run_flat.append(x.clone() if id(x) in seen else x)
        seen.add(id(x))
    start = [_to_numpy(x).copy() for x in run_flat]
    with torch.no_grad():
        want = torch.utils._pytree.tree_leaves(ep.module()(*run_flat))
    d = tempfile.mkdtemp(dir=workdir, prefix=f"{op_name}.{dt_name}.")
    try:
        try:
            rc, err, got, mutated = _run_eir(eir, ep, start, d)
        except SaveError as e:
            return done("not-in-graph", f"torch.export.save fails: {e}")
        if rc != 0:
            status, msg = _eir_failure(err)
            if status == "error" and len(kept) > 1:
                for k, s in enumerate(kept):  # name the samples at fault
                    try:
                        eps, fl = _export(op, [s])
                        rc1, err1, _, _ = _run_eir(eir, eps, fl, os.path.join(d, f"s{k}"))
                    except Exception:  # noqa: BLE001
                        continue
                    if rc1 != 0:
                        res["bad"].append(f"{s.label}: {_eir_failure(err1)[1][:300]}")
            return done(status, msg)
        if len(got) != len(want):
            return done("error", f"eir wrote {len(got)} outputs, torch has {len(want)}")
        pos = first = 0
        for s, c in zip(kept, counts):
            problem = _check_sample(s, got[pos:pos + c], want[pos:pos + c])
            # inputs the op writes (Tensor(a!) arguments): torch's new value vs eir's
            n_in = len(s.inputs())
            for k in range(first, first + n_in):
                if problem or s.check != "value":
                    break
                if k in mutated:
                    bad = _compare_leaf(mutated[k], run_flat[k])
                    problem = bad and f"input {k - first} (written by the op): {bad}"
                elif _compare_leaf(start[k], run_flat[k]):
                    problem = f"input {k - first}: torch writes it, eir does not"
            if problem:
                res["bad"].append(f"{s.label}: {problem}")
            pos += c
            first += n_in
        if res["bad"]:
            return done("mismatch", res["bad"][0])
        return done("ok")
    finally:
        shutil.rmtree(d, ignore_errors=True)


def _worker_init():
    import logging
    import torch
    torch.set_num_threads(1)  # two workers share two cores
    warnings.filterwarnings("ignore")
    logging.disable(logging.CRITICAL)  # export logs the errors it raises; we report them
    # torch's C++ warnings (TORCH_WARN: "var(): degrees of freedom is <= 0" ...) bypass
    # Python's warnings filter; the samples provoke them on purpose, so drop the noise.
    # Failures travel back to the parent with their tracebacks, not through stderr.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)


def _task(args):
    op_name, dt_name, eir, workdir = args
    try:
        return run_one(op_name, dt_name, eir, workdir)
    except Exception as e:  # noqa: BLE001  (a harness bug must show as a failing cell)
        import traceback
        return _harness_failure(op_name, dt_name, "harness: " + _short(e), traceback.format_exc()[-2000:])


def _harness_failure(op_name, dt_name, msg, trace=""):
    return {"op": op_name, "dtype": dt_name, "status": "error", "samples": 0, "bad": [], "refused": [],
            "msg": msg, "trace": trace, "seconds": 0}


def _worker_loop(tasks, results):
    _worker_init()
    while True:
        t = tasks.get()
        if t is None:
            return
        results.put(("start", os.getpid(), t))
        results.put(("done", os.getpid(), _task(t)))


TASK_TIMEOUT = 300


def _run_pool(tasks, jobs, on_result):
    """Run tasks on `jobs` worker processes. Unlike multiprocessing.Pool, a
    worker that dies (a crash inside torch or eir's Python side) or hangs
    costs only its current task, which is reported as a failure."""
    import multiprocessing
    import queue
    ctx = multiprocessing.get_context("spawn")
    tq, rq = ctx.Queue(), ctx.Queue()
    for t in tasks:
        tq.put(t)
    workers = {}  # pid -> [process, current task, start time]

    def start():
        p = ctx.Process(target=_worker_loop, args=(tq, rq), daemon=True)
        p.start()
        workers[p.pid] = [p, None, 0.0]
        tq.put(None)

    for _ in range(min(jobs, len(tasks))):
        start()
    pending = len(tasks)
    try:
        while pending:
            try:
                kind, pid, payload = rq.get(timeout=2)
            except queue.Empty:
                for pid, (p, cur, t0) in list(workers.items()):
                    hung = cur and time.time() - t0 > TASK_TIMEOUT
                    if p.is_alive() and not hung:
                        continue
                    if hung:
                        p.kill()
                        p.join()
                    del workers[pid]
                    if cur:
                        why = f"timed out after {TASK_TIMEOUT} s" if hung else f"exit code {p.exitcode}"
                        on_result(_harness_failure(cur[0], cur[1], f"harness: the worker died ({why})"))
                        pending -= 1
                    if pending:
                        start()
                continue
            if kind == "start":
                workers[pid][1:] = [payload, time.time()]
            else:
                workers[pid][1] = None
                on_result(payload)
                pending -= 1
    finally:
        for p, _, _ in workers.values():
            p.kill()


def sweep(ops=None, dtypes=None, jobs=2, eir=None, progress=None):
    """Results of every (op, dtype): {(op, dtype): result dict}."""
    from samples import DTYPES
    ops = ops or core_ops()
    dtypes = dtypes or list(DTYPES)
    eir = eir or os.environ.get("EIR_BIN") or os.path.join(REPO, "build", "eir")
    workdir = tempfile.mkdtemp(prefix="eir-ops-")
    tasks = [(o, d, eir, workdir) for o in ops for d in dtypes]
    results = {}

    def on_result(r):
        results[(r["op"], r["dtype"])] = r
        if progress:
            progress(r)

    try:
        if jobs <= 1:
            _worker_init()
            for t in tasks:
                on_result(_task(t))
        else:
            _run_pool(tasks, jobs, on_result)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return results


# ---------------------------------------------------------------------------
# known gaps and the verdict
# ---------------------------------------------------------------------------

def load_gaps(path=GAPS_FILE):
    """{(op, dtype or "*", sample or None): reason} from `op dtype[:sample] reason...` lines."""
    gaps = {}
    if not os.path.exists(path):
        return gaps
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split(None, 2)
            if len(parts) < 3:
                raise ValueError(f"{path}:{n}: expected 'op dtype[:sample] reason', got {line!r}")
            dt, _, smp = parts[1].partition(":")
            gaps[(parts[0], dt, smp or None)] = parts[2]
    return gaps


def _bad_labels(r):
    return {b.split(": ", 1)[0] for b in r["bad"]}


def excused(gaps, op, dt, r):
    """The gap entries that excuse a failing cell, or None if it is not excused:
    a whole-cell entry, or entries naming every failing sample."""
    for key in ((op, dt, None), (op, "*", None)):
        if key in gaps:
            return [key]
    labels = _bad_labels(r)
    if r["status"] in ("mismatch", "error") and labels:
        keys = [(op, dt, lb) if (op, dt, lb) in gaps else (op, "*", lb) for lb in labels]
        if all(k in gaps for k in keys):
            return keys
    return None


def judge(results, gaps):
    """Problems: failing cells the gap list does not excuse, and listed gaps
    that no longer fail (only for ops this run covered)."""
    problems, used = [], set()
    for (op, dt), r in sorted(results.items()):
        if r["status"] not in FAILING:
            continue
        keys = excused(gaps, op, dt, r)
        if keys:
            used.update(keys)
            continue
        detail = "; ".join(r["bad"][:3]) or r["msg"]
        problems.append(f"{op} {dt}: {STATUS[r['status']][1]}: {detail}")
    ran = {(op, dt) for op, dt in results}
    for (op, dt, smp), reason in sorted(gaps.items(), key=str):
        covered = any(o == op and (dt == "*" or d == dt) for o, d in ran)
        if covered and (op, dt, smp) not in used:
            what = f"{op} {dt}" + (f":{smp}" if smp else "")
            problems.append(f"{what}: listed in known_gaps.txt ({reason}) but it no longer fails")
    return problems


# ---------------------------------------------------------------------------
# the table
# ---------------------------------------------------------------------------

def summary_counts(results):
    counts = {k: 0 for k in STATUS}
    for r in results.values():
        counts[r["status"]] += 1
    return counts


def render_table(results, gaps, seconds=None):
    import torch
    from samples import DTYPES
    ops = sorted({op for op, _ in results})
    dts = [d for d in DTYPES if any((op, d) in results for op in ops)]
    counts = summary_counts(results)
    L = ["# Core ATen ops in eir", "",
         f"Generated by `make ops-doc` (`python/ops/sweep.py`) from one run against torch {torch.__version__}: "
         "every forward op of the Core ATen opset (`torch.Tag.core`) in every dtype, eir against torch on the "
         "samples of `python/ops/samples.py` (ordinary, broadcasting, empty, 0-d, negative dims, strided and "
         "transposed views, NaN/inf, integer edge cases, mixed-dtype operands), within the tolerances of "
         "`python/tests/tolerances.py` (integers and bool exact). Random ops are checked by shape, dtype and "
         "distribution. `make test` regenerates this table as `build/OPS.md` and fails on any failing cell "
         "not listed in `python/ops/known_gaps.txt`.", ""]
    L.append("Legend:")
    L.append("")
    L += [f"- `{m}` {desc}" for m, desc in STATUS.values()]
    L.append("")
    total = len(results)
    tested = total - counts["unsupported"] - counts["not-in-graph"]
    L.append(f"Summary: {total} (op, dtype) cells over {len(ops)} ops; torch runs and exports {tested} of them, "
             f"and eir matches it on {counts['ok']}. The others: " +
             ", ".join(f"{counts[k]} {label}" for k, label in (
                 ("mismatch", "mismatch"), ("missing", "eir: missing kernel"), ("error", "eir: error"),
                 ("not-sampled", "not sampled"), ("unsupported", "torch: unsupported"),
                 ("not-in-graph", "not in graph"))) + "." + (f" Sweep time {seconds:.0f} s." if seconds else ""))
    L.append("")
    L.append("| op | " + " | ".join(dts) + " |")
    L.append("|---|" + "|".join(":-:" for _ in dts) + "|")
    for op in ops:
        cells = []
        for d in dts:
            r = results.get((op, d))
            cells.append(STATUS[r["status"]][0] if r else "")
        L.append(f"| `{op}` | " + " | ".join(cells) + " |")
    listed = sorted(((k, v) for k, v in gaps.items() if k[0] in set(ops)), key=str)
    if listed:
        L += ["", "## Known gaps", "", "From `python/ops/known_gaps.txt` (a cell, or one sample of a cell):", ""]
        by_reason = {}
        for (op, d, smp), reason in listed:
            by_reason.setdefault(reason, []).append(f"`{op}` {d}" + (f" (sample `{smp}`)" if smp else ""))
        for reason, cells in sorted(by_reason.items()):
            L.append(f"- {reason}: " + ", ".join(cells))
    notin = {}  # (op, kind of failure) -> (first message, dtypes)
    for (op, d), r in sorted(results.items(), key=lambda kv: (kv[0][0], dts.index(kv[0][1]))):
        if r["status"] == "not-in-graph":
            kind = r["msg"].split(": ", 1)[0] if "fails" in r["msg"] else r["msg"]
            notin.setdefault((op, kind), (r["msg"], []))[1].append(d)
    if notin:
        L += ["", "## Not in graph", ""]
        for (op, _), (msg, ds) in notin.items():
            which = "every dtype" if len(ds) == len(dts) else ", ".join(ds)
            L.append(f"- `{op}` ({which}): {msg}")
    return "\n".join(L) + "\n"


def render_details(results):
    L = []
    for (op, dt), r in sorted(results.items()):
        if r["status"] == "ok" and not r.get("refused"):
            continue
        L.append(f"{op} {dt}: {r['status']} ({r['samples']} samples, {r.get('seconds', 0)} s) {r['msg']}")
        L += [f"    bad: {b}" for b in r["bad"]]
        L += [f"    refused by torch: {b}" for b in r.get("refused", [])[:40]]
        if r.get("trace"):
            L.append("    " + r["trace"].replace("\n", "\n    "))
    return "\n".join(L) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="*", help="ops (name.overload) to sweep")
    ap.add_argument("--dtypes", help="comma-separated dtypes (f32,i64,...)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--table", default=os.path.join(REPO, "build", "OPS.md"))
    ap.add_argument("--doc", help="also write the table here (docs/OPS.md)")
    ap.add_argument("--details", default=os.path.join(REPO, "build", "ops_details.txt"))
    ap.add_argument("--exact", help="compare these dtypes (torch names: float16,bfloat16) bit for bit: a diagnostic")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args(argv)
    if a.exact:
        os.environ["EIR_OPS_EXACT"] = a.exact  # spawned workers read it at import
        EXACT.update(a.exact.split(","))
    t0 = time.time()

    def progress(r):
        if a.verbose or r["status"] in FAILING:
            print(f"{r['op']:40} {r['dtype']:5} {r['status']:12} {r.get('seconds', 0):6.2f}s {r['msg'][:150]}",
                  flush=True)

    results = sweep(a.only, a.dtypes.split(",") if a.dtypes else None, a.jobs, progress=progress)
    secs = time.time() - t0
    gaps = load_gaps()
    os.makedirs(os.path.dirname(a.table), exist_ok=True)
    table = render_table(results, gaps, secs)
    for path in filter(None, (a.table, a.doc)):
        with open(path, "w") as f:
            f.write(table)
    with open(a.details, "w") as f:
        f.write(render_details(results))
    with open(os.path.splitext(a.details)[0] + ".json", "w") as f:
        json.dump({f"{k[0]} {k[1]}": v for k, v in sorted(results.items())}, f, indent=0)
    c = summary_counts(results)
    print(f"{len(results)} cells in {secs:.0f} s: " + ", ".join(f"{v} {k}" for k, v in c.items()))
    problems = judge(results, gaps)
    for p in problems:
        print("FAIL", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
