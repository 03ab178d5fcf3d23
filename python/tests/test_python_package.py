"""The Python package eir (bindings/python/eir) against torch: programs
exported here, loaded, printed and run through the ctypes binding.

Imported from the source tree: EIR_LIB (default build/libeir.so) and
bindings/python on sys.path, so no pip install is needed."""
from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
import time
import zipfile

import numpy as np
import pytest
import torch

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIB = os.environ.get("EIR_LIB") or os.path.join(REPO, "build", "libeir.so")
os.environ["EIR_LIB"] = LIB
sys.path.insert(0, os.path.join(REPO, "bindings", "python"))
import eir  # noqa: E402
from conftest import eir_bin  # noqa: E402

pytestmark = pytest.mark.skipif(not os.path.exists(LIB), reason=f"{LIB} not built")


def export(tmp_path, name, mod, args, dynamic_shapes=None):
    ep = torch.export.export(mod, args, dynamic_shapes=dynamic_shapes)
    path = str(tmp_path / f"{name}.pt2")
    torch.export.save(ep, path)
    return path


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(8, 16)
        self.fc2 = torch.nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class Conv(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 6, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(6)

    def forward(self, x):
        return torch.nn.functional.max_pool2d(torch.relu(self.bn(self.conv(x))), 2)


class Counter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("acc", torch.zeros(4))
        self.register_buffer("steps", torch.zeros((), dtype=torch.int64))

    def forward(self, x):
        self.acc.add_(x)
        self.steps.add_(1)
        return self.acc * 2


class Multi(torch.nn.Module):
    def forward(self, x, y):
        return x + y, (x * y).sum(dim=1), torch.argmax(x, dim=0)


class Dyn(torch.nn.Module):
    def forward(self, x):
        return torch.softmax(x @ x.transpose(0, 1), dim=-1)


def close(a, b, tol=1e-5):
    b = b.detach().numpy() if isinstance(b, torch.Tensor) else b
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def test_mlp_print_and_run(tmp_path):
    torch.manual_seed(0)
    m = MLP().eval()
    x = torch.randn(2, 8)
    path = export(tmp_path, "mlp", m, (x,))
    ep = torch.export.load(path)
    p = eir.load(path)
    assert str(p) == str(ep)
    assert p.graph == str(ep.graph)
    assert p.code == ep.graph_module.code
    assert p.inputs == [{"name": "x", "kind": "tensor", "dtype": np.dtype(np.float32), "shape": (2, 8)}]
    assert p.outputs[0]["shape"] == (2, 4) and p.outputs[0]["dtype"] == np.float32
    info = p.info()
    assert info["ops"] == {"aten.linear.default": 2, "aten.relu.default": 1}
    # what `eir info --json` says, runtime verdict included
    cli = json.loads(subprocess.run([eir_bin(), "info", "--json", path], capture_output=True, text=True,
                                    check=True).stdout)
    assert info == cli
    # the arena rounds each storage up to 64 bytes: it may exceed the sum of this small
    # program's intermediates, never the bytes alive at once by more than 10%
    assert info["runnable"] is True and info["intermediate_bytes"] > 0
    assert 0 < info["peak_live_bytes"] <= info["arena_bytes"] <= info["peak_live_bytes"] * 1.1
    (y,) = p.run(x.numpy())
    close(y, m(x))
    # torch tensors directly, and p(...) == p.run(...)
    (y2,) = p(x)
    close(y2, m(x))
    # the result is a copy owned by Python: a second run does not change it
    y_before = y.copy()
    p.run(torch.randn(2, 8))
    np.testing.assert_array_equal(y, y_before)
    assert y.flags.owndata or y.base is not None and y.base.flags.owndata
    # from bytes
    with open(path, "rb") as f:
        q = eir.load(f.read())
    assert str(q) == str(ep)
    close(q(x)[0], m(x))


def test_conv_noncontiguous_and_dlpack(tmp_path):
    torch.manual_seed(1)
    m = Conv().eval()
    x = torch.randn(2, 3, 8, 8)
    path = export(tmp_path, "conv", m, (x,))
    p = eir.load(path)
    assert str(p) == str(torch.export.load(path))
    close(p(x)[0], m(x), 1e-4)
    # a channels-last tensor (strided input) and an object with only __dlpack__
    xc = x.contiguous(memory_format=torch.channels_last)
    close(p(xc)[0], m(x), 1e-4)

    class OnlyDlpack:
        def __init__(self, t):
            self.t = t

        def __dlpack__(self, **kw):
            return self.t.__dlpack__(**kw)

        def __dlpack_device__(self):
            return self.t.__dlpack_device__()

    close(p(OnlyDlpack(x))[0], m(x), 1e-4)


def test_buffer_state_over_three_runs(tmp_path):
    m = Counter()
    x0 = torch.ones(4)
    path = export(tmp_path, "counter", Counter(), (x0,))
    p = eir.load(path)
    assert str(p) == str(torch.export.load(path))
    for i in range(3):
        x = torch.arange(4, dtype=torch.float32) + i
        close(p(x)[0], m(x))
        close(p.state("acc"), m.acc)
        close(p.state("steps"), m.steps)
    assert int(p.state("steps")) == 3
    with pytest.raises(eir.EirError):
        p.state("no_such_buffer")


def test_dynamic_shapes_two_sizes(tmp_path):
    x = torch.randn(5, 3)
    n = torch.export.Dim("n", min=2, max=64)
    path = export(tmp_path, "dyn", Dyn(), (x,), dynamic_shapes=({0: n},))
    p = eir.load(path)
    assert str(p) == str(torch.export.load(path))
    shape = p.inputs[0]["shape"]
    assert isinstance(shape[0], str) and shape[1] == 3
    for rows in (5, 11):
        xi = torch.randn(rows, 3)
        close(p(xi)[0], Dyn()(xi))
    with pytest.raises(eir.EirError, match="Guard failed"):
        p(torch.randn(65, 3))  # torch: "Guard failed: x.size()[0] <= 64"


def test_multiple_outputs(tmp_path):
    x, y = torch.randn(3, 4), torch.randn(3, 4)
    path = export(tmp_path, "multi", Multi(), (x, y))
    p = eir.load(path)
    assert str(p) == str(torch.export.load(path))
    got = p(x.numpy(), y)
    want = Multi()(x, y)
    assert len(got) == 3 and [o["dtype"] for o in p.outputs] == [np.float32, np.float32, np.int64]
    for g, w in zip(got, want):
        close(g, w)


def test_errors(tmp_path):
    path = export(tmp_path, "mlp", MLP(), (torch.randn(2, 8),))
    p = eir.load(path)
    with pytest.raises(eir.EirError) as e:
        p(np.zeros((3, 8), np.float32))
    # eir's own message, as eir_runtime_errmsg gives it
    assert str(e.value).startswith("input 0 'x': Guard failed: x.size()[0] == 2"), str(e.value)
    with pytest.raises(eir.EirError, match="dtype"):
        p(np.zeros((2, 8), np.float64))
    with pytest.raises(eir.EirError, match="expected 1 inputs"):
        p()
    with pytest.raises(eir.EirError):
        eir.load(str(tmp_path / "missing.pt2"))
    with pytest.raises(eir.EirError):
        eir.load(b"not a zip archive")


def test_bfloat16_output_is_float32(tmp_path):
    class M(torch.nn.Module):
        def forward(self, x):
            return (x * 3).to(torch.bfloat16)

    x = torch.randn(4, 5)
    p = eir.load(export(tmp_path, "bf16", M(), (x,)))
    (y,) = p(x)
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y, M()(x).float().numpy())


