#!/usr/bin/env python3
"""Run eir over the defective-archive corpus in tests/bad/corpus and over
seeded random mutations of tests/bad/base.pt2.

Corpus: for every NN_*.pt2, `eir info F` and `eir print --program F` must
exit with code 1, print nothing on stdout, print only lines starting with
'eir: ' on stderr, contain the substring from expected.json and contain no
sanitizer report.

Run corpus: every rNN_*.pt2 loads (`eir info` exits 0) but `eir run F` (on
its own random inputs) must exit 1 with the expected.json substring, an
'eir: ' message and no sanitizer report: geometry that reaches outside a
payload or storage, sizes that contradict what an op computes.

Mutations: 300 variants of base.pt2 (random.Random(1234)): truncations,
byte flips inside models/model.json's data and inside the central
directory; and 150 variants of pickle_base.pt2 (random.Random(4321)) with
bytes changed inside its pickled payloads (torch.save archives: data.pkl,
storages, their ZIP headers), and 50 of tests/legacy/tied_weights.flat.pt2
(random.Random(8765)) with bytes changed inside its serialized_*.pt records.
Each run must exit 0 or 1 within 10 s, without sanitizer report.

EIR_BIN selects the binary (default build/eir), EIR_TIMEOUT the seconds each
command may take (default 10). Prints one line per failure
and ends with 'N passed, M failed'.
"""
import io
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BAD = os.path.join(ROOT, "tests", "bad")
CORPUS = os.path.join(BAD, "corpus")
BASE = os.path.join(BAD, "base.pt2")
PICKLE_BASE = os.path.join(BAD, "pickle_base.pt2")
N_PICKLE = 150
LEGACY_BASE = os.path.join(ROOT, "tests", "legacy", "tied_weights.flat.pt2")
N_LEGACY = 50
EIR = os.environ.get("EIR_BIN", os.path.join(ROOT, "build", "eir"))
if not os.path.isabs(EIR):
    EIR = os.path.join(os.getcwd(), EIR)
TIMEOUT = int(os.environ.get("EIR_TIMEOUT", "10"))  # seconds per command; more under valgrind
SAN_MARKERS = ("AddressSanitizer", "runtime error:", "LeakSanitizer", "UndefinedBehaviorSanitizer")
COMMANDS = (["info"], ["print", "--program"])

ENV = dict(os.environ)
ENV.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0")
ENV.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")


def run(args, path):
    try:
        p = subprocess.run([EIR] + args + [path], capture_output=True, timeout=TIMEOUT, env=ENV)
    except subprocess.TimeoutExpired:
        return None, b"", b""
    return p.returncode, p.stdout, p.stderr


def short(b, n=300):
    s = b.decode("utf-8", "replace").strip().replace("\n", " | ")
    return s if len(s) <= n else s[:n] + "..."


def check_corpus(fn, expected, args):
    if fn.startswith("r") and args == ["info"]:
        rc, out, err = run(args, os.path.join(CORPUS, fn))
        if rc != 0 or any(m in err.decode("utf-8", "replace") for m in SAN_MARKERS):
            return "%s [info]: must load, got exit code %d: %s" % (fn, rc, short(err))
        return None
    rc, out, err = run(args, os.path.join(CORPUS, fn))
    what = "%s [%s]" % (fn, " ".join(args))
    if rc is None:
        return "%s: TIMEOUT after %ds" % (what, TIMEOUT)
    text = err.decode("utf-8", "replace")
    problems = []
    if any(m in text for m in SAN_MARKERS):
        problems.append("sanitizer report")
    if rc != 1:
        problems.append("exit code %d (signal %d)" % (rc, -rc) if rc < 0 else "exit code %d" % rc)
    if out and args != ["run"]:
        problems.append("stdout not empty (%d bytes)" % len(out))
    lines = text.splitlines()
    if not lines:
        problems.append("no message on stderr")
    elif not all(l.startswith("eir: ") for l in lines) and "sanitizer report" not in problems:
        problems.append("stderr line not starting with 'eir: '")
    # match against the message proper: the file name itself must not count
    prefix = "eir: %s: " % os.path.join(CORPUS, fn)
    body = "\n".join(l[len(prefix):] if l.startswith(prefix) else l for l in lines)
    if lines and not lines[0].startswith(prefix) and "sanitizer report" not in problems and args != ["run"]:
        problems.append("first line does not start with 'eir: <path>: '")
    if expected not in body:
        problems.append("message lacks %r" % expected)
    if problems:
        return "%s: %s; stderr: %s" % (what, ", ".join(problems), short(err))
    return None


