"""Run conformance: every zoo variant runs in eir and matches torch.

For each variant V, the program's example inputs (the ones it was exported
with) are written as .npy files in the order of its flattened user inputs,
`eir run V.pt2 in_0.npy ... --out DIR` runs it, and every user output is
compared with `ep.module()(*args, **kwargs)` within the tolerance of its
dtype (python/tests/tolerances.py). Custom operators (mylib::*) run with the
kernels of examples/custom_ops.c (`--ops`). A variant that uses an operator
eir cannot run yet is skipped with eir's own list of missing operators, so
the report shows exactly what is left.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

from conftest import ZOO_SRC, ops_lib, to_npy as _npy  # noqa: E402
from tolerances import tolerance  # noqa: E402

if ZOO_SRC not in sys.path:
    sys.path.insert(0, ZOO_SRC)




def _flat_inputs(ep, args, kwargs):
    """User input leaves in signature order, skipping constants burned into the program."""
    from torch.export.graph_signature import ConstantArgument, InputKind

    leaves = torch.utils._pytree.tree_leaves((args, kwargs))
    user_specs = [s for s in ep.graph_signature.input_specs if s.kind == InputKind.USER_INPUT]
    assert len(user_specs) == len(leaves), (len(user_specs), len(leaves))
    out = []
    for spec, leaf in zip(user_specs, leaves):
        if isinstance(spec.arg, ConstantArgument):
            continue
        out.append(leaf)
    return out


@pytest.fixture
def program(pt2, variant):
    import zoo

    name = variant.split(".")[0]
    module, args, kwargs, _ = zoo.build(name)
    ep = torch.export.load(pt2 + ".pt2")
    return ep, args, kwargs or {}


def test_run_matches_torch(eir, pt2, variant, program, tmp_path):
    ep, args, kwargs = program
    inputs = _flat_inputs(ep, args, kwargs)
    paths = []
    for i, x in enumerate(inputs):
        p = tmp_path / f"in_{i}.npy"
        if isinstance(x, torch.Tensor):
            np.save(p, _npy(x))
        else:
            np.save(p, np.array(x, dtype=np.int64))
        paths.append(str(p))
    out_dir = tmp_path / "out"
    ops = ["--ops", ops_lib()] if ops_lib() else []
    r = subprocess.run([eir, "run", pt2 + ".pt2", *paths, "--out", str(out_dir), *ops],
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 0 and "eir cannot run yet" in r.stderr:
        pytest.skip(r.stderr.strip().split(": ", 1)[-1][:400])
    if r.returncode != 0 and "not supported yet" in r.stderr:
        pytest.skip(r.stderr.strip()[:400])
    assert r.returncode == 0, r.stderr
    expected = torch.utils._pytree.tree_leaves(ep.module()(*args, **kwargs))
    for i, e in enumerate(expected):
        got = np.load(out_dir / f"output_{i}.npy")
        if not isinstance(e, torch.Tensor):
            assert got.shape == () and got.item() == e, f"output {i}: {got} != {e}"
            continue
        want = _npy(e)
        assert got.shape == want.shape, f"output {i}: shape {got.shape}, torch {want.shape}"
        if e.dtype.is_floating_point or e.dtype.is_complex:
            rtol, atol = tolerance(e.dtype)
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=f"output {i} of {variant}")
        else:
            np.testing.assert_array_equal(got, want, err_msg=f"output {i} of {variant}")


def test_run_constant_inputs(eir, tmp_path):
    """Burned-in Python values may be passed too: they must equal the program's."""
    import zoo

    module, args, kwargs, _ = zoo.build("static_values")
    ep = torch.export.export(module, args)
    path = str(tmp_path / "sv.pt2")
    torch.export.save(ep, path)
    leaves = torch.utils._pytree.tree_leaves((args, kwargs or {}))
    files = []
    for i, x in enumerate(leaves):
        f = tmp_path / f"in_{i}.npy"
        np.save(f, _npy(x) if isinstance(x, torch.Tensor) else np.array(x))
        files.append(str(f))
    r = subprocess.run([eir, "run", path, *files, "--out", str(tmp_path / "out")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    want = _npy(ep.module()(*args))
    np.testing.assert_allclose(np.load(tmp_path / "out" / "output_0.npy"), want, rtol=1e-5, atol=1e-6)
    # a different value for a burned-in number is refused with torch's guard text, naming the input
    names = [s.arg.name for s in ep.graph_signature.input_specs]
    consts = [i for i, x in enumerate(leaves) if isinstance(x, (int, float)) and not isinstance(x, torch.Tensor)]
    assert consts, "static_values has number inputs"
    for i in consts:
        x = leaves[i]
        other = (not x) if isinstance(x, bool) else x + 1
        bad = list(leaves)
        bad[i] = other
        with pytest.raises(AssertionError) as torch_err:
            ep.module()(*bad)
        torch_text = str(torch_err.value).splitlines()[0]  # e.g. "Guard failed: n == 3"
        keep = np.load(files[i])
        np.save(files[i], np.array(other))
        r = subprocess.run([eir, "run", path, *files], capture_output=True, text=True)
        np.save(files[i], keep)
        assert r.returncode == 1, r.stderr
        assert r.stderr.strip() == f"eir: input {i} '{names[i]}': {torch_text} ({names[i]} = {other!r})", (torch_text, r.stderr)
    # an equal value in another type passes, as in Python (3.0 == 3)
    ints = [i for i in consts if type(leaves[i]) is int]
    np.save(files[ints[0]], np.array(float(leaves[ints[0]])))
    r = subprocess.run([eir, "run", path, *files], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


class _IndexSelect(torch.nn.Module):
    def forward(self, x, i):
        return torch.index_select(x, 0, i) * 2


class _CondIndex(torch.nn.Module):
    def forward(self, x, i):
        def t(x, i):
            return torch.index_select(x, 0, i) * 2

        def f(x, i):
            return x[:2].clone()

        return torch.cond(x.sum() > 0, t, f, (x, i))


class _Check(torch.nn.Module):
    def forward(self, x, i):
        n = i.item()
        torch._check(n >= 2)
        return x[:n] * 2


def _source_line(ep, pred):
    """fx's summary of the innermost stack frame in this file, for the node pred picks."""
    import re
    for gm in [ep.graph_module, *[m for _, m in ep.graph_module.named_modules() if hasattr(m, "graph")]]:
        for n in gm.graph.nodes:
            if pred(n) and n.meta.get("stack_trace"):
                frames = re.findall(r'File "([^"]+)", line (\d+), in (\w+)\n\s*(.*)', n.meta["stack_trace"])
                frames = [f for f in frames if not f[0].startswith("<")]
                f = frames[-1]
                return f"[File: {f[0]}:{f[1]} in {f[2]}, code: {f[3].strip()}]"
    raise AssertionError("no node with a stack trace")


@pytest.mark.parametrize("module,args,bad,pred", [
    (_IndexSelect(), (torch.ones(5), torch.tensor([1, 2])), (torch.ones(5), torch.tensor([1, 9])),
     lambda n: "index_select" in str(n.target)),
    (_CondIndex(), (torch.ones(5), torch.tensor([1, 2])), (torch.ones(5), torch.tensor([1, 9])),
     lambda n: "index_select" in str(n.target)),
    (_Check(), (torch.ones(5), torch.tensor(3)), (torch.ones(5), torch.tensor(1)),
     lambda n: "_assert_scalar" in str(n.target)),
], ids=["kernel", "kernel-in-cond", "torch._check"])
def test_run_error_names_source_line(eir, tmp_path, module, args, bad, pred):
    """A node failing at run time: torch's own message, then the user's source line from the node's stack_trace."""
    ep = torch.export.export(module, args)
    path = str(tmp_path / "p.pt2")
    torch.export.save(ep, path)
    with pytest.raises(Exception) as torch_err:
        ep.module()(*bad)
    files = []
    for k, x in enumerate(bad):
        files.append(str(tmp_path / f"in_{k}.npy"))
        np.save(files[-1], _npy(x))
    r = subprocess.run([eir, "run", path, *files], capture_output=True, text=True)
    msg = r.stderr.strip()
    assert r.returncode == 1 and msg.count("\n") == 0, msg
    torch_text = str(torch_err.value).splitlines()[0]
    line = _source_line(ep, pred)
    assert msg.endswith(f"{torch_text} {line}"), f"torch: {torch_text!r} {line}; eir: {msg!r}"
