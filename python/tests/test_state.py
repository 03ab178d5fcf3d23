"""Module state across runs: eir against the torch module.

For each stateful zoo program (zoo.STATEFUL: buffers mutated in place and by
reassignment, non-persistent buffers, user inputs mutated in place and through
a view, a custom op writing its Tensor(a!) argument) and both variants (as
exported, and after run_decompositions, where the mutations become
BUFFER_MUTATION / USER_INPUT_MUTATION outputs and auto_functionalized_v2),
`eir run --runs 3` runs the program three times on the same input files and a
fresh torch module runs three times on the same tensors (the example inputs,
and random ones). After every run:

  * eir's user outputs match the module's;
  * eir writes input_<i>.npy for exactly the inputs torch mutated, with the
    values torch's argument tensors then hold;
  * eir writes state.<fqn>.npy for exactly the buffers torch mutated, with the
    values of module.named_buffers() (non-persistent buffers included).

Effect tokens: the `effects` program calls aten._print and a custom op torch
registers as effectful; eir prints what torch prints, once per run, in both
variants (the decomposed one threads a token through with_effects).
"""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

from conftest import ZOO_SRC  # noqa: E402
from conftest import to_npy as _to_numpy  # noqa: E402
from test_run import _flat_inputs  # noqa: E402
from tolerances import tolerance  # noqa: E402

if ZOO_SRC not in sys.path:
    sys.path.insert(0, ZOO_SRC)
import zoo  # noqa: E402

RUNS = 3


def torch_runs(name, ep, runs=RUNS, seed=None):
    """Run a fresh zoo module `runs` times on its example inputs (or, with a
    seed, random tensors of their shapes). Returns (inputs before the first run,
    [per run: {"outputs": [...], "inputs": {i: array}, "state": {fqn: array}}])
    where inputs/state hold only what the module mutates."""
    module, args, kwargs, _ = zoo.build(name)
    kwargs = kwargs or {}
    if seed is not None:
        g = torch.Generator().manual_seed(seed)
        args = tuple(torch.randn(a.shape, generator=g).to(a.dtype) for a in args)
    flat = _flat_inputs(ep, args, kwargs)
    # copies: the module writes into the tensors it mutates
    before = [_to_numpy(x).copy() if isinstance(x, torch.Tensor) else np.array(x, dtype=np.int64) for x in flat]
    bufs0 = {k: _to_numpy(v).copy() for k, v in module.named_buffers()}
    results = []
    with torch.no_grad():
        for _ in range(runs):
            outs = torch.utils._pytree.tree_leaves(module(*args, **kwargs))
            results.append({
                "outputs": [_to_numpy(o).copy() if isinstance(o, torch.Tensor) else np.array(o) for o in outs],
                "inputs": {i: _to_numpy(x).copy() for i, x in enumerate(flat) if isinstance(x, torch.Tensor)},
                "state": {k: _to_numpy(v).copy() for k, v in module.named_buffers()},
            })
    # keep only what changed at all (the programs change what they mutate on every run)
    first = results[0]
    changed_in = {i for i, v in first["inputs"].items() if not np.array_equal(v, before[i])}
    changed_st = {k for k, v in first["state"].items() if not np.array_equal(v, bufs0[k])}
    for r in results:
        r["inputs"] = {i: v for i, v in r["inputs"].items() if i in changed_in}
        r["state"] = {k: v for k, v in r["state"].items() if k in changed_st}
    return before, results


def _close(got, want, what):
    assert got.shape == want.shape, f"{what}: shape {got.shape}, torch {want.shape}"
    if want.dtype.kind in "fc":
        rtol, atol = tolerance(torch.float64 if want.dtype == np.float64 else torch.float32)
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


