"""Convolution chains kept in the blocked layout (src/passes/backend.c, rewrite (e);
src/kernels/fused.c, dnnl_conv.c): groups-1 convolutions with constant weights become
eir_cpu::conv2d_blocked, their residual adds and activations fused, with
eir_cpu::to_blocked / from_blocked only where the chain meets other operators.

Programs exported strict and non-strict, as exported and after run_decompositions():
  - `eir convert --to backend` writes the chain (`eir print` shows conv2d_blocked, the
    residual adds gone, a from_blocked before the operators that are not in it) and
    `eir verify --dialect backend` accepts it; torch runs the converted program (operators
    registered by eir.backend_ops) to the module's outputs;
  - `eir run` (the runtime makes the same chain at bind time) gives torch's outputs over
    three runs, the same bits on 2 threads as on one, and torch's outputs with the chain in
    each layout the kernels take (EIR_DNNL_BLOCKED=nhwc, 16, 8), with the chain off
    (EIR_DNNL_BLOCKED=0), with the primitive off (EIR_DNNL_CONV=0) and with OpenBLAS;
  - a weight the program writes in place is never cached: its convolution stays out of
    the chain and later runs see the new values.
"""
from __future__ import annotations

import copy
import importlib.util
import os
import re
import subprocess

import numpy as np
import pytest

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional

from conftest import load_backend_ops, to_npy  # noqa: E402
from tolerances import tolerance  # noqa: E402
from exporting import export_save  # noqa: E402

backend_ops = load_backend_ops()        # registers torch.ops.eir_cpu.*


def _bn(c, g):
    bn = nn.BatchNorm2d(c)
    with torch.no_grad():
        bn.running_mean.uniform_(-0.3, 0.3, generator=g)
        bn.running_var.uniform_(0.5, 1.5, generator=g)
        bn.weight.uniform_(0.5, 1.5, generator=g)
        bn.bias.uniform_(-0.2, 0.2, generator=g)
    return bn


class Chain(nn.Module):
    """A ResNet-shaped chain with odd channel counts: a stem, a basic block, a stride-2 block
    with a 1 x 1 downsample, then a sigmoid gate (not blocked: the chain is broken there) and a
    convolution with relu6 after it; a global average pool at the end."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(11)
        self.stem, self.bn0 = nn.Conv2d(3, 24, 3, padding=1, bias=False), _bn(24, g)
        self.c1, self.b1 = nn.Conv2d(24, 24, 3, padding=1, bias=False), _bn(24, g)
        self.c2, self.b2 = nn.Conv2d(24, 24, 3, padding=1, bias=False), _bn(24, g)
        self.c3, self.b3 = nn.Conv2d(24, 40, 3, stride=2, padding=1, bias=False), _bn(40, g)
        self.c4, self.b4 = nn.Conv2d(40, 40, 3, padding=1, bias=False), _bn(40, g)
        self.ds, self.bds = nn.Conv2d(24, 40, 1, stride=2, bias=False), _bn(40, g)
        self.c5 = nn.Conv2d(40, 37, 3, padding=1)

    def forward(self, x):
        x = F.relu(self.bn0(self.stem(x)))
        y = F.relu(self.b1(self.c1(x)))
        x = F.relu(self.b2(self.c2(y)) + x)
        y = F.relu(self.b3(self.c3(x)))
        x = F.relu(self.b4(self.c4(y)) + self.bds(self.ds(x)))
        x = x * torch.sigmoid(x)
        x = F.hardtanh(self.c5(x), 0.0, 6.0)
        return x.mean((2, 3))


class Written(nn.Module):
    """A buffer weight written in place after a chain's convolution reads the result."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(5)
        self.c1, self.b1 = nn.Conv2d(8, 32, 3, padding=1, bias=False), _bn(32, g)
        self.register_buffer("w", torch.randint(-4, 5, (32, 32, 3, 3), generator=g).float() / 8)

    def forward(self, x):
        y = F.relu(self.b1(self.c1(x)))
        y = F.conv2d(y, self.w, padding=1)
        self.w.add_(0.5)
        return y


