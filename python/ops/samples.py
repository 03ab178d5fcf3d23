"""samples.py — sample inputs for every Core ATen op, per dtype.

SAMPLERS maps an overload name ("add.Tensor") to a function of a G (the dtype
under test and a seeded generator) that returns a list of Samples: the
positional and keyword arguments of one call. Tensor arguments the program
takes as inputs are In(base, view): the exported program receives `base` and
applies `view` inside the graph, so the kernel sees strided, transposed or
broadcast (stride-0) views, as it would in a real model. New(fn) builds a
tensor inside the graph (an `out=` buffer).

Every op gets, where it applies: an ordinary case, broadcasting, an empty
tensor, a 0-d tensor, negative dims, non-contiguous views, NaN/inf/-0 for
floating types, extremes and division edge cases for integers, and operands
of other dtypes (type promotion), Python numbers where the schema says Tensor.
The first sample of every op is an ordinary one: the sweep
(python/ops/sweep.py) calls the dtype "unsupported by torch" when torch
refuses it, and drops any other sample torch refuses.

Random ops are checked by a function of eir's outputs (shape, dtype,
distribution), not by value; ops whose output is uninitialized memory are
checked by shape and dtype ("meta").
"""
from __future__ import annotations

import math

import torch

# the dtypes of the table, in column order
DTYPES = {
    "f32": torch.float32, "f64": torch.float64, "f16": torch.float16, "bf16": torch.bfloat16,
    "i8": torch.int8, "i16": torch.int16, "i32": torch.int32, "i64": torch.int64, "u8": torch.uint8,
    "bool": torch.bool, "c64": torch.complex64, "c128": torch.complex128,
}


class In:
    """A program input: the op sees view(base)."""

    __slots__ = ("base", "view", "dynamic")

    def __init__(self, base, view=None, dynamic=None):
        self.base, self.view, self.dynamic = base, view, dynamic

    def value(self):
        return self.view(self.base) if self.view else self.base


class New:
    """A tensor made inside the graph (e.g. an `out=` buffer)."""

    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn


class Sample:
    """One call: op(*args, **kwargs). check: "value" (compare with torch),
    "meta" (shape and dtype only) or fn(got: list[np.ndarray], want: list) ->
    problem string or None (random ops)."""

    __slots__ = ("label", "args", "kwargs", "check")

    def __init__(self, label, *args, check="value", **kwargs):
        self.label, self.args, self.kwargs, self.check = label, args, kwargs, check

    def inputs(self):
        """The In placeholders of the call, in the order the program takes them."""
        out = []

        def walk(a):
            if isinstance(a, In):
                out.append(a)
            elif isinstance(a, (list, tuple)):
                for x in a:
                    walk(x)
            elif isinstance(a, dict):
                for x in a.values():
                    walk(x)

        for a in self.args:
            walk(a)
        for a in self.kwargs.values():
            walk(a)
        return out


def materialize(a, take):
    """Replace In placeholders by take(in) and New by a fresh tensor, recursively."""
    if isinstance(a, In):
        return take(a)
    if isinstance(a, New):
        return a.fn()
    if isinstance(a, list):
        return [materialize(x, take) for x in a]
    if isinstance(a, tuple):
        return tuple(materialize(x, take) for x in a)
    if isinstance(a, dict):
        return {k: materialize(v, take) for k, v in a.items()}
    return a


# ---------------------------------------------------------------------------
# views made inside the graph
# ---------------------------------------------------------------------------

def T(t):
    """t's values seen through a transpose of its last two dims (column-major)."""
    if t.dim() < 2:
        return In(t)
    return In(t.transpose(-2, -1).contiguous(), lambda b: b.transpose(-2, -1))


def S(t):
    """t's values seen through a step-2 slice of a twice-as-wide tensor; the
    elements in between are junk the kernel must not read."""
    if t.dim() == 0:
        return In(t)
    junk = torch.full_like(t, 7) if t.dtype != torch.bool else torch.ones_like(t)
    base = torch.stack([t, junk], dim=-1).flatten(-2)
    return In(base, lambda b: b[..., ::2])


def E(t, shape):
    """t broadcast to shape with stride-0 dims (expand)."""
    return In(t, lambda b: b.expand(*shape))


# ---------------------------------------------------------------------------
# values
# ---------------------------------------------------------------------------

def is_float(dt):
    return dt.is_floating_point


def is_int(dt):
    return not dt.is_floating_point and not dt.is_complex and dt != torch.bool


class G:
    """The dtype under test and a seeded generator."""

    def __init__(self, dtype, seed):
        self.dt = dtype
        self.g = torch.Generator().manual_seed(seed)

    @property
    def fl(self):
        return is_float(self.dt)

    @property
    def cx(self):
        return self.dt.is_complex

    @property
    def int(self):
        return is_int(self.dt)

    @property
    def bool(self):
        return self.dt == torch.bool

    def t(self, *shape, lo=-3.0, hi=3.0, dtype=None, nonzero=False, ilo=None, ihi=None):
        """Random values: uniform in [lo, hi) for floating/complex parts,
        integers in [ilo, ihi] (default lo..hi widened to -9..9, clamped to
        the dtype), bool 0/1; nonzero avoids 0 (divisors)."""
        dt = dtype or self.dt
        if dt == torch.bool:
            x = torch.randint(0, 2, shape, generator=self.g).bool()
            return torch.ones(shape, dtype=torch.bool) if nonzero else x
        if dt.is_floating_point or dt.is_complex:
            real = torch.float64
            x = torch.rand(shape, generator=self.g, dtype=real) * (hi - lo) + lo
            if dt.is_complex:
                y = torch.rand(shape, generator=self.g, dtype=real) * (hi - lo) + lo
                x = torch.complex(x, y)
            if nonzero:
                x = torch.where(x.abs() < 0.25, torch.full_like(x, 0.5), x)
            return x.to(dt)
        info = torch.iinfo(dt)
        a = max(int(ilo if ilo is not None else min(lo, -9)), info.min)
        b = min(int(ihi if ihi is not None else max(hi, 9)), info.max)
        if a > b:
            a, b = 0, min(9, info.max)
        x = torch.randint(a, b + 1, shape, generator=self.g, dtype=torch.int64)
        if nonzero:
            x = torch.where(x == 0, torch.full_like(x, 3), x)
        return x.to(dt)

    def special(self, dtype=None):
        """A 1-d tensor of edge values of the dtype."""
        dt = dtype or self.dt
        if dt == torch.bool:
            return torch.tensor([True, False, True, False])
        if dt.is_floating_point:
            v = [math.nan, math.inf, -math.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 1e-3,
                 3.0, -7.25, 100.0, 1e30, -1e-30]
            return torch.tensor(v, dtype=torch.float64).to(dt)
        if dt.is_complex:
            re = [math.nan, math.inf, -math.inf, 0.0, -0.0, 1.0, -2.5, 0.5, 3.0]
            im = [0.0, 1.0, -0.0, math.inf, math.nan, -2.0, 0.5, 1.5, -1e-3]
            return torch.complex(torch.tensor(re, dtype=torch.float64), torch.tensor(im, dtype=torch.float64)).to(dt)
        info = torch.iinfo(dt)
        v = [info.min, info.max, info.min + 1, info.max - 1, 0, 1, -1, 2, -2, 7, -7, 5]
        v = sorted(set(x for x in v if info.min <= x <= info.max), key=v.index)
        return torch.tensor(v, dtype=dt)

    def special_pairs(self, nonzero_rhs=False):
        """(a, b) covering every pair of edge values."""
        s = self.special()
        n = s.numel()
        a = s.repeat_interleave(n)
        b = s.repeat(n)
        if nonzero_rhs and not (self.fl or self.cx):
            keep = b != 0
            if self.dt in (torch.int32, torch.int64):
                keep &= ~((a == torch.iinfo(self.dt).min) & (b == -1))  # torch dies of SIGFPE (see _div_mode)
            a, b = a[keep], b[keep]
        return a, b


def other_dtypes(dt):
    """Operands of other dtypes for type-promotion samples: (label, dtype, 0-d?)."""
    out = [("i64", torch.int64, False), ("f64-0d", torch.float64, True), ("bool", torch.bool, False),
           ("i32-0d", torch.int32, True)]
    if dt != torch.float32:
        out.append(("f32", torch.float32, False))
    if dt in (torch.float16, torch.int8, torch.uint8):
        out.append(("bf16", torch.bfloat16, False))
    if dt.is_complex or dt == torch.float64:
        out.append(("c64", torch.complex64, False))
    return [o for o in out if o[1] != dt]


# ---------------------------------------------------------------------------
# families
# ---------------------------------------------------------------------------

def unary(g, lo=-3.0, hi=3.0, **kw):
    """Elementwise op of one tensor (kw: extra keyword arguments)."""
    r = lambda *s: g.t(*s, lo=lo, hi=hi)
    return [
        Sample("2d", In(r(3, 5)), **kw),
        Sample("0d", In(r()), **kw),
        Sample("empty", In(r(0, 4)), **kw),
        Sample("transposed", T(r(4, 3)), **kw),
        Sample("strided", S(r(2, 3, 6)), **kw),
        Sample("expanded", E(r(1, 5), (3, 5)), **kw),
        Sample("long", In(r(67)), **kw),
        Sample("special", In(g.special()), **kw),
    ]


