"""test_to_core_unbacked.py — to-core rules whose decomposition reads tensor
values into new unbacked symbols: tensor_split with a tensor of split points
(aten.tensor_split.tensor_indices_or_sections), checked against torch's own
ep.run_decompositions().

Each program is exported by torch (strict=False and strict=True), saved,
converted by `eir convert --to core`, and must pass to_core_check.check
(verifies as Core ATen or keeps only what torch keeps, loads in torch, the
original's outputs, no operator torch's decomposition leaves out); its
call_function nodes must be torch's, and print(ep) of the converted program
as torch.export.load reads it must be the print of torch's decomposition
saved and re-loaded: the same nodes and names, the new unbacked symbols
(_local_scalar_dense) numbered as torch numbers them, the same range
constraints. Then eir runs the converted program on several index tensors
(sorted, repeated, out of range, negative, decreasing) with the outputs
torch's original program gives.
"""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import to_core_check as K  # noqa: E402


def r(*s):
    g = torch.Generator().manual_seed(sum(s) + len(s))
    return torch.randn(s, generator=g)


def convert_print_like_torch(eir, tmp_path, mod, args, strict):
    """Export, save, convert; check, node sequence and print(ep) against torch's decomposition of
    the saved program (saved and re-loaded too). Returns (source, converted) paths."""
    ep = torch.export.export(mod, args, strict=strict)
    src, dst, tdec = tmp_path / "in.pt2", tmp_path / "out.pt2", tmp_path / "torch_dec.pt2"
    torch.export.save(ep, str(src))
    dec = torch.export.load(str(src)).run_decompositions()
    torch.export.save(dec, str(tdec))
    res = K.check(eir, src, dst, args, torch_core_ops=K.op_set(dec))
    assert res["converted"] and res["verify"] and res["loads"], res["why"]
    assert res["ops"] and res["outputs"], res["why"]
    got, want = torch.export.load(str(dst)), torch.export.load(str(tdec))
    assert K.node_seq(got) == K.node_seq(want)
    assert str(got) == str(want)
    return src, dst


