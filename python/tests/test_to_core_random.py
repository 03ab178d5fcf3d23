"""test_to_core_random.py — to-core rules for random ops and the attention
forms that draw (decomp_random.c, decomp_sdpa, in-place writes through views
in decomp.c), checked against torch's own ep.run_decompositions().

Each program is exported by torch (strict=False and strict=True), saved,
converted by `eir convert --to core`; the result must verify as Core ATen (or
keep only the non-core operators torch's decomposition keeps), load in torch,
call no operator torch's decomposition leaves out, and have torch's
call_function nodes (target and non-tensor arguments, in order). Since the
draws differ, outputs are checked by what can be checked: the converted
program, saved and re-loaded by torch and run several times, gives outputs of
the original's shapes and dtypes with the properties of the distribution
(dropout's kept elements scaled by 1 / (1 - p), bernoulli's values in {0, 1},
...); and `eir run` runs the converted program, with the same properties.
Deterministic cases (p = 0, p = 1, embedding's max_norm, attention without
dropout) compare values with the original.
"""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import to_core_check as K  # noqa: E402

STRICT = pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
ALPHA = 1.7580993408473766


def r(*s, dtype=torch.float32):
    g = torch.Generator().manual_seed(sum(s) + len(s))
    return torch.randn(s, generator=g, dtype=dtype)


def convert_nodes(eir, tmp_path, mod, args, strict):
    """Export, convert and check everything but the values; returns (original
    program, converted program re-loaded by torch, converted file)."""
    ep = torch.export.export(mod, args, strict=strict)
    src, dst = tmp_path / "in.pt2", tmp_path / "out.pt2"
    torch.export.save(ep, str(src))
    dec = ep.run_decompositions()
    res = K.convert(eir, src, dst)
    assert res.returncode == 0, res.stderr
    v = K.verify_core(eir, dst)
    if v.returncode != 0:
        assert v.returncode == 3 and K.violating_ops(v.stdout) <= K.op_set(dec), v.stdout
    new = torch.export.load(str(dst))
    assert K.op_set(new) <= K.op_set(dec), sorted(K.op_set(new) - K.op_set(dec))
    got = [n for n in K.node_seq(new) if n[0] != "<built-in function getitem>"]
    want = [n for n in K.node_seq(dec) if n[0] != "<built-in function getitem>"]
    assert got == want
    return ep, new, dst


def run_torch(ep, args, seed):
    torch.manual_seed(seed)
    a = K.clone_args(args)
    return [t.detach() for t in K.flat(ep.module()(*a))], a


