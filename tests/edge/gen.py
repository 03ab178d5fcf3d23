"""Write the committed fixtures of the pass to-edge: for each program of
FIXTURES, NAME.pt2 (the case of cases.py exported with strict=False and
decomposed to Core ATen) and what torch prints for ExecuTorch's
to_edge() of it once torch.export.save has written it and torch.export.load
(cases.load_edge) has read it back: NAME.edge.graph.txt (print(ep.graph))
and NAME.edge.program.txt (print(ep)).

    python3 tests/edge/gen.py          # needs torch and executorch

python/tests/test_to_edge.py checks `eir convert --to edge NAME.pt2` against
these without ExecuTorch."""
from __future__ import annotations

import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

FIXTURES = ["linear", "affine_int32", "views", "conv_bn_relu", "dynamic", "buffer_mutation"]


def main():
    import torch
    from executorch.exir import to_edge

    import cases

    for name in FIXTURES:
        ep, _ = cases.core_program(name, strict=False)
        torch.export.save(ep, os.path.join(HERE, name + ".pt2"))
        edge = to_edge(ep).exported_program()
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "edge.pt2")
            torch.export.save(edge, path)
            loaded = cases.load_edge(path)
        with open(os.path.join(HERE, name + ".edge.graph.txt"), "w") as f:
            f.write(str(loaded.graph).rstrip("\n") + "\n")
        with open(os.path.join(HERE, name + ".edge.program.txt"), "w") as f:
            f.write(str(loaded).rstrip("\n") + "\n")
        print("wrote", name)


if __name__ == "__main__":
    main()
