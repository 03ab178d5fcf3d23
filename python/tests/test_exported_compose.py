"""Live checks of the compose kernel family (src/kernels/compose.c) against torch 2.13.

Programs as users write them — torch.einsum, tensordot, kron, F.bilinear,
F.pad in every mode, pixel_shuffle, torch.take / put / index_copy /
index_reduce, linspace / logspace, cosine_similarity, unique_consecutive,
argwhere, torch.divide(rounding_mode=...) and the like — are exported with
torch.export.export, saved, run with `eir run`, and compared with the
module's own outputs, in several dtypes at once (each program takes inputs
of several dtypes and returns every result). Each runs as exported (the
non-core ops these kernels implement: aten.einsum, aten.kron, aten.pad,
aten.linspace.Tensor_Tensor, ...) and after run_decompositions() (Core ATen).
Data-dependent outputs (unique_consecutive, argwhere) are also run on inputs
other than the ones the program was exported with, and inputs torch's kernels
refuse at run time (an index out of range) are refused by eir with torch's
message.
"""
from __future__ import annotations

import copy
import os
import subprocess

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")
F = torch.nn.functional

from conftest import to_npy as _npy  # noqa: E402
from tolerances import tolerance  # noqa: E402




class Fn(torch.nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, *args):
        return self.f(*args)


def export(tmp_path, f, args, decompose, name="p"):
    ep = torch.export.export(Fn(f), tuple(args))
    if decompose:
        ep = ep.run_decompositions()
    path = str(tmp_path / f"{name}.pt2")
    torch.export.save(ep, path)
    return ep, path


def export_forms(tmp_path, f, args, decompose):
    """f exported once; for each flag of decompose, that program (False) or its
    run_decompositions() (True, made before anything runs it), saved: [(ep, path)]"""
    ep = torch.export.export(Fn(f), tuple(args))
    forms = {False: ep, True: ep.run_decompositions() if True in decompose else None}
    out = []
    for dec in decompose:
        path = str(tmp_path / ("dec.pt2" if dec else "p.pt2"))
        torch.export.save(forms[dec], path)
        out.append((forms[dec], path))
    return out


def eir_run(eir, tmp_path, path, args, tag="run"):
    files = []
    for i, a in enumerate(args):
        f = tmp_path / f"{tag}_in_{i}.npy"
        np.save(f, _npy(a))
        files.append(str(f))
    out = tmp_path / f"{tag}_out"
    r = subprocess.run([eir, "run", path, *files, "--out", str(out)], capture_output=True, text=True, timeout=120)
    return r, out


def compare(got_dir, want, what):
    want = torch.utils._pytree.tree_leaves(want)
    for i, w in enumerate(want):
        g = np.load(got_dir / f"output_{i}.npy")
        wn = _npy(w)
        assert g.shape == wn.shape, f"{what}: output {i} shape {g.shape}, torch {wn.shape}"
        assert g.dtype == wn.dtype, f"{what}: output {i} dtype {g.dtype}, torch {wn.dtype}"
        if w.dtype.is_floating_point or w.dtype.is_complex:
            rtol, atol = tolerance(w.dtype)
            np.testing.assert_allclose(g, wn, rtol=rtol, atol=atol, err_msg=f"{what}: output {i}")
        else:
            np.testing.assert_array_equal(g, wn, err_msg=f"{what}: output {i}")


def check(eir, tmp_path, f, args, what, decompose=(False, True), ops=()):
    """Export f(*args) (as exported, then decomposed), run it in eir, compare with f;
    ops: aten targets the exported program must contain (the kernels under test)."""
    for dec, (ep, path) in zip(decompose, export_forms(tmp_path, f, args, decompose)):
        if not dec:
            targets = {str(n.target) for n in ep.graph.nodes if n.op == "call_function"}
            for op in ops:
                assert op in targets, f"{what}: the exported program has no {op} (it has {sorted(targets)})"
        r, out = eir_run(eir, tmp_path, path, args)
        assert r.returncode == 0, f"{what} ({'decomposed' if dec else 'as exported'}): {r.stderr}"
        compare(out, ep.module()(*[copy.deepcopy(a) for a in args]), f"{what} ({'decomposed' if dec else 'as exported'})")


def _r(*shape, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point or dtype.is_complex:
        return torch.randn(shape, generator=g, dtype=dtype)
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) > 0.5
    lo = 0 if dtype == torch.uint8 else -6
    return torch.randint(lo, 7, shape, generator=g).to(dtype)


FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
NUMERIC = FLOATS + [torch.int8, torch.int64, torch.uint8, torch.complex64]
ALL = NUMERIC + [torch.bool]  # nine dtypes: the C tests (tests/unit/test_k_compose.c) take every one


def per_dtype(f, dtypes, make):
    """one program over inputs of several dtypes: f applied to each group, results concatenated"""
    groups = [make(dt, i) for i, dt in enumerate(dtypes)]
    sizes = [len(g) for g in groups]

    def g(*flat):
        res, k = [], 0
        for n in sizes:
            r = f(*flat[k:k + n])
            res.extend(r if isinstance(r, (tuple, list)) else [r])
            k += n
        return tuple(res)
    return g, [t for grp in groups for t in grp]


# ---------------------------------------------------------------- products

def test_einsum(eir, tmp_path):
    def f(a, b, c, v, m):
        return (torch.einsum("ij,jk->ik", a, b), torch.einsum("bij,bkj->bik", c, c), torch.einsum("ii->i", m),
                torch.einsum("ii", m), torch.einsum("ijk->j", c), torch.einsum("...ij,...jk", c, b),
                torch.einsum("i,j->ij", v, v), torch.einsum("ij,jk,kl->il", a, b, b.t()), torch.einsum("ba,cb", a, b[:, :3]),
                torch.einsum("bij,j->bi", c, v))

    def make(dt, i):
        c = _r(2, 4, 3, dtype=dt, seed=i + 2).transpose(1, 2)
        return [_r(3, 4, dtype=dt, seed=i), _r(4, 4, dtype=dt, seed=i + 1), c, _r(4, dtype=dt, seed=i + 3), _r(5, 5, dtype=dt, seed=i + 4)]
    f2, args = per_dtype(f, [torch.float32, torch.float64, torch.float16, torch.int64, torch.complex64], make)
    check(eir, tmp_path, f2, args, "einsum", ops=["aten.einsum.default"])