def eir_run(eir, path, arrays, tmp_path, tag):
    d = tmp_path / f"run_{tag}"
    d.mkdir()
    files = []
    for k, a in enumerate(arrays):
        f = d / f"in_{k}.npy"
        np.save(f, a.numpy())
        files.append(str(f))
    res = subprocess.run([eir, "run", str(path), *files, "--out", str(d / "out")], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    outs, k = [], 0
    while (d / "out" / f"output_{k}.npy").exists():
        outs.append(np.load(d / "out" / f"output_{k}.npy"))
        k += 1
    return outs


def same_runs(eir, tmp_path, src, dst, inputs):
    """eir runs the converted program on each input tuple as torch runs the original."""
    orig = torch.export.load(str(src)).module()
    for n, args in enumerate(inputs):
        want = K.flat(orig(*args))
        got = eir_run(eir, dst, args, tmp_path, n)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.shape == tuple(w.shape), (n, g.shape, tuple(w.shape))
            assert np.array_equal(g, w.numpy()), n


# split points of a 10-long dimension: sorted, repeated, at the ends, out of range, negative, decreasing
POINTS3 = ([2, 5, 7], [0, 0, 10], [3, 3, 12], [-3, 2, 100], [6, 2, -8], [-20, 5, 5], [10, 10, 10])


class Split(torch.nn.Module):
    def forward(self, x, idx):
        return torch.tensor_split(x, idx, 1)


@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
def test_tensor_split_indices(eir, tmp_path, strict):
    """slices of the index tensor, squeezes, _local_scalar_dense (u<n> as torch numbers them), one slice
    per part, each followed by the runtime assertions on its size and offset."""
    x = r(4, 10)
    src, dst = convert_print_like_torch(eir, tmp_path, Split(), (x, torch.tensor([2, 5, 7])), strict)
    same_runs(eir, tmp_path, src, dst, [(x, torch.tensor(p)) for p in POINTS3])


class Buffer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("idx", torch.tensor([1, 3]))

    def forward(self, x):
        return torch.tensor_split(x, self.idx, -1)


@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
def test_tensor_split_buffer_negative_dim(eir, tmp_path, strict):
    """split points in a buffer, dim -1 (torch's slices take the wrapped dim)."""
    convert_print_like_torch(eir, tmp_path, Buffer(), (r(3, 6),), strict)


class Several(torch.nn.Module):
    def forward(self, x, idx, y, j, m):
        a = torch.tensor_split(x, idx, 0)
        nz = torch.nonzero(m)
        b = torch.tensor_split(y, j[::2], 1)
        k = j.sum().item()
        torch._check(k >= 0)
        c = torch.tensor_split(y, idx[:0])
        return a[0] * 2, a[1].sum(1), nz.shape[0] + 0 * nz.sum(), b[0], b[1] + 1, torch.zeros(k), c[0]


@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
def test_tensor_split_among_other_unbacked(eir, tmp_path, strict):
    """three splits (one by a strided view of the points, one by no points at all: slice(x, 0, 0, n))
    beside nonzero and item(): the new symbols are numbered past everything one trace binds, at their
    place in the graph, as torch numbers them; the runtime assertions of each part follow it; parts
    used further."""
    args = (r(8, 3), torch.tensor([4]), r(3, 9), torch.tensor([2, 0, 6, 1]), torch.tensor([[1, 0], [3, 1]]))
    ep = torch.export.export(Several(), args, strict=strict)
    src, dst, tdec = tmp_path / "in.pt2", tmp_path / "out.pt2", tmp_path / "torch_dec.pt2"
    torch.export.save(ep, str(src))
    dec = torch.export.load(str(src)).run_decompositions()
    torch.export.save(dec, str(tdec))
    res = K.check(eir, src, dst, args, torch_core_ops=K.op_set(dec))
    assert res["converted"] and res["verify"] and res["loads"] and res["ops"] and res["outputs"], res["why"]
    got, want = torch.export.load(str(dst)), torch.export.load(str(tdec))
    # torch's retrace also renames nodes eir leaves alone (the slices of j, nonzero's assertions, mul):
    # compare node sequences (assertion messages name nodes), each value's type (symbols included) and
    # the range constraints
    seqs = [[n if "_assert_scalar" not in n[0] else n[:1] for n in K.node_seq(e)] for e in (got, want)]
    assert seqs[0] == seqs[1]
    types = [[str(n.meta.get("val")) for n in e.graph.nodes if n.op == "call_function"] for e in (got, want)]
    assert types[0] == types[1]
    assert str(got.range_constraints) == str(want.range_constraints)
    assert any("u" in str(n.meta.get("val")) and n.target == torch.ops.aten._local_scalar_dense.default
               for n in got.graph.nodes)


class Dynamic(torch.nn.Module):
    def forward(self, x, idx):
        return torch.tensor_split(x, idx, 0)


def test_refused_symbolic_split_dim(eir, tmp_path):
    """a split dimension of symbolic size: refused, naming why, nothing written."""
    msg = K.refused(eir, tmp_path, Dynamic(), (r(8, 3), torch.tensor([2, 5])),
                    dynamic_shapes={"x": {0: torch.export.Dim("n")}, "idx": None})
    assert "tensor_split.tensor_indices_or_sections" in msg and "symbolic size" in msg


def test_zero_d_sections_cannot_be_exported():
    """a 0-d tensor of sections: the number of parts is its value; torch cannot export it (so no
    program has it; the rule refuses it with that reason)."""
    with pytest.raises(Exception, match="data-dependent"):
        torch.export.export(Dynamic(), (r(8, 3), torch.tensor(2)), strict=False)


class Unused(torch.nn.Module):
    def forward(self, x, idx):
        a, b, c = torch.tensor_split(x, idx, 2)
        return a.sin()


class Many(torch.nn.Module):
    def forward(self, x, idx):
        return torch.tensor_split(x, idx.sort().values, -1)


@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
def test_tensor_split_unused_parts_and_many_points(eir, tmp_path, strict):
    """parts the program does not use keep their slices and assertions (as torch's); twenty split points
    computed in the graph (sort): node for node, and eir's runs give torch's parts."""
    x = r(2, 3, 8)
    (tmp_path / "a").mkdir()
    src, dst = convert_print_like_torch(eir, tmp_path / "a", Unused(), (x, torch.tensor([3, 5])), strict)
    orig = torch.export.load(str(src)).module()
    for n, p in enumerate(([3, 5], [-2, 11], [7, 1], [0, 8])):
        got = eir_run(eir, dst, (x, torch.tensor(p)), tmp_path, f"u{n}")
        assert len(got) == 1 and np.allclose(got[0], orig(x, torch.tensor(p)).numpy(), rtol=1e-6, atol=1e-6)
    (tmp_path / "b").mkdir()
    g = torch.Generator().manual_seed(3)
    y = torch.randn(2, 30, generator=g)
    dst = K.convert_like_torch(eir, tmp_path / "b", Many(), (y, torch.randint(0, 30, (20,), generator=g)), strict=strict,
                               assert_messages=False, getitems=False)
    src = tmp_path / "b" / "in.pt2"
    same_runs(eir, tmp_path, src, dst, [(y, torch.randint(-40, 40, (20,), generator=g)) for _ in range(3)])
