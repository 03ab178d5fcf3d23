"""Aliasing, views and writes through them, as torch runs programs as exported.

Each program below is exported in every form torch writes (strict=False and
strict=True, as exported and after run_decompositions(), and saved again after
torch.export.load), run by `eir run --runs 3` and by the form's ep.module()
three times on copies of the same inputs. After every run eir's outputs, the
inputs it reports mutated and the buffers / parameters it reports written must
be torch's, and nothing else may be reported. A program torch refuses at run
time must be refused by eir with torch's message.

Families: writes through ops that return a view when they can (reshape,
flatten, ravel, contiguous, to, type_as) into user inputs, intermediates,
buffers and parameters (also under torch.no_grad()), copies that must not
alias, in-place activations as torchvision exports them, writes through dropout in eval
mode (or p = 0), which returns its input itself, geometry of saved-
and-reloaded slices, data-dependent indices into views (select, narrow, slice,
unfold, split) including negative and clamped ones, and cond returning ints.
"""
from __future__ import annotations

import os
import subprocess

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

from conftest import to_npy  # noqa: E402
from test_state import _close  # noqa: E402

RUNS = 3
nn = torch.nn


def _buf(shape, dtype=torch.float32):
    return torch.arange(int(np.prod(shape)), dtype=torch.float64).reshape(shape).to(dtype) / 3


class WriteInputFlatten(nn.Module):
    def forward(self, x):
        x.flatten().mul_(2)
        return x + 1


class WriteIntermediateReshape(nn.Module):
    def forward(self, x):
        y = x * 1
        y.reshape(-1).add_(5)
        return y


class WriteReshapeOfTransposed(nn.Module):  # no view exists: a copy, x untouched
    def forward(self, x):
        y = x.t().reshape(-1)
        y.add_(100)
        return x + 0, y


class BufferToSameDtype(nn.Module):  # the KV-cache / counter pattern
    def __init__(self):
        super().__init__()
        self.register_buffer("buf", torch.zeros(3))

    def forward(self, x):
        self.buf.to(torch.float32).add_(1)
        return x + self.buf


