"""Live checks of the special-function, pointwise and random ops that programs
keep when they are exported without decompositions, against torch 2.13.

Small programs call what users call — torch.special.* (Bessel, Airy, zeta,
the orthogonal polynomials, erfcx, ndtri, ...), torch.lgamma / digamma /
polygamma / mvlgamma / igamma, torch.xlogy, hypot, logaddexp, copysign,
gcd, ldexp, float_power, frexp, sgn, sinc, angle, torch.complex / polar,
addcmul / addcdiv, in-place forms (x.addcmul_, ...), Scalar overloads
(torch.xlogy(x, 2.0), chebyshev_polynomial_t(x, 3)) — and are run by
`eir run` both as exported (aten.special_bessel_j0, aten.xlogy.Scalar_Other,
...) and after run_decompositions(), compared with the module's outputs.
Random ops (uniform_, normal overloads, exponential_, cauchy_, geometric_,
log_normal_, random_, bernoulli_, poisson, multinomial) draw from eir's own
generator: their outputs are checked by shape, dtype, range and moments.
"""
from __future__ import annotations

import copy
import math
import subprocess

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")
S = torch.special

from conftest import to_npy as _npy  # noqa: E402
from tolerances import tolerance  # noqa: E402




class Fn(torch.nn.Module):
    def __init__(self, fs):
        super().__init__()
        self.fs = fs

    def forward(self, *args):
        return tuple(f(*args) for f in self.fs)


def export_run(eir, tmp_path, module, args, decompose):
    """Export module(*args), run it in eir; (completed process, output dir)."""
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
    return r, out


def check_ops(eir, tmp_path, named, args, what, modes=(False, True)):
    """named: [(name, fn)]; every fn(*args) as exported and decomposed vs torch."""
    module = Fn([f for _, f in named])
    want = [f(*[a.clone() for a in args]) for _, f in named]
    for decompose in modes:
        r, out = export_run(eir, tmp_path, copy.deepcopy(module), args, decompose)
        assert r.returncode == 0, f"{what} ({'decomposed' if decompose else 'as exported'}): {r.stderr}"
        leaves = [(n, w) for (n, ws) in zip([n for n, _ in named], want)
                  for w in (ws if isinstance(ws, tuple) else (ws,))]
        for i, (name, w) in enumerate(leaves):
            g = np.load(out / f"output_{i}.npy")
            wn = _npy(w)
            where = f"{what}: {name} ({'decomposed' if decompose else 'as exported'}, {w.dtype})"
            assert g.shape == wn.shape, f"{where}: shape {g.shape}, torch {wn.shape}"
            if w.dtype.is_floating_point or w.dtype.is_complex:
                rtol, atol = tolerance(w.dtype)
                np.testing.assert_allclose(g, wn, rtol=rtol, atol=atol, err_msg=where)
            else:
                np.testing.assert_array_equal(g, wn, err_msg=where)


def _gen(seed):
    return torch.Generator().manual_seed(seed)


def _x(dtype, lo=-8.0, hi=8.0, n=257, seed=0, specials=True):
    """n values in [lo, hi) plus 0, +-inf and NaN, in dtype"""
    x = torch.rand(n, generator=_gen(seed), dtype=torch.float64) * (hi - lo) + lo
    if specials:
        x = torch.cat([x, torch.tensor([0.0, -0.0, 1.0, -1.0, float("inf"), -float("inf"), float("nan")])])
    return x.to(dtype)


FLOATS = [torch.float32, torch.float64]
REDUCED = [torch.float16, torch.bfloat16]

# ---- unary special functions ----

