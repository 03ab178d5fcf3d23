"""Float constants in symbolic expressions, printed and run as torch 2.13 does.

`x * (x.shape[0] * 0.9 + 1.5)` makes SymFloat values whose expressions hold
sympy Floats (`Float('0.90000000000000002', precision=53)` in the archive);
torch prints them with sympy's str(): `Sym(0.9*ToFloat(s77) + 1.5)`. eir must
print the same text in all three forms and compute the same outputs.
"""
from __future__ import annotations

import os
import subprocess

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

from conftest import to_npy  # noqa: E402
from tolerances import tolerance  # noqa: E402


class Affine(torch.nn.Module):
    def forward(self, x):
        return x * (x.shape[0] * 0.9 + 1.5)


class Mixed(torch.nn.Module):
    def forward(self, x):
        n = x.shape[0]
        return x * (n / 3 * 0.25) - (n * -0.5) + n * 1e-5 + (n * 1e20) * 1e-21


class Big(torch.nn.Module):
    def forward(self, x):
        return x * (x.shape[0] * 123456.789 - 0.001)


PROGRAMS = {"affine": Affine, "mixed": Mixed, "big": Big}
KEYS = [f"{n}.{m}" for n in PROGRAMS for m in ("strict", "nonstrict")]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    d = tmp_path_factory.mktemp("symfloat")
    out = {}
    B = torch.export.Dim("b", min=2, max=64)
    for name, cls in PROGRAMS.items():
        for mode in ("strict", "nonstrict"):
            ep = torch.export.export(cls(), (torch.randn(6, 3),), dynamic_shapes=({0: B},), strict=mode == "strict")
            path = str(d / f"{name}.{mode}.pt2")
            torch.export.save(ep, path)
            out[f"{name}.{mode}"] = path
    return out


@pytest.mark.parametrize("form", ["graph", "code", "program"])
@pytest.mark.parametrize("key", KEYS)
def test_print(eir, exported, key, form):
    pt2 = exported[key]
    ep = torch.export.load(pt2)
    want = {"graph": str(ep.graph), "code": ep.graph_module.code, "program": str(ep)}[form] + "\n"
    flag = {"graph": [], "code": ["--code"], "program": ["--program"]}[form]
    r = subprocess.run([eir, "print", *flag, pt2], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout == want, f"{key}: eir print {' '.join(flag)}:\n--- eir\n{r.stdout}\n--- torch\n{want}"


@pytest.mark.parametrize("key", KEYS)
def test_run(eir, exported, key, tmp_path):
    pt2 = exported[key]
    mod = torch.export.load(pt2).module()
    for rows in (6, 2, 37):
        x = torch.randn(rows, 3)
        want = to_npy(mod(x))
        p = str(tmp_path / f"x{rows}.npy")
        np.save(p, to_npy(x))
        out = str(tmp_path / f"out{rows}")
        r = subprocess.run([eir, "run", pt2, p, "--out", out], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        got = np.load(os.path.join(out, "output_0.npy"))
        rtol, atol = tolerance(torch.float32)
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=f"{key} rows={rows}")