def test_einsum_path_and_edges(eir, tmp_path):
    a, b, c = _r(5, 3), _r(3, 6, seed=1), _r(6, 2, seed=2)
    # opt_einsum's path as torch.einsum passes it when opt_einsum is installed: contract (1, 2) first
    check(eir, tmp_path, lambda x, y, z: torch.ops.aten.einsum.default("ij,jk,kl->il", [x, y, z], path=[1, 2, 0, 1]),
          [a, b, c], "einsum with a path", decompose=(False,))
    check(eir, tmp_path, lambda x, y: torch.einsum("ij,jk->ik", x, y), [_r(3, 0), _r(0, 4)], "einsum empty contraction")
    check(eir, tmp_path, lambda x, y: torch.einsum("i,j->ij", x, y), [_r(3, dtype=torch.bool), _r(4, dtype=torch.bool, seed=1)],
          "einsum bool outer")
    check(eir, tmp_path, lambda x: torch.einsum("bii->b", x), [_r(3, 3, 2).permute(2, 0, 1)], "einsum trace of a permuted batch")


def test_tensordot_inner_bilinear(eir, tmp_path):
    def f(a, b, x, y, w, bias):
        return (torch.tensordot(a, b, dims=([1, 0], [0, 2])), torch.tensordot(a, a.permute(1, 2, 0), dims=2), torch.inner(x, y),
                torch.inner(x[0, 0, 0], y), F.bilinear(x, x, w, bias), F.bilinear(x[0], x[1], w))
    f2, args = per_dtype(f, [torch.float32, torch.float64, torch.bfloat16],
                         lambda dt, i: [_r(3, 4, 5, dtype=dt, seed=i), _r(4, 2, 3, dtype=dt, seed=i + 1), _r(2, 3, 4, dtype=dt, seed=i + 2),
                                        _r(5, 4, dtype=dt, seed=i + 3), _r(6, 4, 4, dtype=dt, seed=i + 4), _r(6, dtype=dt, seed=i + 5)])
    check(eir, tmp_path, f2, args, "tensordot/inner/bilinear", ops=["aten.tensordot.default", "aten.inner.default", "aten.bilinear.default"])
    check(eir, tmp_path, lambda a, b: torch.tensordot(a, b, dims=1), [_r(3, 4, dtype=torch.int32), _r(4, 2, dtype=torch.int32, seed=1)],
          "tensordot int32")


def test_outer_kron_vdot_trace(eir, tmp_path):
    f, args = per_dtype(lambda u, v, m, n: (torch.outer(u, v), torch.ger(v, u), torch.kron(m, n), torch.kron(u, m), torch.trace(m)),
                        NUMERIC, lambda dt, i: [_r(3, dtype=dt, seed=i), _r(4, dtype=dt, seed=i + 1), _r(2, 3, dtype=dt, seed=i + 2),
                                                _r(4, 1, dtype=dt, seed=i + 3)])
    check(eir, tmp_path, f, args, "outer/ger/kron/trace", ops=["aten.outer.default", "aten.kron.default", "aten.trace.default"])
    # a kron of rank 5 views 10 dims at once (run block by block); its decomposition needs rank-10 views eir does not hold
    check(eir, tmp_path, lambda m, n: torch.kron(m, n), [_r(2, 1, 2, 3, 2), _r(2, 1, 2, seed=1)], "kron rank 5", decompose=(False,))
    f, args = per_dtype(lambda u, v: torch.vdot(u, v), [torch.float32, torch.float64, torch.float16, torch.int32, torch.complex64, torch.complex128],
                        lambda dt, i: [_r(7, dtype=dt, seed=i), _r(14, dtype=dt, seed=i + 1)[::2]])
    check(eir, tmp_path, f, args, "vdot", ops=["aten.vdot.default"])
    check(eir, tmp_path, lambda a, b: torch.kron(a, b), [_r(2, 3, dtype=torch.int32), _r(3, 2)], "kron promotes")


def test_addr_addbmm(eir, tmp_path):
    f, args = per_dtype(lambda s, u, v, m, b1, b2: (torch.addr(s, u, v, beta=2, alpha=3), torch.addr(s[0], u, v, beta=0),
                                                    torch.addr(s.t().contiguous().t(), u, v), torch.addbmm(m, b1, b2, beta=2, alpha=3),
                                                    torch.addbmm(m[0], b1, b2)),
                        [torch.float32, torch.float64, torch.float16, torch.int32, torch.int64, torch.complex64],
                        lambda dt, i: [_r(19, 37, dtype=dt, seed=i), _r(19, dtype=dt, seed=i + 1), _r(37, dtype=dt, seed=i + 2),
                                       _r(3, 5, dtype=dt, seed=i + 3), _r(4, 3, 2, dtype=dt, seed=i + 4), _r(4, 2, 5, dtype=dt, seed=i + 5)])
    check(eir, tmp_path, f, args, "addr/addbmm", ops=["aten.addr.default", "aten.addbmm.default"])
    check(eir, tmp_path, lambda s, u, v, m, b1, b2: (torch.addr(s, u, v, beta=1 + 2j, alpha=2 - 3j), torch.addbmm(m, b1, b2, beta=0.5j, alpha=2 + 1j)),
          [_r(3, 4, dtype=torch.complex64), _r(3, dtype=torch.complex64, seed=1), _r(4, dtype=torch.complex64, seed=2),
           _r(3, 5, dtype=torch.complex64, seed=3), _r(2, 3, 4, dtype=torch.complex64, seed=4), _r(2, 4, 5, dtype=torch.complex64, seed=5)],
          "addr/addbmm complex alpha and beta", decompose=(False,))
    check(eir, tmp_path, lambda s, u, v: torch.addr(s, u, v), [_r(3, 4, dtype=torch.bool), _r(3, dtype=torch.bool, seed=1),
                                                               _r(4, dtype=torch.bool, seed=2)], "addr bool")


