"""Convolutions with a constant weight on oneDNN's convolution primitive
(src/kernels/dnnl_conv.c): a float32 2-d convolution (groups 1, kernel
larger than 1 x 1) whose weight is a parameter, buffer or constant the
program never writes, or the weight the runtime folds a batch norm into,
runs on the primitive with the weight reordered once per runtime.

Programs exported strict and non-strict, as exported and after
run_decompositions(): torch's answers over three runs, the same bits on 1
and 2 threads, torch's answers with the primitive off (EIR_DNNL_CONV=0) and
with OpenBLAS (EIR_GEMM=openblas). oneDNN's verbose log (DNNL_VERBOSE=1)
shows which convolutions ran on the primitive: those with constant weights
do, a weight computed in the graph and a buffer the program writes in place
never do (the written buffer's later runs see its new values, as torch's
module does).
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


class Params(nn.Module):
    """Parameters (a conv + batch norm + relu block the runtime folds), a buffer as a weight,
    and a dilated 5 x 5 convolution with a bias on odd channels."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(7)
        self.conv1 = nn.Conv2d(3, 24, 3, stride=2, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(24)
        self.conv2 = nn.Conv2d(24, 37, 5, padding=4, dilation=2)
        self.register_buffer("w3", torch.randn(40, 37, 3, 3, generator=g) * 0.1)
        with torch.no_grad():
            self.bn1.running_mean.uniform_(-0.5, 0.5, generator=g)
            self.bn1.running_var.uniform_(0.5, 2.0, generator=g)
            self.bn1.weight.uniform_(0.5, 1.5, generator=g)
            self.bn1.bias.uniform_(-0.2, 0.2, generator=g)

    def forward(self, x):
        h = F.relu(self.bn1(self.conv1(x)))
        h = F.hardtanh(self.conv2(h), 0.0, 6.0)
        return F.conv2d(h, self.w3, stride=1, padding=1)


class Computed(nn.Module):
    """A weight computed in the graph from a parameter: not a constant's storage."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(32, 8, 3, 3, generator=torch.Generator().manual_seed(9)) * 0.2)

    def forward(self, x):
        return F.conv2d(x, self.w * 1.5 + 0.01, padding=1)


class Written(nn.Module):
    """A buffer used as a convolution weight, then written in place (small integers and
    halves: every sum exact in float32, whatever the order)."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(5)
        self.register_buffer("w", torch.randint(-4, 5, (32, 8, 3, 3), generator=g).float() / 2)

    def forward(self, x):
        y = F.conv2d(x, self.w, padding=1)
        self.w.add_(0.5)
        return y


def _run(eir, path, x, out_dir, threads=1, runs=3, env=None):
    """outputs of each run, and how many convolutions oneDNN's verbose log shows"""
    f = os.path.join(os.path.dirname(out_dir), "x.npy")
    np.save(f, to_npy(x))
    r = subprocess.run([eir, "run", path, f, "--out", out_dir, "--threads", str(threads), "--runs", str(runs)],
                       capture_output=True, text=True, timeout=300,
                       env={**os.environ, "DNNL_VERBOSE": "1", **(env or {})})
    assert r.returncode == 0, r.stderr
    lines = [line for line in (r.stdout + r.stderr).splitlines() if ",exec,cpu,convolution," in line]
    # oneDNN's reference loops (100-1000x slower) are never what eir runs a convolution on
    assert not [line for line in lines if ",convolution,ref" in line], lines
    # the chain's layout, from its per-image primitives' outputs
    chain = [line for line in lines if ",mb1_" in line]
    _run.lanes = ("16" if "dst_f32::blocked:aBcd16b" in chain[0] else "8" if "dst_f32::blocked:aBcd8b" in chain[0]
                  else "nhwc") if chain else None
    return [np.load(os.path.join(out_dir, f"run_{k}", "output_0.npy")) for k in range(1, runs + 1)], len(lines)


def _check_runs(one, want):
    """each run's output torch's, and the same bits as the first run's"""
    rtol, atol = tolerance(torch.float32)
    for k, got in enumerate(one):
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=f"run {k + 1}")
        assert got.tobytes() == one[0].tobytes(), f"run {k + 1} differs from the first"


