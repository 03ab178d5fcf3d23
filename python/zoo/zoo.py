"""The eir conformance zoo: small programs exported with torch.export.

Each entry of PROGRAMS maps a name to a builder returning
``(module, args, kwargs, dynamic_shapes)``.  Weights come from a fixed seed;
nothing is downloaded.  Importing this module registers the custom op
``mylib::sin`` and the dataclass used by ``dataclass_input`` so that
``torch.export.load`` works in the same process.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Dict, Optional

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

SEED = 0


def _seed(offset: int = 0) -> None:
    torch.manual_seed(SEED + offset)


# --------------------------------------------------------------------------
# registrations done at import time
# --------------------------------------------------------------------------

@torch.library.custom_op("mylib::sin", mutates_args=())
def mylib_sin(x: torch.Tensor) -> torch.Tensor:
    return torch.sin(x)


@mylib_sin.register_fake
def _mylib_sin_fake(x: torch.Tensor) -> torch.Tensor:
    return torch.empty_like(x)


# the data-dependent custom op of torch.export's programming model: its row
# count is an unbacked symbol (u0) made by the fake impl
@torch.library.custom_op("mylib::custom_nonzero", mutates_args={})
def custom_nonzero(x: torch.Tensor) -> torch.Tensor:
    x_np = x.numpy(force=True)
    res = np.stack(np.nonzero(x_np), axis=1)
    return torch.tensor(res, device=x.device)


@custom_nonzero.register_fake
def _custom_nonzero_fake(x):
    nnz = torch.library.get_ctx().new_dynamic_size()
    shape = [nnz, x.dim()]
    return x.new_empty(shape, dtype=torch.int64)


@dataclass
class Pair:
    x: torch.Tensor
    y: torch.Tensor


torch.export.register_dataclass(Pair, serialized_type_name="eir_zoo.Pair")
# example inputs are pickled in the archive; let torch.load(weights_only=True)
# accept Pair so loading does not fall back (and log a noisy warning).
torch.serialization.add_safe_globals([Pair])


# --------------------------------------------------------------------------
# models
# --------------------------------------------------------------------------

class MLP(nn.Module):
    def __init__(self, i=8, h=16, o=4):
        super().__init__()
        self.fc1 = nn.Linear(i, h)
        self.fc2 = nn.Linear(h, h)
        self.fc3 = nn.Linear(h, o)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inp, out, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(inp, out, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(out)
        self.conv2 = nn.Conv2d(out, out, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(out)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = None
        if stride != 1 or inp != out:
            self.downsample = nn.Sequential(
                nn.Conv2d(inp, out, 1, stride, bias=False), nn.BatchNorm2d(out))

    def forward(self, x):
        idt = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            idt = self.downsample(x)
        return self.relu(out + idt)


class ResNet18(nn.Module):
    """Real ResNet-18 topology ([2,2,2,2] BasicBlocks), narrow widths."""

    def __init__(self, num_classes=10, width=8):
        super().__init__()
        w = width
        self.conv1 = nn.Conv2d(3, w, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(w)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        chans = [w, 2 * w, 4 * w, 8 * w]
        layers = []
        inp = w
        for i, c in enumerate(chans):
            stride = 1 if i == 0 else 2
            layers.append(nn.Sequential(BasicBlock(inp, c, stride), BasicBlock(c, c, 1)))
            inp = c
        self.layer1, self.layer2, self.layer3, self.layer4 = layers
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(inp, num_classes)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        x = torch.flatten(self.avgpool(x), 1)
        return self.fc(x)


class InvertedResidual(nn.Module):
    def __init__(self, inp, out, stride, expand):
        super().__init__()
        hid = inp * expand
        self.use_res = stride == 1 and inp == out
        layers = []
        if expand != 1:
            layers += [nn.Conv2d(inp, hid, 1, bias=False), nn.BatchNorm2d(hid), nn.ReLU6(inplace=True)]
        layers += [
            nn.Conv2d(hid, hid, 3, stride, 1, groups=hid, bias=False),  # depthwise
            nn.BatchNorm2d(hid), nn.ReLU6(inplace=True),
            nn.Conv2d(hid, out, 1, bias=False), nn.BatchNorm2d(out),
        ]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        if self.use_res:
            return x + self.conv(x)
        return self.conv(x)


class MobileNetV2(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU6(inplace=True)),
            InvertedResidual(8, 8, 1, 1),
            InvertedResidual(8, 12, 2, 6),
            InvertedResidual(12, 12, 1, 6),
            InvertedResidual(12, 16, 2, 6),
            nn.Sequential(nn.Conv2d(16, 32, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU6(inplace=True)),
        )
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(32, num_classes))

    def forward(self, x):
        x = self.features(x)
        x = F.adaptive_avg_pool2d(x, (1, 1)).flatten(1)
        return self.classifier(x)


class TransformerEnc(nn.Module):
    def __init__(self, d=16, nhead=2, layers=2):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d, nhead, dim_feedforward=32, dropout=0.0, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)

    def forward(self, x):
        return self.enc(x)


class GPTBlock(nn.Module):
    def __init__(self, d, nhead):
        super().__init__()
        self.nhead = nhead
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.fc_out = nn.Linear(4 * d, d)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
        hd = C // self.nhead
        q = q.view(B, T, self.nhead, hd).transpose(1, 2)
        k = k.view(B, T, self.nhead, hd).transpose(1, 2)
        v = v.view(B, T, self.nhead, hd).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        x = x + self.proj(y)
        x = x + self.fc_out(F.gelu(self.fc(self.ln2(x))))
        return x


class GPT(nn.Module):
    def __init__(self, vocab=64, block=16, d=16, nhead=2, layers=2):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(block, d)
        self.blocks = nn.ModuleList([GPTBlock(d, nhead) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.wte.weight  # tied

    def forward(self, idx):
        T = idx.shape[1]
        pos = torch.arange(0, T, dtype=torch.long, device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for b in self.blocks:
            x = b(x)
        return self.lm_head(self.ln_f(x))


class LSTMModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, num_layers=1, batch_first=True)
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        out, (h, c) = self.lstm(x)
        return self.head(out[:, -1]), h, c


# ---- torch.export programming-model examples -----------------------------

class StaticValues(nn.Module):
    def forward(self, x, n: int, scale: float, flag: bool):
        y = x * scale + n
        if flag:
            y = y.relu()
        return y


class OptionalInputs(nn.Module):
    def forward(self, x, bias: Optional[torch.Tensor] = None, w: Optional[torch.Tensor] = None):
        y = x * 2
        if bias is not None:
            y = y + bias
        if w is not None:
            y = y * w
        return y


class CondModel(nn.Module):
    def forward(self, x):
        def true_fn(x):
            return x.sin() + 1.0

        def false_fn(x):
            return x.cos() * 2.0

        return torch.cond(x.sum() > 0, true_fn, false_fn, (x,))


class DynamicShapes(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)

    def forward(self, x, y):
        # x: [B, L, 8], y: [B, L]
        z = self.lin(x) + y.unsqueeze(-1)
        return z.sum(dim=1), x.shape[0] * x.shape[1]


class NonzeroCheck(nn.Module):
    def forward(self, x):
        idx = torch.nonzero(x > 0)
        n = idx.size(0)
        torch._check(n >= 1)
        torch._check(n <= x.numel())
        return idx.float().sum(0) / n, idx


class CustomOp(nn.Module):
    def forward(self, x):
        return torch.ops.mylib.sin(x) * 2 + 1


class BufferMutation(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros((), dtype=torch.int64))
        self.register_buffer("running", torch.zeros(4))

    def forward(self, x):
        self.count.add_(1)
        self.running.mul_(0.9).add_(x.mean(0) * 0.1)
        return x - self.running, self.count


class DataclassInput(nn.Module):
    def forward(self, p: Pair):
        return p.x * p.y + p.x


class DtypeBF16(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8).to(torch.bfloat16)

    def forward(self, x):
        y = F.silu(self.lin(x))
        return y.float().sum(-1), y


class DtypeF16(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(8, 8).half())

    def forward(self, x):
        y = torch.tanh(x @ self.w) * 0.5
        return y, y.to(torch.float32).mean()


class DtypeInt(nn.Module):
    def forward(self, a, b):
        c = a * 3 + b.to(torch.int32)
        d = torch.div(b, 2, rounding_mode="floor") % 5
        e = (a.to(torch.int64) << 2) | d
        return c, d, e, c.sum()


class DtypeBool(nn.Module):
    def forward(self, x, mask):
        m = torch.logical_and(mask, x > 0)
        m2 = torch.logical_or(torch.logical_not(mask), x < -1)
        m3 = torch.logical_xor(m, m2)
        return torch.where(m3, x, torch.zeros_like(x)), m3.any(), m & ~m2


class LiftedConstants(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = torch.randn(3)
        self.idx = torch.tensor([2, 0, 1])

    def forward(self, x):
        return (x + self.c)[..., self.idx] * self.c


class TiedWeights(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(6, 6)
        self.b = nn.Linear(6, 6)
        self.b.weight = self.a.weight  # same Parameter
        self.register_buffer("buf", torch.randn(6))
        self.register_buffer("buf_view", self.buf)  # shares storage

    def forward(self, x):
        return self.b(F.relu(self.a(x))) + self.buf + self.buf_view


class Storage(nn.Module):
    """Buffers of every dtype torch can save, views that share one storage
    (transposed, offset slice), and a zero-size tensor."""

    DTYPES = [("f64", torch.float64), ("f16", torch.float16), ("bf16", torch.bfloat16), ("i8", torch.int8),
              ("i16", torch.int16), ("i32", torch.int32), ("i64", torch.int64), ("u8", torch.uint8),
              ("u16", torch.uint16), ("b8", torch.bool), ("c64", torch.complex64), ("c128", torch.complex128)]

    def __init__(self):
        super().__init__()
        base = torch.randn(4, 6)
        self.register_buffer("base", base)
        self.register_buffer("base_t", base.t())          # non-contiguous view, same storage
        self.register_buffer("window", base[1:3, 2:5])    # storage_offset 8, strides (6, 1)
        self.register_buffer("empty", torch.zeros(0, 3))
        for name, dt in self.DTYPES:
            self.register_buffer("d_" + name, (torch.arange(5) % 3).to(dt))

    def forward(self, x):
        y = x + self.base_t.sum() + self.window.sum() + self.empty.sum()
        for name, dt in self.DTYPES:
            b = getattr(self, "d_" + name)
            if dt in (torch.bool, torch.uint16):
                continue
            y = y + (b.real if b.is_complex() else b).sum().to(torch.float32)
        return y


class WhileLoop(nn.Module):
    def forward(self, it, x):
        from torch._higher_order_ops.while_loop import while_loop

        return while_loop(lambda i, x: i.sum() < 10, lambda i, x: (i + 1, x.sin() + 1), (it, x))


class MapBatch(nn.Module):
    def forward(self, xs, y):
        from torch._higher_order_ops.map import map as hop_map

        return hop_map(lambda x, y: x * y + 1, xs, y)


class ScanCumsum(nn.Module):
    def forward(self, init, xs):
        from torch._higher_order_ops.scan import scan

        def step(carry, x):
            nxt = carry + x
            return nxt, nxt.clone()

        return scan(step, init, xs)


class NestedCond(nn.Module):
    def forward(self, x):
        def inner(x):
            return torch.cond(x.sum() > 1, lambda y: y.cos(), lambda y: y.sin(), (x,))

        return torch.cond(x.sum() > 0, inner, lambda x: x - 1, (x,))



# ---- the programming model with dynamic shapes ----------------------------
# Each of these exports with torch.export.Dim ranges; python/tests/
# test_dynamic.py runs them on inputs of several shapes and on the inputs
# torch refuses.

class DerivedDims(nn.Module):
    """A batch dim B shared by x and y, derived dims 2*B and B + 1, a
    sequence dim with a lower bound above 2 (which torch does check)."""

    def forward(self, x, y, z, w):
        # x: [B, T, 4], y: [B, 4], z: [2*B, 4], w: [B + 1]
        h = x.sum(1) + y
        hh = torch.cat([h, h], 0) * z
        return hh, w[1:] + h.sum(1), x.shape[0] * x.shape[1]


class DerivedOnly(nn.Module):
    """The base symbol appears only through derived dims (w is B + 1, z is
    2*B, v is 3*B + 1): the first input defines B for the others."""

    def forward(self, w, z, v):
        return w[1:] * 2, z.view(-1, 2).sum(1) + w[1:], v[1:].view(-1, 3).mean(1)


class SymExprs(nn.Module):
    """Sizes computed with //, %, max, min, true division, ceil through
    torch.sym_ite, and a symbolic int input: what sympy writes for them."""

    def forward(self, x, y, n: int):
        a, b = x.shape[0], y.shape[0]
        half = x[: a // 2]
        tail = y[a % 3:]
        big = x.new_ones(max(a, b)) * 2
        small = x.new_zeros(min(a, b))
        scaled = x * (a / 4)
        pad = x.new_full((n * 2 - 1,), 1.5)
        k = torch.sym_ite(a > b, a - b, b - a)
        return half, tail, big, small, scaled, pad, x.new_ones(k + 1), a * b - n


class NonzeroDyn(nn.Module):
    """nonzero on a dynamic-length input, torch._check on the unbacked count."""

    def forward(self, x):
        idx = torch.nonzero(x > 0)
        n = idx.shape[0]
        torch._check(n >= 2)
        torch._check(n <= x.shape[0] - 1)
        return idx.squeeze(1) * 2, x[idx.squeeze(1)].sum(), n


class ItemSize(nn.Module):
    """item() used as a size, bounded by torch._check."""

    def forward(self, x, k):
        n = k.item()
        torch._check(n >= 1)
        torch._check(n <= x.shape[0])
        return x[:n] * 2, torch.zeros(n, 3) + x[:n, None], x.new_ones(n).sum()


class MaskedSelect(nn.Module):
    def forward(self, x, t):
        sel = torch.masked_select(x, x > t)
        return sel * 2, sel.shape[0]


class CondShapes(nn.Module):
    """cond on a data-dependent predicate whose branches build intermediates of
    different shapes, in a program with a dynamic batch."""

    def forward(self, x):
        def wide(x):
            y = torch.cat([x, x, x], 1)       # [B, 3*D]
            return y.view(x.shape[0], 3, -1).sum(1)

        def narrow(x):
            return x[:, :1].expand(-1, x.shape[1]) - 1

        return torch.cond(x.sum() > 0, wide, narrow, (x,))


class CondUnbacked(nn.Module):
    """cond whose branches return different lengths: the output has an
    unbacked size, checked by the program's own assertions."""

    def forward(self, x):
        def first_half(x):
            return x[: x.shape[0] // 2] * 2

        def doubled(x):
            return torch.cat([x, x]) + 1

        out = torch.cond(x.mean() > 0, first_half, doubled, (x,))
        return out, out.shape[0]


class CondSym(nn.Module):
    """cond on a symbolic predicate (a size), not on data."""

    def forward(self, x):
        return torch.cond(x.shape[0] > 4, lambda x: x.cos() * 2, lambda x: x.sin() + 1, (x,))


class MapDyn(nn.Module):
    """map over a dynamic batch, with a cond inside the body."""

    def forward(self, xs, w):
        from torch._higher_order_ops.map import map as hop_map

        def body(x, w):
            return torch.cond(x.sum() > 0, lambda x, w: x @ w, lambda x, w: (x * 2) @ w, (x, w))

        return hop_map(body, xs, w)


class WhileCount(nn.Module):
    """while_loop counting to a data-dependent bound (an item() in the
    condition), carrying a dynamic-length tensor."""

    def forward(self, x, bound):
        from torch._higher_order_ops.while_loop import while_loop

        def cond_fn(i, acc):
            return i < bound.item()

        def body_fn(i, acc):
            return i + 1, acc * 0.5 + i

        return while_loop(cond_fn, body_fn, (torch.zeros((), dtype=torch.int64), x))


class WhileNested(nn.Module):
    """while_loop whose body runs a cond and a scan."""

    def forward(self, x, n):
        from torch._higher_order_ops.scan import scan
        from torch._higher_order_ops.while_loop import while_loop

        def cond_fn(i, acc):
            return i < n

        def body_fn(i, acc):
            acc = torch.cond(i % 2 == 0, lambda a: a + 1, lambda a: a * 2, (acc,))
            _, ys = scan(lambda c, v: (c + v, c + v), torch.zeros_like(acc[0]), acc)
            return i + 1, ys * 0.5

        return while_loop(cond_fn, body_fn, (torch.zeros((), dtype=torch.int64), x))


class ScanDyn(nn.Module):
    """scan as a cumulative op over a dynamic length: a running sum and max."""

    def forward(self, xs):
        from torch._higher_order_ops.scan import scan

        def step(carry, x):
            s, m = carry
            s = s + x
            m = torch.maximum(m, x)
            return (s, m), s * m

        (s, m), ys = scan(step, (torch.zeros_like(xs[0]), xs[0].clone()), xs)
        return s, m, ys


class DataclassDyn(nn.Module):
    """A registered dataclass input with dynamic fields sharing a dim."""

    def forward(self, p: Pair, scale: torch.Tensor):
        return p.x * scale + p.y.sum(1, keepdim=True), p.x.shape[0]


class OptionalDyn(nn.Module):
    def forward(self, x, bias: Optional[torch.Tensor] = None, w: Optional[torch.Tensor] = None):
        y = x * 2
        if bias is not None:
            y = y + bias
        if w is not None:
            y = y * w[: x.shape[0]]
        return y


class UniqueDyn(nn.Module):
    """torch.unique with inverse indices and counts: the number of distinct
    values is data-dependent."""

    def forward(self, x):
        vals, inv, counts = torch.unique(x, return_inverse=True, return_counts=True)
        return vals * 10, inv, counts, vals.shape[0]


class MaskRepeat(nn.Module):
    """Indexing with a boolean mask and repeat_interleave by a tensor: ops
    whose output size they decide from the data."""

    def forward(self, x, r):
        sel = x[x > 0]
        rep = torch.repeat_interleave(x, r)
        return sel * 2, rep + 1, torch.repeat_interleave(r)


class GradAutocast(nn.Module):
    """torch.no_grad() and torch.autocast() regions: training IR keeps them as
    wrap_with_set_grad_enabled / wrap_with_autocast subgraphs."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(6, 6)

    def forward(self, x):
        with torch.no_grad():
            a = self.lin(x).relu()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            b = self.lin(x)
            c = b + a
        return a, b.float(), c

# --------------------------------------------------------------------------
# builders
# --------------------------------------------------------------------------

def _mlp():
    _seed(1)
    return MLP().eval(), (torch.randn(2, 8),), {}, None


def _resnet18():
    _seed(2)
    m = ResNet18().eval()
    return m, (torch.randn(1, 3, 32, 32),), {}, None


def _mobilenetv2():
    _seed(3)
    return MobileNetV2().eval(), (torch.randn(1, 3, 32, 32),), {}, None


def _transformer_encoder():
    _seed(4)
    return TransformerEnc().eval(), (torch.randn(2, 5, 16),), {}, None


def _gpt():
    _seed(5)
    m = GPT().eval()
    idx = torch.randint(0, 64, (2, 8), dtype=torch.int64)
    return m, (idx,), {}, None


def _lstm():
    _seed(6)
    return LSTMModel().eval(), (torch.randn(2, 5, 8),), {}, None


def _static_values():
    _seed(7)
    return StaticValues(), (torch.randn(3, 4), 3, 0.5, True), {}, None


def _optional_inputs():
    _seed(8)
    return OptionalInputs(), (torch.randn(3, 4),), {"bias": None, "w": torch.randn(3, 4)}, None


def _cond():
    _seed(9)
    return CondModel(), (torch.randn(4, 3),), {}, None


def _dynamic_shapes():
    _seed(10)
    batch = torch.export.Dim("batch", min=1, max=64)
    seq = torch.export.Dim("seq", min=2, max=128)
    ds = {"x": {0: batch, 1: seq}, "y": {0: batch, 1: seq}}
    return DynamicShapes(), (torch.randn(4, 6, 8), torch.randn(4, 6)), {}, ds


def _nonzero_check():
    _seed(11)
    return NonzeroCheck(), (torch.randn(4, 5),), {}, None


def _custom_op():
    _seed(12)
    return CustomOp(), (torch.randn(3, 3),), {}, None


def _buffer_mutation():
    _seed(13)
    return BufferMutation(), (torch.randn(2, 4),), {}, None


def _dataclass_input():
    _seed(14)
    return DataclassInput(), (Pair(torch.randn(2, 3), torch.randn(2, 3)),), {}, None


def _dtype_bf16():
    _seed(15)
    return DtypeBF16(), (torch.randn(2, 8, dtype=torch.bfloat16),), {}, None


def _dtype_f16():
    _seed(16)
    return DtypeF16(), (torch.randn(2, 8, dtype=torch.float16),), {}, None


def _dtype_int():
    _seed(17)
    a = torch.randint(-10, 10, (4,), dtype=torch.int32)
    b = torch.randint(0, 100, (4,), dtype=torch.int64)
    return DtypeInt(), (a, b), {}, None


def _dtype_bool():
    _seed(18)
    x = torch.randn(3, 4)
    mask = torch.rand(3, 4) > 0.5
    return DtypeBool(), (x, mask), {}, None


def _lifted_constants():
    _seed(19)
    return LiftedConstants(), (torch.randn(2, 3),), {}, None


def _tied_weights():
    _seed(20)
    return TiedWeights(), (torch.randn(2, 6),), {}, None


def _storage():
    _seed(21)
    return Storage(), (torch.randn(3),), {}, None


def _while_loop():
    _seed(22)
    return WhileLoop(), (torch.tensor(0), torch.randn(3)), {}, None


def _map():
    _seed(23)
    return MapBatch(), (torch.randn(4, 3), torch.randn(3)), {}, None


def _scan():
    _seed(24)
    return ScanCumsum(), (torch.zeros(3), torch.randn(5, 3)), {}, None


def _nested_cond():
    _seed(25)
    return NestedCond(), (torch.randn(3),), {}, None



def _derived_dims():
    _seed(26)
    B = torch.export.Dim("B", min=2, max=32)
    T = torch.export.Dim("T", min=3, max=16)
    ds = {"x": {0: B, 1: T}, "y": {0: B}, "z": {0: 2 * B}, "w": {0: B + 1}}
    return DerivedDims(), (torch.randn(3, 5, 4), torch.randn(3, 4), torch.randn(6, 4), torch.randn(4)), {}, ds


def _derived_only():
    _seed(27)
    B = torch.export.Dim("B", min=3, max=10)
    ds = {"w": {0: B + 1}, "z": {0: 2 * B}, "v": {0: 3 * B + 1}}
    return DerivedOnly(), (torch.randn(5), torch.randn(8), torch.randn(13)), {}, ds


def _sym_exprs():
    _seed(28)
    # Dim.AUTO: torch keeps what it learns while tracing as guards (guards_code)
    # rather than refusing the Dim ranges it cannot prove
    ds = {"x": {0: torch.export.Dim.AUTO(min=4, max=40)}, "y": {0: torch.export.Dim.AUTO(min=3, max=30)},
          "n": torch.export.Dim.DYNAMIC}
    return SymExprs(), (torch.randn(10), torch.randn(7), 3), {}, ds


def _nonzero_dyn():
    _seed(29)
    return NonzeroDyn(), (torch.tensor([1.0, -2.0, 3.0, 0.5, -1.0, 2.0]),), {}, {"x": {0: torch.export.Dim("n", min=3, max=64)}}


def _item_size():
    _seed(30)
    ds = {"x": {0: torch.export.Dim("n", min=2, max=32)}, "k": None}
    return ItemSize(), (torch.randn(8), torch.tensor(3)), {}, ds


def _masked_select():
    _seed(31)
    return MaskedSelect(), (torch.randn(4, 5), torch.tensor(0.0)), {}, {"x": {0: torch.export.Dim("r", max=16)}, "t": None}


def _cond_shapes():
    _seed(32)
    return CondShapes(), (torch.randn(4, 6),), {}, {"x": {0: torch.export.Dim("b", min=2, max=32)}}


def _cond_unbacked():
    _seed(33)
    return CondUnbacked(), (torch.randn(6),), {}, {"x": {0: torch.export.Dim.AUTO(min=2, max=64)}}


def _cond_sym():
    _seed(34)
    return CondSym(), (torch.randn(6, 2),), {}, {"x": {0: torch.export.Dim("n", min=2, max=64)}}


def _map_dyn():
    _seed(35)
    return MapDyn(), (torch.randn(5, 3), torch.randn(3, 2)), {}, {"xs": {0: torch.export.Dim("b", min=2, max=32)}, "w": None}


def _while_count():
    _seed(36)
    return WhileCount(), (torch.randn(4), torch.tensor(5)), {}, {"x": {0: torch.export.Dim("n", min=2, max=64)}, "bound": None}


def _while_nested():
    _seed(37)
    return WhileNested(), (torch.randn(4, 3), torch.tensor(3)), {}, {"x": {0: torch.export.Dim("n", min=2, max=16)}, "n": None}


def _scan_dyn():
    _seed(38)
    return ScanDyn(), (torch.randn(6, 3),), {}, {"xs": {0: torch.export.Dim("t", min=2, max=64)}}


def _dataclass_dyn():
    _seed(39)
    B = torch.export.Dim("B", min=3, max=20)
    ds = {"p": [{0: B}, {0: B}], "scale": None}
    return DataclassDyn(), (Pair(torch.randn(4, 3), torch.randn(4, 5)), torch.randn(3)), {}, ds


def _optional_dyn():
    _seed(40)
    B = torch.export.Dim("B", min=2, max=16)
    ds = {"x": {0: B}, "bias": None, "w": {0: torch.export.Dim("W", min=16, max=64)}}
    return OptionalDyn(), (torch.randn(4, 3),), {"bias": None, "w": torch.randn(20, 3)}, ds


def _unique_dyn():
    _seed(42)
    x = torch.tensor([3, 1, 4, 1, 5, 9, 2, 6, 5, 3], dtype=torch.int64)
    return UniqueDyn(), (x,), {}, {"x": {0: torch.export.Dim("n", min=2, max=256)}}


def _mask_repeat():
    _seed(43)
    n = torch.export.Dim("n", min=2, max=64)
    return MaskRepeat(), (torch.randn(5), torch.tensor([1, 0, 2, 3, 1])), {}, {"x": {0: n}, "r": {0: n}}


def _grad_autocast():
    _seed(41)
    return GradAutocast().eval(), (torch.randn(3, 6),), {}, {"x": {0: torch.export.Dim("b", min=2, max=16)}}

PROGRAMS: Dict[str, Callable] = {
    "mlp": _mlp,
    "resnet18": _resnet18,
    "mobilenetv2": _mobilenetv2,
    "transformer_encoder": _transformer_encoder,
    "gpt": _gpt,
    "lstm": _lstm,
    "static_values": _static_values,
    "optional_inputs": _optional_inputs,
    "cond": _cond,
    "dynamic_shapes": _dynamic_shapes,
    "nonzero_check": _nonzero_check,
    "custom_op": _custom_op,
    "buffer_mutation": _buffer_mutation,
    "dataclass_input": _dataclass_input,
    "dtype_bf16": _dtype_bf16,
    "dtype_f16": _dtype_f16,
    "dtype_int": _dtype_int,
    "dtype_bool": _dtype_bool,
    "lifted_constants": _lifted_constants,
    "tied_weights": _tied_weights,
    "storage": _storage,
    "while_loop": _while_loop,
    "map": _map,
    "scan": _scan,
    "nested_cond": _nested_cond,
    "derived_dims": _derived_dims,
    "derived_only": _derived_only,
    "sym_exprs": _sym_exprs,
    "nonzero_dyn": _nonzero_dyn,
    "item_size": _item_size,
    "masked_select": _masked_select,
    "cond_shapes": _cond_shapes,
    "cond_unbacked": _cond_unbacked,
    "cond_sym": _cond_sym,
    "map_dyn": _map_dyn,
    "while_count": _while_count,
    "while_nested": _while_nested,
    "scan_dyn": _scan_dyn,
    "dataclass_dyn": _dataclass_dyn,
    "optional_dyn": _optional_dyn,
    "unique_dyn": _unique_dyn,
    "mask_repeat": _mask_repeat,
    "grad_autocast": _grad_autocast,
}


def build(name: str):
    return PROGRAMS[name]()


# --------------------------------------------------------------------------
# custom operators and module state
#
# Kernels for these ops, for eir, are in examples/custom_ops.c.
# --------------------------------------------------------------------------

torch.library.define(
    "mylib::combine",
    "(Tensor x, Tensor[] others, Tensor? bias, int[] dims, float alpha=1.0, *, bool relu=False, "
    "str mode=\"sum\", ScalarType? dtype=None, Scalar offset=0) -> (Tensor, Tensor)")


@torch.library.impl("mylib::combine", "cpu")
def _combine(x, others, bias, dims, alpha=1.0, *, relu=False, mode="sum", dtype=None, offset=0):
    y = x.clone()
    for o in others:
        y = y + o
    y = y * alpha
    if bias is not None:
        y = y + bias
    if relu:
        y = torch.relu(y)
    r = (y.sum(dims) if mode == "sum" else y.mean(dims)) + offset
    return y, (r.to(dtype) if dtype is not None else r)


@torch.library.register_fake("mylib::combine")
def _combine_fake(x, others, bias, dims, alpha=1.0, *, relu=False, mode="sum", dtype=None, offset=0):
    keep = [s for d, s in enumerate(x.shape) if d not in [dd % x.dim() for dd in dims]]
    return torch.empty_like(x), x.new_empty(keep, dtype=dtype if dtype is not None else x.dtype)


@torch.library.custom_op("mylib::scale_", mutates_args=("x",))
def scale_(x: torch.Tensor, f: float) -> None:
    x.mul_(f)


@scale_.register_fake
def _scale_fake(x, f):
    return None


# an op with a side effect: torch threads an effect token through it
@torch.library.custom_op("mylib::log_sum", mutates_args=())
def log_sum(x: torch.Tensor) -> torch.Tensor:
    return x.sum()


@log_sum.register_fake
def _log_sum_fake(x):
    return x.new_empty(())


log_sum.register_effect(torch._library.effects.EffectType.ORDERED)


class CustomNonzero(nn.Module):
    def forward(self, x):
        idx = torch.ops.mylib.custom_nonzero(x)
        return idx, idx.sum(1) * 2


class CustomArgs(nn.Module):
    def forward(self, x, b):
        y1, r1 = torch.ops.mylib.combine(x, [b, b], None, [1])
        y2, r2 = torch.ops.mylib.combine(x, [], b, [0, -1], 0.5, relu=True, mode="mean", dtype=torch.bfloat16, offset=2)
        return y1, r1, y2, r2


class CustomMutation(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("acc", torch.arange(4, dtype=torch.float32))

    def forward(self, x):
        torch.ops.mylib.scale_(x, 2.0)              # the caller's tensor doubles
        torch.ops.mylib.scale_(self.acc[1:], 0.5)   # a view of a buffer
        self.acc.add_(x.mean())
        return x + self.acc


class Effects(nn.Module):
    def forward(self, x):
        torch.ops.aten._print("eir zoo: effects")
        s = torch.ops.mylib.log_sum(x)
        return x * s


class BufferReassign(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("total", torch.zeros(4))
        self.register_buffer("scale", torch.full((4,), 0.5), persistent=False)
        self.register_buffer("calls", torch.zeros((), dtype=torch.int64), persistent=False)
        self.register_buffer("last", torch.zeros(4))

    def forward(self, x):
        self.total = self.total + x.sum(0)     # reassignment
        self.calls += 1                        # a non-persistent buffer, in place
        self.last.copy_(x[0])
        return self.total * self.scale, self.calls, self.last * 2


class InputMutation(nn.Module):
    def forward(self, x, y):
        x.add_(1.0)                            # the caller's tensor, in place
        y[:, 0].mul_(2.0)                      # through a view
        return x * y


def _custom_nonzero():
    _seed(26)
    return CustomNonzero(), (torch.randn(4, 5),), {}, None


def _custom_args():
    _seed(27)
    return CustomArgs(), (torch.randn(3, 4), torch.randn(3, 4)), {}, None


def _custom_mutation():
    _seed(28)
    return CustomMutation(), (torch.randn(4),), {}, None


def _effects():
    _seed(29)
    return Effects(), (torch.randn(3),), {}, None


def _buffer_reassign():
    _seed(30)
    return BufferReassign(), (torch.randn(2, 4),), {}, None


def _input_mutation():
    _seed(31)
    return InputMutation(), (torch.randn(2, 3), torch.randn(2, 3)), {}, None


PROGRAMS.update({
    "custom_nonzero": _custom_nonzero,
    "custom_args": _custom_args,
    "custom_mutation": _custom_mutation,
    "effects": _effects,
    "buffer_reassign": _buffer_reassign,
    "input_mutation": _input_mutation,
})

# programs whose module state (buffers, mutated inputs) changes from run to run
STATEFUL = ["buffer_mutation", "buffer_reassign", "input_mutation", "custom_mutation"]
