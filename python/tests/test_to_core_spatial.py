"""test_to_core_spatial.py — to-core rules for the FFT front ends,
resampling, unpooling, distances and indexing helpers, checked node for node
against torch's own ep.run_decompositions().

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


class Fft1d(torch.nn.Module):
    def forward(self, x, z):
        return (torch.fft.fft(x), torch.fft.fft(z, n=7, dim=0), torch.fft.ifft(x, norm="ortho"),
                torch.fft.ifft(z, n=3, norm="forward"), torch.fft.rfft(x, n=8), torch.fft.rfft(x, dim=0, n=2),
                torch.fft.irfft(z), torch.fft.irfft(x, n=4, norm="ortho"), torch.fft.hfft(z, n=10),
                torch.fft.hfft(x), torch.fft.ihfft(x, norm="forward"), torch.fft.ihfft(x, n=3, dim=0))


class FftNd(torch.nn.Module):
    def forward(self, x, z):
        return (torch.fft.fft2(x), torch.fft.fft2(z, s=(3, 7), norm="ortho"), torch.fft.fftn(x, dim=(1, 0)),
                torch.fft.ifft2(z), torch.fft.ifftn(x, s=(2, -1)), torch.fft.rfft2(x, norm="forward"),
                torch.fft.rfftn(x, s=(6, 3)), torch.fft.irfft2(z), torch.fft.irfftn(x, s=(-1, 6)),
                torch.fft.irfftn(z, dim=(0,)), torch.fft.hfft2(z), torch.fft.hfftn(x, s=(3, 5), dim=(0, 1)),
                torch.fft.hfftn(z, dim=(1,), norm="ortho"), torch.fft.ihfft2(x), torch.fft.ihfftn(x, s=(3, 6)),
                torch.fft.ihfftn(x, dim=(0,)))


def test_fft_1d(eir, tmp_path):
    convert_like_torch(eir, tmp_path, Fft1d(), (r(4, 5), r(4, 5, dtype=torch.complex64)))


def test_fft_nd(eir, tmp_path):
    convert_like_torch(eir, tmp_path, FftNd(), (r(4, 5), r(4, 5, dtype=torch.complex64)))


def test_fft_strict_double(eir, tmp_path):
    convert_like_torch(eir, tmp_path, Fft1d(), (r(3, 6, dtype=torch.float64), r(3, 6, dtype=torch.complex128)),
                       strict=True)


class Linear(torch.nn.Module):
    def forward(self, a, b):
        return (F.interpolate(a, scale_factor=2.0, mode="linear"), F.interpolate(a, size=7, mode="linear", align_corners=True),
                F.interpolate(a, scale_factor=1.7, mode="linear"), F.interpolate(a, size=1, mode="linear", align_corners=True),
                F.interpolate(a, size=3, mode="linear"),
                F.interpolate(b, scale_factor=(2.0, 1.5, 0.5), mode="trilinear"),
                F.interpolate(b, size=(3, 2, 5), mode="trilinear", align_corners=True))


class LinearStrided(torch.nn.Module):
    def forward(self, a, b):
        a = a.as_strided((2, 3, 4), (1, 2, 6))
        b = b.as_strided((1, 2, 3, 4, 2), (48, 1, 2, 6, 24))
        return F.interpolate(a, scale_factor=0.6, mode="linear"), F.interpolate(b, scale_factor=2.0, mode="trilinear")


class Unpool(torch.nn.Module):
    def forward(self, a2, i2, a1, i1, a3, i3, b2, j2):
        return (F.max_unpool2d(a2, i2, 2), F.max_unpool2d(a2, i2, 2, output_size=(5, 5)), F.max_unpool1d(a1, i1, 2),
                F.max_unpool3d(a3, i3, 2), F.max_unpool2d(b2.transpose(1, 2), j2.transpose(1, 2), 2))


class Distances(torch.nn.Module):
    def forward(self, a, b, m, g, y, v, w, bb):
        return (torch.cdist(a, b, p=1.0), torch.cdist(a, b, p=0.0, compute_mode="use_mm_for_euclid_dist"),
                torch.cdist(a, b, compute_mode="donot_use_mm_for_euclid_dist"), torch.cdist(a, b),
                F.pdist(m), F.pdist(m, 3.0), F.pdist(m.t()),
                torch.ops.aten._softmax_backward_data(g, y, 1, torch.float32),
                torch.ops.aten._softmax_backward_data(g, y, -1, torch.float32),
                torch.ops.aten._softmax_backward_data(g.t(), y.t(), 0, torch.float32),
                torch.linalg.vander(v), torch.linalg.vander(v[0], N=2), torch.linalg.vander(m[0, 0], N=3),
                F.bilinear(a, a, w, bb), F.bilinear(m.t()[:3], m[:3], w), F.bilinear(a[0], a[1], w))


class Isin(torch.nn.Module):
    def forward(self, a, b, m, s):
        return (torch.isin(a, b), torch.isin(b, a), torch.isin(a, b, invert=True), torch.isin(b, a, invert=True),
                torch.isin(m, b), torch.isin(a, s), torch.isin(a, m, invert=True))


class Cross(torch.nn.Module):
    def forward(self, a, b, c, d):
        return (torch.linalg.cross(a, c), torch.cross(c, a, dim=1), torch.linalg.cross(a, b, dim=0),
                torch.cross(d, d, dim=1), torch.linalg.cross(d.transpose(0, 1), d.transpose(0, 1), dim=-3))


class DiagEmbed(torch.nn.Module):
    def forward(self, a, v):
        return (torch.diag_embed(a), torch.diag_embed(a, 1, 0, 2), torch.diag_embed(a, -2), torch.diag_embed(a, 2, 1, 0),
                torch.diag_embed(a, 0, 0, 1), torch.diag_embed(v, -1))


class Unfold(torch.nn.Module):
    def forward(self, a, b):
        return (F.unfold(a, 2), F.unfold(a, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), F.unfold(b, 3, padding=(0, 1)),
                F.unfold(a, 1))


class Sorts(torch.nn.Module):
    def forward(self, a):
        return (torch.argsort(a), torch.argsort(a, 0), torch.argsort(a, descending=True),
                torch.argsort(a, dim=0, stable=True, descending=True), torch.argsort(a, stable=True),
                torch.conj_physical(a) + 1, torch.conj_physical(a), torch.argwhere(a > 0.5),
                torch.ops.aten._unsafe_masked_index(a, a > 0, [None, torch.tensor([0, 5, 2, 4, 3, 1])], 1.5))


def test_upsample_linear(eir, tmp_path):
    convert_like_torch(eir, tmp_path, Linear(), (r(2, 3, 5), r(1, 2, 3, 4, 2)))


def test_upsample_linear_strided(eir, tmp_path):
    convert_like_torch(eir, tmp_path, LinearStrided(), (r(24), r(48)))


def test_max_unpool(eir, tmp_path):
    a2, i2 = F.max_pool2d(r(2, 3, 4, 4), 2, return_indices=True)
    a1, i1 = F.max_pool1d(r(2, 3, 6), 2, return_indices=True)
    a3, i3 = F.max_pool3d(r(1, 2, 4, 4, 2), 2, return_indices=True)
    b2, j2 = F.max_pool2d(r(3, 4, 4), 2, return_indices=True)
    convert_like_torch(eir, tmp_path, Unpool(), (a2, i2, a1, i1, a3, i3, b2, j2))


def test_distances_vander_bilinear(eir, tmp_path):
    convert_like_torch(eir, tmp_path, Distances(), (r(3, 4), r(5, 4), r(4, 4), r(3, 5), torch.softmax(r(3, 5), 1),
                                                    r(2, 3), r(2, 4, 4), r(2)))


def test_isin(eir, tmp_path):
    a = torch.tensor([float(i % 7) for i in range(20)])
    b = torch.tensor([1.0, 3.0, 3.0, -2.0, 6.0])
    convert_like_torch(eir, tmp_path, Isin(), (a, b, torch.tensor([[0.0, 1.0], [2.0, 9.0]]), torch.tensor(3.0)),
                       getitems=False)


def test_cross(eir, tmp_path):
    convert_like_torch(eir, tmp_path, Cross(), (r(3, 3), r(3, 1), r(1, 3), r(2, 3, 4)))


def test_diag_embed(eir, tmp_path):
    convert_like_torch(eir, tmp_path, DiagEmbed(), (r(3, 4), r(5)))


def test_im2col(eir, tmp_path):
    convert_like_torch(eir, tmp_path, Unfold(), (r(2, 3, 5, 6), r(2, 4, 4)))


def test_argsort_conj_physical(eir, tmp_path):
    convert_like_torch(eir, tmp_path, Sorts(), (r(5, 6),), getitems=False)


refused = K.refused


def test_refusals(eir, tmp_path):
    class Fft(torch.nn.Module):
        def forward(self, a):
            return torch.fft.rfft(a)

    n = torch.export.Dim("n", min=2)
    err = refused(eir, tmp_path, Fft(), (r(3, 4),), dynamic_shapes=({0: n},))
    assert "node %fft_rfft (aten.fft_rfft.default): cannot decompose: input of symbolic size" in err