SPECIAL_F64_ONLY = [  # torch dispatches these for float and double only
    ("airy_ai", S.airy_ai), ("bessel_j0", S.bessel_j0), ("bessel_j1", S.bessel_j1),
    ("bessel_y0", S.bessel_y0), ("bessel_y1", S.bessel_y1),
    ("modified_bessel_i0", S.modified_bessel_i0), ("modified_bessel_i1", S.modified_bessel_i1),
    ("modified_bessel_k0", S.modified_bessel_k0), ("modified_bessel_k1", S.modified_bessel_k1),
    ("scaled_modified_bessel_k0", S.scaled_modified_bessel_k0), ("scaled_modified_bessel_k1", S.scaled_modified_bessel_k1),
    ("spherical_bessel_j0", S.spherical_bessel_j0), ("erfcx", S.erfcx), ("log_ndtr", S.log_ndtr),
    ("ndtri", lambda a: S.ndtri(torch.sigmoid(a))),
]
SPECIAL_ALL = [  # float, double, float16, bfloat16 (and integers, promoted)
    ("i0", torch.i0), ("special.i0", S.i0), ("i0e", S.i0e), ("i1", S.i1), ("i1e", S.i1e),
    ("digamma", torch.digamma), ("psi", S.psi), ("lgamma", torch.lgamma), ("gammaln", S.gammaln),
    ("polygamma1", lambda a: torch.polygamma(1, a)), ("polygamma3", lambda a: torch.polygamma(3, a)),
    ("special.polygamma2", lambda a: S.polygamma(2, a)), ("entr", S.entr), ("ndtr", S.ndtr),
    ("erfinv", lambda a: torch.erfinv(torch.tanh(a))), ("special.erfinv", lambda a: S.erfinv(torch.tanh(a))),
]


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_special_unary(eir, tmp_path, dtype):
    check_ops(eir, tmp_path, SPECIAL_F64_ONLY + SPECIAL_ALL, [_x(dtype)], "special unary")


@pytest.mark.parametrize("dtype", REDUCED, ids=str)
def test_special_unary_reduced(eir, tmp_path, dtype):
    check_ops(eir, tmp_path, SPECIAL_ALL, [_x(dtype)], "special unary")


def test_special_unary_integers(eir, tmp_path):
    x = torch.arange(-6, 20)
    ops = [(n, f) for n, f in SPECIAL_F64_ONLY + SPECIAL_ALL if n not in ("ndtri", "erfinv", "special.erfinv")]
    check_ops(eir, tmp_path, ops, [x], "special unary of int64")


@pytest.mark.parametrize("dtype", FLOATS + REDUCED, ids=str)
def test_gamma_family(eir, tmp_path, dtype):
    x = _x(dtype, 1.6, 12.0, specials=False)
    a, b = _x(dtype, 0.01, 30.0, seed=1), _x(dtype, 0.01, 30.0, seed=2)
    check_ops(eir, tmp_path, [
        ("mvlgamma2", lambda x, a, b: torch.mvlgamma(x, 2)), ("multigammaln4", lambda x, a, b: S.multigammaln(x, 4)),
        ("igamma", lambda x, a, b: torch.igamma(a, b)), ("igammac", lambda x, a, b: torch.igammac(a, b)),
        ("gammainc", lambda x, a, b: S.gammainc(a, b)), ("gammaincc", lambda x, a, b: S.gammaincc(a, b)),
    ], [x, a, b], "gamma family")


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_zeta_and_polynomials(eir, tmp_path, dtype):
    x = _x(dtype, -1.3, 1.3, seed=3)
    n = torch.randint(-1, 14, x.shape, generator=_gen(4)).to(dtype)
    q = _x(dtype, 0.5, 6.0, seed=5)
    polys = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
             "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
             "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
             "laguerre_polynomial_l", "legendre_polynomial_p"]
    ops = [(p, (lambda f: lambda x, n, q: f(x, n))(getattr(S, p))) for p in polys]
    ops += [(p + " n=3", (lambda f: lambda x, n, q: f(x, 3))(getattr(S, p))) for p in polys[:4]]
    ops += [(p + " x=0.25", (lambda f: lambda x, n, q: f(0.25, n))(getattr(S, p))) for p in polys[8:]]
    ops += [("zeta", lambda x, n, q: S.zeta(x.abs() + 1, q)), ("zeta x=2.5", lambda x, n, q: S.zeta(2.5, q)),
            ("zeta q=3", lambda x, n, q: S.zeta(x.abs() + 1, 3.0))]
    check_ops(eir, tmp_path, ops, [x, n, q], "zeta and polynomials")


def test_polynomial_integer_degrees(eir, tmp_path):
    x = torch.linspace(-1.2, 1.2, 41)
    n = torch.arange(0, 41) % 12
    check_ops(eir, tmp_path, [("legendre", S.legendre_polynomial_p), ("hermite_h", S.hermite_polynomial_h),
                              ("chebyshev_t", S.chebyshev_polynomial_t)], [x, n], "polynomials with int64 degrees")


# ---- other pointwise ops ----

