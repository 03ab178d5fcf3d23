"""test_to_core_shape.py — to-core rules for shapes, views, copies, splits,
stacks, flips, grids and matrix products, checked node for node against
torch's own ep.run_decompositions().

Each program is exported by torch (strict=False, and strict=True once),
converted by `eir convert --to core`, and must pass to_core_check.check
(verifies as Core ATen, loads in torch, same outputs as the original, no
operator torch's decomposition leaves out); then its call_function nodes
(target and non-tensor arguments, in order) must be torch's.
"""
from __future__ import annotations

import os
import sys

import pytest

torch = pytest.importorskip("torch")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import to_core_check as K  # noqa: E402


def r(*s):
    g = torch.Generator().manual_seed(sum(s) + len(s))
    return torch.randn(s, generator=g)


def convert_like_torch(eir, tmp_path, mod, args, strict=False, getitems=True):
    return K.convert_like_torch(eir, tmp_path, mod, args, strict=strict, getitems=getitems)


class Views(torch.nn.Module):
    def forward(self, x, m, s1, v):
        return (torch.squeeze(s1), torch.narrow(x, 2, 1, 2), torch.narrow(x, -1, -3, 2),
                torch.movedim(x, [0, 1], [2, 0]), torch.movedim(x, -1, 0), x.T, x.mH, m.H,
                torch.ravel(x), torch.ravel(x.transpose(0, 1)), torch.tile(x, (2,)), torch.tile(m, (2, 1, 2)),
                v.expand_as(x), torch.fliplr(x), torch.flipud(m), torch.rot90(x, 1, [0, 1]),
                torch.rot90(x, 2, [1, 2]), torch.rot90(x, -1, [-1, 0]), torch.rot90(m, 4),
                torch.atleast_1d(v), torch.atleast_2d(v), torch.atleast_3d(m), torch.atleast_3d(v))


class Copies(torch.nn.Module):
    def forward(self, x, m, s1, v):
        return (torch.alias_copy(x), torch.t_copy(m), torch.transpose_copy(x, 0, -1), torch.unsqueeze_copy(x, 1),
                torch.squeeze_copy(s1), torch.squeeze_copy(s1, 1), torch.expand_copy(v, (3, 3, 4)),
                torch.diagonal_copy(x, 1, 0, 2), torch.ops.aten.unfold_copy(x, 2, 2, 1),
                *torch.split_with_sizes_copy(x, [1, 3], 2))


class Stacks(torch.nn.Module):
    def forward(self, m, n, v, w, s):
        return (torch.stack([m, n]), torch.stack([m, n], 1), torch.stack([m, n], -1), torch.stack([v, w], -2),
                torch.hstack([m, n]), torch.hstack([v, w]), torch.hstack([s, s]), torch.vstack([v, w]),
                torch.vstack([m, n]), torch.dstack([m, n]), torch.dstack([v, w]),
                torch.column_stack([v, m.T.contiguous().T, w]), torch.column_stack([s, s]))


class Splits(torch.nn.Module):
    def forward(self, x, m):
        return (*torch.unbind(x, 1), *torch.unbind(m, -1), *torch.chunk(x, 2, 2), *torch.chunk(x, 3, -1),
                *torch.unsafe_chunk(x, 2, 0), *torch.unsafe_split(x, 3, 2), *torch.tensor_split(x, 3, 2),
                *torch.tensor_split(x, [1, 5], -1), *torch.hsplit(x, 3), *torch.vsplit(x, [1]), *torch.dsplit(x, 2),
                *torch.hsplit(m, [2]))


class Grids(torch.nn.Module):
    def forward(self, a, b, c, m, n, x, mi):
        return (*torch.meshgrid(a, b, indexing="ij"), *torch.meshgrid(a, b, c, indexing="xy"),
                torch.cartesian_prod(a, b), torch.cartesian_prod(a, b, c), torch.kron(m, n), torch.kron(a, x),
                torch.tril(x, 1), torch.triu(m, -1), torch.tril(mi), torch.triu(m > 0),
                torch.roll(x, 1, 2), torch.roll(x, (1, -2), (0, -1)), torch.roll(x.transpose(0, 1), 3))


