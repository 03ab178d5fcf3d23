"""Live checks of the non-core ATen ops user programs contain, against torch 2.13.

torch.export.export keeps user-level ops that run_decompositions() would
break up: F.cross_entropy stays aten.cross_entropy_loss, torch.median stays
aten.median, nn.RMSNorm stays aten.rms_norm, nn.Dropout2d stays
aten.feature_dropout. Each program here calls such functions the way models
do (activations, losses with weights / ignore_index / label smoothing /
class-probability targets, order statistics, quantiles, histograms, search and
membership, normalization), runs in eir both as exported and after
run_decompositions(), and is compared with the module's own outputs.
Random ops in training mode are checked by their distribution.
"""
from __future__ import annotations

import re

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")
F = torch.nn.functional

from test_newops import Fn, _rand, check, compare, run_eir  # noqa: E402


def _plain(r):
    """torch.return_types (median's, mode's, ...) as plain tuples: export cannot save them."""
    return tuple(_plain(x) for x in r) if isinstance(r, tuple) else r


# ops other kernel families implement (they come with F.mse_loss & co.):
# a program that lacks only these is skipped, not failed, in a tree without them
OTHER_FAMILIES = ("aten.broadcast_tensors.default", "aten.empty_permuted.default")


def _check(eir, tmp_path, f, args, what, decompose=(False, True)):
    try:
        f(*args)
    except NotImplementedError as e:  # torch itself has no kernel for this dtype
        pytest.skip(str(e))
    m = Fn(lambda *a: _plain(f(*a)))
    ep = torch.export.export(m, tuple(args))  # one export for both forms (run_eir decomposes a copy)
    for d in decompose:
        try:
            got, want = run_eir(eir, tmp_path, m, args, d, ep)
        except AssertionError as e:
            lacking = re.findall(r"^\s+(aten\.\S+) \((?:node|\d+ nodes, first) %", str(e), re.M)
            if "cannot run yet" in str(e) and lacking and all(op in OTHER_FAMILIES for op in lacking):
                pytest.skip(f"needs {', '.join(lacking)} (another kernel family)")
            raise
        compare(got, want, f"{what} ({'decomposed' if d else 'as exported'})")


FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]

ACTIVATIONS = [
    ("selu", lambda a: F.selu(a)),
    ("celu", lambda a: F.celu(a, 0.7)),
    ("relu6", lambda a: F.relu6(a * 4)),
    ("threshold", lambda a: F.threshold(a, 0.25, -3.0)),
    ("hardshrink", lambda a: F.hardshrink(a, 0.6)),
    ("softshrink", lambda a: F.softshrink(a, 0.3)),
    ("logsigmoid", lambda a: F.logsigmoid(a * 10)),
    ("logit", lambda a: torch.logit(torch.sigmoid(a))),
    ("logit eps", lambda a: torch.logit(a.abs(), eps=0.2)),
    ("glu", lambda a: F.glu(a, 1)),
    ("glu last", lambda a: F.glu(a)),
    ("prelu scalar", lambda a: F.prelu(a, torch.tensor([0.3], dtype=a.dtype))),
    ("prelu channels", lambda a: F.prelu(a, a[0, :, 0] - 0.5)),
    ("rrelu eval", lambda a: F.rrelu(a, 0.1, 0.4)),
    ("isclose", lambda a: torch.isclose(a, a * 1.001 + 0.0001)),
    ("isclose equal_nan", lambda a: torch.isclose(a.log(), a.log() + 1e-3, rtol=0.01, atol=0.001, equal_nan=True)),
    ("inplace", lambda a: (F.threshold(a.clone(), 0.1, 2.0, inplace=True), F.celu(a.clone(), inplace=True),
                           F.selu(a.clone(), inplace=True), F.relu6(a.clone(), inplace=True), torch.sigmoid(a).logit_(0.1))),
]


@pytest.mark.parametrize("name,f", ACTIVATIONS, ids=[n for n, _ in ACTIVATIONS])
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_activation(eir, tmp_path, name, f, dtype):
    x = _rand(3, 4, 6, dtype=dtype)
    x[0, 0, :3] = torch.tensor([0.0, float("nan"), -0.0])
    _check(eir, tmp_path, f, [x], name)


