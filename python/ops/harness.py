"""harness.py — what the two op sweeps share: the Core ATen per-op sweep
(sweep.py, samples of samples.py) and the OpInfo sweep (opinfo_sweep.py,
torch's own OpInfo samples of the ops users' programs contain).

A cell is one (op, dtype): its samples become ONE exported program (a module
calling the op once per sample), `eir run` runs it and each output is
compared with ep.module()'s within python/tests/tolerances.py. An eir error
is re-run sample by sample to name the samples at fault. Here live the cell
runner (run_samples), the comparisons, the process pool that survives a
crashing or hanging worker, the status vocabulary, the known-gaps files and
the verdict (judge).
"""
from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import zlib
import sys
import tempfile
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
for p in (HERE, os.path.join(REPO, "python", "tests")):
    if p not in sys.path:
        sys.path.insert(0, p)

from tolerances import tolerance  # noqa: E402

# status -> (table mark, meaning); each sweep's legend shows the ones it uses
STATUS = {
    "ok": ("ok", "eir matches torch on every sample"),
    "mismatch": ("≠", "eir runs, a result differs from torch's"),
    "missing": ("M", "eir: missing kernel"),
    "error": ("E", "eir: error (refuses or fails to run the program)"),
    "unsupported": ("·", "torch: unsupported (torch refuses this dtype)"),
    "not-in-graph": ("G", "not in graph: torch.export gives no saved program calling the op (it turns the call "
                          "into other ops, or export or save fails)"),
    "export": ("X", "export fails: torch.export cannot export (or save) the call; not eir's problem"),
    "not-sampled": ("?", "not sampled: there are no samples for the op in this dtype"),
}


def _short(e, n=300):
    s = f"{type(e).__name__}: {e}".strip().splitlines()
    return (s[0] if s else "")[:n]


def default_eir():
    return os.environ.get("EIR_BIN") or os.path.join(REPO, "build", "eir")


# ---------------------------------------------------------------------------
# one program per cell
# ---------------------------------------------------------------------------

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
                out = op(*args, **kwargs)
                # torch.export.save cannot serialize torch.return_types (sort, svd, ...)
                outs.append(tuple(out) if isinstance(out, tuple) and type(out) is not tuple else out)
            return tuple(outs)

    return OpProgram()


def export_samples(op, samples):
    """(ExportedProgram, flat inputs) of one program calling op on every sample."""
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


def to_numpy(t):
    import torch
    t = t.detach().resolve_conj().resolve_neg()  # fft and conj results carry lazy bits numpy refuses
    if t.dtype == torch.bfloat16:
        t = t.float()  # eir reads and writes bfloat16 as float32 (exact)
    elif t.dtype == torch.complex32:
        t = t.to(torch.complex64)  # and complex32 as complex64
    return t.contiguous().numpy()


def compare_leaf(got, want):
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
    w = to_numpy(want)
    if got.shape != w.shape:
        return f"shape {got.shape}, torch {w.shape}"
    if got.dtype != w.dtype:
        return f"dtype {got.dtype}, torch {w.dtype}"
    if want.dtype.is_floating_point:
        rtol, atol = _tolerance(want.dtype)
        bad = ~np.isclose(got, w, rtol=rtol, atol=atol, equal_nan=True)
    elif want.dtype.is_complex:
        # part by part, so inf + 1.25i is close to inf + 1.2500001i; or, for finite
        # values, relative to the modulus, so a tiny imaginary part of a huge
        # number (5.5e7 + 8.3e5i) may differ in its fifth digit as the real one may
        rtol, atol = _tolerance(want.dtype)
        parts = (np.isclose(got.real, w.real, rtol=rtol, atol=atol, equal_nan=True) &
                 np.isclose(got.imag, w.imag, rtol=rtol, atol=atol, equal_nan=True))
        with np.errstate(invalid="ignore", over="ignore"):
            modulus = np.isfinite(got) & np.isfinite(w) & (np.abs(got - w) <= atol + rtol * np.abs(w))
        bad = ~(parts | modulus)
    else:
        bad = got != w
    if not bad.any():
        return None
    idx = tuple(int(i) for i in np.argwhere(bad)[0])
    return (f"{int(bad.sum())} of {bad.size} elements differ, first at {list(idx)}: "
            f"eir {got[idx]!r}, torch {w[idx]!r}")


def compare_meta(a, b):
    """None if eir's array has the shape and dtype of torch's tensor (values
    not compared: random or uninitialized outputs), else what differs."""
    import torch
    if isinstance(b, torch.Tensor) and (a.shape != tuple(b.shape) or a.dtype != to_numpy(b[:0] if b.dim() else b).dtype):
        return f"shape/dtype {a.shape} {a.dtype}, torch {tuple(b.shape)} {b.dtype}"
    return None


