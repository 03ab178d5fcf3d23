"""Offline check of eir against committed torch 2.13 output.

For every fixture V.pt2 in the given directory (made by
python/tools/make_fixtures.py), compares `eir print` in its three forms with
V.graph.txt, V.code.txt and V.program.txt byte for byte, `eir info --json`
user inputs/outputs with V.io.json, and — when V.in_*.npy / V.out_*.npy are
there and eir can run the program — `eir run` on those inputs with torch's
outputs. Needs only the standard library.
Ends with 'N passed, M failed'; exits non-zero on any failure."""
import ast
import difflib
import glob
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python", "tests"))
from tolerances import BY_NPY_DESCR as TOLERANCES  # noqa: E402  (one table for every suite)
FORMATS = {"<f8": "d", "<f4": "f", "<f2": "e", "<i8": "q", "<i4": "i", "<i2": "h", "|i1": "b", "|u1": "B",
           "<u2": "H", "|b1": "?", "<c8": "ff", "<c16": "dd"}


def read_npy(path):
    """(descr, shape, flat values) of a C-order .npy; complex as (re, im) pairs."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise ValueError(f"{path}: not a .npy file")
    if data[6] == 1:
        hlen, off = struct.unpack("<H", data[8:10])[0], 10
    else:
        hlen, off = struct.unpack("<I", data[8:12])[0], 12
    hdr = ast.literal_eval(data[off:off + hlen].decode("latin1"))
    if hdr["fortran_order"]:
        raise ValueError(f"{path}: Fortran order not expected in fixtures")
    fmt = FORMATS[hdr["descr"]]
    n = math.prod(hdr["shape"])
    vals = list(struct.iter_unpack("<" + fmt, data[off + hlen:off + hlen + n * struct.calcsize("<" + fmt)]))
    return hdr["descr"], tuple(hdr["shape"]), [v if len(v) > 1 else v[0] for v in vals]


def close(a, b, rtol, atol):
    if isinstance(a, tuple):
        return all(close(x, y, rtol, atol) for x, y in zip(a, b))
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= atol + rtol * abs(b)


def check_run(pt2, v, d):
    """None if the variant has no run data or eir cannot run it; else a list of problems."""
    ins = sorted(glob.glob(os.path.join(d, f"{v}.in_*.npy")), key=lambda p: int(p.rsplit("_", 1)[1][:-4]))
    outs = sorted(glob.glob(os.path.join(d, f"{v}.out_*.npy")), key=lambda p: int(p.rsplit("_", 1)[1][:-4]))
    if not outs:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        rc, _, err = run(["run", pt2, *ins, "--out", tmp])
        if rc != 0 and ("cannot run yet" in err or "not supported yet" in err):
            return None
        if rc != 0:
            return [f"eir run failed: {err.strip()[:500]}"]
        problems = []
        for i, want_path in enumerate(outs):
            wd, ws, wv = read_npy(want_path)
            got_path = os.path.join(tmp, f"output_{i}.npy")
            if not os.path.exists(got_path):
                problems.append(f"output {i}: missing")
                continue
            gd, gs, gv = read_npy(got_path)
            if gs != ws:
                problems.append(f"output {i}: shape {gs}, torch {ws}")
                continue
            rtol, atol = TOLERANCES.get(wd, (0, 0))
            bad = [k for k, (a, b) in enumerate(zip(gv, wv)) if not close(a, b, rtol, atol)]
            if bad:
                k = bad[0]
                problems.append(f"output {i}: {len(bad)} of {len(wv)} elements differ, first at {k}: {gv[k]} vs {wv[k]}")
        return problems

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
        problems = check_run(pt2, v, d)
        if problems is not None:
            if problems:
                failed += 1
                print(f"FAIL {v} run: " + "; ".join(problems))
            else:
                passed += 1
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed or not passed else 0)


if __name__ == "__main__":
    main()
