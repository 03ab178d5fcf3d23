"""test_to_core_misc.py — to-core rules for ranges with tensor bounds,
tensordot to a single element and the other forms of decomp_misc.c, checked
node for node against torch's own ep.run_decompositions().

Each program is exported by torch (strict=False, and strict=True once),
converted by `eir convert --to core`, and must pass to_core_check.check
(verifies as Core ATen or keeps only the non-core operators torch keeps,
loads in torch, same outputs as the original, no operator torch's
decomposition leaves out); then its call_function nodes (target and
non-tensor arguments, in order) must be torch's.
"""
from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import to_core_check as K  # noqa: E402


def r(*s, dtype=torch.float32):
    g = torch.Generator().manual_seed(sum(s) + len(s))
    return torch.randn(s, generator=g, dtype=dtype)


def convert_like_torch(eir, tmp_path, mod, args, strict=False, getitems=True):
    return K.convert_like_torch(eir, tmp_path, mod, args, strict=strict, getitems=getitems, assert_messages=False)


class Ranges(torch.nn.Module):
    def forward(self, a, b, i):
        return (torch.linspace(a, b, 5), torch.linspace(2.0, b, 4), torch.linspace(a, -3, 6),
                torch.linspace(a, b, 7, dtype=torch.float64), torch.linspace(a, b, 1), torch.linspace(-1.5, b, 1),
                torch.linspace(a, b, 0), torch.linspace(i, b, 1, dtype=torch.int64),
                torch.logspace(a, b, 5, base=2.0), torch.logspace(0.5, b, 3), torch.logspace(a, 2, 4, base=3),
                torch.logspace(a, b, 1), torch.logspace(i, b, 0, dtype=torch.int32))


class Tensordot(torch.nn.Module):
    def forward(self, a, b, c, d, e, f, g, h):
        return (torch.tensordot(a, b, dims=([0, 1], [1, 0])), torch.tensordot(c, d, dims=([0, 1], [2, 0])),
                torch.tensordot(e, f, dims=([1], [0])), torch.tensordot(g, h, dims=([-2], [0])),
                torch.inner(e, f.t()))


def test_linspace_logspace_tensor_bounds(eir, tmp_path):
    convert_like_torch(eir, tmp_path, Ranges(), (torch.tensor(-1.25), torch.tensor(4.5), torch.tensor(2)))


def test_linspace_strict_double(eir, tmp_path):
    convert_like_torch(eir, tmp_path, Ranges(),
                       (torch.tensor(0.5, dtype=torch.float64), torch.tensor(3.0, dtype=torch.float64),
                        torch.tensor(-3)), strict=True)


def test_tensordot_single_element(eir, tmp_path):
    convert_like_torch(eir, tmp_path, Tensordot(),
                       (r(2, 3), r(3, 2), r(2, 2, 1), r(2, 1, 2), r(1, 3), r(3, 1), r(1, 3, 1), r(3, 1)))


class IntRange(torch.nn.Module):
    def forward(self, a, b):
        return torch.linspace(a, b, 6, dtype=torch.int64)


def test_refusals(eir, tmp_path):
    # torch's decomposition gives [2, 2, 3, 3, 4, 4] where linspace gives [2, 2, 2, 3, 3, 4]
    msg = K.refused(eir, tmp_path, IntRange(), (torch.tensor(2), torch.tensor(4.5)))
    assert "node %linspace (aten.linspace.Tensor_Tensor): cannot decompose: a result of dtype other than a float's" in msg


class PadDropoutPut(torch.nn.Module):
    def forward(self, x, y, g, mask, t, m2, i0, i1, v):
        return (F.pad(x, [-1, 2, 0, -2], mode="replicate"), F.pad(y, [2, -3], mode="replicate"),
                torch.ops.aten.native_dropout_backward(g, mask, 2.0),
                torch.ops.aten._unsafe_masked_index_put_accumulate(t, m2, [i0, i1], v))


