"""gen_vmath_ref.py — writes tests/unit/vmath_ref.h: float32 inputs and what
torch computes for them with exp, tanh, sigmoid, silu and gelu (both
approximations), on a contiguous tensor (torch's vectorised CPU kernels).
test_k_vmath.c compares eir's float32 rows with these values.

    python3 tests/unit/gen_vmath_ref.py > tests/unit/vmath_ref.h
"""
import math
import sys

import numpy as np
import torch
import torch.nn.functional as F

F32 = np.finfo(np.float32)


def inputs():
    v = [math.inf, -math.inf, math.nan, 0.0, -0.0, 1e-45, -1e-45, 1e-40, -1e-40, 1.1754942e-38, -1.1754942e-38,
         1e-30, -1e-30, 1e-8, -1e-8, 1e-4, -1e-4, 0.5, -0.5, 0.625, -0.625, 1.0, -1.0, 3.0, -3.0, 5.0, -5.0,
         9.0, -9.0, 10.0, -10.0, 15.0, -15.0, 20.0, -20.0, 50.0, -50.0, 87.0, -87.0, 88.5, 88.72, 88.73, 89.0,
         -100.0, -103.9, -104.0, -105.0, 100.0, 1e4, -1e4, 1e15, -1e15, 1e30, -1e30, float(F32.max), -float(F32.max)]
    v += list(np.linspace(-12, 12, 193))
    rng = np.random.default_rng(7)
    v += list(rng.standard_normal(96) * 3)
    v += list(np.exp(rng.uniform(-40, 4, 48)) * rng.choice([-1, 1], 48))
    return torch.tensor(np.array(v, dtype=np.float32))


def hexf(x):
    x = float(x)
    if math.isnan(x):
        return "NAN"
    if math.isinf(x):
        return "INFINITY" if x > 0 else "-INFINITY"
    return x.hex() + "f" if x != 0 else ("-0.0f" if math.copysign(1, x) < 0 else "0.0f")


def main():
    x = inputs()
    with torch.inference_mode():
        outs = [("exp", torch.exp(x)), ("tanh", torch.tanh(x)), ("sigmoid", torch.sigmoid(x)), ("silu", F.silu(x)),
                ("gelu", F.gelu(x)), ("gelu_tanh", F.gelu(x, approximate="tanh"))]
    w = sys.stdout.write
    w(f"/* vmath_ref.h — float32 values and torch {torch.__version__}'s results for them (contiguous CPU\n"
      " * tensors); written by gen_vmath_ref.py, do not edit. */\n")
    w(f"#define VMATH_REF_N {x.numel()}\n")
    for name, t in [("x", x)] + outs:
        w(f"static const float vmath_ref_{name}[VMATH_REF_N] = {{\n")
        vals = [hexf(v) for v in t.tolist()]
        for i in range(0, len(vals), 6):
            w("    " + ", ".join(vals[i:i + 6]) + ",\n")
        w("};\n")


if __name__ == "__main__":
    main()
