#!/usr/bin/env python3
"""opinfo_sweep.py — the conformance sweep of ops as users' programs contain
them: every OpInfo of torch's op_db (torch.testing._internal.
common_methods_invocations) x every dtype of samples.DTYPES torch supports for
it on CPU, exported with torch.export.export as a user would (no
run_decompositions()), run in eir and compared with torch.

The Core ATen sweep (sweep.py) proves every Core ATen op; programs exported
without run_decompositions() also contain non-core ATen ops (einsum, pad,
var_mean, linalg_*, losses...), which this sweep reaches through torch's own
OpInfo samples. For one (OpInfo, dtype): up to CAP samples of
info.sample_inputs('cpu', dtype) — the first, then ones with an empty tensor,
a 0-d tensor, a non-contiguous tensor (the first sample that can be made
non-contiguous, when OpInfo has none), then spread over the rest — become ONE program calling
info.op once per sample. Tensors anywhere in a sample's input, args and kwargs
become program inputs (a non-contiguous one as its storage plus an as_strided
view inside the graph, so the kernel sees its strides); Python scalars and
other values stay constants. Runs, comparisons, the pool and the verdict are
harness.py's, shared with sweep.py.

Status of a cell: ok, mismatch, eir: missing op (the missing ATen ops are
named), eir: error, torch: unsupported (info.supported_dtypes('cpu') leaves
the dtype out), export fails (torch.export cannot export or save any
sample: not eir's problem), not sampled (OpInfo gives no sample in the dtype).
Outputs of random ops (a nondeterministic_seeded op in the graph) and of
uninitialized memory (empty*) are compared by shape and dtype only; outputs
that are not unique (SVD, QR, eigen-decompositions: signs and phases) by the
invariants of NONUNIQUE.

    python3 python/ops/opinfo_sweep.py [--only NAME ...] [--dtypes f32,i64|all]
                                       [--jobs 2] [--doc docs/OPS-EXPORTED.md] [-v]

Dtypes: by default the ones of DEFAULT_DTYPES plus, per OpInfo, one more of
the others chosen by a hash of its name (so every dtype is covered across
OpInfos, and a run stays within the test budget); --dtypes all for all 12.
Exits 1 if a mismatch or eir error is not excused by
python/ops/known_gaps_opinfo.txt, or if that list names a gap that no longer
fails. Missing ops do not fail: eir refuses such programs clearly at runtime
creation, and the table counts them.
"""
from __future__ import annotations

import functools
import os
import sys
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import harness  # noqa: E402
from harness import REPO, STATUS, render_details  # noqa: E402,F401

GAPS_FILE = os.path.join(HERE, "known_gaps_opinfo.txt")
STATUSES = ("ok", "mismatch", "missing", "error", "unsupported", "export", "not-sampled")
# missing ops are not failures here: see the module docstring
FAILING = ("mismatch", "error")
LABELS = {"missing": "eir: missing op", "export": "export fails"}
CAP = 6            # samples per cell
SCAN = 40          # samples read from OpInfo's generator to choose from
# always swept; EXTRA more per OpInfo are chosen by hash (dtypes_for)
DEFAULT_DTYPES = ("f32", "bf16", "i64")
EXTRA = 1
# the sampled sweep of `make test` (dtypes "sample"): float32 and one of these per OpInfo
SAMPLE_PICK = ("bf16", "i64")


# ---------------------------------------------------------------------------
# the OpInfo database
# ---------------------------------------------------------------------------

_DB = None


def opinfos():
    """{key: OpInfo}, key = name or name.variant_test_name (unique in op_db)."""
    global _DB
    if _DB is None:
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from torch.testing._internal.common_methods_invocations import op_db
        db = {}
        for info in op_db:
            key = info.name + (f".{info.variant_test_name}" if info.variant_test_name else "")
            assert key not in db, f"two OpInfos named {key}"
            db[key] = info
        _DB = db
    return _DB


def supported(info):
    """The dtype names of samples.DTYPES torch supports for the OpInfo on CPU."""
    from samples import DTYPES
    sup = info.supported_dtypes("cpu")
    return [n for n, dt in DTYPES.items() if dt in sup]


