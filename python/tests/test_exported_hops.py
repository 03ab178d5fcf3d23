"""Live checks, against torch 2.13, of higher-order operators beside cond, map,
while_loop and scan: out_dtype, print, invoke_subgraph and
while_loop_stack_output run as torch runs them; and the table of every
higher-order operator in torch's registry (docs/OPS.md, "Higher-order operators")
matches the registry and the operators the runtime binds.
"""
from __future__ import annotations

import os
import re
import subprocess

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")
# the modules of torch 2.13 that define higher-order operators (the registry fills as they are imported)
import torch._dynamo._trace_wrapped_higher_order_op  # noqa: E402,F401
import torch._higher_order_ops  # noqa: E402,F401
import torch._higher_order_ops.triton_kernel_wrap  # noqa: E402,F401
import torch._inductor.fx_passes.control_dependencies  # noqa: E402,F401
from torch._higher_order_ops.out_dtype import out_dtype  # noqa: E402

from conftest import REPO  # noqa: E402
from test_exported_compose import Fn, eir_run  # noqa: E402
from test_exported_rnn_where import _r, compare  # noqa: E402


def export(tmp_path, f, args, strict=False, name="p"):
    ep = torch.export.export(Fn(f), tuple(args), strict=strict)
    path = str(tmp_path / f"{name}.pt2")
    torch.export.save(ep, path)
    return ep, path


def targets(ep):
    return {f"higher_order.{n.target.name()}" if isinstance(n.target, torch._ops.HigherOrderOperator) else str(n.target)
            for n in ep.graph.nodes if n.op == "call_function"}


def run_and_compare(eir, tmp_path, f, args, what, strict=False, hop=None):
    ep, path = export(tmp_path, f, args, strict)
    if hop:
        assert f"higher_order.{hop}" in targets(ep), targets(ep)
    r, out = eir_run(eir, tmp_path, path, args)
    assert r.returncode == 0, f"{what}: {r.stderr}"
    compare(out, f(*args), what)
    return r


# ---------------------------------------------------------------- out_dtype

def _i8(*shape, seed=0):
    return torch.randint(-128, 128, shape, generator=torch.Generator().manual_seed(seed), dtype=torch.int8)


OUT_DTYPE = {
    "mm_int8_int32": (lambda x, w: out_dtype(torch.ops.aten.mm.default, torch.int32, x, w),
                      lambda: (_i8(5, 40), _i8(40, 3, seed=1))),
    "mm_f16_f32": (lambda x, w: out_dtype(torch.ops.aten.mm.default, torch.float32, x, w),
                   lambda: (_r(4, 6, dtype=torch.float16), _r(6, 3, dtype=torch.float16, seed=1))),
    "mul_int8_int32": (lambda x, y: out_dtype(torch.ops.aten.mul.Tensor, torch.int32, x, y),
                       lambda: (_i8(3, 4), _i8(3, 4, seed=1))),
    "mul_scalar_f64_f32": (lambda x: out_dtype(torch.ops.aten.mul.Scalar, torch.float32, x, 3),
                           lambda: (_r(3, 4, dtype=torch.float64),)),
    "mul_int_to_float": (lambda x, y: out_dtype(torch.ops.aten.mul.Tensor, torch.float32, x, y),
                         lambda: (_i8(3, 4), _i8(3, 4, seed=1))),
    "linear_bf16_f32": (lambda x, w, b: out_dtype(torch.ops.aten.linear.default, torch.float32, x, w, b),
                        lambda: (_r(2, 5, dtype=torch.bfloat16), _r(3, 5, dtype=torch.bfloat16, seed=1),
                                 _r(3, dtype=torch.bfloat16, seed=2))),
    "conv2d_int8_int32": (lambda x, w: out_dtype(torch.ops.aten.conv2d.default, torch.int32, x, w),
                          lambda: (_i8(1, 2, 5, 5), _i8(3, 2, 3, 3, seed=1))),
}


