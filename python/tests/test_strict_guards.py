"""Input guards of programs exported with strict=True and strict=False, in eir vs torch 2.13.

torch.export with strict=True (TorchDynamo) writes the program's guards_code over
the flattened user inputs: `L['flat_args'][0].size()[0] == L['flat_args'][1].size()[0]`
for two inputs sharing a dynamic dim, `L['flat_args'][0].size()[0] > 4` for a
branch on a Dim.AUTO size; strict=False writes them over the forward's
parameters (`L['x']`, `L['p'].x`). `ep.module()` maps index i to the i-th
flattened user input (torch/export/_unlift.py, _force_ep_signature_match), so
its messages name the inputs the same way in both modes; eir must too.

Each program below is exported both ways, live; then for each mode:
  - on inputs torch accepts, `eir run` succeeds and matches `ep.module()`;
  - on inputs torch refuses, eir exits with status 1 and a one-line message
    containing torch's own "Guard failed: ..." text verbatim (or the runtime
    assertion torch raised), naming the input as torch does.
Shared dims, derived dims, Dim.AUTO with branches and torch._check, dataclass,
dict, list and tuple inputs, keyword arguments, *args, a Python number burned into
the program, and eleven inputs with a guard on the last alone (flat_args[10]).
"""
from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import zipfile

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

from conftest import to_npy  # noqa: E402
from tolerances import tolerance  # noqa: E402

Dim = torch.export.Dim


@dataclasses.dataclass
class SPair:
    a: torch.Tensor
    b: torch.Tensor


torch.export.register_dataclass(SPair, serialized_type_name="eir_tests.SPair")


def _r(*shape, seed=0):
    g = torch.Generator().manual_seed(7 + seed + 31 * sum(shape))
    return torch.randn(*shape, generator=g)


# ---- the programs ----

class Shared(torch.nn.Module):            # x [B, 3], y [B, 3]: x * y + 1
    def forward(self, x, y):
        return x * y + 1


class Derived(torch.nn.Module):           # x [B, 4], z [2B, 4], w [B + 1]
    def forward(self, x, z, w):
        return torch.cat([x, x]) + z, w[1:] * x.sum(1)


class AutoBranch(torch.nn.Module):        # Dim.AUTO and a branch on the size: a guard
    def forward(self, x):
        if x.shape[0] > 4:
            return x * 2
        return x + 1