def binary(g, nonzero_rhs=False, promote=True, lo=-3.0, hi=3.0, **kw):
    """Elementwise op of two tensors."""
    r = lambda *s, **k: g.t(*s, lo=lo, hi=hi, **k)
    nz = dict(nonzero=nonzero_rhs)
    out = [
        Sample("same", In(r(3, 5)), In(r(3, 5, **nz)), **kw),
        Sample("broadcast", In(r(3, 1)), In(r(5, **nz)), **kw),
        Sample("0d-other", In(r(3, 5)), In(r(**nz)), **kw),
        Sample("0d-both", In(r()), In(r(**nz)), **kw),
        Sample("empty", In(r(0, 5)), In(r(5, **nz)), **kw),
        Sample("views", T(r(4, 3)), S(r(4, 3, **nz)), **kw),
        Sample("expanded", E(r(1, 5), (4, 5)), In(r(4, 5, **nz)), **kw),
        Sample("long", In(r(67)), In(r(67, **nz)), **kw),
    ]
    a, b = g.special_pairs(nonzero_rhs)
    out.append(Sample("special", In(a), In(b), **kw))
    # Python numbers where the schema says Tensor (export writes `x + 2.5` so):
    # wrapped numbers promote only across categories (int tensor + 2.5 is float32)
    for v in (3, -1.5, True):
        out.append(Sample(f"py-{type(v).__name__}", In(r(3, 5)), v, **kw))
    if promote:
        for label, dt, zero in other_dtypes(g.dt):
            o = g.t(*(() if zero else (3, 5)), dtype=dt, nonzero=nonzero_rhs)
            out.append(Sample("with-" + label, In(r(3, 5)), In(o), **kw))
            out.append(Sample(label + "-with", In(o), In(r(3, 5, **nz)), **kw))
    return out


def with_scalars(g, scalars, nonzero=False, **kw):
    """Tensor op Scalar."""
    x = g.t(3, 5)
    out = [Sample(f"scalar={s!r}", In(x), s, **kw) for s in scalars]
    s0 = scalars[0]
    out += [
        Sample("0d", In(g.t()), s0, **kw),
        Sample("0d-float-scalar", In(g.t()), 2.5, **kw),
        Sample("empty", In(g.t(0, 3)), s0, **kw),
        Sample("strided", S(g.t(3, 4)), s0, **kw),
        Sample("transposed", T(g.t(4, 3)), s0, **kw),
        Sample("special", In(g.special()), s0, **kw),
    ]
    return out


SCALARS = [2, -3, 0.5, -1.5, True, 0, math.inf, -math.inf, math.nan]
NZ_SCALARS = [2, -3, 0.5, -1.5, True, 7, -1]

SAMPLERS = {}


def sampler(*names):
    def deco(fn):
        for n in names:
            SAMPLERS[n] = fn
        return fn
    return deco


def register(name, fn):
    SAMPLERS[name] = fn


# ---------------------------------------------------------------------------
# pointwise
# ---------------------------------------------------------------------------

for _n in ["abs.default", "ceil.default", "floor.default", "round.default", "trunc.default", "neg.default",
           "sign.default", "sigmoid.default", "relu.default", "bitwise_not.default", "logical_not.default",
           "isinf.default", "isnan.default", "exp.default", "expm1.default", "sin.default", "cos.default",
           "tan.default", "sinh.default", "cosh.default", "tanh.default", "atan.default", "asinh.default",
           "erf.default", "reciprocal.default"]:
    register(_n, lambda g: unary(g))

register("log.default", lambda g: unary(g, lo=0.01, hi=8))
register("log2.default", lambda g: unary(g, lo=0.01, hi=8))
register("log10.default", lambda g: unary(g, lo=0.01, hi=8))
register("log1p.default", lambda g: unary(g, lo=-0.9, hi=8))
register("sqrt.default", lambda g: unary(g, lo=0, hi=9))
register("rsqrt.default", lambda g: unary(g, lo=0.01, hi=9))
register("asin.default", lambda g: unary(g, lo=-1, hi=1))
register("acos.default", lambda g: unary(g, lo=-1, hi=1))
register("atanh.default", lambda g: unary(g, lo=-0.99, hi=0.99))
register("acosh.default", lambda g: unary(g, lo=1, hi=6))


@sampler("gelu.default")
def _gelu(g):
    return unary(g) + [Sample("tanh", In(g.t(3, 5)), approximate="tanh"),
                       Sample("tanh-special", In(g.special()), approximate="tanh")]


@sampler("elu.default")
def _elu(g):
    return unary(g) + [Sample("alpha-scale", In(g.t(3, 5)), 0.5, 2.0, 1.5),
                       Sample("int-params", In(g.special()), 2, 3, 1)]


@sampler("leaky_relu.default")
def _leaky(g):
    return unary(g) + [Sample("slope", In(g.t(3, 5)), 0.2), Sample("slope-special", In(g.special()), -1.5)]


@sampler("hardtanh.default")
def _hardtanh(g):
    return unary(g) + [Sample("bounds", In(g.t(3, 5)), -0.5, 2),
                       Sample("int-bounds", In(g.special()), -2, 5),
                       Sample("lo>hi", In(g.t(3, 5)), 1, -1)]


for _n in ["add.Tensor", "sub.Tensor", "mul.Tensor", "maximum.default", "minimum.default", "bitwise_and.Tensor",
           "bitwise_or.Tensor", "bitwise_xor.Tensor", "logical_and.default", "logical_or.default",
           "logical_xor.default", "eq.Tensor", "ne.Tensor", "lt.Tensor", "le.Tensor", "gt.Tensor", "ge.Tensor",
           "atan2.default", "div.Tensor"]:
    register(_n, lambda g: binary(g))


@sampler("add.Tensor", "sub.Tensor")
def _addsub(g):
    out = binary(g)
    out += [Sample("alpha-int", In(g.t(3, 5)), In(g.t(5)), alpha=2),
            Sample("alpha-float", In(g.t(3, 5)), In(g.t(5)), alpha=0.5),
            Sample("alpha-neg", In(g.special()), In(g.special()), alpha=-3)]
    if g.int:
        info = torch.iinfo(g.dt)
        out.append(Sample("overflow", In(torch.tensor([info.max, info.min, info.max], dtype=g.dt)),
                          In(torch.tensor([1, -1, info.max], dtype=g.dt))))
    return out


@sampler("add.Scalar", "sub.Scalar")
def _addsub_s(g):
    return with_scalars(g, SCALARS) + [Sample("alpha", In(g.t(3, 5)), 2, 3), Sample("alpha-float", In(g.t(3, 5)), 2, 0.5)]


@sampler("mul.Scalar")
def _mul_s(g):
    return with_scalars(g, SCALARS)


@sampler("div.Scalar")
def _div_s(g):
    return with_scalars(g, SCALARS + [3, -7])


@sampler("div.Tensor_mode")
def _div_mode(g):
    out = []
    for mode in ("trunc", "floor", None):
        for s in binary(g, nonzero_rhs=True, promote=mode != "floor"):
            out.append(Sample(f"{mode}/{s.label}", *s.args, rounding_mode=mode))
    if g.int and g.dt != torch.uint8:
        info = torch.iinfo(g.dt)
        # INT_MIN / -1 overflows: torch wraps for int8/int16 (computed in
        # int), and dies of SIGFPE for int32/int64
        lo_m1 = info.min if g.dt in (torch.int8, torch.int16) else info.min + 1
        a = torch.tensor([7, -7, 7, -7, lo_m1, info.min, info.max, 0, -1], dtype=g.dt)
        b = torch.tensor([2, 2, -2, -2, -1, 2, -1, -3, 5], dtype=g.dt)
        out += [Sample(f"signs-{m}", In(a), In(b), rounding_mode=m) for m in ("trunc", "floor")]
    return out


@sampler("div.Scalar_mode")
def _div_smode(g):
    out = []
    for mode in ("trunc", "floor", None):
        out += [Sample(f"{mode}/{s.label}", *s.args, rounding_mode=mode) for s in with_scalars(g, NZ_SCALARS)]
    return out


@sampler("remainder.Tensor", "fmod.Tensor")
def _rem(g):
    out = binary(g, nonzero_rhs=True)
    if g.int and g.dt != torch.uint8:
        info = torch.iinfo(g.dt)
        a = torch.tensor([7, -7, 7, -7, info.min, info.max, 0, 6, info.min], dtype=g.dt)
        b = torch.tensor([3, 3, -3, -3, -1, -1, -3, -3, 3], dtype=g.dt)
        out.append(Sample("signs", In(a), In(b)))
    return out


@sampler("remainder.Scalar", "fmod.Scalar")
def _rem_s(g):
    return with_scalars(g, NZ_SCALARS + [0.75, -2.5])


@sampler("pow.Tensor_Tensor")
def _pow_tt(g):
    out = binary(g, lo=0.1, hi=3)
    if g.int:
        b = torch.tensor([0, 1, 2, 3, 5, 7], dtype=g.dt)
        e = torch.tensor([3, 2, 7, 0, 3, 2], dtype=g.dt)
        out.append(Sample("int-exact", In(b), In(e)))
    else:
        out.append(Sample("neg-base", In(g.t(3, 5, lo=-3, hi=0)), In(torch.tensor([2.0, 3.0, 0.5, -1.0, -2.0]).to(g.dt))))
    return out


@sampler("pow.Tensor_Scalar")
def _pow_ts(g):
    exps = [2, 3, 0.5, -0.5, -1, -2, 0, 1, 1.7, 4, True, -3]
    x = g.t(3, 5, lo=-2, hi=3)
    out = [Sample(f"exp={e!r}", In(x), e) for e in exps]
    out += [Sample("special-2", In(g.special()), 2), Sample("special-0.5", In(g.special()), 0.5),
            Sample("special--1", In(g.special()), -1), Sample("0d-float", In(g.t()), 2.5),
            Sample("strided", S(g.t(3, 4)), 3), Sample("empty", In(g.t(0, 2)), 2)]
    return out


@sampler("pow.Scalar")
def _pow_s(g):
    e = g.t(3, 5, lo=-2, hi=3)
    return [Sample(f"base={b!r}", b, In(e)) for b in (2, 2.5, -1.5, 0, 1, True, -2)] + [
        Sample("special", 2.0, In(g.special())), Sample("0d", 3, In(g.t())), Sample("strided", 1.5, S(g.t(3, 4)))]


@sampler("bitwise_and.Scalar", "bitwise_or.Scalar", "bitwise_xor.Scalar")
def _bit_s(g):
    return with_scalars(g, [5, -3, True, 0, 127])


@sampler("eq.Scalar", "ne.Scalar", "lt.Scalar", "le.Scalar", "gt.Scalar", "ge.Scalar")
def _cmp_s(g):
    return with_scalars(g, [1, -2, 0.5, True, 0, math.inf, math.nan, 300])