def test_pad_dropout_backward_masked_put(eir, tmp_path):
    mask = r(3, 4) > 0
    i0 = torch.tensor([[0], [3], [-4]])
    i1 = torch.tensor([[1, 5, -2]])
    convert_like_torch(eir, tmp_path, PadDropoutPut(),
                       (r(2, 3, 4, 5), r(2, 3, 6), r(3, 4), mask, r(4, 5), torch.tensor([[True, False, True]]),
                        i0, i1, r(3, 3)))


class Quantile(torch.nn.Module):
    def forward(self, x, s, v):
        return (torch.quantile(x, 0.3), torch.quantile(x, 0.7, dim=1), torch.quantile(x, 0.25, dim=0, keepdim=True),
                torch.quantile(x, 0.5, dim=-2, interpolation="midpoint"), torch.quantile(s, 0.5),
                torch.quantile(s, 0.4, dim=0), torch.quantile(v, 1.0), torch.quantile(x, 0.6, keepdim=True),
                torch.nanquantile(x, 0.3), torch.nanquantile(x, 0.8, dim=1, interpolation="midpoint"),
                torch.nanquantile(s, 0.5, dim=0), torch.nanquantile(x, 0.5, dim=2, keepdim=True))


def test_quantile(eir, tmp_path):
    x = r(3, 4, 5)
    x[1, 2, 3] = float("nan")
    convert_like_torch(eir, tmp_path, Quantile(), (x, torch.tensor(1.5), r(6)), getitems=False)


def test_quantile_strict_double(eir, tmp_path):
    convert_like_torch(eir, tmp_path, Quantile(), (r(2, 3, 4, dtype=torch.float64), torch.tensor(0.5, dtype=torch.float64),
                                                   r(3, dtype=torch.float64)), strict=True, getitems=False)


class SvdExp(torch.nn.Module):
    def forward(self, a, b):
        u, s, v = torch.svd(a)
        u2, s2, v2 = torch.svd(b, some=False)
        return u, s, v, u2, s2, v2, torch.matrix_exp(a[:3, :3]), torch.matrix_exp(b)


class SvdExpResize(SvdExp):
    def forward(self, a, b, t):
        # strict export (dynamo) does not trace resize_as_
        return super().forward(a, b) + (b.clone().resize_as_(t),)


def test_svd_matrix_exp_resize_as(eir, tmp_path):
    convert_like_torch(eir, tmp_path, SvdExpResize(), (r(4, 3), r(2, 3, 3), r(2, 4)), getitems=False)


def test_svd_strict(eir, tmp_path):
    convert_like_torch(eir, tmp_path, SvdExp(), (r(5, 3, dtype=torch.float64), r(3, 3, 3, dtype=torch.float64)),
                       strict=True, getitems=False)


class Norms(torch.nn.Module):
    def forward(self, a, b):
        return (torch.linalg.matrix_norm(a, -2, dim=(-1, 0), keepdim=True), torch.linalg.matrix_norm(b, 2),
                torch.linalg.matrix_norm(b, "nuc", dim=(2, 0)), torch.linalg.matrix_norm(a, "nuc", keepdim=True),
                torch.linalg.matrix_norm(b, float("inf"), dim=(0, 2)), torch.linalg.matrix_norm(b, "fro", dim=(2, 1)),
                torch.linalg.matrix_norm(a, 1), torch.linalg.matrix_norm(b, -1, dim=(1, 2), keepdim=True),
                torch.linalg.matrix_norm(b, float("-inf"), keepdim=True), torch.linalg.matrix_norm(b, "nuc", dim=(0, 1), keepdim=True),
                torch.linalg.matrix_norm(a), torch.linalg.norm(b), torch.linalg.norm(a, keepdim=True),
                torch.linalg.norm(a[0], 0), torch.linalg.norm(b[0, 0], 1, keepdim=True), torch.linalg.norm(b, 3, dim=1),
                torch.linalg.norm(b, float("inf"), dim=(0, 2)), torch.linalg.norm(a, -2), torch.linalg.norm(b, 2, (2, 1), True))