# ---------------------------------------------------------------- shapes and diagonals

def test_diagonals_and_eye(eir, tmp_path):
    f, args = per_dtype(lambda v, m: (torch.diag(v), torch.diag(v, 2), torch.diag(m, -1), torch.diag_embed(m), torch.diag_embed(m, 1, 0, 2),
                                      torch.diagflat(m.t(), -1), torch.block_diag(m, v, v[0])),
                        ALL, lambda dt, i: [_r(4, dtype=dt, seed=i), _r(2, 3, dtype=dt, seed=i + 1)])
    check(eir, tmp_path, f, args, "diagonals", ops=["aten.diag.default", "aten.diag_embed.default", "aten.diagflat.default",
                                                    "aten.block_diag.default"])
    check(eir, tmp_path, lambda x: (torch.eye(3) + x, torch.eye(2, 4, dtype=torch.int8), torch.eye(3, dtype=torch.bool), torch.eye(0, 2)),
          [_r(3)], "eye", ops=["aten.eye.default", "aten.eye.m"])


def test_tile_rot_flip(eir, tmp_path):
    f, args = per_dtype(lambda x: (torch.tile(x, (2,)), torch.tile(x, (2, 1, 3)), torch.tile(x[0], (2, 2, 1, 2, 1)), torch.rot90(x),
                                   torch.rot90(x, 2), torch.rot90(x, -1, [2, 0]), torch.fliplr(x), torch.flipud(x.transpose(0, 2))),
                        ALL, lambda dt, i: [_r(2, 3, 4, dtype=dt, seed=i)])
    check(eir, tmp_path, f, args, "tile/rot90/flips", ops=["aten.tile.default", "aten.rot90.default", "aten.fliplr.default", "aten.flipud.default"])


def test_meshgrid_broadcast_atleast(eir, tmp_path):
    f, args = per_dtype(lambda a, b, c, m: (*torch.meshgrid(a, b, c, indexing="ij"), *torch.meshgrid(a, b, indexing="xy"),
                                            *torch.meshgrid(a, c), *torch.broadcast_tensors(m, b, c), torch.atleast_1d(c), torch.atleast_2d(a),
                                            torch.atleast_3d(m), *torch.atleast_3d(a, c), *torch.atleast_2d((m, c))),
                        ALL, lambda dt, i: [_r(2, dtype=dt, seed=i), _r(3, dtype=dt, seed=i + 1), _r(dtype=dt, seed=i + 2),
                                            _r(2, 1, dtype=dt, seed=i + 3)])
    check(eir, tmp_path, f, args, "meshgrid/broadcast_tensors/atleast",
          ops=["aten.meshgrid.indexing", "aten.meshgrid.default", "aten.broadcast_tensors.default", "aten.atleast_1d.default",
               "aten.atleast_3d.Sequence"])


def test_splits_repeats_shuffles(eir, tmp_path):
    f, args = per_dtype(lambda x, img: (*torch._VF.unsafe_split(x, 2, 1), *torch._VF.unsafe_split_with_sizes(x, [1, 4], 1),
                                        *torch._VF.unsafe_chunk(x, 3, -1), torch.repeat_interleave(x, 2), x.repeat_interleave(3, dim=1),
                                        F.pixel_shuffle(img, 2), F.pixel_unshuffle(img, 2), F.channel_shuffle(img, 2),
                                        torch.nn.ChannelShuffle(4)(img), torch.cartesian_prod(x[0], x[1, :2], x[2, :3])),
                        ALL, lambda dt, i: [_r(3, 5, dtype=dt, seed=i), _r(2, 8, 4, 6, dtype=dt, seed=i + 1)])
    check(eir, tmp_path, f, args, "splits/repeat_interleave/shuffles",
          ops=["aten.unsafe_split.Tensor", "aten.unsafe_chunk.default", "aten.repeat_interleave.self_int", "aten.pixel_shuffle.default",
               "aten.pixel_unshuffle.default", "aten.channel_shuffle.default", "aten.cartesian_prod.default"])
    check(eir, tmp_path, lambda x: torch.combinations(x, r=1), [_r(5)], "combinations", ops=["aten.combinations.default"])


def test_pad(eir, tmp_path):
    f, args = per_dtype(lambda x: (F.pad(x, (1, 2)), F.pad(x, (1, 0, -1, 2), value=3), F.pad(x, (1, 2), mode="circular"),
                                   F.pad(x, (2, -1, 1, 3), mode="circular")),
                        ALL, lambda dt, i: [_r(2, 3, 4, dtype=dt, seed=i)])
    check(eir, tmp_path, f, args, "pad constant/circular", ops=["aten.pad.default"])
    f, args = per_dtype(lambda x, y: (F.pad(x, (1, 2), mode="reflect"), F.pad(x, (1, 2), mode="replicate"),
                                      F.pad(x, (1, 1, 2, 0), mode="reflect"), F.pad(x, (1, 1, 2, 0), mode="replicate"),
                                      F.pad(y, (1, 2, 1, 1, 0, 1), mode="reflect"), F.pad(y, (1, 2, 1, 1, 0, 1), mode="replicate"),
                                      F.pad(y, (1, 2, 1, 1, 0, 1), mode="circular")),
                        FLOATS, lambda dt, i: [_r(2, 3, 4, dtype=dt, seed=i), _r(1, 2, 3, 4, 5, dtype=dt, seed=i + 1)])
    check(eir, tmp_path, f, args, "pad reflect/replicate", ops=["aten.pad.default"])