def test_mutated_input_written_back(tmp_path):
    class M(torch.nn.Module):
        def forward(self, x):
            x.mul_(2)
            return x + 1

    x = torch.randn(3, 4)
    p = eir.load(export(tmp_path, "mut", M(), (x.clone(),)))
    a = x.numpy().copy()
    (y,) = p(a)
    want_x = x.clone()
    want_y = M()(want_x)
    close(y, want_y)
    close(a, want_x)  # the caller's array holds the new value, as torch's tensor does
    t = x.clone()
    p(t)
    close(t.numpy(), want_x)


def test_constant_input(tmp_path):
    class M(torch.nn.Module):
        def forward(self, x, n: int):
            return x * n

    x = torch.randn(3)
    p = eir.load(export(tmp_path, "const", M(), (x, 4)))
    close(p(x)[0], M()(x, 4))       # the burned-in constant may be left out
    close(p(x, 4)[0], M()(x, 4))    # or given, equal to it
    with pytest.raises(eir.EirError, match="Guard failed"):
        p(x, 5)


def test_bfloat16_input(tmp_path):
    class M(torch.nn.Module):
        def forward(self, x):
            return x * 2 + 1

    x = torch.randn(4, 5).to(torch.bfloat16)
    p = eir.load(export(tmp_path, "bf16in", M(), (x,)))
    assert p.inputs[0]["dtype"] == "bfloat16"
    want = M()(x).float().numpy()
    np.testing.assert_array_equal(p(x)[0], want)                  # a bfloat16 torch tensor
    np.testing.assert_array_equal(p(x.float().numpy())[0], want)  # float32, exactly representable
    x.requires_grad_(True)
    np.testing.assert_array_equal(p(x)[0], want)                  # requires_grad: detached
    # float32 rounds to the nearest bfloat16 (ties to even) as torch's .to(torch.bfloat16)
    f = torch.randn(4, 5) * 100
    f[0, :3] = torch.tensor([float("inf"), float("-inf"), float("nan")])
    np.testing.assert_array_equal(p(f.numpy())[0], M()(f.to(torch.bfloat16)).float().numpy())


