"""The passes on programs with control flow (cond, map_impl, while_loop,
scan): their nested graphs are lowered, cleaned and fused as the root graph
is, and the result stays a program torch loads and runs.

For every control-flow zoo program (as exported and after
run_decompositions()), each pass and pipeline runs through
`eir convert ... --verify-each`; the result verifies in its dialect, loads
with torch.export.load (Edge operators resolved to ExecuTorch's, eir_cpu ones
registered by eir.backend_ops) and computes the original program's outputs
on the zoo's inputs. `--to edge` is compared with ExecuTorch's to_edge():
its program, printed in memory (torch.export.save refuses it: its bodies read
tensor constants with get_attr), against eir's printed after a save and a
load, with the one representation eir chooses instead (a number in a body
is an aten.scalar_tensor call named as ExecuTorch's constant) put into
ExecuTorch's program first; the same for a module with a cond and a
while_loop exported here, strict and non-strict. Modules with linear / conv +
relu in cond branches check that to-backend fuses inside bodies.
"""
from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys

import pytest
import torch

from conftest import REPO, ZOO_SRC, load_backend_ops

if ZOO_SRC not in sys.path:
    sys.path.insert(0, ZOO_SRC)
import zoo  # noqa: E402  (the zoo's modules and inputs)

EDGE_DIR = os.path.join(REPO, "tests", "edge")
_backend_ops = load_backend_ops()        # registers torch.ops.eir_cpu.*

CF = ["cond", "cond_shapes", "cond_sym", "cond_unbacked", "map", "map_dyn", "nested_cond", "scan", "scan_dyn",
      "while_count", "while_loop", "while_nested"]
# (options, dialect the result verifies in)
PIPELINES = {
    "core": (["--to", "core"], "core"),
    "edge": (["--to", "edge"], "edge"),
    "backend": (["--to", "backend"], "backend"),
    "dce-cse-fold": (["--dce", "--cse", "--fold"], None),
    "dce": (["--dce"], None),
    "cse": (["--cse"], None),
    "fold": (["--fold"], None),
    "prune-state": (["--prune-state"], None),
}
FAST = {"while_nested"}          # cond, scan and while_loop, nested


def _zoo_src(name):
    d = os.environ.get("EIR_ZOO_DIR")
    src = os.path.join(d, name + ".pt2") if d else None
    if not src or not os.path.exists(src):
        pytest.skip("no zoo (EIR_ZOO_DIR)")
    return src


def _cases():
    if EDGE_DIR not in sys.path:
        sys.path.insert(0, EDGE_DIR)
    import cases
    return cases


