"""where(mask, a 0-d float32 value, x), as torch's run_decompositions() writes masked_fill (Swin
Transformer's attention mask): the masked_fill rows of pointwise.c against torch, byte for byte,
with broadcast masks, in 4 export forms, at 1 and 2 threads; the value in the other slot and a
value of another dtype take the general path, also exact."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from conftest import exported_and_eir  # noqa: E402


class Masks(torch.nn.Module):
    def forward(self, x, m, n):
        a = x.masked_fill(m, -100.0)                            # mask broadcast over the batch
        b = torch.where(n, torch.tensor(0.5), x)                # mask broadcast along the last dim
        c = torch.where(m, x, torch.tensor(2.0))                # the value in the other slot
        d = torch.where(n, torch.tensor(3, dtype=torch.int32), x)  # an int value: promoted
        return a, b, c, d


def inputs():
    torch.manual_seed(0)
    return torch.randn(64, 49, 49), torch.rand(1, 49, 49) > 0.5, torch.rand(64, 49, 1) > 0.3


@pytest.mark.parametrize("decomp", [False, True], ids=["exported", "decomp"])
@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
def test_where_fill(eir, strict, decomp, tmp_path):
    want, got = exported_and_eir(eir, Masks(), inputs(), strict, decomp, tmp_path)
    for i, w in enumerate(want):
        assert got[1][i].dtype == w.dtype and np.array_equal(got[1][i], w), i
        assert np.array_equal(got[2][i], got[1][i]), f"output {i}: 2 threads differ from 1"
