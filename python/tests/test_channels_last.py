"""Tensors laid out channels last inside a program, as ConvNeXt makes them (and sequences kept
transposed, as Whisper's encoder keeps them: test_transposed_sequence): ConvNeXt's blocks
permute (N, C, H, W) to (N, H, W, C) for layer norm and the linear layers and back, so the
block's result, and the next block's 7 x 7 depthwise convolution's input and output, are
(N, C, H, W) tensors with channels-last strides (torch keeps that layout through pointwise
ops and convolutions).

eir runs such a depthwise convolution on oneDNN's primitive where the tensors lie (no copy to
NCHW and back; src/kernels/nn.c), its pointwise ops in the output's memory order (unit-stride
rows; src/kernels/pointwise.c), a layer norm of a transposed input from a contiguous copy of it
(src/kernels/reduce.c), and a 7 x 7 depthwise convolution on NCHW tensors in its own
register-blocked kernel (src/kernels/fast.c, dw_flat49). Programs exported strict and not, as
exported and after run_decompositions(), saved and saved again after torch.export.load: torch's
answers over three runs, the same bits on 1 and 2 threads.
"""
from __future__ import annotations

import os
import subprocess

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")
nn = torch.nn
F = torch.nn.functional

from conftest import dnnl_here, to_npy  # noqa: E402
from tolerances import tolerance  # noqa: E402
from exporting import export_save  # noqa: E402


class Block(nn.Module):
    """torchvision's ConvNeXt block: depthwise 7 x 7, permute, layer norm, linear, GELU,
    linear, permute back, layer scale, residual add in place."""

    def __init__(self, dim, g):
        super().__init__()
        self.dw = nn.Conv2d(dim, dim, 7, padding=3, groups=dim)
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)
        self.gamma = nn.Parameter(torch.rand(dim, 1, 1, generator=g) + 0.5)
        with torch.no_grad():
            for p in self.parameters():
                if p is not self.gamma:
                    p.copy_(torch.randn(p.shape, generator=g) * 0.2)

    def forward(self, x):
        y = self.dw(x).permute(0, 2, 3, 1)
        y = self.fc2(F.gelu(self.fc1(self.norm(y)))).permute(0, 3, 1, 2)
        y = self.gamma * y
        y += x
        return y


