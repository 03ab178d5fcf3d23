"""Ops as users' programs contain them: every OpInfo of torch's op_db,
exported with torch.export.export (no run_decompositions()), run in eir and
compared with torch (python/ops/opinfo_sweep.py; shared machinery in
python/ops/harness.py).

The sweep runs once per session (two worker processes) and writes the
OpInfo x dtype table to build/OPS-EXPORTED.md (details of every cell that is
not ok in build/opinfo_details.txt). One test per OpInfo fails when a cell of
it is a mismatch or an eir error that python/ops/known_gaps_opinfo.txt does
not excuse, or when the list excuses a cell that now passes. Cells whose
program needs an operator eir lacks do not fail (eir refuses them at runtime
creation, naming the operators); the table counts them. The other tests here
check the harness itself: sample choice, the invariant checks of outputs that
are not unique, and eir's hint for non-core operators.

By default the sweep is sampled (`make test`): every OpInfo in float32 and in
bfloat16 or int64 (chosen by a hash of its name), and the dtypes
python/ops/known_gaps_opinfo.txt names for it. `make test-sweeps`
(EIR_OPINFO_DTYPES=default) runs the dtypes of docs/OPS-EXPORTED.md: float32,
bfloat16, int64 and one more per OpInfo.

Environment: EIR_BIN (the eir binary), EIR_OPINFO_ONLY="einsum nn.functional.pad.constant"
to restrict the sweep, EIR_OPINFO_DTYPES="sample" (the default), "default",
"all" or "f32,i64" to change its dtypes.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")
pytest.importorskip("expecttest")  # torch's OpInfo database imports it

from conftest import REPO, eir_bin  # noqa: E402

OPS_DIR = os.path.join(REPO, "python", "ops")
if OPS_DIR not in sys.path:
    sys.path.insert(0, OPS_DIR)

import harness  # noqa: E402
import opinfo_sweep  # noqa: E402


def _keys():
    only = os.environ.get("EIR_OPINFO_ONLY", "").replace(",", " ").split()
    return only or sorted(opinfo_sweep.opinfos())


def _dtypes():
    d = os.environ.get("EIR_OPINFO_DTYPES", "sample")
    return None if d == "default" else d if d in ("all", "sample") else d.split(",")


def _eir():
    b = eir_bin()
    if not (os.path.isfile(b) and os.access(b, os.X_OK)):
        pytest.skip(f"eir binary not found at {b}")
    return b


@pytest.fixture(scope="session")
def opinfo_results():
    b = _eir()
    t0 = time.time()
    results = opinfo_sweep.sweep(_keys(), _dtypes(), jobs=2, eir=b)
    secs = time.time() - t0
    gaps = opinfo_sweep.load_gaps()
    build = os.path.join(REPO, "build")
    harness.write_reports(results, opinfo_sweep.render_table(results, gaps, secs, {None: opinfo_sweep.DTYPE_NOTE, "sample": opinfo_sweep.SAMPLE_NOTE}.get(_dtypes()) if not isinstance(_dtypes(), list) else None),
                          [os.path.join(build, "OPS-EXPORTED.md")], os.path.join(build, "opinfo_details.txt"))
    counts = opinfo_sweep.summary_counts(results)
    print(f"\n[eir opinfo] {len(results)} cells in {secs:.0f} s: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    return results, gaps


def test_known_gaps_name_real_opinfos():
    from samples import DTYPES
    db = opinfo_sweep.opinfos()
    for (key, dt, _), reason in opinfo_sweep.load_gaps().items():
        assert key in db, f"known_gaps_opinfo.txt names {key}, which is not an OpInfo of this torch"
        assert dt == "*" or dt in DTYPES, f"known_gaps_opinfo.txt: unknown dtype {dt} for {key}"
        assert reason.strip(), f"known_gaps_opinfo.txt: {key} {dt} has no reason"


def test_dtype_choice_is_stable_and_covers_every_dtype():
    from samples import DTYPES
    db = opinfo_sweep.opinfos()
    chosen = {k: opinfo_sweep.dtypes_for(k, None, opinfo_sweep.supported(info)) for k, info in db.items()}
    assert chosen == {k: opinfo_sweep.dtypes_for(k, None, opinfo_sweep.supported(info)) for k, info in db.items()}
    for k, ds in chosen.items():
        assert set(opinfo_sweep.DEFAULT_DTYPES) <= set(ds), k
    assert set().union(*chosen.values()) == set(DTYPES)  # every dtype is swept for some OpInfo
    assert opinfo_sweep.dtypes_for("add", "all") == list(DTYPES)


def test_sample_choice_takes_edge_cases():
    """The chosen samples of a cell include an empty and a 0-d tensor where
    OpInfo has them, and a non-contiguous one (the first sample that can be
    made non-contiguous, made so, when OpInfo has none), and become program
    inputs with their strides."""
    info = opinfo_sweep.opinfos()["add"]
    samples, desc, raws = opinfo_sweep.cell_samples(info, "add", torch.float32)
    assert 1 < len(samples) <= opinfo_sweep.CAP
    ts = [t for s in samples for t in opinfo_sweep._tensors(raws[s.label])]
    assert any(t.numel() == 0 for t in ts) and any(t.dim() == 0 for t in ts)
    assert any(not t.is_contiguous() for t in ts)
    assert samples[0].label == "s0" and set(desc) == {s.label for s in samples}
    assert samples[-1].label.endswith("-nc")  # add's samples are all contiguous; s0 is 0-d
    # a non-contiguous tensor travels as its storage span, viewed inside the graph
    nc = next(s for s in samples if any(not t.is_contiguous() for t in opinfo_sweep._tensors(raws[s.label])))
    inp = next(i for i in nc.inputs() if i.view)
    t = next(t for t in opinfo_sweep._tensors(raws[nc.label]) if not t.is_contiguous())
    assert inp.base.is_contiguous() and inp.base.dim() == 1
    assert torch.equal(inp.view(inp.base), t) and inp.view(inp.base).stride() == t.stride()


def test_choose_spreads_over_the_rest():
    plain = [torch.ones(2)] * 30
    raw = [type("S", (), {"input": x, "args": (), "kwargs": {}})() for x in plain]
    picked = opinfo_sweep.choose(raw, cap=6)
    assert picked[0] == 0 and len(picked) == 6 and picked == sorted(set(picked)) and picked[-1] > 15


def _sample(x, *args, **kwargs):
    from torch.testing._internal.opinfo.core import SampleInput
    return SampleInput(x, args=args, kwargs=kwargs)


def test_ties_check_accepts_any_order_of_equal_elements():
    x = torch.tensor([[1, 0, 1, 0, 1], [2, 2, 2, 1, 1]])
    si = _sample(x, 1)
    want = torch.sort(x, 1)
    check = opinfo_sweep.NONUNIQUE["sort"]
    # another order of the equal elements: fine
    other = torch.tensor([[3, 1, 4, 2, 0], [4, 3, 2, 0, 1]])
    assert check(si, [want.values.numpy(), other.numpy()], list(want)) is None
    # indices that pick other elements: caught
    wrong = torch.tensor([[3, 1, 4, 2, 0], [0, 3, 2, 1, 4]])
    assert "pick other" in check(si, [want.values.numpy(), wrong.numpy()], list(want))
    # wrong values: caught
    assert "values" in check(si, [(want.values + 1).numpy(), other.numpy()], list(want))
    arg = opinfo_sweep.NONUNIQUE["argsort"]
    assert arg(si, [other.numpy()], [want.indices]) is None
    assert arg(si, [wrong.numpy()], [want.indices]) is not None


def test_factorization_checks_accept_other_signs_and_catch_errors():
    torch.manual_seed(0)
    a = torch.randn(4, 3, dtype=torch.float64)
    u, s, vh = torch.linalg.svd(a, full_matrices=False)
    svd = opinfo_sweep.NONUNIQUE["linalg.svd"]
    flip = torch.tensor([1.0, -1.0, 1.0], dtype=torch.float64)
    assert svd(None, [(u * flip).numpy(), s.numpy(), (vh * flip[:, None]).numpy()], [u, s, vh]) is None
    assert svd(None, [(u * flip).numpy(), s.numpy(), vh.numpy()], [u, s, vh]) is not None
    assert svd(None, [u.numpy(), (s * 2).numpy(), vh.numpy()], [u, s, vh]).startswith("S:")
    q, r = torch.linalg.qr(a)
    qr = opinfo_sweep.NONUNIQUE["linalg.qr"]
    assert qr(None, [(q * flip).numpy(), (r * flip[:, None]).numpy()], [q, r]) is None
    assert qr(None, [q.numpy(), (r + 1).numpy()], [q, r]) is not None
    sym = a.T @ a
    lam, vec = torch.linalg.eigh(sym)
    eigh = opinfo_sweep.NONUNIQUE["linalg.eigh"]
    assert eigh(None, [lam.numpy(), (vec * flip).numpy()], [lam, vec]) is None
    assert eigh(None, [lam.numpy(), vec.roll(1, 1).numpy()], [lam, vec]) is not None


def _eir_message(tmp_path, name, fn, x):
    class M(torch.nn.Module):
        def forward(self, x):
            return fn(x)

    ep = torch.export.export(M(), (x,))
    p = tmp_path / f"{name}.pt2"
    torch.export.save(ep, str(p))
    np.save(tmp_path / "x.npy", x.numpy())
    r = subprocess.run([_eir(), "run", str(p), str(tmp_path / "x.npy"), "--out", str(tmp_path / "out")],
                       capture_output=True, text=True, timeout=60)
    return ep, r.stderr if r.returncode else ""


# non-core ops torch decomposes, and ops it has no decomposition for; the
# test takes the first eir lacks (kernels are being written for all of them)
DECOMPOSED = [("gradient", lambda x: torch.gradient(x)[0]), ("einsum", lambda x: torch.einsum("ij,jk->ik", x, x)), ("pad", lambda x: torch.nn.functional.pad(x, (1, 1))),
              ("rms_norm", lambda x: torch.nn.functional.rms_norm(x, [3])),
              ("cosine_similarity", lambda x: torch.nn.functional.cosine_similarity(x, x))]
UNDECOMPOSED = [("unique_dim", lambda x: torch.unique(x, dim=0)),
                ("fractional_max_pool2d", lambda x: torch.nn.functional.fractional_max_pool2d(x[None, None], 2, output_size=(1, 1))),
                ("special_zeta", lambda x: torch.special.zeta(x, x)), ("bincount", lambda x: torch.bincount(x.long().abs())),
                ("cummax", lambda x: torch.cummax(x, 0).values), ("median", lambda x: torch.median(x))]


def _first_missing(tmp_path, candidates):
    x = torch.rand(3, 3)
    for name, fn in candidates:
        ep, msg = _eir_message(tmp_path, name, fn, x)
        if "cannot run yet" in msg:
            return ep, msg
    pytest.skip("eir runs every candidate op now; pick new ones")


def test_hint_names_non_core_ops_torch_decomposes(tmp_path):
    ep, msg = _first_missing(tmp_path, DECOMPOSED)
    op = next(str(n.target).replace("::", ".") for n in ep.graph.nodes if n.op == "call_function")
    assert f"hint: {op} is not a Core ATen op; torch has a decomposition for it: ep.run_decompositions()" in msg, msg
    assert "the other missing operators" not in msg
    # the hint is true: after run_decompositions() the op is gone
    assert op not in {str(n.target).replace("::", ".") for n in ep.run_decompositions().graph.nodes}


def test_no_hint_for_ops_without_decomposition(tmp_path):
    ep, msg = _first_missing(tmp_path, UNDECOMPOSED)
    assert "hint:" not in msg, msg
    ops = {n.target for n in ep.graph.nodes if n.op == "call_function" and hasattr(n.target, "_schema")}
    assert not any(op in torch.export.default_decompositions() for op in ops if torch.Tag.core not in op.tags)


@pytest.mark.parametrize("key", _keys())
def test_opinfo_matches_torch(key, opinfo_results):
    results, gaps = opinfo_results
    cells = {k: r for k, r in results.items() if k[0] == key}
    problems = opinfo_sweep.judge(cells, {k: v for k, v in gaps.items() if k[0] == key})
    assert not problems, "\n".join(problems)