def run_eir(eir, tmp_path, path, args):
    files = []
    for i, a in enumerate(args):
        f = tmp_path / f"in{i}.npy"
        np.save(f, a.numpy())
        files.append(str(f))
    out = tmp_path / "eir_out"
    res = subprocess.run([eir, "run", str(path), *files, "--out", str(out)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    n = len([f for f in os.listdir(out) if f.startswith("output_")])
    return [torch.from_numpy(np.load(out / f"output_{i}.npy")) for i in range(n)]


def same_meta(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, g.dtype, w.shape, w.dtype)


# ---- dropout and its variants in training mode ----

class Dropouts(torch.nn.Module):
    def forward(self, x, y):
        return (F.dropout(x, 0.3, True), F.dropout2d(x, 0.3, True), F.alpha_dropout(x, 0.3, True),
                F.feature_alpha_dropout(x, 0.3, True), F.alpha_dropout(y.transpose(0, 1), 0.3, True),
                F.dropout(x, 1.0, True), F.alpha_dropout(x, 1.0, True), F.feature_alpha_dropout(x, 1.0, True),
                F.dropout3d(y.unsqueeze(0), 0.2, True), F.dropout(x, 0.0, True), F.dropout2d(x, 0.0, True),
                F.alpha_dropout(x, 0.0, True))


def check_dropouts(outs, x, y):
    p = 0.3
    a = 1 / np.sqrt((ALPHA ** 2 * p + 1) * (1 - p))
    b = ALPHA * a * p
    drop = -ALPHA * a + b
    d, d2, ad, fad, adt, d1, ad1, fad1, d3, d0, d20, ad0 = outs
    # dropout: 0 or x / (1 - p), about 1 - p kept
    kept = torch.isclose(d, x / (1 - p), rtol=1e-5)
    assert bool((kept | (d == 0)).all()) and abs(kept.float().mean().item() - (1 - p)) < 0.1
    # dropout2d: whole channels kept (scaled) or zeroed
    kept = torch.isclose(d2, x / (1 - p), rtol=1e-5)
    assert bool((kept | (d2 == 0)).all())
    assert bool((kept.flatten(2).all(2) | (d2 == 0).flatten(2).all(2)).all())
    # alpha forms: x * a + b where kept, the constant drop value elsewhere
    for o, src, feature in ((ad, x, False), (fad, x, True), (adt, y.transpose(0, 1), False)):
        kept = torch.isclose(o, src * a + b, rtol=1e-5, atol=1e-6)
        assert bool((kept | torch.isclose(o, torch.tensor(drop, dtype=o.dtype))).all())
        if feature:
            assert bool((kept.flatten(2).all(2) | (~kept).flatten(2).all(2)).all())
    # p = 1: zeros (alpha forms too: torch multiplies by zeros)
    for o in (d1, ad1, fad1):
        assert bool((o == 0).all())
    # dropout3d on [1, 3, 4, 5] (one channel per dim 1 entry)
    kept = torch.isclose(d3, y.unsqueeze(0) / 0.8, rtol=1e-5)
    assert bool((kept | (d3 == 0)).all())
    assert bool((kept.flatten(2).all(2) | (d3 == 0).flatten(2).all(2)).all())
    # p = 0: the input
    for o in (d0, d20, ad0):
        assert torch.equal(o, x)


@STRICT
def test_dropouts_training(eir, tmp_path, strict):
    args = (r(4, 6, 5, 5), r(3, 4, 5))
    ep, new, path = convert_nodes(eir, tmp_path, Dropouts(), args, strict)
    want, _ = run_torch(ep, args, 0)
    for seed in range(3):
        got, _ = run_torch(new, args, seed)
        same_meta(got, want)
        check_dropouts(got, *args)
    for _ in range(2):
        got = run_eir(eir, tmp_path, path, args)
        same_meta(got, want)
        check_dropouts(got, *args)


class DropoutModule(torch.nn.Module):
    """nn.Dropout in a module left in training mode, its result used twice."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 8)
        self.drop = torch.nn.Dropout(0.5)

    def forward(self, x):
        h = self.drop(self.lin(x))
        return h * 2, h.sum(-1)


@STRICT
def test_dropout_module_training(eir, tmp_path, strict):
    m = DropoutModule().train()
    args = (r(3, 8),)
    ep, new, path = convert_nodes(eir, tmp_path, m, args, strict)
    assert "aten.native_dropout.default" in K.op_set(new)
    lin = m.lin(args[0]).detach()
    for outs in [run_torch(new, args, s)[0] for s in range(3)] + [run_eir(eir, tmp_path, path, args)]:
        h2, s = outs
        kept = torch.isclose(h2, lin * 4, rtol=1e-5, atol=1e-6)
        assert bool((kept | (h2 == 0)).all())
        assert torch.allclose(s, (h2 / 2).sum(-1), rtol=1e-5, atol=1e-5)


# ---- bernoulli ----

class Bernoulli(torch.nn.Module):
    def forward(self, p, q, pd):
        return torch.bernoulli(p), torch.bernoulli(q.t()), torch.bernoulli(pd)


@STRICT
def test_bernoulli(eir, tmp_path, strict):
    p = torch.rand(64, 32)
    p[0] = 0.0
    p[1] = 1.0
    q = torch.full((16, 8), 0.25)
    args = (p, q, p.double())
    ep, new, path = convert_nodes(eir, tmp_path, Bernoulli(), args, strict)
    want, _ = run_torch(ep, args, 0)
    runs = [run_torch(new, args, s)[0] for s in range(3)] + [run_eir(eir, tmp_path, path, args)]
    for got in runs:
        same_meta(got, want)
        for o in got:
            assert bool(((o == 0) | (o == 1)).all())
        b, bq, bd = got
        assert bool((b[0] == 0).all()) and bool((b[1] == 1).all())
        assert abs(bq.mean().item() - 0.25) < 0.12
        assert abs(b[2:].mean().item() - p[2:].mean().item()) < 0.05
    assert not torch.equal(runs[0][0], runs[1][0])  # it draws


# ---- in-place random ops: on inputs, through as_strided views ----

class InPlaceRandom(torch.nn.Module):
    def __init__(self, op):
        super().__init__()
        self.op = op

    def forward(self, a, b):
        self.op(a)
        v = b.as_strided((10,), (2,))
        self.op(v)
        return a, v


OPS = {
    "normal_": (lambda t: t.normal_(2.0, 0.5), lambda o: bool(torch.isfinite(o).all()) and abs(o.mean().item() - 2) < 1),
    "cauchy_": (lambda t: t.cauchy_(0.0, 0.5), lambda o: not bool(torch.isnan(o).any())),
    "exponential_": (lambda t: t.exponential_(0.5), lambda o: bool((o >= 0).all())),
    "geometric_": (lambda t: t.geometric_(0.3), lambda o: bool((o >= 1).all()) and bool((o == o.round()).all())),
    "log_normal_": (lambda t: t.log_normal_(0.0, 0.25), lambda o: bool((o > 0).all())),
}


@pytest.mark.parametrize("name", list(OPS))
@STRICT
def test_inplace_random_through_as_strided(eir, tmp_path, name, strict):
    op, prop = OPS[name]
    args = (r(40), r(20))
    ep, new, path = convert_nodes(eir, tmp_path, InPlaceRandom(op), args, strict)
    # the mutation of b is written back by as_strided_scatter, as torch's functionalization
    assert "aten.as_strided_scatter.default" in K.op_set(new)
    want, _ = run_torch(ep, args, 0)
    for seed in range(3):
        got, inputs = run_torch(new, args, seed)
        same_meta(got, want)
        a, v = got
        assert prop(a) and prop(v)
        b = inputs[1]
        # the view's elements were written, the others kept
        assert torch.equal(b[0::2], v) and torch.equal(b[1::2], args[1][1::2])
        assert torch.equal(inputs[0], a)
    got = run_eir(eir, tmp_path, path, args)
    same_meta(got, want)
    assert prop(got[0]) and prop(got[1])


def test_inplace_random_view_read_after_refused(eir, tmp_path):
    """A second view of the written input, read after the write, would have to see it: refused."""

    class M(torch.nn.Module):
        def forward(self, b):
            w = b.as_strided((5,), (4,))
            b.as_strided((10,), (2,)).exponential_()
            return w + 1

    err = K.refused(eir, tmp_path, M(), (r(20),))
    assert "exponential_" in err and "is aliased by %as_strided" in err and "read afterwards" in err


# ---- embedding with max_norm: embedding_renorm_ through a detach ----

class EmbeddingMaxNorm(torch.nn.Module):
    def forward(self, w, idx, w2, idx2):
        return F.embedding(idx, w, max_norm=1.0), F.embedding(idx2, w2, max_norm=0.5, norm_type=1.0) * 2


@STRICT
def test_embedding_max_norm(eir, tmp_path, strict):
    args = (r(10, 4) * 3, torch.tensor([[0, 2, 2], [9, 4, 0]]), r(6, 3), torch.tensor([5, 1]))
    dst = K.convert_like_torch(eir, tmp_path, EmbeddingMaxNorm(), args, strict=strict)
    new = torch.export.load(str(dst))
    # the weights come back renormalized (user input mutations), as torch writes them
    assert [s.kind.name for s in new.graph_signature.output_specs][:2] == ["USER_INPUT_MUTATION"] * 2
    a = K.clone_args(args)
    for _ in range(3):
        new.module()(*a)
    w = a[0]
    assert bool((w[[0, 2, 4, 9]].norm(dim=1) <= 1.0 + 1e-5).all())
    assert torch.equal(w[[1, 3, 5, 6, 7, 8]], args[0][[1, 3, 5, 6, 7, 8]])


# ---- scaled_dot_product_attention: 3-d, mixed ranks, dropout ----

class Attention3d(torch.nn.Module):
    def forward(self, q3, k3, v3, q4, k4, v4, fmask, bmask, v6, k4t):
        return (F.scaled_dot_product_attention(q3, k3, v3),
                F.scaled_dot_product_attention(q3, k3, v3, is_causal=True),
                F.scaled_dot_product_attention(q3, k3, v3, attn_mask=bmask, scale=0.4),
                F.scaled_dot_product_attention(q4, k3, v3),
                F.scaled_dot_product_attention(q3, k4, v4, attn_mask=fmask),
                F.scaled_dot_product_attention(q4, k4, v4),
                F.scaled_dot_product_attention(q4, k4, v4, attn_mask=bmask),
                F.scaled_dot_product_attention(q4, k4, v6),
                F.scaled_dot_product_attention(q4, k4t.transpose(2, 3), v4).sum(1))


def attention_args():
    return (r(3, 4, 8), r(3, 5, 8), r(3, 5, 8), r(2, 3, 4, 8), r(2, 3, 5, 8), r(2, 3, 5, 8), r(2, 1, 4, 5),
            torch.rand(4, 5) > 0.3, r(2, 3, 5, 6), r(2, 3, 8, 5))


@STRICT
def test_sdpa_ranks(eir, tmp_path, strict):
    K.convert_like_torch(eir, tmp_path, Attention3d(), attention_args(), strict=strict)


class AttentionDropout(torch.nn.Module):
    def forward(self, q3, k3, v3, q4, k4, v4):
        return (F.scaled_dot_product_attention(q3, k3, v3, dropout_p=0.5),
                F.scaled_dot_product_attention(q4, k4, v4, dropout_p=0.25, is_causal=True),
                F.scaled_dot_product_attention(q3, k4, v4, dropout_p=1.0))


@STRICT
def test_sdpa_dropout(eir, tmp_path, strict):
    args = attention_args()[:6]
    ep, new, path = convert_nodes(eir, tmp_path, AttentionDropout(), args, strict)
    assert "aten.native_dropout.default" in K.op_set(new)
    want, _ = run_torch(ep, args, 0)
    q3, k3, v3 = args[:3]
    # the largest output without dropout, scaled by 1 / (1 - p), bounds the
    # one with it (attention weights in [0, 1], kept ones scaled)
    bound = (v3.abs().sum(1, keepdim=True) / 0.5).expand(3, 4, 8)
    for got in [run_torch(new, args, s)[0] for s in range(3)] + [run_eir(eir, tmp_path, path, args)]:
        same_meta(got, want)
        assert bool((got[0].abs() <= bound + 1e-4).all())
        assert bool(torch.isfinite(got[1]).all())
        assert bool((got[2] == 0).all())


@STRICT
def test_multi_head_attention_training(eir, tmp_path, strict):
    mha = torch.nn.MultiheadAttention(8, 2, dropout=0.5).train()
    args = (r(5, 2, 8), r(6, 2, 8), r(6, 2, 8))
    ep, new, path = convert_nodes(eir, tmp_path, mha, args, strict)
    want, _ = run_torch(ep, args, 0)
    for s in range(3):
        got, _ = run_torch(new, args, s)
        same_meta(got, want)
        # the averaged attention weights: dropped entries are 0, kept ones doubled
        assert bool(((got[1] >= 0) & (got[1] <= 2 + 1e-5)).all())


class EmbeddingBags(torch.nn.Module):
    def forward(self, w, idx, off, psw, w2, idx2):
        return (F.embedding_bag(idx, w, off), F.embedding_bag(idx, w, off, mode="max"),
                F.embedding_bag(idx, w, off, mode="sum", per_sample_weights=psw, padding_idx=2),
                F.embedding_bag(idx[::2], w, off[:2], include_last_offset=True),
                F.embedding_bag(idx2, w2, torch.tensor([0, 2]), max_norm=1.0))


@STRICT
def test_embedding_bag(eir, tmp_path, strict):
    """embedding_bag -> _embedding_bag_forward_only on contiguous indices, default trailing arguments left
    out; with max_norm the weight renormalized first (a user input mutation)."""
    args = (r(10, 3), torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([0, 3, 5]), r(8).abs(), r(6, 4) * 2,
            torch.tensor([0, 5, 5, 1]))
    K.convert_like_torch(eir, tmp_path, EmbeddingBags(), args, strict=strict, getitems=False)


class DropoutScaled(torch.nn.Module):
    def forward(self, x):
        return F.dropout(x, 0.3, True) * 2, F.dropout2d(x[None], 0.5, True)


def test_dropout_dynamic_batch(eir, tmp_path):
    """dropout in training mode of a dynamic batch -> native_dropout (symbolic sizes kept); feature dropout,
    whose noise tensor needs concrete sizes, is refused naming why."""
    b = torch.export.Dim("b", min=2, max=64)

    class Only(torch.nn.Module):
        def forward(self, x):
            return F.dropout(x, 0.3, True) * 2

    ep = torch.export.export(Only(), (r(4, 5),), dynamic_shapes=({0: b},))
    src, dst = tmp_path / "in.pt2", tmp_path / "out.pt2"
    torch.export.save(ep, str(src))
    assert K.convert(eir, src, dst).returncode == 0
    assert K.verify_core(eir, dst).returncode == 0
    new = torch.export.load(str(dst))
    got = [n for n in K.node_seq(new) if n[0] != "<built-in function getitem>"]
    assert got == [n for n in K.node_seq(ep.run_decompositions()) if n[0] != "<built-in function getitem>"]
    x = r(9, 5)
    y = new.module()(x)
    assert y.shape == (9, 5) and bool(((y == 0) | torch.isclose(y, x * 2 / 0.7)).all())
    (tmp_path / "feature").mkdir()
    err = K.refused(eir, tmp_path / "feature", DropoutScaled(), (r(4, 5),), dynamic_shapes=({0: b},))
    assert "(aten.feature_dropout.default): cannot decompose: dropout in training mode of an input of symbolic size" in err
