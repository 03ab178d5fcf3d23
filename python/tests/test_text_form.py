"""The text form (docs/TEXT-FORM.md): torch's print(ep) read back by eir.

For every zoo variant, the text torch printed for the program is given to
eir as the program (a .txt file): eir must print it
again byte for byte in all three forms torch prints (print(ep),
print(ep.graph), print(ep.graph_module.code)), and `eir verify` of the
parsed program must report what it reports for the archive, in every
dialect, except what the text cannot carry (the full stack trace behind
the source line of a message, the strides of a stored tensor). A program
written from text loads in torch and prints the same; errors name the
file, line and column. (tests/unit/test_parse.c round-trips the committed
fixtures without torch.)
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

import pytest

from conftest import REPO

FIXTURES = os.path.join(REPO, "tests", "e2e", "fixtures")
TEXT_CASES = os.path.join(REPO, "tests", "text")


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=120, **kw)


def verify_lines(eir, path, dialect):
    r = run([eir, "verify", "--dialect", dialect, path])
    lines = []
    for ln in (r.stdout + r.stderr).replace(path, "PROGRAM").splitlines():
        # the summary names the file; a message's source line comes from the
        # full stack trace, of which the text shows the innermost frame only
        if re.search(r": \d+ violations? of the ", ln):
            continue
        # print shows no strides: a stored tensor of the text is contiguous
        if re.match(r"signature: '[^']*' is not contiguous", ln):
            continue
        lines.append(re.sub(r" \[File: .*\]$", "", ln))
    return r.returncode, lines


def check_round_trip(eir, base, tmp_path):
    torch_text = open(base + ".program.txt").read()
    txt = tmp_path / (os.path.basename(base) + ".txt")
    txt.write_text(torch_text)
    r = run([eir, "print", "--program", str(txt)])
    assert r.returncode == 0, r.stderr
    assert r.stdout == torch_text
    for form, suffix in (("--graph", ".graph.txt"), ("--code", ".code.txt")):
        if not os.path.exists(base + suffix):
            continue
        args = [eir, "print", str(txt)] if form == "--graph" else [eir, "print", form, str(txt)]
        r = run(args)
        assert r.returncode == 0, r.stderr
        assert r.stdout == open(base + suffix).read(), form
    for d in ("aten", "core", "edge"):
        rc_a, va = verify_lines(eir, base + ".pt2", d)
        rc_t, vt = verify_lines(eir, str(txt), d)
        assert (rc_t, vt) == (rc_a, va), d


def test_round_trip_zoo(eir, pt2, variant, tmp_path):
    if not os.path.exists(pt2 + ".program.txt"):
        pytest.skip("torch's printed text was not recorded")
    check_round_trip(eir, pt2, tmp_path)


def test_text_to_archive_loads_in_torch(eir, tmp_path):
    """eir convert prog.txt out.pt2: torch loads it and prints the same
    program; eir runs the text and torch the archive to the same outputs and
    buffers (state is zero-filled in both)."""
    torch = pytest.importorskip("torch")
    import numpy as np
    base = os.path.join(FIXTURES, "buffer_mutation")
    text = open(base + ".program.txt").read()
    txt = tmp_path / "bm.txt"
    txt.write_text(text)
    out = tmp_path / "bm.pt2"
    r = run([eir, "convert", str(txt), str(out)])
    assert r.returncode == 0, r.stderr
    ep = torch.export.load(str(out))
    assert str(ep) + "\n" == text
    for b in ep.buffers():
        assert not b.any()
    x = torch.linspace(-1, 1, 8).reshape(2, 4)
    np.save(tmp_path / "x.npy", x.numpy())
    r = run([eir, "run", str(txt), str(tmp_path / "x.npy"), "--runs", "2", "--out", str(tmp_path / "o")])
    assert r.returncode == 0, r.stderr
    m = ep.module()
    for k in (1, 2):
        want = m(x)
        for i, w in enumerate(want):
            got = np.load(tmp_path / "o" / f"run_{k}" / f"output_{i}.npy")
            np.testing.assert_allclose(got, w.detach().numpy(), rtol=1e-6, atol=1e-6)


def test_text_case_files(eir):
    """tests/text/NAME.txt with the expected `eir verify` output in
    NAME.verify-DIALECT.out, or the output of `eir convert` with the options
    in NAME.passes in NAME.passes.out, or NAME.error: the expected parse
    error."""
    cases = sorted(glob.glob(os.path.join(TEXT_CASES, "*.txt")))
    assert cases
    for txt in cases:
        stem = txt[:-4]
        rel = os.path.relpath(txt, REPO)
        if os.path.exists(stem + ".error"):
            r = run([eir, "print", "--program", rel], cwd=REPO)
            assert r.returncode == 1, rel
            assert r.stderr == open(stem + ".error").read(), rel
            continue
        outs = sorted(glob.glob(stem + ".verify-*.out"))
        if os.path.exists(stem + ".passes"):
            # eir convert NAME.txt OUT.pt2 <options in NAME.passes>: its output
            opts = open(stem + ".passes").read().split()
            with tempfile.TemporaryDirectory() as d:
                r = run([eir, "convert", rel, os.path.join(d, "out.pt2")] + opts, cwd=REPO)
            assert r.returncode == 0, r.stderr
            assert r.stdout + r.stderr == open(stem + ".passes.out").read(), rel
            continue
        assert outs, f"{rel}: no expected output"
        for exp in outs:
            d = exp[len(stem) + len(".verify-"):-len(".out")]
            r = run([eir, "verify", "--dialect", d, rel], cwd=REPO)
            assert r.stdout + r.stderr == open(exp).read(), f"{rel} ({d})"


@pytest.mark.parametrize("text,msg", [
    ("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n"
     "        y: \"f32[2]\" = torch.ops.aten.sin.default(z)\n        return (y,)\n",
     "3:50: undefined name 'z'"),
    ("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n"
     "        y: \"f32[2]\" = torch.ops.aten.nope.default(x)\n        return (y,)\n",
     "3:23: unknown operator 'torch.ops.aten.nope.default' (torch 2.13 has no such overload)"),
    ("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n"
     "        y: \"f32[2]\" = torch.ops.aten.sin.default(x)\n        y: \"f32[2]\" = torch.ops.aten.cos.default(x)\n"
     "        return (y,)\n",
     "4:9: 'y' is defined twice in this graph (first on line 3)"),
    ("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"q32[2]\"):\n        return (x,)\n",
     "2:27: unknown dtype 'q32' (f32, i64, b8, bf16, ... expected)"),
])
def test_text_errors(eir, tmp_path, text, msg):
    p = tmp_path / "bad.txt"
    p.write_text(text)
    r = run([eir, "print", "--program", str(p)])
    assert r.returncode == 1
    assert r.stderr == f"eir: {p}:{msg}\n"


def test_python_package_reads_text(tmp_path):
    """eir.load takes the text form, as a str or a file: it prints it back
    and runs it (sin(x) + sin(x) after CSE-able duplicates), and a bad text
    raises EirError with the position."""
    import numpy as np
    lib = os.environ.get("EIR_LIB") or os.path.join(REPO, "build", "libeir.so")
    if not os.path.exists(lib):
        pytest.skip(f"{lib} not built")
    env = dict(os.environ, EIR_LIB=lib, PYTHONPATH=os.path.join(REPO, "bindings", "python"))
    script = r'''
import sys, numpy as np, eir
text = open(sys.argv[1]).read()
p = eir.load(text)
assert str(p) + "\n" == text, str(p)
q = eir.load(sys.argv[2])
x = np.linspace(-2, 2, 4).astype(np.float32)
(y,) = q(x)
np.testing.assert_allclose(y, 2 * np.sin(x), rtol=1e-6)
try:
    eir.load("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\"):\n        return (y,)\n")
    raise SystemExit("no error")
except eir.EirError as e:
    assert str(e) == "3:17: undefined name 'y'", str(e)
print("ok")
'''
    r = run([sys.executable, "-c", script, os.path.join(FIXTURES, "buffer_mutation.program.txt"),
             os.path.join(TEXT_CASES, "dce_cse.txt")], env=env)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr
