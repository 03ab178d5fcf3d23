"""Parameters and buffers that are tensor subclasses, against torch 2.13.

torch.export.save pickles a tensor subclass (use_pickle: true, a torch.save
archive in the payload record); eir reads it with its restricted pickle
reader. Each program is exported in every form torch writes (strict=False and
strict=True, after run_decompositions(), and saved again after
torch.export.load) and checked on:

- the three print forms against torch's print of the loaded program;
- `eir info` (loads);
- the outputs against ep.module(): a program holding a wrapper subclass
  (TwoTensor) runs once per inner tensor (`eir run --inner a` / `--inner b`)
  and each TwoTensor output's .a / .b must match, plain outputs both times;
  without --inner, eir must refuse it naming the subclass. Programs whose
  subclasses were unwrapped (run_decompositions) or never reach the archive
  (torch.nn.utils.parametrize) run as plain programs.
"""
from __future__ import annotations

import subprocess

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

from conftest import to_npy  # noqa: E402
from test_state import _close  # noqa: E402

TwoTensor = pytest.importorskip("torch.testing._internal.two_tensor").TwoTensor
parametrize = torch.nn.utils.parametrize
nn = torch.nn
TWO = "torch.testing._internal.two_tensor.TwoTensor"


def _two(*shape):
    return TwoTensor(torch.randn(*shape), torch.randn(*shape))


class TwoAdd(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(_two(3, 4))

    def forward(self, x):
        return x + self.w


class TwoLinear(nn.Module):  # a TwoTensor weight, a plain bias, and an output that never meets the subclass
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 5)
        self.lin.weight = nn.Parameter(_two(5, 4))

    def forward(self, x):
        return torch.relu(self.lin(x)), x * 2


class TwoTwo(nn.Module):  # two TwoTensor parameters of one shape: each keeps its own storages
    def __init__(self):
        super().__init__()
        self.w1 = nn.Parameter(_two(3, 4))
        self.w2 = nn.Parameter(_two(3, 4))

    def forward(self, x):
        return x * self.w1 - self.w2


class TwoBufferViews(nn.Module):  # a TwoTensor buffer through views and a reduction
    def __init__(self):
        super().__init__()
        self.register_buffer("b", _two(4, 3))

    def forward(self, x):
        y = x @ self.b.t().t().t().t().t()[:, :4]
        return y.sum(dim=1, keepdim=True) * self.b[0, 0]


class TwoNonPersistent(nn.Module):  # lands in the constants config
    def __init__(self):
        super().__init__()
        self.register_buffer("c", _two(3, 4), persistent=False)

    def forward(self, x):
        return x * self.c - 1


class Sym(nn.Module):
    def forward(self, w):
        return w.triu() + w.triu(1).transpose(-1, -2)


class Parametrized(nn.Module):  # parametrize: the original is a plain parameter, the parametrization is in the graph
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        parametrize.register_parametrization(self.lin, "weight", Sym())

    def forward(self, x):
        return self.lin(x)


class TwoParametrized(nn.Module):  # a parametrization of a TwoTensor parameter
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.lin.weight = nn.Parameter(_two(4, 4))
        parametrize.register_parametrization(self.lin, "weight", Sym())

    def forward(self, x):
        return self.lin(x)


CASES = {
    "two_add": (TwoAdd, (3, 4)),
    "two_linear": (TwoLinear, (2, 4)),
    "two_two": (TwoTwo, (3, 4)),
    "two_buffer_views": (TwoBufferViews, (2, 3)),
    "two_nonpersistent": (TwoNonPersistent, (3, 4)),
    "parametrized": (Parametrized, (2, 4)),
    "two_parametrized": (TwoParametrized, (2, 4)),
}
FORMS = ("nonstrict", "strict", "decomp", "resaved")


def _export(name, form, tmp_path):
    factory, shape = CASES[name]
    torch.manual_seed(0)
    m = factory()
    x = torch.randn(*shape)
    try:
        ep = torch.export.export(m, (x,), strict=(form == "strict"))
        if form == "decomp":
            ep = ep.run_decompositions()
        path = str(tmp_path / f"{name}.{form}.pt2")
        torch.export.save(ep, path)
        if form == "resaved":
            torch.export.save(torch.export.load(path), path)
    except Exception as e:  # noqa: BLE001 - torch's own limits
        pytest.skip(f"torch cannot export/save {name} ({form}): {type(e).__name__}: {str(e).splitlines()[0][:200]}")
    return path, x


def _eir(eir, *args):
    return subprocess.run([eir, *args], capture_output=True, text=True, timeout=300)