BINARY = [
    ("copysign", torch.copysign), ("fmax", torch.fmax), ("fmin", torch.fmin), ("hypot", torch.hypot),
    ("logaddexp", torch.logaddexp), ("logaddexp2", torch.logaddexp2), ("xlogy", torch.xlogy),
    ("special.xlogy", S.xlogy), ("xlog1py", S.xlog1py), ("nextafter", torch.nextafter),
    ("heaviside", torch.heaviside), ("ldexp", lambda a, b: torch.ldexp(a, b.round())),
    ("float_power", lambda a, b: torch.float_power(a.abs(), b / 4)),
    ("addcmul", lambda a, b: torch.addcmul(a, b, a, value=0.5)),
    ("addcdiv", lambda a, b: torch.addcdiv(a, b, a + 20, value=-2)),
    ("copysign scalar", lambda a, b: torch.copysign(a, -0.0)),
    ("float_power scalar exp", lambda a, b: torch.float_power(a, 2)),
    ("float_power scalar base", lambda a, b: torch.float_power(1.5, b)),
]
UNARY = [
    ("sgn", torch.sgn), ("signbit", torch.signbit), ("sinc", torch.sinc), ("special.sinc", S.sinc),
    ("deg2rad", torch.deg2rad), ("rad2deg", torch.rad2deg), ("angle", torch.angle),
    ("conj_physical", torch.conj_physical), ("isposinf", torch.isposinf), ("isneginf", torch.isneginf),
    ("isreal", torch.isreal), ("frexp", lambda a: tuple(torch.frexp(a))), ("expit", S.expit), ("special.erf", S.erf),
    ("special.erfc", S.erfc), ("special.exp2", S.exp2), ("special.expm1", S.expm1), ("special.log1p", S.log1p),
    ("special.round", lambda a: S.round(a, decimals=1)),
]


@pytest.mark.parametrize("dtype", FLOATS + REDUCED, ids=str)
def test_pointwise(eir, tmp_path, dtype):
    a, b = _x(dtype, seed=6), _x(dtype, seed=7)
    check_ops(eir, tmp_path, [(n, (lambda f: lambda a, b: f(a, b))(f)) for n, f in BINARY] +
              [(n, (lambda f: lambda a, b: f(a))(f)) for n, f in UNARY], [a, b], "pointwise")


SCALAR_OVERLOADS = [
    ("xlogy.Scalar_Other", lambda a, b: torch.xlogy(a, 2.5)), ("xlogy.Scalar_Self", lambda a, b: torch.xlogy(3.0, b)),
    ("special_xlog1py.other_scalar", lambda a, b: S.xlog1py(a, 2.5)),
    ("special_xlog1py.self_scalar", lambda a, b: S.xlog1py(3.0, b)),
    ("special_xlogy.other_scalar", lambda a, b: S.xlogy(a, 0.5)), ("special_xlogy.self_scalar", lambda a, b: S.xlogy(0.5, b)),
    ("xlogy_.Scalar_Other", lambda a, b: a.float().clone().xlogy_(3.0)),
]


@pytest.mark.parametrize("dtype", FLOATS + REDUCED + [torch.int64], ids=str)
def test_scalar_overloads(eir, tmp_path, dtype):
    # as exported only: their decompositions call prims.scalar_tensor, which eir's op table (ATen) lacks
    a, b = (_x(dtype, seed=19), _x(dtype, seed=20)) if dtype.is_floating_point else (torch.arange(-5, 20), torch.arange(20, -5, -1))
    check_ops(eir, tmp_path, SCALAR_OVERLOADS, [a, b], "Scalar overloads", modes=(False,))


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.uint8], ids=str)
def test_pointwise_integers(eir, tmp_path, dtype):
    g = _gen(8)
    lo = 0 if dtype == torch.uint8 else -30
    a = torch.randint(lo, 30, (300,), generator=g, dtype=dtype)
    b = torch.randint(lo, 30, (300,), generator=g, dtype=dtype)
    check_ops(eir, tmp_path, [
        ("gcd", torch.gcd), ("lcm", torch.lcm), ("fmax", torch.fmax), ("fmin", torch.fmin),
        ("heaviside", torch.heaviside), ("copysign", torch.copysign), ("xlogy", torch.xlogy),
        ("addcmul", lambda a, b: torch.addcmul(a, b, a, value=3)), ("ldexp", lambda a, b: torch.ldexp(a.float(), b)),
        ("sgn", lambda a, b: torch.sgn(a)), ("signbit", lambda a, b: torch.signbit(a)),
        ("deg2rad", lambda a, b: torch.deg2rad(a)), ("angle", lambda a, b: torch.angle(a)),
        ("isposinf", lambda a, b: torch.isposinf(a)), ("isreal", lambda a, b: torch.isreal(a)),
        ("conj_physical", lambda a, b: torch.conj_physical(a)),
    ], [a, b], "pointwise integers")


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128], ids=str)
def test_pointwise_complex(eir, tmp_path, dtype):
    a = torch.complex(_x(torch.float64, seed=9, specials=False), _x(torch.float64, seed=10, specials=False)).to(dtype)
    b = torch.complex(_x(torch.float64, seed=11, specials=False), _x(torch.float64, seed=12, specials=False)).to(dtype)
    check_ops(eir, tmp_path, [
        ("sgn", lambda a, b: torch.sgn(a)), ("sinc", lambda a, b: torch.sinc(a / 4)), ("angle", lambda a, b: torch.angle(a)),
        ("conj_physical", lambda a, b: torch.conj_physical(a)), ("isreal", lambda a, b: torch.isreal(a)),
        ("logaddexp", lambda a, b: torch.logaddexp(a / 4, b / 4)), ("addcmul", lambda a, b: torch.addcmul(a, b, a, value=0.5)),
        ("addcdiv", lambda a, b: torch.addcdiv(a, b, a, value=2)), ("float_power", lambda a, b: torch.float_power(a, 2)),
        ("ldexp", lambda a, b: torch.ldexp(a, b.real.round())),
    ], [a, b], "pointwise complex")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16], ids=str)
