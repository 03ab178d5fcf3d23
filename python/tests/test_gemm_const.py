"""Products with a constant weight (src/kernels/gemm.c): a transposed
right-hand operand that is a parameter, buffer or constant the program never
writes is read from a scratch transpose at its first use, copied at its second
(once per runtime), and later products run from the copy.

Linear layers, addmm on a weight's t() (after run_decompositions()) and
matmul with a buffer's transpose, exported strict and non-strict, large
enough for the thread pool to cut them into blocks: torch's answers over
three runs, the same bits on 1 and 2 threads, and torch's answers with the
copies off (EIR_GEMM_PACK=0) and with OpenBLAS (EIR_GEMM=openblas). A buffer
the program writes in place is never copied: its later runs see the new
values, as torch's module does.
"""
from __future__ import annotations

import os
import subprocess

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")
nn = torch.nn

from conftest import to_npy  # noqa: E402
from tolerances import tolerance  # noqa: E402
from exporting import export_save  # noqa: E402


class Layers(nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(3)
        self.fc1 = nn.Linear(256, 384)
        self.fc2 = nn.Linear(384, 320, bias=False)
        self.register_buffer("w", torch.randn(320, 256, generator=g) * 0.05)
        self.register_buffer("bias", torch.randn(320, generator=g))

    def forward(self, x):
        h = self.fc2(torch.nn.functional.gelu(self.fc1(x)))
        return h + x @ self.w.t() + torch.addmm(self.bias, x[0], self.w.t())


class Accumulates(nn.Module):
    """A buffer used as a transposed weight and then written in place (small integers and
    quarters: every sum exact in float32, whatever the order)."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(5)
        self.register_buffer("w", torch.randint(-8, 8, (320, 256), generator=g).float() / 4)

    def forward(self, x):
        y = x @ self.w.t()
        self.w.add_(0.5)
        return y


def _run(eir, path, x, out_dir, threads=1, runs=3, env=None):
    f = os.path.join(os.path.dirname(out_dir), "x.npy")
    np.save(f, to_npy(x))
    r = subprocess.run([eir, "run", path, f, "--out", out_dir, "--threads", str(threads), "--runs", str(runs)],
                       capture_output=True, text=True, timeout=300, env={**os.environ, **(env or {})})
    assert r.returncode == 0, r.stderr
    return [np.load(os.path.join(out_dir, f"run_{k}", "output_0.npy")) for k in range(1, runs + 1)]


@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
@pytest.mark.parametrize("decomp", [False, True], ids=["exported", "decomp"])
def test_constant_weights(eir, tmp_path, strict, decomp):
    torch.manual_seed(0)
    module = Layers().eval()
    x = torch.randn(2, 64, 256, generator=torch.Generator().manual_seed(1))
    path = str(tmp_path / "layers.pt2")
    export_save(module, x, strict, decomp, path)
    with torch.no_grad():
        want = to_npy(module(x))
    rtol, atol = tolerance(torch.float32)
    one = _run(eir, path, x, str(tmp_path / "t1"))
    for k, got in enumerate(one):
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=f"run {k + 1}")
        assert got.tobytes() == one[0].tobytes(), f"run {k + 1} differs from the first"
    two = _run(eir, path, x, str(tmp_path / "t2"), threads=2)
    assert all(a.tobytes() == b.tobytes() for a, b in zip(one, two)), "2 threads differ from one thread"
    for env in ({"EIR_GEMM_PACK": "0"}, {"EIR_GEMM": "openblas"}):
        got = _run(eir, path, x, str(tmp_path / ("p" + "".join(env.values()))), runs=2, env=env)[1]
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=str(env))


@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
def test_written_buffer_is_not_copied(eir, tmp_path, strict):
    x = torch.randint(-4, 5, (64, 256), generator=torch.Generator().manual_seed(2)).float()
    path = str(tmp_path / "acc.pt2")
    export_save(Accumulates(), x, strict, False, path)
    module = Accumulates()
    with torch.no_grad():
        want = [to_npy(module(x)) for _ in range(3)]
    rtol, atol = tolerance(torch.float32)
    for threads in (1, 2):
        got = _run(eir, path, x, str(tmp_path / f"t{threads}"), threads=threads)
        for k in range(3):
            np.testing.assert_allclose(got[k], want[k], rtol=rtol, atol=atol, err_msg=f"run {k + 1}, {threads} threads")