class AutoCheck(torch.nn.Module):         # torch._check on a Dim.AUTO size, two inputs
    def forward(self, x, y):
        torch._check(x.shape[0] % 2 == 0)
        return x[: x.shape[0] // 2] + y


class DataclassIn(torch.nn.Module):       # p.a [B, 3], p.b [B, 3], s [3]
    def forward(self, p, s):
        return p.a * s + p.b


class DictIn(torch.nn.Module):            # d['u'] [B, 2], d['v'] [B, 2]
    def forward(self, d):
        return d["u"] - d["v"] * 2


class ListIn(torch.nn.Module):            # xs[0] [B, 2], xs[1] [B, 2], t (a [3], b [B])
    def forward(self, xs, t):
        return xs[0] + xs[1], t[1] * 3 + t[0].sum()


class KwargsIn(torch.nn.Module):          # x [B, 3], keyword w [B, 3], keyword bias (None)
    def forward(self, x, *, w, bias=None):
        y = x * w
        return y if bias is None else y + bias


class VarArgs(torch.nn.Module):           # *xs: inputs named xs_0, xs_1; a torch._check on xs[1] alone
    def forward(self, *xs):
        torch._check(xs[1].shape[0] % 2 == 0)
        return xs[0] * 2, xs[1] + 1


class Burned(torch.nn.Module):            # n (an int) is burned in; x [B], y [B]
    def forward(self, x, n, y):
        return x * n + y


class Eleven(torch.nn.Module):            # 11 inputs; a guard on the last alone (flat_args[10], not [1])
    def forward(self, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10):
        torch._check(a10.shape[0] % 2 == 0)
        s = a0 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9
        return s.sum() + a1.sum() + a10 * 2


def _programs():
    B = Dim("B", min=2, max=32)
    A = Dim.AUTO
    P = {}
    P["shared"] = dict(
        mod=Shared(), args=(_r(4, 3), _r(4, 3)), ds=({0: B}, {0: B}),
        ok=[((_r(5, 3), _r(5, 3)), {}), ((_r(32, 3), _r(32, 3)), {}), ((_r(1, 3), _r(1, 3)), {})],
        bad=[((_r(4, 3), _r(5, 3)), {}, ["input 1 'y'"]), ((_r(33, 3), _r(33, 3)), {}, ["input 0 'x'"]),
             ((_r(4, 2), _r(4, 2)), {}, ["input 0 'x'"])])
    P["derived"] = dict(
        mod=Derived(), args=(_r(3, 4), _r(6, 4), _r(4)), ds=({0: B}, {0: 2 * B}, {0: B + 1}),
        ok=[((_r(5, 4), _r(10, 4), _r(6)), {}), ((_r(2, 4), _r(4, 4), _r(3)), {})],
        bad=[((_r(5, 4), _r(9, 4), _r(6)), {}, ["input 1 'z'"]), ((_r(5, 4), _r(10, 4), _r(5)), {}, ["input 2 'w'"])])
    P["auto_branch"] = dict(
        mod=AutoBranch(), args=(_r(6, 3),), ds=({0: A},),
        ok=[((_r(5, 3),), {}), ((_r(40, 3),), {})],
        bad=[((_r(4, 3),), {}, ["input 0 'x'"]), ((_r(3, 3),), {}, ["input 0 'x'"])])
    P["auto_check"] = dict(
        mod=AutoCheck(), args=(_r(8, 3), _r(4, 3)), ds=({0: A}, {0: A}),
        ok=[((_r(12, 3), _r(6, 3)), {}), ((_r(4, 3), _r(2, 3)), {})],
        bad=[((_r(12, 3), _r(5, 3)), {}, []), ((_r(10, 3), _r(4, 3)), {}, [])])
    P["dataclass"] = dict(
        mod=DataclassIn(), args=(SPair(_r(4, 3), _r(4, 3, seed=1)), _r(3)),
        ds=([{0: B}, {0: B}], None),
        ok=[((SPair(_r(7, 3), _r(7, 3, seed=1)), _r(3)), {}), ((SPair(_r(2, 3), _r(2, 3, seed=1)), _r(3)), {})],
        bad=[((SPair(_r(4, 3), _r(5, 3, seed=1)), _r(3)), {}, ["(p.b)"]),
             ((SPair(_r(40, 3), _r(40, 3, seed=1)), _r(3)), {}, ["(p.a)"]),
             ((SPair(_r(4, 3), _r(4, 3, seed=1)), _r(4)), {}, ["'s'"])])
    P["dict"] = dict(
        mod=DictIn(), args=({"u": _r(4, 2), "v": _r(4, 2, seed=1)},), ds=({"u": {0: B}, "v": {0: B}},),
        ok=[(({"u": _r(9, 2), "v": _r(9, 2, seed=1)},), {})],
        bad=[(({"u": _r(9, 2), "v": _r(8, 2, seed=1)},), {}, ["d['v']"]),
             (({"u": _r(33, 2), "v": _r(33, 2, seed=1)},), {}, ["d['u']"])])
    P["list"] = dict(
        mod=ListIn(), args=([_r(4, 2), _r(4, 2, seed=1)], (_r(3), _r(4, seed=2))),
        ds=([{0: B}, {0: B}], (None, {0: B})),
        ok=[(([_r(6, 2), _r(6, 2, seed=1)], (_r(3), _r(6, seed=2))), {})],
        bad=[(([_r(6, 2), _r(5, 2, seed=1)], (_r(3), _r(6, seed=2))), {}, ["xs[1]"]),
             (([_r(6, 2), _r(6, 2, seed=1)], (_r(3), _r(7, seed=2))), {}, ["t[1]"]),
             (([_r(6, 2), _r(6, 2, seed=1)], (_r(2), _r(6, seed=2))), {}, ["t[0]"])])
    P["kwargs"] = dict(
        mod=KwargsIn(), args=(_r(4, 3),), kwargs={"w": _r(4, 3, seed=1), "bias": None},
        ds={"x": {0: B}, "w": {0: B}, "bias": None},
        ok=[((_r(8, 3),), {"w": _r(8, 3, seed=1), "bias": None})],
        bad=[((_r(8, 3),), {"w": _r(7, 3, seed=1), "bias": None}, ["'w'"]),
             ((_r(33, 3),), {"w": _r(33, 3, seed=1), "bias": None}, ["'x'"])])
    P["varargs"] = dict(
        mod=VarArgs(), args=(_r(4), _r(6, seed=1)), ds=(({0: B}, {0: A}),),
        ok=[((_r(3), _r(2, seed=1)), {}), ((_r(9), _r(12, seed=1)), {})],
        bad=[((_r(4), _r(5, seed=1)), {}, ["'xs_1'"]), ((_r(33), _r(6, seed=1)), {}, ["'xs_0'"])])
    P["burned"] = dict(
        mod=Burned(), args=(_r(4), 3, _r(4, seed=1)), ds=({0: B}, None, {0: B}),
        ok=[((_r(6), 3, _r(6, seed=1)), {})],
        bad=[((_r(6), 3, _r(5, seed=1)), {}, ["'y'"])])
    def eleven(n1, n10):
        return tuple(_r(n1 if i == 1 else n10 if i == 10 else 3, seed=i) for i in range(11))
    P["eleven"] = dict(
        mod=Eleven(), args=eleven(4, 6), ds=tuple({0: B} if i == 1 else {0: A} if i == 10 else None for i in range(11)),
        ok=[(eleven(5, 4), {}), (eleven(2, 10), {})],
        bad=[(eleven(5, 5), {}, ["'a10'"]), (eleven(33, 4), {}, ["'a1'"])])
    return P


PROGRAMS = _programs()
MODES = ["strict", "nonstrict"]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """name.mode -> (path to the .pt2, None) or (None, why export failed)"""
    d = tmp_path_factory.mktemp("strict_guards")
    out = {}
    for name, p in PROGRAMS.items():
        for mode in MODES:
            try:
                ep = torch.export.export(p["mod"], p["args"], kwargs=p.get("kwargs"), dynamic_shapes=p["ds"],
                                         strict=mode == "strict")
                path = str(d / f"{name}.{mode}.pt2")
                torch.export.save(ep, path)
                out[f"{name}.{mode}"] = (path, None)
            except Exception as e:  # noqa: BLE001
                out[f"{name}.{mode}"] = (None, f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
    return out


def _guards_code(path):
    with zipfile.ZipFile(path) as z:
        n = next(x for x in z.namelist() if x.endswith("models/model.json"))
        return json.loads(z.read(n)).get("guards_code") or []


def _flat(ep, args, kwargs):
    """user input leaves in signature order, without the Python numbers burned into the program"""
    from torch.export.graph_signature import ConstantArgument, InputKind

    leaves = torch.utils._pytree.tree_leaves((args, kwargs))
    specs = [s for s in ep.graph_signature.input_specs if s.kind == InputKind.USER_INPUT]
    assert len(specs) == len(leaves), (len(specs), len(leaves))
    return [x for s, x in zip(specs, leaves) if not isinstance(s.arg, ConstantArgument)]


def _run_eir(eir, pt2, ep, args, kwargs, d, out=True):
    paths = []
    for i, x in enumerate(_flat(ep, args, kwargs)):
        p = os.path.join(d, f"in_{i}.npy")
        np.save(p, to_npy(x) if isinstance(x, torch.Tensor) else np.array(x, dtype=np.int64))
        paths.append(p)
    cmd = [eir, "run", pt2, *paths] + (["--out", os.path.join(d, "out")] if out else [])
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def _torch_error(mod, args, kwargs):
    try:
        mod(*args, **kwargs)
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: {e}"
    return None


def _get(exported, key):
    path, why = exported[key]
    assert path is not None, f"{key}: torch.export failed: {why}"
    return path


def _cases():
    return [f"{n}.{m}" for n in PROGRAMS for m in MODES]


@pytest.mark.parametrize("key", _cases())
def test_accepts_and_matches(eir, exported, key, tmp_path):
    pt2 = _get(exported, key)
    p = PROGRAMS[key.split(".")[0]]
    ep = torch.export.load(pt2)
    mod = ep.module()
    for k, (args, kwargs) in enumerate([(p["args"], p.get("kwargs") or {})] + p["ok"]):
        d = tmp_path / f"ok{k}"
        d.mkdir()
        what = f"{key} ok case {k}"
        assert _torch_error(mod, args, kwargs) is None, f"{what}: torch refuses it; the case is wrong"
        want = torch.utils._pytree.tree_leaves(mod(*args, **kwargs))
        r = _run_eir(eir, pt2, ep, args, kwargs, str(d))
        assert r.returncode == 0, f"{what}: eir refused an input torch accepts: {r.stderr}"
        for i, w in enumerate(want):
            got = np.load(d / "out" / f"output_{i}.npy")
            w = to_npy(w)
            assert got.shape == w.shape, f"{what}: output {i}: shape {got.shape}, torch {w.shape}"
            rtol, atol = tolerance(torch.float32)
            np.testing.assert_allclose(got, w, rtol=rtol, atol=atol, err_msg=f"{what}: output {i}")


@pytest.mark.parametrize("key", _cases())
def test_refuses_like_torch(eir, exported, key, tmp_path):
    pt2 = _get(exported, key)
    p = PROGRAMS[key.split(".")[0]]
    ep = torch.export.load(pt2)
    mod = ep.module()
    for k, (args, kwargs, want) in enumerate(p["bad"]):
        d = tmp_path / f"bad{k}"
        d.mkdir()
        what = f"{key} refusal {k}"
        terr = _torch_error(mod, args, kwargs)
        assert terr is not None, f"{what}: torch accepts this input; the case is wrong"
        r = _run_eir(eir, pt2, ep, args, kwargs, str(d), out=False)
        msg = r.stderr.strip()
        assert r.returncode == 1, f"{what}: eir exit {r.returncode}; torch said {terr!r}; eir: {r.stderr}"
        assert msg.startswith("eir: ") and "\n" not in msg, f"{what}: not a one-line message: {msg!r}"
        first = terr.splitlines()[0]
        marker = next((m for m in ("Guard failed: ", "Runtime assertion failed") if m in first), None)
        assert marker, f"{what}: torch did not refuse with a guard: {first!r}"
        torch_text = first[first.index(marker):]
        assert torch_text in msg, f"{what}: torch said {torch_text!r}; eir said {msg!r}"
        assert "flat_args" not in msg, f"{what}: {msg!r}"
        for s in want:
            assert s in msg, f"{what}: eir's message lacks {s!r}: {msg!r}"


def test_strict_programs_use_flat_args(exported):
    """The strict exports really carry guards over L['flat_args'][i] (else this file proves nothing)."""
    with_flat = [k for k, (path, _) in exported.items()
                 if path and k.endswith(".strict") and any("L['flat_args']" in g for g in _guards_code(path))]
    assert len(with_flat) >= 5, with_flat


def test_same_guards_both_modes(eir, exported, tmp_path):
    """Where torch refuses an input, the strict and non-strict programs refuse it with the same guard text in eir."""
    for name, p in PROGRAMS.items():
        paths = [exported[f"{name}.{m}"][0] for m in MODES]
        if None in paths:
            continue
        for k, (args, kwargs, _) in enumerate(p["bad"]):
            msgs = []
            for m, pt2 in zip(MODES, paths):
                d = tmp_path / f"{name}.{m}.{k}"
                d.mkdir()
                ep = torch.export.load(pt2)
                msgs.append((_torch_error(ep.module(), args, kwargs),
                             _run_eir(eir, pt2, ep, args, kwargs, str(d), out=False).stderr.strip()))
            if msgs[0][0] == msgs[1][0]:
                assert msgs[0][1] == msgs[1][1], f"{name} refusal {k}: torch agrees across modes, eir does not: {msgs}"


def test_flat_args_out_of_range_is_refused(eir, exported, tmp_path):
    """A guard over L['flat_args'][i] past the inputs fails runtime creation, naming it."""
    src = _get(exported, "shared.strict")
    dst = str(tmp_path / "g.pt2")
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename.endswith("models/model.json"):
                m = json.loads(data)
                m["guards_code"] = ["L['flat_args'][2].size()[0] == 4"]
                data = json.dumps(m).encode()
            zout.writestr(info, data)
    r = subprocess.run([eir, "run", dst], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, r.stderr
    assert "L['flat_args'][2] is not an input of the program (it has 2 user inputs)" in r.stderr, r.stderr
