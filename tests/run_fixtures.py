"""Offline check of eir against committed torch 2.13 output.

For every fixture V.pt2 in the given directory (made by
python/tools/make_fixtures.py), compares `eir print` in its three forms with
V.graph.txt, V.code.txt and V.program.txt byte for byte, and `eir info --json`
user inputs/outputs with V.io.json. Needs only the standard library.
Ends with 'N passed, M failed'; exits non-zero on any failure."""
import difflib
import json
import os
import subprocess
import sys

EIR = os.environ.get("EIR_BIN", "build/eir")
SANITIZER_MARKS = ("AddressSanitizer", "runtime error:", "LeakSanitizer")


def run(args):
    r = subprocess.run([EIR, *args], capture_output=True, timeout=120)
    return r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")


def first_diff(want, got, name):
    lines = list(difflib.unified_diff(want.splitlines(True), got.splitlines(True), f"torch {name}", f"eir {name}"))
    return "".join(lines[:30])


def io_key(e):
    return (e.get("name"), e.get("kind"), e.get("dtype"), json.dumps(e.get("shape")))


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "tests/e2e/fixtures"
    variants = sorted(f[:-4] for f in os.listdir(d) if f.endswith(".pt2"))
    passed = failed = 0
    for v in variants:
        pt2 = os.path.join(d, v + ".pt2")
        checks = [("graph", ["print", pt2]), ("code", ["print", "--code", pt2]), ("program", ["print", "--program", pt2])]
        for form, args in checks:
            want_path = os.path.join(d, f"{v}.{form}.txt")
            if not os.path.exists(want_path):
                continue
            want = open(want_path, encoding="utf-8").read()
            rc, out, err = run(args)
            if rc != 0 or any(m in err for m in SANITIZER_MARKS) or out != want:
                failed += 1
                print(f"FAIL {v} print {form}: rc={rc} {err.strip()[:500]}")
                if rc == 0:
                    print(first_diff(want, out, form))
            else:
                passed += 1
        io_path = os.path.join(d, f"{v}.io.json")
        if os.path.exists(io_path):
            want = json.load(open(io_path))
            rc, out, err = run(["info", "--json", pt2])
            ok = rc == 0 and not any(m in err for m in SANITIZER_MARKS)
            if ok:
                got = json.loads(out)
                ok = [io_key(e) for e in got["inputs"]] == [io_key(e) for e in want["inputs"]] and [
                    io_key(e) for e in got["outputs"]
                ] == [io_key(e) for e in want["outputs"]]
            if not ok:
                failed += 1
                print(f"FAIL {v} info --json: rc={rc} {err.strip()[:300]}\n  want {want}\n  got  {out[:800]}")
            else:
                passed += 1
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed or not passed else 0)


if __name__ == "__main__":
    main()