def _run(eir, path, x, out_dir, threads=1, runs=3, env=None):
    f = os.path.join(os.path.dirname(out_dir), "x.npy")
    np.save(f, to_npy(x))
    r = subprocess.run([eir, "run", path, f, "--out", out_dir, "--threads", str(threads), "--runs", str(runs)],
                       capture_output=True, text=True, timeout=300, env={**os.environ, **(env or {})})
    assert r.returncode == 0, r.stderr
    return [np.load(os.path.join(out_dir, f"run_{k}", "output_0.npy")) for k in range(1, runs + 1)]


def _convert_backend(eir, path, dst):
    """`eir convert --to backend --verify-each` of path into dst, `eir verify --dialect backend`
    of the result; its printed graph"""
    r = subprocess.run([eir, "convert", "--to", "backend", "--verify-each", path, dst], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    printed = subprocess.run([eir, "print", dst], capture_output=True, text=True, timeout=60).stdout
    r = subprocess.run([eir, "verify", "--dialect", "backend", dst], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    return printed


def _runs_agree(eir, path, x, want, tmp_path):
    """three runs of path give torch's outputs and the same bits, two threads the same bits as
    one; the runs' outputs"""
    rtol, atol = tolerance(torch.float32)
    one = _run(eir, path, x, str(tmp_path / "t1"))
    for k, g in enumerate(one):
        np.testing.assert_allclose(g, want, rtol=rtol, atol=atol, err_msg=f"run {k + 1}")
        assert g.tobytes() == one[0].tobytes(), f"run {k + 1} differs from the first"
    two = _run(eir, path, x, str(tmp_path / "t2"), threads=2)
    assert all(a.tobytes() == b.tobytes() for a, b in zip(one, two)), "2 threads differ from one thread"
    return one


def _nngemm_default():
    """whether eir's kernel for 1 x 1 bands is on by default here (src/kernels/nngemm.h: an Intel
    CPU with AVX-512F, or EIR_NNGEMM=1 on any CPU with AVX-512F; EIR_NNGEMM=0 off)"""
    try:
        with open("/proc/cpuinfo") as f:
            text = f.read()
    except OSError:
        return False
    avx512f = any(line.startswith("flags") and " avx512f" in line for line in text.splitlines())
    env = os.environ.get("EIR_NNGEMM")
    if env in ("0", "1"):
        return avx512f and env == "1"
    return avx512f and "GenuineIntel" in text


def _chains_here():
    """whether eir makes chains here (oneDNN loads, nothing turned off)"""
    try:
        import ctypes

        ctypes.CDLL("libdnnl.so.2")
    except OSError:
        return False
    return (os.environ.get("EIR_GEMM", "dnnl") == "dnnl" and os.environ.get("EIR_DNNL_CONV") != "0"
            and os.environ.get("EIR_DNNL_BLOCKED") != "0")


@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
@pytest.mark.parametrize("decomp", [False, True], ids=["exported", "decomp"])
def test_chain(eir, tmp_path, strict, decomp):
    module = Chain().eval()
    x = torch.randn(1, 3, 23, 21, generator=torch.Generator().manual_seed(1))
    path = str(tmp_path / "chain.pt2")
    export_save(module, x, strict, decomp, path)
    with torch.no_grad():
        want = to_npy(module(x))
    rtol, atol = tolerance(torch.float32)

    # the converted program: printed, verified, run by torch
    dst = str(tmp_path / "chain.backend.pt2")
    printed = _convert_backend(eir, path, dst)
    if _chains_here():
        blocked = re.findall(r"torch\.ops\.eir_cpu\.conv2d_blocked\.default", printed)
        assert len(blocked) == 7, printed
        # the two residual adds are fused; the one left is nothing's (sigmoid gate is mul)
        assert "aten.add.Tensor" not in printed, printed
        # borders: the 3-channel stem reads the image as NCHW (no to_blocked); out of the chain
        # before the gate; into it after (c5), out before the mean
        assert re.search(r"conv2d_blocked\.default\]\(args = \(%x, ", printed), printed
        assert len(re.findall(r"eir_cpu\.from_blocked\.default", printed)) == 2, printed
        assert len(re.findall(r"eir_cpu\.to_blocked\.default", printed)) == 1, printed
        assert not re.search(r"aten\.add_?\.Tensor\]\(args = \(%eir", printed), printed   # residuals taken in
    ep = torch.export.load(dst)
    with torch.no_grad():
        got = to_npy(ep.module()(x))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg="torch on the converted program")

    # eir run of the original (the chain made at bind time) and of the converted program
    one = _runs_agree(eir, path, x, want, tmp_path)
    conv = _run(eir, dst, x, str(tmp_path / "conv"), runs=2)
    np.testing.assert_allclose(conv[0], want, rtol=rtol, atol=atol, err_msg="eir run of the converted program")
    for env in ({"EIR_DNNL_BLOCKED": "nhwc"}, {"EIR_DNNL_BLOCKED": "16"}, {"EIR_DNNL_BLOCKED": "8"},
                {"EIR_DNNL_BLOCKED": "0"}, {"EIR_DNNL_CONV": "0"}, {"EIR_GEMM": "openblas"}):
        tag = "".join(env.values())
        got = _run(eir, path, x, str(tmp_path / ("e" + tag)), runs=2, env=env)
        for k in range(2):
            np.testing.assert_allclose(got[k], want, rtol=rtol, atol=atol, err_msg=f"{env}, run {k + 1}")


@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
def test_written_weight_not_in_chain(eir, tmp_path, strict):
    x = torch.randn(1, 8, 12, 12, generator=torch.Generator().manual_seed(2))
    path = str(tmp_path / "written.pt2")
    module = Written().eval()
    export_save(copy.deepcopy(module), x, strict, False, path)
    with torch.no_grad():
        want = [to_npy(module(x)) for _ in range(3)]
    rtol, atol = tolerance(torch.float32)
    dst = str(tmp_path / "written.backend.pt2")
    r = subprocess.run([eir, "convert", "--to", "backend", path, dst], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    printed = subprocess.run([eir, "print", dst], capture_output=True, text=True, timeout=60).stdout
    # the written buffer's convolution stays an ATen call on NCHW
    assert re.search(r"aten\.(conv2d|convolution)\.default\]\(args = \(%eir_cpu_from_blocked", printed) or \
        not _chains_here(), printed
    for threads in (1, 2):
        got = _run(eir, path, x, str(tmp_path / f"t{threads}"), threads=threads)
        for k in range(3):
            np.testing.assert_allclose(got[k], want[k], rtol=rtol, atol=atol, err_msg=f"run {k + 1}, {threads} threads")


class MobileBlocks(nn.Module):
    """MobileNet blocks with odd channel counts: a stride-2 stem, MobileNetV2's inverted residuals
    (1 x 1 expansion, 3 x 3 depthwise, 1 x 1 projection; relu6; one with a stride-2 depthwise,
    one with its residual add) and a MobileNetV3 block (hardswish, a 5 x 5 depthwise, then
    squeeze-excite: average pool, two 1 x 1 convolutions, hardsigmoid and mul, where the chain
    ends), a 1 x 1 projection after it with a residual add written in place (add_, as
    torchvision's blocks export) and a global average pool."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(13)

        def cb(i, o, k=1, s=1, groups=1):
            return nn.Sequential(nn.Conv2d(i, o, k, s, k // 2, groups=groups, bias=False), _bn(o, g))

        self.stem = cb(3, 16, 3, 2)
        self.dw1, self.pj1 = cb(16, 16, 3, 1, 16), cb(16, 24)
        self.ex2, self.dw2, self.pj2 = cb(24, 72), cb(72, 72, 3, 2, 72), cb(72, 40)
        self.ex3, self.dw3, self.pj3 = cb(40, 120), cb(120, 120, 3, 1, 120), cb(120, 40)
        self.ex4, self.dw4 = cb(40, 72), cb(72, 72, 5, 1, 72)
        self.fc1, self.fc2 = nn.Conv2d(72, 24, 1), nn.Conv2d(24, 72, 1)
        self.pj4 = cb(72, 40)

    def forward(self, x):
        r6 = F.relu6
        x = r6(self.stem(x))
        x = self.pj1(r6(self.dw1(x)))
        x = self.pj2(r6(self.dw2(r6(self.ex2(x)))))
        x = self.pj3(r6(self.dw3(r6(self.ex3(x))))) + x
        r = x
        y = F.hardswish(self.dw4(F.hardswish(self.ex4(x))))
        s = F.hardsigmoid(self.fc2(F.relu(self.fc1(F.adaptive_avg_pool2d(y, 1)))))
        x = self.pj4(y * s)
        x += r
        return x.mean((2, 3))


@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
@pytest.mark.parametrize("decomp", [False, True], ids=["exported", "decomp"])
def test_mobile_blocks(eir, tmp_path, strict, decomp):
    """depthwise convolutions in the chain (eir's channels-last kernel), 1 x 1 convolutions in
    it as pixel bands, the chain leaving before squeeze-excite"""
    module = MobileBlocks().eval()
    x = torch.randn(1, 3, 45, 43, generator=torch.Generator().manual_seed(3))
    path = str(tmp_path / "mobile.pt2")
    export_save(module, x, strict, decomp, path)
    with torch.no_grad():
        want = to_npy(module(x))
    rtol, atol = tolerance(torch.float32)
    dst = str(tmp_path / "mobile.backend.pt2")
    printed = _convert_backend(eir, path, dst)
    if _chains_here():
        # stem, 4 depthwise and 8 of the 1 x 1 (export writes F.hardswish as add, clamp, mul and
        # div: taken in as the activation); squeeze-excite's pool and mul on the blocked
        # layout, so the projection after it stays in the chain, and so does fc1 (on the
        # pooled 1 x 1 map; fc2 has no activation to fuse and stays an ATen call)
        assert len(re.findall(r"eir_cpu\.conv2d_blocked\.default", printed)) == 13, printed
        assert len(re.findall(r"aten\.div\.Tensor", printed)) == 1, printed      # hardsigmoid's
        # out: fc1's (N, 24, 1, 1) and before the final mean; in: the scale (the 3-channel stem
        # reads the image as NCHW)
        assert len(re.findall(r"eir_cpu\.from_blocked\.default", printed)) == 2, printed
        assert len(re.findall(r"eir_cpu\.to_blocked\.default", printed)) == 1, printed
        assert re.search(r"conv2d_blocked\.default\]\(args = \(%x, ", printed), printed
    ep = torch.export.load(dst)
    with torch.no_grad():
        got = to_npy(ep.module()(x))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg="torch on the converted program")
    one = _runs_agree(eir, path, x, want, tmp_path)
    conv = _run(eir, dst, x, str(tmp_path / "conv"), runs=2)
    np.testing.assert_allclose(conv[0], want, rtol=rtol, atol=atol, err_msg="eir run of the converted program")
    for env in ({"EIR_BLOCKED_DW": "0"}, {"EIR_BLOCKED_1X1": "1"}, {"EIR_BLOCKED_1X1": "feeds"},
                {"EIR_BLOCKED_DW_STARTS": "1"}, {"EIR_DNNL_DW": "0"}, {"EIR_DNNL_POSTOPS": "0"},
                {"EIR_FUSE_HARDSWISH": "0"}, {"EIR_BLOCKED_SE": "0"},
                {"EIR_DNNL_BAND": "0"}, {"EIR_DNNL_BLOCKED": "16"}, {"EIR_DNNL_BLOCKED": "8"},
                {"EIR_DNNL_BLOCKED": "0"}, {"EIR_DNNL_CONV": "0"}, {"EIR_GEMM": "openblas"}):
        tag = "".join(k + v for k, v in env.items())
        got = _run(eir, path, x, str(tmp_path / ("e" + tag)), runs=2, env=env)
        for k in range(2):
            np.testing.assert_allclose(got[k], want, rtol=rtol, atol=atol, err_msg=f"{env}, run {k + 1}")


class PoolChain(nn.Module):
    """ResNet's stem (convolution, batch norm, relu, 3 x 3 / 2 max pool) into a basic block whose
    residual is the pool's result, a second pool with ceil_mode and dilation inside the chain,
    and a last pool (stride []) at its end, before the mean; 20 channels (padding lanes in
    blocks of 8 and 16)."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(13)
        self.stem, self.bn0 = nn.Conv2d(3, 20, 5, stride=2, padding=2, bias=False), _bn(20, g)
        self.c1, self.b1 = nn.Conv2d(20, 20, 3, padding=1, bias=False), _bn(20, g)
        self.c2, self.b2 = nn.Conv2d(20, 20, 3, padding=1, bias=False), _bn(20, g)
        self.c3 = nn.Conv2d(20, 28, 3, padding=1)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn0(self.stem(x))), 3, 2, 1)
        y = F.relu(self.b1(self.c1(x)))
        x = F.relu(self.b2(self.c2(y)) + x)
        x = F.max_pool2d(x, 2, 1, 0, dilation=2, ceil_mode=True)
        x = F.relu(self.c3(x))
        return F.max_pool2d(x, 2).mean((2, 3))


@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
@pytest.mark.parametrize("decomp", [False, True], ids=["exported", "decomp"])
def test_pool_chain(eir, tmp_path, strict, decomp):
    """max pooling in the chain (eir_cpu::max_pool2d_blocked): the chain runs through the pools;
    the same bits as with the pools on NCHW (EIR_BLOCKED_POOL=0), torch's outputs in every layout"""
    module = PoolChain().eval()
    x = torch.randn(1, 3, 47, 45, generator=torch.Generator().manual_seed(4))
    path = str(tmp_path / "pool.pt2")
    export_save(module, x, strict, decomp, path)
    with torch.no_grad():
        want = to_npy(module(x))
    rtol, atol = tolerance(torch.float32)
    dst = str(tmp_path / "pool.backend.pt2")
    printed = _convert_backend(eir, path, dst)
    if _chains_here():
        assert len(re.findall(r"eir_cpu\.conv2d_blocked\.default", printed)) == 4, printed
        assert len(re.findall(r"eir_cpu\.max_pool2d_blocked\.default", printed)) == 3, printed
        assert "aten.max_pool2d" not in printed, printed
        # one way in (the stem reads NCHW through a to_blocked or directly), one way out (the mean)
        assert len(re.findall(r"eir_cpu\.from_blocked\.default", printed)) == 1, printed
    ep = torch.export.load(dst)
    with torch.no_grad():
        got = to_npy(ep.module()(x))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg="torch on the converted program")
    one = _runs_agree(eir, path, x, want, tmp_path)
    nchw = _run(eir, path, x, str(tmp_path / "nchw"), runs=2, env={"EIR_BLOCKED_POOL": "0"})
    assert nchw[0].tobytes() == one[0].tobytes(), "the pools on NCHW give other bits"
    conv = _run(eir, dst, x, str(tmp_path / "conv"), runs=2)
    np.testing.assert_allclose(conv[0], want, rtol=rtol, atol=atol, err_msg="eir run of the converted program")
    for env in ({"EIR_DNNL_BLOCKED": "16"}, {"EIR_DNNL_BLOCKED": "8"}, {"EIR_DNNL_BLOCKED": "0"},
                {"EIR_GEMM": "openblas"}):
        tag = "".join(k + v for k, v in env.items())
        got = _run(eir, path, x, str(tmp_path / ("e" + tag)), runs=2, env=env)
        for k in range(2):
            np.testing.assert_allclose(got[k], want, rtol=rtol, atol=atol, err_msg=f"{env}, run {k + 1}")


