"""A Python number given to an op for a tensor of a narrower type (fill, full, masked_fill,
index_fill, add's alpha, clamp): torch converts it with c10::checked_convert and refuses a value
out of the type's range ("value cannot be converted to type c10::Half without overflow"); eir
refuses the same programs with torch's message, and computes torch's values at the edges it
accepts (uint8 wrapping negatives, infinities and NaN for floating types, floats into integers)."""
from __future__ import annotations

import subprocess

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from conftest import eir_outputs_by_threads, to_npy  # noqa: E402

OPS = {
    "fill_": lambda x, m, v: x.clone().fill_(v),
    "full": lambda x, m, v: torch.full((3,), v, dtype=x.dtype),
    "new_full": lambda x, m, v: x.new_full((3,), v),
    "full_like": lambda x, m, v: torch.full_like(x, v),
    "masked_fill": lambda x, m, v: x.masked_fill(m, v),
    "index_fill": lambda x, m, v: x.index_fill(0, torch.tensor([1]), v),
    "add_alpha": lambda x, m, v: torch.add(x, x, alpha=v),
    "clamp": lambda x, m, v: x.clamp(max=v),
}

NAMES = {torch.float16: "c10::Half", torch.bfloat16: "c10::BFloat16", torch.int8: "int8_t", torch.uint8: "uint8_t",
         torch.int16: "int16_t", torch.float32: "float"}


class Op(torch.nn.Module):
    def __init__(self, f, v):
        super().__init__()
        self.f, self.v = f, v

    def forward(self, x, m):
        return self.f(x, m, self.v)


def inputs(dt):
    return torch.zeros(4, dtype=dt), torch.tensor([True, False, True, False])


def save(tmp_path, f, v, dt):
    args = inputs(dt)
    ep = torch.export.export(Op(f, v), args)
    pt2 = tmp_path / "p.pt2"
    torch.export.save(ep, str(pt2))
    ins = []
    for i, a in enumerate(args):
        ins.append(str(tmp_path / f"in{i}.npy"))
        np.save(ins[-1], to_npy(a))
    return ep, args, str(pt2), ins


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("dt,v", [(torch.float16, -1e9), (torch.int8, 300), (torch.bfloat16, 1e39),
                                  (torch.uint8, -256), (torch.int16, 40000), (torch.float32, 1e39)],
                         ids=["f16", "i8", "bf16", "u8", "i16", "f32"])
