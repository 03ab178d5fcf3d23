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
