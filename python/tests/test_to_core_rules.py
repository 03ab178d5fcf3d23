"""test_to_core_rules.py — to-core rules checked node for node against torch's
own ep.run_decompositions(): einsum (torch's C++ einsum: per-operand
diagonal / unsqueeze / permute, pairwise sumproduct_pair with bmm), rms_norm,
the elementwise losses (mse, l1, huber, smooth_l1) with broadcast_tensors,
msort, resize_, unbatched convolutions, matmul with a vector, adaptive_avg_pool1d and circular pad (torch's _pad_circular, functionalized).

Each program is exported by torch (strict=False, and strict=True where torch
can), converted by `eir convert --to core`, and must pass to_core_check.check
(verifies as Core ATen, loads in torch, same outputs as the original, no
operator torch's decomposition leaves out); then its call_function nodes
(target and non-tensor arguments, in order) must be torch's.
"""
from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import to_core_check as K  # noqa: E402


def r(*s):
    g = torch.Generator().manual_seed(sum(s) + len(s))
    return torch.randn(*s, generator=g)


# equations of OpInfo's einsum samples, and matmul-like, attention, outer,
# diagonal, ellipsis and three-operand forms
EINSUMS = [
    ("i->", [(3,)]), ("i,j->ij", [(3,), (4,)]), ("ij->i", [(2, 3)]), ("ij,kj->ik", [(2, 3), (1, 3)]),
    ("ij,Ab->ijAb", [(2, 3), (4, 4)]), ("aij,ajk->aik", [(1, 2, 3), (1, 3, 4)]), ("aij,jk->aik", [(1, 3, 4), (4, 4)]),
    ("ijk,ik->j", [(1, 2, 3), (1, 3)]), ("iji->j", [(1, 3, 1)]), ("i...->...", [(3, 3)]),
    ("...ik, ...j -> ij", [(1, 2, 3), (3,)]), ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("ji,jk->ik", [(4, 3), (4, 5)]), ("i,i->", [(3,), (3,)]),
    ("ij->ji", [(3, 4)]), ("bij,bkj->bik", [(2, 3, 4), (2, 5, 4)]), ("ij,ij->ij", [(3, 4), (3, 4)]),
    ("i,j,k->ijk", [(2,), (3,), (4,)]), ("iij,jk->ik", [(3, 3, 4), (4, 2)]), ("b...,b...->b", [(2, 3, 4), (2, 3, 4)]),
]


class Einsums(torch.nn.Module):
    def __init__(self, eqs):
        super().__init__()
        self.eqs = eqs

    def forward(self, *ts):
        out, k = [], 0
        for eq, shapes in self.eqs:
            out.append(torch.einsum(eq, *ts[k:k + len(shapes)]))
            k += len(shapes)
        return tuple(out)


class Losses(torch.nn.Module):
    def forward(self, a, b, c, d, v, w):
        return (F.rms_norm(a, (4,)), F.rms_norm(a, (3, 4), w, 1e-5), F.rms_norm(a.transpose(1, 2), (3,)),
                F.mse_loss(a, b), F.mse_loss(c, d, reduction="none"), F.mse_loss(a, b, reduction="sum"),
                F.l1_loss(a, b), F.l1_loss(c, d, reduction="none"), F.huber_loss(a, b, delta=0.5),
                F.huber_loss(c, d, reduction="sum"), F.smooth_l1_loss(a, b, beta=0.5),
                F.smooth_l1_loss(a, b, beta=0.0), F.smooth_l1_loss(c, d, reduction="none"),
                *torch.broadcast_tensors(v, c, w[:1, :1]), torch.msort(a), torch.msort(v))


def loss_args():
    return (r(2, 3, 4), r(2, 3, 4), r(4, 1), r(3), r(5), r(3, 4))


class CircularPads(torch.nn.Module):
    def forward(self, a, b, c):
        return (F.pad(a, (1, 2), mode="circular"), F.pad(b, (1, 2, 2, 1), mode="circular"),
                F.pad(c, (1, 1, 0, 0, 2, 0), mode="circular"), F.pad(a, (-1, 2), mode="circular"),
                F.pad(a.transpose(1, 2), (2, 1), mode="circular"))


class UnbatchedConvs(torch.nn.Module):
    def forward(self, a, w1, b, w2, c, w3):
        return (F.conv1d(a, w1, padding=1), F.conv2d(b, w2, stride=2), F.conv_transpose1d(a, w1.transpose(0, 1)),
                F.conv_transpose2d(b, w2.transpose(0, 1), stride=2, output_padding=1), F.conv3d(c, w3, padding="same"))