# ---------------------------------------------------------------- indexing

def test_take_put_index_ops(eir, tmp_path):
    def make(dt, i):
        return [_r(3, 4, dtype=dt, seed=i), _r(4, dtype=dt, seed=i + 1), _r(2, 4, dtype=dt, seed=i + 2), _r(dtype=dt, seed=i + 3)]

    def f(x, v, s, z):
        i2 = torch.tensor([[0, -1], [5, 11]])
        return (torch.take(x, i2), torch.take_along_dim(x, torch.tensor([[0, -1, 5], [2, 3, -5], [1, 1, 1]]), dim=1),
                torch.take_along_dim(x, torch.tensor([0, 5, 11])), torch.put(x, torch.tensor([0, -1, 5, 5]), v),
                torch.put(x, torch.tensor([0, -1, 5, 5]), v, accumulate=True), x.clone().put_(torch.tensor([1, 2]), v[:2]),
                torch.index_copy(x, 0, torch.tensor([2, 0]), s), x.clone().index_copy_(1, torch.tensor([3]), x[:, :1]),
                torch.index_fill(x, 1, torch.tensor([0, -1]), 2), torch.index_fill(x, 0, torch.tensor([1]), z),
                x.clone().index_fill_(0, torch.tensor([2]), True), torch.as_strided_copy(x, (2, 2), (1, 2)),
                torch.as_strided_copy(x, (3,), (2,), 1), torch.as_strided_scatter(x, s[:, :2], (2, 2), (1, 2)),
                torch.as_strided_scatter(x, v[:2], (2,), (3,), 2))
    f2, args = per_dtype(f, ALL, make)
    check(eir, tmp_path, f2, args, "take/put/index_copy/index_fill/as_strided",
          ops=["aten.take.default", "aten.take_along_dim.default", "aten.put.default", "aten.put_.default", "aten.index_copy.default",
               "aten.index_copy_.default", "aten.index_fill.int_Scalar", "aten.index_fill.int_Tensor", "aten.index_fill_.int_Scalar",
               "aten.as_strided_copy.default", "aten.as_strided_scatter.default"])


def test_index_reduce(eir, tmp_path):
    def f(x, s, v, w):
        i = torch.tensor([0, 2, 0])
        return tuple(torch.index_reduce(t, 0, i, u, r, include_self=inc) for t, u in ((x, s), (v, w))
                     for r in ("prod", "mean", "amax", "amin") for inc in (True, False))
    f2, args = per_dtype(f, [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.int32, torch.int64, torch.uint8],
                         lambda dt, i: [_r(3, 4, dtype=dt, seed=i), _r(3, 4, dtype=dt, seed=i + 1), _r(4, dtype=dt, seed=i + 2),
                                        _r(3, dtype=dt, seed=i + 3)])
    x = args[0].clone()
    x[0, 1] = float("nan")
    args[0] = x
    check(eir, tmp_path, f2, args, "index_reduce", ops=["aten.index_reduce.default"])


def test_nonzero_static_argwhere_count(eir, tmp_path):
    def make(dt, i):
        x = _r(2, 3, 4, dtype=dt, seed=i)
        return [x * (_r(2, 3, 4, seed=i + 7) > 0).to(dt) if dt != torch.bool else x]
    f, args = per_dtype(lambda x: (torch.nonzero_static(x, size=3), torch.nonzero_static(x, size=30, fill_value=-7), torch.count_nonzero(x),
                                   torch.count_nonzero(x, dim=1), torch.count_nonzero(x, dim=(0, 2))), ALL, make)
    check(eir, tmp_path, f, args, "nonzero_static/count_nonzero",
          ops=["aten.nonzero_static.default", "aten.count_nonzero.default", "aten.count_nonzero.dim_IntList"])
    # argwhere's row count comes from the data: other inputs give other counts
    _, path = export(tmp_path, lambda x: torch.argwhere(x) * 2, [make(torch.float32, 0)[0]], False)
    for seed in range(3):
        x = make(torch.float32, seed + 10)[0]
        r, out = eir_run(eir, tmp_path, path, [x], f"argwhere{seed}")
        assert r.returncode == 0, r.stderr
        compare(out, torch.argwhere(x) * 2, f"argwhere seed {seed}")


def test_unique_consecutive(eir, tmp_path):
    def f(x, m):
        return (*torch.unique_consecutive(x, return_inverse=True, return_counts=True), torch.unique_consecutive(x),
                *torch.unique_consecutive(m, return_counts=True, dim=0), *torch.unique_consecutive(m, return_inverse=True, dim=1))
    x = torch.tensor([1, 1, 2, 2, 2, 3, 1, 1, 0])
    m = torch.tensor([[1, 1, 2], [1, 1, 2], [0, 0, 1]])
    for dt in [torch.float32, torch.float16, torch.int64, torch.uint8, torch.bool]:
        check(eir, tmp_path, f, [x.to(dt), m.to(dt)], f"unique_consecutive {dt}", decompose=(False,),
              ops=["aten.unique_consecutive.default"])
    # the number of runs comes from the data
    _, path = export(tmp_path, lambda a: torch.unique_consecutive(a, return_inverse=True, return_counts=True), [x.float()], False)
    nan = float("nan")
    for k, y in enumerate([torch.full((9,), 5.0), torch.arange(9.0), torch.tensor([nan, nan, nan, 0.0, -0.0, 1, 1, nan, 2])]):
        r, out = eir_run(eir, tmp_path, path, [y], f"uc{k}")
        assert r.returncode == 0, r.stderr
        compare(out, torch.unique_consecutive(y, return_inverse=True, return_counts=True), f"unique_consecutive data {k}")


