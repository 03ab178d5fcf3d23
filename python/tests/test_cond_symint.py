"""Control flow with symbolic ints among the operands, in eir vs torch 2.13.

`torch.cond(x.shape[0] > 4, lambda x, n: x * n, lambda x, n: x + n, (x, x.shape[0]))`,
or a branch closing over `x.shape[0]` (torch.export lifts the size into an
operand), gives a cond node whose operand list mixes a SymInt with tensors;
torch's serializer writes that list as `as_tensors`. eir loads it (src/serde/load.c),
prints it exactly as torch does and runs it. Also: a Python int operand, a
derived size (2*n + 1) closed over, nested cond, branches returning constant
ints (an unbacked SymInt output with its runtime assertions), a dynamic int
input as predicate and closure, map over a closure on the size, while_loop
bounded by the size.

Each program is exported live, in the modes torch 2.13 can export it in
(non-strict export refuses non-tensor operands); then:
  - `eir print` (graph, --code, --program) equals torch's text for the loaded program;
  - `eir run` equals `ep.module()` on inputs that take each branch, for
    several sizes;
  - an input torch's guards refuse, eir refuses with the same guard text.
"""
from __future__ import annotations

import os
import subprocess

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

from conftest import to_npy  # noqa: E402
from tolerances import tolerance  # noqa: E402

Dim = torch.export.Dim


class Pred(torch.nn.Module):          # symbolic predicate, the size as an operand
    def forward(self, x):
        return torch.cond(x.shape[0] > 4, lambda x, n: x * n, lambda x, n: x + n, (x, x.shape[0]))


class Closure(torch.nn.Module):       # data predicate, branches close over the size
    def forward(self, x):
        n = x.shape[0]
        return torch.cond(x.sum() > 0, lambda x: x * n, lambda x: x - n, (x,))


class IntOperand(torch.nn.Module):    # a Python int operand
    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda x, k: x * k, lambda x, k: x - k, (x, 3))


class DerivedClosure(torch.nn.Module):  # 2*n + 1 closed over; branches of different widths
    def forward(self, x):
        m = x.shape[0] * 2 + 1
        return torch.cond(x.shape[0] > 4, lambda x: x[:, :2] * m, lambda x: x[:, 1:] - m, (x,))


class Nested(torch.nn.Module):        # the size through two levels of cond
    def forward(self, x):
        n = x.shape[0]

        def big(x):
            return torch.cond(x.sum() > 0, lambda x: x * n, lambda x: x + n, (x,))
        return torch.cond(n > 4, big, lambda x: x - n, (x,))


class IntOutputs(torch.nn.Module):    # branches return constant ints: an unbacked SymInt output
    def forward(self, x):
        y, k = torch.cond(x.sum() > 0, lambda x: (x + 1, 2), lambda x: (x - 1, 3), (x,))
        return y * k


class IntOutputReturned(torch.nn.Module):  # the int output returned, the size closed over
    def forward(self, x):
        n = x.shape[0]
        y, k = torch.cond(x.sum() > 0, lambda x: (x * n, 5), lambda x: (x + n, 7), (x,))
        return y, k


class SameIntOutput(torch.nn.Module):  # both branches return 2: a plain int
    def forward(self, x):
        y, k = torch.cond(x.shape[0] > 4, lambda x: (x + 1, 2), lambda x: (x - 1, 2), (x,))
        return y * k


class IntInput(torch.nn.Module):      # a dynamic int input as predicate and closure
    def forward(self, x, n):
        return torch.cond(n > 4, lambda x: x * n, lambda x: x + n, (x,))


class MapClosure(torch.nn.Module):    # map's body closes over the size
    def forward(self, x):
        from torch._higher_order_ops.map import map as hmap
        n = x.shape[0]
        return hmap(lambda r: r * n, x)


class WhileBound(torch.nn.Module):    # while_loop bounded by the size
    def forward(self, x):
        from torch._higher_order_ops.while_loop import while_loop
        n = x.shape[0]
        return while_loop(lambda i, y: i < n, lambda i, y: (i + 1, y * 0.5 + n), (torch.tensor(0), x))


