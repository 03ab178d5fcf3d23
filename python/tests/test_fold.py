"""Constant folding (`eir convert --fold`) against torch.

Programs exported here (strict=False and strict=True, as exported and after
run_decompositions()) go through `eir convert --fold --verify-each`; the
result must load with torch.export.load and print there as eir printed it,
run in torch to the original program's outputs (over several runs where
state changes), pass `eir verify`, have lost the calls on parameters and
constants (t / permute, .to / _to_copy, view, the dtype assertion) and the
parameters only they read, keep what must stay (a random op, a buffer written
in place and what reads it, a parameter written under no_grad, constructors,
calls whose result is an output), and fold to a fixed point: a second --fold
changes nothing. Every zoo program is folded and run against torch too (a
quick subset by default, the rest marked slow).
"""
from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest
import torch

from conftest import ZOO_SRC, variant_names

if ZOO_SRC not in sys.path:
    sys.path.insert(0, ZOO_SRC)
import zoo  # noqa: E402  (registers the mylib custom ops and the zoo's pytree types)

FORMS = [(s, d) for s in (False, True) for d in (False, True)]
FORM_IDS = [f"{'strict' if s else 'nonstrict'}{'-decomp' if d else ''}" for s, d in FORMS]


def fold(eir, src, dst):
    """Fold src into dst; returns (nodes changed, eir's printed program)."""
    r = subprocess.run([eir, "convert", "--fold", "--verify-each", "--print-after", "fold", str(src), str(dst)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    m = re.match(r"# after --fold \((\d+) changed\)\n", r.stdout)
    assert m, r.stdout[:200]
    return int(m.group(1)), r.stdout[m.end():]


def verify(eir, path):
    r = subprocess.run([eir, "verify", str(path)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


def calls(ep):
    return [n for n in ep.graph.nodes if n.op == "call_function"]


def targets(ep):
    return [str(n.target) for n in calls(ep)]


def same(a, b):
    torch.testing.assert_close(b, a, equal_nan=True)


def run_both(ep, ep2, make_args, runs=1):
    """ep.module() and ep2.module() on the same inputs, `runs` times each, with the same seed."""
    m1, m2 = ep.module(), ep2.module()
    for _ in range(runs):
        with torch.no_grad():        # a program that writes a parameter runs only so in torch
            _run_pair(m1, m2, make_args)


def _run_pair(m1, m2, make_args):
    torch.manual_seed(0)
    a1 = make_args()
    want = torch.utils._pytree.tree_leaves(m1(*a1))
    torch.manual_seed(0)
    a2 = make_args()
    got = torch.utils._pytree.tree_leaves(m2(*a2))
    assert len(got) == len(want)
    for w, g in zip(want, got):
        same(w, g)
    for w, g in zip(torch.utils._pytree.tree_leaves(a1), torch.utils._pytree.tree_leaves(a2)):
        same(w, g)


def export(m, args, strict, decomp):
    ep = torch.export.export(m, args, strict=strict)
    return ep.run_decompositions() if decomp else ep


def fold_module(eir, tmp_path, m, args, strict, decomp):
    """Export, save, fold; returns (ep, folded ep, changed, eir's text, folded path)."""
    ep = export(m, args, strict, decomp)
    src, dst = tmp_path / "in.pt2", tmp_path / "out.pt2"
    torch.export.save(ep, src)
    ep = torch.export.load(src)
    n, text = fold(eir, src, dst)
    ep2 = torch.export.load(dst)
    assert text == str(ep2) + "\n", "eir prints the folded program as torch prints it"
    verify(eir, dst)
    # a fixed point: folding again changes nothing
    n2, text2 = fold(eir, dst, tmp_path / "again.pt2")
    assert n2 == 0 and text2 == text
    return ep, ep2, n, text, dst


class Fold(torch.nn.Module):
    """The case the pass is for: parameters through transpose, dtype casts and
    views, with a constant, a buffer read as is, a buffer written in place, a
    linear layer and a random op."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(4, 3))
        self.b = torch.nn.Parameter(torch.randn(4, dtype=torch.float64))
        self.lin = torch.nn.Linear(4, 4)
        self.register_buffer("scale", torch.linspace(0.5, 2.0, 4))
        self.register_buffer("count", torch.zeros(4))
        self.c = torch.arange(4.0)

    def forward(self, x):
        y = x @ self.w.t() + self.b.to(torch.float32) * 2
        self.count.add_(1)
        z = self.lin(y * self.scale + self.c.view(1, 4)) + torch.rand(4) * 0
        return z + self.count


@pytest.mark.parametrize("strict,decomp", FORMS, ids=FORM_IDS)
def test_fold_parameters(eir, tmp_path, strict, decomp):
    torch.manual_seed(0)
    m = Fold()
    x = torch.randn(2, 3)
    ep, ep2, n, _, dst = fold_module(eir, tmp_path, m, (x,), strict, decomp)
    assert n > 0
    before, after = targets(ep), targets(ep2)
    assert len(after) == len(before) - n
    for t in ("aten.t.default", "aten.to.dtype", "aten._to_copy.default", "aten.view.default",
              "aten._assert_tensor_metadata.default"):
        assert t not in after, (t, after)
    if decomp:
        assert "aten.permute.default" in before and "aten.permute.default" not in after
    # what stays: the random op, the write of `count`
    assert after.count("aten.rand.default") == 1
    assert sum("add_" in t for t in after) == sum("add_" in t for t in before)
    # the parameters only folded calls read are gone; buffers stay; new constants
    # (decomposed, linear is addmm(bias, x, permute(weight)): the weight folds too)
    assert set(ep2.state_dict) == {"count", "scale", "lin.bias"} | (set() if decomp else {"lin.weight"})
    assert ep2.constants and all(k.startswith("_prop_tensor_constant") for k in ep2.constants)
    # the folded transpose is a constant with w.t()'s values and recorded strides, in a storage of its own
    wt = [t for t in ep2.constants.values() if t.shape == (3, 4)]
    assert len(wt) == 1 and wt[0].stride() == m.w.t().stride() == (1, 3)
    assert wt[0].untyped_storage().nbytes() == 48
    torch.testing.assert_close(wt[0], m.w.detach().t(), rtol=0, atol=0)
    # and the graph's metadata for it is the value's
    ph = [n for n in ep2.graph.nodes if n.op == "placeholder" and n.meta["val"].shape == (3, 4)]
    assert len(ph) == 1 and ph[0].meta["val"].stride() == (1, 3)
    # eir runs the folded program to torch's outputs (the first run: torch's
    # modules share the program's buffers, which the runs below write)
    torch.manual_seed(0)
    want = torch.export.load(tmp_path / "in.pt2").module()(x.clone())
    np.save(tmp_path / "x.npy", x.numpy())
    r = subprocess.run([eir, "run", str(dst), str(tmp_path / "x.npy"), "--out", str(tmp_path / "o")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    torch.testing.assert_close(torch.from_numpy(np.load(tmp_path / "o" / "output_0.npy")), want.detach())
    run_both(ep, ep2, lambda: (x.clone(),), runs=3)


class WrittenState(torch.nn.Module):
    """State written in place (a buffer through a view of it, a parameter
    under no_grad) must not fold: its value changes from run to run."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(3, 3))
        self.register_buffer("buf", torch.ones(2, 3))
        self.register_buffer("fixed", torch.full((3,), 2.0))

    def forward(self, x):
        self.buf[0].mul_(2)
        with torch.no_grad():
            self.w.add_(0.5)
        return x @ self.w.t() + self.buf.view(-1)[:3] * self.fixed.exp()


@pytest.mark.parametrize("strict,decomp", FORMS, ids=FORM_IDS)
def test_written_state_stays(eir, tmp_path, strict, decomp):
    torch.manual_seed(0)
    x = torch.randn(2, 3)
    ep, ep2, n, _, _ = fold_module(eir, tmp_path, WrittenState(), (x,), strict, decomp)
    after = targets(ep2)
    # fixed.exp() folds (and, decomposed, the row mask arange(2).view(-1, 1) == 0 of buf[0]'s write)
    assert n == (4 if decomp else 1), after
    assert "aten.exp.default" not in after
    # w.t() of the written w stays, and so do the reads of buf
    assert ("aten.permute.default" if decomp else "aten.t.default") in after
    assert ("aten.select.int" in after) and ("aten.slice.Tensor" in after)
    assert {"w", "buf"} <= set(ep2.state_dict)
    run_both(ep, ep2, lambda: (x.clone(),), runs=3)


class Constructors(torch.nn.Module):
    """A constructor folds into a folded consumer but is not made a constant
    of its own; a folded call whose result is an output stays a call."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(4))

    def forward(self, x):
        k = torch.ones(4) * self.w.sum()
        return x + torch.arange(4.0) + k, self.w.exp()


@pytest.mark.parametrize("strict,decomp", FORMS, ids=FORM_IDS)
def test_constructors_and_outputs(eir, tmp_path, strict, decomp):
    torch.manual_seed(0)
    x = torch.randn(2, 4)
    ep, ep2, n, _, _ = fold_module(eir, tmp_path, Constructors(), (x,), strict, decomp)
    after = targets(ep2)
    assert n >= 3 and "aten.ones.default" not in after and "aten.sum.default" not in after
    assert "aten.arange.start" in after or "aten.arange.default" in after or "aten.arange.start_step" in after
    assert len(ep2.constants) == 1 and list(ep2.constants.values())[0].shape == (4,)
    assert "w" in ep2.state_dict and "aten.exp.default" in after   # the output w.exp() stays a call
    run_both(ep, ep2, lambda: (x.clone(),))


def test_fold_help(eir):
    r = subprocess.run([eir, "convert", "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "--fold" in r.stdout


# ---- the zoo ----

FAST = {"mlp", "gpt", "storage", "tied_weights", "lstm", "grad_autocast"}


def _zoo_params():
    out = []
    for v in variant_names():
        marks = () if v.split(".")[0] in FAST else (pytest.mark.slow,)
        out.append(pytest.param(v, marks=marks, id=v))
    return out


@pytest.mark.parametrize("zv", _zoo_params())
def test_fold_zoo(eir, zoo_dir, zv, tmp_path):
    d, failed = zoo_dir
    src = os.path.join(d, zv + ".pt2")
    if not os.path.exists(src):
        pytest.skip(f"{zv}: not generated")
    dst = tmp_path / "fold.pt2"
    n, text = fold(eir, src, dst)
    ep, ep2 = torch.export.load(src), torch.export.load(dst)
    assert text == str(ep2) + "\n"
    verify(eir, dst)
    assert len(calls(ep2)) == len(calls(ep)) - n
    n2, text2 = fold(eir, dst, tmp_path / "again.pt2")
    assert n2 == 0 and text2 == text
    _, args, kwargs, _ = zoo.build(zv.split(".")[0])
    kwargs = kwargs or {}

    def fresh():
        return torch.utils._pytree.tree_map(lambda t: t.clone() if isinstance(t, torch.Tensor) else t, (args, kwargs))

    m1, m2 = ep.module(), ep2.module()
    for _ in range(2):
        torch.manual_seed(0)
        a1, k1 = fresh()
        want = torch.utils._pytree.tree_leaves(m1(*a1, **k1))
        torch.manual_seed(0)
        a2, k2 = fresh()
        got = torch.utils._pytree.tree_leaves(m2(*a2, **k2))
        assert len(got) == len(want)
        for i, (w, g) in enumerate(zip(want, got)):
            if isinstance(w, torch.Tensor):
                same(w, g)
            else:
                assert w == g, f"output {i}"