class MatVecs(torch.nn.Module):
    def forward(self, v, w, m2, m3, m4):
        return (torch.matmul(v, v), torch.matmul(m2, v), torch.matmul(m3, v), torch.matmul(w, m3),
                torch.matmul(w, m4), torch.matmul(m4, v), m3.mT, m2.mT * 2)


class Pools1d(torch.nn.Module):
    def forward(self, a, b):
        return F.adaptive_avg_pool1d(a, 3), F.adaptive_avg_pool1d(b, 4)


class Resizes(torch.nn.Module):
    def forward(self, a, b):
        return a.clone().resize_(25, 5), (b + 1).resize_(2, 3) * 2, b.clone().resize_(1, 1, 1)


def convert_like_torch(eir, tmp_path, mod, args, strict, same_nodes=True):
    return K.convert_like_torch(eir, tmp_path, mod, args, strict=strict, same_nodes=same_nodes)


@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
def test_einsum(eir, tmp_path, strict):
    eqs = EINSUMS if not strict else EINSUMS[::4]
    args = tuple(r(*s) for _, shapes in eqs for s in shapes)
    convert_like_torch(eir, tmp_path, Einsums(eqs), args, strict)


# the strict exports of these run under -m slow (the quick suite keeps einsum's)
STRICT_SLOW = [False, pytest.param(True, marks=pytest.mark.slow)]


@pytest.mark.parametrize("strict", STRICT_SLOW, ids=["nonstrict", "strict"])
def test_norm_losses_broadcast_msort(eir, tmp_path, strict):
    # sort's unused indices output stays in eir's graph: compare without it
    dst = convert_like_torch(eir, tmp_path, Losses(), loss_args(), strict, same_nodes=False)
    got = [s for s in K.node_seq(torch.export.load(str(dst))) if s != ("<built-in function getitem>", "[1]", "[]")]
    ep = torch.export.export(Losses(), loss_args(), strict=strict)
    assert got == K.node_seq(ep.run_decompositions())


@pytest.mark.parametrize("strict", STRICT_SLOW, ids=["nonstrict", "strict"])
def test_pad_circular(eir, tmp_path, strict):
    convert_like_torch(eir, tmp_path, CircularPads(), (r(2, 3, 5), r(2, 3, 5, 6), r(1, 2, 3, 4, 5)), strict)


def test_unbatched_conv(eir, tmp_path):
    convert_like_torch(eir, tmp_path, UnbatchedConvs(),
                       (r(3, 7), r(4, 3, 3), r(3, 7, 6), r(4, 3, 3, 3), r(2, 4, 5, 6), r(3, 2, 3, 3, 3)), False)


def test_matmul_vector_mT(eir, tmp_path):
    convert_like_torch(eir, tmp_path, MatVecs(), (r(4), r(3), r(3, 4), r(2, 3, 4), r(2, 5, 3, 4)), False)


def test_adaptive_avg_pool1d(eir, tmp_path):
    convert_like_torch(eir, tmp_path, Pools1d(), (r(2, 3, 7), r(3, 9)), False)


def test_resize(eir, tmp_path):
    # torch's strict export (dynamo) does not trace resize_
    dst = convert_like_torch(eir, tmp_path, Resizes(), (r(5, 5, 5), r(3, 2)), False)
    assert "aten.resize.default" not in K.op_set(torch.export.load(str(dst)))


refused = K.refused


def test_refusals(eir, tmp_path):
    class Ein(torch.nn.Module):
        def forward(self, a, b):
            return torch.einsum("ij,jk->ik", a, b)

    n = torch.export.Dim("n", min=2)
    err = refused(eir, tmp_path, Ein(), (r(3, 4), r(4, 2)), dynamic_shapes=({0: n}, None))
    assert "node %einsum (aten.einsum.default): cannot decompose: operand 0 has symbolic sizes" in err

    class Grow(torch.nn.Module):
        def forward(self, a):
            return a.clone().resize_(4, 5)

    class MvBmm(torch.nn.Module):
        def forward(self, a, v):
            return torch.matmul(a.transpose(1, 2), v)

    err = refused(eir, tmp_path, MvBmm(), (r(2, 4, 5, 3), r(3)))
    assert "(aten.matmul.default): cannot decompose: a matrix-vector product whose 4-d operand no view folds" in err

    err = refused(eir, tmp_path, Grow(), (r(3, 2),))
    assert "(aten.resize_.default): cannot decompose: resize_ to 20 elements of a contiguous tensor of 6" in err
