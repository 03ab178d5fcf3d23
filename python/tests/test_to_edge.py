"""The pass to-edge (`eir convert --to edge`) against ExecuTorch's
exir.to_edge(): the printed programs are compared (torch's print of
to_edge()'s program after torch.export.save and a load, see
tests/edge/cases.py load_edge), eir's output verifies as Edge, and it
computes what to_edge()'s program computes.

Without ExecuTorch, the committed fixtures of tests/edge/ (gen.py) stand in
for it."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from conftest import REPO

EDGE_DIR = os.path.join(REPO, "tests", "edge")
FIXTURES = ["linear", "affine_int32", "views", "conv_bn_relu", "dynamic", "buffer_mutation"]


def _cases():
    if EDGE_DIR not in sys.path:
        sys.path.insert(0, EDGE_DIR)
    import cases
    return cases


def _run(*args):
    return subprocess.run(list(args), capture_output=True, text=True)


def _convert(eir, src, out):
    p = _run(eir, "convert", "--to", "edge", src, out)
    assert p.returncode == 0, p.stderr
    return out


def _print(eir, path, form=None):
    p = _run(eir, "print", *([form] if form else []), path)
    assert p.returncode == 0, p.stderr
    return p.stdout.rstrip("\n")


def _verify_edge(eir, path):
    p = _run(eir, "verify", "--dialect", "edge", path)
    assert p.returncode == 0, p.stdout + p.stderr


# ---- the committed fixtures (no ExecuTorch needed) ----

@pytest.mark.parametrize("name", FIXTURES)
def test_fixture(eir, tmp_path, name):
    out = _convert(eir, os.path.join(EDGE_DIR, name + ".pt2"), str(tmp_path / "edge.pt2"))
    with open(os.path.join(EDGE_DIR, name + ".edge.graph.txt")) as f:
        assert _print(eir, out) == f.read().rstrip("\n")
    with open(os.path.join(EDGE_DIR, name + ".edge.program.txt")) as f:
        assert _print(eir, out, "--program") == f.read().rstrip("\n")
    _verify_edge(eir, out)


def test_not_core_is_refused_or_lowered(eir, tmp_path):
    """An ATen program that is not Core ATen (aten.linear) goes through to-core when
    eir has that pass; otherwise the error names the non-core calls."""
    src = os.path.join(REPO, "examples", "mlp.pt2")
    has_core = "--to-core" in _run(eir, "convert", "--help").stdout
    p = _run(eir, "convert", "--to", "edge", src, str(tmp_path / "edge.pt2"))
    if has_core:
        assert p.returncode == 0, p.stderr
        _verify_edge(eir, str(tmp_path / "edge.pt2"))
    else:
        assert p.returncode == 1
        assert "--to-edge: to-edge: the program is not Core ATen" in p.stderr
        assert "(aten.linear.default)" in p.stderr


def test_unknown_dialect(eir, tmp_path):
    p = _run(eir, "convert", "--to", "cpu", "a.pt2", str(tmp_path / "b.pt2"))
    assert p.returncode == 2 and "convert: --to needs a dialect: core, edge or backend" in p.stderr


def test_verify_each_checks_edge(eir, tmp_path):
    p = _run(eir, "convert", "--to", "edge", "--verify-each", os.path.join(EDGE_DIR, "views.pt2"),
             str(tmp_path / "e.pt2"))
    assert p.returncode == 0, p.stderr


# ---- against ExecuTorch ----

def _outputs(mod, args):
    import torch
    # a copy of the inputs for each run: programs may write them
    args = torch.utils._pytree.tree_map(lambda a: a.clone() if isinstance(a, torch.Tensor) else a, args)
    out = mod(*args)
    return out if isinstance(out, (tuple, list)) else (out,)


def _dynamo_method(text):
    """The name torch records for the method under torch._disable_dynamo on the
    copy_ nodes to_edge adds ('dispatch_trace', or 'trace' in a process where
    other exports ran before): not part of the program's meaning."""
    return re.sub(r"'_torchdynamo_disable_method': '\w+'", "'_torchdynamo_disable_method': ...", text)