@pytest.mark.parametrize("seed", [None, 5], ids=["example", "random"])
@pytest.mark.parametrize("decomp", [False, True], ids=["exported", "decomp"])
@pytest.mark.parametrize("name", zoo.STATEFUL)
def test_state_sequence(eir, zoo_dir, example_ops, name, decomp, seed, tmp_path):
    d, _ = zoo_dir
    variant = name + (".decomp" if decomp else "")
    pt2 = os.path.join(d, variant + ".pt2")
    if not os.path.exists(pt2):
        pytest.skip(f"{variant} was not generated")
    ep = torch.export.load(pt2)
    before, expected = torch_runs(name, ep, seed=seed)
    paths = []
    for i, a in enumerate(before):
        p = tmp_path / f"in_{i}.npy"
        np.save(p, a)
        paths.append(str(p))
    out = tmp_path / "out"
    r = subprocess.run([eir, "run", pt2, *paths, "--runs", str(RUNS), "--out", str(out), "--ops", example_ops],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert expected[0]["inputs"] or expected[0]["state"], f"{name} mutates nothing in torch"
    for k, want in enumerate(expected, 1):
        run_dir = out / f"run_{k}"
        files = set(os.listdir(run_dir))
        assert {f for f in files if f.startswith("input_")} == {f"input_{i}.npy" for i in want["inputs"]}, \
            f"run {k}: eir reports mutated inputs {sorted(files)}, torch mutated {sorted(want['inputs'])}"
        assert {f for f in files if f.startswith("state.")} == {f"state.{q}.npy" for q in want["state"]}, \
            f"run {k}: eir reports mutated state {sorted(files)}, torch mutated {sorted(want['state'])}"
        for i, w in enumerate(want["outputs"]):
            _close(np.load(run_dir / f"output_{i}.npy"), w, f"{variant} run {k} output {i}")
        for i, w in want["inputs"].items():
            _close(np.load(run_dir / f"input_{i}.npy"), w, f"{variant} run {k} input {i}")
        for q, w in want["state"].items():
            _close(np.load(run_dir / f"state.{q}.npy"), w, f"{variant} run {k} buffer {q}")


def test_repeat_says_state_advances(eir, zoo_dir, example_ops, tmp_path):
    d, _ = zoo_dir
    pt2 = os.path.join(d, "buffer_mutation.pt2")
    if not os.path.exists(pt2):
        pytest.skip("buffer_mutation was not generated")
    r = subprocess.run([eir, "run", pt2, "--repeat", "3"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "mutates its state" in r.stdout and "last run" in r.stdout, r.stdout
    # the printed count is the third run's: output 1 and the buffer
    assert re.search(r"^output 1 '\w+': i64\[\] = 3$", r.stdout, re.M), r.stdout
    assert "state 0 'count': i64[] = 3\n" in r.stdout, r.stdout


@pytest.mark.parametrize("train", [False, True], ids=["eval", "train"])
def test_batch_norm_state_only_in_training(eir, train, tmp_path):
    """aten.batch_norm writes its running statistics only when training: in
    eval mode eir neither reports them mutated nor changes them; in training
    mode it writes what torch writes."""
    m = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4)).train(train)
    x = torch.randn(2, 3, 6, 6)
    ep = torch.export.export(m, (x,))
    assert any("batch_norm" in str(n.target) for n in ep.graph.nodes)
    pt2 = str(tmp_path / "bn.pt2")
    torch.export.save(ep, pt2)
    np.save(tmp_path / "x.npy", x.numpy())
    out = tmp_path / "out"
    r = subprocess.run([eir, "run", pt2, str(tmp_path / "x.npy"), "--out", str(out)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    states = sorted(f.name for f in out.iterdir() if f.name.startswith("state."))
    mod = ep.module()
    with torch.no_grad():
        want = mod(x)
    _close(np.load(out / "output_0.npy"), want.numpy(), "output")
    if train:
        assert "state.1.running_mean.npy" in states and "state.1.running_var.npy" in states, states
        _close(np.load(out / "state.1.running_mean.npy"), mod.state_dict()["1.running_mean"].numpy(), "running_mean")
    else:
        assert states == [], states
        r = subprocess.run([eir, "run", pt2, str(tmp_path / "x.npy"), "--repeat", "2"], capture_output=True,
                           text=True, timeout=120)
        assert r.returncode == 0 and "mutates its state" not in r.stdout, r.stdout


@pytest.mark.parametrize("decomp", [False, True], ids=["exported", "decomp"])
def test_effects(eir, zoo_dir, example_ops, decomp, tmp_path):
    d, _ = zoo_dir
    variant = "effects.decomp" if decomp else "effects"
    pt2 = os.path.join(d, variant + ".pt2")
    if not os.path.exists(pt2):
        pytest.skip(f"{variant} was not generated")
    ep = torch.export.load(pt2)
    if decomp:
        # torch threads an effect token through with_effects
        kinds = [s.kind.name for s in ep.graph_signature.input_specs]
        assert "TOKEN" in kinds
        assert any(n.target is torch.ops.higher_order.with_effects for n in ep.graph.nodes)
    _, args, _, _ = zoo.build("effects")
    np.save(tmp_path / "x.npy", _to_numpy(args[0]))
    r = subprocess.run([eir, "run", pt2, str(tmp_path / "x.npy"), "--runs", "2", "--out", str(tmp_path / "o"),
                        "--ops", example_ops], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    # aten._print writes its string and a newline, as torch does, once per run and in graph order
    assert r.stdout == "eir zoo: effects\n" * 2, r.stdout
    want = _to_numpy(ep.module()(*args))
    for k in (1, 2):
        _close(np.load(tmp_path / "o" / f"run_{k}" / "output_0.npy"), want, f"{variant} run {k}")
