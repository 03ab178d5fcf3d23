"""`eir verify`: valid programs verify clean in their dialect, and every
violation planted in a valid program is reported with its rule, node,
target and what was expected.

  - the committed fixtures (tests/e2e/fixtures): as exported -> ATen, after
    run_decompositions() -> Core ATen (two keep operators torch has no
    decomposition for, which the verifier names);
  - the zoo (python/zoo), exported live, the same way;
  - ExecuTorch's to_edge() output (when executorch is installed) -> Edge, and
    where ExecuTorch refuses a zoo program, eir's Core ATen verifier names the same ops;
  - the violations of tests/verify/plant.py (model.json edited with zipfile +
    json), all reported at once;
  - the command line: exit status, text and JSON output, usage errors.
"""
from __future__ import annotations

import glob
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
FIX = os.path.join(REPO, "tests", "e2e", "fixtures")
sys.path.insert(0, os.path.join(REPO, "tests", "verify"))

import plant  # noqa: E402

# Operators torch 2.13's run_decompositions() keeps although they are not Core ATen
# (no decomposition is registered for them): the Core ATen verifier reports them.
DECOMP_LEFTOVERS = {
    "dtype_int.decomp": [("lshift", "aten.__lshift__.Scalar")],
    "storage.decomp": [("view_as_real", "aten.view_as_real.default"),
                       ("view_as_real_1", "aten.view_as_real.default")],
    # data-dependent output sizes
    "masked_select.decomp": [("masked_select", "aten.masked_select.default")],
    "unique_dyn.decomp": [("_unique2", "aten._unique2.default")],
    "mask_repeat.decomp": [("repeat_interleave", "aten.repeat_interleave.Tensor"),
                           ("repeat_interleave_1", "aten.repeat_interleave.Tensor")],
}


def verify(eir, path, dialect=None, json_out=True):
    cmd = [eir, "verify", path] + (["--dialect", dialect] if dialect else []) + (["--json"] if json_out else [])
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if json_out and p.returncode in (0, 3):
        return p.returncode, json.loads(p.stdout)["violations"], p
    return p.returncode, None, p


def dialect_of(name):
    return "core" if name.endswith(".decomp") else "aten"


def check_clean(eir, path, name):
    d = dialect_of(name)
    rc, vs, p = verify(eir, path, d)
    assert rc in (0, 3), p.stderr
    got = [(v["node"], v["target"]) for v in vs]
    want = DECOMP_LEFTOVERS.get(name, [])
    assert got == want, "\n".join(v["message"] for v in vs)
    assert all(v["rule"] == "core.not-core" for v in vs)
    assert rc == (3 if want else 0)
    # a decomposed program is an ATen program too
    if d == "core":
        rc, vs, p = verify(eir, path, "aten")
        assert rc == 0, "\n".join(v["message"] for v in vs)


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(FIX, "*.pt2"))),
                         ids=lambda p: os.path.basename(p)[:-4])
def test_fixture_verifies(eir, path):
    check_clean(eir, path, os.path.basename(path)[:-4])


def test_zoo_verifies(eir, pt2, variant):
    check_clean(eir, pt2 + ".pt2", variant)


def test_exported_not_core(eir):
    """the ATen program as exported has non-core ops (linear) and in-place ops (add_): not Core ATen"""
    rc, vs, _ = verify(eir, os.path.join(FIX, "mlp.pt2"), "core")
    assert rc == 3
    assert {v["target"] for v in vs} == {"aten.linear.default"}
    assert all(v["rule"] == "core.not-core" for v in vs)
    rc, vs, _ = verify(eir, os.path.join(FIX, "buffer_mutation.pt2"), "core")
    assert rc == 3
    assert [(v["rule"], v["node"]) for v in vs if v["rule"] == "op.functional"] == \
        [("op.functional", "add_"), ("op.functional", "mul_"), ("op.functional", "add__1")]


@pytest.mark.parametrize("case", plant.CASES, ids=lambda c: c[0])
def test_planted(eir, tmp_path, case):
    name, src, dialect, edit, expected = case
    out = str(tmp_path / (name + ".pt2"))
    plant.plant(src, out, edit)
    # the original is valid in its own dialect
    own = "edge" if src == plant.EDGE else "core" if src.endswith(".decomp.pt2") else "aten"
    rc, vs, p = verify(eir, src, own)
    assert rc == 0, "\n".join(v["message"] for v in vs)
    rc, vs, p = verify(eir, out, dialect)
    assert rc == 3, p.stderr
    for rule, node, target, text in expected:
        hits = [v for v in vs if v["rule"] == rule and v["node"] == node and v["target"] == target
                and text in v["message"]]
        assert hits, f"no {rule} on {node} ({target}) saying {text!r} in:\n" + "\n".join(v["message"] for v in vs)
        for v in hits:
            if node is not None:
                assert v["message"].startswith(f"node %{node} ({target})")
            else:
                assert v["message"].startswith("signature: ")
            if v["source"]:
                assert v["message"].endswith(f" [{v['source']}]")
    # text form: one line per violation, then the count
    rc, _, p = verify(eir, out, dialect, json_out=False)
    lines = p.stdout.splitlines()
    assert rc == 3 and len(lines) == len(vs) + 1
    assert lines[-1].endswith(f"{len(vs)} violation{'s' if len(vs) != 1 else ''} of the "
                              f"{ {'aten': 'ATen', 'core': 'Core ATen', 'edge': 'Edge'}[dialect] } dialect")
    assert lines[:-1] == [v["message"] for v in vs]