def test_runtime_errors(eir, tmp_path):
    """inputs torch's kernels refuse at run time: eir refuses them with torch's words"""
    cases = [
        (lambda x, i: torch.take(x, i), [_r(3, 4), torch.tensor([1])], [_r(3, 4), torch.tensor([12])],
         "out of range: tried to access index 12 on a tensor of 12 elements."),
        (lambda x, i: torch.put(x, i, torch.ones(1)), [_r(3, 4), torch.tensor([1])], [_r(3, 4), torch.tensor([-13])],
         "out of range: tried to access index -13 on a tensor of 12 elements."),
        (lambda x, i: torch.index_copy(x, 0, i, torch.ones(1, 4)), [_r(3, 4), torch.tensor([1])], [_r(3, 4), torch.tensor([3])],
         "index_copy_(): index 3 is out of bounds for dimension 0 with size 3"),
        (lambda x, i: torch.index_fill(x, 0, i, 1.0), [_r(3, 4), torch.tensor([1])], [_r(3, 4), torch.tensor([-4])],
         "index -4 is out of bounds for dimension 0 with size 3"),
        (lambda x, i: torch.index_reduce(x, 0, i, torch.ones(1, 4), "amax"), [_r(3, 4), torch.tensor([1])], [_r(3, 4), torch.tensor([-1])],
         "index out of range in self"),
        (lambda x, i: torch.take_along_dim(x, i), [_r(3, 4), torch.tensor([1])], [_r(3, 4), torch.tensor([-1])],
         "index -1 is out of bounds for dimension 0 with size 12"),
        (lambda d, l: torch.segment_reduce(d, "sum", lengths=l), [_r(4), torch.tensor([1, 3])], [_r(4), torch.tensor([2, 3])],
         "segment_reduce(): Expected all rows of lengths along axis to sum to data.size(lengths.dim()-1) when !unsafe."),
        (lambda d, l: torch.segment_reduce(d, "sum", lengths=l), [_r(4), torch.tensor([1, 3])], [_r(4), torch.tensor([5, -1])],
         "lengths contains negative value!"),
        (lambda s, e: torch.linspace(s, e, 5, dtype=torch.int8), [torch.tensor(0.0), torch.tensor(3.0)], [torch.tensor(0.0), torch.tensor(300.0)],
         "value cannot be converted to type int8_t without overflow"),
    ]
    for k, (f, ok_args, bad_args, msg) in enumerate(cases):
        _, path = export(tmp_path, f, ok_args, False, f"err{k}")
        with pytest.raises(Exception) as e:
            f(*bad_args)
        assert msg in str(e.value), f"case {k}: torch now says {e.value}"
        r, _ = eir_run(eir, tmp_path, path, bad_args, f"err{k}")
        assert r.returncode != 0 and msg in r.stderr, f"case {k}: eir said {r.stderr!r}, torch {msg!r}"


# ---------------------------------------------------------------- reductions and vectors

def test_reductions(eir, tmp_path):
    f, args = per_dtype(lambda x: (x.sum_to_size(1, 4), x.sum_to_size(3, 1), x.sum_to_size(4), x.sum_to_size(3, 4)), ALL,
                        lambda dt, i: [_r(3, 4, dtype=dt, seed=i)])
    check(eir, tmp_path, f, args, "sum_to_size", ops=["aten.sum_to_size.default"])
    f, args = per_dtype(lambda d, l, o, d2, l2: tuple(torch.segment_reduce(d, r, lengths=l) for r in ("sum", "mean", "max", "min", "prod"))
                        + (torch.segment_reduce(d, "max", lengths=l, initial=0.5), torch.segment_reduce(d[:, 0], "mean", offsets=o),
                           torch.segment_reduce(d2, "sum", lengths=l2, axis=1)),
                        FLOATS, lambda dt, i: [_r(6, 3, dtype=dt, seed=i), torch.tensor([2, 0, 3, 1]), torch.tensor([0, 2, 2, 5, 6]),
                                               _r(2, 5, 3, dtype=dt, seed=i + 1), torch.tensor([[2, 3], [0, 5]])])
    check(eir, tmp_path, f, args, "segment_reduce", ops=["aten.segment_reduce.default"])


def test_vectors(eir, tmp_path):
    f, args = per_dtype(lambda a, b, x, y: (torch.cross(a, b), torch.linalg.cross(a, b[:1]), torch.cross(a, b, dim=1), torch.linalg.vecdot(x, y),
                                            F.cosine_similarity(x, y), F.cosine_similarity(x, y[:1], dim=-1, eps=0.5),
                                            F.cosine_similarity(x, y[:, None], dim=-1),
                                            F.pairwise_distance(x, y), F.pairwise_distance(x, y, p=1, keepdim=True),
                                            torch.dist(x, y), torch.dist(x, y, 3.5), torch.dist(x, y, float("inf"))),
                        FLOATS, lambda dt, i: [_r(2, 3, 3, dtype=dt, seed=i), _r(2, 3, 3, dtype=dt, seed=i + 1), _r(3, 4, dtype=dt, seed=i + 2),
                                               _r(3, 4, dtype=dt, seed=i + 3)])
    check(eir, tmp_path, f, args, "cross/vecdot/cosine/pairwise/dist/renorm",
          ops=["aten.cross.default", "aten.linalg_cross.default", "aten.linalg_vecdot.default", "aten.cosine_similarity.default",
               "aten.pairwise_distance.default", "aten.dist.default"])
    # renorm's decomposition for float16/bfloat16 has prims.convert_element_type, which eir does not run
    for dt in FLOATS:
        check(eir, tmp_path, lambda x: (torch.renorm(x, 2, 0, 1.0), torch.renorm(x, 1, 1, 2.0), torch.renorm(x, 3, -1, 0.5)),
              [_r(3, 4, 2, dtype=dt)], f"renorm {dt}", decompose=(False, True) if dt in (torch.float32, torch.float64) else (False,),
              ops=["aten.renorm.default"])
    check(eir, tmp_path, lambda a, b: (torch.linalg.cross(a, b), torch.cross(a.real.to(torch.int64), b.real.to(torch.int64)),
                                       F.cosine_similarity(a.real.to(torch.int32), b.real), torch.dist(a, b), torch.dist(a, b, 1),
                                       F.pairwise_distance(a, b), torch.renorm(a, 2, 0, 1.0)),
          [_r(4, 3, dtype=torch.complex64), _r(4, 3, dtype=torch.complex64, seed=1)], "complex cross/dist/renorm, integer cross/cosine",
          decompose=(False,))
    # decomposed, complex vecdot conjugates through aten._conj, a view eir does not conjugate yet
    check(eir, tmp_path, lambda x, y: torch.linalg.vecdot(x, y), [_r(3, 4, dtype=torch.complex128, seed=2), _r(4, dtype=torch.complex128, seed=3)],
          "complex vecdot", decompose=(False,))


