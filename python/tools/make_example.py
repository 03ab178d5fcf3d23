#!/usr/bin/env python3
"""Write the bundled example model: a small MLP (zoo program `mlp`, fixed seed).

    python3 python/tools/make_example.py [OUT]      (default: <repo>/examples/mlp.pt2)
"""
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "python", "zoo"))
import gen  # noqa: E402
import torch  # noqa: E402


def main(argv):
    out = argv[0] if argv else os.path.join(REPO, "examples", "mlp.pt2")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    ep = gen.export_program("mlp")
    torch.export.save(ep, out)
    torch.export.load(out)  # sanity check
    print(f"wrote {out} ({os.path.getsize(out)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