def test_planted_source_lines(eir, tmp_path):
    """node violations carry the user's line from stack_trace"""
    out = str(tmp_path / "p.pt2")
    plant.plant(plant.BASE, out, plant.rename_input("mul", "other", "othr"))
    _, vs, _ = verify(eir, out)
    assert vs[0]["source"].startswith("File: ")
    assert vs[0]["source"].endswith("make_base.py:22 in forward, code: y = self.lin(x) * self.scale + self.const")


def test_all_at_once(eir, tmp_path):
    """several planted violations in one program are all reported, in graph order, signature last"""
    def edit(m, r):
        plant.set_target("linear", "torch.ops.aten.linearr.default")(m, r)
        plant.rename_input("mul", "other", "othr")(m, r)
        plant.nested_unknown(m, r)
        plant.swap_output_specs(m, r)
    out = str(tmp_path / "many.pt2")
    plant.plant(plant.BASE, out, edit)
    rc, vs, _ = verify(eir, out)
    assert rc == 3
    assert [(v["rule"], v["node"], v["graph"]) for v in vs] == [
        ("op.unknown", "linear", None), ("arg.unknown", "mul", None), ("arg.missing", "mul", None),
        ("op.unknown", "relu", "true_graph_0"), ("sig.output-order", None, None),
        ("sig.output-order", None, None)]


def test_cli(eir, tmp_path):
    rc, _, p = verify(eir, os.path.join(FIX, "mlp.pt2"), json_out=False)
    assert rc == 0 and p.stdout.strip().endswith("mlp.pt2: valid ATen program")
    rc, vs, p = verify(eir, os.path.join(FIX, "mlp.decomp.pt2"), "core")
    assert rc == 0 and vs == [] and p.stdout == '{"violations": []}\n'
    bad = tmp_path / "bad.pt2"
    bad.write_bytes(b"not a zip")
    p = subprocess.run([eir, "verify", str(bad)], capture_output=True, text=True)
    assert p.returncode == 1 and p.stderr.startswith("eir: ")
    p = subprocess.run([eir, "verify", "--dialect", "cpu", str(bad)], capture_output=True, text=True)
    assert p.returncode == 2 and "unknown dialect 'cpu' (aten, core, edge or backend)" in p.stderr
    p = subprocess.run([eir, "verify"], capture_output=True, text=True)
    assert p.returncode == 2 and "verify: no model given" in p.stderr
    p = subprocess.run([eir, "verify", "--help"], capture_output=True, text=True)
    assert p.returncode == 0 and "verify [--dialect D] [--json] MODEL.pt2" in p.stdout
    rc, _, p = verify(eir, os.path.join(FIX, "mlp.decomp.pt2"), "--dialect=edge".split("=")[1], json_out=False)
    assert rc == 3 and "is not an Edge operator" in p.stdout


# ---- ExecuTorch's Edge dialect ----

def _edge_programs():
    torch = pytest.importorskip("torch")
    pytest.importorskip("executorch.exir")
    import torch.nn as nn

    class Conv(nn.Module):
        def __init__(self):
            super().__init__()
            self.c = nn.Conv2d(3, 4, 3)
            self.bn = nn.BatchNorm2d(4)

        def forward(self, x):
            v, i = torch.softmax(self.bn(self.c(x)).flatten(1), -1).max(dim=1)
            return v, i

    class Ints(nn.Module):
        def forward(self, a, b):
            return (a + b * 2).to(torch.float32).mean(), torch.cat([a, b]).sum()

    class Mlp(nn.Module):
        def __init__(self):
            super().__init__()
            self.l1, self.l2 = nn.Linear(8, 16), nn.Linear(16, 4)

        def forward(self, x):
            return torch.tanh(self.l2(torch.relu(self.l1(x)))) / 2.0

    return [("conv", Conv().eval(), (torch.randn(1, 3, 8, 8),)),
            ("ints", Ints(), (torch.arange(6), torch.arange(6))),
            ("mlp", Mlp(), (torch.randn(2, 8),))]


