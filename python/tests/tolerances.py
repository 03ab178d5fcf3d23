"""tolerances.py — how close eir's results must be to torch's, per result dtype:
the one table every eir-vs-torch comparison uses (the zoo run suite, the per-op
suite, the offline fixtures). Standard library only, so the offline fixture
check can use it without torch.

float32 results differ from torch by summation order (matmul, convolution,
reductions) and by libm vs SLEEF in transcendental functions; half types by
where the rounding to 16 bits happens. Integer and bool results must be exact.
"""
from __future__ import annotations

# (rtol, atol) by dtype name as torch spells it after "torch."
TOLERANCES = {
    "float64": (1e-7, 1e-9),
    "float32": (1e-4, 1e-5),
    "float16": (1e-2, 1e-3),
    "bfloat16": (2e-2, 1e-2),
    "complex64": (1e-4, 1e-5),
    "complex128": (1e-7, 1e-9),
    "complex32": (1e-2, 1e-3),  # float16 parts (complex32 travels as complex64)
}

# the same by .npy descr, for files whose torch dtype is not recorded elsewhere
# (bfloat16 travels as float32: pass its torch name to tolerance() instead)
BY_NPY_DESCR = {
    "<f8": TOLERANCES["float64"],
    "<f4": TOLERANCES["float32"],
    "<f2": TOLERANCES["float16"],
    "<c8": TOLERANCES["complex64"],
    "<c16": TOLERANCES["complex128"],
}


def tolerance(dtype) -> tuple:
    """(rtol, atol) for a torch dtype or its name; (0, 0) (exact) for integers and bool."""
    name = str(dtype).replace("torch.", "")
    return TOLERANCES.get(name, (0.0, 0.0))