@sampler("bitwise_and.Tensor", "bitwise_or.Tensor", "bitwise_xor.Tensor")
def _bit_t(g):
    return binary(g)


@sampler("clamp.default")
def _clamp(g):
    x = g.t(3, 5)
    out = [Sample("both", In(x), -1, 2), Sample("min-only", In(x), -0.5), Sample("max-only", In(x), None, 0.5),
           Sample("lo>hi", In(x), 2, -1), Sample("float-bounds-on-ints", In(x), -1.5, 1.5),
           Sample("special", In(g.special()), -2, 5), Sample("nan-min", In(x), math.nan, 1),
           Sample("nan-max", In(x), None, math.nan), Sample("0d", In(g.t()), 0, 1),
           Sample("empty", In(g.t(0, 3)), 0, 1), Sample("strided", S(g.t(3, 4)), -1, 1),
           Sample("transposed", T(g.t(4, 3)), 0, None)]
    return out


@sampler("clamp.Tensor")
def _clamp_t(g):
    x = g.t(3, 5)
    lo, hi = g.t(3, 1, lo=-2, hi=0), g.t(5, lo=0, hi=2)
    s = g.special()
    return [
        Sample("both", In(x), In(lo), In(hi)), Sample("min-only", In(x), In(lo)),
        Sample("max-only", In(x), None, In(hi)), Sample("lo>hi", In(x), In(hi.reshape(1, 5)), In(lo)),
        Sample("special", In(s), In(s.flip(0)), In(s.roll(3))), Sample("0d-bounds", In(x), In(g.t()), In(g.t(lo=1, hi=3))),
        Sample("promote", In(x), In(g.t(3, 5, dtype=torch.float64)), None),
        Sample("views", T(g.t(3, 5)), S(g.t(3, 5)), None), Sample("empty", In(g.t(0, 5)), In(lo[:1]), In(hi)),
    ]


@sampler("where.self")
def _where(g):
    c = torch.rand(3, 5, generator=g.g) > 0.5
    x, y = g.t(3, 5), g.t(3, 5)
    out = [
        Sample("same", In(c), In(x), In(y)), Sample("broadcast", In(c[:, :1].contiguous()), In(x[:1]), In(y[0, :1].contiguous())),
        Sample("0d", In(torch.tensor(True)), In(g.t()), In(g.t())), Sample("empty", In(c[:0]), In(x[:0]), In(y[:0])),
        Sample("views", T(c), S(x), In(y)), Sample("special", In(torch.rand(g.special().numel(), generator=g.g) > 0.5), In(g.special()),
               In(g.special().flip(0))),
    ]
    for label, dt, zero in other_dtypes(g.dt):
        out.append(Sample("with-" + label, In(c), In(x), In(g.t(*(() if zero else (3, 5)), dtype=dt))))
    return out


# ---------------------------------------------------------------------------
# casts, copies, fills, factories
# ---------------------------------------------------------------------------

@sampler("_to_copy.default")
def _to_copy(g):
    out = [Sample("to-" + k, In(g.t(3, 5, lo=-300, hi=300)), dtype=v) for k, v in DTYPES.items()]
    out += [Sample("special-to-" + k, In(g.special()), dtype=v) for k, v in DTYPES.items()]
    out += [Sample("strided", S(g.t(3, 4))), Sample("transposed-to-f64", T(g.t(4, 3)), dtype=torch.float64),
            Sample("0d", In(g.t()), dtype=torch.int32), Sample("empty", In(g.t(0, 3)), dtype=torch.float32),
            Sample("channels-last", In(g.t(2, 3, 4, 5)), dtype=torch.float64, memory_format=torch.channels_last)]
    return out


@sampler("clone.default")
def _clone(g):
    return [Sample("2d", In(g.t(3, 5))), Sample("0d", In(g.t())), Sample("empty", In(g.t(0, 2))),
            Sample("strided", S(g.t(3, 4))), Sample("transposed", T(g.t(4, 3))),
            Sample("expanded", E(g.t(1, 4), (3, 4))), Sample("special", In(g.special())),
            Sample("contiguous-format", T(g.t(4, 3)), memory_format=torch.contiguous_format),
            Sample("channels-last", In(g.t(2, 3, 4, 5)), memory_format=torch.channels_last)]


@sampler("alias.default")
def _alias(g):
    return [Sample("2d", In(g.t(3, 5))), Sample("0d", In(g.t())), Sample("strided", S(g.t(3, 4)))]


@sampler("copy.default")
def _copy(g):
    out = [Sample("same", In(g.t(3, 5)), In(g.t(3, 5))), Sample("broadcast", In(g.t(3, 5)), In(g.t(5))),
           Sample("0d-src", In(g.t(3, 5)), In(g.t())), Sample("views", T(g.t(3, 4)), S(g.t(3, 4))),
           Sample("empty", In(g.t(0, 5)), In(g.t(5))), Sample("special", In(g.t(g.special().numel())), In(g.special()))]
    for k, dt in DTYPES.items():
        if dt != g.dt:
            out.append(Sample("from-" + k, In(g.t(3, 5)), In(g.t(3, 5, lo=-300, hi=300, dtype=dt))))
    return out


@sampler("fill.Scalar")
def _fill(g):
    return [Sample(f"value={v!r}", In(g.t(3, 5)), v) for v in (2, -1, 0.5, True, math.nan, -math.inf, 300)] + [
        Sample("0d", In(g.t()), 3), Sample("empty", In(g.t(0, 3)), 1), Sample("strided", S(g.t(3, 4)), 5)]


@sampler("full_like.default")
def _full_like(g):
    return [Sample(f"value={v!r}", In(g.t(3, 5)), v) for v in (2, -1, 0.5, True, math.nan, 300)] + [
        Sample("0d", In(g.t()), 3), Sample("empty", In(g.t(0, 3)), 1), Sample("strided", S(g.t(3, 4)), 5),
        Sample("dtype", In(g.t(2, 3)), 7, dtype=torch.float64), Sample("transposed", T(g.t(4, 3)), 1)]


@sampler("full.default")
def _full(g):
    return [Sample(f"value={v!r}", [2, 3], v, dtype=g.dt) for v in (2, -1, 0.5, True, math.nan, 300)] + [
        Sample("0d", [], 3, dtype=g.dt), Sample("empty", [0, 4], 1, dtype=g.dt)]


@sampler("scalar_tensor.default")
def _scalar_tensor(g):
    return [Sample(f"value={v!r}", v, dtype=g.dt) for v in (2, -1, 0.5, True, math.nan, 300, -7.75)]


@sampler("arange.start_step")
def _arange(g):
    return [Sample("0-10", 0, 10, 1, dtype=g.dt), Sample("step2", -3, 7, 2, dtype=g.dt),
            Sample("neg-step", 10, 0, -3, dtype=g.dt), Sample("float-step", 0.5, 3.7, 0.3, dtype=g.dt),
            Sample("empty", 4, 4, 1, dtype=g.dt), Sample("float-range", -1.0, 1.0, 0.25, dtype=g.dt)]


@sampler("empty.memory_format")
def _empty(g):
    return [Sample("2d", [2, 3], dtype=g.dt, check="meta"), Sample("0d", [], dtype=g.dt, check="meta"),
            Sample("empty", [0, 3], dtype=g.dt, check="meta"),
            Sample("channels-last", [2, 3, 4, 5], dtype=g.dt, memory_format=torch.channels_last, check="meta")]


@sampler("empty_strided.default")
def _empty_strided(g):
    return [Sample("2d", [2, 3], [3, 1], dtype=g.dt, check="meta"),
            Sample("transposed", [2, 3], [1, 2], dtype=g.dt, check="meta"),
            Sample("empty", [0, 3], [3, 1], dtype=g.dt, check="meta")]


# ---------------------------------------------------------------------------
# random ops: checked by shape, dtype and distribution
# ---------------------------------------------------------------------------

def _dist(kind, dt):
    def check(got, want):
        import numpy as np
        x = got[0].astype(np.float64)
        if x.shape != tuple(want[0].shape):
            return f"shape {x.shape}, torch {tuple(want[0].shape)}"
        if x.size < 1000:
            return None
        m, s = float(x.mean()), float(x.std())
        tol = 0.05 if dt in (torch.float16, torch.bfloat16) else 0.03
        if kind == "uniform":
            if x.min() < 0 or x.max() > 1 or (x.max() == 1 and dt in (torch.float32, torch.float64)):
                return f"values outside [0, 1): min {x.min()}, max {x.max()}"
            if abs(m - 0.5) > tol or abs(s - 12 ** -0.5) > tol:
                return f"mean {m:.4f} std {s:.4f}, want 0.5 and 0.2887"
        else:
            if abs(m) > tol or abs(s - 1) > tol:
                return f"mean {m:.4f} std {s:.4f}, want 0 and 1"
            if abs(float(((x > 1) | (x < -1)).mean()) - 0.3173) > tol:
                return "the share of |x| > 1 is not 31.7%"
        return None
    return check


@sampler("rand.default")
def _rand(g):
    return [Sample("big", [100, 100], dtype=g.dt, check=_dist("uniform", g.dt)),
            Sample("empty", [0, 3], dtype=g.dt, check="meta"), Sample("0d", [], dtype=g.dt, check=_dist("uniform", g.dt))]


@sampler("randn.default")
def _randn(g):
    return [Sample("big", [100, 100], dtype=g.dt, check=_dist("normal", g.dt)),
            Sample("empty", [0, 3], dtype=g.dt, check="meta")]


def _is_perm(got, want):
    import numpy as np
    x = got[0]
    if x.shape != tuple(want[0].shape):
        return f"shape {x.shape}, torch {tuple(want[0].shape)}"
    if not np.array_equal(np.sort(x.astype(np.int64)), np.arange(x.size)):
        return "not a permutation of 0..n-1"
    if x.size > 20 and np.array_equal(x.astype(np.int64), np.arange(x.size)):
        return "the identity permutation"
    return None


