"""Offline check of eir against committed torch 2.13 output.

For every fixture V.pt2 in the given directory (made by
python/tools/make_fixtures.py), compares `eir print` in its three forms with
V.graph.txt, V.code.txt and V.program.txt byte for byte, `eir info --json`
user inputs/outputs with V.io.json, and — when V.in_*.npy / V.out_*.npy are
there and eir can run the program — `eir run` on those inputs with torch's
outputs; and when V.run_<r>.* files are there (stateful programs), `eir run
--runs N` with the torch module's outputs, mutated inputs and mutated buffers
after each run. Custom operators run with the library in EIR_OPS
(build/libeir_example_ops.so); and when V.cases.zip is there (dynamic programs),
`eir run` on each of its accepted shapes against torch's outputs, and on each
input torch refused: eir must exit 1 with torch's guard or assertion text in
its message. Needs only the standard library.
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
from tolerances import BY_NPY_DESCR, tolerance  # noqa: E402  (one table for every suite)
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


def out_dtypes(d, v):
    """torch's dtype name of each user output (V.io.json): bfloat16 outputs travel as float32 .npy"""
    path = os.path.join(d, f"{v}.io.json")
    if not os.path.exists(path):
        return []
    return [o.get("dtype") for o in json.load(open(path))["outputs"]]


def compare(got_path, want_path, what, dtype=None):
    """a problem string, or None; dtype: torch's name of the result's dtype, when the .npy cannot tell"""
    if not os.path.exists(got_path):
        return f"{what}: missing"
    wd, ws, wv = read_npy(want_path)
    gd, gs, gv = read_npy(got_path)
    if gs != ws:
        return f"{what}: shape {gs}, torch {ws}"
    rtol, atol = tolerance(dtype) if dtype else BY_NPY_DESCR.get(wd, (0, 0))
    bad = [k for k, (a, b) in enumerate(zip(gv, wv)) if not close(a, b, rtol, atol)]
    if bad:
        k = bad[0]
        return f"{what}: {len(bad)} of {len(wv)} elements differ, first at {k}: {gv[k]} vs {wv[k]}"
    return None


def check_runs(pt2, v, d, ins):
    """The stateful sequence: V.run_<r>.{out_<i>,input_<i>,state.<fqn>}.npy against `eir run --runs N`."""
    want = {}
    for f in os.listdir(d):
        if f.startswith(v + ".run_") and f.endswith(".npy"):
            r, rest = f[len(v) + 5:].split(".", 1)
            want.setdefault(int(r), set()).add(rest)
    if not want:
        return []
    dts = out_dtypes(d, v)
    with tempfile.TemporaryDirectory() as tmp:
        rc, _, err = run(["run", pt2, *ins, "--runs", str(len(want)), "--out", tmp, *OPS])
        if rc != 0:
            return [f"eir run --runs failed: {err.strip()[:500]}"]
        problems = []
        for r, files in sorted(want.items()):
            got = {f.replace("output_", "out_") for f in os.listdir(os.path.join(tmp, f"run_{r}"))}
            if got != files:
                problems.append(f"run {r}: eir wrote {sorted(got)}, torch has {sorted(files)}")
            for f in sorted(files):
                dt = dts[int(f[4:-4])] if f.startswith("out_") and int(f[4:-4]) < len(dts) else None
                p = compare(os.path.join(tmp, f"run_{r}", f.replace("out_", "output_")),
                            os.path.join(d, f"{v}.run_{r}.{f}"), f"run {r} {f[:-4]}", dt)
                if p:
                    problems.append(p)
        return problems


def check_run(pt2, v, d):
    """None if the variant has no run data or eir cannot run it; else a list of problems."""
    ins = sorted(glob.glob(os.path.join(d, f"{v}.in_*.npy")), key=lambda p: int(p.rsplit("_", 1)[1][:-4]))
    outs = sorted(glob.glob(os.path.join(d, f"{v}.out_*.npy")), key=lambda p: int(p.rsplit("_", 1)[1][:-4]))
    if not outs:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        rc, _, err = run(["run", pt2, *ins, "--out", tmp, *OPS])
        if rc != 0 and ("cannot run yet" in err or "not supported yet" in err):
            return None
        if rc != 0:
            return [f"eir run failed: {err.strip()[:500]}"]
        problems = []
        dts = out_dtypes(d, v)
        for i, want_path in enumerate(outs):
            p = compare(os.path.join(tmp, f"output_{i}.npy"), want_path, f"output {i}", dts[i] if i < len(dts) else None)
            if p:
                problems.append(p)
    return problems + check_runs(pt2, v, d, ins)

def check_cases(pt2, v, d):
    """None without V.cases.zip; else (checked, problems) over its shapes and refusals."""
    import zipfile

    path = os.path.join(d, v + ".cases.zip")
    if not os.path.exists(path):
        return None
    problems, checked = [], 0
    dts = out_dtypes(d, v)
    with zipfile.ZipFile(path) as z, tempfile.TemporaryDirectory() as tmp:
        z.extractall(tmp)
        cases = sorted({n.split("/")[0] for n in z.namelist()})
        for c in cases:
            cdir = os.path.join(tmp, c)
            ins = sorted(glob.glob(os.path.join(cdir, "in_*.npy")), key=lambda p: int(p.rsplit("_", 1)[1][:-4]))
            if c.startswith("shape"):
                out = os.path.join(cdir, "out")
                rc, _, err = run(["run", pt2, *ins, "--out", out])
                checked += 1
                if rc != 0 or any(m in err for m in SANITIZER_MARKS):
                    problems.append(f"{c}: eir run failed: {err.strip()[:300]}")
                    continue
                for want_path in sorted(glob.glob(os.path.join(cdir, "out_*.npy"))):
                    i = int(want_path.rsplit("_", 1)[1][:-4])
                    p = compare(os.path.join(out, f"output_{i}.npy"), want_path, f"{c}: output {i}",
                                dts[i] if i < len(dts) else None)
                    if p:
                        problems.append(p)
            else:
                torch_msg = open(os.path.join(cdir, "torch.txt"), encoding="utf-8").read().strip()
                rc, _, err = run(["run", pt2, *ins])
                checked += 1
                text = next((torch_msg[torch_msg.index(m):] for m in ("Guard failed: ", "Runtime assertion failed")
                             if m in torch_msg), None)
                if rc != 1 or any(m in err for m in SANITIZER_MARKS) or (text and text not in err):
                    problems.append(f"{c}: torch said {torch_msg!r}; eir (exit {rc}) said {err.strip()[:300]!r}")
    return checked, problems


EIR = os.environ.get("EIR_BIN", "build/eir")
OPS = ["--ops", os.environ["EIR_OPS"]] if os.environ.get("EIR_OPS") else []
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
        cases = check_cases(pt2, v, d)
        if cases is not None:
            checked, problems = cases
            if problems:
                failed += 1
                print(f"FAIL {v} cases ({checked} checked): " + "; ".join(problems))
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
