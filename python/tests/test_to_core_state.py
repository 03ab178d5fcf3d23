"""test_to_core_state.py — to-core rules whose torch decomposition threads an
effect token: linalg_inv, linalg_cholesky, linalg_solve, linalg_lu_factor,
linalg_ldl_factor and linalg_tensorinv become their _ex forms and
higher_order.with_effects(token, aten._linalg_check_errors, info, ...), with a
TOKEN input and a TOKEN output in the signature, as torch's
ep.run_decompositions() leaves them; lu_solve becomes linalg_lu_solve.

Each program is exported (strict=False and strict=True), converted by
`eir convert --to core`, and must pass to_core_check.check (verifies as Core
ATen or keeps only the non-core operators torch keeps, loads in torch, the
original's outputs, no operator torch's decomposition leaves out); then its
call_function nodes (target and non-tensor arguments, is_matrix included)
and its graph signature must be torch's, and the program torch loads runs
several times in a row (ep.module(), token taken out by torch) and in eir.
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


def r(*s, dtype=torch.float32):
    g = torch.Generator().manual_seed(sum(s) + len(s))
    return torch.randn(s, generator=g, dtype=dtype)


def spd(*s, dtype=torch.float32):
    a = r(*s, dtype=dtype)
    return a @ a.mT + s[-1] * torch.eye(s[-1], dtype=dtype)


def signature(ep):
    return ([(s.kind.name, type(s.arg).__name__) for s in ep.graph_signature.input_specs],
            [(s.kind.name, type(s.arg).__name__) for s in ep.graph_signature.output_specs])


def convert(eir, tmp_path, mod, args, strict=False):
    dst = K.convert_like_torch(eir, tmp_path, mod, args, strict=strict, getitems=False)
    ep = torch.export.export(mod, args, strict=strict)
    dec = ep.run_decompositions()
    got = torch.export.load(str(dst))
    assert signature(got) == signature(dec)
    assert str(got.graph_signature).count("TOKEN") == str(dec.graph_signature).count("TOKEN")
    # several runs of the program torch loads, against the module
    m = got.module()
    for k in range(3):
        want, res = K.flat(mod(*args)), K.flat(m(*args))
        assert len(want) == len(res)
        for a, b in zip(want, res):
            assert torch.allclose(a, b, rtol=1e-4, atol=1e-5), k
    return dst, got


class Checked(torch.nn.Module):
    def forward(self, a, b, s, sb, t):
        lu, piv = torch.linalg.lu_factor(a)
        lu2, piv2 = torch.linalg.lu_factor(b, pivot=True)
        ld, lp = torch.linalg.ldl_factor(s)
        ld2, lp2 = torch.linalg.ldl_factor(sb, hermitian=True)
        return (torch.linalg.inv(a), torch.linalg.inv(b), torch.linalg.cholesky(s), torch.linalg.cholesky(sb, upper=True),
                torch.linalg.solve(a, b), torch.linalg.solve(b, b[..., 0]), torch.linalg.solve(a, b[0], left=False),
                lu, piv, lu2, piv2, ld, lp, ld2, lp2, torch.linalg.tensorinv(t, ind=1),
                torch.linalg.tensorinv(t.reshape(2, 3, 6)), torch.lu_solve(b[0], lu, piv),
                torch.lu_solve(b, lu2, piv2))


def args_checked(dtype=torch.float32):
    return (r(3, 3, dtype=dtype), r(2, 3, 3, dtype=dtype), spd(4, 4, dtype=dtype), spd(2, 4, 4, dtype=dtype),
            r(6, 2, 3, dtype=dtype).reshape(6, 6).add(6 * torch.eye(6, dtype=dtype)).reshape(6, 2, 3))


def test_checked_linalg(eir, tmp_path):
    dst, got = convert(eir, tmp_path, Checked(), args_checked())
    assert "aten.linalg_inv.default" not in K.op_set(got)
    nodes = [n for n in got.graph.nodes if n.target is torch.ops.higher_order.with_effects]
    assert [n.args[3] for n in nodes] == ["torch.linalg.lu_factor"] * 2 + ["torch.linalg.ldl_factor"] * 2 + \
        ["linalg.inv"] * 2 + ["linalg.cholesky"] * 2 + ["torch.linalg.solve"] * 3 + ["inv"] * 2
    assert [n.kwargs["is_matrix"] for n in nodes] == [True, False, True, False, True, False, True, False,
                                                       True, False, True, True, True]


def test_checked_linalg_strict_double(eir, tmp_path):
    convert(eir, tmp_path, Checked(), args_checked(torch.float64), strict=True)


def test_checked_linalg_runs_in_eir(eir, tmp_path):
    """eir runs the converted program (the token is its own input) with torch's answers, three runs in a row."""
    args = args_checked()
    dst, _ = convert(eir, tmp_path, Checked(), args)
    ins = []
    for i, a in enumerate(args):
        f = tmp_path / f"in{i}.npy"
        np.save(f, a.numpy())
        ins.append(str(f))
    out = tmp_path / "out"
    res = subprocess.run([eir, "run", str(dst), *ins, "--out", str(out), "--runs", "3"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    want = K.flat(Checked()(*args))
    for k in (1, 2, 3):
        for i, w in enumerate(want):
            got = np.load(out / f"run_{k}" / f"output_{i}.npy")
            np.testing.assert_allclose(got, w.numpy(), rtol=1e-4, atol=1e-4)


class Singular(torch.nn.Module):
    def forward(self, a):
        return torch.linalg.inv(a) + 1


def test_singular_matrix_error(eir, tmp_path):
    """the error check runs: a singular matrix fails in the converted program as in torch"""
    a = torch.ones(3, 3)
    dst, got = convert(eir, tmp_path, Singular(), (r(3, 3),))
    with pytest.raises(Exception, match="linalg.inv"):
        Singular()(a)
    with pytest.raises(Exception, match="linalg.inv"):
        got.module()(a)
    f = tmp_path / "a.npy"
    np.save(f, a.numpy())
    res = subprocess.run([eir, "run", str(dst), str(f), "--out", str(tmp_path / "o")], capture_output=True, text=True)
    assert res.returncode != 0 and "linalg.inv" in res.stderr


class PrintThenInv(torch.nn.Module):
    def forward(self, a):
        torch.ops.aten._print("before")
        return torch.linalg.inv(a)


class InvThenPrint(torch.nn.Module):
    def forward(self, a):
        x = torch.linalg.inv(a)
        torch.ops.aten._print("after")
        return x


def test_print_and_checks_share_the_token(eir, tmp_path):
    """aten._print goes into with_effects too, the token threaded in graph order"""
    for mod in (PrintThenInv(), InvThenPrint()):
        dst, got = convert(eir, tmp_path, mod, (r(3, 3),))
        inner = [str(n.args[1]) for n in got.graph.nodes if n.target is torch.ops.higher_order.with_effects]
        assert sorted(inner) == ["aten._linalg_check_errors.default", "aten._print.default"]
    dst, got = convert(eir, tmp_path, InvThenPrint(), (r(3, 3),), strict=True)


class TensorSolve(torch.nn.Module):
    def forward(self, a, a2, b, c, d):
        return (torch.linalg.tensorsolve(a, b, dims=(0,)), torch.linalg.tensorsolve(a2, b, dims=(2,)),
                torch.linalg.tensorsolve(c, d), torch.linalg.tensorsolve(a2.transpose(0, 1), b.t()),
                torch.linalg.tensorsolve(a.permute(1, 2, 0), b))


@pytest.mark.parametrize("strict", [False, True])
def test_tensorsolve(eir, tmp_path, strict):
    dt = torch.float64 if strict else torch.float32
    m = r(6, 6, dtype=dt) + 6 * torch.eye(6, dtype=dt)
    args = (m.reshape(6, 2, 3).clone(), m.t().reshape(2, 3, 6).clone(), r(2, 3, dtype=dt), m.clone(), r(6, dtype=dt))
    convert(eir, tmp_path, TensorSolve(), args, strict=strict)


# ---- running statistics written back --------------------------------------

F = torch.nn.functional


class BnStats(torch.nn.Module):
    """the batch norm forms that write running statistics, on user inputs"""
    def forward(self, x, w, b, rm, rv, rm2, rv2, base):
        a = torch.ops.aten._native_batch_norm_legit(x, w, b, rm, rv, True, 0.1, 1e-5)
        e = torch.ops.aten._native_batch_norm_legit(x, None, None, rm2, rv2, False, 0.2, 1e-3)
        n = torch.ops.aten.native_batch_norm(x * 2, w, b, rm, rv, True, 0.3, 1e-5)
        u = torch.ops.aten._batch_norm_with_update(x + 1, w, b, rm2, rv2, 0.5, 1e-4)
        f = F.batch_norm(x - 1, rm, rv, w, b, training=True, momentum=0.25)
        v = base.as_strided([3], [2])
        g = torch.ops.aten._native_batch_norm_legit(x, w, b, v, base.as_strided([3], [2], 1), True, 0.1, 1e-5)
        return a + e + n + u[:3] + (f, g[0])


def bn_args(dtype=torch.float32):
    return (r(4, 3, 5, dtype=dtype), r(3, dtype=dtype), r(3, dtype=dtype), r(3, dtype=dtype), r(3, dtype=dtype).abs(),
            r(3, dtype=dtype), r(3, dtype=dtype).abs() + 1, r(6, dtype=dtype).abs())


def same_state(mod, got, args, runs=3):
    """mod and the program torch loads, run `runs` times on the same inputs (which they write): equal
    outputs, written inputs and buffers after each run"""
    a1, a2 = K.clone_args(args), K.clone_args(args)
    m = got.module()
    for k in range(runs):
        want, res = K.flat(mod(*a1)), K.flat(m(*a2))
        bufs = dict(m.named_buffers())
        # (torch's strict export drops a buffer the program does not use)
        want += list(a1) + [b for n, b in sorted(mod.named_buffers()) if n in bufs]
        res += list(a2) + [bufs[n] for n, _ in sorted(mod.named_buffers()) if n in bufs]
        assert len(want) == len(res)
        for i, (p, q) in enumerate(zip(want, res)):
            assert torch.allclose(p, q, rtol=1e-4, atol=1e-5, equal_nan=True), (k, i)


def test_bn_running_stats_of_inputs(eir, tmp_path):
    mod = BnStats()
    dst = K.convert_like_torch(eir, tmp_path, mod, bn_args(), getitems=False, same_nodes=False)
    got = torch.export.load(str(dst))
    dec = torch.export.export(mod, bn_args(), strict=False).run_decompositions()
    # torch writes the scatters into as_strided bases at the end of the graph; eir after the batch norm
    seq = lambda ep: sorted(n for n in K.node_seq(ep) if "getitem" not in n[0])
    assert seq(got) == seq(dec)
    assert signature(got) == signature(dec)
    assert [s.target for s in got.graph_signature.output_specs if s.kind.name == "USER_INPUT_MUTATION"] == \
        [s.target for s in dec.graph_signature.output_specs if s.kind.name == "USER_INPUT_MUTATION"]
    same_state(mod, got, bn_args())


def test_bn_running_stats_of_inputs_strict_double(eir, tmp_path):
    mod = BnStats()
    dst = K.convert_like_torch(eir, tmp_path, mod, bn_args(torch.float64), strict=True, getitems=False,
                               same_nodes=False)
    same_state(mod, torch.export.load(str(dst)), bn_args(torch.float64))


class BnModule(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = torch.nn.BatchNorm2d(3, momentum=0.3)
        self.bn1 = torch.nn.BatchNorm1d(4, affine=False)
        self.register_buffer("rm", torch.zeros(3))
        self.register_buffer("rv", torch.ones(3))

    def forward(self, x, y):
        z = self.bn(x)
        z = F.batch_norm(z, self.rm, self.rv, training=True) + F.batch_norm(z * 2, self.rm, self.rv, training=True)
        return z, self.bn1(y), torch.ops.aten.native_batch_norm(x, None, None, self.rm, self.rv, True, 0.1, 1e-5)[1]


@pytest.mark.parametrize("strict", [False, True])
def test_bn_module_training_buffers(eir, tmp_path, strict):
    """nn.BatchNorm in training mode: the running statistics (and num_batches_tracked) are buffer
    mutations; the same buffer written twice threads its versions"""
    mod = BnModule().train()
    args = (r(2, 3, 4, 5), r(5, 4))
    dst = K.convert_like_torch(eir, tmp_path, mod, args, strict=strict, getitems=False)
    got = torch.export.load(str(dst))
    dec = torch.export.export(mod, args, strict=strict).run_decompositions()
    assert signature(got) == signature(dec)
    # in input order; torch's strict retrace puts the root module's own buffers (rm, rv) first
    order = (lambda t: t) if not strict else sorted
    assert order([s.target for s in got.graph_signature.output_specs if s.kind.name == "BUFFER_MUTATION"]) == \
        order([s.target for s in dec.graph_signature.output_specs if s.kind.name == "BUFFER_MUTATION"])
    same_state(BnModule().train(), got, args)


def test_bn_module_runs_in_eir(eir, tmp_path):
    """eir runs the converted program three times in a row with the buffers torch's module has"""
    mod = BnModule().train()
    args = (r(2, 3, 4, 5), r(5, 4))
    dst = K.convert_like_torch(eir, tmp_path, mod, args, getitems=False)
    ins = []
    for i, a in enumerate(args):
        f = tmp_path / f"in{i}.npy"
        np.save(f, a.numpy())
        ins.append(str(f))
    out = tmp_path / "out"
    res = subprocess.run([eir, "run", str(dst), *ins, "--out", str(out), "--runs", "3"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    ref = BnModule().train()
    for k in (1, 2, 3):
        want = K.flat(ref(*args))
        for i, w in enumerate(want):
            np.testing.assert_allclose(np.load(out / f"run_{k}" / f"output_{i}.npy"), w.detach().numpy(),
                                       rtol=1e-4, atol=1e-5)
        for name, buf in ref.named_buffers():
            np.testing.assert_allclose(np.load(out / f"run_{k}" / f"state.{name}.npy"), buf.numpy(), rtol=1e-4, atol=1e-5)


class BnNoStats(torch.nn.Module):
    def forward(self, x, w):
        return (F.batch_norm(x, None, None, training=True), F.batch_norm(x, None, None, w, w, training=True, momentum=0.3,
                                                                         eps=1e-3),
                torch.ops.aten.native_batch_norm(x, w, None, None, None, True, 0.1, 1e-5),
                F.batch_norm(x[:0], torch.zeros(3), torch.ones(3), training=True))


@pytest.mark.parametrize("strict", [False, True])
def test_bn_training_without_stats(eir, tmp_path, strict):
    """training without running statistics: _native_batch_norm_legit.no_stats; an empty input: clone"""
    K.convert_like_torch(eir, tmp_path, BnNoStats(), (r(4, 3), r(3)), strict=strict, getitems=False)


class BnLocalStats(torch.nn.Module):
    def forward(self, x):
        rm, rv = torch.zeros(3), x.var(0)
        y = F.batch_norm(x, rm, rv, training=True, momentum=0.5)
        return y, rm * 2, rv + 1


@pytest.mark.parametrize("strict", [False, True])
def test_bn_stats_made_by_the_graph(eir, tmp_path, strict):
    """running statistics the program makes: later reads see the new values, no mutation output"""
    dst = K.convert_like_torch(eir, tmp_path, BnLocalStats(), (r(4, 3),), strict=strict, getitems=False)
    got = torch.export.load(str(dst))
    assert all(s.kind.name == "USER_OUTPUT" for s in got.graph_signature.output_specs)


class BnViewRead(torch.nn.Module):
    def forward(self, x, base):
        v = base.as_strided([3], [2])
        out = torch.ops.aten._native_batch_norm_legit(x, None, None, v, base.as_strided([3], [2], 1), True, 0.1, 1e-5)
        return out[0], v * 2


def test_bn_refusals(eir, tmp_path):
    msg = K.refused(eir, tmp_path, BnViewRead(), (r(4, 3), r(6).abs()))
    assert "(aten._native_batch_norm_legit.default): cannot decompose: as_strided, which it writes, is an " \
           "as_strided view read afterwards" in msg


class InstanceNorms(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inorm = torch.nn.InstanceNorm2d(3, affine=True, track_running_stats=True, momentum=0.2)

    def forward(self, x, w, b, rm, rv):
        return (self.inorm(x), F.instance_norm(x[:, :, 0], rm, rv, w, b, use_input_stats=True, momentum=0.5),
                F.instance_norm(x * 2, None, None, w, None, eps=1e-3), F.instance_norm(x, rm, rv, None, None))


def in_args(dtype=torch.float32):
    return (r(2, 3, 4, 5, dtype=dtype), r(3, dtype=dtype), r(3, dtype=dtype), r(3, dtype=dtype),
            r(3, dtype=dtype).abs())


@pytest.mark.parametrize("strict", [False, True])
def test_instance_norm_stats(eir, tmp_path, strict):
    """instance_norm with weight, bias and running statistics (buffers and user inputs), node for node"""
    dt = torch.float64 if strict else torch.float32
    dst = K.convert_like_torch(eir, tmp_path, InstanceNorms().to(dt).train(), in_args(dt), strict=strict, getitems=False)
    got = torch.export.load(str(dst))
    dec = torch.export.export(InstanceNorms().to(dt).train(), in_args(dt), strict=strict).run_decompositions()
    assert signature(got) == signature(dec)
    same_state(InstanceNorms().to(dt).train(), got, in_args(dt))


# ---- linalg_matrix_rank -----------------------------------------------------

class Rank(torch.nn.Module):
    def forward(self, a, b, e, s):
        return (torch.linalg.matrix_rank(a), torch.linalg.matrix_rank(b), torch.linalg.matrix_rank(e),
                torch.linalg.matrix_rank(a, rtol=0.5), torch.linalg.matrix_rank(b, atol=1.0, rtol=0.1),
                torch.linalg.matrix_rank(b, atol=0.5), torch.linalg.matrix_rank(s, hermitian=True),
                torch.linalg.matrix_rank(s, atol=0.1, hermitian=True), torch.linalg.matrix_rank(a.mT))


@pytest.mark.parametrize("strict", [False, True])
def test_matrix_rank(eir, tmp_path, strict):
    """node for node as torch (not an effect: the rank is counted from singular / eigen values)"""
    dt = torch.float64 if strict else torch.float32
    low = r(5, 2, dtype=dt) @ r(2, 4, dtype=dt)
    sym = r(3, 4, 4, dtype=dt)
    args = (low, r(2, 3, 4, dtype=dt), torch.zeros(2, 0, 3, dtype=dt), sym + sym.mT)
    dst = K.convert_like_torch(eir, tmp_path, Rank(), args, strict=strict, getitems=False)
    got = torch.export.load(str(dst)).module()(*args)
    assert [int(t.flatten()[0]) for t in (got[0], got[3])] == [2, int(torch.linalg.matrix_rank(low, rtol=0.5))]


# ---- gradient -----------------------------------------------------------------

class Gradient(torch.nn.Module):
    def forward(self, x, v, c0, c2):
        return (torch.gradient(v), torch.gradient(v, spacing=2.0), torch.gradient(x, edge_order=2),
                torch.gradient(x, spacing=[2.0, 2.1], dim=[0, 1]), torch.gradient(x, spacing=[c0, c2], dim=[0, -1]),
                torch.gradient(x, dim=1), torch.gradient(x, spacing=3, dim=[2], edge_order=2), torch.gradient(v[::2]))


@pytest.mark.parametrize("strict", [False, True])
def test_gradient(eir, tmp_path, strict):
    """scalar spacings (edge orders 1 and 2) and coordinates, node for node"""
    dt = torch.float64 if strict else torch.float32
    args = (r(3, 4, 5, dtype=dt), r(9, dtype=dt), torch.tensor([0.0, 0.5, 2.0], dtype=dt),
            torch.tensor([1.0, 1.5, 3.0, 3.5, 5.0], dtype=dt))
    K.convert_like_torch(eir, tmp_path, Gradient(), args, strict=strict, getitems=False)
