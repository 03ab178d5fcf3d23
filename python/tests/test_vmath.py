"""The float32 activations eir computes with its own vectorised exp / tanh / erf
(src/kernels/vmath.h): gelu (approximate 'none' and 'tanh'), silu, sigmoid,
tanh and exp against torch on many values — a dense grid, random values,
tiny and huge magnitudes, subnormals, the overflow edge of exp, ±inf and NaN —
in programs exported with strict=False and strict=True, as exported and after
run_decompositions(). The tensors are long enough to be split over threads:
2 threads must give the same bytes as one.
"""
from __future__ import annotations

import os
import subprocess

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

from tolerances import tolerance  # noqa: E402

SPECIALS = [np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-45, -1e-45, 1e-40, -1e-40, 1.1754942e-38, 1e-30, -1e-30, 1e-8,
            -1e-8, 0.625, -0.625, 5.0, -5.0, 9.0, -9.0, 20.0, -20.0, 50.0, -50.0, 88.72, 88.73, 89.0, -103.9, -104.0,
            -105.0, 1e4, -1e4, 1e30, -1e30, 3.4028235e38, -3.4028235e38]


def _values(n=64 * 1024):
    rng = np.random.default_rng(11)
    x = np.concatenate([np.array(SPECIALS, dtype=np.float32),
                        np.linspace(-15, 15, 8191, dtype=np.float32),
                        (rng.standard_normal(n // 2) * 4).astype(np.float32),
                        (np.exp(rng.uniform(-90, 5, n // 4)) * rng.choice([-1, 1], n // 4)).astype(np.float32)])
    x = np.resize(x, n)
    return torch.from_numpy(x.reshape(64, -1).copy())


class Acts(torch.nn.Module):
    def forward(self, x):
        f = torch.nn.functional
        return (f.gelu(x), f.gelu(x, approximate="tanh"), f.silu(x), torch.sigmoid(x), torch.tanh(x), torch.exp(x))


NAMES = ["gelu", "gelu_tanh", "silu", "sigmoid", "tanh", "exp"]


def _run(eir, path, x, out_dir, threads):
    os.makedirs(out_dir, exist_ok=True)
    inp = os.path.join(out_dir, "x.npy")
    np.save(inp, x.numpy())
    r = subprocess.run([eir, "run", path, inp, "--out", out_dir, "--threads", str(threads)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return [np.load(os.path.join(out_dir, f"output_{i}.npy")) for i in range(len(NAMES))]


def _scalar_at_infinities(x, want):
    """torch's vectorised GELU kernel on CPUs with AVX-512 returns NaN for +inf and +inf for
    float32's largest value (its scalar kernel, a one-element tensor, gives +inf and that
    value, as the limit and the exact result are); its AVX2 kernel gives the scalar kernel's
    results. At the infinities and the overflow edge, where the vectorised result is not
    finite but the scalar one differs, expect what torch computes for that value alone."""
    xs = x.numpy()
    edge = ~np.isfinite(xs) | (np.abs(xs) > 1e38)
    with torch.inference_mode():
        for i, v in zip(np.argwhere(edge), xs[edge]):
            alone = [t.item() for t in Acts()(torch.tensor([v]))]
            for w, a in zip(want, alone):
                got = w[tuple(i)]
                if not np.isfinite(got) and not (got == a or (np.isnan(got) and np.isnan(a))):
                    w[tuple(i)] = a


def test_gelu_of_infinity_is_infinity(eir, tmp_path):
    """gelu(+inf) = +inf, gelu(-inf) = NaN (-inf * 0), gelu(largest float) = that float, as
    torch's scalar kernel gives."""
    big = float(np.finfo(np.float32).max)
    x = torch.tensor([[np.inf, -np.inf, np.nan, 1.0, big, -big, 1.0, 1.0] * 8])
    ep = torch.export.export(Acts(), (x,))
    path = str(tmp_path / "g.pt2")
    torch.export.save(ep, path)
    got = _run(eir, path, x, str(tmp_path / "o"), 1)
    with torch.inference_mode():
        alone = [[t.item() for t in Acts()(torch.tensor([v]))] for v in (np.inf, -np.inf, 0.0, 0.0, big, -big)]
    for k, name in enumerate(NAMES):
        g = got[k].reshape(-1)
        for j in (0, 1, 4, 5):
            a = alone[j][k]
            assert (np.isnan(g[j]) and np.isnan(a)) or g[j] == a, f"{name}({x[0, j].item()}): {g[j]} vs {a}"
        assert np.isnan(g[2]), name
    assert got[0].reshape(-1)[0] == np.inf and got[0].reshape(-1)[4] == big


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("decomp", [False, True])
def test_activations_match_torch(eir, tmp_path, strict, decomp):
    x = _values()
    ep = torch.export.export(Acts(), (torch.randn(64, 1024),), strict=strict)
    if decomp:
        ep = ep.run_decompositions()
    path = str(tmp_path / "acts.pt2")
    torch.export.save(ep, path)
    with torch.inference_mode():
        want = [t.numpy() for t in ep.module()(x)]
    _scalar_at_infinities(x, want)
    rtol, atol = tolerance(torch.float32)
    one = _run(eir, path, x, str(tmp_path / "t1"), 1)
    for name, g, w in zip(NAMES, one, want):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True, err_msg=name)
        assert np.array_equal(np.isfinite(g), np.isfinite(w)), name
    # tighter than the suite's tolerance, against torch's float64 evaluation (torch's own float32
    # kernels differ by CPU: its AVX-512 erf is 8e-7 off where eir's is 2e-7)
    with torch.inference_mode():
        exact = [t.numpy() for t in Acts()(x.double())]
    for name, g, e in zip(NAMES, one, exact):
        fin = np.isfinite(g) & np.isfinite(e)
        gd, ed = g[fin].astype(np.float64), e[fin]
        err = float(np.max(np.abs(gd - ed) / (1 + np.abs(ed))))
        assert err < 1e-6, f"{name}: max error {err:.3g} against float64"
    two = _run(eir, path, x, str(tmp_path / "t2"), 2)
    for name, a, b in zip(NAMES, one, two):
        assert a.tobytes() == b.tobytes(), f"{name}: 2 threads differ from one"