def test_complex_polar_chalf(eir, tmp_path, dtype):
    re, im = _x(dtype, seed=13, specials=False), _x(dtype, seed=14, specials=False)
    # complex32 has no .npy form: the float16 results are widened inside the program
    ops = [("complex", lambda r, i: torch.complex(r, i).to(torch.complex64 if r.dtype == torch.float16 else torch.complex(r, i).dtype)),
           ("chalf", lambda r, i: r.chalf().to(torch.complex64))]
    if dtype != torch.float16:
        ops.append(("polar", lambda r, i: torch.polar(r.abs(), i)))
    check_ops(eir, tmp_path, ops, [re, im], "complex / polar / chalf")


def test_in_place_forms(eir, tmp_path):
    x, y = _x(torch.float32, 0.5, 6.0, seed=15, specials=False), _x(torch.float32, 0.5, 6.0, seed=16, specials=False)
    xd, yd = x.double(), y.double()
    i, j = torch.arange(1, 40), torch.arange(40, 1, -1)
    check_ops(eir, tmp_path, [
        ("addcmul_", lambda x, y, xd, yd, i, j: x.clone().addcmul_(y, x, value=2)),
        ("addcdiv_", lambda x, y, xd, yd, i, j: x.clone().addcdiv_(y, x)),
        ("copysign_", lambda x, y, xd, yd, i, j: x.clone().copysign_(-y)),
        ("copysign_ scalar", lambda x, y, xd, yd, i, j: x.clone().copysign_(-1.0)),
        ("hypot_", lambda x, y, xd, yd, i, j: x.clone().hypot_(y)),
        ("xlogy_", lambda x, y, xd, yd, i, j: x.clone().xlogy_(y)),
        ("nextafter_", lambda x, y, xd, yd, i, j: x.clone().nextafter_(y)),
        ("heaviside_", lambda x, y, xd, yd, i, j: (x - 3).clone().heaviside_(y)),
        ("ldexp_", lambda x, y, xd, yd, i, j: x.clone().ldexp_(y.round())),
        ("float_power_", lambda x, y, xd, yd, i, j: xd.clone().float_power_(yd)),
        ("float_power_ scalar", lambda x, y, xd, yd, i, j: xd.clone().float_power_(0.5)),
        ("sgn_", lambda x, y, xd, yd, i, j: (x - 3).clone().sgn_()),
        ("sinc_", lambda x, y, xd, yd, i, j: x.clone().sinc_()),
        ("deg2rad_", lambda x, y, xd, yd, i, j: x.clone().deg2rad_()),
        ("rad2deg_", lambda x, y, xd, yd, i, j: x.clone().rad2deg_()),
        ("i0_", lambda x, y, xd, yd, i, j: x.clone().i0_()),
        ("erfinv_", lambda x, y, xd, yd, i, j: (x / 7).clone().erfinv_()),
        ("digamma_", lambda x, y, xd, yd, i, j: x.clone().digamma_()),
        ("lgamma_", lambda x, y, xd, yd, i, j: x.clone().lgamma_()),
        ("mvlgamma_", lambda x, y, xd, yd, i, j: (x + 1).clone().mvlgamma_(3)),
        ("igamma_", lambda x, y, xd, yd, i, j: x.clone().igamma_(y)),
        ("igammac_", lambda x, y, xd, yd, i, j: x.clone().igammac_(y)),
        ("gcd_", lambda x, y, xd, yd, i, j: i.clone().gcd_(j)),
        ("lcm_", lambda x, y, xd, yd, i, j: i.clone().lcm_(j)),
        ("conj_physical_", lambda x, y, xd, yd, i, j: x.clone().conj_physical_()),
    ], [x, y, xd, yd, i, j], "in-place forms")