def test_overflow_refused(eir, op, dt, v, tmp_path):
    f = OPS[op]
    with pytest.raises(RuntimeError, match="without overflow") as e:
        Op(f, v)(*inputs(dt))
    assert NAMES[dt] in str(e.value)
    _, _, pt2, ins = save(tmp_path, f, v, dt)
    out = tmp_path / "out"
    r = subprocess.run([eir, "run", pt2, *ins, "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert r.returncode != 0, "eir computed a value torch refuses"
    assert f"value cannot be converted to type {NAMES[dt]} without overflow" in r.stderr, r.stderr
    assert not (out.exists() and list(out.glob("*.npy"))), "outputs written for a refused run"


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("dt,v", [(torch.uint8, -1), (torch.uint8, 255), (torch.int8, -128), (torch.int8, 2.5),
                                  (torch.float16, 65504.0), (torch.float16, float("-inf")),
                                  (torch.float16, float("nan")), (torch.bfloat16, -3.0e38), (torch.int16, -32768)],
                         ids=["u8-neg", "u8-max", "i8-min", "i8-float", "f16-max", "f16-inf", "f16-nan", "bf16-big",
                              "i16-min"])
def test_edges_accepted(eir, op, dt, v, tmp_path):
    f = OPS[op]
    try:
        with torch.no_grad():
            want = Op(f, v)(*inputs(dt))
    except RuntimeError as e:  # torch refuses this combination for another reason (a float alpha, ...)
        pytest.skip(f"torch: {str(e).splitlines()[0][:80]}")
    ep, args, _, _ = save(tmp_path, f, v, dt)
    got = eir_outputs_by_threads(eir, ep, args, tmp_path, threads=(1,))[1][0]
    np.testing.assert_array_equal(got, to_npy(want))


# Further ops taking a Python number: torch refuses some out-of-range values (threshold, hardtanh,
# clamp_min, scatter's value, where on integers, constant_pad_nd, hardshrink, pow's exponent) and
# wraps or saturates others (add, mul, rsub, remainder, bitwise ops, where on floats, leaky_relu's
# slope); eir follows torch in each case: the same refusal, or the same values.
MORE = {
    "threshold_value": lambda x, m, v: torch.nn.functional.threshold(x, 0, v),
    "threshold_thr": lambda x, m, v: torch.nn.functional.threshold(x, v, 1),
    "hardtanh": lambda x, m, v: torch.ops.aten.hardtanh(x, -1, v),
    "clamp_min": lambda x, m, v: torch.clamp_min(x, v),
    "clamp_max": lambda x, m, v: torch.clamp_max(x, v),
    "clamp_lo": lambda x, m, v: x.clamp(min=v),
    "scatter_value": lambda x, m, v: x.scatter(0, torch.tensor([1, 2]), v),
    "scatter_value_reduce": lambda x, m, v: x.scatter(0, torch.tensor([1, 2]), v, reduce="add"),
    "where_other": lambda x, m, v: torch.where(m, x, v),
    "where_self": lambda x, m, v: torch.where(m, v, x),
    "pad": lambda x, m, v: torch.constant_pad_nd(x, [1, 2], v),
    "hardshrink": lambda x, m, v: torch.nn.functional.hardshrink(x, v),
    "pow": lambda x, m, v: torch.pow(x + 1, v),
    "add": lambda x, m, v: x + v,
    "mul": lambda x, m, v: (x + 1) * v,
    "rsub": lambda x, m, v: v - x,
    "remainder": lambda x, m, v: torch.remainder(x + 3, v),
    "bitwise_and": lambda x, m, v: torch.bitwise_and(x, v),
    "eq": lambda x, m, v: x == v,
    "lt": lambda x, m, v: x < v,
    "leaky_relu": lambda x, m, v: torch.nn.functional.leaky_relu(x - 1, v),
    "elu": lambda x, m, v: torch.nn.functional.elu(x - 1, v),
    "softplus": lambda x, m, v: torch.nn.functional.softplus(x - 1, v, v),
    "lerp": lambda x, m, v: torch.lerp(x, x + 1, v),
    "addcmul": lambda x, m, v: torch.addcmul(x, x + 1, x + 2, value=v),
    "fill_tensor": lambda x, m, v: x.clone().fill_(torch.tensor(v)),
    "masked_fill_tensor": lambda x, m, v: x.masked_fill(m, torch.tensor(v)),
    "index_fill_tensor": lambda x, m, v: x.index_fill(0, torch.tensor([1]), torch.tensor(v)),
    "softshrink": lambda x, m, v: torch.nn.functional.softshrink(x, abs(v)),
    "scalar_tensor": lambda x, m, v: torch.scalar_tensor(v, dtype=x.dtype) + x,
    "pow_scalar_base": lambda x, m, v: torch.pow(v, x),
    "logit_eps": lambda x, m, v: torch.logit(x, eps=v),
    "rrelu_eval": lambda x, m, v: torch.nn.functional.rrelu(x - 1, -abs(v), abs(v), training=False),
    "index_add_alpha": lambda x, m, v: x.index_add(0, torch.tensor([1]), x[:1] + 1, alpha=v),
    "addmm_beta": lambda x, m, v: torch.addmm(x.reshape(2, 2), x.reshape(2, 2) + 1, x.reshape(2, 2) + 1, beta=v),
    "addmm_alpha": lambda x, m, v: torch.addmm(x.reshape(2, 2), x.reshape(2, 2) + 1, x.reshape(2, 2) + 1, alpha=v),
    "baddbmm_alpha": lambda x, m, v: torch.baddbmm(x.reshape(1, 2, 2), x.reshape(1, 2, 2) + 1, x.reshape(1, 2, 2) + 1,
                                                   alpha=v),
    "addr_alpha": lambda x, m, v: torch.addr(x.reshape(2, 2), x[:2] + 1, x[2:] + 1, alpha=v),
    "addbmm_beta": lambda x, m, v: torch.addbmm(x.reshape(2, 2), x.reshape(1, 2, 2) + 1, x.reshape(1, 2, 2) + 1, beta=v),
    "addmv_alpha": lambda x, m, v: torch.addmv(x[:2], x.reshape(2, 2) + 1, x[2:] + 1, alpha=v),
    "arange": lambda x, m, v: torch.arange(0, 3, dtype=x.dtype) * 0 + torch.arange(0, v, v / 3, dtype=x.dtype)[:3],
}


@pytest.mark.parametrize("op", list(MORE))
@pytest.mark.parametrize("dt,v", [(torch.float16, -1e9), (torch.int8, 300), (torch.bfloat16, 1e39),
                                  (torch.uint8, -256), (torch.int16, 40000), (torch.float16, 65504.0),
                                  (torch.int8, -128), (torch.float32, 1e39)],
                         ids=["f16", "i8", "bf16", "u8", "i16", "f16-max", "i8-min", "f32"])
def test_more_ops_as_torch(eir, op, dt, v, tmp_path):
    f = MORE[op]
    try:
        with torch.no_grad():
            want = Op(f, v)(*inputs(dt))
    except RuntimeError as e:
        msg = str(e).splitlines()[0]
        if "without overflow" not in msg:
            pytest.skip(f"torch: {msg[:80]}")
        try:
            _, _, pt2, ins = save(tmp_path, f, v, dt)
        except Exception as e2:  # noqa: BLE001 - export itself refuses: nothing for eir to run
            pytest.skip(f"export: {str(e2).splitlines()[0][:80]}")
        out = tmp_path / "out"
        r = subprocess.run([eir, "run", pt2, *ins, "--out", str(out)], capture_output=True, text=True, timeout=120)
        assert r.returncode != 0, "eir computed a value torch refuses"
        assert msg in r.stderr, r.stderr
        assert not (out.exists() and list(out.glob("*.npy"))), "outputs written for a refused run"
        return
    try:
        ep = torch.export.export(Op(f, v), inputs(dt))
    except Exception as e:  # noqa: BLE001
        pytest.skip(f"export: {str(e).splitlines()[0][:80]}")
    got = eir_outputs_by_threads(eir, ep, inputs(dt), tmp_path, threads=(1,))[1][0]
    np.testing.assert_array_equal(got, to_npy(want))
