"""Live checks of the spatial, FFT and misc kernel families against torch 2.13.

Small programs that call what users' models call — F.interpolate (nearest,
bilinear, bicubic, antialiased, uint8), F.grid_sample, nn.EmbeddingBag,
3-d pooling, torch.fft, torch.cdist, F.fold, masked_scatter, batch norm in
training mode, and an out= call — are exported with torch.export, saved, run
with `eir run`, and compared with the module's own outputs. Each program runs
both as exported (the user-level ops: aten.grid_sampler, aten.fft_rfft,
aten.cdist, aten.embedding_bag.padding_idx, ...) and after
run_decompositions() (the Core ATen ops: grid_sampler_2d, _fft_r2c,
_cdist_forward, _embedding_bag, ...).
"""
from __future__ import annotations

import copy
import os
import subprocess

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")
F = torch.nn.functional

from conftest import to_npy as _npy  # noqa: E402
from tolerances import tolerance  # noqa: E402




class Fn(torch.nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, *args):
        return self.f(*args)


def run_eir(eir, tmp_path, module, args, decompose, ep=None):
    """Export module(*args) (or take ep, its export), run it in eir, return (eir
    outputs, torch outputs)."""
    ref = copy.deepcopy(module)  # programs that update buffers must start from the same state
    if ep is None:
        ep = torch.export.export(module, tuple(args))
    if decompose:
        ep = ep.run_decompositions()
    path = str(tmp_path / "p.pt2")
    torch.export.save(ep, path)
    files = []
    for i, a in enumerate(args):
        f = tmp_path / f"in_{i}.npy"
        np.save(f, _npy(a))
        files.append(str(f))
    out = tmp_path / "out"
    r = subprocess.run([eir, "run", path, *files, "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    want = torch.utils._pytree.tree_leaves(ref(*[a.clone() for a in args]))
    got = [np.load(out / f"output_{i}.npy") for i in range(len(want))]
    return got, want


def compare(got, want, what):
    for i, (g, w) in enumerate(zip(got, want)):
        wn = _npy(w)
        assert g.shape == wn.shape, f"{what}: output {i} shape {g.shape}, torch {wn.shape}"
        if w.dtype.is_floating_point or w.dtype.is_complex:
            rtol, atol = tolerance(w.dtype)
            np.testing.assert_allclose(g, wn, rtol=rtol, atol=atol, err_msg=f"{what}: output {i}")
        else:
            np.testing.assert_array_equal(g, wn, err_msg=f"{what}: output {i}")


def check(eir, tmp_path, module, args, what):
    ep = torch.export.export(module, tuple(args))  # one export, run as it is and decomposed
    for decompose in (False, True):
        got, want = run_eir(eir, tmp_path, module, args, decompose, ep)
        compare(got, want, f"{what} ({'decomposed' if decompose else 'as exported'})")


def _rand(*shape, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).to(dtype)


INTERPOLATE = [
    ("nearest x2", dict(scale_factor=2, mode="nearest")),
    ("nearest size", dict(size=(5, 13), mode="nearest")),
    ("nearest 0.6", dict(scale_factor=0.6, mode="nearest")),
    ("nearest-exact", dict(scale_factor=1.7, mode="nearest-exact")),
    ("bilinear x2", dict(scale_factor=2, mode="bilinear")),
    ("bilinear size ac", dict(size=(5, 13), mode="bilinear", align_corners=True)),
    ("bilinear 0.6", dict(scale_factor=0.6, mode="bilinear")),
    ("bicubic", dict(scale_factor=1.5, mode="bicubic")),
    ("bilinear antialias", dict(size=(3, 4), mode="bilinear", antialias=True)),
]


@pytest.mark.parametrize("name,kw", INTERPOLATE, ids=[n for n, _ in INTERPOLATE])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16], ids=str)
def test_interpolate(eir, tmp_path, name, kw, dtype):
    if kw.get("antialias") and dtype == torch.bfloat16:
        pytest.skip("torch has no bfloat16 antialiased upsampling")
    x = _rand(2, 3, 7, 9, dtype=dtype)
    check(eir, tmp_path, Fn(lambda a: F.interpolate(a, **kw)), [x], f"interpolate {name}")


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("antialias", [False, True])
def test_interpolate_uint8(eir, tmp_path, mode, antialias):
    g = torch.Generator().manual_seed(1)
    x = torch.randint(0, 256, (1, 3, 9, 7), generator=g, dtype=torch.uint8)
    got, want = run_eir(eir, tmp_path, Fn(lambda a: F.interpolate(a, size=(5, 11), mode=mode, antialias=antialias)), [x], False)
    compare(got, want, f"uint8 {mode} antialias={antialias}")


