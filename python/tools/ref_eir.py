#!/usr/bin/env python3
"""Reference (torch-backed) stand-in for the `eir` CLI, used to self-test the
conformance harness:  EIR_BIN=python/tools/ref_eir.py pytest python/tests

  ref_eir.py print [--code|--program] FILE.pt2
  ref_eir.py info [--json] FILE.pt2
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "zoo"))
import gen  # noqa: E402  (imports zoo: registers mylib::sin, the dataclass)
import torch  # noqa: E402


def main(argv):
    if len(argv) < 2 or argv[0] not in ("print", "info"):
        print(__doc__, file=sys.stderr)
        return 2
    cmd, flags, path = argv[0], argv[1:-1], argv[-1]
    ep = torch.export.load(path)
    out = sys.stdout
    if cmd == "print":
        t = gen.texts(ep)
        out.write(t["code"] if "--code" in flags else t["program"] if "--program" in flags else t["graph"])
    elif "--json" in flags:
        out.write(json.dumps(gen.io_desc(ep), indent=1) + "\n")
    else:
        io = gen.io_desc(ep)
        for k in ("inputs", "outputs"):
            out.write(k + ":\n")
            for e in io[k]:
                out.write(f"  {e.get('name')}: {e.get('kind')} {e.get('dtype', '')}{e.get('shape', '')}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
