#!/usr/bin/env python3
"""Write a few small zoo variants (plus their expected texts) as C-test fixtures.

    python3 python/tools/make_fixtures.py tests/e2e/fixtures

Same files as python/zoo/gen.py (V.pt2, V.graph.txt, V.code.txt,
V.program.txt, V.io.json, V.notes.txt); the large networks are left out so
the total stays well under ~2 MB.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "zoo"))
import gen  # noqa: E402

FIXTURE_PROGRAMS = [
    "mlp", "cond", "dynamic_shapes", "buffer_mutation", "custom_op", "dtype_bf16",
    "lifted_constants", "tied_weights", "nonzero_check",
    "static_values", "optional_inputs", "dataclass_input",
    "dtype_f16", "dtype_int", "dtype_bool",
    "storage", "while_loop", "map", "scan", "nested_cond",
]
MAX_BYTES = 2 * 1024 * 1024


def main(argv):
    if len(argv) != 1 or argv[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    out = argv[0]
    s = gen.generate(out, FIXTURE_PROGRAMS)
    total = sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out)
                if f.endswith(gen.SUFFIXES))
    print(f"wrote {len(s['ok'])} variants to {out} ({total / 1024:.0f} KiB) in {s['seconds']:.1f}s")
    if s["failed"]:
        for k, v in s["failed"].items():
            print(f"FAILED {k}: {v.splitlines()[0] if v else ''}", file=sys.stderr)
        return 1
    if total > MAX_BYTES:
        print(f"warning: fixtures total {total} bytes > {MAX_BYTES}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
