"""The torch.export programming model in eir, proved against torch 2.13.

For every dynamic program of the zoo (both variants: as exported and
decomposed), each case below runs:

  - inputs of several shapes torch accepts: `eir run` must succeed and match
    `ep.module()` (the loaded program) output for output, shape and value;
  - inputs torch refuses (a dim out of its range, two inputs that must share
    a dim, a derived dim that does not fit, a static dim, a failed
    torch._check, a wrong rank or dtype): torch must raise, and eir must exit
    with status 1 and a message naming the same violation. When torch's
    message is a guard ("Guard failed: x.size()[0] <= 64") or a runtime
    assertion ("Runtime assertion failed for expression u0 >= 2 on node
    'ge_1'"), eir's message must contain it verbatim; otherwise (torch fails
    inside an op: a wrong rank or dtype) the case lists what eir must say.

Each case is a (args, kwargs) pair; refusals carry the substrings eir's
message must contain besides torch's own text. "stricter" lists the inputs
torch lets through (its ops convert a wrong dtype) that eir refuses, because
its program is typed: eir says so, naming the input.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

from conftest import ZOO_SRC, _only  # noqa: E402

if ZOO_SRC not in sys.path:
    sys.path.insert(0, ZOO_SRC)

from conftest import to_npy as _to_numpy  # noqa: E402
from test_run import _flat_inputs  # noqa: E402
from tolerances import tolerance  # noqa: E402


def _r(*shape, seed=0, lo=None):
    g = torch.Generator().manual_seed(1000 + seed + sum(shape))
    t = torch.randn(*shape, generator=g)
    return t.abs() + lo if lo is not None else t


def _pos(n, k, seed=0):
    """length n, exactly k positive entries (the rest negative)"""
    t = -_r(n, seed=seed, lo=0.1)
    t[torch.randperm(n, generator=torch.Generator().manual_seed(seed))[:k]] *= -1
    return t


def _pair(b, seed=0, by=None):
    import zoo
    return zoo.Pair(_r(b, 3, seed=seed), _r(by if by is not None else b, 5, seed=seed + 1))


# program -> {"ok": [(args, kwargs)], "refuse": [(args, kwargs, [eir substrings])]}
def cases():
    c = {}
    c["dynamic_shapes"] = {  # batch in [1, 64] shared by x and y, seq in [2, 128]
        "ok": [((_r(4, 6, 8), _r(4, 6)), {}), ((_r(1, 2, 8), _r(1, 2)), {}), ((_r(64, 128, 8), _r(64, 128)), {}),
               ((_r(7, 3, 8), _r(7, 3)), {}),
               # below the declared minimum but 0 or 1: torch lets dims be 0/1 at run time
               ((_r(3, 1, 8), _r(3, 1)), {}), ((_r(0, 5, 8), _r(0, 5)), {})],
        "refuse": [((_r(65, 6, 8), _r(65, 6)), {}, ["input 0 'x'"]),
                   ((_r(4, 129, 8), _r(4, 129)), {}, ["input 0 'x'"]),
                   ((_r(4, 6, 8), _r(5, 6)), {}, ["input 1 'y'", "y.size()[0] = 5", "x.size()[0] = 4"]),
                   ((_r(4, 6, 8), _r(4, 7)), {}, ["input 1 'y'"]),
                   ((_r(4, 6, 9), _r(4, 6)), {}, ["input 0 'x'", "x.size()[2] = 9"]),
                   ((_r(4, 6), _r(4, 6)), {}, ["input 0 'x'", "expected 3 dims, got 2"]),
                   ((_r(4, 6, 8).double(), _r(4, 6)), {}, ["input 0 'x'", "expected dtype float32, got float64"])],
    }
    c["derived_dims"] = {  # x [B, T, 4], y [B, 4], z [2*B, 4], w [B + 1]; B in [2, 32], T in [3, 16]
        "ok": [((_r(3, 5, 4), _r(3, 4), _r(6, 4), _r(4)), {}), ((_r(2, 3, 4), _r(2, 4), _r(4, 4), _r(3)), {}),
               ((_r(32, 16, 4), _r(32, 4), _r(64, 4), _r(33)), {}), ((_r(9, 7, 4), _r(9, 4), _r(18, 4), _r(10)), {})],
        "refuse": [((_r(3, 2, 4), _r(3, 4), _r(6, 4), _r(4)), {}, ["input 0 'x'", "x.size()[1] = 2"]),
                   ((_r(33, 5, 4), _r(33, 4), _r(66, 4), _r(34)), {}, ["input 0 'x'"]),
                   ((_r(3, 5, 4), _r(4, 4), _r(6, 4), _r(4)), {}, ["input 1 'y'"]),
                   ((_r(3, 5, 4), _r(3, 4), _r(7, 4), _r(4)), {}, ["input 2 'z'", "z.size()[0] = 7"]),
                   ((_r(3, 5, 4), _r(3, 4), _r(6, 4), _r(5)), {}, ["input 3 'w'", "w.size()[0] = 5"])],
    }
    c["derived_only"] = {  # w [B + 1], z [2*B], v [3*B + 1]; B in [3, 10], B itself is no input's dim
        "ok": [((_r(5), _r(8), _r(13)), {}), ((_r(4), _r(6), _r(10)), {}), ((_r(11), _r(20), _r(31)), {})],
        "refuse": [((_r(5), _r(9), _r(13)), {}, ["input 1 'z'"]),
                   ((_r(5), _r(8), _r(14)), {}, ["input 2 'v'"]),
                   ((_r(3), _r(4), _r(7)), {}, ["input 0 'w'", "w.size()[0] = 3"]),
                   ((_r(12), _r(22), _r(34)), {}, ["input 0 'w'"])],
    }
    c["sym_exprs"] = {  # x [a], y [b] (Dim.AUTO ranges [4, 40], [3, 30]), n an int; guards_code from tracing
        "ok": [((_r(10), _r(7), 3), {}), ((_r(4), _r(30), 2), {}), ((_r(40), _r(3), 7), {}),
               ((_r(13), _r(14), 5), {}), ((_r(21), _r(8), 2), {})],
        "refuse": [((_r(41), _r(7), 3), {}, ["input 0 'x'"]),
                   ((_r(10), _r(31), 3), {}, ["input 1 'y'"]),
                   ((_r(10), _r(7), 1), {}, ["input 2 'n'", "n = 1"]),                 # 2*n - 1 >= 2
                   ((_r(13), _r(13), 5), {}, ["x.size()[0] = 13", "y.size()[0] = 13"]),  # |a - b| + 1 >= 2
                   ((_r(5), _r(3), 2), {}, ["input 1 'y'"])],                            # b - a % 3 >= 2
    }
    c["nonzero_dyn"] = {  # x [n], n in [3, 64]; 2 <= count(x > 0) <= n - 1
        "ok": [((_pos(6, 4),), {}), ((_pos(3, 2),), {}), ((_pos(64, 63),), {}), ((_pos(17, 5, seed=3),), {})],
        "refuse": [((_pos(6, 1),), {}, []),
                   ((_pos(6, 6),), {}, []),
                   ((_pos(65, 3),), {}, ["input 0 'x'"])],
    }
    c["nonzero_check"] = {  # static [4, 5]; torch._check(count >= 1)
        "ok": [((_r(4, 5),), {}), ((_r(4, 5, seed=7),), {}), ((_pos(20, 1).view(4, 5),), {})],
        "refuse": [((-_r(4, 5, lo=0.1),), {}, [])],
    }
    c["item_size"] = {  # x [n], n in [2, 32]; 1 <= k <= n
        "ok": [((_r(8), torch.tensor(3)), {}), ((_r(2), torch.tensor(2)), {}), ((_r(32), torch.tensor(1)), {}),
               ((_r(20), torch.tensor(20)), {})],
        "refuse": [((_r(8), torch.tensor(0)), {}, []),
                   ((_r(8), torch.tensor(9)), {}, []),
                   ((_r(33), torch.tensor(3)), {}, ["input 0 'x'"])],
    }
    c["masked_select"] = {  # x [r, 5], r <= 16; t a 0-d threshold
        "ok": [((_r(4, 5), torch.tensor(0.0)), {}), ((_r(16, 5), torch.tensor(0.5)), {}),
               ((_r(1, 5), torch.tensor(-9.0)), {}), ((_r(3, 5), torch.tensor(9.0)), {})],
        "refuse": [((_r(17, 5), torch.tensor(0.0)), {}, ["input 0 'x'"]),
                   ((_r(4, 6), torch.tensor(0.0)), {}, ["input 0 'x'"])],
    }
    c["unique_dyn"] = {  # x [n] int64, n in [2, 256]
        "ok": [((torch.tensor([3, 1, 4, 1, 5, 9, 2, 6, 5, 3]),), {}), ((torch.tensor([7, 7]),), {}),
               ((torch.randint(-5, 5, (256,), generator=torch.Generator().manual_seed(1)),), {})],
        "refuse": [((torch.arange(257),), {}, ["input 0 'x'"])],
        # torch runs a float input through the int64 program; eir's program is typed
        "stricter": [((torch.arange(4).float(),), {}, ["input 0 'x'", "expected dtype int64, got float32"])],
    }
    c["mask_repeat"] = {  # x [n], r [n] int64 repeats, n in [2, 64]
        "ok": [((_r(5), torch.tensor([1, 0, 2, 3, 1])), {}), ((_r(2), torch.tensor([0, 0])), {}),
               ((_r(64), torch.arange(64) % 4), {}), ((-_r(9, lo=0.1), torch.full((9,), 2)), {})],
        "refuse": [((_r(5), torch.tensor([1, 0, 2, 3])), {}, ["input 1 'r'", "r.size()[0] = 4", "x.size()[0] = 5"]),
                   ((_r(65), torch.ones(65, dtype=torch.int64)), {}, ["input 0 'x'"])],
    }
    c["cond_shapes"] = {  # x [b, 6], b in [2, 32]; the branch depends on the data
        "ok": [((_r(4, 6, lo=0.1),), {}), ((-_r(4, 6, lo=0.1),), {}), ((_r(32, 6, lo=0.1),), {}),
               ((-_r(2, 6, lo=0.1),), {}), ((_r(13, 6),), {})],
        "refuse": [((_r(33, 6),), {}, ["input 0 'x'"]), ((_r(4, 7),), {}, ["input 0 'x'", "x.size()[1] = 7"])],
    }
    c["cond_unbacked"] = {  # x [n], n in [4, 64] (Dim.AUTO); a branch of length n // 2 or 2 * n
        "ok": [((_r(6, lo=0.1),), {}), ((-_r(6, lo=0.1),), {}), ((_r(40, lo=0.1),), {}), ((-_r(4, lo=0.1),), {}),
               ((_r(64, lo=0.1),), {}), ((_r(5, lo=0.1),), {})],
        "refuse": [((_r(65),), {}, ["input 0 'x'"]), ((_r(3),), {}, ["input 0 'x'"])],
    }
    c["cond_sym"] = {  # x [n, 2], n in [2, 64]; the branch depends on n > 4
        "ok": [((_r(6, 2),), {}), ((_r(3, 2),), {}), ((_r(4, 2),), {}), ((_r(5, 2),), {}), ((_r(64, 2),), {})],
        "refuse": [((_r(65, 2),), {}, ["input 0 'x'"]), ((_r(6, 3),), {}, ["input 0 'x'"])],
    }
    c["map_dyn"] = {  # xs [b, 3], b in [2, 32]; w [3, 2]; a cond inside the mapped body
        "ok": [((_r(5, 3), _r(3, 2)), {}), ((_r(2, 3), _r(3, 2)), {}), ((_r(32, 3), _r(3, 2)), {})],
        "refuse": [((_r(33, 3), _r(3, 2)), {}, ["input 0 'xs'"]),
                   ((_r(5, 3), _r(4, 2)), {}, ["input 1 'w'", "w.size()[0] = 4"])],
    }
    c["while_count"] = {  # x [n], n in [2, 64]; loops bound.item() times
        "ok": [((_r(4), torch.tensor(5)), {}), ((_r(9), torch.tensor(0)), {}), ((_r(64), torch.tensor(17)), {}),
               ((_r(2), torch.tensor(1)), {})],
        "refuse": [((_r(65), torch.tensor(3)), {}, ["input 0 'x'"])],
        "stricter": [((_r(4), torch.tensor(2.5)), {}, ["input 1 'bound'", "expected dtype int64, got float32"])],
    }
    c["while_nested"] = {  # x [n, 3], n in [2, 16]; n loop steps, each a cond and a scan
        "ok": [((_r(4, 3), torch.tensor(3)), {}), ((_r(2, 3), torch.tensor(0)), {}), ((_r(16, 3), torch.tensor(6)), {})],
        "refuse": [((_r(17, 3), torch.tensor(3)), {}, ["input 0 'x'"])],
    }
    c["scan_dyn"] = {  # xs [t, 3], t in [2, 64]: running sum and max
        "ok": [((_r(6, 3),), {}), ((_r(2, 3),), {}), ((_r(64, 3),), {}), ((_r(1, 3),), {})],
        "refuse": [((_r(65, 3),), {}, ["input 0 'xs'"]), ((_r(6, 4),), {}, ["input 0 'xs'", "xs.size()[1] = 4"])],
    }
    c["dataclass_dyn"] = {  # p: Pair(x [B, 3], y [B, 5]), B in [3, 20]; scale [3]
        "ok": [((_pair(4), _r(3)), {}), ((_pair(3), _r(3)), {}), ((_pair(20), _r(3)), {})],
        "refuse": [((_pair(2), _r(3)), {}, ["input 0 'p_x' (p.x)", "p.x.size()[0] = 2"]),
                   ((_pair(21), _r(3)), {}, ["input 0 'p_x' (p.x)"]),
                   ((_pair(4, by=5), _r(3)), {}, ["input 1 'p_y' (p.y)", "p.y.size()[0] = 5", "p.x.size()[0] = 4"]),
                   ((_pair(4), _r(4)), {}, ["input 2 'scale'", "scale.size()[0] = 4"])],
    }
    c["optional_dyn"] = {  # x [B, 3], B in [2, 16]; bias None (burned in); w [W, 3], W in [16, 64]
        "ok": [((_r(4, 3),), {"bias": None, "w": _r(20, 3)}), ((_r(16, 3),), {"bias": None, "w": _r(16, 3)}),
               ((_r(2, 3),), {"bias": None, "w": _r(64, 3)})],
        "refuse": [((_r(4, 3),), {"bias": None, "w": _r(15, 3)}, ["'w'", "w.size()[0] = 15"]),
                   ((_r(17, 3),), {"bias": None, "w": _r(20, 3)}, ["input 0 'x'"])],
    }
    c["grad_autocast"] = {  # x [b, 6], b in [2, 16]; no_grad and autocast(bfloat16) regions
        "ok": [((_r(3, 6),), {}), ((_r(16, 6),), {}), ((_r(2, 6),), {})],
        "refuse": [((_r(17, 6),), {}, ["input 0 'x'"])],
    }
    return c


CASES = cases()


def _variants():
    only = _only()
    names = [n for n in CASES if not only or n in only]
    return [v for n in names for v in (n, n + ".decomp")]


@pytest.fixture
def dyn_pt2(zoo_dir, dyn_variant):
    d, failed = zoo_dir
    base = os.path.join(d, dyn_variant)
    if not os.path.exists(base + ".pt2"):
        why = failed.get(dyn_variant) or failed.get(dyn_variant.split(".")[0]) or "no .pt2 generated"
        pytest.skip(f"{dyn_variant}: generation failed: {why.splitlines()[0] if why else ''}")
    return base + ".pt2"


def _write_inputs(ep, args, kwargs, d):
    paths = []
    for i, x in enumerate(_flat_inputs(ep, args, kwargs)):
        p = os.path.join(d, f"in_{i}.npy")
        if isinstance(x, torch.Tensor):
            np.save(p, _to_numpy(x))
        else:
            np.save(p, np.array(x, dtype=np.int64))
        paths.append(p)
    return paths


def _run_eir(eir, pt2, paths, out_dir=None):
    cmd = [eir, "run", pt2, *paths] + (["--out", out_dir] if out_dir else [])
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def _compare(expected, out_dir, what):
    for i, e in enumerate(torch.utils._pytree.tree_leaves(expected)):
        got = np.load(os.path.join(out_dir, f"output_{i}.npy"))
        if not isinstance(e, torch.Tensor):
            assert got.shape == () and got.item() == e, f"{what}: output {i}: {got} != {e}"
            continue
        want = _to_numpy(e)
        assert got.shape == want.shape, f"{what}: output {i}: shape {got.shape}, torch {want.shape}"
        if e.dtype.is_floating_point:
            rtol, atol = tolerance(e.dtype)
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=f"{what}: output {i}")
        else:
            np.testing.assert_array_equal(got, want, err_msg=f"{what}: output {i}")


def _shapes(args, kwargs):
    return [tuple(x.shape) if isinstance(x, torch.Tensor) else x for x in torch.utils._pytree.tree_leaves((args, kwargs))]


def _torch_refusal(mod, args, kwargs):
    try:
        mod(*args, **kwargs)
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: {e}"
    return None


def _check_refusal(eir, pt2, ep, args, kwargs, want, torch_msg, d, what):
    r = _run_eir(eir, pt2, _write_inputs(ep, args, kwargs, str(d)))
    assert r.returncode == 1, f"{what}: eir exit {r.returncode}, torch said {torch_msg!r}; eir: {r.stderr}"
    msg = r.stderr.strip()
    assert msg.count("\n") == 0 and msg.startswith("eir: "), f"{what}: not a one-line message: {msg!r}"
    first = (torch_msg or "").splitlines()[0] if torch_msg else ""
    torch_text = None
    for marker in ("Guard failed: ", "Runtime assertion failed"):
        if marker in first:
            torch_text = first[first.index(marker):]
            assert torch_text in msg, f"{what}: torch said {torch_text!r}; eir said {msg!r}"
    for s in want:
        assert s in msg, f"{what}: eir's message lacks {s!r}: {msg!r} (torch: {first!r})"
    if torch_msg and torch_text is None:
        assert want, f"{what}: torch failed inside an op ({first!r}); the case must say what eir reports"


@pytest.mark.parametrize("dyn_variant", _variants())
def test_accepts_and_matches(eir, dyn_pt2, dyn_variant, tmp_path):
    """Inputs of several shapes: where torch accepts them, eir runs them and
    matches torch; where this variant's torch refuses one (a decomposed
    program may carry guards of its own), eir refuses it the same way."""
    ep = torch.export.load(dyn_pt2)
    mod = ep.module()
    accepted = 0
    for k, (args, kwargs) in enumerate(CASES[dyn_variant.split(".")[0]]["ok"]):
        what = f"{dyn_variant} case {k} {_shapes(args, kwargs)}"
        d = tmp_path / f"ok{k}"
        d.mkdir()
        torch_msg = _torch_refusal(mod, args, kwargs)
        if torch_msg is not None:
            _check_refusal(eir, dyn_pt2, ep, args, kwargs, [], torch_msg, d, what)
            continue
        expected = mod(*args, **kwargs)
        r = _run_eir(eir, dyn_pt2, _write_inputs(ep, args, kwargs, str(d)), str(d / "out"))
        assert r.returncode == 0, f"{what}: eir refused an input torch accepts: {r.stderr}"
        _compare(expected, str(d / "out"), what)
        accepted += 1
    assert accepted >= 2, f"{dyn_variant}: torch accepted only {accepted} of the shapes; the cases prove little"


@pytest.mark.parametrize("dyn_variant", _variants())
def test_refuses_like_torch(eir, dyn_pt2, dyn_variant, tmp_path):
    """Every input torch refuses, eir refuses before running, naming the same violation."""
    ep = torch.export.load(dyn_pt2)
    mod = ep.module()
    case = CASES[dyn_variant.split(".")[0]]
    for k, (args, kwargs, want) in enumerate(case["refuse"]):
        what = f"{dyn_variant} refusal {k} {_shapes(args, kwargs)}"
        torch_msg = _torch_refusal(mod, args, kwargs)
        assert torch_msg is not None, f"{what}: torch accepts this input; the case is wrong"
        d = tmp_path / f"bad{k}"
        d.mkdir()
        _check_refusal(eir, dyn_pt2, ep, args, kwargs, want, torch_msg, d, what)
    for k, (args, kwargs, want) in enumerate(case.get("stricter", [])):
        # inputs torch lets through (its ops convert dtypes) that eir's typed program refuses
        what = f"{dyn_variant} stricter {k} {_shapes(args, kwargs)}"
        d = tmp_path / f"strict{k}"
        d.mkdir()
        _check_refusal(eir, dyn_pt2, ep, args, kwargs, want, _torch_refusal(mod, args, kwargs), d, what)


def _with_guards(src, dst, guards):
    """src.pt2 rewritten with another guards_code list"""
    import json
    import zipfile

    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename.endswith("models/model.json"):
                m = json.loads(data)
                m["guards_code"] = guards
                data = json.dumps(m).encode()
            zout.writestr(info, data)


@pytest.mark.parametrize("guard, want", [
    ("L['w'].size()[0] ==", "bad guard expression 'L['w'].size()[0] ==': unexpected end at offset 19"),
    ("L['nope'].size()[0] == 1", "L['nope'] is not an input of the program"),
    ("L['w'] == 1", "L['w'] is a tensor"),
])
def test_unreadable_guard_is_refused(eir, tmp_path, guard, want):
    """A guard eir cannot read or resolve stops the run with a clear message;
    eir never skips a guard it does not understand."""
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                       "tests", "e2e", "fixtures", "derived_only.pt2")
    dst = str(tmp_path / "g.pt2")
    _with_guards(src, dst, [guard])
    r = subprocess.run([eir, "run", dst], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "input guards: " in r.stderr and want in r.stderr, r.stderr
    ok = str(tmp_path / "ok.pt2")
    _with_guards(src, ok, ["L['w'].size()[0] != 7"])
    r = subprocess.run([eir, "run", ok], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