class Products(torch.nn.Module):
    def forward(self, x, m, v, w, sq, b1, b2, bs):
        return (torch.outer(v, w), torch.dot(v, v), torch.vdot(v, v), torch.mv(m, v), torch.linalg.vecdot(x, v),
                torch.linalg.vecdot(x, x, dim=1), torch.inner(m, x), torch.inner(v, v),
                torch.tensordot(x, m, dims=([1, 2], [0, 1])), torch.tensordot(x, m.T, dims=1),
                torch.addr(m.T, v, w[:3], beta=2, alpha=3), torch.addr(m.T, v, w[:3]), torch.baddbmm(bs, b1, b2),
                torch.baddbmm(bs, b1, b2, beta=0.5, alpha=2), torch.trace(m), torch.diag(m), torch.diag(m, -1), torch.diag(v), torch.diag(v, 1),
                torch.diag(w, -2), torch.diagflat(m), torch.diagflat(v, 1), torch.eye(3) + sq, torch.eye(2, 3),
                torch.eye(3, dtype=torch.bool),
                torch.linalg.diagonal(x), torch.linalg.diagonal(x, offset=1, dim1=0, dim2=2),
                torch.linalg.matrix_power(sq, 0), torch.linalg.matrix_power(sq, 1), torch.linalg.matrix_power(sq, 2), torch.linalg.matrix_power(sq, 3),
                torch.linalg.matrix_power(sq, 5), torch.linalg.matrix_power(sq, 6),
                torch.linalg.matrix_power(b1[:, :, :3], 0), torch.linalg.matrix_power(b1[:, :, :3], 2), torch.linalg.matrix_power(b1[:, :, :3], 5), torch.linalg.multi_dot([m, m.T]),
                torch.linalg.multi_dot([m, m.T, m]), torch.linalg.multi_dot([m.T, m, m.T]))


class LinalgFronts(torch.nn.Module):
    def forward(self, m, sq):
        spd = sq @ sq.T + torch.eye(3)
        return (*torch.linalg.svd(m), *torch.linalg.svd(m, full_matrices=False), torch.linalg.svdvals(m),
                *torch.linalg.eigh(spd), torch.linalg.eigvalsh(spd, UPLO="U"), torch.linalg.det(sq),
                *torch.linalg.slogdet(sq), torch.fft.fftshift(m), torch.fft.ifftshift(m, dim=(-1,)))


class Misc(torch.nn.Module):
    def forward(self, m, x, i, img, s, p1):
        mc = m.clone()
        return (torch.empty_like(m).shape, m.new_empty((2, 3)).shape, torch.empty_like(m.T).shape,
                torch.ops.aten.zero.default(m), m.resolve_conj() * 2, m.resolve_neg() + 1,
                torch.nn.functional.pixel_shuffle(img, 2), torch.nn.functional.pixel_unshuffle(img, 2),
                torch.nn.functional.channel_shuffle(img, 2), torch.diff(m), torch.diff(x, n=2, dim=0),
                torch.diff(m, prepend=m[:, :1], append=m[:, :2]), torch.diff(m, n=0), torch.take(m, i), torch.take(m.T, i),
                mc.index_fill(1, i[:2] % 4, -1.0), mc.index_fill(0, i[:2] % 3, s), mc.index_copy(1, i[:2] % 4, p1),
                mc.index_add(1, i[:2] % 4, p1, alpha=2), mc.index_add(0, i[:2] % 3, m[:2]), s.index_fill(0, i[:1] * 0, 2.0),
                s.index_fill(0, i[0] * 0, 2.0), s.index_copy(0, i[:1] * 0, s * 3), s.index_add(0, i[:1] * 0, s * 3),
                s.index_add(0, i[:1] * 0, s * 3, alpha=2),
                m.sum_to_size(1, 4),
                x.sum_to_size(3, 1), x.sum_to_size(4), x.sum_to_size(2, 3, 4),
                torch.nn.functional.max_pool1d(x, 2), torch.nn.functional.max_pool1d(x, 3, 2, 1, 1, True),
                *torch.nn.functional.max_pool1d(x, 2, return_indices=True),
                *torch.nn.functional.adaptive_max_pool1d(x, 2, return_indices=True),
                torch.nn.functional.adaptive_max_pool1d(m, 3))