def test_interpolate_1d_3d(eir, tmp_path):
    check(eir, tmp_path, Fn(lambda a: F.interpolate(a, scale_factor=2.5, mode="linear")), [_rand(2, 3, 11)], "linear")
    check(eir, tmp_path, Fn(lambda a: F.interpolate(a, scale_factor=1.5, mode="trilinear")), [_rand(1, 2, 4, 5, 6)], "trilinear")
    check(eir, tmp_path, Fn(lambda a: F.interpolate(a, scale_factor=2, mode="nearest")), [_rand(1, 2, 4, 5, 6)], "nearest 3d")


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample(eir, tmp_path, mode, padding_mode, align_corners):
    x = _rand(2, 3, 5, 7)
    grid = (torch.rand(2, 4, 6, 2, generator=torch.Generator().manual_seed(2)) * 2.6 - 1.3)
    check(eir, tmp_path, Fn(lambda a, g: F.grid_sample(a, g, mode=mode, padding_mode=padding_mode, align_corners=align_corners)),
          [x, grid], f"grid_sample {mode} {padding_mode}")


def test_grid_sample_3d(eir, tmp_path):
    x = _rand(1, 2, 4, 5, 6)
    grid = torch.rand(1, 3, 4, 2, 3, generator=torch.Generator().manual_seed(3)) * 2.4 - 1.2
    check(eir, tmp_path, Fn(lambda a, g: F.grid_sample(a, g, align_corners=False)), [x, grid], "grid_sample 3d")


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag(eir, tmp_path, mode):
    torch.manual_seed(0)
    bag = torch.nn.EmbeddingBag(10, 4, mode=mode, padding_idx=2)
    idx = torch.tensor([1, 2, 4, 5, 4, 3, 2, 0, 9, 7])
    offsets = torch.tensor([0, 2, 2, 5, 8])
    check(eir, tmp_path, bag, [idx, offsets], f"EmbeddingBag {mode}")
    check(eir, tmp_path, torch.nn.EmbeddingBag(10, 4, mode=mode), [torch.randint(0, 10, (3, 5))], f"EmbeddingBag {mode} 2-d input")


def test_embedding_bag_per_sample_weights(eir, tmp_path):
    w = _rand(10, 4)
    check(eir, tmp_path, Fn(lambda ww, i, o, s: F.embedding_bag(i, ww, o, mode="sum", per_sample_weights=s, include_last_offset=True)),
          [w, torch.tensor([1, 2, 4, 5, 4, 3]), torch.tensor([0, 2, 2, 6]), torch.rand(6)], "embedding_bag weights")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
def test_pooling_3d(eir, tmp_path, dtype):
    x = _rand(2, 3, 7, 6, 5, dtype=dtype)
    check(eir, tmp_path, torch.nn.MaxPool3d((3, 2, 2), stride=(2, 1, 2), padding=(1, 1, 0), dilation=(1, 2, 1), ceil_mode=True), [x], "MaxPool3d")
    check(eir, tmp_path, torch.nn.MaxPool3d(2, return_indices=True), [x], "MaxPool3d indices")
    check(eir, tmp_path, torch.nn.AvgPool3d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False), [x], "AvgPool3d")
    check(eir, tmp_path, torch.nn.AvgPool3d(2, divisor_override=3), [x], "AvgPool3d divisor")
    check(eir, tmp_path, torch.nn.AdaptiveAvgPool3d((3, 4, 2)), [x], "AdaptiveAvgPool3d")
    check(eir, tmp_path, torch.nn.AdaptiveMaxPool3d((3, 4, 2), return_indices=True), [x], "AdaptiveMaxPool3d")