def test_activation_noncontiguous_and_ints(eir, tmp_path):
    x = _rand(6, 5).t()
    _check(eir, tmp_path, lambda a: (F.glu(a, 1), F.selu(a), F.prelu(a, a[0] - 0.5)), [x], "transposed input")
    i = torch.arange(-6, 6).reshape(3, 4)
    _check(eir, tmp_path, lambda a: (F.threshold(a, 1, 7), torch.isclose(a, a // 2 * 2, atol=1), torch.logit(a.abs() * 0.1)), [i], "integers")
    b = torch.tensor([True, False, True])
    _check(eir, tmp_path, lambda a: torch.isclose(a, a.logical_not(), atol=1.0), [b], "bool isclose")


def _ties(*shape, seed=0, dtype=torch.float32):
    """Small integers with many repeats, so that ties decide the indices."""
    g = torch.Generator().manual_seed(seed)
    return torch.randint(-3, 4, shape, generator=g).to(dtype)


ORDER = [
    ("median", lambda a: torch.median(a)),
    ("median dim", lambda a: torch.median(a, 1)),
    ("median dim keepdim", lambda a: torch.median(a, -1, keepdim=True)),
    ("nanmedian", lambda a: torch.nanmedian(a)),
    ("nanmedian dim", lambda a: torch.nanmedian(a, 0)),
    ("kthvalue", lambda a: torch.kthvalue(a, 3, 1)),
    ("kthvalue last", lambda a: torch.kthvalue(a, a.shape[-1], keepdim=True)),
    ("mode", lambda a: torch.mode(a)),
    ("mode dim0", lambda a: torch.mode(a, 0, keepdim=True)),
    ("cummax", lambda a: torch.cummax(a, 1)),
    ("cummin", lambda a: torch.cummin(a, -1)),
    ("aminmax", lambda a: torch.aminmax(a)),
    ("aminmax dim", lambda a: torch.aminmax(a, dim=0, keepdim=True)),
]


@pytest.mark.parametrize("name,f", ORDER, ids=[n for n, _ in ORDER])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64, torch.int32], ids=str)
def test_order_statistics(eir, tmp_path, name, f, dtype):
    x = _ties(5, 40, dtype=dtype)
    _check(eir, tmp_path, f, [x], name)
    if dtype.is_floating_point:
        y = _rand(6, 23, dtype=dtype)
        y[1, 3] = y[4, 0] = y[4, 9] = float("nan")
        y[5, :] = float("nan")
        _check(eir, tmp_path, f, [y], name + " with NaN")
        _check(eir, tmp_path, f, [_rand(23, 6, dtype=dtype).t()], name + " transposed")


def test_order_statistics_long_lines(eir, tmp_path):
    """Lines longer than 16 elements take std::sort's / nth_element's partitioning paths: the tie indices must stay torch's."""
    x = _ties(3, 1000, seed=3)
    _check(eir, tmp_path, lambda a: (torch.mode(a), torch.median(a, 1), torch.kthvalue(a, 400), torch.nanmedian(a, 1)), [x], "long lines")
    n = torch.full((2, 100), float("nan"))
    _check(eir, tmp_path, lambda a: torch.nanmedian(a, 1), [n], "all-NaN lines")


QUANTILES = [
    ("scalar", lambda a: torch.quantile(a, 0.3)),
    ("scalar dim", lambda a: torch.quantile(a, 0.65, dim=1, keepdim=True)),
    ("tensor q", lambda a: torch.quantile(a, torch.tensor([0.0, 0.25, 0.5, 1.0], dtype=a.dtype), dim=0)),
    ("nanquantile", lambda a: torch.nanquantile(a, 0.4, dim=1)),
    ("nanquantile tensor q", lambda a: torch.nanquantile(a, torch.tensor([0.1, 0.9], dtype=a.dtype), keepdim=True)),
]


@pytest.mark.parametrize("name,f", QUANTILES, ids=[n for n, _ in QUANTILES])
@pytest.mark.parametrize("interp", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
def test_quantile(eir, tmp_path, name, f, interp, dtype):
    x = _rand(7, 9, dtype=dtype)
    x[2, 4] = float("nan")
    g = lambda a: f.__call__(a) if interp == "linear" else _with_interp(f, a, interp)
    _check(eir, tmp_path, g, [x], f"quantile {name} {interp}")


def _with_interp(f, a, interp):
    real = torch.quantile, torch.nanquantile
    try:
        torch.quantile = lambda *p, **k: real[0](*p, **k, interpolation=interp)
        torch.nanquantile = lambda *p, **k: real[1](*p, **k, interpolation=interp)
        return f(a)
    finally:
        torch.quantile, torch.nanquantile = real


REDUCTIONS = [
    ("var unbiased=False", lambda a: torch.var(a, unbiased=False)),
    ("std unbiased=False", lambda a: torch.std(a, unbiased=False)),
    ("var_mean", lambda a: torch.var_mean(a)),
    ("var_mean dim", lambda a: torch.var_mean(a, 1, keepdim=True)),
    ("var_mean unbiased", lambda a: torch.var_mean(a, unbiased=False)),
    ("std_mean", lambda a: torch.std_mean(a)),
    ("std_mean dim", lambda a: torch.std_mean(a, [0, 2], False)),
    ("std_mean correction", lambda a: torch.std_mean(a, dim=1, correction=2)),
    ("nansum", lambda a: torch.nansum(a.log())),
    ("nansum dim", lambda a: torch.nansum(a.log(), (0, 2), keepdim=True)),
    ("nanmean", lambda a: torch.nanmean(a.log())),
    ("nanmean dim", lambda a: torch.nanmean(a.log(), 1)),
    ("logcumsumexp", lambda a: torch.logcumsumexp(a * 20, 1)),
    ("safe_softmax", lambda a: torch.ops.aten._safe_softmax(a.masked_fill(a > 0.5, float("-inf")), -1)),
]


@pytest.mark.parametrize("name,f", REDUCTIONS, ids=[n for n, _ in REDUCTIONS])
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_reduction(eir, tmp_path, name, f, dtype):
    x = _rand(4, 5, 6, dtype=dtype)
    x[1] = float("-inf") if "softmax" in name else x[1]
    _check(eir, tmp_path, f, [x], name)


def test_nansum_ints_and_empty(eir, tmp_path):
    _check(eir, tmp_path, lambda a: (torch.nansum(a), torch.nansum(a, 1), torch.aminmax(a, dim=1)), [torch.arange(12).reshape(3, 4) - 5], "int nansum")
    _check(eir, tmp_path, lambda a: (torch.nanmean(a, 0), torch.nansum(a, 0)), [torch.zeros(0, 3)], "empty nanmean")


HISTOGRAMS = [
    ("histc", lambda a: torch.histc(a, 7)),
    ("histc range", lambda a: torch.histc(a, 5, min=-1, max=1.5)),
    ("histogram", lambda a: torch.histogram(a, 6)),
    ("histogram range density", lambda a: torch.histogram(a, 4, range=(-2.0, 1.0), density=True)),
    ("histogram weight", lambda a: torch.histogram(a, 5, weight=a.abs())),
    ("histogram bins tensor", lambda a: torch.histogram(a, a[0, :5].sort().values, weight=a.exp(), density=True)),
]


@pytest.mark.parametrize("name,f", HISTOGRAMS, ids=[n for n, _ in HISTOGRAMS])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
def test_histogram(eir, tmp_path, name, f, dtype):
    _check(eir, tmp_path, f, [_rand(9, 13, dtype=dtype)], name)


HISTOGRAMDD = [
    ("counts", lambda a, w: torch.histogramdd(a, [3, 4])),
    ("one count range weight", lambda a, w: torch.histogramdd(a, 3, range=[-1.0, 1.0, -2.0, 0.5], weight=w)),
    ("density", lambda a, w: torch.histogramdd(a, [2, 5], weight=w, density=True)),
    ("edge tensors", lambda a, w: torch.histogramdd(a, [a[:4, 0].sort().values, a[:3, 1].sort().values], weight=w)),
]


@pytest.mark.parametrize("name,f", HISTOGRAMDD, ids=[n for n, _ in HISTOGRAMDD])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
def test_histogramdd(eir, tmp_path, name, f, dtype):
    _check(eir, tmp_path, f, [_rand(30, 2, dtype=dtype), _rand(30, seed=3, dtype=dtype).abs()], f"histogramdd {name}")
    _check(eir, tmp_path, lambda a: torch.histogramdd(a, [2, 2, 3]), [_rand(4, 5, 3, dtype=dtype)], "histogramdd 3-d samples")


def test_histc_reduced(eir, tmp_path):
    for dt in (torch.float16, torch.bfloat16):
        _check(eir, tmp_path, lambda a: torch.histc(a, 10), [_rand(50, dtype=dt)], f"histc {dt}")


def test_bincount(eir, tmp_path):
    g = torch.Generator().manual_seed(5)
    x = torch.randint(0, 9, (30,), generator=g)
    _check(eir, tmp_path, lambda a: torch.bincount(a), [x], "bincount")
    _check(eir, tmp_path, lambda a, w: torch.bincount(a, w, minlength=12), [x, torch.rand(30, generator=g)], "bincount weights")
    _check(eir, tmp_path, lambda a, w: torch.bincount(a, w), [x.to(torch.int32), torch.rand(30, generator=g, dtype=torch.float64)], "bincount double")
    # the bin count follows the data from run to run (an unbacked size)
    ep = torch.export.export(Fn(lambda a: torch.bincount(a) * 2), (x,), dynamic_shapes=(({0: torch.export.Dim("n")},),))
    path = str(tmp_path / "b.pt2")
    torch.export.save(ep, path)
    for data in (torch.tensor([0, 0, 3]), torch.tensor([7, 1, 1, 1, 20])):
        np.save(tmp_path / "i.npy", data.numpy())
        import subprocess
        r = subprocess.run([eir, "run", path, str(tmp_path / "i.npy"), "--out", str(tmp_path / "o")], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        np.testing.assert_array_equal(np.load(tmp_path / "o" / "output_0.npy"), (torch.bincount(data) * 2).numpy())


SEARCH = [
    ("searchsorted", lambda s, v: torch.searchsorted(s, v)),
    ("searchsorted right", lambda s, v: torch.searchsorted(s, v, right=True)),
    ("searchsorted side int32", lambda s, v: torch.searchsorted(s, v, side="right", out_int32=True)),
    ("searchsorted sorter", lambda s, v: torch.searchsorted(s.flip(0), v, sorter=torch.arange(s.shape[0] - 1, -1, -1))),
    ("bucketize", lambda s, v: torch.bucketize(v, s)),
    ("bucketize right", lambda s, v: torch.bucketize(v, s, right=True, out_int32=True)),
    ("bucketize scalar", lambda s, v: torch.bucketize(0.5, s)),
    ("isin", lambda s, v: torch.isin(v, s)),
    ("isin invert", lambda s, v: torch.isin(s, v, invert=True)),
    ("isin scalar", lambda s, v: (torch.isin(v, 0.0), torch.isin(2.0, s))),
]


@pytest.mark.parametrize("name,f", SEARCH, ids=[n for n, _ in SEARCH])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.float16], ids=str)
def test_search(eir, tmp_path, name, f, dtype):
    s = torch.tensor([-3, -1, 0, 0, 0, 2, 2, 5]).to(dtype)
    v = _ties(4, 5, seed=2).to(dtype) * (1.5 if dtype.is_floating_point else 1)
    _check(eir, tmp_path, f, [s, v], name)


def test_search_nd_and_promotion(eir, tmp_path):
    s = torch.tensor([[0.0, 1.0, 2.0], [-5.0, 0.0, 5.0]])
    v = torch.tensor([[0.5, 2.0, -1.0, 3.0], [0.0, -5.0, 6.0, 1.0]])
    _check(eir, tmp_path, lambda a, b: (torch.searchsorted(a, b), torch.searchsorted(a, b, right=True)), [s, v], "2-d boundaries")
    _check(eir, tmp_path, lambda a, b: (torch.searchsorted(a, b), torch.isin(b, a)), [torch.tensor([0, 2, 4, 6]), torch.tensor([1.5, 2.0, 6.5])], "int boundaries, float values")


NORMS = [
    ("rms_norm", lambda a, w: F.rms_norm(a, (a.shape[-1],))),
    ("rms_norm weight eps", lambda a, w: F.rms_norm(a, (a.shape[-1],), w, 1e-3)),
    ("rms_norm 2 dims", lambda a, w: F.rms_norm(a, a.shape[-2:])),
    ("instance_norm", lambda a, w: F.instance_norm(a)),
    ("instance_norm affine", lambda a, w: F.instance_norm(a, weight=w, bias=w * 0.5)),
    ("instance_norm running", lambda a, w: F.instance_norm(a, w.abs() * 0.1, w.abs() + 0.5, use_input_stats=False)),
]


@pytest.mark.parametrize("name,f", NORMS, ids=[n for n, _ in NORMS])
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_normalization(eir, tmp_path, name, f, dtype):
    if "instance" in name and dtype == torch.float16:
        pytest.skip("torch has no float16 batch norm on the CPU")
    x = _rand(3, 4, 5, dtype=dtype)
    w = _rand(4, seed=1, dtype=dtype) if "instance" in name else _rand(5, seed=1, dtype=dtype)
    _check(eir, tmp_path, f, [x, w], name)


def test_normalization_modules(eir, tmp_path):
    check(eir, tmp_path, torch.nn.RMSNorm([6]), [_rand(2, 3, 6)], "nn.RMSNorm")
    check(eir, tmp_path, torch.nn.InstanceNorm2d(3, affine=True), [_rand(2, 3, 4, 5)], "nn.InstanceNorm2d")
    m = torch.nn.InstanceNorm1d(3, track_running_stats=True).eval()
    m.running_mean.uniform_(-1, 1)
    check(eir, tmp_path, m, [_rand(2, 3, 7)], "nn.InstanceNorm1d eval")
    check(eir, tmp_path, Fn(lambda a: F.instance_norm(a.transpose(0, 1))), [_rand(3, 2, 5)], "instance_norm non-contiguous")


class TrainIN(torch.nn.Module):
    """InstanceNorm with running statistics in training mode: instance_norm updates them in place."""

    def __init__(self):
        super().__init__()
        self.n = torch.nn.InstanceNorm1d(3, affine=True, track_running_stats=True, momentum=0.3).train()

    def forward(self, x):
        return self.n(x), self.n.running_mean * 1, self.n.running_var * 1


@pytest.mark.parametrize("decompose", [False, True])
def test_instance_norm_running_stats(eir, tmp_path, decompose):
    got, want = run_eir(eir, tmp_path, TrainIN(), [_rand(2, 3, 5)], decompose)
    compare(got, want, "InstanceNorm1d training with running stats")


class BNUpdate(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("rm", torch.zeros(3))
        self.register_buffer("rv", torch.ones(3))

    def forward(self, x):
        w = torch.ones(3) * 1.5
        y = torch.ops.aten._batch_norm_with_update(x, w, w - 2, self.rm, self.rv, 0.2, 1e-5)
        return y[0], y[1], y[2], self.rm * 1, self.rv * 1


def test_batch_norm_with_update(eir, tmp_path):
    got, want = run_eir(eir, tmp_path, BNUpdate(), [_rand(4, 3, 5)], False)
    compare(got, want, "_batch_norm_with_update")


def _run_random(eir, tmp_path, f, x, decompose):
    ep = torch.export.export(Fn(lambda *a: _plain(f(*a))), (x,))
    if decompose:
        ep = ep.run_decompositions()
    path = str(tmp_path / "r.pt2")
    torch.export.save(ep, path)
    np.save(tmp_path / "x.npy", x.numpy())
    import subprocess
    r = subprocess.run([eir, "run", path, str(tmp_path / "x.npy"), "--out", str(tmp_path / "ro")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return np.load(tmp_path / "ro" / "output_0.npy")


@pytest.mark.parametrize("decompose", [False, True])
def test_random_training(eir, tmp_path, decompose):
    x = torch.rand(8, 10, 25) + 0.5
    p = 0.3
    y = _run_random(eir, tmp_path, lambda a: F.feature_alpha_dropout(a, p, True), x, decompose)
    a = 1 / np.sqrt((1.7580993408473766 ** 2 * p + 1) * (1 - p))
    b = 1.7580993408473766 * a * p
    drop = -1.7580993408473766 * a + b
    kept = np.isclose(y, x.numpy() * a + b, rtol=1e-5)
    assert np.all(kept | np.isclose(y, drop)), "feature_alpha_dropout: values outside {x*a+b, b'}"
    assert np.all(kept.all(2) | (~kept).all(2)), "feature_alpha_dropout: a channel is dropped as a whole"
    assert abs(kept.mean() - (1 - p)) < 0.15
    if not decompose:  # decomposed, alpha_dropout needs empty_permuted
        y = _run_random(eir, tmp_path, lambda a: F.alpha_dropout(a, p, True), x, decompose)
        kept = np.isclose(y, x.numpy() * a + b, rtol=1e-5)
        assert np.all(kept | np.isclose(y, drop)) and abs(kept.mean() - (1 - p)) < 0.05
    y = _run_random(eir, tmp_path, lambda a: F.dropout2d(a, p, True), x, decompose)
    kept = np.isclose(y, x.numpy() / (1 - p), rtol=1e-6)
    assert np.all(kept | (y == 0)) and np.all(kept.all(2) | (y == 0).all(2)) and abs(kept.mean() - (1 - p)) < 0.15
    z = -x
    y = _run_random(eir, tmp_path, lambda a: F.rrelu(a, 0.1, 0.3, training=True), z, decompose)
    slope = y / z.numpy()
    assert slope.min() >= 0.1 - 1e-6 and slope.max() <= 0.3 + 1e-6 and abs(slope.mean() - 0.2) < 0.01 and slope.std() > 0.05


@pytest.mark.parametrize("decompose", [False, True])
def test_dropout_and_attention_dropout_in_training(eir, tmp_path, decompose):
    """F.dropout(training=True) (aten.dropout as exported, native_dropout decomposed) and
    scaled_dot_product_attention with dropout_p: kept values scaled by 1 / (1 - p), the
    kept share near 1 - p, attention rows still averaging to 1 in expectation."""
    x = torch.rand(8, 10, 25) + 0.5
    p = 0.3
    y = _run_random(eir, tmp_path, lambda a: F.dropout(a, p, True), x, decompose)
    kept = np.isclose(y, x.numpy() / (1 - p), rtol=1e-6)
    assert np.all(kept | (y == 0)) and abs(kept.mean() - (1 - p)) < 0.05
    assert np.array_equal(_run_random(eir, tmp_path, lambda a: F.dropout(a, 1.0, True), x, decompose), np.zeros_like(x.numpy()))
    # uniform attention over 64 keys of value 1: each output is (kept weights) / (1 - p) * 1/64 summed
    q = torch.zeros(2, 64, 64)
    y = _run_random(eir, tmp_path, lambda a: F.scaled_dot_product_attention(a, a, torch.ones(2, 64, 8) + a[..., :8], dropout_p=0.25),
                    q, decompose)
    n_kept = np.round(y * 64 * 0.75).astype(int)
    assert np.allclose(y, n_kept / (64 * 0.75), rtol=1e-5), "attention dropout: outputs are not sums of kept weights"
    assert abs(y.mean() - 1) < 0.02 and y.std() > 0.02


def test_random_eval_is_identity(eir, tmp_path):
    x = _rand(4, 6, 3)
    _check(eir, tmp_path, lambda a: (F.alpha_dropout(a, 0.4), F.feature_alpha_dropout(a, 0.4), F.dropout2d(a, 0.4, training=False),
                                       F.rrelu(a), F.alpha_dropout(a, 0.0, True), F.dropout3d(a.unsqueeze(0), 1.0, True)), [x], "eval dropouts")


def _sig(*shape, seed=0, dtype=torch.float32):
    return torch.sigmoid(_rand(*shape, seed=seed)).to(dtype)


LOSSES = [
    ("mse", lambda x, y, t: F.mse_loss(x, y)),
    ("mse broadcast sum", lambda x, y, t: F.mse_loss(x, y[:1], reduction="sum")),
    ("l1 none", lambda x, y, t: F.l1_loss(x, y, reduction="none")),
    ("smooth_l1", lambda x, y, t: F.smooth_l1_loss(x, y, beta=0.5)),
    ("smooth_l1 beta 0", lambda x, y, t: F.smooth_l1_loss(x, y, reduction="sum", beta=0.0)),
    ("huber", lambda x, y, t: F.huber_loss(x, y, reduction="none", delta=0.7)),
    ("bce", lambda x, y, t: F.binary_cross_entropy(torch.sigmoid(x), torch.sigmoid(y))),
    ("bce weight none", lambda x, y, t: F.binary_cross_entropy(torch.sigmoid(x), (y > 0).to(x.dtype), weight=y.abs(), reduction="none")),
    ("bce clamp", lambda x, y, t: F.binary_cross_entropy((x > 0).to(x.dtype), torch.sigmoid(y), reduction="sum")),
    ("bce logits", lambda x, y, t: F.binary_cross_entropy_with_logits(x * 3, torch.sigmoid(y))),
    ("bce logits weights", lambda x, y, t: F.binary_cross_entropy_with_logits(x, torch.sigmoid(y), weight=y[0].abs(), pos_weight=x[0].abs() + 0.5, reduction="none")),
    ("kl_div", lambda x, y, t: F.kl_div(F.log_softmax(x, 1), F.softmax(y, 1), reduction="batchmean")),
    ("kl_div log_target", lambda x, y, t: F.kl_div(F.log_softmax(x, 1), F.log_softmax(y, 1), reduction="none", log_target=True)),
    ("kl_div zeros", lambda x, y, t: F.kl_div(x, F.relu(y), reduction="sum")),
    ("poisson", lambda x, y, t: F.poisson_nll_loss(x, y.abs())),
    ("poisson full", lambda x, y, t: F.poisson_nll_loss(x.abs() + 0.1, y.abs() * 4, log_input=False, full=True, reduction="none")),
    ("margin_ranking", lambda x, y, t: F.margin_ranking_loss(x, y, torch.sign(x * y), margin=0.2)),
    ("hinge_embedding", lambda x, y, t: F.hinge_embedding_loss(x, torch.sign(y), margin=0.5, reduction="none")),
    ("soft_margin", lambda x, y, t: F.soft_margin_loss(x, torch.sign(y))),
    ("cosine_embedding", lambda x, y, t: F.cosine_embedding_loss(x, y, torch.sign(x[:, 0]), margin=0.1)),
    ("cosine_embedding 1-d", lambda x, y, t: F.cosine_embedding_loss(x[0], y[0], torch.tensor(-1), reduction="sum")),
    ("triplet", lambda x, y, t: F.triplet_margin_loss(x, y, x * 0.5 + y)),
    ("triplet swap p1", lambda x, y, t: F.triplet_margin_loss(x, y, -x, margin=2.0, p=1, swap=True, reduction="none")),
    ("multi_margin", lambda x, y, t: F.multi_margin_loss(x, t)),
    ("multi_margin p2 weight", lambda x, y, t: F.multi_margin_loss(x, t, p=2, margin=0.7, weight=y[0].abs(), reduction="none")),
    ("multilabel_margin", lambda x, y, t: F.multilabel_margin_loss(x, torch.stack([t, t.flip(0), t * 0 - 1, t, t]).t().contiguous())),
    ("multilabel_margin none", lambda x, y, t: F.multilabel_margin_loss(x, torch.stack([t.flip(0), t * 0 - 1, t, t, t]).t().contiguous(), reduction="none")),
    ("mse aten", lambda x, y, t: (torch.ops.aten.mse_loss(x, y), torch.ops.aten.mse_loss(x, y, 0), torch.ops.aten.mse_loss(x, y, 2))),
    ("l1 aten", lambda x, y, t: (torch.ops.aten.l1_loss(x, y), torch.ops.aten.l1_loss(x, y, 0))),
    ("smooth_l1 huber aten", lambda x, y, t: (torch.ops.aten.smooth_l1_loss(x, y, 1, 0.6), torch.ops.aten.smooth_l1_loss(x, y, 0, 0.0),
                                               torch.ops.aten.huber_loss(x, y, 2, 0.4), torch.ops.aten.huber_loss(x, y, 0, 2.0))),
    ("hinge aten", lambda x, y, t: (torch.ops.aten.hinge_embedding_loss(x, torch.sign(y), 0.5, 0), torch.ops.aten.hinge_embedding_loss(x, torch.sign(y), 1.0, 1))),
    ("nll", lambda x, y, t: F.nll_loss(F.log_softmax(x, 1), t)),
    ("nll weight ignore", lambda x, y, t: F.nll_loss(F.log_softmax(x, 1), t, weight=y[0].abs(), ignore_index=2)),
    ("nll none", lambda x, y, t: F.nll_loss(x, t, reduction="none", ignore_index=1)),
    ("cross_entropy", lambda x, y, t: F.cross_entropy(x, t)),
    ("cross_entropy weight sum", lambda x, y, t: F.cross_entropy(x, t, weight=y[0].abs(), reduction="sum", ignore_index=0)),
    ("cross_entropy smoothing", lambda x, y, t: F.cross_entropy(x, t, label_smoothing=0.2, ignore_index=3)),
    ("cross_entropy smoothing weight", lambda x, y, t: F.cross_entropy(x, t, weight=y[0].abs(), label_smoothing=0.1)),
    ("cross_entropy smoothing none", lambda x, y, t: F.cross_entropy(x, t, label_smoothing=0.3, reduction="none", ignore_index=1)),
    ("cross_entropy probs", lambda x, y, t: F.cross_entropy(x, F.softmax(y, 1))),
    ("cross_entropy probs smoothing weight", lambda x, y, t: F.cross_entropy(x, F.softmax(y, 1), weight=y[1].abs(), label_smoothing=0.25, reduction="none")),
    ("cross_entropy 1-d", lambda x, y, t: F.cross_entropy(x[0], t[0])),
]


@pytest.mark.parametrize("name,f", LOSSES, ids=[n for n, _ in LOSSES])
@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_loss(eir, tmp_path, name, f, dtype):
    x, y = _rand(6, 5, dtype=dtype), _rand(6, 5, seed=1, dtype=dtype)
    t = torch.tensor([0, 4, 2, 1, 3, 2])
    # torch's own decomposition of multilabel_margin_loss counts the target
    # slots after a -1 as class 0 (its decomposed program disagrees with its
    # kernel; eir runs that program as torch does): as exported only
    _check(eir, tmp_path, f, [x, y, t], name, decompose=(False,) if "multilabel" in name else (False, True))


def test_loss_spatial_and_modules(eir, tmp_path):
    x = _rand(2, 4, 3, 5)
    t = torch.randint(0, 4, (2, 3, 5), generator=torch.Generator().manual_seed(3))
    check(eir, tmp_path, torch.nn.CrossEntropyLoss(weight=torch.rand(4), ignore_index=2), [x, t], "CrossEntropyLoss 2-d")
    check(eir, tmp_path, torch.nn.CrossEntropyLoss(reduction="none", label_smoothing=0.1), [x, t], "CrossEntropyLoss 2-d none smoothing")
    check(eir, tmp_path, torch.nn.NLLLoss(reduction="sum"), [x.log_softmax(1), t], "NLLLoss 2-d")
    x3 = _rand(2, 4, 7)
    t3 = torch.randint(0, 4, (2, 7), generator=torch.Generator().manual_seed(4))
    check(eir, tmp_path, torch.nn.CrossEntropyLoss(), [x3, t3], "CrossEntropyLoss 1-d spatial")
    check(eir, tmp_path, torch.nn.NLLLoss(reduction="none"), [x3, t3], "NLLLoss 1-d spatial none")
    check(eir, tmp_path, torch.nn.CrossEntropyLoss(), [_rand(300, 7), torch.randint(0, 7, (300,))], "CrossEntropyLoss long batch (cascade levels)")
    check(eir, tmp_path, torch.nn.BCEWithLogitsLoss(pos_weight=torch.rand(5)), [_rand(3, 5), torch.rand(3, 5)], "BCEWithLogitsLoss")
    _check(eir, tmp_path, torch.nn.HuberLoss(), [_rand(3, 5), _rand(3, 5, seed=2)], "HuberLoss")
    _check(eir, tmp_path, torch.nn.TripletMarginLoss(), [_rand(3, 5), _rand(3, 5, seed=2), _rand(3, 5, seed=3)], "TripletMarginLoss")


def test_loss_errors(eir, tmp_path):
    """Invalid targets fail at run time with torch's message."""
    import subprocess
    ep = torch.export.export(Fn(lambda x, t: F.cross_entropy(x, t)), (_rand(3, 4), torch.tensor([0, 1, 2])))
    path = str(tmp_path / "ce.pt2")
    torch.export.save(ep, path)
    np.save(tmp_path / "x.npy", _rand(3, 4).numpy())
    np.save(tmp_path / "t.npy", np.array([0, 7, 1]))
    r = subprocess.run([eir, "run", path, str(tmp_path / "x.npy"), str(tmp_path / "t.npy")], capture_output=True, text=True)
    assert r.returncode == 1 and "Target 7 is out of bounds." in r.stderr, r.stderr
    ep = torch.export.export(Fn(lambda x, t: F.binary_cross_entropy(x, t)), (torch.rand(3), torch.rand(3)))
    torch.export.save(ep, path)
    np.save(tmp_path / "x.npy", np.array([0.5, 1.5, 0.2], dtype=np.float32))
    np.save(tmp_path / "t.npy", np.array([0.5, 0.5, 0.2], dtype=np.float32))
    r = subprocess.run([eir, "run", path, str(tmp_path / "x.npy"), str(tmp_path / "t.npy")], capture_output=True, text=True)
    assert r.returncode == 1 and "all elements of input should be between 0 and 1" in r.stderr, r.stderr
