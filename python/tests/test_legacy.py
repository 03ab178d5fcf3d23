"""Archives in the layouts torch 2.1 - 2.8 wrote, against torch 2.13.

tests/legacy/make_legacy.py writes them from torch 2.13 exports (the flat ZIP
of torch <= 2.7 with serialized_state_dict.pt / serialized_constants.pt, and
the 2.8 PT2 archive with data/weights/model.pt / data/constants/model.pt);
torch 2.13's torch.export.load still reads both. The committed ones are
checked offline by `tests/run_fixtures.py tests/legacy`; here programs the
zoo lacks are written live: parameters that are tensor subclasses (TwoTensor)
and strict exports, printed in three forms and run against ep.module().
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

from conftest import REPO, to_npy  # noqa: E402
from test_state import _close  # noqa: E402
from test_subclass_params import CASES, TWO, TwoTensor, _flat_inputs  # noqa: E402

sys.path.insert(0, os.path.join(REPO, "tests", "legacy"))
import make_legacy  # noqa: E402

LAYOUTS = {"flat": make_legacy.write_flat, "v28": make_legacy.write_v28}


def _eir(eir, *args):
    return subprocess.run([eir, *args], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("name", ["two_add", "two_linear", "two_two", "two_buffer_views", "parametrized"])
def test_legacy_layout(eir, name, layout, strict, tmp_path):
    factory, shape = CASES[name]
    torch.manual_seed(0)
    x = torch.randn(*shape)
    ep0 = torch.export.export(factory(), (x,), strict=strict)
    path = str(tmp_path / f"{name}.{layout}.pt2")
    LAYOUTS[layout](ep0, path)
    ep = torch.export.load(path)
    what = f"{name} ({layout}, strict={strict})"
    for flag, want in (("--graph", str(ep.graph)), ("--code", ep.graph_module.code), ("--program", str(ep))):
        r = _eir(eir, "print", flag, path)
        assert r.returncode == 0, f"{what} print {flag}: {r.stderr}"
        assert r.stdout == want + "\n", f"{what} print {flag}:\n{r.stdout}\n--- torch:\n{want}"
    xf = tmp_path / "x.npy"
    np.save(xf, to_npy(x))
    with torch.no_grad():
        outs = torch.utils._pytree.tree_leaves(ep.module()(x.clone()))
    two = any(isinstance(o, TwoTensor) for o in outs)
    for inner in (("a", "b") if two else (None,)):
        d = tmp_path / f"out_{inner}"
        r = _eir(eir, "run", path, str(xf), "--out", str(d), *(("--inner", inner) if inner else ()))
        assert r.returncode == 0, f"{what} --inner {inner}: {r.stderr}"
        for j, o in enumerate(outs):
            want = getattr(o, inner) if isinstance(o, TwoTensor) else o
            _close(np.load(d / f"output_{j}.npy"), to_npy(want), f"{what} --inner {inner} output {j}")
    if two:
        r = _eir(eir, "run", path, str(xf))
        assert r.returncode == 1 and TWO in r.stderr, r.stderr
    # eir convert writes the old archive in torch 2.13's layout: torch loads it, prints it
    # as the original and computes the same outputs. A subclass parameter would need its
    # own pickle, which eir does not write: refused, naming the record, nothing written.
    new = str(tmp_path / f"{name}.{layout}.new.pt2")
    r = _eir(eir, "convert", path, new)
    subclass = any(type(t) is not torch.Tensor and type(t) is not torch.nn.Parameter
                   for t in list(ep.state_dict.values()) + list(ep.constants.values()))
    if subclass:
        assert r.returncode == 1 and "comes from the source archive" not in r.stderr
        assert "its bytes come from the source archive's record" in r.stderr, r.stderr
        assert not os.path.exists(new)
        return
    assert r.returncode == 0, f"{what} convert: {r.stderr}"
    ep2 = torch.export.load(new)
    assert str(ep2) == str(ep), what
    with torch.no_grad():
        outs2 = torch.utils._pytree.tree_leaves(ep2.module()(x.clone()))
    assert len(outs2) == len(outs)
    for o, o2 in zip(outs, outs2):
        for inner in (("a", "b") if isinstance(o, TwoTensor) else (None,)):
            u, v = (getattr(o, inner), getattr(o2, inner)) if inner else (o, o2)
            torch.testing.assert_close(v, u, rtol=0, atol=0)


def test_flat_version_refused(eir, tmp_path):
    """A flat archive of another schema major is refused, as torch 2.13 refuses it."""
    import zipfile
    factory, shape = CASES["parametrized"]
    ep0 = torch.export.export(factory(), (torch.randn(*shape),))
    src = str(tmp_path / "ok.pt2")
    make_legacy.write_flat(ep0, src)
    bad = str(tmp_path / "v7.pt2")
    with zipfile.ZipFile(src) as s, zipfile.ZipFile(bad, "w") as z:
        for info in s.infolist():
            z.writestr(info, b"7.3" if info.filename == "version" else s.read(info.filename))
    with pytest.raises(Exception) as e:
        torch.export.load(bad)
    assert "does not match our current schema version" in str(e.value)
    r = _eir(eir, "info", bad)
    assert r.returncode == 1 and "legacy archive has schema version '7.3'" in r.stderr, r.stderr