def test_matrix_norms(eir, tmp_path):
    convert_like_torch(eir, tmp_path, Norms(), (r(2, 3), r(2, 3, 4)), getitems=False)


def test_matrix_norms_strict(eir, tmp_path):
    convert_like_torch(eir, tmp_path, Norms(), (r(3, 3, dtype=torch.float64), r(3, 2, 4, dtype=torch.float64)),
                       strict=True, getitems=False)


class CondPinv(torch.nn.Module):
    def forward(self, a, b, s):
        return (torch.linalg.cond(a), torch.linalg.cond(b), torch.linalg.pinv(a, rtol=0.5), torch.linalg.pinv(b, atol=0.1),
                torch.linalg.pinv(s, atol=0.2, rtol=0.1, hermitian=True), torch.linalg.pinv(a), torch.pinverse(b),
                torch.pinverse(a, rcond=0.3))


def test_cond_pinv(eir, tmp_path):
    s = r(4, 4)
    convert_like_torch(eir, tmp_path, CondPinv(), (r(4, 4), r(2, 3, 5), s + s.T), getitems=False)


def test_cond_pinv_strict(eir, tmp_path):
    s = r(3, 3, dtype=torch.float64)
    convert_like_torch(eir, tmp_path, CondPinv(), (r(3, 3, dtype=torch.float64), r(4, 2, dtype=torch.float64), s + s.T),
                       strict=True, getitems=False)


class KeptFronts(torch.nn.Module):
    def forward(self, a, b, x, g, c, d, e, x3, g3):
        # named tuples torch.export.save cannot write, as plain tuples
        return (tuple(torch.linalg.solve_ex(a, b)), tuple(torch.linalg.solve_ex(a, b.T, left=False)), tuple(torch.qr(a)),
                tuple(torch.qr(b, some=False)), tuple(torch.lu(a, get_infos=True)), tuple(torch.lu(b[:2])),
                torch.linalg.eigvals(a), F.grid_sample(x, g, align_corners=False),
                F.grid_sample(x, g, mode="nearest", padding_mode="border", align_corners=True),
                torch.ops.aten._chunk_cat([c, d], 0, 3), torch.ops.aten._chunk_cat([c, c], 1, 3),
                torch.ops.aten._chunk_cat([c, d[:4]], 0, 2),
                torch.ops.aten._upsample_bilinear2d_aa(e, None, False, [0.5, 0.5]),
                F.interpolate(e, size=(3, 2), mode="bilinear", antialias=True, align_corners=True),
                F.grid_sample(x3, g3, mode="nearest", align_corners=True), F.grid_sample(x3, g3, padding_mode="reflection"))


def kept_fronts_args(dtype):
    return (r(3, 3, dtype=dtype) + 3 * torch.eye(3, dtype=dtype), r(3, 2, dtype=dtype), r(1, 2, 3, 3, dtype=dtype),
            torch.rand(1, 2, 2, 2, dtype=dtype) * 2 - 1, r(4, 2, dtype=dtype), r(5, dtype=dtype), r(1, 2, 4, 4, dtype=dtype),
            r(1, 2, 3, 3, 3, dtype=dtype), torch.rand(1, 2, 2, 2, 3, dtype=dtype) * 2 - 1)


def test_kept_front_ends_chunk_cat(eir, tmp_path):
    convert_like_torch(eir, tmp_path, KeptFronts(), kept_fronts_args(torch.float32), getitems=False)


def test_kept_front_ends_strict(eir, tmp_path):
    convert_like_torch(eir, tmp_path, KeptFronts(), kept_fronts_args(torch.float64), strict=True, getitems=False)


class Area(torch.nn.Module):
    def forward(self, x):
        return F.interpolate(x[..., ::2], size=3, mode="area"), F.adaptive_avg_pool1d(x[:, 1:], 5)