@pytest.mark.parametrize("name", list(OUT_DTYPE))
def test_out_dtype(eir, tmp_path, name):
    f, args = OUT_DTYPE[name]
    run_and_compare(eir, tmp_path, f, args(), name, hop="out_dtype")


# ---------------------------------------------------------------- print

def _printed(f, args, capfd):
    capfd.readouterr()
    want = f(*args)
    return capfd.readouterr().out, want


def test_print(eir, tmp_path, capfd):
    """the lines eir writes to stdout are the lines torch prints, before its outputs"""
    hp = torch._higher_order_ops.print

    def f(x, y):
        hp("moo {} {} {y} {{x}} {f} {s} {b}", 3, "str", y=-2, f=0.1, s="a b", b=True)
        hp("plain")
        return x * 2, y + 1
    args = (_r(3), _r(2, seed=1))
    ep, path = export(tmp_path, f, args)
    assert "higher_order.print" in targets(ep)
    want_text, _ = _printed(ep.module(), args, capfd)
    r, out = eir_run(eir, tmp_path, path, args)
    assert r.returncode == 0, r.stderr
    compare(out, f(*args), "print")
    assert r.stdout.startswith(want_text), (r.stdout, want_text)


PRINT_TENSORS = {
    "f32_2d": lambda: _r(3, 4),
    "f32_3d": lambda: _r(2, 3, 4),
    "f32_0d": lambda: _r(),
    "f32_wrap": lambda: _r(40),
    "f32_wrap_2d": lambda: _r(3, 25),
    "f32_sci_small": lambda: _r(5) * 1e-6,
    "f32_sci_range": lambda: torch.tensor([1e-3, 5.0, 123456.0, -2.5]),
    "f32_int_mode": lambda: torch.tensor([[1.0, -20.0], [300.0, 0.0]]),
    "f32_int_mode_sci": lambda: torch.tensor([1.0, 1e9, -3.0]),
    "f32_special": lambda: torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0, 1.5]),
    "f32_zeros": lambda: torch.zeros(2, 3),
    "f32_empty": lambda: torch.zeros(0),
    "f32_empty_2d": lambda: torch.zeros(2, 0),
    "f64": lambda: _r(2, 3, dtype=torch.float64),
    "f64_long": lambda: _r(4, 30, dtype=torch.float64),
    "bf16": lambda: _r(4, dtype=torch.bfloat16),
    "f16": lambda: _r(3, dtype=torch.float16) * 100,
    "i64": lambda: torch.tensor([[-3, 10], [2000, 0]]),
    "i64_large": lambda: torch.tensor([2**62 + 1, -(2**63), 7]),
    "i64_0d": lambda: torch.tensor(2**60 + 3),
    "bool_0d": lambda: torch.tensor(True),
    "bf16_0d": lambda: torch.tensor(0.1, dtype=torch.bfloat16),
    "i32_wrap": lambda: torch.arange(-30, 30, dtype=torch.int32),
    "u8": lambda: torch.arange(0, 6, dtype=torch.uint8),
    "bool": lambda: torch.tensor([[True, False], [False, True]]),
}


@pytest.mark.parametrize("name", list(PRINT_TENSORS))
def test_print_tensor(eir, tmp_path, capfd, name):
    """a line that formats a tensor: torch's repr (default print options), as torch prints it"""
    hp = torch._higher_order_ops.print

    def f(x):
        hp("x = {x}; shape {}", x.shape[0] if x.dim() else 0, x=x)
        return x.clone()
    x = PRINT_TENSORS[name]()
    ep, path = export(tmp_path, f, (x,))
    assert "higher_order.print" in targets(ep)
    want_text, _ = _printed(ep.module(), (x,), capfd)
    r, out = eir_run(eir, tmp_path, path, (x,))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(want_text), f"eir:\n{r.stdout}\ntorch:\n{want_text}"