def test_edge_verifies(eir, tmp_path):
    import warnings
    programs = _edge_programs()
    import torch
    from executorch.exir import to_edge
    warnings.filterwarnings("ignore")
    for name, m, args in programs:
        ep = torch.export.export(m, args)
        edge = to_edge(ep).exported_program()
        out = str(tmp_path / (name + ".pt2"))
        torch.export.save(edge, out)
        rc, vs, p = verify(eir, out, "edge")
        assert rc == 0, name + ":\n" + "\n".join(v["message"] for v in vs)
        # the ATen program it came from is no Edge program
        src = str(tmp_path / (name + ".aten.pt2"))
        torch.export.save(ep, src)
        rc, vs, _ = verify(eir, src, "edge")
        assert rc == 3 and {v["rule"] for v in vs} >= {"edge.not-edge-op"}


def test_committed_edge_fixture(eir):
    rc, vs, _ = verify(eir, plant.EDGE, "edge")
    assert rc == 0 and vs == []


# zoo programs whose to_edge() output torch.export.save can write (it cannot serialize
# control-flow subgraphs of Edge programs yet), and those ExecuTorch refuses
EDGE_ZOO = ["mlp", "transformer_encoder", "dynamic_shapes", "custom_op", "buffer_mutation", "dtype_bf16",
            "lifted_constants", "scan", "nonzero_dyn", "item_size", "grad_autocast",
            "dtype_int", "storage", "masked_select", "unique_dyn", "mask_repeat"]


@pytest.mark.parametrize("name", EDGE_ZOO)
def test_edge_agrees_with_executorch(eir, tmp_path, name):
    """to_edge() accepts the program and eir finds its output a valid Edge program; or
    ExecuTorch's verifier refuses it, and eir's Core ATen verifier names what it refuses"""
    torch = pytest.importorskip("torch")
    pytest.importorskip("executorch.exir")
    import warnings
    from executorch.exir import to_edge
    from torch._export.verifier import SpecViolationError
    if os.path.join(REPO, "python", "zoo") not in sys.path:
        sys.path.insert(0, os.path.join(REPO, "python", "zoo"))
    import zoo
    warnings.filterwarnings("ignore")
    mod, args, kwargs, ds = zoo.build(name)
    ep = torch.export.export(mod, tuple(args), kwargs=kwargs or None, dynamic_shapes=ds)
    try:
        edge = to_edge(ep).exported_program()
    except SpecViolationError as e:
        out = str(tmp_path / "decomp.pt2")
        torch.export.save(ep.run_decompositions(), out)
        rc, vs, _ = verify(eir, out, "core")
        assert rc == 3 and vs
        refused = {v["target"] for v in vs if v["rule"] == "core.not-core"}
        assert refused and all(t.split(".")[1] in str(e) for t in refused), (refused, str(e)[:500])
        return
    out = str(tmp_path / "edge.pt2")
    torch.export.save(edge, out)
    rc, vs, _ = verify(eir, out, "edge")
    assert rc == 0, "\n".join(v["message"] for v in vs)


@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
@pytest.mark.parametrize("decomp", [False, True], ids=["exported", "decomp"])
def test_views_after_load(eir, tmp_path, strict, decomp):
    """torch.export.load rebuilds every value with storage offset 0, so a program saved again after
    loading records 0 for its views' offsets (a slice, a split): still a valid program. A wrong
    nonzero offset is still reported."""
    torch = pytest.importorskip("torch")

    class M(torch.nn.Module):
        def forward(self, x):
            q, k = x.split(6, dim=-1)
            return x[:, 4:8] * 2, q + k

    ep = torch.export.export(M(), (torch.randn(2, 12),), strict=strict)
    if decomp:
        ep = ep.run_decompositions()
    path = str(tmp_path / "m.pt2")
    torch.export.save(ep, path)
    torch.export.save(torch.export.load(path), path)
    d = "core" if decomp else "aten"
    rc, vs, p = verify(eir, path, d)
    assert rc == 0, "\n".join(v["message"] for v in vs or []) + p.stderr
    # the first slice's offset recorded as 3 instead of 4: reported
    out = str(tmp_path / "bad.pt2")

    def edit(model, records):
        tv = model["graph_module"]["graph"]["tensor_values"]
        assert tv["slice_1"]["storage_offset"] == {"as_int": 0}, tv["slice_1"]
        tv["slice_1"]["storage_offset"] = {"as_int": 3}

    plant.plant(path, out, edit)
    rc, vs, p = verify(eir, out, d)
    assert rc == 3, p.stdout + p.stderr
    assert any(v["rule"] == "meta.mismatch" and "storage offset differs" in v["message"] for v in vs), vs
