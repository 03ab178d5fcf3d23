"""Conformance: `eir` output must equal torch's own printing of the loaded program.

For every zoo variant V (see python/zoo/gen.py):
  eir print V.pt2            == V.graph.txt    (str(ep.graph))
  eir print --code V.pt2     == V.code.txt     (ep.graph_module.code)
  eir print --program V.pt2  == V.program.txt  (str(ep))
  eir info --json V.pt2      inputs/outputs, state counts/bytes, control flow,
                             custom ops and range constraints match V.io.json
  eir info V.pt2             exits 0 and mentions every user input name
"""
from __future__ import annotations

import difflib
import json
import subprocess

import pytest

pytest.importorskip("torch")

TIMEOUT = 120
MAX_DIFF_LINES = 60


def run(eir, *args):
    p = subprocess.run([eir, *args], capture_output=True, timeout=TIMEOUT)
    return p


def _check_ok(p, what):
    if p.returncode != 0:
        err = p.stderr.decode("utf-8", "replace")[-2000:]
        pytest.fail(f"`{what}` exited {p.returncode}\n--- stderr ---\n{err}", pytrace=False)


def assert_same_text(got: bytes, expected: bytes, what: str):
    if got == expected:
        return
    g = got.decode("utf-8", "replace").splitlines(keepends=True)
    e = expected.decode("utf-8", "replace").splitlines(keepends=True)
    first = next((i for i, (a, b) in enumerate(zip(e, g)) if a != b), min(len(e), len(g)))
    msg = [f"{what}: output differs from torch (expected {len(expected)} bytes/{len(e)} lines, "
           f"got {len(got)} bytes/{len(g)} lines); first difference at line {first + 1}"]
    if first < len(e):
        msg.append(f"  expected: {e[first]!r}")
    if first < len(g):
        msg.append(f"  got:      {g[first]!r}")
    diff = list(difflib.unified_diff(e, g, fromfile="expected (torch)", tofile="eir", n=2))
    if len(diff) > MAX_DIFF_LINES:
        diff = diff[:MAX_DIFF_LINES] + [f"... ({len(diff) - MAX_DIFF_LINES} more diff lines)\n"]
    msg.append("".join(diff))
    pytest.fail("\n".join(msg), pytrace=False)


def _read(path) -> bytes:
    with open(path, "rb") as f:
        return f.read()


@pytest.mark.parametrize("mode,suffix", [
    ([], ".graph.txt"),
    (["--code"], ".code.txt"),
    (["--program"], ".program.txt"),
], ids=["graph", "code", "program"])
def test_print(eir, pt2, variant, mode, suffix):
    args = ["print", *mode, pt2 + ".pt2"]
    p = run(eir, *args)
    _check_ok(p, "eir " + " ".join(args))
    assert_same_text(p.stdout, _read(pt2 + suffix), f"eir {' '.join(['print', *mode])} {variant}.pt2")


def _cmp_io(kind, got_list, exp_list, variant):
    problems = []
    if not isinstance(got_list, list):
        return [f"{kind}: not a list: {got_list!r}"]
    if len(got_list) != len(exp_list):
        problems.append(f"{kind}: expected {len(exp_list)} entries, got {len(got_list)}")
    for i, (g, e) in enumerate(zip(got_list, exp_list)):
        for key in ("name", "kind", "dtype", "shape"):
            if key in e or key in g:
                if g.get(key) != e.get(key):
                    problems.append(f"{kind}[{i}] ({e.get('name')}): {key}: expected {e.get(key)!r}, got {g.get(key)!r}")
    return problems


def test_info_json(eir, pt2, variant):
    args = ["info", "--json", pt2 + ".pt2"]
    p = run(eir, *args)
    _check_ok(p, "eir " + " ".join(args))
    try:
        got = json.loads(p.stdout.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as ex:
        pytest.fail(f"eir info --json {variant}.pt2: invalid JSON ({ex})\n{p.stdout[:2000]!r}", pytrace=False)
    exp = json.loads(_read(pt2 + ".io.json"))
    problems = []
    for k in ("inputs", "outputs"):
        if k not in got:
            problems.append(f"missing key {k!r}")
            continue
        problems += _cmp_io(k, got[k], exp[k], variant)
    for k, v in exp.get("summary", {}).items():
        if got.get(k) != v:
            problems.append(f"{k}: expected {v!r} (from torch), got {got.get(k)!r}")
    if problems:
        pytest.fail(f"eir info --json {variant}.pt2:\n  " + "\n  ".join(problems)
                    + f"\nexpected: {json.dumps(exp)}\ngot:      {json.dumps({k: got.get(k) for k in ('inputs', 'outputs')})}",
                    pytrace=False)


def test_info_human(eir, pt2, variant):
    args = ["info", pt2 + ".pt2"]
    p = run(eir, *args)
    _check_ok(p, "eir " + " ".join(args))
    out = p.stdout.decode("utf-8", "replace")
    exp = json.loads(_read(pt2 + ".io.json"))
    missing = [i["name"] for i in exp["inputs"] if i.get("name") and i["name"] not in out]
    if missing:
        pytest.fail(f"eir info {variant}.pt2: user inputs not mentioned: {missing}\n--- stdout ---\n{out[:3000]}",
                    pytrace=False)
