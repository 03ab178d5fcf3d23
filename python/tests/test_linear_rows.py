"""eir_cpu::linear on a few rows (M <= 4: the matrix-vector kernel of
recurrent.c instead of a GEMM call) against torch.

nn.Linear stacks with an activation, on 1, 3 and 4 rows (the kernel) and 5
rows (the GEMM), 1024 x 256 weights so that the rows split over two threads;
strict=False and strict=True, as exported and after run_decompositions()
(addmm on a transposed weight). Outputs within tolerance of torch's, the
same bytes in three runs and at 1 and 2 threads. A weight that is not row-major
(a transposed parameter, through t()) takes the GEMM: same check.
"""
from __future__ import annotations

import os
import subprocess

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from conftest import to_npy  # noqa: E402

RTOL, ATOL = 1e-5, 1e-5


class Stack(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(256, 1024)
        self.b = torch.nn.Linear(1024, 250)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


class TransposedWeight(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(256, 1024) * 0.05)   # used as w.t(): column-major rows

    def forward(self, x):
        return torch.nn.functional.linear(x, self.w.t())


def eir_runs(eir, pt2, inp, tmp, threads, runs):
    out = os.path.join(tmp, f"out_{threads}")
    r = subprocess.run([eir, "run", pt2, inp, "--out", out, "--threads", str(threads), "--runs", str(runs)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return [np.load(os.path.join(out, f"run_{k}", "output_0.npy") if runs > 1 else os.path.join(out, "output_0.npy"))
            for k in range(1, runs + 1)]


@pytest.mark.parametrize("decomp", [False, True], ids=["exported", "decomp"])
@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
@pytest.mark.parametrize("rows,model", [(1, "stack"), (3, "stack"), (4, "stack"), (5, "stack"), (2, "transposed")])
def test_linear_rows(eir, rows, model, strict, decomp, tmp_path):
    tmp = str(tmp_path)
    torch.manual_seed(rows)
    m = (Stack() if model == "stack" else TransposedWeight()).eval()
    x = torch.randn(rows, 256) if model == "stack" else torch.randn(1, rows, 256)
    ep = torch.export.export(m, (x,), strict=strict)
    if decomp:
        ep = ep.run_decompositions()
    pt2 = os.path.join(tmp, "m.pt2")
    torch.export.save(ep, pt2)
    inp = os.path.join(tmp, "x.npy")
    np.save(inp, x.numpy())
    with torch.no_grad():
        want = to_npy(ep.module()(x))
    one = eir_runs(eir, pt2, inp, tmp, 1, 3)
    np.testing.assert_allclose(one[0], want, rtol=RTOL, atol=ATOL)
    for y in one[1:]:
        assert y.tobytes() == one[0].tobytes(), "runs differ"
    two = eir_runs(eir, pt2, inp, tmp, 2, 1)
    assert two[0].tobytes() == one[0].tobytes(), "1 and 2 threads differ"
