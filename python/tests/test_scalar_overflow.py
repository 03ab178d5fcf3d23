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