def test_pooling_1d(eir, tmp_path):
    x = _rand(2, 3, 11)
    check(eir, tmp_path, torch.nn.MaxPool1d(3, 2, 1, ceil_mode=True), [x], "MaxPool1d")
    check(eir, tmp_path, torch.nn.AvgPool1d(3, 2, 1, count_include_pad=False), [x], "AvgPool1d")
    check(eir, tmp_path, torch.nn.AdaptiveAvgPool1d(4), [x], "AdaptiveAvgPool1d")
    check(eir, tmp_path, torch.nn.AdaptiveMaxPool1d(4, return_indices=True), [x], "AdaptiveMaxPool1d")


def _nans(*shape):
    """Distinct values with every third one NaN: several NaNs per pooling window."""
    x = torch.randperm(int(np.prod(shape)), generator=torch.Generator().manual_seed(11)).float().reshape(shape)
    x.view(-1)[::3] = float("nan")
    return x


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
def test_pooling_several_nans(eir, tmp_path, dtype):
    """torch's max pooling keeps the last NaN of a window (its test is val > max || isnan(val), with no early exit)."""
    x1, x2, x3 = _nans(2, 3, 11).to(dtype), _nans(2, 3, 7, 6).to(dtype), _nans(1, 2, 4, 5, 6).to(dtype)
    check(eir, tmp_path, torch.nn.MaxPool1d(3, 2, 1, return_indices=True), [x1], "MaxPool1d NaNs")
    check(eir, tmp_path, torch.nn.AdaptiveMaxPool1d(4, return_indices=True), [x1], "AdaptiveMaxPool1d NaNs")
    check(eir, tmp_path, torch.nn.MaxPool2d(3, 2, 1, return_indices=True), [x2], "MaxPool2d NaNs")
    check(eir, tmp_path, torch.nn.MaxPool2d(3, 1, return_indices=True), [x2.contiguous(memory_format=torch.channels_last)],
          "MaxPool2d NaNs channels-last")
    check(eir, tmp_path, torch.nn.AdaptiveMaxPool2d((3, 2), return_indices=True), [x2], "AdaptiveMaxPool2d NaNs")
    check(eir, tmp_path, torch.nn.MaxPool3d(2, return_indices=True), [x3], "MaxPool3d NaNs")
    check(eir, tmp_path, torch.nn.AdaptiveMaxPool3d((2, 2, 3), return_indices=True), [x3], "AdaptiveMaxPool3d NaNs")
    # reductions keep the first NaN instead (torch's argmax combines with the lower index on ties)
    check(eir, tmp_path, Fn(lambda a: (torch.argmax(a, -1), *torch.max(a, 1), torch.argmin(a))), [x2], "argmax/max/argmin NaNs")


FFTS = [
    ("rfft", lambda a: torch.fft.rfft(a), "real"),
    ("irfft", lambda a: torch.fft.irfft(a, n=30), "complex"),
    ("fft real", lambda a: torch.fft.fft(a, norm="ortho"), "real"),
    ("fft", lambda a: torch.fft.fft(a, n=20), "complex"),
    ("ifft", lambda a: torch.fft.ifft(a, norm="forward"), "complex"),
    ("fft2", lambda a: torch.fft.fft2(a), "complex"),
    ("rfftn", lambda a: torch.fft.rfftn(a, dim=(0, 2)), "real"),
    ("irfft2", lambda a: torch.fft.irfft2(a, s=(6, 9)), "complex"),
    ("prime length", lambda a: torch.fft.fft(a, n=97), "complex"),
]