# ---------------------------------------------------------------- factories and aliases

def test_linspace_logspace(eir, tmp_path):
    def f(s, e, x):
        out = [x]
        for dt in [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int16, torch.int64, torch.uint8, torch.complex64]:
            out += [torch.linspace(-3, 7, 9, dtype=dt), torch.linspace(0, 5, 1, dtype=dt), torch.logspace(0, 2, 5, dtype=dt),
                    torch.logspace(-1, 1, 4, base=2, dtype=dt)]
        out += [torch.linspace(s, e, 7), torch.linspace(s, 3.5, 5, dtype=torch.float64), torch.linspace(-1, e, 6, dtype=torch.float16),
                torch.logspace(s, e, 7), torch.logspace(s, 1.5, 5, base=3, dtype=torch.float64), torch.logspace(-1, e, 6),
                torch.linspace(0, 1, 3000), torch.linspace(-100, 100, 301, dtype=torch.int16)]
        return tuple(out)
    check(eir, tmp_path, f, [torch.tensor(-2.0), torch.tensor(1.0), _r(2)], "linspace/logspace",
          ops=["aten.linspace.default", "aten.linspace.Tensor_Tensor", "aten.linspace.Tensor_Scalar", "aten.linspace.Scalar_Tensor",
               "aten.logspace.default", "aten.logspace.Tensor_Tensor", "aten.logspace.Tensor_Scalar", "aten.logspace.Scalar_Tensor"])


def test_window_functions(eir, tmp_path):
    """The windows of spectral programs (torch.stft's window argument), in every float dtype and overload,
    and a centered stft (aten.pad before aten.stft) with a Hann window built in the program."""
    def f(x):
        out = []
        for dt in FLOATS:
            out += [torch.hann_window(16, dtype=dt), torch.hann_window(15, periodic=False, dtype=dt),
                    torch.hamming_window(10, dtype=dt), torch.hamming_window(9, False, dtype=dt),
                    torch.hamming_window(9, True, 0.6, dtype=dt), torch.hamming_window(9, False, 0.6, 0.3, dtype=dt),
                    torch.blackman_window(12, dtype=dt), torch.blackman_window(13, False, dtype=dt),
                    torch.bartlett_window(11, dtype=dt), torch.bartlett_window(10, False, dtype=dt),
                    torch.kaiser_window(20, dtype=dt), torch.kaiser_window(21, False, dtype=dt),
                    torch.kaiser_window(21, False, 5.0, dtype=dt), torch.hann_window(1, dtype=dt), torch.hann_window(0, dtype=dt)]
        out += [torch.hann_window(1000), torch.blackman_window(2049, dtype=torch.float64),
                torch.view_as_real(torch.stft(x, 16, hop_length=4, window=torch.hann_window(16), return_complex=True))]
        return tuple(out)
    check(eir, tmp_path, f, [_r(2, 100)], "window functions",
          ops=["aten.hann_window.default", "aten.hann_window.periodic", "aten.hamming_window.default",
               "aten.hamming_window.periodic", "aten.hamming_window.periodic_alpha", "aten.hamming_window.periodic_alpha_beta",
               "aten.blackman_window.default", "aten.blackman_window.periodic", "aten.bartlett_window.default",
               "aten.bartlett_window.periodic", "aten.kaiser_window.default", "aten.kaiser_window.periodic",
               "aten.kaiser_window.beta", "aten.stft.default", "aten.pad.default"])


def test_empty_factories_zero(eir, tmp_path):
    check(eir, tmp_path, lambda x: (torch.empty_permuted((2, 3, 4), (2, 0, 1)).fill_(1) + x, x.new_empty_strided((2, 3), (1, 2)).fill_(2),
                                    x.clone().zero_(), torch.zeros_like(x).fill_(torch.tensor(3.0))),
          [_r(4)], "empty_permuted/new_empty_strided/zero_",
          ops=["aten.empty_permuted.default", "aten.new_empty_strided.default", "aten.zero_.default", "aten.fill_.Scalar"])


def test_aliases(eir, tmp_path):
    def make(dt, i):
        return [_r(3, 4, dtype=dt, seed=i), _r(4, dtype=dt, seed=i + 1).abs() + 1 if dt != torch.bool else _r(4, dtype=dt, seed=i + 1)]

    def f(a, b):
        r = [torch.true_divide(a, b), torch.divide(a, b), torch.divide(a, 2), torch.true_divide(a, 2.5), torch.square(a),
             torch.max(a, b), torch.min(a, b)]
        if a.dtype != torch.bool:
            r += [torch.subtract(a, b), torch.subtract(a, b, alpha=2), torch.subtract(a, 3), a.clone().subtract_(b)]
        if not a.dtype.is_complex and a.dtype != torch.bool:
            r += [torch.divide(a, b, rounding_mode="floor"), torch.divide(a, b, rounding_mode="trunc"), torch.divide(a, 2, rounding_mode="floor"),
                  a.clone().divide_(b, rounding_mode="floor")]
        return tuple(r)
    for dts in ([torch.float32, torch.float16, torch.int8, torch.int64, torch.uint8], [torch.bfloat16, torch.float64, torch.bool, torch.int32]):
        f2, args = per_dtype(f, dts, make)
        check(eir, tmp_path, f2, args, f"aliases {dts}", ops=["aten.true_divide.Tensor", "aten.divide.Tensor", "aten.square.default",
                                                               "aten.max.other", "aten.min.other"])
    check(eir, tmp_path, lambda a, b: (torch.square(a), torch.divide(a, b), torch.subtract(a, b, alpha=2)),
          [_r(3, 4, dtype=torch.complex64), _r(4, dtype=torch.complex64, seed=1)], "complex aliases")