class BufferTypeAs(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("buf", torch.zeros(3))

    def forward(self, x):
        self.buf.type_as(x).add_(1)
        return x * self.buf


class BufferToOtherDtype(nn.Module):  # a copy: the buffer stays
    def __init__(self):
        super().__init__()
        self.register_buffer("buf", torch.ones(3))

    def forward(self, x):
        y = self.buf.to(torch.float64)
        y.add_(1)
        return x + self.buf, y


class ToCopyTrue(nn.Module):
    def forward(self, x):
        y = x.to(torch.float32, copy=True)
        y.add_(1)
        return x * 1, y


class Contiguous(nn.Module):
    def forward(self, x):
        a = x.t().contiguous()
        a.add_(1)
        b = x.contiguous()
        b.mul_(2)
        return x + 0, a


class FlattenSameDim(nn.Module):
    def forward(self, x):
        x.flatten(1, 1).add_(1)
        x.ravel().mul_(3)
        return x + 0


class CacheWrites(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("cache", torch.zeros(4, 3))

    def forward(self, x):
        self.cache.view(-1)[:3].copy_(x)
        self.cache.narrow(0, 1, 1).mul_(2)
        self.cache.reshape(4, 3)[2].add_(x)
        return self.cache + 0


class ParamWriteNoGrad(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(3))

    def forward(self, x):
        with torch.no_grad():
            self.weight.div_(2)
        return x * self.weight


class SliceOfInput(nn.Module):
    def forward(self, x):
        return x[1:] * 1, x[:, ::2] + 0, x.unflatten(1, (1, 2)).sum(1)


class InplaceActivations(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.acts = nn.Sequential(nn.Hardswish(inplace=True), nn.SiLU(inplace=True), nn.ReLU6(inplace=True),
                                  nn.Hardsigmoid(inplace=True), nn.ELU(inplace=True), nn.LeakyReLU(0.1, inplace=True))

    def forward(self, x):
        y = self.acts(self.lin(x))
        z = x.clone()
        z.sigmoid_()
        z.clamp_(0.1, 0.9)
        z.arccos_()
        z.cumsum_(1)
        return y, z


class SelectItem(nn.Module):
    def forward(self, x, i):
        return x.select(0, i.item()) + 0


class NarrowItem(nn.Module):
    def forward(self, a, b, i):
        return torch.stack([a, b], 0).narrow(0, i.item(), 1) * 2


class SliceItem(nn.Module):
    def forward(self, x, i):
        n = i.item()
        return x[:n] + 0, x[n:n + 1] * 2


class NegativeItem(nn.Module):
    def forward(self, x, i):
        n = i.item()
        torch._check(n >= 0)
        torch._check(n <= x.shape[0])
        return x[-n:] + 0, x.unfold(0, 2, 1)[n] + 0


class CondInt(nn.Module):
    def forward(self, x):
        idx = torch.cond(x.sum() > 3, lambda: 0, lambda: 1, ())
        return x[idx] + 0


def _i(v):
    return torch.tensor(v)


# name -> (module factory, [input tuples]); every input tuple is one run sequence
class DropoutEvalWrite(nn.Module):  # dropout in eval returns its input itself: the write reaches x
    def forward(self, x):
        y = nn.functional.dropout(x, 0.5, training=False)
        y.add_(1)
        z = nn.functional.dropout(x, 0.0, training=True)   # p = 0: the input itself too
        z.mul_(2)
        nn.functional.alpha_dropout(x, 0.3, training=False).sub_(0.5)
        nn.functional.dropout1d(x.unsqueeze(0), 0.3, training=False).mul_(1.5)
        return x * 2, y


CASES = {
    "write_input_flatten": (WriteInputFlatten, [(torch.randn(2, 3),)]),
    "write_intermediate_reshape": (WriteIntermediateReshape, [(torch.randn(2, 3),)]),
    "write_reshape_of_transposed": (WriteReshapeOfTransposed, [(torch.randn(2, 3),)]),
    "buffer_to_same_dtype": (BufferToSameDtype, [(torch.randn(3),)]),
    "buffer_type_as": (BufferTypeAs, [(torch.randn(3),)]),
    "buffer_to_other_dtype": (BufferToOtherDtype, [(torch.randn(3),)]),
    "to_copy_true": (ToCopyTrue, [(torch.randn(3),)]),
    "contiguous": (Contiguous, [(torch.randn(2, 3),)]),
    "flatten_same_dim": (FlattenSameDim, [(torch.randn(2, 3),)]),
    "cache_writes": (CacheWrites, [(torch.randn(3),)]),
    "param_write_no_grad": (ParamWriteNoGrad, [(torch.randn(3),)]),
    "slice_of_input": (SliceOfInput, [(torch.randn(5, 2),)]),
    "inplace_activations": (InplaceActivations, [(torch.randn(3, 4),)]),
    "select_item": (SelectItem, [(torch.randn(3, 4), _i(1)), (torch.randn(3, 4), _i(-1)), (torch.randn(3, 4), _i(3))]),
    "narrow_item": (NarrowItem, [(torch.randn(3), torch.randn(3), _i(1)), (torch.randn(3), torch.randn(3), _i(0)),
                                 (torch.randn(3), torch.randn(3), _i(2))]),
    "slice_item": (SliceItem, [(torch.randn(3, 2), _i(2)), (torch.randn(3, 2), _i(4)), (torch.randn(3, 2), _i(0)),
                               (torch.randn(3, 2), _i(-1))]),
    "negative_item": (NegativeItem, [(torch.randn(5, 2), _i(v)) for v in (0, 1, 3)]),
    "cond_int": (CondInt, [(torch.ones(3, 4),), (torch.zeros(3, 4),)]),
    "dropout_eval_write": (DropoutEvalWrite, [(torch.randn(2, 3),)]),
}

FORMS = ("nonstrict", "strict", "decomp", "resaved")


def _export(name, form, tmp_path):
    factory, inputs = CASES[name]
    torch.manual_seed(0)
    m = factory()
    args = tuple(a.clone() for a in inputs[0])
    try:
        ep = torch.export.export(m, args, strict=(form == "strict"))
        if form == "decomp":
            ep = ep.run_decompositions()
    except Exception as e:  # noqa: BLE001 - torch's own limits
        pytest.skip(f"torch cannot export {name} ({form}): {type(e).__name__}: {str(e).splitlines()[0][:200]}")
    path = str(tmp_path / f"{name}.{form}.pt2")
    torch.export.save(ep, path)
    if form == "resaved":
        ep = torch.export.load(path)
        torch.export.save(ep, path)
    return path


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_aliasing(eir, name, form, tmp_path):
    path = _export(name, form, tmp_path)
    for seq, inputs in enumerate(CASES[name][1]):
        ep = torch.export.load(path)
        module = ep.module()
        state = dict(module.named_buffers())
        state.update(dict(module.named_parameters()))
        state0 = {k: to_npy(v).copy() for k, v in state.items()}
        targs = [a.clone() for a in inputs]
        files = []
        for i, a in enumerate(inputs):
            p = tmp_path / f"s{seq}_in{i}.npy"
            np.save(p, to_npy(a))
            files.append(str(p))
        out = tmp_path / f"s{seq}_out"
        r = subprocess.run([eir, "run", path, *files, "--runs", str(RUNS), "--out", str(out)],
                           capture_output=True, text=True, timeout=300)
        expected = []
        error = None
        with torch.no_grad():
            for _ in range(RUNS):
                try:
                    outs = torch.utils._pytree.tree_leaves(module(*targs))
                except Exception as e:  # noqa: BLE001 - torch refuses the input
                    error = str(e).splitlines()[0]
                    break
                expected.append(([to_npy(o).copy() for o in outs], [to_npy(a).copy() for a in targs],
                                 {k: to_npy(v).copy() for k, v in state.items()}))
        what = f"{name} ({form}) inputs #{seq}"
        if error is not None:
            assert r.returncode == 1, f"{what}: torch raises '{error}', eir exits {r.returncode}: {r.stdout[-300:]}"
            assert error in r.stderr, f"{what}: torch raises '{error}', eir says: {r.stderr}"
            continue
        assert r.returncode == 0, f"{what}: {r.stderr}"
        for k, (outs, ins, st) in enumerate(expected, 1):
            d = out / f"run_{k}"
            files_k = set(os.listdir(d))
            for j, w in enumerate(outs):
                _close(np.load(d / f"output_{j}.npy"), w, f"{what} run {k} output {j}")
            for i, w in enumerate(ins):
                mutated = not np.array_equal(w, to_npy(inputs[i]))
                if mutated:
                    assert f"input_{i}.npy" in files_k, f"{what} run {k}: torch mutated input {i}, eir reports none"
                    _close(np.load(d / f"input_{i}.npy"), w, f"{what} run {k} input {i}")
            for q, w in st.items():
                if not np.array_equal(w, state0[q]):
                    assert f"state.{q}.npy" in files_k, f"{what} run {k}: torch changed {q}, eir reports {sorted(files_k)}"
                    _close(np.load(d / f"state.{q}.npy"), w, f"{what} run {k} state {q}")
            for f in files_k:
                if f.startswith("state."):
                    q = f[len("state."):-len(".npy")]
                    assert q in st and not np.array_equal(st[q], state0[q]), f"{what} run {k}: eir reports {q} written, torch left it"


def test_ops_coverage(eir):
    """`eir ops`: the counts agree with the lists, and the in-place activations
    torchvision exports (inplace=True) are among the overloads eir runs."""
    r = subprocess.run([eir, "ops"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    rows = [l.split("|")[1:4] for l in r.stdout.splitlines()[2:]]
    table = {name.strip(): (int(total), int(runs)) for name, total, runs in rows}
    kinds = {"every overload": "all", "Core ATen": "core", "in-place (`op_`)": "inplace", "`out=`": "out",
             "returns an alias of an input (view)": "view"}
    assert set(table) == set(kinds), r.stdout
    for label, kind in kinds.items():
        runs = subprocess.run([eir, "ops", "--list", kind], capture_output=True, text=True).stdout.split()
        lacks = subprocess.run([eir, "ops", "--list", kind, "--missing"], capture_output=True, text=True).stdout.split()
        assert (len(runs) + len(lacks), len(runs)) == table[label], label
        assert not set(runs) & set(lacks)
    inplace = set(subprocess.run([eir, "ops", "--list", "inplace"], capture_output=True, text=True).stdout.split())
    for op in ("aten.hardswish_.default", "aten.silu_.default", "aten.hardsigmoid_.default", "aten.relu_.default",
               "aten.arccos_.default", "aten.sigmoid_.default", "aten.clamp_.default", "aten.__iand__.Tensor"):
        assert op in inplace, op
    bad = subprocess.run([eir, "ops", "--list", "nonsense"], capture_output=True, text=True)
    assert bad.returncode == 2 and "unknown kind 'nonsense'" in bad.stderr