def test_broadcast_and_strides(eir, tmp_path):
    x = _x(torch.float32, seed=17, n=60, specials=False).reshape(5, 12).t()  # transposed input
    y = _x(torch.float32, seed=18, n=5, specials=False)                         # broadcast along rows
    check_ops(eir, tmp_path, [
        ("hypot", lambda x, y: torch.hypot(x, y)), ("xlogy", lambda x, y: torch.xlogy(x, y.abs())),
        ("bessel_j0", lambda x, y: S.bessel_j0(x)), ("zeta", lambda x, y: S.zeta(x.abs() + 1.5, y.abs() + 0.5)),
        ("addcmul", lambda x, y: torch.addcmul(x, y, x)), ("igamma", lambda x, y: torch.igamma(x.abs(), y.abs())),
    ], [x, y], "broadcasting and strides")


# ---- torch's run-time errors ----

def _run_error(eir, tmp_path, module, export_args, run_args):
    ep = torch.export.export(module, tuple(export_args))
    path = str(tmp_path / "e.pt2")
    torch.export.save(ep, path)
    files = []
    for k, a in enumerate(run_args):
        f = tmp_path / f"e_{k}.npy"
        np.save(f, _npy(a))
        files.append(str(f))
    return subprocess.run([eir, "run", path, *files, "--out", str(tmp_path / "eo")], capture_output=True, text=True,
                          timeout=120)


RUNTIME_ERRORS = {
    "multinomial": (lambda x: torch.multinomial(x, 2), torch.ones(4), torch.tensor([1.0, -1.0, 1.0, 1.0]),
                    "probability tensor contains either `inf`, `nan` or element < 0"),
    "multinomial zero": (lambda x: torch.multinomial(x, 2), torch.ones(4), torch.zeros(4),
                         "invalid multinomial distribution (sum of probabilities <= 0)"),
}


@pytest.mark.parametrize("case", list(RUNTIME_ERRORS))
def test_runtime_errors(eir, tmp_path, case):
    """inputs torch's kernels refuse at run time are refused with torch's words"""
    f, good, bad, msg = RUNTIME_ERRORS[case]
    with pytest.raises(RuntimeError, match=msg.replace("(", r"\(").replace(")", r"\)")):
        f(bad)
    r = _run_error(eir, tmp_path, Fn([f]), [good], [bad])
    assert r.returncode != 0 and msg in r.stderr, r.stderr


# ---- random ops: shape, dtype, range and moments ----

N = 40000


def _run_random(eir, tmp_path, module, args, decompose):
    r, out = export_run(eir, tmp_path, module, args, decompose)
    assert r.returncode == 0, r.stderr
    ref = module(*[a.clone() for a in args])
    got = []
    for i, w in enumerate(ref if isinstance(ref, tuple) else (ref,)):
        g = np.load(out / f"output_{i}.npy")
        assert g.shape == tuple(w.shape), f"output {i}: shape {g.shape}, torch {tuple(w.shape)}"
        assert str(g.dtype) == str(_npy(w).dtype), f"output {i}: dtype {g.dtype}, torch {w.dtype}"
        got.append(g.astype(np.float64) if g.dtype != np.bool_ else g)
    return got