@sampler("randperm.default")
def _randperm(g):
    return [Sample("n=100", 100, dtype=g.dt, check=_is_perm), Sample("n=0", 0, dtype=g.dt, check=_is_perm),
            Sample("n=1", 1, dtype=g.dt, check=_is_perm)]


def _dropout_check(p, x):
    def check(got, want):
        import numpy as np
        out, mask = got
        if out.shape != x.shape or mask.shape != x.shape or mask.dtype != np.bool_:
            return f"shapes {out.shape} {mask.shape} / mask dtype {mask.dtype}"
        xs = x.numpy() if x.is_complex() else x.double().numpy()
        keep = mask.astype(bool)
        scaled = xs * (1.0 / (1.0 - p))
        if not np.allclose(out[keep], scaled[keep], rtol=2e-2, atol=1e-2) or np.any(out[~keep] != 0):
            return "output is not input * mask / (1 - p)"
        share = float(keep.mean())
        if abs(share - (1 - p)) > 0.04:
            return f"kept {share:.3f} of the elements, want {1 - p}"
        return None
    return check


@sampler("native_dropout.default")
def _dropout(g):
    x = g.t(100, 100, lo=0.5, hi=2)
    return [Sample("train", In(x), 0.3, True, check=_dropout_check(0.3, x)),
            Sample("eval", In(g.t(3, 5)), 0.3, False), Sample("p=0", In(x), 0.0, True, check=_dropout_check(0.0, x))]


# ---------------------------------------------------------------------------
# reductions, scans, sorting
# ---------------------------------------------------------------------------

def _red_inputs(g):
    x = g.t(3, 4, 5)
    nan = g.t(3, 4)
    if g.fl or g.cx:
        nan[1, 2] = math.nan
        nan[2, 0] = math.inf
    return x, nan


@sampler("amax.default", "amin.default")
def _amax(g):
    x, nan = _red_inputs(g)
    return [Sample("dim1", In(x), [1]), Sample("dim-1-keep", In(x), [-1], True), Sample("dims02", In(x), [0, 2]),
            Sample("all", In(x)), Sample("nan", In(nan), [1]), Sample("0d", In(g.t()), [0]),
            Sample("0d-all", In(g.t())), Sample("empty-keep", In(g.t(0, 4)), [1]),
            Sample("transposed", T(g.t(5, 4)), [0]), Sample("strided", S(g.t(3, 4)), [-1]),
            Sample("special", In(g.special()), [0]), Sample("long", In(g.t(4, 67)), [1])]


@sampler("any.default")
def _any(g):
    z = torch.zeros(3, 4, dtype=g.dt)
    return [Sample("random", In(g.t(3, 4))), Sample("zeros", In(z)), Sample("0d", In(g.t())),
            Sample("empty", In(g.t(0, 3))), Sample("strided", S(g.t(3, 4))), Sample("special", In(g.special()))]


@sampler("any.dim")
def _any_dim(g):
    x = g.t(3, 4, 5)
    x[1] = 0
    return [Sample("dim1", In(x), 1), Sample("dim-1-keep", In(x), -1, True), Sample("0d", In(g.t()), 0),
            Sample("empty", In(g.t(0, 3)), 1), Sample("empty-reduced", In(g.t(3, 0)), 1),
            Sample("transposed", T(g.t(5, 4)), 0), Sample("special", In(g.special()), 0)]


@sampler("any.dims")
def _any_dims(g):
    x = g.t(3, 4, 5)
    x[1] = 0
    return [Sample("dims02", In(x), [0, 2]), Sample("none", In(x), None), Sample("dim-1-keep", In(x), [-1], True),
            Sample("empty-list", In(x), []), Sample("0d", In(g.t()), [0]), Sample("strided", S(g.t(3, 4)), [1])]


@sampler("argmax.default", "argmin.default")
def _argmax(g):
    x, nan = _red_inputs(g)
    ties = torch.tensor([[1, 3, 3, 0], [2, 2, 1, 2]], dtype=torch.int64).to(g.dt)
    return [Sample("flat", In(x)), Sample("dim1", In(x), 1), Sample("dim-1-keep", In(x), -1, True),
            Sample("nan", In(nan), 1), Sample("nan-flat", In(nan)), Sample("ties", In(ties), 1),
            Sample("0d", In(g.t())), Sample("0d-dim", In(g.t()), 0), Sample("transposed", T(g.t(5, 4)), 0),
            Sample("strided", S(g.t(3, 4)), 1), Sample("long", In(g.t(3, 67)), 1)]


@sampler("max.dim", "min.dim")
def _maxdim(g):
    x, nan = _red_inputs(g)
    ties = torch.tensor([[1, 3, 3, 0], [2, 2, 1, 2]], dtype=torch.int64).to(g.dt)
    return [Sample("dim1", In(x), 1), Sample("dim-1-keep", In(x), -1, True), Sample("nan", In(nan), 1),
            Sample("ties", In(ties), 1), Sample("0d", In(g.t()), 0), Sample("transposed", T(g.t(5, 4)), 0),
            Sample("strided", S(g.t(3, 4)), 1), Sample("empty", In(g.t(0, 4)), 1), Sample("long", In(g.t(3, 67)), 1)]


@sampler("mean.default")
def _mean(g):
    x, nan = _red_inputs(g)
    return [Sample("3d", In(x)), Sample("nan", In(nan)), Sample("0d", In(g.t())), Sample("empty", In(g.t(0, 3))),
            Sample("strided", S(g.t(3, 4))), Sample("dtype-f64", In(x), dtype=torch.float64),
            Sample("long", In(g.t(1000)))]


@sampler("mean.dim")
def _mean_dim(g):
    x, nan = _red_inputs(g)
    return [Sample("dim1", In(x), [1]), Sample("dims-keep", In(x), [0, -1], True), Sample("none", In(x), None),
            Sample("nan", In(nan), [1]), Sample("0d", In(g.t()), [0]), Sample("empty-reduced", In(g.t(3, 0)), [1]),
            Sample("transposed", T(g.t(5, 4)), [0]), Sample("dtype-f64", In(x), [2], dtype=torch.float64),
            Sample("long", In(g.t(3, 500)), [1])]


@sampler("sum.dim_IntList")
def _sum(g):
    x, nan = _red_inputs(g)
    out = [Sample("dim1", In(x), [1]), Sample("dims-keep", In(x), [0, -1], True), Sample("none", In(x), None),
           Sample("empty-list", In(x), []), Sample("nan", In(nan), [1]), Sample("0d", In(g.t()), [0]),
           Sample("empty-reduced", In(g.t(3, 0)), [1]), Sample("transposed", T(g.t(5, 4)), [0]),
           Sample("strided", S(g.t(3, 4)), [1]), Sample("dtype-f64", In(x), [2], dtype=torch.float64),
           Sample("dtype-i32", In(x), [2], dtype=torch.int32), Sample("long", In(g.t(3, 1000)), [1]),
           Sample("special", In(g.special()), [0])]
    if g.int:
        info = torch.iinfo(g.dt)
        out.append(Sample("overflow", In(torch.full((4,), info.max, dtype=g.dt)), [0]))
    return out


@sampler("prod.default")
def _prod(g):
    x = g.t(3, 4, lo=-1.5, hi=1.5)
    return [Sample("2d", In(x)), Sample("0d", In(g.t())), Sample("empty", In(g.t(0, 3))),
            Sample("strided", S(g.t(2, 3, lo=-1.5, hi=1.5))), Sample("dtype-f64", In(x), dtype=torch.float64),
            Sample("special", In(g.special()))]


@sampler("prod.dim_int")
def _prod_dim(g):
    x = g.t(3, 4, 5, lo=-1.5, hi=1.5)
    return [Sample("dim1", In(x), 1), Sample("dim-1-keep", In(x), -1, True), Sample("0d", In(g.t()), 0),
            Sample("empty-reduced", In(g.t(3, 0)), 1), Sample("transposed", T(g.t(5, 4, lo=-1.5, hi=1.5)), 0),
            Sample("dtype-f64", In(x), 2, dtype=torch.float64), Sample("special", In(g.special()), 0)]


@sampler("var.correction")
def _var_c(g):
    x, nan = _red_inputs(g)
    return [Sample("dim1", In(x), [1]), Sample("all", In(x)), Sample("dims-keep", In(x), [0, -1], keepdim=True),
            Sample("corr0", In(x), [2], correction=0), Sample("corr2", In(x), [2], correction=2),
            Sample("corr-float", In(x), [2], correction=0.5),
            Sample("nan", In(nan), [1]), Sample("single", In(g.t(3, 1)), [1]), Sample("0d", In(g.t()), None),
            Sample("empty-reduced", In(g.t(3, 0)), [1]), Sample("transposed", T(g.t(5, 4)), [0]),
            Sample("long", In(g.t(3, 500)), [1])]


@sampler("var.dim")
def _var_d(g):
    x, nan = _red_inputs(g)
    return [Sample("dim1", In(x), [1]), Sample("biased", In(x), [1], False), Sample("keep", In(x), [-1], True, True),
            Sample("none", In(x), None), Sample("nan", In(nan), [1]), Sample("strided", S(g.t(3, 4)), [1])]


@sampler("cumsum.default")
def _cumsum(g):
    x, nan = _red_inputs(g)
    return [Sample("dim1", In(x), 1), Sample("dim-1", In(x), -1), Sample("nan", In(nan), 1),
            Sample("0d", In(g.t()), 0), Sample("empty", In(g.t(0, 3)), 1), Sample("transposed", T(g.t(5, 4)), 0),
            Sample("strided", S(g.t(3, 4)), 1), Sample("dtype-f64", In(x), 2, dtype=torch.float64),
            Sample("special", In(g.special()), 0), Sample("long", In(g.t(2, 300)), 1)]


