"""Profiling: `eir run --profile` / `--trace FILE` and the binding's Program.profile().

A program whose time is dominated by one node (a sort of a large tensor, beside a small
convolution and linear layer) is exported in every form (strict and non-strict, as exported
and after run_decompositions()); the profile must put the time on that node, count every
step once per run, leave the warm-up run out, and keep the outputs torch's."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest
import torch

from conftest import eir_bin  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIB = os.environ.get("EIR_LIB") or os.path.join(REPO, "build", "libeir.so")


class SortHeavy(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)
        self.fc = torch.nn.Linear(4 * 6 * 6, 5)

    def forward(self, x, big):
        y = torch.relu(self.conv(x)).flatten(1)
        s = torch.sort(big, dim=-1)[0]
        return self.fc(y), s[:, :3]


def _export(tmp_path, strict, decomp):
    torch.manual_seed(0)
    m = SortHeavy().eval()
    args = (torch.randn(2, 3, 8, 8), torch.randn(256, 8192))
    ep = torch.export.export(m, args, strict=strict)
    if decomp:
        ep = ep.run_decompositions()
    path = str(tmp_path / "m.pt2")
    torch.export.save(ep, path)
    ep = torch.export.load(path)  # what eir reads, node names included
    ins = []
    for i, a in enumerate(args):
        p = str(tmp_path / f"in{i}.npy")
        np.save(p, a.numpy())
        ins.append(p)
    with torch.no_grad():
        want = [t.numpy() for t in ep.module()(*args)]
    sort_nodes = [n.name for n in ep.graph.nodes if n.op == "call_function" and "sort" in str(n.target)]
    assert len(sort_nodes) == 1, sort_nodes
    names = {n.name for n in ep.graph.nodes}
    return path, ins, want, sort_nodes[0], names


FORMS = [(s, d) for s in (False, True) for d in (False, True)]


@pytest.mark.parametrize("strict,decomp", FORMS, ids=[f"{'strict' if s else 'nonstrict'}-{'decomp' if d else 'exported'}" for s, d in FORMS])
def test_cli_profile_and_trace(tmp_path, strict, decomp):
    path, ins, want, sort_node, names = _export(tmp_path, strict, decomp)
    trace, out = str(tmp_path / "trace.json"), str(tmp_path / "out")
    r = subprocess.run([eir_bin(), "run", path, *ins, "--repeat", "4", "--profile", "--trace", trace, "--out", out],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    # profiling does not change the answer
    for i, w in enumerate(want):
        got = np.load(os.path.join(out, f"output_{i}.npy"))
        np.testing.assert_allclose(got, w, rtol=1e-4, atol=1e-5)
    text = r.stdout
    m = re.search(r"profile: (\d+) runs \(the first left out: warm-up\), ([0-9.]+) ms per run: ([0-9.]+) ms in (\d+) steps?", text)
    assert m, text
    assert int(m.group(1)) == 3
    per_run, in_steps, nsteps = float(m.group(2)), float(m.group(3)), int(m.group(4))
    assert 0 < in_steps <= per_run + 1e-3
    # the operator table: rows add up to the steps' time, the sort first
    table = text.split("by operator (per run):\n")[1].split("slowest nodes")[0].splitlines()[1:]
    rows = [ln.split() for ln in table if ln.strip()]
    assert rows and "sort" in rows[0][-1], text
    assert sum(float(r_[0]) for r_ in rows) == pytest.approx(in_steps, rel=0.02, abs=0.01)
    assert sum(int(r_[2]) for r_ in rows if not r_[2].startswith("(")) == nsteps
    slow = text.split("slowest nodes (per run):\n")[1].splitlines()[1]
    assert slow.split()[2] == sort_node, text
    # the trace: the last run's steps, one after the other, the sort the longest
    doc = json.load(open(trace))
    ev = doc["traceEvents"]
    assert len(ev) == nsteps
    assert all(e["ph"] == "X" and e["dur"] >= 0 for e in ev)
    for a, b in zip(ev, ev[1:]):
        assert b["ts"] >= a["ts"] + a["dur"] - 1e-3
    assert ev[-1]["ts"] + ev[-1]["dur"] <= doc["otherData"]["run_us"] + 1e-3
    longest = max(ev, key=lambda e: e["dur"])
    assert longest["name"] == sort_node and "sort" in longest["cat"]
    # nodes the Backend rewrites do not replace keep the program's names
    for e in ev:
        if not e["cat"].startswith("eir_cpu."):
            assert e["name"] in names, (e["name"], sorted(names))


def test_cli_profile_single_run_and_errors(tmp_path):
    path, ins, _, sort_node, _ = _export(tmp_path, False, False)
    r = subprocess.run([eir_bin(), "run", path, *ins, "--profile"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert re.search(r"profile: 1 run, [0-9.]+ ms per run", r.stdout), r.stdout
    assert "warm-up" not in r.stdout
    r = subprocess.run([eir_bin(), "run", path, *ins, "--trace"], capture_output=True, text=True)
    assert r.returncode == 2 and "--trace needs a value" in r.stderr
    bad = str(tmp_path / "no" / "such" / "dir" / "t.json")
    r = subprocess.run([eir_bin(), "run", path, *ins, "--trace", bad], capture_output=True, text=True)
    assert r.returncode == 1 and "cannot write" in r.stderr and bad in r.stderr
    r = subprocess.run([eir_bin(), "run", "--help"], capture_output=True, text=True)
    assert "--profile" in r.stdout and "--trace FILE" in r.stdout


@pytest.mark.skipif(not os.path.exists(LIB), reason=f"{LIB} not built")
@pytest.mark.parametrize("strict", [False, True])
def test_binding_profile(tmp_path, strict):
    os.environ["EIR_LIB"] = LIB
    sys.path.insert(0, os.path.join(REPO, "bindings", "python"))
    import eir

    path, ins, want, sort_node, _ = _export(tmp_path, strict, False)
    arrays = [np.load(p) for p in ins]
    with eir.load(path) as prog:
        prog.run(*arrays)
        assert prog.profile() == {"runs": 0, "run_us": 0.0, "last_run_us": 0.0, "steps": []}
        prog.set_profiling(True)
        for _ in range(3):
            got = prog.run(*arrays)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)
        pr = prog.profile()
        assert pr["runs"] == 3 and pr["steps"]
        assert all(s["calls"] == 3 for s in pr["steps"])
        assert sum(s["total_us"] for s in pr["steps"]) <= pr["run_us"]
        top = max(pr["steps"], key=lambda s: s["total_us"])
        assert top["node"] == sort_node and "sort" in top["target"]
        prog.reset_profile()
        assert prog.profile()["runs"] == 0 and all(s["calls"] == 0 for s in prog.profile()["steps"])
        prog.set_profiling(False)
        assert prog.profile()["steps"] == []