class Spaces(torch.nn.Module):
    def forward(self, a, b):
        return (torch.linspace(2, 5, 1) + a[:1], torch.linspace(2, 5, 0), torch.linspace(-3, 10, 6, dtype=torch.int64) + b,
                torch.linspace(-3.5, 10.25, 7) + a, torch.logspace(-1, 2, 4, base=2.0),
                torch.logspace(0, 1, 5), torch.linspace(0, 1, 5, dtype=torch.float64))


class More(torch.nn.Module):
    def forward(self, m, v, s, sq, i, x, w, b, rm, rv, j, q):
        return (torch.block_diag(m, sq), torch.block_diag(v, s), torch.take_along_dim(m, i, 1),
                torch.take_along_dim(m, j, 0), torch.take_along_dim(m, i[:2, 0]),
                torch.trapezoid(m), torch.trapezoid(m, dx=2.0, dim=0), torch.trapz(m), torch.cumulative_trapezoid(m),
                torch.cumulative_trapezoid(m, dx=0.5, dim=0), torch.logdet(sq @ sq.T + torch.eye(3)), torch.logdet(-sq.abs()),
                torch.ops.aten.native_batch_norm(x, w, b, rm, rv, False, 0.1, 1e-5)[0],
                torch.ops.aten._chunk_cat([m, x[0]], 1, 2), torch.nn.functional.instance_norm(x),
                torch.logspace(1, 2, 0), torch.logspace(1, 2, 1), torch.trapezoid(m, v), torch.trapezoid(m, m.cos()),
                torch.trapz(m, v[:3], dim=0), torch.cumulative_trapezoid(m, v), torch.trapezoid(v, v.exp()),
                torch.ops.aten._safe_softmax(q, -1))


class Upsamples(torch.nn.Module):
    def forward(self, a, b, c):
        F = torch.nn.functional
        return (F.interpolate(a, size=5), F.interpolate(a, scale_factor=2), F.interpolate(c, scale_factor=(2, 1.5, 1)),
                F.interpolate(a, scale_factor=2, mode="nearest-exact"), F.interpolate(b, size=(3, 5), mode="nearest-exact"),
                F.interpolate(c, size=(3, 4, 2), mode="nearest-exact"))


def test_views(eir, tmp_path):
    convert_like_torch(eir, tmp_path, Views(), (r(2, 3, 4), r(3, 4), r(2, 1, 3, 1), r(4)))


def test_views_strict(eir, tmp_path):
    convert_like_torch(eir, tmp_path, Views(), (r(2, 3, 4), r(3, 4), r(2, 1, 3, 1), r(4)), strict=True)


def test_copies(eir, tmp_path):
    convert_like_torch(eir, tmp_path, Copies(), (r(2, 3, 4), r(3, 4), r(2, 1, 3), r(4)))


def test_stacks(eir, tmp_path):
    convert_like_torch(eir, tmp_path, Stacks(), (r(3, 4), r(3, 4), r(3), r(3), r()))


def test_splits(eir, tmp_path):
    convert_like_torch(eir, tmp_path, Splits(), (r(2, 3, 4), r(3, 4)))


def test_grids_masks_rolls(eir, tmp_path):
    convert_like_torch(eir, tmp_path, Grids(), (r(4), r(3), r(2), r(2, 3), r(3, 2), r(2, 3, 4),
                                                      torch.arange(12).reshape(3, 4)))


def test_products(eir, tmp_path):
    convert_like_torch(eir, tmp_path, Products(), (r(2, 3, 4), r(3, 4), r(4), r(5), r(3, 3), r(2, 3, 4), r(2, 4, 5),
                                                   r(2, 3, 5)))


def test_linalg_front_ends(eir, tmp_path):
    convert_like_torch(eir, tmp_path, LinalgFronts(), (r(3, 4), r(3, 3)), getitems=False)


def test_misc(eir, tmp_path):
    # empty outputs compared by shape: empty_like / new_empty return their sizes
    convert_like_torch(eir, tmp_path, Misc(), (r(3, 4), r(2, 3, 4), torch.tensor([0, 5, 11, 2]), r(1, 8, 4, 6), r(),
                                               r(3, 2)), getitems=False)


