"""The Backend dialect's operators (namespace ``eir_cpu``) for torch.

``eir convert --to backend`` (and the pass ``to-backend``) writes programs that
call ``torch.ops.eir_cpu.conv2d.default``, ``torch.ops.eir_cpu.linear.default``,
``torch.ops.eir_cpu.linear_packed.default`` (a linear layer whose constant weight is stored
transposed, in panels: (P, K, W), panel p holding columns [p W, p W + W) of weight^T, zeros
past out_features), ``torch.ops.eir_cpu.lstm.default`` (aten.lstm.input kept whole),
``torch.ops.eir_cpu.max_pool2d.default`` (max pooling without indices) and
``torch.ops.eir_cpu.attention.default``, and for chains of convolutions kept in the
blocked layout ``torch.ops.eir_cpu.conv2d_blocked.default``, ``max_pool2d_blocked``,
``to_blocked`` and ``from_blocked``: a tensor (N, C, H, W) held as (N, ceil(C / B), H, W, B), channel c at
[n, c // B, h, w, c % B], the lanes past C zero (docs/IR.md).
torch can load and run such a program once the operators are registered::

    import eir.backend_ops          # or: eir.backend_ops.register()
    ep = torch.export.load("model.backend.pt2")
    ep.module()(x)

The schemas are eir's (src/ops/backend_ops.c); the implementations are
written with ATen operators, in the order eir's kernels compute: the
convolution or matrix product with its bias, then the activation.
This module does not need the eir C library.
"""
from __future__ import annotations

import torch

NAMESPACE = "eir_cpu"

SCHEMAS = {
    "attention": "(Tensor query, Tensor key, Tensor value, Tensor? attn_mask, float scale) -> Tensor",
    "conv2d": "(Tensor input, Tensor weight, Tensor? bias, int[2] stride, int[2] padding, int[2] dilation, "
              "int groups, str activation=\"none\", float? min=None, float? max=None) -> Tensor",
    "conv2d_blocked": "(Tensor input, Tensor weight, Tensor? bias, int[2] stride, int[2] padding, "
                      "int[2] dilation, int groups, int block, str activation=\"none\", float? min=None, "
                      "float? max=None, Tensor? residual=None) -> Tensor",
    "from_blocked": "(Tensor input, int channels) -> Tensor",
    "max_pool2d_blocked": "(Tensor input, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
                          "int[2] dilation=1, bool ceil_mode=False) -> Tensor",
    "to_blocked": "(Tensor input, int block) -> Tensor",
    "linear": "(Tensor input, Tensor weight, Tensor? bias, str activation=\"none\", float? min=None, "
              "float? max=None) -> Tensor",
    "linear_packed": "(Tensor input, Tensor packed_weight, Tensor? bias, int out_features, "
                     "str activation=\"none\", float? min=None, float? max=None) -> Tensor",
    "max_pool2d": "(Tensor input, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, "
                  "bool ceil_mode=False) -> Tensor",
    "lstm": "(Tensor input, Tensor[] hx, Tensor[] params, bool has_biases, int num_layers, float dropout, "
            "bool train, bool bidirectional, bool batch_first) -> (Tensor, Tensor, Tensor)",
}

ACTIVATIONS = ("none", "relu", "hardtanh", "silu", "hardswish")

_lib = None


def _activation(y, activation, lo, hi):
    if activation == "none":
        return y
    if activation == "relu":
        return torch.relu(y)
    if activation == "hardtanh":
        if lo is None or hi is None:
            raise ValueError("eir_cpu: activation 'hardtanh' needs min and max")
        return torch.nn.functional.hardtanh(y, lo, hi)
    if activation == "silu":
        return torch.nn.functional.silu(y)
    if activation == "hardswish":
        return torch.nn.functional.hardswish(y)
    raise ValueError(f"eir_cpu: unknown activation {activation!r} (one of {', '.join(ACTIVATIONS)})")


def _conv2d(input, weight, bias, stride, padding, dilation, groups, activation="none", min=None, max=None):
    y = torch.ops.aten.convolution.default(input, weight, bias, list(stride), list(padding), list(dilation),
                                           False, [0, 0], groups)
    return _activation(y, activation, min, max)


def _linear(input, weight, bias, activation="none", min=None, max=None):
    y = torch.ops.aten.linear.default(input, weight, bias)
    return _activation(y, activation, min, max)


def unpack_weight(packed_weight, out_features):
    """The (out_features, K) weight of an eir_cpu::linear_packed call from its (P, K, W) panels."""
    p, k, w = packed_weight.shape
    return packed_weight.permute(1, 0, 2).reshape(k, p * w)[:, :out_features].t()


def _linear_packed(input, packed_weight, bias, out_features, activation="none", min=None, max=None):
    y = torch.ops.aten.linear.default(input, unpack_weight(packed_weight, out_features), bias)
    return _activation(y, activation, min, max)