def _compare(eir, tmp_path, ep, args):
    """eir's to-edge of ep against to_edge(ep): printed graph and program, Edge
    verification, outputs on args."""
    import torch
    from executorch.exir import to_edge

    cases = _cases()
    src, ref, out = str(tmp_path / "core.pt2"), str(tmp_path / "ref.pt2"), str(tmp_path / "edge.pt2")
    torch.export.save(ep, src)
    edge = to_edge(ep).exported_program()
    torch.export.save(edge, ref)
    _convert(eir, src, out)
    loaded = cases.load_edge(ref)
    assert _print(eir, out) == str(loaded.graph).rstrip("\n")
    assert _dynamo_method(_print(eir, out, "--program")) == _dynamo_method(str(loaded).rstrip("\n"))
    _verify_edge(eir, out)
    if args is None:
        return
    got = _outputs(cases.load_edge(out).module(), args)
    want = _outputs(edge.module(), args)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        torch.testing.assert_close(g, w, equal_nan=True)


# the fast set (`pytest -m "not slow"`); the rest are marked slow
FAST = {("linear", False), ("linear", True), ("conv_bn_relu", False), ("layernorm_gelu", False),
        ("affine_int", False), ("affine_int32", True), ("to_f64", False), ("views", True), ("softmax", False),
        ("buffer_mutation", False), ("dynamic", True)}


def _case_params():
    names = ["linear", "conv_bn_relu", "layernorm_gelu", "affine_float", "affine_int", "affine_int32", "affine_f64",
             "int_div", "to_f64", "views", "softmax", "buffer_mutation", "mixed", "dynamic", "unused_param"]
    out = []
    for n in names:
        for strict in (False, True):
            marks = () if (n, strict) in FAST else (pytest.mark.slow,)
            out.append(pytest.param(n, strict, id=f"{n}-{'strict' if strict else 'nonstrict'}", marks=marks))
    return out


@pytest.mark.parametrize("name,strict", _case_params())
def test_matches_to_edge(eir, tmp_path, name, strict):
    pytest.importorskip("executorch.exir")
    ep, args = _cases().core_program(name, strict)
    _compare(eir, tmp_path, ep, args)


# zoo programs (*.decomp.pt2) whose to_edge() output torch.export.save writes and
# eir's to-edge reproduces exactly (docs/IR.md, to-edge, lists the others)
ZOO_EXACT = ["buffer_mutation", "buffer_reassign", "dataclass_input", "dtype_bf16", "dtype_bool", "dtype_f16",
             "input_mutation", "lifted_constants", "mlp", "mobilenetv2", "optional_dyn", "optional_inputs", "resnet18", "static_values",
             "tied_weights", "transformer_encoder"]
ZOO_FAST = {"mlp", "lifted_constants"}


def _zoo_params():
    return [pytest.param(n, marks=() if n in ZOO_FAST else (pytest.mark.slow,)) for n in ZOO_EXACT]


@pytest.mark.parametrize("name", _zoo_params())
def test_zoo_matches_to_edge(eir, tmp_path, name):
    torch = pytest.importorskip("torch")
    pytest.importorskip("executorch.exir")
    d = os.environ.get("EIR_ZOO_DIR")
    src = os.path.join(d, name + ".decomp.pt2") if d else None
    if not src or not os.path.exists(src):
        pytest.skip("no zoo (EIR_ZOO_DIR)")
    zoo_src = os.path.join(REPO, "python", "zoo")
    if zoo_src not in sys.path:
        sys.path.insert(0, zoo_src)   # the zoo's pytree types
    ep = torch.export.load(src)
    args = None
    if ep.example_inputs is not None and not ep.example_inputs[1]:
        args = ep.example_inputs[0]
    _compare(eir, tmp_path, ep, args)
