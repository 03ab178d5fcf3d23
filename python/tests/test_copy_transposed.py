"""Copies of permuted tensors into contiguous ones (contiguous / reshape of a transposed view, the
clone of K^T in a decomposed matmul): the tiled transpose of fast.c (eir_copy_to_contig, which
the runtime's view copies and aten.clone / copy use) against torch, byte for byte, and the same
bytes at 1 and 2 threads.

Permutations that put a stride-1 dim before a strided last dim, in ranks 2 to 5, sizes that are
and are not multiples of the 16 x 16 tile, an expanded (stride-0) dim, float32 and int32, and a
view with a storage offset; strict=False and strict=True, as exported and after
run_decompositions() (where torch writes clone + _unsafe_view).
"""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from conftest import exported_and_eir  # noqa: E402


class Copies(torch.nn.Module):
    def forward(self, a, b, c, d):
        k = a.transpose(-2, -1).contiguous()                   # (.., 49, 32) -> (.., 32, 49)
        e = b.permute(2, 0, 3, 1).contiguous()                 # stride 1 moved to dim 2 of 4
        e2 = b.permute(2, 0, 3, 1).clone()                     # clone keeps the permuted strides: a plain copy
        f = c[:, 1:].expand(3, 2, 5, 17, 40).transpose(-1, -2).reshape(3, 2, 5, 40 * 17)  # stride 0 and an offset
        g = torch.matmul(a, a.transpose(-2, -1))               # decomposed: expand + clone of K^T + bmm
        h = d.t().contiguous()                                 # int32, 2-d
        return k, e, f, g, h, e2


def inputs():
    torch.manual_seed(0)
    return (torch.randn(2, 3, 49, 32), torch.randn(20, 33, 18, 24), torch.randn(1, 3, 5, 17, 40)[:, :, :, :, :],
            torch.randint(-1000, 1000, (37, 50), dtype=torch.int32))


@pytest.mark.parametrize("decomp", [False, True], ids=["exported", "decomp"])
@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
def test_copy_transposed(eir, strict, decomp, tmp_path):
    want, got = exported_and_eir(eir, Copies(), inputs(), strict, decomp, tmp_path)
    for i, w in enumerate(want):
        g = got[1][i]
        assert g.shape == w.shape and g.dtype == w.dtype, (i, g.shape, w.shape)
        if i == 3:      # the matmul: a float sum, within tolerance
            assert np.allclose(g, w, rtol=1e-5, atol=1e-5), i
        else:           # copies: exact
            assert np.array_equal(g, w), i
        assert np.array_equal(got[2][i], g), f"output {i}: 2 threads differ from 1"