@sampler("_softmax.default", "_log_softmax.default")
def _softmax(g):
    x, nan = _red_inputs(g)
    return [Sample("dim1", In(x), 1, False), Sample("dim-1", In(x), -1, False), Sample("nan", In(nan), 1, False),
            Sample("0d", In(g.t()), 0, False), Sample("empty", In(g.t(0, 3)), 1, False),
            Sample("transposed", T(g.t(5, 4)), 0, False), Sample("strided", S(g.t(3, 4)), 1, False),
            Sample("special", In(g.special()), 0, False), Sample("large", In(g.t(3, 4, lo=50, hi=90)), 1, False),
            Sample("long", In(g.t(3, 100)), 1, False)]


def _distinct(g, *shape):
    """Distinct values (no ties), a random permutation of a range fitting the dtype."""
    n = math.prod(shape)
    if g.bool:
        return g.t(*shape)
    base = torch.randperm(n, generator=g.g).to(torch.float64)
    if g.int:
        info = torch.iinfo(g.dt)
        base = base + max(info.min, -(n // 2))
    else:
        base = base * 0.25 - n / 8
    return base.reshape(shape).to(g.dt)


def _ties_check(x, dim=-1):
    """sort/topk with ties (bool): the order of equal elements is torch's
    choice, so compare the values, and check that the indices pick them from
    the input."""
    def check(got, want):
        import numpy as np
        vals, idx = got
        if vals.shape != tuple(want[0].shape) or not np.array_equal(vals, want[0].numpy()):
            return "values differ from torch's"
        xs = x.numpy()
        if idx.size and (idx.min() < 0 or idx.max() >= (xs.shape[dim] if xs.ndim else 1)):
            return "index out of range"
        picked = np.take_along_axis(xs, idx, axis=dim) if xs.ndim else xs
        return None if np.array_equal(picked, vals) else "indices do not pick the values"
    return check


@sampler("sort.default")
def _sort(g):
    if g.bool:
        x = g.t(3, 40)
        return [Sample("last", In(x), check=_ties_check(x)), Sample("dim0", In(x), 0, check=_ties_check(x, 0)),
                Sample("desc", In(x), -1, True, check=_ties_check(x)), Sample("0d", In(g.t()))]
    x = _distinct(g, 3, 7)
    nan = _distinct(g, 2, 6)
    if g.fl:
        nan[0, 1] = math.nan
        nan[1, 4] = -math.inf
    return [Sample("last", In(x)), Sample("dim0", In(x), 0), Sample("desc", In(x), -1, True), Sample("nan", In(nan)),
            Sample("nan-desc", In(nan), 1, True), Sample("0d", In(g.t())), Sample("empty", In(g.t(0, 3))),
            Sample("transposed", T(_distinct(g, 7, 3))), Sample("strided", S(_distinct(g, 3, 5))),
            Sample("long", In(_distinct(g, 2, 100)))]


@sampler("topk.default")
def _topk(g):
    if g.bool:
        x = g.t(3, 40)
        return [Sample("k2", In(x), 2, check=_ties_check(x)), Sample("smallest", In(x), 3, -1, False, check=_ties_check(x))]
    x = _distinct(g, 3, 7)
    nan = _distinct(g, 2, 6)
    if g.fl:
        nan[0, 1] = math.nan
    return [Sample("k2", In(x), 2), Sample("k3-dim0", In(x), 2, 0), Sample("smallest", In(x), 3, -1, False),
            Sample("k0", In(x), 0), Sample("nan", In(nan), 2), Sample("0d", In(g.t()), 1),
            Sample("transposed", T(_distinct(g, 7, 3)), 2), Sample("strided", S(_distinct(g, 3, 5)), 4),
            Sample("long", In(_distinct(g, 2, 100)), 5)]


# ---------------------------------------------------------------------------
# views (no kernel: the output shares the input's storage)
# ---------------------------------------------------------------------------

@sampler("as_strided.default")
def _as_strided(g):
    x = g.t(4, 6)
    return [Sample("window", In(x), [3, 3], [6, 1], 2), Sample("overlap", In(x), [4, 4], [1, 1]),
            Sample("0d", In(x), [], [], 5), Sample("empty", In(x), [0, 2], [1, 1])]


@sampler("diagonal.default")
def _diagonal(g):
    x = g.t(3, 4, 5)
    return [Sample("main", In(x)), Sample("offset", In(x), 1), Sample("neg-offset-dims", In(x), -1, -1, 0),
            Sample("off-range", In(x), 9), Sample("transposed", T(g.t(5, 4)))]


@sampler("expand.default")
def _expand(g):
    return [Sample("rows", In(g.t(1, 4)), [3, 4]), Sample("minus1", In(g.t(3, 1)), [2, -1, 5]),
            Sample("0d", In(g.t()), [2, 2]), Sample("empty", In(g.t(1, 3)), [0, 3]), Sample("strided", S(g.t(1, 3)), [2, 3])]


@sampler("permute.default")
def _permute(g):
    x = g.t(2, 3, 4)
    return [Sample("201", In(x), [2, 0, 1]), Sample("neg", In(x), [-1, -3, -2]), Sample("0d", In(g.t()), []),
            Sample("strided", S(g.t(3, 4)), [1, 0])]


@sampler("select.int")
def _select(g):
    x = g.t(3, 4, 5)
    return [Sample("dim1", In(x), 1, 2), Sample("neg", In(x), -1, -2), Sample("1d", In(g.t(5)), 0, 3),
            Sample("strided", S(g.t(3, 4)), 1, 1)]


@sampler("slice.Tensor")
def _slice(g):
    x = g.t(6, 7)
    return [Sample("range", In(x), 0, 1, 4), Sample("step", In(x), 1, 0, 7, 2), Sample("neg", In(x), -1, -3),
            Sample("past-end", In(x), 0, 2, 100), Sample("empty", In(x), 1, 5, 2), Sample("none", In(x), 1, None, None, 3),
            Sample("strided", S(g.t(3, 8)), 1, 1, 3)]


@sampler("split_with_sizes.default")
def _split(g):
    x = g.t(6, 5)
    return [Sample("dim0", In(x), [2, 4]), Sample("dim-1", In(x), [1, 0, 4], -1), Sample("strided", S(g.t(3, 4)), [1, 3], 1)]


@sampler("squeeze.dim")
def _squeeze(g):
    return [Sample("dim1", In(g.t(3, 1, 4)), 1), Sample("neg", In(g.t(3, 4, 1)), -1), Sample("no-op", In(g.t(3, 4)), 0),
            Sample("0d", In(g.t()), 0)]


@sampler("squeeze.dims")
def _squeezes(g):
    return [Sample("dims", In(g.t(1, 3, 1, 4)), [0, 2]), Sample("neg", In(g.t(3, 1, 1)), [-1, -2]),
            Sample("mixed", In(g.t(1, 3)), [0, 1]), Sample("0d", In(g.t()), [])]


@sampler("unsqueeze.default")
def _unsqueeze(g):
    return [Sample("dim0", In(g.t(3, 4)), 0), Sample("end", In(g.t(3, 4)), 2), Sample("neg", In(g.t(3, 4)), -1),
            Sample("0d", In(g.t()), 0), Sample("strided", S(g.t(3, 4)), 1)]


@sampler("view.default")
def _view(g):
    x = g.t(4, 6)
    return [Sample("3d", In(x), [2, 3, 4]), Sample("minus1", In(x), [-1, 8]), Sample("flat", In(x), [24]),
            Sample("0d", In(g.t(1)), []), Sample("empty", In(g.t(0, 3)), [3, 0])]


# ---------------------------------------------------------------------------
# data movement
# ---------------------------------------------------------------------------

@sampler("cat.default")
def _cat(g):
    a, b = g.t(2, 3), g.t(4, 3)
    out = [Sample("dim0", [In(a), In(b)]), Sample("dim1", [In(a), In(g.t(2, 5))], 1),
           Sample("neg", [In(a), In(g.t(2, 1)), In(g.t(2, 2))], -1), Sample("one", [In(a)]),
           Sample("empty-legacy", [In(a), In(g.t(0))]), Sample("empty", [In(g.t(0, 3)), In(a)]),
           Sample("views", [T(g.t(2, 3)), S(g.t(3, 3))], 0)]
    for label, dt, _ in other_dtypes(g.dt):
        if not _:
            out.append(Sample("with-" + label, [In(a), In(g.t(1, 3, dtype=dt))]))
    return out


@sampler("constant_pad_nd.default")
def _cpad(g):
    x = g.t(2, 3, 4)
    return [Sample("last", In(x), [1, 2]), Sample("two-dims", In(x), [1, 0, 2, 1], 2.5),
            Sample("negative", In(x), [-1, 1]), Sample("int-value", In(x), [1, 1, 1, 1, 1, 1], 3),
            Sample("nan-value", In(x), [1, 1], math.nan), Sample("strided", S(g.t(3, 4)), [2, 2]),
            Sample("empty", In(g.t(0, 2)), [1, 1])]


@sampler("flip.default")
def _flip(g):
    x = g.t(2, 3, 4)
    return [Sample("last", In(x), [-1]), Sample("two", In(x), [0, 2]), Sample("none", In(x), []),
            Sample("0d", In(g.t()), []), Sample("transposed", T(g.t(4, 3)), [0]), Sample("empty", In(g.t(0, 3)), [0])]


def _index(n, *shape, g):
    return torch.randint(-n, n, shape, generator=g.g)


@sampler("gather.default")
def _gather(g):
    x = g.t(3, 5)
    return [Sample("dim1", In(x), 1, In(torch.randint(0, 5, (3, 4), generator=g.g))),
            Sample("dim0", In(x), 0, In(torch.randint(0, 3, (2, 5), generator=g.g))),
            Sample("neg-dim", In(x), -1, In(torch.randint(0, 5, (2, 2), generator=g.g))),
            Sample("empty", In(x), 1, In(torch.zeros(3, 0, dtype=torch.int64))),
            Sample("0d", In(g.t()), 0, In(torch.tensor(0))),
            Sample("views", T(g.t(3, 5)), 1, S(torch.randint(0, 5, (3, 2), generator=g.g)))]


@sampler("index.Tensor")
def _index_t(g):
    x = g.t(4, 5, 6)
    i = _index(4, 3, g=g)
    mask = torch.rand(4, 5, generator=g.g) > 0.5
    return [Sample("first", In(x), [In(i)]), Sample("middle", In(x), [None, In(_index(5, 2, 2, g=g))]),
            Sample("two", In(x), [In(i), None, In(_index(6, 3, g=g))]),
            Sample("broadcast", In(x), [In(_index(4, 2, 1, g=g)), In(_index(5, 3, g=g))]),
            Sample("bool-mask", In(x), [In(mask)]), Sample("empty", In(x), [In(torch.zeros(0, dtype=torch.int64))]),
            Sample("i32", In(x), [In(i.int())]), Sample("views", T(g.t(6, 4)), [In(i)])]


@sampler("index_put.default")
def _index_put(g):
    x = g.t(4, 5)
    uniq = torch.randperm(4, generator=g.g)[:3]
    return [Sample("rows", In(x), [In(uniq)], In(g.t(3, 5))),
            Sample("broadcast-value", In(x), [In(uniq)], In(g.t(5))),
            Sample("two", In(x), [In(uniq), In(torch.tensor([0, 4, -1]))], In(g.t(3))),
            Sample("accumulate", In(x), [In(torch.tensor([1, 1, 3, -3]))], In(g.t(4, 5)), True),
            Sample("mask", In(x), [In(torch.rand(4, 5, generator=g.g) > 0.5)], In(g.t())),
            Sample("0d-value", In(x), [None, In(torch.tensor([1, 3]))], In(g.t())),
            Sample("views", T(g.t(4, 5)), [In(uniq)], S(g.t(3, 5)))]


@sampler("index_select.default")
def _index_select(g):
    x = g.t(4, 5)
    return [Sample("dim0", In(x), 0, In(torch.tensor([3, 0, 0, 2]))), Sample("dim-1", In(x), -1, In(torch.tensor([4, 1]))),
            Sample("i32", In(x), 1, In(torch.tensor([2, 2], dtype=torch.int32))),
            Sample("empty", In(x), 0, In(torch.zeros(0, dtype=torch.int64))),
            Sample("0d", In(g.t()), 0, In(torch.tensor([0]))),
            Sample("views", T(g.t(4, 5)), 1, In(torch.tensor([1, 3])))]


@sampler("masked_scatter.default")
def _masked_scatter(g):
    x = g.t(3, 4)
    m = torch.rand(3, 4, generator=g.g) > 0.5
    return [Sample("2d", In(x), In(m), In(g.t(12))), Sample("broadcast", In(x), In(m[0].clone()), In(g.t(3, 4))),
            Sample("views", T(g.t(3, 4)), In(m), S(g.t(3, 4)))]


@sampler("nonzero.default")
def _nonzero(g):
    x = g.t(3, 4)
    x[1] = 0
    return [Sample("2d", In(x)), Sample("1d", In(g.special())), Sample("zeros", In(torch.zeros(3, dtype=g.dt))),
            Sample("transposed", T(g.t(4, 3)))]


def _pads(g, rank, n):
    x = g.t(*([2, 3, 4, 5, 6][:rank]))
    return x


@sampler("reflection_pad1d.default")
def _rpad1(g):
    return [Sample("3d", In(g.t(2, 3, 5)), [2, 3]), Sample("2d", In(g.t(3, 5)), [1, 0]),
            Sample("negative", In(g.t(2, 3, 5)), [-1, 2]), Sample("strided", S(g.t(2, 3, 5)), [2, 2])]


@sampler("reflection_pad2d.default")
def _rpad2(g):
    return [Sample("4d", In(g.t(2, 3, 4, 5)), [2, 3, 1, 2]), Sample("3d", In(g.t(3, 4, 5)), [1, 0, 0, 3]),
            Sample("transposed", T(g.t(2, 5, 4)), [1, 1, 1, 1])]


@sampler("reflection_pad3d.default")
def _rpad3(g):
    return [Sample("5d", In(g.t(1, 2, 3, 4, 5)), [1, 2, 1, 0, 2, 1]), Sample("4d", In(g.t(2, 3, 4, 5)), [1, 1, 2, 2, 0, 1])]


@sampler("replication_pad2d.default")
def _reppad2(g):
    return [Sample("4d", In(g.t(2, 3, 4, 5)), [2, 3, 1, 2]), Sample("3d", In(g.t(3, 4, 5)), [1, 0, 0, 6]),
            Sample("negative", In(g.t(2, 3, 4, 5)), [-1, 2, 1, -2]), Sample("transposed", T(g.t(2, 5, 4)), [1, 1, 1, 1])]


@sampler("replication_pad3d.default")
def _reppad3(g):
    return [Sample("5d", In(g.t(1, 2, 3, 4, 5)), [1, 2, 1, 0, 2, 1]), Sample("4d", In(g.t(2, 3, 4, 5)), [3, 1, 2, 2, 0, 1])]


@sampler("repeat.default")
def _repeat(g):
    return [Sample("2d", In(g.t(2, 3)), [2, 3]), Sample("more-dims", In(g.t(2, 3)), [2, 1, 2]),
            Sample("zero", In(g.t(2, 3)), [0, 2]), Sample("0d", In(g.t()), [3]), Sample("strided", S(g.t(2, 3)), [2, 2])]


def _perm_index(g, rows, cols, n):
    """Per row, distinct indices into 0..n-1 (scatter without duplicates)."""
    return torch.stack([torch.randperm(n, generator=g.g)[:cols] for _ in range(rows)])


@sampler("scatter.src")
def _scatter_src(g):
    x = g.t(3, 5)
    return [Sample("dim1", In(x), 1, In(_perm_index(g, 3, 3, 5)), In(g.t(3, 4))),
            Sample("dim0", In(x), 0, In(_perm_index(g, 5, 2, 3).t().contiguous()), In(g.t(2, 5))),
            Sample("neg", In(x), -1, In(_perm_index(g, 2, 2, 5)), In(g.t(2, 2))),
            Sample("empty", In(x), 1, In(torch.zeros(3, 0, dtype=torch.int64)), In(g.t(3, 0))),
            Sample("views", T(g.t(3, 5)), 1, In(_perm_index(g, 3, 2, 5)), S(g.t(3, 2)))]


@sampler("scatter.value")
def _scatter_value(g):
    x = g.t(3, 5)
    i = _perm_index(g, 3, 3, 5)
    return [Sample("int", In(x), 1, In(i), 2), Sample("float", In(x), 1, In(i), 0.5), Sample("bool", In(x), 1, In(i), True),
            Sample("nan", In(x), 0, In(_perm_index(g, 5, 2, 3).t().contiguous()), math.nan),
            Sample("views", T(g.t(3, 5)), -1, In(i), 3)]


@sampler("scatter_add.default")
def _scatter_add(g):
    x = g.t(3, 5)
    return [Sample("dim1-dups", In(x), 1, In(torch.randint(0, 5, (3, 6), generator=g.g)), In(g.t(3, 6))),
            Sample("dim0", In(x), 0, In(torch.randint(0, 3, (4, 5), generator=g.g)), In(g.t(4, 5))),
            Sample("neg", In(x), -1, In(torch.randint(0, 5, (2, 2), generator=g.g)), In(g.t(2, 3))),
            Sample("views", T(g.t(3, 5)), 1, In(torch.randint(0, 5, (3, 2), generator=g.g)), S(g.t(3, 2)))]


@sampler("scatter_reduce.two")
def _scatter_reduce(g):
    x = g.t(3, 5)
    i = torch.randint(0, 5, (3, 6), generator=g.g)
    src = g.t(3, 6)
    out = []
    for red in ("sum", "prod", "mean", "amax", "amin"):
        out.append(Sample(red, In(x), 1, In(i), In(src), red))
        out.append(Sample(red + "-exclude", In(x), 1, In(i), In(src), red, include_self=False))
    nan = g.t(3, 6)
    if g.fl:
        nan[0, 0] = math.nan
    out.append(Sample("amax-nan", In(x), 1, In(i), In(nan), "amax"))
    out.append(Sample("dim0", In(x), 0, In(torch.randint(0, 3, (4, 5), generator=g.g)), In(g.t(4, 5)), "sum"))
    return out


@sampler("select_scatter.default")
def _select_scatter(g):
    x = g.t(3, 4, 5)
    return [Sample("dim1", In(x), In(g.t(3, 5)), 1, 2), Sample("neg", In(x), In(g.t(3, 4)), -1, -1),
            Sample("1d", In(g.t(5)), In(g.t()), 0, 3), Sample("views", T(g.t(5, 3)), S(g.t(3)), 0, 1)]


@sampler("slice_scatter.default")
def _slice_scatter(g):
    x = g.t(6, 7)
    return [Sample("range", In(x), In(g.t(3, 7)), 0, 1, 4), Sample("step", In(x), In(g.t(6, 4)), 1, 0, 7, 2),
            Sample("neg", In(x), In(g.t(6, 2)), -1, -2), Sample("all", In(x), In(g.t(6, 7))),
            Sample("empty", In(x), In(g.t(0, 7)), 0, 3, 3), Sample("views", T(g.t(6, 7)), S(g.t(2, 7)), 0, 4)]


@sampler("embedding.default")
def _embedding(g):
    w = g.t(10, 4)
    return [Sample("1d", In(w), In(torch.tensor([1, 0, 9, 1]))), Sample("2d", In(w), In(torch.randint(0, 10, (2, 3), generator=g.g))),
            Sample("padding-idx", In(w), In(torch.tensor([2, 0, 2])), 2), Sample("0d", In(w), In(torch.tensor(3))),
            Sample("i32", In(w), In(torch.tensor([4, 5], dtype=torch.int32))),
            Sample("views", T(g.t(10, 4)), In(torch.tensor([0, 7])))]


# ---------------------------------------------------------------------------
# linear algebra, convolution, pooling, normalization
# ---------------------------------------------------------------------------

@sampler("mm.default")
def _mm(g):
    return [Sample("2x3x4", In(g.t(2, 3)), In(g.t(3, 4))), Sample("transposed", T(g.t(3, 5)), T(g.t(5, 2))),
            Sample("strided", S(g.t(4, 3)), In(g.t(3, 2))), Sample("empty-k", In(g.t(2, 0)), In(g.t(0, 3))),
            Sample("empty-m", In(g.t(0, 3)), In(g.t(3, 2))), Sample("big", In(g.t(33, 40)), In(g.t(40, 17))),
            Sample("nan", In(torch.tensor([[math.nan, 1.0], [2.0, 3.0]]).to(g.dt) if g.fl else g.t(2, 2)), In(g.t(2, 2)))]


@sampler("bmm.default")
def _bmm(g):
    return [Sample("2x3x4x5", In(g.t(2, 3, 4)), In(g.t(2, 4, 5))), Sample("transposed", T(g.t(2, 4, 3)), T(g.t(2, 3, 5))),
            Sample("empty-batch", In(g.t(0, 3, 4)), In(g.t(0, 4, 2))), Sample("empty-k", In(g.t(2, 3, 0)), In(g.t(2, 0, 2))),
            Sample("big", In(g.t(3, 20, 30)), In(g.t(3, 30, 10)))]


@sampler("addmm.default")
def _addmm(g):
    m1, m2 = g.t(3, 4), g.t(4, 5)
    nanbias = g.t(3, 5)
    if g.fl:
        nanbias[0, 0] = math.nan
    return [Sample("bias-row", In(g.t(5)), In(m1), In(m2)), Sample("bias-full", In(g.t(3, 5)), In(m1), In(m2)),
            Sample("beta-alpha", In(g.t(5)), In(m1), In(m2), beta=0.5, alpha=2),
            Sample("beta-alpha-int", In(g.t(5)), In(m1), In(m2), beta=2, alpha=3),
            Sample("beta0-nan", In(nanbias), In(m1), In(m2), beta=0),
            Sample("transposed", In(g.t(3, 1)), T(g.t(3, 4)), T(g.t(4, 5))),
            Sample("empty-k", In(g.t(3, 5)), In(g.t(3, 0)), In(g.t(0, 5))),
            Sample("0d-bias", In(g.t()), In(m1), In(m2))]


@sampler("convolution.default")
def _conv(g):
    x2 = g.t(2, 4, 7, 6)
    w2 = g.t(6, 4, 3, 3)
    b = g.t(6)
    return [
        Sample("2d", In(x2), In(w2), In(b), [1, 1], [0, 0], [1, 1], False, [0, 0], 1),
        Sample("2d-stride-pad-dil", In(x2), In(w2), None, [2, 1], [1, 2], [1, 2], False, [0, 0], 1),
        Sample("2d-groups", In(x2), In(g.t(6, 2, 3, 2)), In(b), [1, 1], [1, 0], [1, 1], False, [0, 0], 2),
        Sample("2d-depthwise", In(x2), In(g.t(4, 1, 3, 3)), None, [1, 1], [1, 1], [1, 1], False, [0, 0], 4),
        Sample("1d", In(g.t(2, 3, 9)), In(g.t(4, 3, 3)), In(g.t(4)), [2], [1], [1], False, [0], 1),
        Sample("3d", In(g.t(1, 2, 4, 5, 4)), In(g.t(3, 2, 2, 3, 2)), In(g.t(3)), [1, 1, 1], [0, 1, 0], [1, 1, 1], False, [0, 0, 0], 1),
        Sample("transposed-2d", In(g.t(2, 4, 4, 3)), In(g.t(4, 3, 3, 3)), In(g.t(3)), [2, 2], [1, 0], [1, 1], True, [1, 0], 1),
        Sample("transposed-groups", In(g.t(1, 4, 5)), In(g.t(4, 2, 3)), None, [1], [0], [2], True, [0], 2),
        Sample("channels-last", In(x2.contiguous(memory_format=torch.channels_last)), In(w2), In(b), [1, 1], [0, 0],
               [1, 1], False, [0, 0], 1),
        Sample("strided-input", S(g.t(2, 4, 7, 6)), In(w2), In(b), [1, 1], [0, 0], [1, 1], False, [0, 0], 1),
    ]


@sampler("avg_pool2d.default")
def _avgpool2(g):
    x = g.t(2, 3, 7, 6)
    return [Sample("k2", In(x), [2, 2]), Sample("k3-s2-p1", In(x), [3, 3], [2, 2], [1, 1]),
            Sample("exclude-pad", In(x), [3, 3], [2, 2], [1, 1], False, False),
            Sample("ceil", In(x), [3, 2], [2, 2], [0, 1], True), Sample("ceil-exclude", In(x), [3, 3], [2, 2], [1, 1], True, False),
            Sample("divisor", In(x), [2, 2], [1, 1], [0, 0], False, True, 3), Sample("3d-input", In(g.t(3, 5, 5)), [2, 2]),
            Sample("channels-last", In(x.contiguous(memory_format=torch.channels_last)), [2, 2]),
            Sample("strided", S(g.t(1, 2, 4, 4)), [2, 2])]


@sampler("avg_pool1d.default")
def _avgpool1(g):
    x = g.t(2, 3, 9)
    return [Sample("k2", In(x), [2]), Sample("k3-s2-p1", In(x), [3], [2], [1]),
            Sample("ceil-exclude", In(x), [3], [2], [1], True, False), Sample("2d-input", In(g.t(3, 7)), [3], [1]),
            Sample("strided", S(g.t(2, 3, 8)), [2])]


@sampler("adaptive_avg_pool1d.default")
def _aap1(g):
    x = g.t(2, 3, 9)
    return [Sample("3", In(x), [3]), Sample("uneven", In(x), [4]), Sample("grow", In(g.t(1, 2, 3)), [5]),
            Sample("2d-input", In(g.t(3, 7)), [2]), Sample("strided", S(g.t(2, 3, 8)), [3])]


@sampler("avg_pool3d.default")
def _avgpool3(g):
    x = g.t(1, 2, 5, 6, 5)
    return [Sample("k2", In(x), [2, 2, 2]), Sample("k3-s2-p1", In(x), [3, 3, 3], [2, 2, 2], [1, 1, 1]),
            Sample("ceil-exclude", In(x), [3, 2, 3], [2, 2, 2], [1, 0, 1], True, False),
            Sample("divisor", In(x), [2, 2, 2], [1, 1, 1], [0, 0, 0], False, True, 5), Sample("4d-input", In(g.t(2, 4, 4, 4)), [2, 2, 2])]


def _pool_input(g, *shape):
    x = _distinct(g, *shape)
    if g.fl:
        x.view(-1)[5] = math.nan
    return x


def _pool_nans(g, *shape):
    """Several NaNs per pooling window (torch's index is the last NaN's, not the first's)."""
    x = _distinct(g, *shape)
    if g.fl:
        flat = x.view(-1)
        for k in range(0, flat.numel(), 3):
            flat[k] = math.nan
    return x


@sampler("max_pool2d_with_indices.default")
def _maxpool2(g):
    x = _distinct(g, 2, 3, 7, 6)
    return [Sample("k2", In(x), [2, 2]), Sample("k3-s2-p1", In(x), [3, 3], [2, 2], [1, 1]),
            Sample("dilation", In(x), [2, 2], [1, 1], [0, 1], [2, 2]), Sample("ceil", In(x), [3, 3], [2, 2], [1, 0], [1, 1], True),
            Sample("nan", In(_pool_input(g, 1, 1, 4, 4)), [2, 2]), Sample("3d-input", In(_distinct(g, 3, 5, 5)), [2, 2]),
            Sample("nans", In(_pool_nans(g, 1, 2, 5, 6)), [3, 3], [2, 2]),
            Sample("nans-channels-last", In(_pool_nans(g, 1, 3, 4, 4).contiguous(memory_format=torch.channels_last)), [3, 3], [1, 1]),
            Sample("channels-last", In(x.contiguous(memory_format=torch.channels_last)), [2, 2]),
            Sample("strided", S(_distinct(g, 1, 2, 4, 4)), [2, 2])]


@sampler("max_pool3d_with_indices.default")
def _maxpool3(g):
    x = _distinct(g, 1, 2, 5, 6, 5)
    return [Sample("k2", In(x), [2, 2, 2]), Sample("k3-s2-p1", In(x), [3, 3, 3], [2, 2, 2], [1, 1, 1]),
            Sample("dilation-ceil", In(x), [2, 2, 2], [2, 1, 2], [0, 1, 0], [2, 1, 1], True),
            Sample("4d-input", In(_distinct(g, 2, 4, 4, 4)), [2, 2, 2]),
            Sample("nans", In(_pool_nans(g, 1, 2, 3, 4, 5)), [2, 3, 3], [1, 1, 2])]


@sampler("_adaptive_avg_pool2d.default")
def _aap2(g):
    x = g.t(2, 3, 7, 6)
    return [Sample("2x2", In(x), [2, 2]), Sample("uneven", In(x), [3, 4]), Sample("1x1", In(x), [1, 1]),
            Sample("grow", In(g.t(1, 2, 3, 3)), [5, 4]), Sample("3d-input", In(g.t(3, 5, 5)), [2, 3]),
            Sample("channels-last", In(x.contiguous(memory_format=torch.channels_last)), [3, 3])]


@sampler("_adaptive_avg_pool3d.default")
def _aap3(g):
    x = g.t(1, 2, 5, 6, 7)
    return [Sample("2x2x2", In(x), [2, 2, 2]), Sample("uneven", In(x), [3, 4, 5]), Sample("4d-input", In(g.t(2, 4, 4, 4)), [1, 2, 3])]


@sampler("native_layer_norm.default")
def _layer_norm(g):
    x = g.t(2, 3, 5)
    return [Sample("last", In(x), [5], In(g.t(5)), In(g.t(5)), 1e-5), Sample("two-dims", In(x), [3, 5], In(g.t(3, 5)), None, 1e-3),
            Sample("no-affine", In(x), [5], None, None, 1e-5), Sample("empty", In(g.t(0, 4)), [4], None, None, 1e-5),
            Sample("strided", S(g.t(2, 4)), [4], In(g.t(4)), In(g.t(4)), 1e-5),
            Sample("large-mean", In(g.t(3, 64, lo=1000, hi=1001)), [64], None, None, 1e-5)]


@sampler("native_group_norm.default")
def _group_norm(g):
    x = g.t(2, 6, 4, 3)
    return [Sample("g3", In(x), In(g.t(6)), In(g.t(6)), 2, 6, 12, 3, 1e-5), Sample("g1-no-affine", In(x), None, None, 2, 6, 12, 1, 1e-5),
            Sample("g6", In(x), In(g.t(6)), None, 2, 6, 12, 6, 1e-3), Sample("3d", In(g.t(2, 4, 5)), In(g.t(4)), In(g.t(4)), 2, 4, 5, 2, 1e-5)]


def _bn_args(g, c):
    return In(g.t(c)), In(g.t(c)), In(g.t(c)), In(g.t(c, lo=0.5, hi=2))


@sampler("_native_batch_norm_legit_no_training.default")
def _bn_eval(g):
    x = g.t(2, 3, 4, 5)
    w, b, rm, rv = _bn_args(g, 3)
    return [Sample("4d", In(x), w, b, rm, rv, 0.1, 1e-5), Sample("no-affine", In(x), None, None, rm, rv, 0.1, 1e-3),
            Sample("2d", In(g.t(4, 3)), w, b, rm, rv, 0.1, 1e-5), Sample("channels-last",
                                                                          In(x.contiguous(memory_format=torch.channels_last)), w, b, rm, rv, 0.1, 1e-5)]


@sampler("_native_batch_norm_legit.default")
def _bn_train(g):
    x = g.t(2, 3, 4, 5)
    w, b, rm, rv = _bn_args(g, 3)
    return [Sample("train", In(x), w, b, rm, rv, True, 0.1, 1e-5), Sample("eval", In(x), w, b, rm, rv, False, 0.1, 1e-5),
            Sample("no-affine-2d", In(g.t(6, 3)), None, None, rm, rv, True, 0.3, 1e-3)]


@sampler("_native_batch_norm_legit.no_stats")
def _bn_nostats(g):
    x = g.t(2, 3, 4, 5)
    return [Sample("train", In(x), In(g.t(3)), In(g.t(3)), True, 0.1, 1e-5), Sample("no-affine-2d", In(g.t(6, 3)), None, None, True, 0.1, 1e-3)]


@sampler("upsample_nearest2d.vec")
def _up_nearest(g):
    x = g.t(2, 3, 4, 5)
    return [Sample("size", In(x), [8, 10], None), Sample("odd-size", In(x), [7, 3], None), Sample("scale", In(x), None, [2.0, 1.5]),
            Sample("channels-last", In(x.contiguous(memory_format=torch.channels_last)), [6, 6], None)]


@sampler("upsample_bilinear2d.vec")
def _up_bilinear(g):
    x = g.t(2, 3, 4, 5)
    return [Sample("size", In(x), [8, 10], False, None), Sample("align", In(x), [7, 3], True, None),
            Sample("scale", In(x), None, False, [2.0, 1.5]), Sample("scale-align", In(x), None, True, [1.5, 2.0]),
            Sample("channels-last", In(x.contiguous(memory_format=torch.channels_last)), [6, 6], False, None)]


@sampler("grid_sampler_2d.default")
def _grid_sampler(g):
    x = g.t(2, 3, 5, 6)
    grid = g.t(2, 4, 3, 2, lo=-1.2, hi=1.2)
    out = []
    for interp in (0, 1, 2):
        for pad in (0, 1, 2):
            for align in (False, True):
                out.append(Sample(f"i{interp}-p{pad}-a{int(align)}", In(x), In(grid), interp, pad, align))
    return out


@sampler("col2im.default")
def _col2im(g):
    return [Sample("basic", In(g.t(2, 12, 12)), [4, 5], [2, 2], [1, 1], [0, 0], [1, 1]),
            Sample("stride-pad-dil", In(g.t(1, 8, 6)), [5, 4], [2, 2], [2, 1], [1, 0], [2, 2]),
            Sample("2d-input", In(g.t(12, 12)), [4, 5], [2, 2], [1, 1], [0, 0], [1, 1])]


@sampler("_cdist_forward.default")
def _cdist(g):
    a, b = g.t(2, 4, 3), g.t(2, 5, 3)
    return [Sample(f"p={p}", In(a), In(b), p, None) for p in (2.0, 1.0, 0.0, 3.0, math.inf)] + [
        Sample("mm-mode", In(g.t(30, 3)), In(g.t(40, 3)), 2.0, 1)]


@sampler("_pdist_forward.default")
def _pdist(g):
    x = g.t(5, 3)
    return [Sample(f"p={p}", In(x), p) for p in (2.0, 1.0, 0.0, 3.0, math.inf)] + [Sample("one-row", In(g.t(1, 3)), 2.0)]


@sampler("_embedding_bag.default")
def _embedding_bag(g):
    w = g.t(10, 3)
    idx = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9])
    offs = torch.tensor([0, 3, 3, 6])
    return [Sample("sum", In(w), In(idx), In(offs), False, 0), Sample("mean", In(w), In(idx), In(offs), False, 1),
            Sample("max", In(w), In(idx), In(offs), False, 2),
            Sample("weights", In(w), In(idx), In(offs), False, 0, False, In(g.t(8))),
            Sample("last-offset", In(w), In(idx), In(torch.tensor([0, 3, 8])), False, 0, False, None, True),
            Sample("padding", In(w), In(idx), In(offs), False, 0, False, None, False, 4)]