def dtypes_for(key, choice=None, sup=None):
    """The dtypes swept for an OpInfo: `choice` (a list of names, or "all"),
    by default DEFAULT_DTYPES plus EXTRA others, chosen by a hash of the key
    among the ones torch supports for it (`sup`)."""
    from samples import DTYPES
    if choice == "all":
        return list(DTYPES)
    if choice == "sample":
        # `make test`: float32, and bfloat16 or int64 by a hash of the key (the
        # Core ATen sweep's sample covers the other dtypes op by op)
        gaps = _gaps()
        if (key, "*") in {(k, dt) for (k, dt, _) in gaps}:
            return dtypes_for(key, None, sup)  # a gap in any dtype: the default sweep's dtypes
        pick = SAMPLE_PICK[zlib.crc32(key.encode()) % len(SAMPLE_PICK)]
        avail = [d for d in DTYPES if sup is None or d in sup]
        return harness.sample_dtypes(key, ("f32", pick), 0, gaps, avail)
    if choice:
        return list(choice)
    rest = [d for d in (sup if sup is not None else DTYPES) if d not in DEFAULT_DTYPES]
    h = zlib.crc32(key.encode())
    extra = set()
    while rest and len(extra) < EXTRA:
        extra.add(rest.pop(h % len(rest)))
        h //= 7
    return [d for d in DTYPES if d in DEFAULT_DTYPES or d in extra]


# ---------------------------------------------------------------------------
# OpInfo samples -> samples.Sample with program inputs
# ---------------------------------------------------------------------------

def _leaves(x):
    import torch
    if isinstance(x, torch.Tensor):
        yield x
    elif isinstance(x, (list, tuple)):
        for y in x:
            yield from _leaves(y)
    elif isinstance(x, dict):
        for y in x.values():
            yield from _leaves(y)


def _tensors(si):
    return list(_leaves((si.input, si.args, si.kwargs)))


def _as_input(t):
    """A program input for tensor t: a contiguous copy, or for a non-contiguous
    t a copy of the storage span it covers, viewed with t's sizes and strides
    inside the graph."""
    from samples import In
    t = t.detach()
    if t.is_contiguous():
        return In(t.clone())
    span = 1 + sum((n - 1) * s for n, s in zip(t.shape, t.stride())) if t.numel() else 0
    base = t.as_strided((span,), (1,), t.storage_offset()).clone()
    size, stride = tuple(t.shape), tuple(t.stride())
    return In(base, lambda b: b.as_strided(size, stride, 0))


def _convert(x):
    """x with every tensor replaced by a program input (containers that hold
    none are kept as they are: torch.Size, named tuples)."""
    import torch
    if isinstance(x, torch.Tensor):
        return _as_input(x)
    if isinstance(x, (list, tuple)) and any(True for _ in _leaves(x)):
        return type(x)(_convert(y) for y in x) if type(x) in (list, tuple) else tuple(_convert(y) for y in x)
    if isinstance(x, dict) and any(True for _ in _leaves(x)):
        return {k: _convert(v) for k, v in x.items()}
    return x


def _describe(si):
    """A short description of a sample's tensors, for the details file."""
    def one(t):
        d = f"{str(t.dtype).replace('torch.', '')}{list(t.shape)}"
        return d + ("nc" if not t.is_contiguous() else "")
    ts = _tensors(si)
    s = ", ".join(one(t) for t in ts[:4]) + (", ..." if len(ts) > 4 else "")
    extra = [repr(a) for a in si.args if not any(True for _ in _leaves(a))][:3]
    extra += [f"{k}={v!r}" for k, v in si.kwargs.items() if not any(True for _ in _leaves(v))][:3]
    return (s + ("; " + ", ".join(extra) if extra else ""))[:160]


def choose(samples, cap=CAP):
    """Indices of up to cap samples: the first; the first with an empty
    tensor, with a 0-d tensor, with a non-contiguous tensor; then spread
    evenly over the others (in order)."""
    if not samples:
        return []
    picked = [0]

    def first(pred):
        for k, si in enumerate(samples):
            if k not in picked and pred(_tensors(si)):
                picked.append(k)
                return

    first(lambda ts: any(t.numel() == 0 for t in ts))
    first(lambda ts: any(t.dim() == 0 for t in ts))
    first(lambda ts: any(not t.is_contiguous() for t in ts))
    rest = [k for k in range(len(samples)) if k not in picked]
    room = cap - len(picked)
    if room > 0 and rest:
        step = len(rest) / room
        picked += sorted({rest[int(i * step)] for i in range(min(room, len(rest)))})
    return sorted(picked[:cap])