class SmallImage(nn.Module):
    """The end of a MobileNet on a 7 x 7 image (fused.c, conv_1x1_gemm: 1 x 1 convolutions of at
    most 64 pixels as matrix products): an inverted residual block (expansion with relu6, a
    depthwise convolution, a projection whose residual add is taken in), 1 x 1 layers with
    hardswish, silu and a bias, one wide enough to be cut into column blocks, output channels
    not a multiple of 16."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(7)
        self.c0, self.b0 = nn.Conv2d(3, 40, 3, stride=2, padding=1, bias=False), _bn(40, g)
        self.e1, self.be1 = nn.Conv2d(40, 240, 1, bias=False), _bn(240, g)
        self.d1, self.bd1 = nn.Conv2d(240, 240, 3, padding=1, groups=240, bias=False), _bn(240, g)
        self.p1, self.bp1 = nn.Conv2d(240, 40, 1, bias=False), _bn(40, g)
        self.e2, self.be2 = nn.Conv2d(40, 120, 1, bias=False), _bn(120, g)
        self.w3 = nn.Conv2d(120, 1000, 1)
        self.s4 = nn.Conv2d(1000, 37, 1)

    def forward(self, x):
        x = F.relu(self.b0(self.c0(x)))
        y = F.relu6(self.be1(self.e1(x)))
        y = F.relu6(self.bd1(self.d1(y)))
        x = self.bp1(self.p1(y)) + x
        x = F.hardswish(self.be2(self.e2(x)))
        x = F.silu(self.w3(x))
        return self.s4(x)


def _dnnl_1x1(eir, path, x, out_dir, env):
    """eir run of path with oneDNN's log on: the outputs, and how many 1 x 1 convolutions on
    oneDNN's primitive it logged"""
    f = os.path.join(os.path.dirname(out_dir), "x.npy")
    np.save(f, to_npy(x))
    r = subprocess.run([eir, "run", path, f, "--out", out_dir, "--runs", "2"], capture_output=True, text=True,
                       timeout=300, env={**os.environ, "DNNL_VERBOSE": "1", **env})
    assert r.returncode == 0, r.stderr
    n = len(re.findall(r"exec,cpu,convolution,.*kh1sh1.*kw1sw1", r.stdout + r.stderr))
    return [np.load(os.path.join(out_dir, f"run_{k}", "output_0.npy")) for k in (1, 2)], n