# ---------------------------------------------------------------- one_hot, stacks, diff, msort, tri indices

def test_one_hot(eir, tmp_path):
    check(eir, tmp_path, lambda i, j: (F.one_hot(i, 5), F.one_hot(j, 4), F.one_hot(i[:0], 3), F.one_hot(j.t(), 7) * 2),
          [torch.tensor([0, 4, 2, 2]), torch.tensor([[1, 3, 0], [2, 2, 1]])], "one_hot", ops=["aten.one_hot.default"])
    # a class value out of range is refused with torch's words
    _, path = export(tmp_path, lambda i: F.one_hot(i, 3), [torch.tensor([0, 2])], False, "oh_err")
    for bad, msg in ((torch.tensor([0, 3]), "Class values must be smaller than num_classes."),
                     (torch.tensor([-1, 0]), "Class values must be non-negative.")):
        r, _ = eir_run(eir, tmp_path, path, [bad], "oh_err")
        assert r.returncode != 0 and msg in r.stderr, r.stderr


def test_stacks(eir, tmp_path):
    def f(s, v, m, c):
        return (torch.hstack([v, v, s]), torch.hstack([m, m[:, :1]]), torch.vstack([v, v]), torch.vstack([m, v[:2], s.expand(2)]),
                torch.dstack([v, v, s.expand(4)]), torch.dstack([m, m]), torch.dstack([c, c]), torch.column_stack([v[:3], v[:3], m]),
                torch.column_stack([s, s]), torch.hstack([c, c]))
    f2, args = per_dtype(f, ALL, lambda dt, i: [_r(dtype=dt, seed=i), _r(4, dtype=dt, seed=i + 1), _r(3, 3, dtype=dt, seed=i + 2)[:, :2].t().t(),
                                                _r(2, 3, 2, dtype=dt, seed=i + 3)])
    check(eir, tmp_path, f2, args, "hstack/vstack/dstack/column_stack",
          ops=["aten.hstack.default", "aten.vstack.default", "aten.dstack.default", "aten.column_stack.default"])
    check(eir, tmp_path, lambda a, b: (torch.hstack([a, b]), torch.vstack([b, a]), torch.column_stack([a, b])),
          [_r(3, dtype=torch.int32), _r(3, dtype=torch.float16, seed=1)], "stacks promote")


def test_diff(eir, tmp_path):
    def f(x, p, q):
        return (torch.diff(x), torch.diff(x, dim=0), torch.diff(x, n=2, dim=1), torch.diff(x, n=3, dim=0, prepend=p, append=x),
                torch.diff(x, n=0, prepend=x), torch.diff(x.t(), n=9, dim=0), torch.diff(x, dim=-1, prepend=q.t()), torch.diff(x[:, :0]))
    f2, args = per_dtype(f, ALL, lambda dt, i: [_r(3, 5, dtype=dt, seed=i), _r(2, 5, dtype=dt, seed=i + 1), _r(1, 3, dtype=dt, seed=i + 2)])
    check(eir, tmp_path, f2, args, "diff", ops=["aten.diff.default"])
    check(eir, tmp_path, lambda a, b, c: (torch.diff(a, prepend=b), torch.diff(c, append=a), torch.diff(c, prepend=b)),
          [_r(4, dtype=torch.int64), _r(2, dtype=torch.float32, seed=1), _r(3, dtype=torch.bool, seed=2)], "diff promotes")


def test_msort_tri_indices(eir, tmp_path):
    f, args = per_dtype(lambda x: (torch.msort(x), torch.msort(x.t()), torch.msort(x[0]), torch.msort(x[:0])),
                        [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.int64, torch.uint8, torch.bool],
                        lambda dt, i: [_r(5, 3, dtype=dt, seed=i)])
    check(eir, tmp_path, f, args, "msort", ops=["aten.msort.default"])
    x = _r(6)
    x[1] = float("nan")
    x[3] = -0.0
    check(eir, tmp_path, lambda y: torch.msort(y), [x], "msort nan")
    check(eir, tmp_path, lambda x: (torch.tril_indices(4, 3) + x.long(), torch.tril_indices(3, 5, 1), torch.tril_indices(3, 5, -2),
                                    torch.triu_indices(4, 3), torch.triu_indices(3, 5, 2, dtype=torch.int32), torch.triu_indices(3, 5, -1),
                                    torch.tril_indices(0, 3), torch.triu_indices(3, 4, 10), torch.tril_indices(3, 4, -5)),
          [_r(1)], "tril_indices/triu_indices", ops=["aten.tril_indices.default", "aten.triu_indices.default"])


# ---------------------------------------------------------------- trapezoid rule