def _has_wrapper(ep):
    """Does the graph take a TwoTensor? (run_decompositions() of a non-persistent TwoTensor buffer
    leaves the TwoTensor in ep.constants, unused, next to the two plain buffers it made.)"""
    held = {**ep.constants, **ep.state_dict}
    return any(isinstance(held.get(s.target), TwoTensor) for s in ep.graph_signature.input_specs)


def _flat_inputs(ep, x):
    from torch.export.graph_signature import InputKind
    args = []
    for spec in ep.graph_signature.input_specs:
        if spec.kind == InputKind.USER_INPUT:
            args.append(x)
        elif spec.target in ep.state_dict:
            args.append(ep.state_dict[spec.target])
        else:
            args.append(ep.constants[spec.target])
    return args


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_subclass_params(eir, name, form, tmp_path):
    path, x = _export(name, form, tmp_path)
    ep = torch.export.load(path)
    what = f"{name} ({form})"
    for flag, want in (("--graph", str(ep.graph)), ("--code", ep.graph_module.code), ("--program", str(ep))):
        r = _eir(eir, "print", flag, path)
        assert r.returncode == 0, f"{what} print {flag}: {r.stderr}"
        assert r.stdout == want + "\n", f"{what} print {flag}:\n{r.stdout}\n--- torch:\n{want}"
    r = _eir(eir, "info", path)
    assert r.returncode == 0, f"{what} info: {r.stderr}"

    xf = tmp_path / "x.npy"
    np.save(xf, to_npy(x))
    with torch.no_grad():
        try:
            outs = torch.utils._pytree.tree_leaves(ep.module()(x.clone()))
        except ValueError as e:
            # run_decompositions() unwraps a TwoTensor output into two graph outputs but keeps the
            # one-leaf output spec, so ep.module() cannot unflatten them; the graph's own answer is
            # what the program computes
            assert "treespec.unflatten" in str(e) and form == "decomp", f"{what}: {e}"
            outs = list(ep.graph_module(*_flat_inputs(ep, x.clone())))
    if not _has_wrapper(ep):
        r = _eir(eir, "run", path, str(xf), "--out", str(tmp_path / "out"))
        assert r.returncode == 0, f"{what}: {r.stderr}"
        for j, o in enumerate(outs):
            assert not isinstance(o, TwoTensor)
            _close(np.load(tmp_path / "out" / f"output_{j}.npy"), to_npy(o), f"{what} output {j}")
        return
    r = _eir(eir, "run", path, str(xf))
    assert r.returncode == 1 and TWO in r.stderr and "eir does not run wrapper subclasses" in r.stderr, \
        f"{what}: eir run without --inner: {r.returncode} {r.stderr}"
    assert any(isinstance(o, TwoTensor) for o in outs), f"{what}: torch returns no TwoTensor"
    for inner in ("a", "b"):
        d = tmp_path / f"out_{inner}"
        r = _eir(eir, "run", path, str(xf), "--inner", inner, "--out", str(d))
        assert r.returncode == 0, f"{what} --inner {inner}: {r.stderr}"
        for j, o in enumerate(outs):
            want = getattr(o, inner) if isinstance(o, TwoTensor) else o
            _close(np.load(d / f"output_{j}.npy"), to_npy(want), f"{what} --inner {inner} output {j}")


def test_inner_name_unknown(eir, tmp_path):
    path, x = _export("two_add", "nonstrict", tmp_path)
    r = _eir(eir, "run", path, "--inner", "c")
    assert r.returncode == 1
    assert f"'w' ({TWO}) has no inner tensor 'c' (it has 'a', 'b')" in r.stderr, r.stderr


def test_inner_without_subclass(eir, tmp_path):
    path, x = _export("parametrized", "nonstrict", tmp_path)
    r = _eir(eir, "run", path, "--inner", "a")
    assert r.returncode == 1 and "no tensor subclass with inner tensors" in r.stderr, r.stderr


def test_pickled_payload_recorded(tmp_path):
    """What torch writes: the subclass parameter is pickled, the graph keeps one placeholder."""
    import zipfile
    import json
    path, x = _export("two_add", "nonstrict", tmp_path)
    with zipfile.ZipFile(path) as z:
        root = z.namelist()[0].split("/")[0]
        cfg = json.loads(z.read(f"{root}/data/weights/model_weights_config.json"))["config"]["w"]
        assert cfg["use_pickle"] is True and cfg["tensor_meta"]["sizes"] == [{"as_int": 3}, {"as_int": 4}]
        inner = zipfile.ZipFile(__import__("io").BytesIO(z.read(f"{root}/data/weights/{cfg['path_name']}")))
        pkl = inner.read(next(n for n in inner.namelist() if n.endswith("data.pkl")))
    assert b"_rebuild_wrapper_subclass" in pkl and b"TwoTensor" in pkl and b"_rebuild_tensor_v2" in pkl
