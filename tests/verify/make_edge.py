#!/usr/bin/env python3
"""Write tests/verify/edge_mlp.pt2: a small program lowered with ExecuTorch's
to_edge() (pip install executorch==1.5.1) and saved with torch.export.save,
the valid Edge-dialect program the verifier's tests plant violations in.
Its graph: permute_copy, addmm, relu, permute_copy, _clone_dim_order,
view_copy, _to_dim_order_copy of the lifted constant 1, add.Tensor."""
import os
import warnings

import torch

HERE = os.path.dirname(os.path.abspath(__file__))


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l = torch.nn.Linear(4, 3)

    def forward(self, x):
        return torch.relu(self.l(x)).permute(1, 0).reshape(-1) + 1


def main():
    warnings.filterwarnings("ignore")
    from executorch.exir import to_edge
    torch.manual_seed(0)
    ep = torch.export.export(M(), (torch.randn(2, 4),))
    out = os.path.join(HERE, "edge_mlp.pt2")
    torch.export.save(to_edge(ep).exported_program(), out)
    print(out, os.path.getsize(out), "bytes")


if __name__ == "__main__":
    main()