class SaveError(Exception):
    pass


def run_eir(eir, ep, flat, d):
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
        np.save(p, x if isinstance(x, np.ndarray) else to_numpy(x))
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


def eir_failure(stderr):
    """(status, message) of a failed `eir run`: "missing" when runtime creation
    lists operators eir cannot run yet, else "error"."""
    status = "missing" if "cannot run yet" in stderr else "error"
    msg = " ".join(stderr.split())
    if msg.startswith("eir: ") and ".pt2: " in msg:  # drop the temporary archive's path
        msg = "eir: " + msg.split(".pt2: ", 1)[1]
    return status, msg[:400]


def missing_ops(stderr):
    """The operators eir's runtime creation lists as missing ("  aten.einsum.default (node %einsum)")."""
    out = []
    for line in stderr.splitlines():
        w = line.strip().split(" ", 1)[0]
        if line.startswith("  ") and "." in w and w not in out:
            out.append(w)
    return out


def check_sample(s, got, want):
    """None if eir's outputs of one sample pass the sample's check, else the problem."""
    if callable(s.check):
        return s.check(got, want)
    if len(got) != len(want):
        return f"{len(got)} outputs, torch {len(want)}"
    for k, (a, b) in enumerate(zip(got, want)):
        bad = compare_meta(a, b) if s.check == "meta" else compare_leaf(a, b)
        if bad:
            return f"output {k}: {bad}"
    return None


# What this worker has learnt of eir's operator coverage from its runs:
# whether eir has an operator does not depend on dtypes or shapes (runtime
# creation looks kernels up by name), so a program whose operators are all
# known, and some known missing, is refused without saving and running it.
KNOWN_MISSING, KNOWN_PRESENT = set(), set()


def target_name(t):
    """A call_function target as eir names it ("aten.add.Tensor", "higher_order.cond", "_operator.getitem")."""
    import torch
    if isinstance(t, torch._ops.OpOverload):
        return str(t).replace("::", ".")
    if isinstance(t, torch._ops.HigherOrderOperator):
        return f"higher_order.{t.name()}"
    return f"{getattr(t, '__module__', '')}.{getattr(t, '__name__', str(t))}"


def _learn(ops, rc, err):
    """Record what eir's run of a program calling `ops` says about them."""
    if rc == 0:
        KNOWN_PRESENT.update(ops)
    elif "cannot run yet" in err and "\n  ..." not in err:  # the whole list, not cut at 40 nodes
        listed = set(missing_ops(err))
        KNOWN_MISSING.update(listed & ops)
        KNOWN_PRESENT.update(ops - listed)