@sampler("_fft_r2c.default")
def _fft_r2c(g):
    x = g.t(3, 8)
    return [Sample("onesided", In(x), [1], 0, True), Sample("full", In(x), [1], 0, False),
            Sample("norm-ortho", In(x), [0, 1], 2, True), Sample("norm-forward", In(g.t(2, 5)), [1], 1, True)]


@sampler("_fft_c2r.default")
def _fft_c2r(g):
    x = g.t(3, 5)
    return [Sample("even", In(x), [1], 0, 8), Sample("odd", In(x), [1], 2, 9), Sample("2d", In(x), [0, 1], 1, 8)]


@sampler("atan2.out")
def _atan2_out(g):
    out_dt = g.dt if (g.fl or g.cx) else torch.float32
    return [Sample("same", In(g.t(3, 5)), In(g.t(3, 5)), out=New(lambda: torch.empty(3, 5, dtype=out_dt))),
            Sample("broadcast", In(g.t(3, 1)), In(g.t(5)), out=New(lambda: torch.empty(3, 5, dtype=out_dt))),
            Sample("special", In(g.special_pairs()[0]), In(g.special_pairs()[1]),
                   out=New(lambda: torch.empty(g.special().numel() ** 2, dtype=out_dt)))]


# ---------------------------------------------------------------------------
# symbolic sizes and data-dependent values
# ---------------------------------------------------------------------------