def test_trapezoid(eir, tmp_path):
    def f(y, x, x2):
        return (torch.trapezoid(y), torch.trapezoid(y, dx=0.5, dim=0), torch.trapezoid(y, x), torch.trapezoid(y, x2, dim=0),
                torch.trapz(y, x), torch.trapz(y, dx=2.0, dim=0), torch.cumulative_trapezoid(y), torch.cumulative_trapezoid(y, dx=3, dim=0),
                torch.cumulative_trapezoid(y, x), torch.cumulative_trapezoid(y.t(), x2, dim=-1), torch.trapezoid(y[:, :0]),
                torch.trapezoid(y[:, :0], x[:0]), torch.cumulative_trapezoid(y[:, :1]), torch.trapezoid(y, y * 2, dim=0))
    f2, args = per_dtype(f, [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int32, torch.int64, torch.complex64],
                         lambda dt, i: [_r(3, 5, dtype=dt, seed=i), _r(5, dtype=dt, seed=i + 1).cumsum(0) if dt != torch.complex64
                                        else _r(5, dtype=dt, seed=i + 1), _r(3, dtype=dt, seed=i + 2)])
    check(eir, tmp_path, f2, args, "trapezoid/trapz/cumulative_trapezoid",
          ops=["aten.trapezoid.x", "aten.trapezoid.dx", "aten.trapz.x", "aten.trapz.dx", "aten.cumulative_trapezoid.x",
               "aten.cumulative_trapezoid.dx"])
    # an x of higher rank is sliced along dim as wrapped for y (torch's Integration.cpp)
    check(eir, tmp_path, lambda y, x: (torch.trapezoid(y, x[0]), torch.cumulative_trapezoid(y, x[0]), torch.trapezoid(y, x[0], dim=0),
                                       torch.trapezoid(y, x[:, :1], dim=0)),
          [_r(3, 4, dtype=torch.int64), _r(2, 3, 4, dtype=torch.float16, seed=1)], "trapezoid mixed dtypes and a larger x")


# ---------------------------------------------------------------- max_unpool

def test_max_unpool(eir, tmp_path):
    def f(x, x3, x1):
        y, i = F.max_pool2d(x, 2, return_indices=True)
        z, j = F.max_pool3d(x3, 2, stride=(1, 2, 2), return_indices=True)
        w, k = F.max_pool1d(x1, 3, return_indices=True)
        return (F.max_unpool2d(y, i, 2), F.max_unpool2d(y, i, 2, output_size=(9, 7)), F.max_unpool2d(y[0], i[0], 2),
                F.max_unpool3d(z, j, 2, stride=(1, 2, 2)), F.max_unpool3d(z[0], j[0], 2, stride=(1, 2, 2), output_size=(4, 5, 5)),
                F.max_unpool1d(w, k, 3), F.max_unpool2d(y[:0], i[:0], 2))
    f2, args = per_dtype(f, FLOATS, lambda dt, i: [_r(2, 3, 8, 6, dtype=dt, seed=i), _r(1, 2, 4, 4, 4, dtype=dt, seed=i + 1),
                                                   _r(2, 2, 10, dtype=dt, seed=i + 2)])
    check(eir, tmp_path, f2, args, "max_unpool1d/2d/3d", decompose=(False,), ops=["aten.max_unpool2d.default", "aten.max_unpool3d.default"])
    cl = _r(2, 3, 4, 4).to(memory_format=torch.channels_last)
    check(eir, tmp_path, lambda x: F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2), [cl], "max_unpool2d channels-last",
          decompose=(False,))
    _, path = export(tmp_path, lambda x, i: F.max_unpool2d(x, i, 2), [_r(1, 1, 2, 2), torch.tensor([[[[0, 1], [2, 3]]]])], False, "mu_err")
    r, _ = eir_run(eir, tmp_path, path, [_r(1, 1, 2, 2), torch.tensor([[[[0, 1], [2, 16]]]])], "mu_err")
    assert r.returncode != 0 and "Found an invalid max index: 16 (output volumes are of size 4x4)" in r.stderr, r.stderr


# ---------------------------------------------------------------- _chunk_cat, nonzero_numpy, embedding_renorm_

def test_chunk_cat(eir, tmp_path):
    f, args = per_dtype(lambda a, b, c: (torch._chunk_cat([a, b], 1, 2), torch._chunk_cat([a, b.t()], 0, 3), torch._chunk_cat([a, c], 1, 3),
                                         torch._chunk_cat([c, c], -1, 4)),
                        ALL, lambda dt, i: [_r(2, 3, dtype=dt, seed=i), _r(2, 5, dtype=dt, seed=i + 1), _r(2, 4, 3, dtype=dt, seed=i + 2)])
    check(eir, tmp_path, f, args, "_chunk_cat", ops=["aten._chunk_cat.default"])


def test_nonzero_numpy(eir, tmp_path):
    def make(seed):
        x = _r(3, 4, seed=seed)
        return x * (_r(3, 4, seed=seed + 7) > 0)
    f = lambda x: tuple(t * 2 for t in torch.ops.aten.nonzero_numpy(x))  # noqa: E731
    check(eir, tmp_path, f, [make(0)], "nonzero_numpy", ops=["aten.nonzero_numpy.default"])
    # the count comes from the data
    _, path = export(tmp_path, f, [make(0)], False)
    for seed in range(3):
        x = make(seed + 10)
        r, out = eir_run(eir, tmp_path, path, [x], f"nzn{seed}")
        assert r.returncode == 0, r.stderr
        compare(out, f(x), f"nonzero_numpy seed {seed}")


def test_embedding_max_norm(eir, tmp_path):
    """F.embedding with max_norm renormalizes the weight's rows in place (aten.embedding_renorm_)"""
    class Emb(torch.nn.Module):
        def __init__(self, dt, p):
            super().__init__()
            self.emb = torch.nn.Embedding(6, 4, max_norm=1.5, norm_type=p).to(dt)

        def forward(self, i):
            return self.emb(i) * 1, self.emb.weight * 1

    for dt, p in ((torch.float32, 2.0), (torch.float64, 1.0), (torch.float16, 2.0), (torch.bfloat16, 3.0)):
        torch.manual_seed(0)
        m = Emb(dt, p)
        i = torch.tensor([[0, 2, 2], [5, 0, 3]])
        ep = torch.export.export(copy.deepcopy(m), (i,))
        targets = {str(n.target) for n in ep.graph.nodes if n.op == "call_function"}
        assert "aten.embedding_renorm_.default" in targets, targets
        path = str(tmp_path / "emb.pt2")
        torch.export.save(ep, path)
        r, out = eir_run(eir, tmp_path, path, [i], "emb")
        assert r.returncode == 0, r.stderr
        compare(out, m(i), f"embedding max_norm {dt}")