@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
@pytest.mark.parametrize("decomp", [False, True], ids=["exported", "decomp"])
@pytest.mark.parametrize("shape", [(1, 3, 14, 14), (1, 3, 11, 13), (2, 3, 10, 9), (1, 3, 18, 18)],
                         ids=["7x7", "6x7", "2x5x5", "9x9"])
def test_small_image_1x1_products(eir, tmp_path, strict, decomp, shape):
    module = SmallImage().eval()
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(3))
    path = str(tmp_path / "small.pt2")
    export_save(module, x, strict, decomp, path)
    with torch.no_grad():
        want = to_npy(module(x))
    rtol, atol = tolerance(torch.float32)
    one = _runs_agree(eir, path, x, want, tmp_path)
    dst = str(tmp_path / "small.backend.pt2")
    _convert_backend(eir, path, dst)
    conv = _run(eir, dst, x, str(tmp_path / "conv"), runs=2)
    np.testing.assert_allclose(conv[0], want, rtol=rtol, atol=atol, err_msg="eir run of the converted program")
    on, n_on = _dnnl_1x1(eir, path, x, str(tmp_path / "on"), {})
    # the path off: the pixel bands, on oneDNN's primitive (EIR_NNGEMM=0) and on eir's kernel
    off, n_off = _dnnl_1x1(eir, path, x, str(tmp_path / "off"), {"EIR_CONV_1X1_GEMM": "0", "EIR_NNGEMM": "0"})
    nnb, n_nnb = _dnnl_1x1(eir, path, x, str(tmp_path / "nnb"), {"EIR_CONV_1X1_GEMM": "0"})
    for k in range(2):
        np.testing.assert_allclose(off[k], want, rtol=rtol, atol=atol, err_msg=f"path off, run {k + 1}")
        np.testing.assert_allclose(nnb[k], want, rtol=rtol, atol=atol, err_msg=f"path off, eir's bands, run {k + 1}")
    assert on[0].tobytes() == one[0].tobytes()
    assert nnb[0].tobytes() == nnb[1].tobytes()
    if _chains_here() and os.environ.get("EIR_GEMM_PACK") != "0":
        pixels = shape[0] * ((shape[2] + 1) // 2) * ((shape[3] + 1) // 2)
        # the chain's four 1 x 1 layers run on oneDNN's primitive with the path off (in bands of
        # pixels, several runs per layer), as matrix products with it on, up to 64 pixels; with
        # eir's kernel on (src/kernels/nngemm.c) the bands run on it
        nnk = _nngemm_default()
        assert n_off >= 8, f"{n_off} 1 x 1 primitive runs with the path off"
        assert n_nnb == (0 if nnk else n_off), f"{n_nnb} 1 x 1 primitive runs with the path off, EIR_NNGEMM unset"
        n_bands = 0 if nnk else n_off
        assert n_on == (n_bands if pixels > 64 else 0), f"{n_on} 1 x 1 primitive runs with the path on ({pixels} pixels)"