@pytest.mark.parametrize("decompose", [False, True], ids=["as exported", "decomposed"])
def test_random_distributions(eir, tmp_path, decompose):
    x = torch.zeros(N)
    mean = torch.linspace(-3, 3, N)
    std = torch.linspace(0.5, 2.0, N)
    m = Fn([
        lambda x, mean, std: x.clone().uniform_(-1.0, 3.0),
        lambda x, mean, std: x.clone().normal_(2.0, 0.5),
        lambda x, mean, std: torch.normal(mean, std),
        lambda x, mean, std: torch.normal(mean, 2.0),
        lambda x, mean, std: torch.normal(1.0, std),
        lambda x, mean, std: x.clone().exponential_(4.0),
        lambda x, mean, std: x.clone().cauchy_(1.0, 2.0),
        lambda x, mean, std: x.clone().geometric_(0.25),
        lambda x, mean, std: x.clone().log_normal_(0.5, 0.25),
        lambda x, mean, std: x.clone().double().random_(8),  # (random_(from, to) cannot be exported: torch 2.13 writes .from)
        lambda x, mean, std: x.clone().to(torch.int32).random_(10),
        lambda x, mean, std: x.clone().to(torch.int8).random_(),
        lambda x, mean, std: x.clone().bernoulli_(0.3),
        lambda x, mean, std: x.clone().bernoulli_(std / 2),
        lambda x, mean, std: torch.poisson(std * 3),
        lambda x, mean, std: torch.poisson(std * 20),
    ])
    (u, nrm, ntt, ntf, nft, ex, ca, ge, ln, r35, r10, r8, b03, bt, po, po20) = _run_random(
        eir, tmp_path, m, [x, mean, std], decompose)
    m_, s_ = mean.double().numpy(), std.double().numpy()
    assert u.min() >= -1 and u.max() < 3 and abs(u.mean() - 1) < 0.03 and abs(u.var() - 16 / 12) < 0.05
    assert abs(nrm.mean() - 2) < 0.01 and abs(nrm.std() - 0.5) < 0.01
    for z in ((ntt - m_) / s_, (ntf - m_) / 2, (nft - 1) / s_):
        assert abs(z.mean()) < 0.03 and abs(z.std() - 1) < 0.03
    assert ex.min() >= 0 and abs(ex.mean() - 0.25) < 0.01 and abs(ex.std() - 0.25) < 0.01
    assert abs(np.median(ca) - 1) < 0.08 and abs(np.mean(np.abs(ca - 1) < 2) - 0.5) < 0.015  # quartiles at median +- sigma
    assert ge.min() >= 1 and np.all(ge == np.round(ge)) and abs(ge.mean() - 4) < 0.1
    assert ln.min() > 0 and abs(np.log(ln).mean() - 0.5) < 0.01 and abs(np.log(ln).std() - 0.25) < 0.01
    assert set(np.unique(r35)) == set(range(8))
    assert r10.min() >= 0 and r10.max() <= 9 and len(np.unique(r10)) == 10
    assert r8.min() >= 0 and r8.max() <= 127 and abs(r8.mean() - 63.5) < 1.5
    assert set(np.unique(b03)) <= {0.0, 1.0} and abs(b03.mean() - 0.3) < 0.01
    assert abs(bt.mean() - (s_ / 2).mean()) < 0.01
    for po_, lam in ((po, s_ * 3), (po20, s_ * 20)):
        assert np.all(po_ == np.round(po_)) and po_.min() >= 0
        z = (po_ - lam) / np.sqrt(lam)  # Poisson: mean and variance lambda
        assert abs(z.mean()) < 0.03 and abs(z.std() - 1) < 0.03


@pytest.mark.parametrize("decompose", [False, True], ids=["as exported", "decomposed"])
def test_multinomial(eir, tmp_path, decompose):
    p1 = torch.tensor([0.1, 0.0, 0.6, 0.3])
    p2 = torch.tensor([[1.0, 2.0, 3.0, 4.0, 0.0], [0.0, 0.0, 5.0, 0.0, 1.0]])
    m = Fn([
        lambda a, b: torch.multinomial(a, 20000, replacement=True),
        lambda a, b: torch.multinomial(b, 3),
        lambda a, b: torch.multinomial(b, 2, replacement=True),
        lambda a, b: torch.multinomial(a, 3),
    ])
    rep, norep, rep2, perm = _run_random(eir, tmp_path, m, [p1, p2], decompose)
    counts = np.bincount(rep.astype(np.int64), minlength=4) / rep.size
    assert counts[1] == 0 and np.all(np.abs(counts - p1.numpy()) < 0.015)
    assert norep.shape == (2, 3)
    for row, p in zip(norep.astype(np.int64), p2.numpy()):
        assert len(set(row)) == 3 and set(row) <= set(range(5))
    assert set(norep[1][:2].astype(np.int64)) == {2, 4}  # the two categories with weight come first
    assert set(rep2[1].astype(np.int64)) <= {2, 4}
    assert sorted(perm.astype(np.int64)) == [0, 2, 3]