def run_samples(res, op, kept, eir, workdir, export_status="not-in-graph", inspect=None, transform=None):
    """Export the kept samples as one program, run it in eir, compare.

    Samples export cannot take are dropped (res["refused"]); if none is left,
    export_status; so are samples on which torch's own ep.module() fails.
    inspect(ep, kept) may look at the graph (recording its ops, choosing
    checks) and return a (status, msg) that ends the cell. Returns (status,
    msg); per-sample problems go to res["bad"] as "label: problem", the
    operators eir lacks to res["missing_ops"]. transform(ep) -> ep rewrites
    each exported program (ep.run_decompositions())."""
    import torch

    def export(samples):
        ep, flat = export_samples(op, samples)
        return (transform(ep) if transform else ep), flat

    try:
        ep, flat = export(kept)
    except Exception as e:  # noqa: BLE001
        # find the samples export cannot take and go on without them
        ok = []
        for s in kept:
            try:
                export([s])
                ok.append(s)
            except Exception as e1:  # noqa: BLE001
                res["refused"].append(f"{s.label}: export: {_short(e1, 160)}")
        if not ok:
            return export_status, f"export fails: {_short(e)}"
        kept = ok
        res["samples"] = len(kept)
        ep, flat = export(kept)
    if inspect:
        stop = inspect(ep, kept)
        if stop:
            return stop
    ops = {target_name(n.target) for n in ep.graph.nodes if n.op == "call_function"}
    if ops & KNOWN_MISSING and ops <= KNOWN_MISSING | KNOWN_PRESENT:
        res["missing_ops"] = sorted(ops & KNOWN_MISSING)
        return "missing", "eir: operators eir cannot run yet: " + ", ".join(res["missing_ops"])

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
    start = [to_numpy(x).copy() for x in run_flat]
    d = tempfile.mkdtemp(dir=workdir, prefix="cell.")
    try:
        try:
            rc, err, got, mutated = run_eir(eir, ep, start, d)
        except SaveError as e:
            return export_status, f"torch.export.save fails: {e}"
        _learn(ops, rc, err)
        status, msg = eir_failure(err) if rc != 0 else ("ok", "")
        if status == "missing":
            res["missing_ops"] = missing_ops(err)
            return status, msg
        try:
            with torch.no_grad():
                per_sample = ep.module()(*run_flat)
        except Exception as e:  # noqa: BLE001  (torch's exported program refuses its own inputs)
            ok = []
            for s in kept:
                try:
                    eps, fl = export([s])
                    with torch.no_grad():
                        eps.module()(*fl)
                    ok.append(s)
                except Exception as e1:  # noqa: BLE001
                    res["refused"].append(f"{s.label}: torch's ep.module(): {_short(e1, 160)}")
            if not ok or len(ok) == len(kept):
                return export_status, f"torch's ep.module() fails: {_short(e)}"
            res["samples"] = len(ok)
            return run_samples(res, op, ok, eir, workdir, export_status, inspect, transform)
        if rc != 0:
            if len(kept) > 1:
                for k, s in enumerate(kept):  # name the samples at fault
                    try:
                        eps, fl = export([s])
                        rc1, err1, _, _ = run_eir(eir, eps, fl, os.path.join(d, f"s{k}"))
                    except Exception:  # noqa: BLE001
                        continue
                    if rc1 != 0:
                        res["bad"].append(f"{s.label}: {eir_failure(err1)[1][:300]}")
            return status, msg
        counts = [len(torch.utils._pytree.tree_leaves(o)) for o in per_sample]  # output leaves of each sample
        want = torch.utils._pytree.tree_leaves(per_sample)
        if len(got) != len(want):
            return "error", f"eir wrote {len(got)} outputs, torch has {len(want)}"
        pos = first = 0
        for s, c in zip(kept, counts):
            problem = check_sample(s, got[pos:pos + c], want[pos:pos + c])
            # inputs the op writes (Tensor(a!) arguments): torch's new value vs eir's
            n_in = len(s.inputs())
            for k in range(first, first + n_in):
                if problem or s.check != "value":
                    break
                if k in mutated:
                    bad = compare_leaf(mutated[k], run_flat[k])
                    problem = bad and f"input {k - first} (written by the op): {bad}"
                elif compare_leaf(start[k], run_flat[k]):
                    problem = f"input {k - first}: torch writes it, eir does not"
            if problem:
                res["bad"].append(f"{s.label}: {problem}")
            pos += c
            first += n_in
        if res["bad"]:
            return "mismatch", res["bad"][0]
        return "ok", ""
    finally:
        shutil.rmtree(d, ignore_errors=True)


def new_result(op_name, dt_name):
    return {"op": op_name, "dtype": dt_name, "status": "ok", "msg": "", "samples": 0, "bad": [], "refused": []}


# ---------------------------------------------------------------------------
# the process pool
# ---------------------------------------------------------------------------

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


def _task(task):
    """task: ("module:function", op, dtype, *more): the function's result for
    (op, dtype, *more), a result dict."""
    fn, op_name, dt_name = task[0], task[1], task[2]
    try:
        mod, name = fn.split(":")
        return getattr(importlib.import_module(mod), name)(*task[1:])
    except Exception as e:  # noqa: BLE001  (a harness bug must show as a failing cell)
        import traceback
        return harness_failure(op_name, dt_name, "harness: " + _short(e), traceback.format_exc()[-2000:])


def harness_failure(op_name, dt_name, msg, trace=""):
    r = new_result(op_name, dt_name)
    r.update(status="error", msg=msg, trace=trace, seconds=0)
    return r


def _worker_loop(tasks, results):
    _worker_init()
    while True:
        t = tasks.get()
        if t is None:
            return
        results.put(("start", os.getpid(), t))
        results.put(("done", os.getpid(), _task(t)))


def run_tasks(tasks, jobs, on_result, timeout=300):
    """Run tasks (see _task) on `jobs` worker processes, or in this process
    when jobs <= 1. Unlike multiprocessing.Pool, a worker that dies (a crash
    inside torch or eir's Python side) or hangs past `timeout` seconds costs
    only its current task, which is reported as a failure."""
    if jobs <= 1:
        _worker_init()
        for t in tasks:
            on_result(_task(t))
        return
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
                    hung = cur and time.time() - t0 > timeout
                    if p.is_alive() and not hung:
                        continue
                    if hung:
                        p.kill()
                        p.join()
                    del workers[pid]
                    if cur:
                        why = f"timed out after {timeout} s" if hung else f"exit code {p.exitcode}"
                        on_result(harness_failure(cur[1], cur[2], f"harness: the worker died ({why})"))
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


def run_cells(make_tasks, jobs=2, progress=None, timeout=300, prefix="eir-ops-"):
    """{(op, dtype): result} of the tasks make_tasks(workdir) returns (a
    temporary directory for the cells' files, removed afterwards)."""
    workdir = tempfile.mkdtemp(prefix=prefix)
    results = {}

    def on_result(r):
        results[(r["op"], r["dtype"])] = r
        if progress:
            progress(r)

    try:
        run_tasks(make_tasks(workdir), jobs, on_result, timeout)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return results


