"""Per-op conformance: every Core ATen forward op of the installed torch in
every dtype, eir against torch (python/ops/sweep.py, samples in
python/ops/samples.py).

The sweep runs once per session (two worker processes) and writes the op x
dtype table to build/OPS.md (and the details of every cell that is not ok to
build/ops_details.txt). One test per op fails when a cell of the op fails
(mismatch, eir error, missing kernel, not sampled) and python/ops/known_gaps.txt
does not excuse it, or when the list excuses a cell that now passes.

By default the sweep is sampled (`make test`): every op in float32, int64 and
bool, two more dtypes per op chosen by a hash of its name (every dtype is
covered across ops), and the dtypes python/ops/known_gaps.txt names for it.
`make test-sweeps` (EIR_OPS_DTYPES=all) runs every op in all 12 dtypes, as
`make ops-doc` does for docs/OPS.md.

Environment: EIR_BIN (the eir binary), EIR_OPS_ONLY="add.Tensor mm.default"
to restrict the sweep, EIR_OPS_DTYPES="sample" (the default), "all" or
"f32,i64".
"""
from __future__ import annotations

import os
import sys
import time

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("numpy")

from conftest import REPO, eir_bin  # noqa: E402

OPS_DIR = os.path.join(REPO, "python", "ops")
if OPS_DIR not in sys.path:
    sys.path.insert(0, OPS_DIR)

import sweep  # noqa: E402


def _ops():
    only = os.environ.get("EIR_OPS_ONLY", "").replace(",", " ").split()
    return only or sweep.core_ops()


def _dtypes():
    d = os.environ.get("EIR_OPS_DTYPES", "sample")
    return d if d in ("sample", "all") else d.split(",")


@pytest.fixture(scope="session")
def op_results():
    b = eir_bin()
    if not (os.path.isfile(b) and os.access(b, os.X_OK)):
        pytest.skip(f"eir binary not found at {b}")
    t0 = time.time()
    results = sweep.sweep(_ops(), _dtypes(), jobs=2, eir=b)
    secs = time.time() - t0
    gaps = sweep.load_gaps()
    build = os.path.join(REPO, "build")
    sweep.harness.write_reports(results, sweep.render_table(results, gaps, secs), [os.path.join(build, "OPS.md")],
                                os.path.join(build, "ops_details.txt"))
    counts = sweep.summary_counts(results)
    print(f"\n[eir ops] {len(results)} cells in {secs:.0f} s: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    return results, gaps


def test_core_op_list_comes_from_torch():
    ops = sweep.core_ops()
    # the forward Core ATen opset of torch 2.13 has about 180 overloads
    assert len(ops) > 150, ops
    assert "add.Tensor" in ops and "convolution.default" in ops
    assert not [o for o in ops if o.split(".")[0].endswith("_backward")]


def test_known_gaps_name_real_ops():
    from samples import DTYPES
    ops = set(sweep.core_ops())
    for (op, dt, _), reason in sweep.load_gaps().items():
        assert op in ops, f"known_gaps.txt names {op}, which is not a Core ATen op of this torch"
        assert dt == "*" or dt in DTYPES, f"known_gaps.txt: unknown dtype {dt} for {op}"
        assert reason.strip(), f"known_gaps.txt: {op} {dt} has no reason"


@pytest.mark.parametrize("op", _ops())
def test_op_matches_torch(op, op_results):
    results, gaps = op_results
    cells = {k: r for k, r in results.items() if k[0] == op}
    problems = sweep.judge(cells, {k: v for k, v in gaps.items() if k[0] == op})
    assert not problems, "\n".join(problems)
