"""Writes the fixtures of tests/unit/test_fold.c with torch 2.13:
fold.pt2 (torch.export.export, strict=False) and fold.decomp.pt2 (after
run_decompositions()), the input x.npy, and torch's outputs over two runs
(the program writes a buffer): run_<r>.out_<i>.npy.

    python3 tests/unit/fold/make_fold.py tests/unit/fold
"""
import os
import sys

import numpy as np
import torch


class Fold(torch.nn.Module):
    """x @ w.t() + b.to(float32) * 2, a lifted constant through a view, a
    buffer read as is, a buffer written in place, and a random op."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(4, 3))
        self.b = torch.nn.Parameter(torch.randn(4, dtype=torch.float64))
        self.register_buffer("scale", torch.linspace(0.5, 2.0, 4))
        self.register_buffer("count", torch.zeros(4))
        self.c = torch.arange(4.0)

    def forward(self, x):
        y = x @ self.w.t() + self.b.to(torch.float32) * 2
        self.count.add_(1)
        z = y * self.scale + self.c.view(1, 4) + torch.rand(4) * 0
        return z + self.count * self.count.t()


def main(out):
    torch.manual_seed(0)
    m = Fold()
    x = torch.randn(2, 3)
    np.save(os.path.join(out, "x.npy"), x.numpy())
    ep = torch.export.export(m, (x,), strict=False)
    torch.export.save(ep, os.path.join(out, "fold.pt2"))
    torch.export.save(ep.run_decompositions(), os.path.join(out, "fold.decomp.pt2"))
    mod = torch.export.load(os.path.join(out, "fold.pt2")).module()
    for r in (1, 2):
        y = mod(x)
        np.save(os.path.join(out, f"run_{r}.out_0.npy"), y.detach().numpy())


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