class SampleError(Exception):
    pass


def cell_samples(info, key, dtype):
    """The samples.Sample list of one cell (labels sK: K-th of OpInfo's
    samples; sK-nc: the K-th made non-contiguous), {label: description}
    and {label: OpInfo's SampleInput}."""
    import itertools
    import torch
    from samples import DTYPES, Sample
    torch.manual_seed(zlib.crc32(f"{key}/{dtype}".encode()))
    try:
        raw = list(itertools.islice(info.sample_inputs("cpu", dtype, requires_grad=False), SCAN))
    except Exception as e:  # noqa: BLE001  (OpInfo's own sample generator fails)
        raise SampleError(harness._short(e, 200)) from e
    # eir's programs take strided tensors of its 12 dtypes (.npy I/O)
    raw = [si for si in raw if all(t.layout == torch.strided and t.dtype in DTYPES.values() for t in _tensors(si))]
    idx = choose(raw)
    chosen = [(f"s{k}", raw[k]) for k in idx]
    if not any(not t.is_contiguous() for k in idx for t in _tensors(raw[k])):
        # the first sample OpInfo can make non-contiguous (not a 0-d one), made so
        for k, si in enumerate(raw):
            try:
                nc = si.noncontiguous()
            except Exception:  # noqa: BLE001  (a sample OpInfo cannot make non-contiguous)
                continue
            if any(not t.is_contiguous() for t in _tensors(nc)):
                # room for it among the spread samples, not the edge cases
                chosen = [(f"s{j}", raw[j]) for j in choose(raw, CAP - 1)] + [(f"s{k}-nc", nc)]
                break
    out, desc, raws = [], {}, {}
    for label, si in chosen:
        out.append(Sample(label, _convert(si.input), *[_convert(a) for a in si.args],
                          **{k: _convert(v) for k, v in si.kwargs.items()}))
        desc[label] = _describe(si)
        raws[label] = si
    return out, desc, raws


# ---------------------------------------------------------------------------
# outputs that are not unique: invariants instead of values
# ---------------------------------------------------------------------------

def _close(a, b, dtype):
    """None if arrays a and b agree within the tolerance of torch dtype `dtype`."""
    import numpy as np
    rtol, atol = harness._tolerance(dtype)
    # products of factors lose a few digits more than the factors themselves
    rtol, atol = rtol * 10, atol * 10
    if a.shape != b.shape:
        return f"shape {a.shape}, torch {b.shape}"
    bad = ~np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
    if bad.any():
        i = tuple(int(x) for x in np.argwhere(bad)[0])
        return f"{int(bad.sum())} of {bad.size} elements differ, first at {list(i)}: eir {a[i]!r}, torch {b[i]!r}"
    return None


def _np(t):
    return harness.to_numpy(t).astype(t.dtype.is_complex and "complex128" or "float64")


def _svd_check(v_is_vh):
    """linalg.svd (U, S, Vh) / svd (U, S, V): S by value; U diag(S) Vh by value
    over the first k = min(m, n) singular vectors (signs and, for repeated
    singular values, bases are LAPACK's choice)."""
    def check(si, got, want):
        import numpy as np
        if len(got) != 3:
            return f"{len(got)} outputs, torch 3"
        bad = harness.compare_leaf(got[1], want[1])
        if bad:
            return f"S: {bad}"
        if want[0].numel() == 0 or not want[0].abs().sum():  # compute_uv=False: zeros
            for k in (0, 2):
                bad = harness.compare_leaf(got[k], want[k])
                if bad:
                    return f"output {k}: {bad}"
            return None

        def rebuild(u, s, v):
            k = s.shape[-1]
            v = np.conj(np.swapaxes(v, -1, -2)) if not v_is_vh else v
            return (u[..., :, :k] * s[..., None, :]) @ v[..., :k, :]
        a = rebuild(got[0].astype(np.complex128), got[1].astype(np.float64), got[2].astype(np.complex128))
        b = rebuild(*(_np(w) for w in want))
        bad = _close(a, b, want[0].dtype)
        return f"U diag(S) Vh: {bad}" if bad else None
    return check