def mutations(base):
    rng = random.Random(1234)
    with zipfile.ZipFile(io.BytesIO(base)) as z:
        info = [i for i in z.infolist() if i.filename.endswith("/models/model.json")][0]
        cd_start = z.start_dir
    # data offset of model.json: local header + name + extra
    lh = info.header_offset
    nlen = int.from_bytes(base[lh + 26:lh + 28], "little")
    xlen = int.from_bytes(base[lh + 28:lh + 30], "little")
    mj_lo = lh + 30 + nlen + xlen
    mj_hi = mj_lo + info.compress_size
    out = []
    for i in range(300):
        kind = i % 3
        b = bytearray(base)
        if kind == 0:
            cut = rng.randrange(0, len(base))
            out.append(("trunc@%d" % cut, bytes(b[:cut])))
            continue
        lo, hi = (mj_lo, mj_hi) if kind == 1 else (cd_start, len(base))
        flips = []
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(lo, hi)
            val = rng.randrange(256)
            if val == b[pos]:
                val ^= 0xFF
            b[pos] = val
            flips.append("%d=%02x" % (pos, val))
        out.append(("%s:%s" % ("json" if kind == 1 else "cd", ",".join(flips)), bytes(b)))
    return out


def pickle_mutations(base, seed=4321, n=None, label="pickle"):
    """Byte changes inside the records that hold pickled payloads."""
    rng = random.Random(seed)
    spans = []
    with zipfile.ZipFile(io.BytesIO(base)) as z:
        for info in z.infolist():
            if ("/data/weights/weight_" in info.filename or "/data/constants/tensor_" in info.filename or
                    info.filename in ("serialized_state_dict.pt", "serialized_constants.pt")):
                lh = info.header_offset
                nlen = int.from_bytes(base[lh + 26:lh + 28], "little")
                xlen = int.from_bytes(base[lh + 28:lh + 30], "little")
                lo = lh + 30 + nlen + xlen
                spans.append((lo, lo + info.compress_size))
    out = []
    for i in range(n or N_PICKLE):
        lo, hi = spans[i % len(spans)]
        b = bytearray(base)
        flips = []
        for _ in range(rng.randint(1, 3)):
            pos = rng.randrange(lo, hi)
            val = rng.choice((rng.randrange(256), 0, 0xFF, 0x7F, 0x80))
            if val == b[pos]:
                val ^= 0xFF
            b[pos] = val
            flips.append("%d=%02x" % (pos, val))
        out.append(("%s:%s" % (label, ",".join(flips)), bytes(b)))
    return out


def check_mutant(tmpdir, idx, label, data):
    path = os.path.join(tmpdir, "mut_%03d.pt2" % idx)
    with open(path, "wb") as f:
        f.write(data)
    fails = []
    for args in COMMANDS:
        rc, out, err = run(args, path)
        what = "mutation %d (%s) [%s]" % (idx, label, " ".join(args))
        text = err.decode("utf-8", "replace")
        if rc is None:
            fails.append("%s: TIMEOUT after %ds" % (what, TIMEOUT))
        elif any(m in text for m in SAN_MARKERS):
            fails.append("%s: sanitizer report, exit %d: %s" % (what, rc, short(err, 600)))
        elif rc not in (0, 1):
            fails.append("%s: exit code %d: %s" % (what, rc, short(err)))
        elif rc == 1 and not text.startswith("eir: "):
            fails.append("%s: exit 1 without an 'eir: ' message: %s" % (what, short(err)))
    return fails


def main():
    t0 = time.time()
    if not os.path.exists(EIR):
        print("eir binary not found: %s (build it or set EIR_BIN)" % EIR)
        return 2
    with open(os.path.join(CORPUS, "expected.json")) as f:
        expected = json.load(f)
    files = sorted(f for f in os.listdir(CORPUS) if f.endswith(".pt2"))
    passed = failed = 0
    for f in files:
        if f not in expected:
            print("%s: no entry in expected.json" % f)
            failed += 1
    for f in expected:
        if f not in files:
            print("%s: listed in expected.json but missing" % f)
            failed += 1

    jobs = [(f, expected[f], a) for f in files if f in expected
            for a in ((["info"], ["run"]) if f.startswith("r") else COMMANDS)]
    workers = max(2, os.cpu_count() or 2)
    with ThreadPoolExecutor(workers) as ex:
        for res in ex.map(lambda j: check_corpus(*j), jobs):
            if res:
                print(res)
                failed += 1
            else:
                passed += 1

        base = open(BASE, "rb").read()
        with tempfile.TemporaryDirectory(prefix="eir_mut_") as tmp:
            muts = (mutations(base) + pickle_mutations(open(PICKLE_BASE, "rb").read()) +
                    pickle_mutations(open(LEGACY_BASE, "rb").read(), 8765, N_LEGACY, "legacy"))
            for fails in ex.map(lambda im: check_mutant(tmp, im[0], *im[1]), enumerate(muts)):
                if fails:
                    for l in fails:
                        print(l)
                    failed += 1
                else:
                    passed += 1

    print("(%d corpus files x %d commands, %d mutations, %.1f s, %s)"
          % (len(files), len(COMMANDS), 300 + N_PICKLE + N_LEGACY, time.time() - t0, EIR))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
