"""Small programs for the pass to-edge (eir convert --to edge), and the
helpers that make their Core ATen form and ExecuTorch's to_edge() of it.

Used by python/tests/test_to_edge.py and by gen.py (the committed fixtures
beside this file)."""
from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F


class Linear(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(4, 3)

    def forward(self, x):
        return self.l(x)


class ConvBnRelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)

    def forward(self, x):
        return torch.relu(self.bn(self.c(x)))


class LayerNormGelu(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm(6)

    def forward(self, x):
        return F.gelu(self.ln(x))


class Affine(nn.Module):
    def forward(self, x):
        return x * 2 + 1


class AffineFloat(nn.Module):
    def forward(self, x):
        return x * 2.5 - 1.5


class IntDiv(nn.Module):
    def forward(self, x):
        return x / 2, x // 3


class ToF64(nn.Module):
    def forward(self, x):
        return x.to(torch.float64) * 0.5, x.to(torch.float32)


class Views(nn.Module):
    def forward(self, x):
        a = x.view(6, 4).permute(1, 0)[1:3].expand(2, 2, 6)
        b = x.transpose(0, 1).unsqueeze(0).squeeze(0).select(0, 1)
        c = x[:, :].t()
        return a, b, c


class Softmax(nn.Module):
    def forward(self, x):
        return torch.softmax(x, -1), torch.log_softmax(x, 0)


class BufferMutation(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(3))

    def forward(self, x):
        self.count.add_(1)
        return x + self.count


class Mixed(nn.Module):
    def forward(self, a, b):
        return a + b, a * 3, torch.minimum(a, b)


class Dynamic(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(4, 2)

    def forward(self, x):
        return self.l(x).view(-1).mul(3), x.permute(1, 0)


class Unused(nn.Module):
    def __init__(self):
        super().__init__()
        self.used = nn.Linear(3, 3)
        self.unused = nn.Linear(3, 3)

    def forward(self, x):
        return self.used(x).clone()


def _dyn_batch():
    return {"x": {0: torch.export.Dim("batch", min=2, max=64)}}


# name -> (module factory, example inputs factory, dynamic shapes factory)
CASES = {
    "linear": (Linear, lambda: (torch.randn(2, 4),), None),
    "conv_bn_relu": (lambda: ConvBnRelu().eval(), lambda: (torch.randn(1, 3, 8, 8),), None),
    "layernorm_gelu": (LayerNormGelu, lambda: (torch.randn(2, 5, 6),), None),
    "affine_float": (Affine, lambda: (torch.randn(3, 4),), None),
    "affine_int": (Affine, lambda: (torch.arange(12).reshape(3, 4),), None),
    "affine_int32": (Affine, lambda: (torch.arange(12, dtype=torch.int32).reshape(3, 4),), None),
    "affine_f64": (AffineFloat, lambda: (torch.randn(3, 4, dtype=torch.float64),), None),
    "int_div": (IntDiv, lambda: (torch.arange(1, 7),), None),
    "to_f64": (ToF64, lambda: (torch.randn(2, 3),), None),
    "views": (Views, lambda: (torch.randn(4, 6),), None),
    "softmax": (Softmax, lambda: (torch.randn(3, 5),), None),
    "buffer_mutation": (BufferMutation, lambda: (torch.randn(2, 3),), None),
    "mixed": (Mixed, lambda: (torch.randn(4), torch.randn(4, dtype=torch.float64)), None),
    "dynamic": (Dynamic, lambda: (torch.randn(5, 4),), _dyn_batch),
    "unused_param": (Unused, lambda: (torch.randn(2, 3),), None),
}


def core_program(name: str, strict: bool):
    """The case exported (strict or not) and decomposed to Core ATen."""
    mk, args, dyn = CASES[name]
    torch.manual_seed(0)
    m = mk()
    a = args()
    ep = torch.export.export(m, a, strict=strict, dynamic_shapes=dyn() if dyn else None)
    return ep.run_decompositions(), a


def load_edge(path: str):
    """torch.export.load for an Edge archive. torch cannot read one alone (its
    deserializer resolves only torch.ops targets, and the ATen verifier rejects
    Edge operators), whether ExecuTorch or eir wrote it: here the Edge targets
    resolve to ExecuTorch's operators and the ATen-only check is skipped."""
    from executorch.exir.dialects._ops import ops as exir_ops
    from torch._export.serde import serialize as S
    from torch.export import exported_program as E

    prefix = "executorch.exir.dialects.edge._ops."
    orig_op = S.GraphModuleDeserializer.deserialize_operator
    orig_validate = E.ExportedProgram.validate

    def deserialize_operator(self, target):
        if target.startswith(prefix):
            obj = exir_ops.edge
            for part in target[len(prefix):].split("."):
                obj = getattr(obj, part)
            return obj
        return orig_op(self, target)

    S.GraphModuleDeserializer.deserialize_operator = deserialize_operator
    E.ExportedProgram.validate = lambda self: None
    try:
        return torch.export.load(path)
    finally:
        S.GraphModuleDeserializer.deserialize_operator = orig_op
        E.ExportedProgram.validate = orig_validate