def _eigh_check(si, got, want):
    """linalg.eigh (L, Q): L by value; Q diag(L) Q^H by value (eigenvector
    signs/phases are LAPACK's choice)."""
    import numpy as np
    bad = harness.compare_leaf(got[0], want[0])
    if bad:
        return f"eigenvalues: {bad}"

    def rebuild(lam, q):
        return (q * lam[..., None, :]) @ np.conj(np.swapaxes(q, -1, -2))
    bad = _close(rebuild(got[0].astype(np.float64), got[1].astype(np.complex128)),
                 rebuild(*(_np(w) for w in want)), want[1].dtype)
    return f"Q diag(L) Q^H: {bad}" if bad else None


def _qr_check(si, got, want):
    """qr / linalg.qr (Q, R): Q R by value, R upper triangular, |diag R| by
    value (the signs of R's rows and Q's columns are LAPACK's choice)."""
    import numpy as np
    q, r = got[0].astype(np.complex128), got[1].astype(np.complex128)
    if q.size == 0 or r.size == 0:  # mode="r" gives an empty Q
        for k in range(2):
            bad = harness.compare_meta(got[k], want[k])
            if bad:
                return f"output {k}: {bad}"
        if r.size and not want[1].numel() == 0:
            bad = _close(np.abs(r), np.abs(_np(want[1])), want[1].dtype)
            return f"|R|: {bad}" if bad else None
        return None
    if np.abs(np.tril(r, -1)).max(initial=0) > 0:
        return "R is not upper triangular"
    qw, rw = _np(want[0]), _np(want[1])
    bad = _close(q @ r, qw @ rw, want[0].dtype)
    return f"Q R: {bad}" if bad else None


def _eig_check(si, got, want):
    """linalg.eig (L, V): L by value (LAPACK's geev order, as torch's); each
    column of V by value once its phase is fixed (its largest element made
    real and positive), since an eigenvector's phase is LAPACK's choice."""
    import numpy as np
    bad = harness.compare_leaf(got[0], want[0])
    if bad:
        return f"eigenvalues: {bad}"

    def unphase(v):
        v = v.astype(np.complex128)
        if v.size == 0:
            return v
        i = np.argmax(np.abs(v), axis=-2)[..., None, :]
        p = np.take_along_axis(v, i, axis=-2)
        return v * (np.conj(p) / np.where(np.abs(p) == 0, 1, np.abs(p)))
    bad = _close(unphase(got[1]), unphase(_np(want[1])), want[1].dtype)
    return f"eigenvectors (phase fixed): {bad}" if bad else None


def _eigvals_check(si, got, want):
    """linalg.eigvals: the eigenvalues as a multiset (their order is LAPACK's)."""
    import numpy as np

    def key(x):
        x = x.astype(np.complex128)
        return np.sort_complex(np.round(x.reshape(-1, x.shape[-1]), 6)) if x.size else x
    return _close(key(got[0]), key(_np(want[0])), want[0].dtype)


def _dim(si, pos, default=-1):
    """The dim argument of a sample: positional argument `pos` or kwarg dim."""
    if len(si.args) > pos and isinstance(si.args[pos], int) and not isinstance(si.args[pos], bool):
        return si.args[pos]
    return si.kwargs.get("dim", default)


def _ties_check(values, indices, dim_pos):
    """sort / argsort / topk: with equal elements, which index comes first is
    the algorithm's choice (torch's unstable CPU sort is not stable), so
    compare the values, and the input's elements eir's indices pick with the
    ones torch's pick. values, indices: output positions (None: absent)."""
    def check(si, got, want):
        import numpy as np
        if len(got) != len(want):
            return f"{len(got)} outputs, torch {len(want)}"
        if values is not None:
            bad = harness.compare_leaf(got[values], want[values])
            if bad:
                return f"values: {bad}"
        x = harness.to_numpy(si.input)
        mine, theirs = got[indices], harness.to_numpy(want[indices])
        if mine.shape != theirs.shape or mine.dtype != theirs.dtype:
            return f"indices: shape/dtype {mine.shape} {mine.dtype}, torch {theirs.shape} {theirs.dtype}"
        if x.ndim == 0:
            return None if np.array_equal(mine, theirs) else f"indices: eir {mine!r}, torch {theirs!r}"
        d = _dim(si, dim_pos)
        try:
            a = np.take_along_axis(x, mine.astype(np.int64), axis=d)
        except IndexError as e:
            return f"indices out of range: {e}"
        b = np.take_along_axis(x, theirs.astype(np.int64), axis=d)
        same = (a == b) | ((a != a) & (b != b))
        if not same.all():
            i = tuple(int(v) for v in np.argwhere(~same)[0])
            return f"indices pick other elements, first at {list(i)}: eir's pick {a[i]!r}, torch's {b[i]!r}"
        return None
    return check


