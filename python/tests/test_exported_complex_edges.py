"""Live checks of cases torch's OpInfo samples reach and ordinary models rarely do:
complex convolutions (torch's Gauss-trick composition), addmm / baddbmm / addmv with
complex alpha and beta, complex exp2 / silu / logcumsumexp / var_mean, matrix_H, istft with a complex window, attention over inputs of
different ranks, isclose of complex NaNs, tensor_split by a tensor of indices, the SVD of
an empty matrix, linalg.vander of a 0-d tensor, batch_norm of an empty input and complex32
results through .npy. Each program is exported, saved, run with `eir run`, and compared
with the module's own outputs."""
from __future__ import annotations

import subprocess

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")
F = torch.nn.functional

from conftest import to_npy as _npy  # noqa: E402
from tolerances import tolerance  # noqa: E402

C64, C128 = torch.complex64, torch.complex128




def check(eir, tmp_path, f, args, inputs=None):
    class M(torch.nn.Module):
        def forward(self, *a):
            return f(*a)
    ep = torch.export.export(M(), tuple(args))
    path = str(tmp_path / "p.pt2")
    torch.export.save(ep, path)
    for run_args in [args] + ([inputs] if inputs else []):
        files = []
        for i, a in enumerate(run_args):
            files.append(str(tmp_path / f"in{i}.npy"))
            np.save(files[-1], _npy(a))
        out = tmp_path / "out"
        r = subprocess.run([eir, "run", path, *files, "--out", str(out)], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        want = torch.utils._pytree.tree_leaves(f(*run_args))
        for k, w in enumerate(want):
            g, wn = np.load(out / f"output_{k}.npy"), _npy(w)
            assert g.shape == wn.shape and g.dtype == wn.dtype, f"output {k}: {g.shape} {g.dtype}, torch {wn.shape} {wn.dtype}"
            rtol, atol = tolerance(w.dtype)
            np.testing.assert_allclose(g, wn, rtol=max(rtol, 1e-6), atol=max(atol, 1e-6), err_msg=f"output {k}")


def _c(*shape, dtype=C128, seed=0):
    return torch.randn(shape, dtype=dtype, generator=torch.Generator().manual_seed(seed))


@pytest.mark.parametrize("dtype", [C64, C128])
def test_complex_convolutions(eir, tmp_path, dtype):
    check(eir, tmp_path, lambda x, w, b, x3, w3, xt, wt: (
        F.conv2d(x, w, b, stride=2, padding=1), F.conv1d(x[0, :, 0], w[:, :, 0], groups=1),
        F.conv3d(x3, w3, padding="same"), F.conv_transpose2d(xt, wt, b[:3], stride=2, padding=2, output_padding=1),
        F.conv_transpose3d(x3.expand(1, 4, 4, 4, 4).reshape(4, 4, 4, 4), torch.ones(4, 1, 2, 2, 2, dtype=x.dtype), groups=2)),
        [_c(1, 3, 6, 6, dtype=dtype), _c(4, 3, 3, 3, dtype=dtype, seed=1), _c(4, dtype=dtype, seed=2),
         _c(1, 1, 4, 4, 4, dtype=dtype, seed=3), _c(1, 1, 1, 1, 1, dtype=dtype, seed=4),
         _c(1, 3, 4, 4, dtype=dtype, seed=5), _c(3, 3, 3, 3, dtype=dtype, seed=6)])


def test_complex_alpha_beta(eir, tmp_path):
    check(eir, tmp_path, lambda a, b, m, s, bb, bm, v: (
        torch.addmm(a, b, m, alpha=2 + 3j, beta=1 + 2j), torch.addmm(a, b, m, alpha=1j, beta=0),
        torch.baddbmm(s, bb, bm, alpha=1j, beta=0.5 - 1j), torch.addmv(a[:, 0], b, v, alpha=-1j, beta=2j)),
        [_c(2, 3), _c(2, 2, seed=1), _c(2, 3, seed=2), _c(2, 2, 3, seed=3), _c(2, 2, 4, seed=4), _c(2, 4, 3, seed=5), _c(2, seed=6)])


def test_matrix_h_and_istft_complex_window(eir, tmp_path):
    check(eir, tmp_path, lambda x, s, w: (x.H, x.mH * 2, torch.istft(s, 10, window=w, center=True, return_complex=True)),
          [_c(3, 3), _c(10, 10, 6, seed=1), _c(10, seed=2)])


def test_attention_ranks_and_complex_nan_isclose(eir, tmp_path):
    nan = complex(float("nan"), 1)
    check(eir, tmp_path, lambda q, k, v, q2, k2, v2, a, b: (
        F.scaled_dot_product_attention(q, k, v, is_causal=True), F.scaled_dot_product_attention(q2, k2, v2),
        torch.isclose(a, b, rtol=0, atol=0, equal_nan=True), torch.isclose(a, b, equal_nan=False)),
        [torch.randn(4, 3, 8), torch.randn(4, 4, 6, 8), torch.randn(4, 4, 6, 8), torch.randn(2, 4, 3, 8), torch.randn(6, 8),
         torch.randn(4, 6, 5), torch.tensor([nan, 1j, 2, nan]), torch.tensor([complex(1, float("nan")), 1j, 3, 0])])


def test_data_dependent_split_and_empty_cases(eir, tmp_path):
    x = torch.arange(125.).reshape(5, 5, 5)
    check(eir, tmp_path, lambda x, i, e, z, m: (
        *torch.tensor_split(x, i, dim=1), *torch.svd(e, some=False), *torch.linalg.svd(e.t()),
        torch.linalg.vander(z, N=3), F.batch_norm(e.reshape(-1), m, m, training=True), z.chalf()),
        [x, torch.tensor([1, 3, 4]), torch.empty(0, 3), torch.tensor(2.5), torch.empty(0)],
        inputs=[x, torch.tensor([0, -1, 9]), torch.empty(0, 3), torch.tensor(-1.5), torch.empty(0)])


def test_complex_pointwise_and_reductions(eir, tmp_path):
    special = torch.tensor([complex(float("-inf"), 0), 1 + 1j, complex(float("inf"), 2), 3j, complex(float("nan"), 0), 1,
                            complex(100, 3), complex(-100, 3)], dtype=C128)
    z = _c(5, 5, 5, dtype=C64)
    check(eir, tmp_path, lambda z, s: (
        torch.exp2(z), torch.exp2(s), F.silu(z), F.silu(s.to(C64)), F.silu(s), torch.logcumsumexp(z, 0),
        torch.logcumsumexp(s, 0), *torch.var_mean(z.to(C128), dim=1), *torch.std_mean(z, correction=0)),
        [z, special])
