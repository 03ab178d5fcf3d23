"""``python -m eir info|print|run|... MODEL.pt2 ...``: the eir command.

Runs the ``eir`` binary packaged with the module (the same program as
build/eir, README "The eir command"), with the same arguments, exit status
and output. $EIR_BIN names another binary.
"""
from __future__ import annotations

import os
import sys


def _binary() -> str:
    env = os.environ.get("EIR_BIN")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    cand = [os.path.join(here, "bin", "eir")]
    lib = os.environ.get("EIR_LIB")
    if lib:  # running from the source tree: build/eir next to build/libeir.so
        cand.append(os.path.join(os.path.dirname(os.path.abspath(lib)), "eir"))
    for c in cand:
        if os.path.exists(c):
            return c
    sys.exit("eir: the eir binary is not packaged here (set EIR_BIN)")


def main() -> None:
    b = _binary()
    os.execv(b, [b] + sys.argv[1:])


if __name__ == "__main__":
    main()