class Net(nn.Module):
    """A stem, two blocks (the second's input channels last), a strided depthwise 7 x 7 on
    NCHW and a 7 x 7 with a bias on a plane narrower than 64 columns."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(3)
        self.stem = nn.Conv2d(3, 32, 4, stride=4)
        self.b1, self.b2 = Block(32, g), Block(32, g)
        self.dw2 = nn.Conv2d(32, 32, 7, stride=2, padding=3, groups=32, bias=False)
        self.dw3 = nn.Conv2d(32, 32, 7, padding=2, groups=32)

    def forward(self, x):
        y = self.b2(self.b1(self.stem(x)))
        z = y.contiguous()
        return y.mean((2, 3)), self.dw2(z), self.dw3(z)


def _run(eir, path, xs, out_dir, threads, runs=3):
    r = subprocess.run([eir, "run", path, *xs, "--out", out_dir, "--threads", str(threads), "--runs", str(runs)],
                       capture_output=True, text=True, timeout=300, env={**os.environ, "DNNL_VERBOSE": "1"})
    assert r.returncode == 0, r.stderr
    outs = [[np.load(os.path.join(out_dir, f"run_{k}", f"output_{i}.npy")) for i in range(3)]
            for k in range(1, runs + 1)]
    return outs, r.stdout + r.stderr


@pytest.mark.parametrize("resave", [False, True], ids=["saved", "resaved"])
@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
@pytest.mark.parametrize("decomp", [False, True], ids=["exported", "decomp"])
def test_convnext_blocks(eir, tmp_path, strict, decomp, resave):
    module = Net().eval()
    x = torch.randn(2, 3, 60, 56, generator=torch.Generator().manual_seed(1))
    path = str(tmp_path / "net.pt2")
    export_save(module, x, strict, decomp, path)
    if resave:
        torch.export.save(torch.export.load(path), path)
    with torch.no_grad():
        y, _, _ = module(x)
        want = [to_npy(t) for t in module(x)]
    # the case under test: the blocks' results are channels last in torch too
    h = module.b1(module.stem(x))
    assert h.stride(1) == 1 and not h.is_contiguous(), h.stride()
    xf = str(tmp_path / "x.npy")
    np.save(xf, to_npy(x))
    rtol, atol = tolerance(torch.float32)
    one, log = _run(eir, path, [xf], str(tmp_path / "t1"), 1)
    for k, got in enumerate(one):
        for i, (g, w) in enumerate(zip(got, want)):
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"run {k + 1}, output {i}")
            assert g.tobytes() == one[0][i].tobytes(), f"run {k + 1} differs from the first"
    if dnnl_here():
        # the second block's depthwise convolution (its input channels last) on the primitive,
        # one image at a time, three runs; the first block's (an NCHW input) and the two on
        # NCHW tensors run on eir's own kernel
        dw = [ln for ln in log.splitlines() if ",exec,cpu,convolution," in ln and "g32mb1_" in ln and "kh7" in ln]
        assert len(dw) == 3 * 2, log[-2000:]
        assert all("src_f32::blocked:acdb" in ln and "dst_f32::blocked:acdb" in ln for ln in dw), dw
    two, _ = _run(eir, path, [xf], str(tmp_path / "t2"), 2)
    for a, b in zip(one, two):
        assert all(p.tobytes() == q.tobytes() for p, q in zip(a, b)), "2 threads differ from one thread"


class Encoder(nn.Module):
    """Whisper's encoder entry: convolutions over (N, C, T), the sequence transposed to
    (N, T, C) as a view, a position embedding added (the sum keeps the transposed layout),
    then pre-norm blocks whose layer norms and residual adds see that layout."""

    def __init__(self, c=48, t=90):
        super().__init__()
        g = torch.Generator().manual_seed(4)
        self.conv = nn.Conv1d(8, c, 3, padding=1)
        self.pos = nn.Parameter(torch.randn(t, c, generator=g))
        self.ln1, self.ln2 = nn.LayerNorm(c), nn.LayerNorm(c)
        self.fc = nn.Linear(c, c)
        with torch.no_grad():
            for ln in (self.ln1, self.ln2):
                ln.weight.uniform_(0.5, 1.5, generator=g)
                ln.bias.uniform_(-0.5, 0.5, generator=g)

    def forward(self, x):
        h = F.gelu(self.conv(x)).permute(0, 2, 1) + self.pos
        h = h + self.fc(self.ln1(h))
        return self.ln2(h)


@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
@pytest.mark.parametrize("decomp", [False, True], ids=["exported", "decomp"])
def test_transposed_sequence(eir, tmp_path, strict, decomp):
    module = Encoder().eval()
    x = torch.randn(2, 8, 90, generator=torch.Generator().manual_seed(2))
    path = str(tmp_path / "enc.pt2")
    export_save(module, x, strict, decomp, path)
    with torch.no_grad():
        want = to_npy(module(x))
        h = F.gelu(module.conv(x)).permute(0, 2, 1) + module.pos
    assert h.stride(1) == 1 and not h.is_contiguous(), h.stride()  # the layout under test
    xf = str(tmp_path / "x.npy")
    np.save(xf, to_npy(x))
    rtol, atol = tolerance(torch.float32)
    outs = {}
    for threads in (1, 2):
        d = str(tmp_path / f"t{threads}")
        r = subprocess.run([eir, "run", path, xf, "--out", d, "--threads", str(threads), "--runs", "2"],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        outs[threads] = [np.load(os.path.join(d, f"run_{k}", "output_0.npy")) for k in (1, 2)]
        for got in outs[threads]:
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    assert outs[1][0].tobytes() == outs[1][1].tobytes() == outs[2][0].tobytes()
