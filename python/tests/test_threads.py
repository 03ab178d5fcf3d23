"""`eir run --threads N`: torch's answers, and the same bits as one thread.

The zoo's ResNet-18 and MobileNetV2 (as exported and after
run_decompositions()) run on 2 threads and are compared with
ep.module() within the float32 tolerance, and byte for byte with eir on one
thread (eir cuts work into pieces that do not depend on the thread count).
ResNet-18 is also exported again (strict) with a larger batch and image, so
that its convolutions, matrix products, pooling and batch norm are big
enough to be split, and runs on 2 and 3 threads.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

from conftest import ZOO_SRC, to_npy  # noqa: E402
from tolerances import tolerance  # noqa: E402

if ZOO_SRC not in sys.path:
    sys.path.insert(0, ZOO_SRC)


def _run(eir, path, inputs, out_dir, threads):
    files = []
    for i, x in enumerate(inputs):
        f = os.path.join(os.path.dirname(out_dir), f"in_{i}.npy")
        np.save(f, to_npy(x))
        files.append(f)
    r = subprocess.run([eir, "run", path, *files, "--out", out_dir, "--threads", str(threads)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return np.load(os.path.join(out_dir, "output_0.npy"))


def _check(eir, path, ep, args, tmp_path, counts):
    want = to_npy(ep.module()(*args))
    rtol, atol = tolerance(torch.float32)
    one = _run(eir, path, args, str(tmp_path / "t1"), 1)
    np.testing.assert_allclose(one, want, rtol=rtol, atol=atol)
    for t in counts:
        got = _run(eir, path, args, str(tmp_path / f"t{t}"), t)
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=f"{path} on {t} threads")
        assert got.tobytes() == one.tobytes(), f"{path}: {t} threads differ from one thread"


@pytest.mark.parametrize("name", ["resnet18", "resnet18.decomp", "mobilenetv2", "mobilenetv2.decomp"])
def test_zoo_models_on_two_threads(eir, zoo_dir, name, tmp_path):
    import zoo

    d, failed = zoo_dir
    path = os.path.join(d, name + ".pt2")
    if not os.path.exists(path):
        pytest.skip(f"{name}: not generated ({failed.get(name.split('.')[0], '')})")
    _, args, _, _ = zoo.build(name.split(".")[0])
    ep = torch.export.load(path)
    _check(eir, path, ep, args, tmp_path, [2])


def test_larger_resnet18_on_two_and_three_threads(eir, tmp_path):
    import zoo

    module, _, _, _ = zoo.build("resnet18")
    x = torch.randn(2, 3, 64, 64, generator=torch.Generator().manual_seed(7))
    ep = torch.export.export(module, (x,), strict=True)
    path = str(tmp_path / "resnet18_64.pt2")
    torch.export.save(ep, path)
    _check(eir, path, ep, (x,), tmp_path, [2, 3])


def test_bad_thread_count(eir):
    r = subprocess.run([eir, "run", "--threads", "-2", "x.pt2"], capture_output=True, text=True)
    assert r.returncode != 0
    assert "--threads needs a count from 0 to 256, got '-2'" in r.stderr


def test_python_binding_threads(tmp_path):
    """Program.set_threads / .threads in the ctypes binding (bindings/python/eir)."""
    from conftest import REPO

    lib = os.environ.get("EIR_LIB") or os.path.join(REPO, "build", "libeir.so")
    if not os.path.exists(lib):
        pytest.skip(f"{lib} not built")
    os.environ["EIR_LIB"] = lib
    sys.path.insert(0, os.path.join(REPO, "bindings", "python"))
    import eir as eirpy
    import zoo

    module, _, _, _ = zoo.build("mobilenetv2")
    x = torch.randn(2, 3, 48, 48, generator=torch.Generator().manual_seed(3))
    ep = torch.export.export(module, (x,))
    path = str(tmp_path / "m.pt2")
    torch.export.save(ep, path)
    p = eirpy.load(path)
    assert p.threads == 1
    one = p.run(x.numpy())[0]
    p.set_threads(2)
    assert p.threads == 2
    two = p.run(x.numpy())[0]
    assert two.tobytes() == one.tobytes()
    rtol, atol = tolerance(torch.float32)
    np.testing.assert_allclose(two, to_npy(ep.module()(x)), rtol=rtol, atol=atol)
    with pytest.raises(eirpy.EirError, match="threads: -1 is not a thread count"):
        p.set_threads(-1)
    p.close()


class Heads(torch.nn.Module):
    """Attention written out as matmuls (as a Llama block's is), a baddbmm and a batched product
    with a broadcast right-hand side: batches of small products, which the pool runs one matrix
    per item on more than one thread."""

    def forward(self, q, k, v, bias, w):
        s = torch.matmul(q, k.transpose(-1, -2)) * 0.125
        o = torch.matmul(torch.softmax(s, dim=-1), v)
        b = torch.baddbmm(bias, q.flatten(0, 1), k.flatten(0, 1).transpose(1, 2), beta=0.5, alpha=2.0)
        return o, b, torch.matmul(v, w)


@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
def test_batched_matmuls_on_threads(eir, tmp_path, strict):
    g = torch.Generator().manual_seed(4)
    args = (torch.randn(2, 16, 64, 32, generator=g), torch.randn(2, 16, 64, 32, generator=g),
            torch.randn(2, 16, 64, 32, generator=g), torch.randn(32, 64, 64, generator=g),
            torch.randn(32, 48, generator=g))
    path = str(tmp_path / "heads.pt2")
    torch.export.save(torch.export.export(Heads(), args, strict=strict), path)
    with torch.no_grad():
        want = [to_npy(t) for t in Heads()(*args)]
    rtol, atol = tolerance(torch.float32)
    got = {}
    for t in (1, 2, 3):
        out = str(tmp_path / f"o{t}")
        _run(eir, path, args, out, t)
        got[t] = [np.load(os.path.join(out, f"output_{i}.npy")) for i in range(3)]
        for i in range(3):
            np.testing.assert_allclose(got[t][i], want[i], rtol=rtol, atol=atol, err_msg=f"{t} threads, output {i}")
    for t in (2, 3):
        for i in range(3):
            assert got[t][i].tobytes() == got[1][i].tobytes(), f"output {i}: {t} threads differ from one"