# OpInfo name -> check(sample, got, want): outputs that are not unique
NONUNIQUE = {
    "linalg.svd": _svd_check(True),
    "svd": _svd_check(False),
    "linalg.eigh": _eigh_check,
    "qr": _qr_check,
    "linalg.qr": _qr_check,
    "linalg.eigvals": _eigvals_check,
    "linalg.eig": _eig_check,
    "sort": _ties_check(0, 1, 0),
    "argsort": _ties_check(None, 0, 0),
    "topk": _ties_check(0, 1, 1),
}
# OpInfos whose outputs have no reference value: uninitialized memory
UNINITIALIZED = ("empty", "empty_like", "new_empty", "new_empty_strided", "empty_strided", "empty_permuted",
                 "nn.functional.dropout", "nn.functional.alpha_dropout", "nn.functional.feature_alpha_dropout")


# ---------------------------------------------------------------------------
# one (OpInfo, dtype)
# ---------------------------------------------------------------------------

def graph_ops(ep, flat_views):
    """The ATen ops of the graph, without the as_strided views the harness puts
    on non-contiguous inputs (flat_views: indices of those inputs)."""
    import torch
    user = [s.arg.name for s in ep.graph_signature.input_specs
            if s.kind == torch.export.graph_signature.InputKind.USER_INPUT]
    viewed = {user[k] for k in flat_views if k < len(user)}
    ops = set()
    for n in ep.graph.nodes:
        if n.op != "call_function":
            continue
        t = n.target
        if t is torch.ops.aten.as_strided.default and n.args and getattr(n.args[0], "name", None) in viewed:
            continue
        if isinstance(t, torch._ops.OpOverload):
            ops.add(str(t).replace("aten::", "aten.").replace("::", "."))
        elif isinstance(t, torch._ops.HigherOrderOperator):
            ops.add(f"higher_order.{t.name()}")
    return sorted(ops)


# dtypes in which a cell eir lacks only ops with a default decomposition for
# is run again as ep.run_decompositions() rewrites it (--decomp; spawned
# workers read the environment)
DECOMP = set(filter(None, os.environ.get("EIR_OPINFO_DECOMP", "").split(",")))


def _decomposes(name):
    """Whether ep.run_decompositions() rewrites the op ("aten.einsum.default"):
    eir's hint at runtime creation says so for these: non-core ops with a default
    decomposition (EIR_OPF_DECOMP), and in-place ops, which its functionalization
    turns into their functional forms (EIR_OPF_FUNCTIONAL: sigmoid_ -> sigmoid)."""
    import torch
    try:
        _, opname, ov = name.split(".")
        op = getattr(getattr(torch.ops.aten, opname), ov)
    except (ValueError, AttributeError):
        return False
    if torch.Tag.core not in op.tags and op in _default_decomps():
        return True
    s = op._schema
    inplace = s.arguments and s.arguments[0].alias_info is not None and s.arguments[0].alias_info.is_write
    func = getattr(getattr(torch.ops.aten, opname[:-1], None), ov, None) if opname.endswith("_") else None
    return bool(inplace and func is not None
                and [a.name for a in func._schema.arguments] == [a.name for a in s.arguments])


@functools.lru_cache(None)
def _default_decomps():
    import torch
    return torch.export.default_decompositions()


