#!/usr/bin/env python3
"""Export and save the base program used by make_corpus.py (needs torch).

Writes tests/bad/base.pt2: a Linear parameter, a buffer, a lifted tensor
constant, a dynamic batch dim with a Dim range, a torch.cond with two branch
subgraphs and a multi-output op (max(dim)); tests/bad/view_base.pt2, views
of a parameter (slice, view, as_strided) for the archives that load but must
not run; and tests/bad/pickle_base.pt2, a TwoTensor parameter and a TwoTensor
non-persistent buffer (pickled payloads), the seed of the pickle mutations.
"""
import os
import torch

HERE = os.path.dirname(os.path.abspath(__file__))


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 3)
        self.register_buffer("scale", torch.full((3,), 0.5))
        self.const = torch.tensor([1.0, -2.0, 3.0])  # lifted tensor constant

    def forward(self, x):
        y = self.lin(x) * self.scale + self.const

        def t(y):
            return y.relu()

        def f(y):
            return y - 1.0

        z = torch.cond(y.sum() > 0, t, f, (y,))
        v, i = z.max(dim=1)
        return v, i


class V(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.arange(12.0).reshape(4, 3))

    def forward(self, x):
        a = self.w[1:].reshape(-1)
        b = torch.as_strided(self.w, (2, 2), (1, 3), 1)
        return a * x.sum(), b + 1


class P(torch.nn.Module):
    def __init__(self):
        super().__init__()
        from torch.testing._internal.two_tensor import TwoTensor
        self.w = torch.nn.Parameter(TwoTensor(torch.randn(3, 4), torch.randn(3, 4)))
        self.register_buffer("c", TwoTensor(torch.randn(4), torch.randn(4)), persistent=False)

    def forward(self, x):
        return x * self.w + self.c


def main():
    torch.manual_seed(0)
    m = M().eval()
    x = torch.randn(5, 4)
    batch = torch.export.Dim("batch", min=2, max=64)
    ep = torch.export.export(m, (x,), dynamic_shapes={"x": {0: batch}})
    out = os.path.join(HERE, "base.pt2")
    torch.export.save(ep, out)
    print(out, os.path.getsize(out), "bytes")
    ep = torch.export.export(V(), (torch.randn(2),))
    out = os.path.join(HERE, "view_base.pt2")
    torch.export.save(ep, out)
    print(out, os.path.getsize(out), "bytes")
    ep = torch.export.export(P(), (torch.randn(3, 4),))
    out = os.path.join(HERE, "pickle_base.pt2")
    torch.export.save(ep, out)
    print(out, os.path.getsize(out), "bytes")


if __name__ == "__main__":
    main()