def _convert(eir, opts, src, out):
    r = subprocess.run([eir, "convert", *opts, "--verify-each", src, out], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr


def _verify(eir, path, dialect):
    args = [eir, "verify", path] + (["--dialect", dialect] if dialect else [])
    r = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


def _print(eir, path):
    r = subprocess.run([eir, "print", "--program", path], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.rstrip("\n")


def _load(path, dialect):
    if dialect == "edge":
        return _cases().load_edge(path)
    return torch.export.load(path)


def _run(ep, args):
    args = torch.utils._pytree.tree_map(lambda t: t.clone() if isinstance(t, torch.Tensor) else t, args)
    return torch.utils._pytree.tree_leaves(ep.module()(*args))


def _same_outputs(want, got):
    assert len(got) == len(want)
    for i, (w, g) in enumerate(zip(want, got)):
        if isinstance(w, torch.Tensor):
            assert g.dtype == w.dtype and g.shape == w.shape, f"output {i}"
            torch.testing.assert_close(g, w, equal_nan=True)
        else:
            assert w == g, f"output {i}"


def _bodies(gm):
    """The nested graph modules of a graph module, depth first."""
    return [m for m in gm.modules() if isinstance(m, torch.fx.GraphModule) and m is not gm]


def _params():
    out = []
    for name in CF:
        for v in (name, name + ".decomp"):
            for pl in PIPELINES:
                marks = () if name in FAST else (pytest.mark.slow,)
                out.append(pytest.param(v, pl, marks=marks, id=f"{v}-{pl}"))
    return out


@pytest.mark.parametrize("zv,pipeline", _params())
def test_zoo_pipeline(eir, tmp_path, zv, pipeline):
    variant = zv
    if pipeline == "edge":
        pytest.importorskip("executorch.exir")
    src = _zoo_src(variant)
    opts, dialect = PIPELINES[pipeline]
    out = str(tmp_path / "out.pt2")
    _convert(eir, opts, src, out)
    _verify(eir, out, dialect or ("core" if variant.endswith(".decomp") else None))
    ep, ep2 = torch.export.load(src), _load(out, dialect)
    assert _print(eir, out) == str(ep2).rstrip("\n")
    # the bodies are still there, and lowered with the rest
    assert len(_bodies(ep2.graph_module)) == len(_bodies(ep.graph_module))
    for body in _bodies(ep2.graph_module):
        for nd in body.graph.nodes:
            if nd.op != "call_function":
                continue
            t = str(nd.target)
            if dialect == "edge" and t.startswith("aten."):
                assert t in ("aten.sym_size.int", "aten.scalar_tensor.default", "aten._local_scalar_dense.default",
                             "aten._assert_scalar.default"), t
    _, args, kwargs, _ = zoo.build(variant.split(".")[0])
    assert not kwargs
    _same_outputs(_run(ep, args), _run(ep2, args))


# ---- to-edge against ExecuTorch's to_edge() ----

def _constants_as_calls(gm):
    """ExecuTorch's body constants (get_attr of a 0-d tensor attribute) as the
    aten.scalar_tensor calls eir writes in their place, same name and metadata."""
    for mod in _bodies(gm):
        g = mod.graph
        for nd in list(g.nodes):
            if nd.op != "get_attr":
                continue
            t = getattr(mod, nd.target)
            if not isinstance(t, torch.Tensor):
                continue
            assert t.dim() == 0 and t.dtype in (torch.int64, torch.float32, torch.bool), (nd.name, t)
            name = nd.name
            with g.inserting_before(nd):
                new = g.call_function(torch.ops.aten.scalar_tensor.default, (t.item(),), {"dtype": t.dtype})
            new.meta = dict(nd.meta)
            nd.replace_all_uses_with(new)
            g.erase_node(nd)
            new.name = name
        mod.recompile()


def _normalize(text):
    # the name torch records for the method under torch._disable_dynamo (process dependent)
    text = re.sub(r"'_torchdynamo_disable_method': '\w+'", "'_torchdynamo_disable_method': ...", text)
    # a saved and loaded program reads every output of a call (getitem
    # `<call>_unused_<i>` for those nothing reads); in memory it does not
    text = re.sub(r'\n *\w+_unused_\d+: "[^"]*" = \w+\[\d+\];  \w+_unused_\d+ = None', "", text)
    # a tuple of operands prints as a list after a save and a load
    return text.replace("], ());", "], []);")


# equal to to_edge()'s program once normalized as above, as exported and decomposed
EDGE_EXACT = ["cond", "cond_shapes.decomp", "cond_sym", "map", "nested_cond", "scan", "scan_dyn", "while_loop",
              "while_nested"]
# where the retrace of to_edge() changes what it does not lower (docs/IR.md)
EDGE_DIFFERS = {
    "cond_shapes": "recreates the sym_size call of a branch (with the retrace's annotation)",
    "cond_unbacked": "renumbers unbacked symbols, recreates the sym_size call of a branch",
    "while_count": "renumbers unbacked symbols",
    "map_dyn": "specializes the mapped dimension",
}
EDGE_FAST = {"while_nested"}


def _edge_params():
    out = []
    for n in EDGE_EXACT:
        for v in ((n,) if "." in n else (n, n + ".decomp")):
            out.append(pytest.param(v, marks=() if n in EDGE_FAST else (pytest.mark.slow,), id=v))
    return out


@pytest.mark.parametrize("zv", _edge_params())
def test_zoo_to_edge_matches_executorch(eir, tmp_path, zv):
    variant = zv
    pytest.importorskip("executorch.exir")
    from executorch.exir import to_edge
    src = _zoo_src(variant)
    out = str(tmp_path / "edge.pt2")
    _convert(eir, ["--to", "edge"], src, out)
    edge = to_edge(torch.export.load(src)).exported_program()
    _, args, _, _ = zoo.build(variant.split(".")[0])
    want_out = _run(edge, args)            # before the rewrite below: ExecuTorch's program as it is
    _constants_as_calls(edge.graph_module)
    want = _normalize(str(edge).rstrip("\n"))
    got = _normalize(_print(eir, out))
    assert got == want
    _same_outputs(want_out, _run(_cases().load_edge(out), args))


def _differs_params():
    out = []
    for n in sorted(EDGE_DIFFERS):
        for v in (n, n + ".decomp"):
            if v not in EDGE_EXACT:
                out.append(pytest.param(v, marks=pytest.mark.slow, id=v))
    return out


@pytest.mark.parametrize("zv", _differs_params())
def test_zoo_to_edge_differs_only_in_retrace(eir, tmp_path, zv):
    """The programs whose to_edge() output differs from eir's by what the retrace
    does to symbols and symbolic sizes: the lowered calls are the same, named the
    same, in the same order, and compute the same."""
    pytest.importorskip("executorch.exir")
    from executorch.exir import to_edge
    src = _zoo_src(zv)
    out = str(tmp_path / "edge.pt2")
    _convert(eir, ["--to", "edge"], src, out)
    edge = to_edge(torch.export.load(src)).exported_program()
    _, args, _, _ = zoo.build(zv.split(".")[0])
    want_out = _run(edge, args)
    _constants_as_calls(edge.graph_module)
    mine = _cases().load_edge(out)

    def calls(gm):
        return [(n.name, str(n.target)) for m in [gm] + _bodies(gm) for n in m.graph.nodes
                if n.op == "call_function"]
    assert calls(mine.graph_module) == calls(edge.graph_module)
    _same_outputs(want_out, _run(mine, args))


# ---- to-backend inside bodies ----

class CondLinear(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(6, 5)
        self.b = torch.nn.Linear(6, 5)

    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda x: torch.relu(self.a(x)), lambda x: torch.nn.functional.hardtanh(
            self.b(x), -0.5, 0.5), (x,))


class CondConv(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        return torch.cond(x.mean() > 0, lambda x: torch.relu(self.c(x)), lambda x: self.c(x) * 2, (x,))


def _export(mod, args, strict, decomp):
    ep = torch.export.export(mod.eval(), args, strict=strict)
    return ep.run_decompositions() if decomp else ep


@pytest.mark.parametrize("strict", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["nonstrict", "strict"])
@pytest.mark.parametrize("decomp", [False, True], ids=["exported", "decomp"])
@pytest.mark.parametrize("model", ["linear", "conv"])
def test_backend_fuses_in_bodies(eir, tmp_path, model, strict, decomp):
    torch.manual_seed(0)
    if model == "linear":
        mod, args, fused = CondLinear(), (torch.randn(4, 6),), {"relu", "hardtanh"}
    else:
        mod, args, fused = CondConv(), (torch.randn(2, 3, 8, 8),), {"relu"}
    src, out = str(tmp_path / "in.pt2"), str(tmp_path / "out.pt2")
    torch.export.save(_export(mod, args, strict, decomp), src)
    _convert(eir, ["--to", "backend"], src, out)
    _verify(eir, out, "backend")
    ep2 = torch.export.load(out)
    assert _print(eir, out) == str(ep2).rstrip("\n")
    acts = set()
    for body in _bodies(ep2.graph_module):
        for nd in body.graph.nodes:
            if nd.op == "call_function" and str(nd.target).startswith("eir_cpu."):
                strs = [a for a in nd.args if isinstance(a, str)]
                acts.add(nd.kwargs.get("activation", strs[0] if strs else "none"))
    assert fused <= acts, acts
    # the weights stay parameters, passed to the bodies as operands
    assert {k for k in ep2.state_dict} == {k for k, _ in mod.named_parameters()}
    for x in (args[0], -args[0]):          # both branches
        with torch.no_grad():
            want = mod(x)
        _same_outputs([want], _run(ep2, (x,)))


class CondEdge(torch.nn.Module):
    """A branch with a parameter, a view and numbers of both kinds; a while_loop."""
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(6, 5)

    def forward(self, x, n):
        y = torch.cond(x.sum() > 0, lambda x: self.a(x) * 2, lambda x: torch.relu(x[:, :5]) + 1.5, (x,))
        _, z = torch._higher_order_ops.while_loop(lambda i, z: i < n, lambda i, z: (i + 1, z.t().t() * 0.5 + 1),
                                                  (torch.zeros((), dtype=torch.int64), y))
        return z


@pytest.mark.parametrize("strict", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["nonstrict", "strict"])
@pytest.mark.parametrize("decomp", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["exported", "decomp"])
def test_to_edge_module_matches_executorch(eir, tmp_path, strict, decomp):
    pytest.importorskip("executorch.exir")
    from executorch.exir import to_edge
    torch.manual_seed(0)
    mod = CondEdge().eval()
    args = (torch.randn(4, 6), torch.tensor(3))
    ep = _export(mod, args, strict, decomp)
    src, out = str(tmp_path / "in.pt2"), str(tmp_path / "edge.pt2")
    torch.export.save(ep, src)
    _convert(eir, ["--to", "edge"], src, out)
    _verify(eir, out, "edge")
    edge = to_edge(torch.export.load(src)).exported_program()
    _constants_as_calls(edge.graph_module)
    # the retrace of the while_loop leaves range constraints for unbacked symbols
    # no graph uses (u1 ...); eir keeps the input's
    got, want = (_normalize(t).split("\nRange constraints: ") for t in (_print(eir, out), str(edge).rstrip("\n")))
    assert got[0] == want[0]
    assert got[1] == str(torch.export.load(src)).rstrip("\n").split("\nRange constraints: ")[1]
    mine = _cases().load_edge(out)
    for x in (args[0], -args[0]):
        with torch.no_grad():
            want = mod(x, args[1])
        _same_outputs([want], _run(mine, (x, args[1])))


# ---- fold: values computed from state before a call, bodies left alone ----

class CondFold(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(5, 6))
        self.register_buffer("k", torch.randn(5))

    def forward(self, x):
        wt = self.w.t() * 2
        return torch.cond(x.sum() > 0, lambda x, wt, k: x @ wt + k, lambda x, wt, k: x @ wt - k, (x, wt, self.k))


@pytest.mark.parametrize("strict", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["nonstrict", "strict"])
def test_fold_operand_of_cond(eir, tmp_path, strict):
    """w.t() * 2 folds into a lifted constant that the cond call passes; the
    branches (which read it as an input) stay as they were, and w leaves."""
    torch.manual_seed(0)
    mod = CondFold().eval()
    x = torch.randn(4, 6)
    src, out = str(tmp_path / "in.pt2"), str(tmp_path / "fold.pt2")
    torch.export.save(torch.export.export(mod, (x,), strict=strict), src)
    _convert(eir, ["--fold"], src, out)
    _verify(eir, out, None)
    ep, ep2 = torch.export.load(src), torch.export.load(out)
    assert _print(eir, out) == str(ep2).rstrip("\n")
    assert list(ep2.state_dict) == ["k"] and list(ep2.constants) == ["_prop_tensor_constant0"]

    def body_calls(e):
        return [[str(n.target) for n in b.graph.nodes if n.op == "call_function"] for b in _bodies(e.graph_module)]
    assert body_calls(ep2) == body_calls(ep)
    for xx in (x, -x):
        with torch.no_grad():
            want = mod(xx)
        _same_outputs([want], _run(ep2, (xx,)))