def run_one(key, dt_name, eir, workdir):
    """Status of one (OpInfo, dtype): a dict with status, msg, samples, bad,
    aten_ops (the ATen ops of the exported graph), missing_ops, seconds."""
    import torch
    from samples import DTYPES, materialize

    t0 = time.time()
    res = harness.new_result(key, dt_name)
    res["aten_ops"] = []

    def done(status, msg=""):
        res.update(status=status, msg=msg, seconds=round(time.time() - t0, 3))
        return res

    info = opinfos()[key]
    if dt_name not in supported(info):
        return done("unsupported", "OpInfo: torch does not support the dtype on CPU")
    try:
        samples, desc, raws = cell_samples(info, key, DTYPES[dt_name])
    except SampleError as e:
        return done("not-sampled", f"sample_inputs fails: {e}")
    if not samples:
        return done("not-sampled", "OpInfo gives no samples eir's programs can take (strided tensors of the 12 dtypes)")
    res["desc"] = desc
    # samples torch itself refuses (OpInfo's non-contiguous variant of an op
    # that needs contiguous input...) are left out
    kept = []
    for s in samples:
        try:
            with torch.no_grad():
                info.op(*materialize(s.args, lambda i: i.value()),
                        **{k: materialize(v, lambda i: i.value()) for k, v in s.kwargs.items()})
            kept.append(s)
        except Exception as e:  # noqa: BLE001  (torch's refusal is data here)
            res["refused"].append(f"{s.label}: {harness._short(e, 160)}")
    if not kept:
        return done("unsupported", "torch refuses every sample: " + res["refused"][0])
    res["samples"] = len(kept)

    def inspect(ep, kept_now):
        flat_views = [k for k, i in enumerate(i for s in kept_now for i in s.inputs()) if i.view]
        res["aten_ops"] = graph_ops(ep, flat_views)
        random = any(isinstance(n.target, torch._ops.OpOverload) and torch.Tag.nondeterministic_seeded in n.target.tags
                     for n in ep.graph.nodes if n.op == "call_function")
        if random or info.name in UNINITIALIZED:
            res["checked"] = "shape and dtype (random or uninitialized output)"
            for s in kept_now:
                s.check = "meta"
        elif info.name in NONUNIQUE:
            res["checked"] = "invariants (outputs not unique)"
            for s in kept_now:
                s.check = functools.partial(NONUNIQUE[info.name], raws[s.label])
        return None

    status, msg = harness.run_samples(res, info.op, kept, eir, workdir, "export", inspect)
    if status == "missing" and DECOMP and dt_name in DECOMP and all(_decomposes(o) for o in res.get("missing_ops", ["?"])):
        # does eir's hint hold? the program as ep.run_decompositions() rewrites it
        r2 = harness.new_result(key, dt_name)
        st2, msg2 = harness.run_samples(r2, info.op, kept, eir, workdir, "export",
                                        transform=lambda ep: ep.run_decompositions())
        res["decomp"] = {"status": st2, "msg": msg2, "missing_ops": r2.get("missing_ops", []), "bad": r2["bad"][:3]}
    # name the samples in the per-sample problems
    res["bad"] = [f"{b.split(': ', 1)[0]}: {b.split(': ', 1)[1]} [{desc.get(b.split(': ', 1)[0], '')}]"
                  if ": " in b else b for b in res["bad"]]
    return done(status, msg)


def tasks_for(keys=None, dtypes=None, eir=None, workdir=None):
    db = opinfos()
    keys = keys or sorted(db)
    unknown = [k for k in keys if k not in db]
    if unknown:
        raise SystemExit(f"opinfo_sweep: no OpInfo named {', '.join(unknown)}")
    return [("opinfo_sweep:run_one", k, d, eir, workdir) for k in keys
            for d in dtypes_for(k, dtypes, supported(db[k]))]


def sweep(keys=None, dtypes=None, jobs=2, eir=None, progress=None):
    """Results of every (OpInfo, dtype): {(key, dtype): result dict}."""
    eir = eir or harness.default_eir()
    tasks = tasks_for(keys, dtypes, eir, "")  # import op_db and check the keys before starting workers
    return harness.run_cells(lambda wd: [t[:4] + (wd,) for t in tasks], jobs, progress, timeout=180, prefix="eir-opinfo-")


# ---------------------------------------------------------------------------
# known gaps, the verdict and the table
# ---------------------------------------------------------------------------

def load_gaps(path=GAPS_FILE):
    return harness.load_gaps(path)


@functools.lru_cache(maxsize=None)
def _gaps():
    return load_gaps()


def judge(results, gaps):
    return harness.judge(results, gaps, FAILING, "known_gaps_opinfo.txt")


def summary_counts(results):
    return harness.summary_counts(results, STATUSES)