def test_structured_outputs_and_none(tmp_path):
    class M(torch.nn.Module):
        def forward(self, x):
            return {"a": x + 1, "b": [x * 2, (x - 1, None)]}, x.sum(), 3

    x = torch.randn(2)
    path = export(tmp_path, "struct", M(), (x,))
    p = eir.load(path)
    flat = p.run(x)
    assert len(flat) == 6 and flat[3] is None and int(flat[5]) == 3
    got = p.forward(x)
    want = torch.export.load(path).module()(x)
    assert isinstance(got, tuple) and len(got) == 3 and set(got[0]) == {"a", "b"}
    np.testing.assert_allclose(got[0]["a"], want[0]["a"].numpy(), rtol=1e-6)
    assert isinstance(got[0]["b"], list) and isinstance(got[0]["b"][1], tuple)
    np.testing.assert_allclose(got[0]["b"][0], want[0]["b"][0].numpy(), rtol=1e-6)
    np.testing.assert_allclose(got[0]["b"][1][0], want[0]["b"][1][0].numpy(), rtol=1e-6)
    assert got[0]["b"][1][1] is None and want[0]["b"][1][1] is None
    np.testing.assert_allclose(got[1], want[1].numpy(), rtol=1e-5)
    assert int(got[2]) == want[2] == 3
    # the CLI prints the None output and writes the others
    r = subprocess.run([eir_bin(), "run", path, "--out", str(tmp_path / "o")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert sorted(os.listdir(tmp_path / "o")) == [f"output_{i}.npy" for i in (0, 1, 2, 4, 5)]
    r = subprocess.run([eir_bin(), "run", path], capture_output=True, text=True)
    assert r.returncode == 0 and "output 3: None" in r.stdout, r.stderr
    # a single tensor comes back as one array
    q = eir.load(export(tmp_path, "mlp", MLP(), (torch.randn(2, 8),)))
    assert isinstance(q.forward(torch.randn(2, 8)), np.ndarray)


def test_custom_ops(tmp_path):
    ops = os.environ.get("EIR_OPS") or os.path.join(REPO, "build", "libeir_example_ops.so")
    if not os.path.exists(ops):
        pytest.skip(f"{ops} not built")
    sys.path.insert(0, os.path.join(REPO, "python", "zoo"))
    import zoo  # noqa: F401  (defines mylib::sin)

    class M(torch.nn.Module):
        def forward(self, x):
            return torch.ops.mylib.sin(x) * 2 + 1

    x = torch.randn(3, 4)
    path = export(tmp_path, "custom", M(), (x,))
    with pytest.raises(eir.EirError, match="mylib"):
        eir.load(path)(x)
    info = eir.load(path).info()
    assert info["runnable"] is False
    assert info["missing_ops"] == [{"operator": "mylib.sin.default", "count": 1, "first_node": "sin", "custom": True}]
    assert eir.load(path, ops=ops).info()["runnable"] is True
    p = eir.load(path, ops=ops)
    close(p(x)[0], M()(x), 1e-6)


def test_python_m_eir(tmp_path):
    path = export(tmp_path, "mlp", MLP(), (torch.randn(2, 8),))
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "bindings", "python"))
    out = subprocess.run([sys.executable, "-m", "eir", "print", "--program", path], env=env,
                         capture_output=True, text=True, check=True).stdout
    assert out == str(torch.export.load(path)) + "\n"


def test_package_imports_no_torch():
    code = "import sys, eir; eir.version(); assert 'torch' not in sys.modules"
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "bindings", "python"))
    subprocess.run([sys.executable, "-c", code], env=env, check=True)


def test_call_overhead(tmp_path):
    """Prints the time of one run of examples/mlp.pt2 through the binding
    (the figure README, Python quotes); checks only that it runs."""
    p = eir.load(os.path.join(REPO, "examples", "mlp.pt2"))
    x = np.random.rand(2, 8).astype(np.float32)
    p(x)
    n = 2000
    t = time.perf_counter()
    for _ in range(n):
        p(x)
    per = (time.perf_counter() - t) / n
    print(f"\neir python: {per * 1e6:.1f} us per run of examples/mlp.pt2")


def test_wheel(tmp_path):
    """pip builds a wheel holding the library and the eir binary (about 15 s once
    build/ is up to date, as `make test` leaves it)."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", REPO, "-w", str(tmp_path), "--no-deps",
                    "--no-build-isolation", "-q"], check=True, cwd=REPO)
    (whl,) = glob.glob(str(tmp_path / "eir-*.whl"))
    names = zipfile.ZipFile(whl).namelist()
    assert "eir/libeir.so" in names and "eir/bin/eir" in names and "eir/__init__.py" in names
    # installed from the wheel, the package finds its own library and binary
    target = tmp_path / "site"
    zipfile.ZipFile(whl).extractall(target)
    os.chmod(target / "eir" / "bin" / "eir", 0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("EIR_LIB", "EIR_BIN")}
    env["PYTHONPATH"] = str(target)
    mlp = os.path.join(REPO, "examples", "mlp.pt2")
    code = f"import eir, numpy as np; p = eir.load({mlp!r}); print(p(np.ones((2, 8), np.float32))[0].shape)"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "(2, 4)"
    info = subprocess.run([sys.executable, "-m", "eir", "info", mlp], env=env, capture_output=True,
                          text=True, check=True).stdout
    assert "linear" in info