@pytest.mark.parametrize("name,f,kind", FFTS, ids=[n for n, _, _ in FFTS])
@pytest.mark.parametrize("precision", ["single", "double"])
def test_fft(eir, tmp_path, name, f, kind, precision):
    g = torch.Generator().manual_seed(4)
    rt = torch.float32 if precision == "single" else torch.float64
    ct = torch.complex64 if precision == "single" else torch.complex128
    x = torch.randn(3, 6, 16, generator=g, dtype=rt) if kind == "real" else torch.randn(3, 6, 16, generator=g, dtype=ct)
    check(eir, tmp_path, Fn(f), [x], f"fft {name}")


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, float("inf")])
def test_cdist(eir, tmp_path, p):
    a, b = _rand(2, 5, 4, seed=5), _rand(2, 7, 4, seed=6)
    check(eir, tmp_path, Fn(lambda x, y: torch.cdist(x, y, p=p)), [a, b], f"cdist p={p}")
    check(eir, tmp_path, Fn(lambda x: F.pdist(x, p=p)), [a[0]], f"pdist p={p}")


def test_cdist_matmul_path(eir, tmp_path):
    a, b = _rand(40, 6, seed=7), _rand(30, 6, seed=8)
    check(eir, tmp_path, Fn(lambda x, y: torch.cdist(x, y)), [a, b], "cdist p=2 over 25 rows")


def test_fold_masked_scatter(eir, tmp_path):
    cols = _rand(2, 18, 30)
    check(eir, tmp_path, Fn(lambda c: F.fold(c, (6, 7), (2, 3), dilation=(2, 1), padding=(1, 2), stride=(1, 2))), [cols], "fold")
    check(eir, tmp_path, Fn(lambda x: F.unfold(x, (2, 3), padding=1)), [_rand(2, 3, 6, 7)], "unfold")
    mask = torch.rand(3, 4, generator=torch.Generator().manual_seed(9)) > 0.5
    check(eir, tmp_path, Fn(lambda x, m, s: x.masked_scatter(m, s)), [_rand(3, 4), mask, _rand(12)], "masked_scatter")


class TrainBN(torch.nn.Module):
    def __init__(self, track):
        super().__init__()
        self.bn = torch.nn.BatchNorm2d(3, momentum=0.3, track_running_stats=track)

    def forward(self, x):
        y = self.bn(x)
        if self.bn.track_running_stats:
            return y, self.bn.running_mean * 1, self.bn.running_var * 1
        return y


@pytest.mark.parametrize("track", [True, False])
def test_batch_norm_training(eir, tmp_path, track):
    m = TrainBN(track).train()
    with torch.no_grad():
        m.bn.weight.uniform_(0.5, 1.5)
        m.bn.bias.uniform_(-1, 1)
    # as exported: aten.batch_norm.default in training mode, updating the running stats in place;
    # decomposed: _native_batch_norm_legit_functional and BUFFER_MUTATION outputs
    check(eir, tmp_path, m, [_rand(4, 3, 5, 2)], f"BatchNorm2d training track_running_stats={track}")


class NativeBN(torch.nn.Module):
    """aten.native_batch_norm.default called directly: its kernel writes running_mean/var in training mode
    although its schema has no Tensor(a!)."""

    def __init__(self, training):
        super().__init__()
        self.training_mode = training
        self.register_buffer("rm", torch.linspace(-0.5, 0.5, 3))
        self.register_buffer("rv", torch.linspace(0.5, 1.5, 3))
        self.w = torch.nn.Parameter(torch.linspace(0.5, 1.5, 3))
        self.b = torch.nn.Parameter(torch.linspace(-1, 1, 3))

    def forward(self, x):
        y, mean, invstd = torch.ops.aten.native_batch_norm.default(x, self.w, self.b, self.rm, self.rv, self.training_mode, 0.2, 1e-5)
        return y, mean, invstd, self.rm * 1, self.rv * 1


@pytest.mark.parametrize("training", [True, False])
def test_native_batch_norm(eir, tmp_path, training):
    got, want = run_eir(eir, tmp_path, NativeBN(training), [_rand(4, 3, 5)], False)
    compare(got, want, f"native_batch_norm training={training}")