def _dyn(t, dims=(0, 1)):
    return In(t, dynamic=dims)


@sampler("sym_size.int")
def _sym_size(g):
    return [Sample("dim0", _dyn(g.t(3, 4)), 0), Sample("dim-1", _dyn(g.t(3, 5)), -1)]


@sampler("sym_numel.default")
def _sym_numel(g):
    return [Sample("2d", _dyn(g.t(3, 4)))]


@sampler("sym_stride.int")
def _sym_stride(g):
    return [Sample("dim0", _dyn(g.t(3, 4)), 0), Sample("transposed", In(g.t(3, 4), lambda b: b.t(), dynamic=(0, 1)), 1)]


@sampler("sym_storage_offset.default")
def _sym_offset(g):
    return [Sample("sliced", In(g.t(6, 4), lambda b: b[2:], dynamic=(0, 1)))]


@sampler("sym_is_contiguous.default")
def _sym_is_contiguous(g):
    x4 = g.t(2, 3, 4, 5)
    cl = x4.contiguous(memory_format=torch.channels_last)
    return [Sample("contiguous", _dyn(g.t(3, 4))), Sample("transposed", In(g.t(3, 4), lambda b: b.t(), dynamic=(0, 1))),
            Sample("channels-last", In(cl, dynamic=(0, 1, 2, 3)), torch.channels_last),
            Sample("channels-last-as-default", In(cl, dynamic=(0, 1, 2, 3))),
            Sample("default-as-channels-last", In(x4, dynamic=(0, 1, 2, 3)), torch.channels_last),
            Sample("3d-channels-last", In(g.t(2, 3, 4), dynamic=(0, 1, 2)), torch.channels_last),
            Sample("channels-last-3d", In(g.t(2, 3, 4, 5, 6).contiguous(memory_format=torch.channels_last_3d),
                                          dynamic=(0, 1, 2, 3, 4)), memory_format=torch.channels_last_3d),
            Sample("size-1-dim", In(g.t(3, 4), lambda b: b[:1].t(), dynamic=(0, 1))),  # (4, 1) with strides (1, 4)
            Sample("sliced", In(g.t(6, 4), lambda b: b[::2], dynamic=(0, 1)))]


@sampler("resize_.default")
def _resize(g):
    dt = g.dt
    return [Sample("shrink", New(lambda: torch.arange(12).to(dt).reshape(3, 4)), [2, 3]),
            Sample("grow", New(lambda: torch.arange(6).to(dt)), [3, 4], check="meta"),
            Sample("same-numel", New(lambda: torch.arange(6).to(dt)), [3, 2]),
            # resize_ keeps the storage: a transposed clone is read back in memory order
            Sample("transposed", New(lambda: torch.arange(12).to(dt).reshape(3, 4).t().clone()), [2, 3]),
            Sample("channels-last", New(lambda: torch.arange(24).to(dt)), [2, 3, 2, 2], memory_format=torch.channels_last)]


@sampler("_local_scalar_dense.default")
def _item(g):
    return [Sample("1-elem", In(g.t(1))), Sample("0d", In(g.t())), Sample("special", In(g.special()[1:2])),
            Sample("strided", In(g.t(4), lambda b: b[2:3]))]