B = Dim("b", min=2, max=64)
BOTH, STRICT, NONSTRICT = ("strict", "nonstrict"), ("strict",), ("nonstrict",)
# name -> (module, example args, dynamic_shapes, modes torch 2.13 exports it in)
PROGRAMS = {
    "pred": (Pred, (torch.randn(6, 3),), ({0: B},), STRICT),
    "closure": (Closure, (torch.randn(6, 3),), ({0: B},), BOTH),
    "int_operand": (IntOperand, (torch.randn(6, 3),), ({0: B},), STRICT),
    "derived_closure": (DerivedClosure, (torch.randn(6, 3),), ({0: B},), BOTH),
    "nested": (Nested, (torch.randn(6, 3),), ({0: B},), BOTH),
    "int_outputs": (IntOutputs, (torch.randn(6, 3),), ({0: B},), BOTH),
    "int_output_returned": (IntOutputReturned, (torch.randn(6, 3),), ({0: B},), BOTH),
    "same_int_output": (SameIntOutput, (torch.randn(6, 3),), ({0: B},), BOTH),
    "int_input": (IntInput, (torch.randn(6, 3), 5), ({0: B}, Dim.DYNAMIC), BOTH),
    "map_closure": (MapClosure, (torch.randn(6, 3),), ({0: B},), BOTH),
    "while_bound": (WhileBound, (torch.randn(6, 3),), ({0: B},), NONSTRICT),
}
KEYS = [f"{n}.{m}" for n, p in PROGRAMS.items() for m in p[3]]


def _x(rows, sign, seed=0):
    g = torch.Generator().manual_seed(100 + rows * 7 + seed)
    return (torch.rand(rows, 3, generator=g) + 0.1) * sign