@pytest.mark.parametrize("decompose", [False, True])
def test_batch_norm_training_state(eir, tmp_path, decompose):
    """Three runs in a row: the running stats eir keeps match the module's after three calls."""
    m = TrainBN(True).train()
    ref = copy.deepcopy(m)
    ep = torch.export.export(m, (_rand(4, 3, 5, 2),))
    if decompose:
        ep = ep.run_decompositions()
    path = str(tmp_path / "bn.pt2")
    torch.export.save(ep, path)
    x = _rand(4, 3, 5, 2, seed=3)
    np.save(tmp_path / "x.npy", _npy(x))
    out = tmp_path / "out"
    r = subprocess.run([eir, "run", path, str(tmp_path / "x.npy"), "--runs", "3", "--out", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    for _ in range(3):
        ref(x)
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        want = _npy(getattr(ref.bn, name))
        got = np.load(out / "run_3" / f"state.bn.{name}.npy")
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=name)


class LegitInPlace(torch.nn.Module):
    """_native_batch_norm_legit.default writes running_mean/var in place (a non-functional program)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("rm", torch.zeros(3))
        self.register_buffer("rv", torch.ones(3))
        self.w = torch.nn.Parameter(torch.linspace(0.5, 1.5, 3))
        self.b = torch.nn.Parameter(torch.linspace(-1, 1, 3))

    def forward(self, x):
        y, mean, invstd = torch.ops.aten._native_batch_norm_legit.default(x, self.w, self.b, self.rm, self.rv, True, 0.1, 1e-5)
        return y, mean, invstd, self.rm * 1, self.rv * 1


def test_batch_norm_legit_in_place(eir, tmp_path):
    got, want = run_eir(eir, tmp_path, LegitInPlace(), [_rand(4, 3, 5)], False)
    compare(got, want, "_native_batch_norm_legit in place")


class Atan2Out(torch.nn.Module):
    def forward(self, a, b, o):
        r = torch.atan2(a, b, out=o)
        return r * 2, o + 0


def test_out_variant(eir, tmp_path):
    """atan2.out runs atan2's kernel and writes into the out= argument, as torch does."""
    args = [_rand(5, seed=10), _rand(5, seed=11), torch.zeros(5)]
    got, want = run_eir(eir, tmp_path, Atan2Out(), args, False)
    compare(got, want, "atan2.out")


class ResizeClone(torch.nn.Module):
    def forward(self, x):
        y = x.t().clone()      # a transposed layout: resize_ reads the storage in memory order
        y.resize_(2, 3)
        z = x.clone()
        z.resize_(2)           # shrink, then grow back within the storage: torch keeps the data
        z.resize_(6)
        return y + 1, z * 2


class ResizeEmpty(torch.nn.Module):
    def forward(self, x):
        buf = torch.empty(0)
        buf.resize_(6)         # grows: a new, larger storage
        buf.copy_(x.flatten()[:6])
        return buf * 2


def test_resize(eir, tmp_path):
    """resize_ on tensors the program makes, as exported (resize_) and decomposed (resize, as_strided)."""
    check(eir, tmp_path, ResizeClone(), [_rand(3, 4)], "resize_ of clones")
    check(eir, tmp_path, ResizeEmpty(), [_rand(12)], "resize_ of empty")


class ResizeInput(torch.nn.Module):
    def forward(self, x):
        x.resize_(2, 3)
        return x + 1


def test_resize_input_refused(eir, tmp_path):
    """torch resizes the caller's tensor; eir keeps inputs at their recorded shapes and says so."""
    ep = torch.export.export(ResizeInput(), (torch.zeros(3, 2),))
    path = str(tmp_path / "p.pt2")
    torch.export.save(ep, path)
    np.save(tmp_path / "x.npy", np.arange(6, dtype=np.float32).reshape(3, 2))
    r = subprocess.run([eir, "run", path, str(tmp_path / "x.npy")], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    assert "node %resize_ (aten.resize_.default): resizes 'x' in place" in r.stderr, r.stderr
