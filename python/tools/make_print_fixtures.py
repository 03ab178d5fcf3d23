#!/usr/bin/env python3
"""Write the naming and ordering programs of python/tests/test_print_names.py
as C-test fixtures (V.pt2 with torch's three texts and V.io.json), so
tests/run_fixtures.py checks them without torch.

    python3 python/tools/make_print_fixtures.py tests/e2e/fixtures

Fixtures: names_builtins (inputs `input`, `input_1`, `min`, ... renamed in
code), names_globals (`torch`, `device`, `inf`, ...), names_get_attr (a
nested graph's get_attr renamed after a placeholder), names_vmap_unused
(`<fn>_unused` nodes), names_sym_order (`10 - u0`), names_products
(`s27*s77`).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "zoo"))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))

import torch  # noqa: E402

import gen  # noqa: E402
import test_print_names as t  # noqa: E402

FIXTURES = {
    "names_builtins": ("taken.strict", False),
    "names_globals": ("globals.nonstrict", False),
    "names_get_attr": ("cond_get_attr_collision.strict", False),
    "names_vmap_unused": ("vmap_unused.strict", False),
    "names_sym_order": ("ten_minus_u0.strict", False),
    "names_products": ("flatten_products", True),
}


def export(name):
    torch.manual_seed(0)
    if name in t.SIMPLE:
        make, nargs, strict = t.SIMPLE[name]
        return torch.export.export(make(), tuple(t._x(3) for _ in range(nargs)), strict=strict)
    make, args, strict, dyn = t.OTHER[name]
    return torch.export.export(make(), args(), strict=strict, dynamic_shapes=dyn)


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    out = argv[1]
    for fixture, (case, decomp) in FIXTURES.items():
        ep = export(case)
        if decomp:
            ep = ep.run_decompositions()
        gen.write_variant(out, fixture, ep)
        print("wrote", fixture)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
