"""test_to_core_sweep.py — a sample of python/tools/conversion_sweep.py, the
sweep behind docs/TO-CORE.md and docs/ROUNDTRIP.md: OpInfo programs that
exercise to-core's rules (pad in its modes, circular included, group_norm, repeat_interleave,
linear of a vector, tensor_split by a tensor) go through `eir convert --to core` and are
checked against torch (verify as Core ATen, torch loads, same outputs, no op
torch's run_decompositions() leaves out), a program eir cannot convert is
refused naming the node; and OpInfo, Core ATen sweep and fixture programs go
through `eir convert IN OUT` and must print and compute as the original.
"""
from __future__ import annotations

import glob
import os
import sys

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("expecttest")  # torch's OpInfo database imports it

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for d in ("python/tools", "python/ops", "python/tests"):
    p = os.path.join(REPO, d)
    if p not in sys.path:
        sys.path.insert(0, p)

import conversion_sweep as C  # noqa: E402

CONVERTED = ["nn.functional.pad.reflect", "nn.functional.pad.replicate", "nn.functional.pad.replicate_negative",
             "nn.functional.pad.circular",
             "nn.functional.group_norm", "repeat_interleave", "nn.functional.linear", "tensor_split"]


@pytest.mark.parametrize("key", CONVERTED)
def test_opinfo_to_core(eir, tmp_path, key):
    r = C.opinfo_cell(key, "f32", eir, str(tmp_path), ["roundtrip", "to-core"])
    assert r["status"] == "ok", r["msg"]
    assert r["core"]["status"] == "converted", r["core"]["why"]
    assert r["core"]["rewrote"], "nothing was rewritten: the OpInfo no longer calls a non-core op"
    assert r["rt"]["ok"], r["rt"]["why"]


class _SplitSymbolic(torch.nn.Module):
    def forward(self, x, idx):
        return torch.tensor_split(x, idx, 0)


def test_refused(eir, tmp_path):
    """a cell eir refuses (no OpInfo program is refused any more: tensor_split by a tensor of split points
    along a dimension of symbolic size) is `refused`, naming the node and why, with nothing written."""
    args = (torch.randn(8, 3), torch.tensor([2, 5]))
    ep = torch.export.export(_SplitSymbolic(), args, dynamic_shapes={"x": {0: torch.export.Dim("n")}, "idx": None})
    src, dst = tmp_path / "p.pt2", tmp_path / "core.pt2"
    torch.export.save(ep, str(src))
    r = C.to_core(eir, str(src), str(dst), list(args))
    assert r["status"] == "refused"
    assert ("node %tensor_split (aten.tensor_split.tensor_indices_or_sections): cannot decompose: "
            "a split dimension of symbolic size") in r["why"]
    assert not dst.exists()


@pytest.mark.parametrize("op", ["convolution.default", "index_put.default"])
def test_core_sweep_roundtrip(eir, tmp_path, op):
    r = C.core_cell(op, "f32", eir, str(tmp_path))
    assert r["status"] == "ok", r["msg"]
    assert r["rt"]["ok"], r["rt"]["why"]


def test_fixtures_roundtrip(eir, tmp_path):
    files = sorted(glob.glob(os.path.join(REPO, "tests", "e2e", "fixtures", "*.pt2")))[::10]
    assert files
    bad = []
    for f in files:
        r = C.file_cell(f, "fixtures", eir, str(tmp_path))
        if r["rt"]["ok"] is not True:
            bad.append(f"{os.path.basename(f)}: {r['rt']['why']}")
    assert not bad, "\n".join(bad)


def test_tables(tmp_path):
    """The tables count and list what the cells report."""
    cells = [{"op": "a", "dtype": "f32", "kind": "opinfo", "status": "ok",
              "core": {"status": "converted", "why": "", "rewrote": True}, "rt": {"ok": True, "why": ""}},
             {"op": "b", "dtype": "f32", "kind": "opinfo", "status": "ok",
              "core": {"status": "refused", "why": "node %x (aten.pad.default): cannot decompose: pad mode 'circular'",
                       "rewrote": False}, "rt": {"ok": False, "why": "print(ep) differs at line 3"}},
             {"op": "m.pt2", "dtype": "zoo", "kind": "zoo", "status": "ok", "rt": {"ok": True, "why": ""}}]
    t = C.to_core_table(cells, 0, ["f32"], note="Assembled from two logs.")
    assert "**1 converted** (1 of them needed rewriting" in t and "**1 refused**" in t
    assert "\n\nAssembled from two logs.\n\nSummary: " in t
    # the Time section of the page being replaced is carried over, after the summary
    old = tmp_path / "TO-CORE.md"
    old.write_text("# x\n\nSummary: old\n\n" + C.TIMING_BEGIN + "\n## Time\n\n| t |\n" + C.TIMING_END + "\n\n## Refused\n")
    kept = C.keep_timing_block(str(old), t)
    assert kept.index("Summary: 2 cells") < kept.index(C.TIMING_BEGIN + "\n## Time\n\n| t |\n" + C.TIMING_END)
    assert kept.index(C.TIMING_END) < kept.index("## Refused, by reason")
    assert C.keep_timing_block(str(tmp_path / "none.md"), t) == t
    assert "| aten.pad.default: pad mode 'circular' | 1 | `b` |" in t
    rt = C.roundtrip_table(cells, 0, ["f32"])
    assert "- opinfo `b` f32: print(ep) differs at line 3" in rt
    assert "| zoo variants" in rt and "| 1 | 1 | 0 |" in rt