class AreaChannelsLast(torch.nn.Module):
    def forward(self, x):
        return F.adaptive_avg_pool1d(x.transpose(1, 2), 3)


def test_adaptive_avg_pool1d_strided(eir, tmp_path):
    convert_like_torch(eir, tmp_path, Area(), (r(2, 3, 8),))
    (tmp_path / "cl").mkdir()
    msg = K.refused(eir, tmp_path / "cl", AreaChannelsLast(), (r(2, 4, 3),))
    assert "of strides torch takes for channels-last once unsqueezed" in msg


class Histogramdd(torch.nn.Module):
    def forward(self, x, w, e0, e1):
        h, edges = torch.histogramdd(x, bins=[3, 4], weight=w, density=True)
        h2, edges2 = torch.histogramdd(x, bins=[e0, e1])
        h3, edges3 = torch.histogramdd(x, bins=[2, 2], range=[-1.0, 1.0, -2.0, 2.0])
        return h, *edges, h2, *edges2, h3, *edges3


@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
def test_histogramdd(eir, tmp_path, strict):
    """histogramdd -> _histogramdd_bin_edges + _histogramdd_from_bin_cts, or _histogramdd_from_bin_tensors
    with the bins as the edges, as torch's composite."""
    args = (r(40, 2), r(40).abs(), torch.tensor([-2.0, 0.0, 2.0]), torch.tensor([-1.0, -0.5, 0.5, 1.0]))
    convert_like_torch(eir, tmp_path, Histogramdd(), args, strict=strict)


class MultilabelMargin(torch.nn.Module):
    def forward(self, x2, t2, x1, t1, x0, t0, xs, ts):
        return (F.multilabel_margin_loss(x2, t2), F.multilabel_margin_loss(x2, t2, reduction="sum"),
                F.multilabel_margin_loss(x2, t2, reduction="none"), F.multilabel_margin_loss(x1, t1),
                F.multilabel_margin_loss(x0, t0), F.multilabel_margin_loss(xs.t(), ts.t()))


@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
def test_multilabel_margin_loss(eir, tmp_path, strict):
    """multilabel_margin_loss as torch's decomposition of multilabel_margin_loss_forward (atleast_2d, the
    targets before the first -1 gathered, the hinge summed over non-targets, reduced)."""
    t2 = torch.tensor([[3, 0, -1, 1, 1], [4, 2, 1, 0, 3], [-1, 2, 0, 0, 0], [1, -1, 4, 4, 4]])
    args = (r(4, 5), t2, r(6), torch.tensor([5, 2, -1, 0, 0, 0]), torch.tensor(0.3), torch.tensor(0),
            r(5, 3), torch.tensor([[0, 1, 2], [2, -1, 0], [1, 1, 1], [-1, 0, 0], [3, 3, -1]]))
    # torch 2.13's own decomposition gives other values than the op when a row has fewer targets than
    # classes (it counts the slots after the first -1 as class 0); eir's adds the masking step it lacks,
    # so the nodes are torch's plus permute, unsqueeze and where per loss, and the values are the op's
    dst = K.convert_like_torch(eir, tmp_path, MultilabelMargin(), args, strict=strict, same_nodes=False)
    got = [n[0] for n in K.node_seq(torch.export.load(str(dst)))]
    ep = torch.export.export(MultilabelMargin(), args, strict=strict)
    want = [n[0] for n in K.node_seq(ep.run_decompositions())]
    extra = ["aten.permute.default", "aten.unsqueeze.default", "aten.where.self"]
    assert len(got) == len(want) + 3 * 6
    for i in range(6):
        j = [k for k, t in enumerate(got) if t == "aten.where.self"][4 * i + 4]  # the masking step's where
        assert got[j - 2:j + 1] == extra
        del got[j - 2:j + 1]
    assert got == want


class MultilabelMarginOne(torch.nn.Module):
    def forward(self, x, y):
        return F.multilabel_margin_loss(x, y)