def _inputs(name):
    """inputs taking each branch: sizes on both sides of 4, data of both signs"""
    out = []
    for rows in (6, 3, 5, 2, 64):
        for sign in (1, -1):
            out.append((_x(rows, sign), 5 if rows % 2 else 3) if name == "int_input" else (_x(rows, sign),))
    return out


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    d = tmp_path_factory.mktemp("cond_symint")
    out = {}
    for name, (cls, args, ds, modes) in PROGRAMS.items():
        for mode in modes:
            try:
                ep = torch.export.export(cls(), args, dynamic_shapes=ds, strict=mode == "strict")
                path = str(d / f"{name}.{mode}.pt2")
                torch.export.save(ep, path)
                out[f"{name}.{mode}"] = (path, None)
            except Exception as e:  # noqa: BLE001
                out[f"{name}.{mode}"] = (None, f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
    return out


def _path(exported, key):
    path, why = exported[key]
    assert path is not None, f"{key}: torch.export failed: {why}"
    return path


@pytest.mark.parametrize("form", ["graph", "code", "program"])
@pytest.mark.parametrize("key", KEYS)
def test_print(eir, exported, key, form):
    pt2 = _path(exported, key)
    ep = torch.export.load(pt2)
    want = {"graph": str(ep.graph), "code": ep.graph_module.code, "program": str(ep)}[form] + "\n"
    flag = {"graph": [], "code": ["--code"], "program": ["--program"]}[form]
    r = subprocess.run([eir, "print", *flag, pt2], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"{key}: eir print {' '.join(flag)}: {r.stderr}"
    assert r.stdout == want, f"{key}: eir print {' '.join(flag)} differs from torch:\n--- eir\n{r.stdout}\n--- torch\n{want}"


def _run(eir, pt2, args, d):
    paths = []
    for i, a in enumerate(args):
        p = os.path.join(d, f"in_{i}.npy")
        np.save(p, to_npy(a) if isinstance(a, torch.Tensor) else np.array(a, dtype=np.int64))
        paths.append(p)
    return subprocess.run([eir, "run", pt2, *paths, "--out", os.path.join(d, "out")], capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize("key", KEYS)
def test_run_matches_torch(eir, exported, key, tmp_path):
    pt2 = _path(exported, key)
    mod = torch.export.load(pt2).module()
    ran = 0
    for k, args in enumerate(_inputs(key.split(".")[0])):
        what = f"{key} input {k} {[tuple(a.shape) if isinstance(a, torch.Tensor) else a for a in args]}"
        d = tmp_path / f"case{k}"
        d.mkdir()
        try:
            want = mod(*args)
        except Exception as e:  # noqa: BLE001  torch's guards refuse it: eir must too, with the same text
            first = str(e).splitlines()[0]
            r = _run(eir, pt2, args, str(d))
            assert r.returncode == 1, f"{what}: torch refused ({first!r}), eir exit {r.returncode}: {r.stderr}"
            if "Guard failed: " in first:
                text = first[first.index("Guard failed: "):]
                assert text in r.stderr, f"{what}: torch said {text!r}, eir said {r.stderr!r}"
            continue
        r = _run(eir, pt2, args, str(d))
        assert r.returncode == 0, f"{what}: eir failed where torch ran: {r.stderr}"
        for i, w in enumerate(torch.utils._pytree.tree_leaves(want)):
            got = np.load(d / "out" / f"output_{i}.npy")
            if not isinstance(w, torch.Tensor):
                assert got.shape == () and got.item() == w, f"{what}: output {i}: {got} != {w}"
                continue
            w = to_npy(w)
            assert got.shape == w.shape, f"{what}: output {i}: shape {got.shape}, torch {w.shape}"
            rtol, atol = tolerance(torch.float32)
            np.testing.assert_allclose(got, w, rtol=rtol, atol=atol, err_msg=f"{what}: output {i}")
        ran += 1
    assert ran >= 6, f"{key}: torch ran only {ran} of the inputs; the cases prove little"


@pytest.mark.parametrize("key", KEYS)
def test_refuses_like_torch(eir, exported, key, tmp_path):
    """A size past the range: torch's guard, word for word."""
    pt2 = _path(exported, key)
    mod = torch.export.load(pt2).module()
    args = (_x(65, 1), 5) if key.startswith("int_input.") else (_x(65, 1),)
    with pytest.raises(Exception) as ei:  # noqa: PT011
        mod(*args)
    first = str(ei.value).splitlines()[0]
    assert "Guard failed: " in first, first
    r = _run(eir, pt2, args, str(tmp_path))
    assert r.returncode == 1 and first[first.index("Guard failed: "):] in r.stderr, (first, r.stderr)


def test_nonstrict_refuses_nontensor_operands():
    """Why pred and int_operand run in strict mode only: torch 2.13's non-strict
    export refuses non-tensor operands (if it starts accepting them, add the mode)."""
    for name in ("pred", "int_operand"):
        cls, args, ds, _ = PROGRAMS[name]
        with pytest.raises(Exception, match="only consists of tensor leaves"):
            torch.export.export(cls(), args, dynamic_shapes=ds, strict=False)


def test_symint_operand_used_before_defined(eir, exported, tmp_path):
    """A malformed archive: the cond's operand list names a symbolic value that a
    later node defines. eir refuses it at load, naming the node and the JSON path."""
    import json
    import zipfile

    src = _path(exported, "int_outputs.strict")
    dst = str(tmp_path / "bad.pt2")
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename.endswith("models/model.json"):
                m = json.loads(data)
                nodes = m["graph_module"]["graph"]["nodes"]
                at = next(i for i, n in enumerate(nodes) if n["target"] == "torch.ops.higher_order.cond")
                later = next(o[k]["as_name"] for n in nodes[at + 1:] for o in n["outputs"]
                             for k in ("as_sym_int", "as_sym_bool") if k in o)
                ops = next(a for a in nodes[at]["inputs"] if "as_tensors" in a["arg"])
                ops["arg"]["as_tensors"].insert(0, {"name": later})
                data = json.dumps(m).encode()
            zout.writestr(info, data)
    r = subprocess.run([eir, "print", dst], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, r.stderr
    assert "node %cond (higher_order.cond)" in r.stderr and "is used before it is defined" in r.stderr, r.stderr
    assert ".as_tensors[0].name:" in r.stderr, r.stderr