def test_print_complex_tensor_runs(eir, tmp_path):
    """a line that formats a complex tensor runs without printing (eir does not write
    torch's complex repr)"""
    hp = torch._higher_order_ops.print

    def f(x):
        hp("x = {x}", x=x)
        return x * 2
    x = torch.complex(_r(3), _r(3, seed=1))
    ep, path = export(tmp_path, f, (x,))
    r, out = eir_run(eir, tmp_path, path, (x,))
    assert r.returncode == 0, r.stderr
    assert "x = " not in r.stdout
    compare(out, f(x), "print complex")


# ---------------------------------------------------------------- invoke_subgraph

@torch.compiler.nested_compile_region
def _region(a, b):
    return a.cos() + b, (a * b).sum(0)


def test_invoke_subgraph(eir, tmp_path):
    def f(x, y):
        p, q = _region(x, y)
        s, t = _region(p, y + 1)
        return s * q, t
    run_and_compare(eir, tmp_path, f, (_r(3, 4), _r(3, 4, seed=1)), "invoke_subgraph", strict=True, hop="invoke_subgraph")


# ---------------------------------------------------------------- while_loop_stack_output

@pytest.mark.parametrize("strict", [False, True])
def test_while_loop_stack_output(eir, tmp_path, strict):
    """the body's outputs of every iteration, stacked (the carried operands, unsqueezed,
    when the loop runs no iteration); the trip count comes from the data"""
    from torch._higher_order_ops.while_loop import while_loop_stack_output_op

    def f(x, n, w):
        return while_loop_stack_output_op(lambda i, a, b, m, v: i < m,
                                          lambda i, a, b, m, v: (i + 1, a * 2 + v.sum(), (b @ v).sin()),
                                          (torch.zeros((), dtype=torch.int64), x, w), (n, w))
    x, w = _r(3, 4), _r(4, 4, seed=1)
    ep, path = export(tmp_path, f, (x, torch.tensor(3), w), strict)
    assert "higher_order.while_loop_stack_output" in targets(ep)
    for k, n in enumerate([3, 1, 0, 6]):
        args = (_r(3, 4, seed=k), torch.tensor(n), _r(4, 4, seed=k + 1))
        r, out = eir_run(eir, tmp_path, path, args, tag=f"run{k}")
        assert r.returncode == 0, r.stderr
        compare(out, f(*args), f"while_loop_stack_output, {n} iterations")


# ---------------------------------------------------------------- the table

def _table():
    text = open(os.path.join(REPO, "docs", "OPS.md")).read()
    i, j = text.find("<!-- hops:"), text.find("<!-- /hops -->")
    assert i >= 0 and j > i, "docs/OPS.md has no higher-order operators section"
    rows = {}
    for line in text[i:j].splitlines():
        m = re.match(r"\| `([^`]+)` \| ([^|]+) \|", line)
        if m:
            rows[m.group(1)] = m.group(2).strip()
    return rows


def _bound_hops():
    """the higher-order operators src/runtime/runtime.c binds"""
    src = open(os.path.join(REPO, "src", "runtime", "runtime.c")).read()
    names = set(re.findall(r'"torch\.ops\.higher_order\.(\w+)"', src))
    body = src[src.index("static eir_status bind_hop(eir_runtime"):]
    body = body[:body.index("\n}\n")]
    names |= set(re.findall(r'!strcmp\(t, "(\w+)"\)', body))
    return names


def test_hop_table_matches_registry_and_runtime():
    rows = _table()
    registry = set(torch._ops._higher_order_ops)
    assert set(rows) == registry, (f"docs/OPS.md lacks {sorted(registry - set(rows))}, "
                                   f"lists {sorted(set(rows) - registry)} torch does not have")
    assert set(rows.values()) <= {"runs", "refused", "cannot appear in export"}, set(rows.values())
    runs = {k for k, v in rows.items() if v == "runs"}
    bound = _bound_hops() & registry
    assert runs == bound, f"the table says runs: {sorted(runs - bound)} not bound; bound but not 'runs': {sorted(bound - runs)}"