def test_multilabel_margin_loss_documented_example(eir, tmp_path):
    """torch's documented example: 0.85 (torch 2.13's run_decompositions() gives 2.05)."""
    args = (torch.tensor([[0.1, 0.2, 0.4, 0.8]]), torch.tensor([[3, 0, -1, 1]]))
    ep = torch.export.export(MultilabelMarginOne(), args)
    src, dst = tmp_path / "in.pt2", tmp_path / "out.pt2"
    torch.export.save(ep, str(src))
    assert K.convert(eir, src, dst).returncode == 0
    got = torch.export.load(str(dst)).module()(*args)
    assert torch.isclose(got, torch.tensor(0.85)), got
    assert torch.isclose(ep.module()(*args), torch.tensor(0.85))


class Bicubic(torch.nn.Module):
    def forward(self, x, y, z):
        return (F.interpolate(x, size=(7, 5), mode="bicubic", align_corners=True),
                F.interpolate(x, size=(3, 9), mode="bicubic"),
                F.interpolate(x, scale_factor=1.7, mode="bicubic"),
                F.interpolate(x, size=(1, 1), mode="bicubic", align_corners=True),
                F.interpolate(y.transpose(2, 3), scale_factor=(2.0, 0.5), mode="bicubic"),
                F.interpolate(z, size=(6, 6), mode="bicubic", align_corners=False))


@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
def test_upsample_bicubic(eir, tmp_path, strict):
    """upsample_bicubic2d.vec as torch's decomposition: cubic weights, 16 clamped index reads per output."""
    args = (r(2, 3, 4, 6), r(1, 2, 6, 4), r(1, 1, 3, 3, dtype=torch.float64))
    convert_like_torch(eir, tmp_path, Bicubic(), args, strict=strict)


class Stft(torch.nn.Module):
    def forward(self, x1, x2, w):
        return (torch.stft(x1, 16, return_complex=True), torch.stft(x2, 16, 4, window=w, return_complex=True),
                torch.stft(x2, 8, 3, normalized=True, onesided=False, return_complex=False, center=False),
                torch.stft(x1, 10, window=w[:10], return_complex=False, pad_mode="constant"))


@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
def test_stft(eir, tmp_path, strict):
    """stft of a real input as torch's composite: unfold, the window, _fft_r2c, permute, squeeze of a 1-d
    input, view_as_real unless return_complex (center's padding: the pad rule)."""
    args = (r(100), r(3, 90), torch.hann_window(16))
    convert_like_torch(eir, tmp_path, Stft(), args, strict=strict)


class NonzeroTuple(torch.nn.Module):
    def forward(self, x, s, z):
        a = torch.nonzero(x, as_tuple=True)
        b = torch.nonzero(s, as_tuple=True)
        c = torch.nonzero(z.t(), as_tuple=True)
        return (*a, *b, *c, a[0] * 2)


@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
def test_nonzero_numpy(eir, tmp_path, strict):
    """nonzero(as_tuple=True) (nonzero_numpy) -> nonzero (of a 0-d input unsqueezed), the runtime assertions
    on its row count moved onto it, then slice + squeeze per column, as torch's decomposition."""
    args = (torch.tensor([[1.0, 0, 2], [0, 3, 0]]), torch.tensor(5.0), torch.tensor([[0, 1], [2, 0], [0, 0]]))
    convert_like_torch(eir, tmp_path, NonzeroTuple(), args, strict=strict)


class Combinations(torch.nn.Module):
    def forward(self, x, y):
        return torch.combinations(x, 1), torch.combinations(y[::2], 1, with_replacement=True) * 2


@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
def test_combinations_r1(eir, tmp_path, strict):
    """combinations(x, 1): view + expand, a full mask, masked_select (the row count's assertions moved onto
    it), stack, as torch's decomposition (torch 2.13 cannot export r >= 2: its fake kernel leaves an unbacked
    symbol pending)."""
    convert_like_torch(eir, tmp_path, Combinations(), (r(4), r(6)), strict=strict)