@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
@pytest.mark.parametrize("decomp", [False, True], ids=["exported", "decomp"])
def test_constant_weights(eir, tmp_path, strict, decomp):
    module = Params().eval()
    x = torch.randn(2, 3, 33, 31, generator=torch.Generator().manual_seed(1))
    path = str(tmp_path / "params.pt2")
    export_save(module, x, strict, decomp, path)
    with torch.no_grad():
        want = to_npy(module(x))
    one, convs = _run(eir, path, x, str(tmp_path / "t1"))
    _check_runs(one, want)
    if dnnl_here():
        # three convolutions in 2 blocks of 32 output channels each (24 channels: one), three runs.
        # Without chains (EIR_DNNL_BLOCKED=0): 1 + 2 + 2 primitive runs each. The first two make
        # a blocked chain (test_blocked_conv.py) whose primitives take one image at a time (two
        # here), except where oneDNN has only its reference loops for the chain's formats: then
        # the convolution runs as an NCHW one (both images in one primitive per block).
        # Channels last: the first convolution, from the NCHW input into 24 lanes, runs NCHW
        # (1 + 2 x 2 + 2). 16 lanes: the first on eir's small-channel kernel (0 + 2 x 2 + 2).
        # 8 lanes: the first per image, the dilated 5 x 5 NCHW (2 + 2 + 2).
        lanes = _run.lanes if os.environ.get("EIR_DNNL_BLOCKED") != "0" else None
        per_run = {None: 5, "nhwc": 7, "16": 6, "8": 6}[lanes]
        assert convs == 3 * per_run, f"{convs} primitive executions ({lanes})"
    two, _ = _run(eir, path, x, str(tmp_path / "t2"), threads=2)
    assert all(a.tobytes() == b.tobytes() for a, b in zip(one, two)), "2 threads differ from one thread"
    rtol, atol = tolerance(torch.float32)
    for env in ({"EIR_DNNL_CONV": "0"}, {"EIR_GEMM": "openblas"}):
        got, convs = _run(eir, path, x, str(tmp_path / ("p" + "".join(env.values()))), runs=2, env=env)
        assert convs == 0, env
        np.testing.assert_allclose(got[1], want, rtol=rtol, atol=atol, err_msg=str(env))


@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
@pytest.mark.parametrize("decomp", [False, True], ids=["exported", "decomp"])
def test_computed_weight_is_not_cached(eir, tmp_path, strict, decomp):
    module = Computed().eval()
    x = torch.randn(1, 8, 20, 20, generator=torch.Generator().manual_seed(3))
    path = str(tmp_path / "computed.pt2")
    export_save(module, x, strict, decomp, path)
    with torch.no_grad():
        want = to_npy(module(x))
    rtol, atol = tolerance(torch.float32)
    got, convs = _run(eir, path, x, str(tmp_path / "t1"))
    assert convs == 0
    for k in range(3):
        np.testing.assert_allclose(got[k], want, rtol=rtol, atol=atol, err_msg=f"run {k + 1}")


@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
def test_written_buffer_is_not_cached(eir, tmp_path, strict):
    x = torch.randint(-3, 4, (1, 8, 12, 12), generator=torch.Generator().manual_seed(2)).float()
    path = str(tmp_path / "written.pt2")
    export_save(Written(), x, strict, False, path)
    module = Written()
    with torch.no_grad():
        want = [to_npy(module(x)) for _ in range(3)]
    for threads in (1, 2):
        got, convs = _run(eir, path, x, str(tmp_path / f"t{threads}"), threads=threads)
        assert convs == 0
        for k in range(3):
            np.testing.assert_array_equal(got[k], want[k], err_msg=f"run {k + 1}, {threads} threads")


class Audio(nn.Module):
    """1-d convolutions (Whisper's encoder entry: kernel 3, the second with stride 2), a dilated
    one without bias and a depthwise one. They run on the im2col GEMM, not on the primitive:
    as one-row 2-d images on it, Whisper's took as long (19.7 against 19.2 ms)."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(11)
        self.c1 = nn.Conv1d(16, 32, 3, padding=1)
        self.c2 = nn.Conv1d(32, 32, 3, stride=2, padding=1)
        self.c3 = nn.Conv1d(32, 24, 5, padding=4, dilation=2, bias=False)
        self.dw = nn.Conv1d(24, 24, 7, padding=3, groups=24)
        with torch.no_grad():
            for p in self.parameters():
                p.copy_(torch.randn(p.shape, generator=g) * 0.3)

    def forward(self, x):
        h = F.gelu(self.c2(F.gelu(self.c1(x))))
        return self.dw(self.c3(h))


@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
@pytest.mark.parametrize("decomp", [False, True], ids=["exported", "decomp"])
def test_conv1d(eir, tmp_path, strict, decomp):
    module = Audio().eval()
    x = torch.randn(2, 16, 101, generator=torch.Generator().manual_seed(1))
    path = str(tmp_path / "audio.pt2")
    export_save(module, x, strict, decomp, path)
    with torch.no_grad():
        want = to_npy(module(x))
    one, convs = _run(eir, path, x, str(tmp_path / "t1"))
    _check_runs(one, want)
    if dnnl_here():
        assert convs == 0, f"{convs} primitive executions"
    two, _ = _run(eir, path, x, str(tmp_path / "t2"), threads=2)
    assert all(a.tobytes() == b.tobytes() for a, b in zip(one, two)), "2 threads differ from one thread"
