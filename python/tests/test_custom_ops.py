"""Custom operators from the command line, live against torch.

The zoo's custom-op programs (mylib::sin; torch.export's data-dependent
mylib::custom_nonzero, whose row count is the unbacked symbol u0; mylib::combine
with arguments of every kind; mylib::scale_ writing its Tensor(a!) argument;
the effectful mylib::log_sum next to aten._print) run in eir with the kernels
of examples/custom_ops.c (`--ops`) on several inputs — the example inputs,
random ones with zeros sprinkled in, all zeros — in both IR forms, and match
ep.module() on the same inputs, mutated inputs included. Without the library
the programs still print and `eir info` works; running them fails with the
list of missing operators and how to provide them; a bad --ops library is a
clear error.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

from conftest import ZOO_SRC  # noqa: E402
from conftest import to_npy as _to_numpy  # noqa: E402
from test_run import _flat_inputs  # noqa: E402
from tolerances import tolerance  # noqa: E402

if ZOO_SRC not in sys.path:
    sys.path.insert(0, ZOO_SRC)
import zoo  # noqa: E402

CUSTOM = ["custom_op", "custom_nonzero", "custom_args", "custom_mutation", "effects"]
INPUTS = ["example", "random", "zeros"]


def _variant(zoo_dir, name):
    d, _ = zoo_dir
    pt2 = os.path.join(d, name + ".pt2")
    if not os.path.exists(pt2):
        pytest.skip(f"{name} was not generated")
    return pt2


def _make_inputs(name, ep, kind):
    module, args, kwargs, _ = zoo.build(name)
    assert not kwargs and all(isinstance(a, torch.Tensor) for a in args), "flat tensor arguments expected"
    flat = _flat_inputs(ep, args, kwargs)
    if kind == "example":
        return flat
    g = torch.Generator().manual_seed(7)
    out = []
    for x in flat:
        if kind == "zeros":
            out.append(torch.zeros_like(x))
        else:
            out.append((torch.randn(x.shape, generator=g) * (torch.rand(x.shape, generator=g) > 0.4)).to(x.dtype))
    return out


def _close(got, want, what):
    """got (numpy, from eir) against want (a torch tensor), within want's dtype's tolerance"""
    w = _to_numpy(want)
    assert got.shape == w.shape, f"{what}: shape {got.shape}, torch {w.shape}"
    if want.dtype.is_floating_point or want.dtype.is_complex:
        rtol, atol = tolerance(want.dtype)
        np.testing.assert_allclose(got, w, rtol=rtol, atol=atol, err_msg=what)
    else:
        np.testing.assert_array_equal(got, w, err_msg=what)


@pytest.mark.parametrize("inputs", INPUTS)
@pytest.mark.parametrize("decomp", [False, True], ids=["exported", "decomp"])
@pytest.mark.parametrize("name", CUSTOM)
def test_custom_op_matches_torch(eir, zoo_dir, example_ops, name, decomp, inputs, tmp_path):
    pt2 = _variant(zoo_dir, name + (".decomp" if decomp else ""))
    ep = torch.export.load(pt2)
    xs = _make_inputs(name, ep, inputs)
    paths = []
    for i, x in enumerate(xs):
        np.save(tmp_path / f"in_{i}.npy", _to_numpy(x).copy())
        paths.append(str(tmp_path / f"in_{i}.npy"))
    out = tmp_path / "out"
    r = subprocess.run([eir, "run", pt2, *paths, "--out", str(out), "--ops", example_ops],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    before = [x.clone() for x in xs]
    want = torch.utils._pytree.tree_leaves(ep.module()(*xs))
    for i, w in enumerate(want):
        _close(np.load(out / f"output_{i}.npy"), w, f"{name} {inputs} output {i}")
    # inputs torch wrote into are written out by eir with the same values, and only those
    mutated = {i for i, (a, b) in enumerate(zip(before, xs)) if not torch.equal(a, b)}
    written = {int(f[6:-4]) for f in os.listdir(out) if f.startswith("input_")}
    if inputs != "zeros":  # scaling zeros changes nothing torch could show
        assert written == mutated, (written, mutated)
    for i in written:
        _close(np.load(out / f"input_{i}.npy"), xs[i], f"{name} {inputs} input {i}")


def test_custom_nonzero_counts(eir, zoo_dir, example_ops, tmp_path):
    """The row count follows the data: 0, some, all."""
    pt2 = _variant(zoo_dir, "custom_nonzero")
    for k, x in enumerate([torch.zeros(4, 5), torch.eye(4, 5), torch.ones(4, 5)]):
        np.save(tmp_path / f"x{k}.npy", x.numpy())
        r = subprocess.run([eir, "run", pt2, str(tmp_path / f"x{k}.npy"), "--out", str(tmp_path / f"o{k}"),
                            "--ops", example_ops], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        got = np.load(tmp_path / f"o{k}" / "output_0.npy")
        want = torch.ops.mylib.custom_nonzero(x).numpy()
        assert got.shape == want.shape == (int(x.count_nonzero()), 2)
        np.testing.assert_array_equal(got, want)


def test_without_library(eir, zoo_dir):
    pt2 = _variant(zoo_dir, "custom_op")
    r = subprocess.run([eir, "print", pt2], capture_output=True, text=True)
    assert r.returncode == 0 and "torch.ops.mylib.sin.default" in r.stdout
    r = subprocess.run([eir, "info", pt2], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "runnable: no (1 node uses 1 operator eir cannot run yet: mylib.sin.default (node %sin)); custom operators run with --ops" in r.stdout
    r = subprocess.run([eir, "run", pt2], capture_output=True, text=True)
    assert r.returncode == 1
    assert "1 node uses 1 operator eir cannot run yet:\n  mylib.sin.default (node %sin), a custom operator" in r.stderr
    assert "--ops LIB.so" in r.stderr


def test_info_with_library(eir, zoo_dir, example_ops):
    for v in ("custom_op", "custom_nonzero.decomp", "effects.decomp", "custom_mutation.decomp"):
        r = subprocess.run([eir, "info", "--ops", example_ops, _variant(zoo_dir, v)], capture_output=True, text=True)
        assert r.returncode == 0 and "runnable: yes" in r.stdout, (v, r.stdout, r.stderr)


def test_bad_library(eir, zoo_dir, tmp_path):
    pt2 = _variant(zoo_dir, "custom_op")
    r = subprocess.run([eir, "run", pt2, "--ops", str(tmp_path / "missing.so")], capture_output=True, text=True)
    assert r.returncode == 1 and "--ops" in r.stderr and "missing.so" in r.stderr, r.stderr
    # a shared library that is not a library of operators
    libz = next((p for p in ("/lib/x86_64-linux-gnu/libz.so.1", "/usr/lib/x86_64-linux-gnu/libz.so.1")
                 if os.path.exists(p)), None)
    if libz:
        r = subprocess.run([eir, "run", pt2, "--ops", libz], capture_output=True, text=True)
        assert r.returncode == 1 and "no function eir_ops_init" in r.stderr, r.stderr
    r = subprocess.run([eir, "run", pt2, "--ops"], capture_output=True, text=True)
    assert r.returncode == 2 and "--ops needs a value" in r.stderr


def _rewrite(src, dst, edit):
    """Copy archive src to dst with models/model.json changed by edit(model)."""
    import json
    import zipfile

    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename.endswith("models/model.json"):
                model = json.loads(data)
                edit(model)
                data = json.dumps(model).encode()
            zout.writestr(zipfile.ZipInfo(info.filename), data)


def _node(model, target):
    return next(n for n in model["graph_module"]["graph"]["nodes"] if n["target"] == target)


def _kwarg(node, name):
    return next(i for i in node["inputs"] if i["name"] == name)


def _set_base_index(m):
    _kwarg(_node(m, "torch.ops.higher_order.auto_functionalized_v2"), "_x_base_index")["arg"] = {"as_int": 5}


def _drop_operator(m):
    n = _node(m, "torch.ops.higher_order.with_effects")
    n["inputs"][1]["arg"] = {"as_int": 1}


def _float_dims(m):
    _kwarg(_node(m, "torch.ops.mylib.combine.default"), "dims")["arg"] = {"as_float": 1.0}


def _unknown_kwarg(m):
    _node(m, "torch.ops.mylib.combine.default")["inputs"].append({"name": "gamma", "arg": {"as_int": 1}, "kind": 2})


@pytest.mark.parametrize("program,edit,message", [
    ("custom_mutation.decomp", _set_base_index,
     "node %auto_functionalized_v2 (higher_order.auto_functionalized_v2): _x_base_index is not an index into "
     "_all_bases (1 bases)"),
    ("effects.decomp", _drop_operator,
     "node %with_effects (higher_order.with_effects): expected (token, operator, args...) and a token output"),
    ("custom_args", _float_dims,
     "node %combine (mylib.combine.default): argument 'dims' is a float, the schema mylib::combine(Tensor x, "
     "Tensor[] others, Tensor? bias, int[] dims"),
    ("custom_args", _unknown_kwarg, "node %combine (mylib.combine.default): argument 'gamma' is not in the schema"),
], ids=["v2-base-index", "effects-operator", "arg-type", "unknown-arg"])
def test_malformed_calls(eir, zoo_dir, example_ops, program, edit, message, tmp_path):
    """A call that does not fit its schema or a malformed HOP: exit 1, the node and what was expected."""
    bad = str(tmp_path / "bad.pt2")
    _rewrite(_variant(zoo_dir, program), bad, edit)
    r = subprocess.run([eir, "run", bad, "--ops", example_ops], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and message in r.stderr, r.stderr
