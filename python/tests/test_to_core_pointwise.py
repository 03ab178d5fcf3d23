"""test_to_core_pointwise.py — to-core rules for pointwise operators,
activations, reductions and losses, checked node for node against torch's own
ep.run_decompositions(): square, frac, sinc, logit, xlogy, the special
functions, the shrink / softplus / celu / mish / log_sigmoid / glu / prelu
activations, logaddexp, lerp, addcdiv / addcmul, isfinite / isclose /
nan_to_num, masked_fill, clamp_min / clamp_max, max / min of two tensors,
float_power, floor_divide, logsumexp, nansum / nanmean, std / var and their
_mean forms, count_nonzero, all, aminmax, mvlgamma, renorm, and the losses
(binary_cross_entropy with and without logits, kl_div, margin_ranking,
hinge_embedding, soft_margin, poisson_nll, cosine_embedding,
cosine_similarity, pairwise_distance, triplet_margin, multilabel_soft_margin,
nll_loss, cross_entropy, multi_margin), _safe_softmax, rrelu (eval).

Each program is exported by torch (strict=False; one strict=True), converted by
`eir convert --to core`, and must pass to_core_check.check (verifies as Core
ATen, loads in torch, same outputs as the original within tolerance, no
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
    g = torch.Generator().manual_seed(sum(s) + len(s) + 7)
    return torch.randn(*s, generator=g)


def special(*s):
    """random values with zeros, infinities and a NaN in the first row"""
    t = r(*s)
    t.view(-1)[:4] = torch.tensor([0.0, float("inf"), float("-inf"), float("nan")])
    return t


class Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *a):
        return self.fn(*a)


def convert_like_torch(eir, tmp_path, fn, args, strict=False, drop=()):
    dst = K.convert_like_torch(eir, tmp_path, Fn(fn), args, strict=strict, drop=drop)
    # and the converted program computes torch's eager results
    want = K.flat(fn(*args))
    got = K.flat(torch.export.load(str(dst)).module()(*args))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert torch.allclose(g.double(), w.double(), rtol=1e-5, atol=1e-6, equal_nan=True)
    return dst


def unary(a, p, m):
    return (torch.square(a), torch.square(m), torch.positive(a), torch.frac(a), torch.deg2rad(a), torch.rad2deg(a),
            torch.sgn(a), torch.sinc(a), torch.logit(p), torch.logit(p, 1e-3), torch.special.entr(p - 0.25),
            torch.special.ndtr(a), torch.special.log_ndtr(a), torch.special.polygamma(0, p + 0.5),
            torch.special.polygamma(2, p + 0.5), torch.isposinf(a), torch.isneginf(a), torch.isreal(a),
            torch.isfinite(a), torch.nan_to_num(a), torch.nan_to_num(a, 1.0, 2.0, -3.0), torch.mvlgamma(p + 3, 3),
            torch.mvlgamma(p + 3, 1))


def activations(a, c, w):
    return (F.hardshrink(a), F.hardshrink(a, 1), F.softshrink(a, 0.3), F.threshold(a, 0.1, 20.0),
            F.threshold(a, 1, 2), F.softplus(a), F.softplus(a, 2.0, 10.0), F.selu(a), F.celu(a), F.celu(a, 2.0),
            F.mish(a), F.logsigmoid(a), F.glu(c), F.glu(c, 0), F.prelu(c.view(2, 4, 1), w), F.prelu(a, w[:1]), F.prelu(a[0], w[0]), F.prelu(a[0, 0], w[0]))


def binaries(a, b, c, mask):
    return (torch.xlogy(a, b), torch.special.xlog1py(a, b.abs()), torch.heaviside(a, b), torch.logaddexp(a, b),
            torch.logaddexp2(a, b), torch.lerp(a, b, 0.3), torch.lerp(a, b, c), torch.addcdiv(a, b, c, value=0.5),
            torch.addcmul(a, b, c), torch.addcmul(a, b, c, value=2), torch.clamp_min(a, 0.1), torch.clamp_max(a, 0.1),
            torch.clamp_min(a, b), torch.clamp_max(a, b), torch.max(a, b), torch.min(a, b), torch.float_power(a, b),
            torch.float_power(a, 2), torch.floor_divide(a, b), torch.floor_divide(a, 2), torch.true_divide(a, b),
            torch.isclose(a, b), torch.isclose(a, b, equal_nan=True), a.masked_fill(mask, 2.0),
            a.masked_fill(mask, 2), a.masked_fill(mask, c[0, 0]), torch.xlogy(a[0], b))


def reductions(a, i, bm):
    return (torch.logsumexp(a, 1), torch.logsumexp(a, (0, 1), True), torch.logsumexp(i, 1), torch.nansum(a),
            torch.nansum(a, 1), torch.nansum(a, (0, 1), keepdim=True), torch.nanmean(a), torch.nanmean(a, 1, True),
            torch.std(a), torch.std(a, unbiased=False), torch.std(a, 1, True), torch.std(a, 1, correction=0, keepdim=True),
            torch.var(a, unbiased=False), torch.var(a, 1), torch.var(a, 1, unbiased=False, keepdim=True),
            *torch.std_mean(a), *torch.std_mean(a, 1), *torch.var_mean(a, unbiased=True),
            *torch.var_mean(a, 1, unbiased=False), torch.count_nonzero(i), torch.count_nonzero(i, 1),
            torch.count_nonzero(i, (0, 1)), torch.all(bm), torch.all(a), torch.all(bm, 1), torch.all(bm, 1, keepdim=True),
            *tuple(torch.aminmax(a)), *tuple(torch.aminmax(a, dim=1, keepdim=True)), *tuple(torch.aminmax(a, dim=0)),
            torch.renorm(a, 2, 0, 1.0), torch.renorm(a, 1, 1, 0.5))


def losses(x, y, z, p, t, s, w, tgt, lp):
    return (F.binary_cross_entropy(p, t), F.binary_cross_entropy(p, t, w, reduction="sum"),
            F.binary_cross_entropy(p, t, reduction="none"), F.binary_cross_entropy_with_logits(x, t),
            F.binary_cross_entropy_with_logits(x, t, w, pos_weight=w), F.kl_div(x, t, reduction="batchmean"),
            F.kl_div(x, t), F.kl_div(x, y, reduction="sum", log_target=True), F.margin_ranking_loss(x, y, z, margin=0.5),
            F.hinge_embedding_loss(x, s), F.soft_margin_loss(x, s), F.poisson_nll_loss(x, t),
            F.poisson_nll_loss(t, t + 1, log_input=False, full=True), F.cosine_embedding_loss(x, y, s[:, 0]),
            F.cosine_similarity(x, y), F.pairwise_distance(x, y), F.triplet_margin_loss(x, y, z),
            F.triplet_margin_loss(x, y, z, swap=True, reduction="sum"), F.multilabel_soft_margin_loss(x, t),
            F.nll_loss(lp, tgt), F.nll_loss(lp, tgt, w, ignore_index=1), F.nll_loss(lp, tgt, reduction="sum"),
            F.cross_entropy(x, tgt), F.cross_entropy(x, tgt, reduction="none"), F.cross_entropy(x, t),
            F.cross_entropy(x, tgt, label_smoothing=0.2), F.cross_entropy(x, tgt, reduction="sum", label_smoothing=0.1),
            F.cross_entropy(x, t, label_smoothing=0.2))


def test_unary(eir, tmp_path):
    convert_like_torch(eir, tmp_path, unary, (special(2, 3), torch.rand(2, 3), torch.randint(-3, 4, (2, 3))))


def test_activations(eir, tmp_path):
    convert_like_torch(eir, tmp_path, activations, (r(2, 3) * 3, r(2, 4), torch.rand(4)))


def test_binaries(eir, tmp_path):
    a, b = r(2, 3), r(2, 3)
    a[0, 0], b[0, 1], a[1, 0] = 0.0, float("nan"), float("inf")
    convert_like_torch(eir, tmp_path, binaries, (a, b, torch.rand(2, 3), torch.rand(2, 3) > 0.5))


def test_reductions(eir, tmp_path):
    a = r(3, 4)
    a[0, 1] = float("nan")
    i = torch.randint(0, 3, (3, 4))
    convert_like_torch(eir, tmp_path, reductions, (a, i, torch.rand(3, 4) > 0.3))


def test_losses(eir, tmp_path):
    x, y, z = r(2, 3), r(3, 3)[:2], r(1, 2, 3)[0]
    s = torch.tensor([[1.0, -1.0, 1.0], [-1.0, -1.0, 1.0]])
    convert_like_torch(eir, tmp_path, losses, (x, y, z, torch.rand(2, 3), torch.rand(2, 3), s, torch.rand(3),
                                               torch.tensor([0, 2]), r(2, 3).log_softmax(1)))


def losses_nd(x3, t3, p3, v, t0, a, b, c, s0):
    return (F.nll_loss(x3.log_softmax(1), t3), F.nll_loss(x3, t3, reduction="none"), F.nll_loss(v, t0),
            F.cross_entropy(x3, t3), F.cross_entropy(x3, p3), F.cross_entropy(v, t0),
            F.hinge_embedding_loss(a.t(), torch.ones(2, 3)), F.cosine_similarity(b, c), F.cosine_similarity(b, c[0], dim=0),
            F.cosine_embedding_loss(v, v.flip(0), s0, margin=0.5, reduction="sum"),
            F.multi_margin_loss(b, t3[:, 0]), F.multi_margin_loss(v, t0, p=2, margin=-0.5),
            F.multi_margin_loss(b, t3[:, 1], weight=v, reduction="none"), F.multi_margin_loss(b, t3[:, 2], reduction="sum"),
            torch.ops.aten._safe_softmax.default(x3.masked_fill(t3.unsqueeze(1) == 0, float("-inf")), 1))


def test_losses_nd(eir, tmp_path):
    convert_like_torch(eir, tmp_path, losses_nd, (r(2, 3, 4), torch.randint(0, 3, (2, 4)), torch.rand(2, 3, 4), r(3),
                                                  torch.tensor(1), r(3, 2), r(2, 3), r(1, 3), torch.tensor(-1.0)))


def test_rrelu_eval(eir, tmp_path):
    # rrelu_with_noise_functional's unused noise output stays in eir's graph
    def fn(a, b):
        return F.rrelu(a), F.rrelu(b.t(), 0.1, 0.3, training=False)

    convert_like_torch(eir, tmp_path, fn, (r(2, 3), r(3, 2)), drop=[("<built-in function getitem>", "[1]", "[]")])


def test_strict(eir, tmp_path):
    def fn(a, b):
        return torch.logit(a.sigmoid()), F.softplus(a), torch.logsumexp(a, 1), *torch.std_mean(a, 1), \
            F.binary_cross_entropy_with_logits(a, b.sigmoid()), torch.xlogy(a.abs(), b.abs())

    convert_like_torch(eir, tmp_path, fn, (r(2, 3), r(2, 3)), strict=True)


class InPlace(torch.nn.Module):
    """In-place forms of ops that have a rule: on intermediates, on a buffer
    (a BUFFER_MUTATION output) and on a user input (USER_INPUT_MUTATION)."""

    def __init__(self, chains=True):
        super().__init__()
        self.chains = chains
        self.register_buffer("buf", torch.zeros(3, 4))

    def forward(self, x, m, u):
        y = x * 2
        y.masked_fill_(m, 0.5)
        z = y.clamp_min_(0.1)
        self.buf.masked_fill_(m, 1.0)
        u.clamp_max_(0.3)
        w = (x + 1).zero_()
        if not self.chains:  # strict export traces addcmul_ through prims.fma
            return z + 1, w, self.buf * 2
        return z + 1, w, self.buf * 2, x.clone().addcmul_(u, y, value=0.5).lerp_(z, 0.25)


@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
def test_inplace_forms(eir, tmp_path, strict):
    mod = InPlace(chains=not strict)
    args = (r(3, 4), r(3, 4) > 0, r(3, 4))
    ep = torch.export.export(mod, tuple(a.clone() for a in args), strict=strict)
    src, dst = tmp_path / "in.pt2", tmp_path / "out.pt2"
    torch.export.save(ep, str(src))
    dec = ep.run_decompositions()
    res = K.check(eir, src, dst, args, torch_core_ops=K.op_set(dec))
    assert res["converted"] and res["verify"] and res["loads"] and res["ops"] and res["outputs"], res["why"]
    got = torch.export.load(str(dst))
    assert K.node_seq(got) == K.node_seq(dec)
    kinds = [(s.kind.name, s.target) for s in got.graph_signature.output_specs[:2]]
    assert kinds == [("BUFFER_MUTATION", "buf"), ("USER_INPUT_MUTATION", "u")]


def refused(eir, tmp_path, fn, args):
    return K.refused(eir, tmp_path, Fn(fn), args)


def test_refusals(eir, tmp_path):
    err = refused(eir, tmp_path, lambda a, b: torch.xlogy(a, b), (r(2, 3), r(2, 3).half()))
    assert "node %xlogy (aten.xlogy.Tensor): cannot decompose: argument 'other': dtype float16, expected float32" in err
    err = refused(eir, tmp_path, lambda a, t: F.cross_entropy(a, t, label_smoothing=0.1), (r(2, 3, 4), torch.zeros(2, 4).long()))
    assert "(aten.cross_entropy_loss.default): cannot decompose: label_smoothing with a class weight or an input of rank 3" in err
    err = refused(eir, tmp_path, lambda a: torch.frac(a), (torch.randint(0, 5, (2, 3)),))
    assert "node %frac (aten.frac.default): cannot decompose: argument 'self': dtype int64" in err