# ---------------------------------------------------------------------------
# known gaps and the verdict
# ---------------------------------------------------------------------------

def sample_dtypes(key, always, extra, gaps, available):
    """The dtypes a sampled sweep (`make test`) runs for one op: `always`,
    `extra` more of `available` chosen by a hash of the key (so every dtype is
    covered across ops, the same ones on every run), and every dtype a gap
    entry names for the key, so each listed gap is still checked; a "*" gap
    (any dtype) brings all of `available`."""
    named = {dt for (k, dt, _) in gaps if k == key}
    if "*" in named:
        return list(available)
    rest = [d for d in available if d not in always]
    h = zlib.crc32(key.encode())
    chosen = set()
    while rest and len(chosen) < extra:
        chosen.add(rest.pop(h % len(rest)))
        h //= 7
    return [d for d in available if d in always or d in chosen or d in named]


def load_gaps(path):
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


# A gap whose reason starts with this is torch's answer on some CPUs only (its
# kernels dispatch on the CPU's capability, AVX2 or AVX-512): it may pass.
CPU_DEPENDENT = "[varies by CPU]"

def judge(results, gaps, failing, gaps_name):
    """Problems: cells whose status is in `failing` that the gap list does not
    excuse, and listed gaps that no longer fail (only for cells this run covered)."""
    problems, used = [], set()
    for (op, dt), r in sorted(results.items()):
        if r["status"] not in failing:
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
        if covered and (op, dt, smp) not in used and not reason.startswith(CPU_DEPENDENT):
            what = f"{op} {dt}" + (f":{smp}" if smp else "")
            problems.append(f"{what}: listed in {gaps_name} ({reason}) but it no longer fails")
    return problems


def summary_counts(results, statuses=STATUS):
    counts = {k: 0 for k in statuses}
    for r in results.values():
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    return counts


def render_details(results):
    """Every cell that is not ok (or had samples torch refused), with its samples."""
    L = []
    for (op, dt), r in sorted(results.items()):
        if r["status"] == "ok" and not r.get("refused"):
            continue
        L.append(f"{op} {dt}: {r['status']} ({r['samples']} samples, {r.get('seconds', 0)} s) {r['msg']}")
        if r.get("aten_ops"):
            L.append("    graph: " + ", ".join(r["aten_ops"]))
        L += [f"    bad: {b}" for b in r["bad"]]
        L += [f"    refused by torch: {b}" for b in r.get("refused", [])[:40]]
        if r.get("trace"):
            L.append("    " + r["trace"].replace("\n", "\n    "))
    return "\n".join(L) + "\n"


# ---------------------------------------------------------------------------
# the command lines' and pytest's reports
# ---------------------------------------------------------------------------

def cli_parser(doc, what, table, details, dtypes_help="comma-separated dtypes (f32,i64,...)"):
    """The options both sweeps take: --only WHAT..., --dtypes, --jobs, --table,
    --doc, --details, -v (the table and details default to build/)."""
    import argparse
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--only", nargs="*", help=f"{what} to sweep")
    ap.add_argument("--dtypes", help=dtypes_help)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--table", default=os.path.join(REPO, "build", table))
    ap.add_argument("--doc", help=f"also write the table here (docs/{table})")
    ap.add_argument("--details", default=os.path.join(REPO, "build", details))
    ap.add_argument("-v", "--verbose", action="store_true")
    return ap


def progress_printer(verbose, failing):
    """A progress callback printing every cell (verbose) or the failing ones."""
    def progress(r):
        if verbose or r["status"] in failing:
            print(f"{r['op']:40} {r['dtype']:5} {r['status']:12} {r.get('seconds', 0):6.2f}s {r['msg'][:150]}",
                  flush=True)
    return progress


def write_reports(results, table, table_paths, details):
    """The table to each of table_paths; every cell that is not ok to
    `details`, and all cells as JSON next to it (details.json)."""
    for path in filter(None, table_paths):
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "w") as f:
            f.write(table)
    os.makedirs(os.path.dirname(os.path.abspath(details)), exist_ok=True)
    with open(details, "w") as f:
        f.write(render_details(results))
    import json
    with open(os.path.splitext(details)[0] + ".json", "w") as f:
        json.dump({f"{k[0]} {k[1]}": v for k, v in sorted(results.items())}, f, indent=0)


def finish(results, secs, counts, problems):
    """Print the summary and the problems; the command's exit status."""
    print(f"{len(results)} cells in {secs:.0f} s: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    for p in problems:
        print("FAIL", p)
    return 1 if problems else 0