def _linear_packed_fake(input, packed_weight, bias, out_features, activation="none", min=None, max=None):
    return input.new_empty((*input.shape[:-1], out_features))


def _lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    return torch.ops.aten.lstm.input(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
                                     batch_first)


def _max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return torch.ops.aten.max_pool2d.default(input, list(kernel_size), list(stride),
                                             list(padding) if isinstance(padding, (list, tuple)) else [padding],
                                             list(dilation) if isinstance(dilation, (list, tuple)) else [dilation],
                                             ceil_mode)


def _attention(query, key, value, attn_mask, scale):
    return torch.ops.aten.scaled_dot_product_attention.default(query, key, value, attn_mask, 0.0, False,
                                                               scale=scale)


def _to_blocked(input, block):
    n, c, h, w = input.shape
    cb = (c + block - 1) // block
    x = torch.nn.functional.pad(input, (0, 0, 0, 0, 0, cb * block - c))
    return x.reshape(n, cb, block, h, w).permute(0, 1, 3, 4, 2).contiguous()


def _from_blocked(input, channels):
    n, cb, h, w, b = input.shape
    return input.permute(0, 1, 4, 2, 3).reshape(n, cb * b, h, w)[:, :channels].contiguous()


def _conv2d_blocked(input, weight, bias, stride, padding, dilation, groups, block, activation="none", min=None,
                    max=None, residual=None):
    x = input if input.dim() == 4 else _from_blocked(input, weight.shape[1] * groups)
    y = torch.ops.aten.convolution.default(x, weight, bias, list(stride), list(padding), list(dilation),
                                           False, [0, 0], groups)
    if residual is not None:
        y = y + _from_blocked(residual, weight.shape[0])
    return _to_blocked(_activation(y, activation, min, max), block)


def _max_pool2d_blocked(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    n, cb, h, w, b = input.shape
    y = torch.ops.aten.max_pool2d.default(_from_blocked(input, cb * b), list(kernel_size), list(stride),
                                          list(padding) if isinstance(padding, (list, tuple)) else [padding],
                                          list(dilation) if isinstance(dilation, (list, tuple)) else [dilation],
                                          ceil_mode)
    return _to_blocked(y, b)


def _conv2d_fake(input, weight, bias, stride, padding, dilation, groups, activation="none", min=None, max=None):
    return torch.ops.aten.convolution.default(input, weight, bias, list(stride), list(padding), list(dilation),
                                              False, [0, 0], groups)


def _linear_fake(input, weight, bias, activation="none", min=None, max=None):
    return torch.ops.aten.linear.default(input, weight, bias)


def register():
    """Define the eir_cpu operators in torch (once; later calls do nothing)."""
    global _lib
    if _lib is not None:
        return
    try:
        torch.ops.eir_cpu.conv2d.default      # registered by someone else already
        return
    except (AttributeError, RuntimeError):
        pass
    lib = torch.library.Library(NAMESPACE, "DEF")
    for name, schema in SCHEMAS.items():
        lib.define(name + schema)
    lib.impl("conv2d", _conv2d, "CompositeExplicitAutograd")
    lib.impl("linear", _linear, "CompositeExplicitAutograd")
    lib.impl("linear_packed", _linear_packed, "CompositeExplicitAutograd")
    lib.impl("lstm", _lstm, "CompositeExplicitAutograd")
    lib.impl("max_pool2d", _max_pool2d, "CompositeExplicitAutograd")
    lib.impl("attention", _attention, "CompositeExplicitAutograd")
    lib.impl("conv2d_blocked", _conv2d_blocked, "CompositeExplicitAutograd")
    lib.impl("to_blocked", _to_blocked, "CompositeExplicitAutograd")
    lib.impl("from_blocked", _from_blocked, "CompositeExplicitAutograd")
    lib.impl("max_pool2d_blocked", _max_pool2d_blocked, "CompositeExplicitAutograd")
    torch.library.register_fake(f"{NAMESPACE}::conv2d", _conv2d_fake, lib=lib)
    torch.library.register_fake(f"{NAMESPACE}::linear", _linear_fake, lib=lib)
    torch.library.register_fake(f"{NAMESPACE}::linear_packed", _linear_packed_fake, lib=lib)
    torch.library.register_fake(f"{NAMESPACE}::lstm", _lstm, lib=lib)
    torch.library.register_fake(f"{NAMESPACE}::max_pool2d", _max_pool2d, lib=lib)
    torch.library.register_fake(f"{NAMESPACE}::attention", _attention, lib=lib)
    for name, fn in (("conv2d_blocked", _conv2d_blocked), ("to_blocked", _to_blocked), ("from_blocked", _from_blocked),
                     ("max_pool2d_blocked", _max_pool2d_blocked)):
        torch.library.register_fake(f"{NAMESPACE}::{name}", fn, lib=lib)
    _lib = lib


register()