def test_linspace_logspace(eir, tmp_path):
    convert_like_torch(eir, tmp_path, Spaces(), (r(7), torch.ones(6, dtype=torch.int64)))


def test_more(eir, tmp_path):
    convert_like_torch(eir, tmp_path, More(), (r(3, 4), r(4), r(), r(3, 3), torch.tensor([[0], [3], [2]]), r(2, 3, 4), r(3),
                                               r(3), r(3), torch.rand(3) + 0.5,
                                               torch.tensor([[0, 1, 2, 0]]),
                                               torch.tensor([[1.0, float("-inf")], [float("-inf"), float("-inf")]])),
                       getitems=False)


def test_upsample_nearest(eir, tmp_path):
    convert_like_torch(eir, tmp_path, Upsamples(), (r(1, 2, 8), r(1, 2, 4, 4), r(1, 2, 2, 2, 3)))


refused = K.refused


def test_refusals(eir, tmp_path):
    class Roll(torch.nn.Module):
        def forward(self, a):
            return torch.roll(a, 1, 0)

    n = torch.export.Dim("n", min=2)
    err = refused(eir, tmp_path, Roll(), (r(3, 4),), dynamic_shapes=({0: n},))
    assert "node %roll (aten.roll.default): cannot decompose: an input of symbolic size" in err

    class ConjT(torch.nn.Module):
        def forward(self, a):
            return torch.view_as_complex(a).mH

    err = refused(eir, tmp_path, ConjT(), (r(3, 4, 2),))
    assert "(aten.mH.default): cannot decompose: a complex input (its conjugate is not decomposed)" in err


class Reshapes(torch.nn.Module):
    def forward(self, x, y):
        return (x.reshape(-1), x.reshape(2, -1), x.flatten(), x.flatten(1), x.view(-1), x.reshape(-1, 3),
                y.t().reshape(-1), y.t().flatten(), x.reshape(x.shape[0], -1), torch.flatten(x, 0, 1),
                x.reshape(-1, 1, 3), x.reshape(4, 6), y.reshape(5, -1), x.unflatten(0, (1, -1)), y.reshape_as(y),
                x.view_as(x), x.flatten(1, 1), y.t().reshape(3, 2, -1))


@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
def test_reshape_keeps_the_shape_given(eir, tmp_path, strict):
    """reshape -> view with its shape as given (view(x, [-1]), [2, -1]) where x can be viewed, else clone +
    view with the inferred sizes ([30]); flatten / unflatten / view_as / reshape_as -> view with the result's
    sizes (view_as and reshape_as to the same shape too); flatten of one dimension: x itself."""
    convert_like_torch(eir, tmp_path, Reshapes(), (r(4, 2, 3), r(5, 6)), strict=strict)


class SymReshapes(torch.nn.Module):
    def forward(self, x, y):
        return (x.reshape(-1), x.view(-1), x.reshape(-1, 3), x.reshape(x.shape[0], -1), x.reshape(-1, 1, 3),
                y.reshape(5, -1), y.reshape(-1))


@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
def test_reshape_symbolic_keeps_the_shape_given(eir, tmp_path, strict):
    """with symbolic sizes, reshape keeps -1 and the SymInts as the program gives them."""
    ds = {"x": {0: torch.export.Dim("n")}, "y": {1: torch.export.Dim("m")}}
    ep = torch.export.export(SymReshapes(), (r(4, 2, 3), r(5, 6)), dynamic_shapes=ds, strict=strict)
    src, dst = tmp_path / "in.pt2", tmp_path / "out.pt2"
    torch.export.save(ep, str(src))
    dec = ep.run_decompositions()
    res = K.check(eir, src, dst, (r(4, 2, 3), r(5, 6)), torch_core_ops=K.op_set(dec))
    assert res["converted"] and res["verify"] and res["loads"] and res["ops"] and res["outputs"], res["why"]
    assert K.node_seq(torch.export.load(str(dst))) == K.node_seq(dec)
    # and on other sizes
    got = torch.export.load(str(dst)).module()(r(6, 2, 3), r(5, 2))
    want = SymReshapes()(r(6, 2, 3), r(5, 2))
    assert all(torch.equal(a, b) for a, b in zip(got, want))
