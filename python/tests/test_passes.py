"""eir's passes (`eir convert --dce / --cse / --prune-state`) against torch.

Each pass runs on a program torch exported, the result is written as a .pt2,
torch.export.load reads it back, and the test compares it with what torch's
own pass does to the same program: the same printed program for dead code
elimination (torch.fx's Graph.eliminate_dead_code) and common subexpression
elimination (torch.fx.passes.dialect.common.cse_pass.CSEPass), and the same
outputs as the original program in every case.
"""
from __future__ import annotations

import subprocess

import pytest
import torch
from torch.fx.passes.dialect.common.cse_pass import CSEPass


def _convert(eir, src, dst, *opts):
    r = subprocess.run([eir, "convert", *opts, str(src), str(dst)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r


def _calls(ep):
    return [n for n in ep.graph.nodes if n.op == "call_function"]


def _same_outputs(a, b, args):
    ya, yb = a.module()(*[t.clone() for t in args]), b.module()(*[t.clone() for t in args])
    ya = ya if isinstance(ya, (tuple, list)) else (ya,)
    yb = yb if isinstance(yb, (tuple, list)) else (yb,)
    assert len(ya) == len(yb)
    for u, v in zip(ya, yb):
        torch.testing.assert_close(u, v, rtol=0, atol=0)


class Repeats(torch.nn.Module):
    """the same pure calls twice, and a random call twice (which must stay)"""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        a = x.sin() * 2
        b = x.sin() * 2
        c = self.lin(x).relu() + self.lin(x).relu()
        n = torch.rand_like(x) * 0 + torch.rand_like(x) * 0
        return a + b + c + n, x.sum(0) - x.sum(0)


class Unused(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.used = torch.nn.Linear(4, 3)
        self.unused = torch.nn.Linear(4, 5)
        self.register_buffer("buf", torch.ones(3))
        self.register_buffer("buf_unused", torch.zeros(2))

    def forward(self, x):
        return self.used(x) + self.buf


def _export(m, args, strict=False, decomp=False):
    ep = torch.export.export(m, args, strict=strict)
    return ep.run_decompositions() if decomp else ep


FORMS = [(s, d) for s in (False, True) for d in (False, True)]


@pytest.mark.parametrize("strict,decomp", FORMS)
def test_cse_matches_torch(eir, tmp_path, strict, decomp):
    torch.manual_seed(0)
    args = (torch.randn(3, 4),)
    ep = _export(Repeats(), args, strict, decomp)
    src, dst = tmp_path / "in.pt2", tmp_path / "out.pt2"
    torch.export.save(ep, src)
    _convert(eir, src, dst, "--cse")
    got = torch.export.load(dst)
    # torch's pass on the same graph
    ref = torch.export.load(src)
    res = CSEPass()(ref.graph_module)
    want = [n for n in res.graph_module.graph.nodes if n.op == "call_function"]
    assert len(_calls(got)) == len(want) < len(_calls(ref))
    assert [str(n.target) for n in _calls(got)] == [str(n.target) for n in want]
    assert sum(1 for n in _calls(got) if "rand_like" in str(n.target)) == 2
    torch.manual_seed(1)
    x = torch.randn(3, 4)
    # rand_like * 0: the outputs do not depend on the random draws
    _same_outputs(ep, got, (x,))


@pytest.mark.parametrize("strict,decomp", FORMS)
def test_dce_removes_what_torch_removes(eir, tmp_path, strict, decomp):
    args = (torch.randn(3, 4),)
    ep = _export(Repeats(), args, strict, decomp)
    want_print = str(ep)
    # plant dead nodes (a pure chain and an unused view) in a copy
    src, dst = tmp_path / "in.pt2", tmp_path / "out.pt2"
    torch.export.save(ep, src)
    dead = torch.export.load(src)
    g = dead.graph
    x = next(n for n in g.nodes if n.op == "placeholder" and n.name == "x")
    out = next(n for n in g.nodes if n.op == "output")
    with g.inserting_before(out):
        a = g.call_function(torch.ops.aten.neg.default, (x,))
        a.meta["val"] = torch.ops.aten.neg.default(x.meta["val"])
        b = g.call_function(torch.ops.aten.cos.default, (a,))
        b.meta["val"] = torch.ops.aten.cos.default(a.meta["val"])
        v = g.call_function(torch.ops.aten.view.default, (x, [12]))
        v.meta["val"] = x.meta["val"].view(12)
    dead.graph_module.recompile()
    torch.export.save(dead, src)
    assert len(_calls(torch.export.load(src))) == len(_calls(ep)) + 3
    _convert(eir, src, dst, "--dce")
    got = torch.export.load(dst)
    assert str(got) == want_print
    # and torch's own pass agrees
    again = torch.export.load(src)
    again.graph.eliminate_dead_code()
    assert len(_calls(again)) == len(_calls(got))
    _same_outputs(ep, got, args)


@pytest.mark.parametrize("strict,decomp", FORMS)
def test_prune_state(eir, tmp_path, strict, decomp):
    torch.manual_seed(0)
    args = (torch.randn(2, 4),)
    ep = _export(Unused(), args, strict, decomp)
    assert "unused.weight" in ep.state_dict
    src, dst = tmp_path / "in.pt2", tmp_path / "out.pt2"
    torch.export.save(ep, src)
    _convert(eir, src, dst, "--prune-state")
    got = torch.export.load(dst)
    assert set(got.state_dict) == {"used.weight", "used.bias", "buf", "buf_unused"}
    assert not [s for s in got.graph_signature.input_specs if s.target and s.target.startswith("unused.")]
    _same_outputs(ep, got, args)


def test_passes_listed_in_help(eir):
    r = subprocess.run([eir, "convert", "--help"], capture_output=True, text=True)
    assert r.returncode == 0
    for opt in ("--dce", "--cse", "--prune-state"):
        assert opt in r.stdout, r.stdout