def blocking(results):
    """{missing ATen op: sorted OpInfo keys with a cell that lacks it}."""
    out = {}
    for (key, _), r in results.items():
        if r["status"] == "missing":
            for op in r.get("missing_ops") or ["(unnamed)"]:
                out.setdefault(op, set()).add(key)
    return {op: sorted(ks) for op, ks in out.items()}


def render_table(results, gaps, seconds=None, dtype_note=None):
    import torch
    from samples import DTYPES
    keys = sorted({k for k, _ in results})
    dts = [d for d in DTYPES if any((k, d) in results for k in keys)]
    counts = summary_counts(results)
    L = ["# Ops as exported programs contain them (OpInfo sweep)", "",
         f"Generated by `make ops-doc` (`python/ops/opinfo_sweep.py`) from one run against torch "
         f"{torch.__version__}. Programs exported with `torch.export.export` and not decomposed contain "
         "non-core ATen ops too (`einsum`, `pad`, `var_mean`, `linalg_*`, losses...); this sweep exports every "
         "OpInfo of torch's `op_db` as a user would, on up to "
         f"{CAP} of torch's own samples per dtype (the first, one with an empty, a 0-d and a non-contiguous "
         "tensor where OpInfo has them, otherwise the first sample that can be made non-contiguous made so), runs "
         "the program in eir and compares with `ep.module()` within `python/tests/tolerances.py`. Random and uninitialized "
         "outputs are compared by shape and dtype; SVD, QR and eigen-decompositions by invariants "
         "(`NONUNIQUE` in the script). `make test` regenerates this page as `build/OPS-EXPORTED.md` and "
         "fails on a mismatch or eir error not listed in `python/ops/known_gaps_opinfo.txt`; a missing op "
         "does not fail (eir refuses the program at runtime creation, naming it) but is counted below.", ""]
    if dtype_note:
        L += [dtype_note, ""]
    L += ["Legend:", ""]
    L += [f"- `{STATUS[k][0]}` {LABELS.get(k, STATUS[k][1]) if k in LABELS else STATUS[k][1]}" for k in STATUSES]
    L.append("")
    total = len(results)
    tested = total - counts["unsupported"] - counts["export"] - counts["not-sampled"]
    L.append(f"Summary: {total} (OpInfo, dtype) cells over {len(keys)} OpInfos; torch supports, samples and "
             f"exports {tested} of them, and eir matches it on {counts['ok']}. The others: " +
             ", ".join(f"{counts[k]} {label}" for k, label in (
                 ("mismatch", "mismatch"), ("missing", "eir: missing op"), ("error", "eir: error"),
                 ("export", "export fails"), ("not-sampled", "not sampled"),
                 ("unsupported", "torch: unsupported"))) + "." +
             (f" Sweep time {seconds:.0f} s." if seconds else ""))
    L.append("")
    blocked = blocking(results)
    if blocked:
        L += ["## Missing ATen ops, by the number of OpInfos they block", "",
              "A priority list for kernel work: each op eir lacks, with the OpInfos that have a cell needing it.", "",
              "| ATen op | OpInfos | which |", "|---|--:|---|"]
        for op, ks in sorted(blocked.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            shown = ", ".join(f"`{k}`" for k in ks[:8]) + (f", ... ({len(ks) - 8} more)" if len(ks) > 8 else "")
            L.append(f"| `{op}` | {len(ks)} | {shown} |")
        L.append("")
    dec = [(k, d, r["decomp"]) for (k, d), r in sorted(results.items()) if r.get("decomp")]
    if dec:
        runs = [x for x in dec if x[2]["status"] == "ok"]
        left = {}
        for k, d, x in dec:
            for op in x["missing_ops"]:
                left.setdefault(op, []).append(k)
        other = [x for x in dec if x[2]["status"] not in ("ok", "missing")]
        L += ["## After ep.run_decompositions()", "",
              "When every operator a program lacks is a non-core ATen op torch has a default decomposition for, "
              "eir's refusal adds a hint: export with `ep.run_decompositions()`. Whether that helps, measured "
              f"on the {', '.join(sorted({d for _, d, _ in dec}))} cells where it applies: of {len(dec)} such "
              f"cells, {len(runs)} run in eir and match torch once decomposed; {len(dec) - len(runs) - len(other)} "
              f"still lack operators; {len(other)} fail otherwise.", ""]
        if left:
            L += ["Operators the decomposed programs still lack (the decompositions lead to them):", ""]
            for op, ks in sorted(left.items(), key=lambda kv: (-len(kv[1]), kv[0])):
                L.append(f"- `{op}` ({len(ks)}): " + ", ".join(f"`{k}`" for k in ks[:8]) + (" ..." if len(ks) > 8 else ""))
            L.append("")
        if other:
            L += ["Decomposed programs that fail otherwise:", ""]
            for k, d, x in other:
                L.append(f"- `{k}` {d}: {x['status']}: {(x['bad'][0] if x['bad'] else x['msg'])[:200]}")
            L.append("")
    L += ["## OpInfo x dtype", "",
          "The last column: the ATen ops of the exported graph (from the first dtype that exported).", "",
          "| OpInfo | " + " | ".join(dts) + " | ATen ops |", "|---|" + "|".join(":-:" for _ in dts) + "|---|"]
    for k in keys:
        cells, ops = [], None
        for d in dts:
            r = results.get((k, d))
            cells.append(STATUS[r["status"]][0] if r else "")
            if r and r.get("aten_ops") and ops is None:
                ops = r["aten_ops"]
        shown = ", ".join(o.replace("aten.", "") for o in (ops or [])[:6]) + (", ..." if ops and len(ops) > 6 else "")
        L.append(f"| `{k}` | " + " | ".join(cells) + f" | {shown} |")
    fails = [(k, d, r) for (k, d), r in sorted(results.items()) if r["status"] in FAILING]
    if fails:
        L += ["", "## Mismatches and eir errors", ""]
        for k, d, r in fails:
            listed = harness.excused(gaps, k, d, r)
            why = f" — known gap: {gaps[listed[0]]}" if listed else ""
            L.append(f"- `{k}` {d} ({', '.join(o.replace('aten.', '') for o in r.get('aten_ops', []))}): "
                     f"{(r['bad'][0] if r['bad'] else r['msg'])[:300]}{why}")
    exp = {}
    for (k, d), r in sorted(results.items()):
        if r["status"] == "export":
            exp.setdefault((k, r["msg"][:200]), []).append(d)
    if exp:
        L += ["", "## Export fails", "", "torch.export cannot export these (not eir's problem):", ""]
        for (k, msg), ds in exp.items():
            L.append(f"- `{k}` ({', '.join(ds)}): {msg}")
    return "\n".join(L) + "\n"


DTYPE_NOTE = ("Dtypes: every OpInfo in " + ", ".join(DEFAULT_DTYPES) + " and one more of the other dtypes, chosen "
              "by a hash of its name (`dtypes_for` in the script), so `make test` stays within its time budget "
              "while every dtype is covered across OpInfos. `opinfo_sweep.py --dtypes all` sweeps all 12.")
SAMPLE_NOTE = ("Dtypes: the sample `make test` runs: every OpInfo in float32 and in bfloat16 or int64, chosen by a "
               "hash of its name, and the dtypes the known-gaps list names for it. `make test-sweeps` runs the dtypes "
               "of docs/OPS-EXPORTED.md.")


def main(argv=None):
    ap = harness.cli_parser(__doc__, "OpInfo keys (name or name.variant)", "OPS-EXPORTED.md", "opinfo_details.txt",
                            "comma-separated dtypes (f32,i64,...), or 'all'")
    ap.add_argument("--decomp", help="comma-separated dtypes in which to rerun cells missing only decomposable "
                                      "ops after ep.run_decompositions() (the table reports it)")
    a = ap.parse_args(argv)
    if a.decomp:
        os.environ["EIR_OPINFO_DECOMP"] = a.decomp  # spawned workers read it at import
        DECOMP.update(a.decomp.split(","))
    t0 = time.time()

    dtypes = a.dtypes if a.dtypes == "all" else (a.dtypes.split(",") if a.dtypes else None)
    results = sweep(a.only, dtypes, a.jobs, progress=harness.progress_printer(a.verbose, FAILING))
    secs = time.time() - t0
    gaps = load_gaps()
    harness.write_reports(results, render_table(results, gaps, secs, None if dtypes else DTYPE_NOTE),
                          (a.table, a.doc), a.details)
    return harness.finish(results, secs, summary_counts(results), judge(results, gaps))


if __name__ == "__main__":
    sys.exit(main())
