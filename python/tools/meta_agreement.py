"""Measure eir's shape and dtype inference against the metadata torch recorded.

Runs `eir verify --meta-report` over the zoo (EIR_ZOO_DIR or --zoo, every
NAME.pt2 and NAME.decomp.pt2), the committed fixtures (tests/e2e/fixtures,
tests/legacy) and any further .pt2 given, and writes the table of
docs/META.md: per operator overload, the nodes seen, the nodes with a meta
function, the outputs compared and how many agree on dtype / sizes / strides /
storage offset, with an example of each disagreement or unknown.

    python3 python/tools/meta_agreement.py --zoo /work/zoo --modules --out docs/META.md
"""
from __future__ import annotations

import argparse
import collections
import glob
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIELDS = ("dtype", "sizes", "strides", "offset")

# Why some outputs are not compared or not inferred; the table cites these.
EXPLAINED = {
    "autocast": "nodes inside torch.autocast (wrap_with_autocast subgraphs): autocast casts the inputs of "
                "ops such as linear to its dtype, so the recorded dtype is not the op's own; dtypes there "
                "are not compared (sizes and strides are).",
    "index.Tensor": "a boolean mask index: the output size is data-dependent (an unbacked symbol), not inferred.",
}


# ---------------------------------------------------------------------------
# the sweeps' programs: exported once into a directory, reused
# ---------------------------------------------------------------------------

OPS_DIR = os.path.join(REPO, "python", "ops")
_SAVE_AS = [None]


def _save_instead_of_run(eir, ep, flat, d):
    """harness.run_eir's stand-in: save the program under _SAVE_AS and report
    it as not runnable, so the sweep stops there (no eir run, no torch run)."""
    import torch
    if _SAVE_AS[0] and not os.path.exists(_SAVE_AS[0]):
        try:
            torch.export.save(ep, _SAVE_AS[0])
        except Exception:
            if os.path.exists(_SAVE_AS[0]):
                os.remove(_SAVE_AS[0])  # no partial archive left behind
            raise
    return 1, "eir: cannot run yet (exported for the meta agreement)", [], {}


def _export_init():
    if OPS_DIR not in sys.path:
        sys.path.insert(0, OPS_DIR)
    import harness
    harness._worker_init()
    harness.run_eir = _save_instead_of_run


def _export_cell(task):
    kind, key, dt, outdir = task
    import tempfile
    out = os.path.join(outdir, f"{kind}.{key}.{dt}.pt2")
    if os.path.exists(out):
        return out
    _SAVE_AS[0] = out
    mod = __import__("sweep" if kind == "core" else "opinfo_sweep")
    with tempfile.TemporaryDirectory(prefix="eir-meta-") as wd:
        try:
            mod.run_one(key, dt, "eir", wd)
        except Exception as e:  # noqa: BLE001  (a cell torch cannot export is left out)
            return f"{out}: {e}"
    return out


def export_sweeps(outdir, jobs=2):
    """Export the programs of the Core ATen sweep (python/ops/sweep.py) and
    the OpInfo sweep (python/ops/opinfo_sweep.py), in the dtypes their
    sampled runs of `make test` use, as core.OP.DTYPE.pt2 and
    opinfo.KEY.DTYPE.pt2 into outdir (cells already there are kept)."""
    import multiprocessing
    sys.path.insert(0, OPS_DIR)
    import opinfo_sweep
    import sweep
    os.makedirs(outdir, exist_ok=True)
    tasks = [("core", o, d, outdir) for o in sweep.core_ops() for d in sweep.dtypes_for(o, "sample")]
    db = opinfo_sweep.opinfos()
    tasks += [("opinfo", k, d, outdir) for k in sorted(db)
              for d in opinfo_sweep.dtypes_for(k, "sample", opinfo_sweep.supported(db[k]))]
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(jobs, initializer=_export_init, maxtasksperchild=50) as pool:
        for k, r in enumerate(pool.imap_unordered(_export_cell, tasks)):
            if k % 100 == 0:
                print(f"exported {k}/{len(tasks)} cells", file=sys.stderr, flush=True)


def short(target):
    for p in ("torch.ops.", "executorch.exir.dialects.edge._ops."):
        if target.startswith(p):
            return target[len(p):]
    return target


def report(eir, path):
    p = subprocess.run([eir, "verify", "--meta-report", path], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        print(f"{path}: {p.stderr.strip()}", file=sys.stderr)
        return []
    return [json.loads(line) for line in p.stdout.splitlines()]


def collect(eir, paths):
    ops = collections.defaultdict(lambda: {"seen": 0, "meta": 0, "inferred": 0, "outputs": 0,
                                           "agree": collections.Counter(), "differ": collections.Counter(),
                                           "unknown": collections.Counter(), "errors": 0, "examples": []})
    for path in paths:
        name = os.path.basename(path)[:-4]
        for n in report(eir, path):
            t = short(n["target"])
            if not t.startswith("aten."):
                continue
            o = ops[t]
            o["seen"] += 1
            if not n["has_meta"]:
                continue
            o["meta"] += 1
            if n["error"]:
                o["errors"] += 1
                o["examples"].append(f"{name} %{n['node']}: error: {n['error']}")
            if n["outputs"]:
                o["inferred"] += 1
            elif not n["error"]:
                o["examples"].append(f"{name} %{n['node']}: not inferred")
            for out in n["outputs"]:
                o["outputs"] += 1
                for f in FIELDS:
                    o[out[f] if out[f] in ("agree", "differ", "unknown") else "unknown"][f] += 1
                bad = [f for f in FIELDS if out[f] != "agree"]
                if bad:
                    o["examples"].append(f"{name} %{n['node']} output {out['output']}: "
                                         f"{', '.join(f + ' ' + out[f] for f in bad)}: recorded `{out['recorded']}`, "
                                         f"inferred `{out['inferred']}`")
    return ops


def write(ops, paths, out):
    total = collections.Counter()
    for o in ops.values():
        total["seen"] += o["seen"]
        total["meta"] += o["meta"]
        total["outputs"] += o["outputs"]
        for f in FIELDS:
            total["agree_" + f] += o["agree"][f]
            total["differ_" + f] += o["differ"][f]
    lines = [
        "# Shape and dtype inference: agreement with torch",
        "",
        "eir infers every output's dtype, sizes, strides and storage offset from a node's",
        "arguments (src/ops/meta.c, one meta function per ATen overload) and `eir verify`",
        "compares them with the metadata torch 2.13 recorded (rules `meta.mismatch`: recorded",
        "and inferred disagree, `meta.args`: the arguments contradict each other). An overload",
        "without a meta function is not checked. This page is written by",
        "`python3 python/tools/meta_agreement.py --modules` from `eir verify --meta-report` over",
        f"{len(paths)} programs: the zoo (every program as exported and after",
        "run_decompositions()), tests/e2e/fixtures, tests/legacy and (`--modules`) the",
        "modules of python/tests/test_meta.py (promotion, channels-last layouts, views,",
        "reductions, linear algebra, normalisation, attention, a dynamic batch; strict and",
        "non-strict, as exported and decomposed).",
        "",
        "How it compares:",
        "",
        "- sizes and strides may be symbolic. An inferred expression (a sympy tree eir builds,",
        "  e.g. `(s1 - 1)//2 + 1` for a convolution) is compared with the recorded one by",
        "  evaluating both with the symbols at three points drawn from their range",
        "  constraints: equal at every point is agreement, different at every point",
        "  disagreement, anything else unknown. A size inference cannot express is unknown",
        "  (`?`) and not compared.",
        "- the stride of a dim of size 1 (or 0) is not compared: it never addresses memory,",
        "  and torch's own kernels differ in what they write there.",
        "- output layouts follow torch's rules: TensorIterator's for pointwise ops (same-shape",
        "  contiguous / channels-last / dense inputs keep their layout, otherwise strides in",
        "  the order of the inputs' strides, broadcast dims ignored), `empty_like` with",
        "  preserve_format for clones, copies and normalisations, `suggest_memory_format`",
        "  for convolution, pooling and padding, contiguous results for reductions, matmuls,",
        "  softmax, embedding and indexing; views compute their strides and storage offset",
        "  (`view` by torch's computeStride, `reshape` copying when no view fits).",
        "",
        f"Totals: {total['seen']} ATen nodes, {total['meta']} with a meta function; "
        f"{total['outputs']} outputs compared: "
        + ", ".join(f"{f} {total['agree_' + f]} agree / {total['differ_' + f]} differ" for f in FIELDS) + ".",
        "",
        "| overload | nodes | with meta | inferred | outputs | dtype | sizes | strides | offset |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for t in sorted(ops, key=lambda k: (-ops[k]["seen"], k)):
        o = ops[t]
        if not o["meta"]:
            lines.append(f"| `{t}` | {o['seen']} | 0 | | | | | | |")
            continue

        def cell(f):
            s = f"{o['agree'][f]}"
            if o["differ"][f]:
                s += f" (**{o['differ'][f]} differ**)"
            if o["unknown"][f]:
                s += f" ({o['unknown'][f]} unknown)"
            return s
        lines.append(f"| `{t}` | {o['seen']} | {o['meta']} | {o['inferred']} | {o['outputs']} | "
                     + " | ".join(cell(f) for f in FIELDS) + " |")
    lines += ["", "Cells count compared outputs agreeing with the recorded metadata; `differ` and",
              "`unknown` are listed below with an example each.", "", "## Disagreements and unknowns", ""]
    any_ex = False
    for t in sorted(ops):
        ex = ops[t]["examples"]
        if not ex:
            continue
        any_ex = True
        lines.append(f"- `{t}` ({len(ex)}): {ex[0]}")
        for e in ex[1:3]:
            lines.append(f"  - {e}")
    if not any_ex:
        lines.append("None.")
    lines += ["", "Explained:", ""]
    for k, v in EXPLAINED.items():
        lines.append(f"- {k}: {v}")
    lines += ["", "Overloads without a meta function in these programs: symbolic-size and assertion",
              "ops (`sym_size.int`, `_assert_scalar`, `_assert_tensor_metadata`, `_local_scalar_dense`,",
              "`item`), whose outputs are not tensors or that return nothing; ops with data-dependent",
              "output sizes (`nonzero`, `masked_select`, `_unique2`, `repeat_interleave.Tensor`); and",
              "`lstm.input`, `repeat_interleave.self_Tensor` and `_print`. Their nodes are not checked.", ""]
    with open(out, "w") as f:
        f.write("\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--eir", default=os.path.join(REPO, "build", "eir"))
    ap.add_argument("--zoo", default=os.environ.get("EIR_ZOO_DIR"))
    ap.add_argument("--out", default=os.path.join(REPO, "docs", "META.md"))
    ap.add_argument("--modules", action="store_true",
                    help="also export the modules of python/tests/test_meta.py (needs torch)")
    ap.add_argument("pt2", nargs="*")
    a = ap.parse_args()
    paths = []
    if a.modules:
        import tempfile
        sys.path.insert(0, os.path.join(REPO, "python", "tests"))
        import test_meta
        tmp = tempfile.mkdtemp(prefix="eir_meta_")
        for name in test_meta.CASES:
            for strict in ((False, True) if name in test_meta.STRICT else (False,)):
                for decomp in (False, True):
                    out = os.path.join(tmp, f"test_meta.{name}{'.strict' if strict else ''}"
                                            f"{'.decomp' if decomp else ''}.pt2")
                    paths.append(test_meta.export(name, strict, decomp, out))
    if a.zoo:
        paths += sorted(glob.glob(os.path.join(a.zoo, "*.pt2")))
    paths += sorted(glob.glob(os.path.join(REPO, "tests", "e2e", "fixtures", "*.pt2")))
    paths += sorted(glob.glob(os.path.join(REPO, "tests", "legacy", "**", "*.pt2"), recursive=True))
    paths += a.pt2
    ops = collect(a.eir, paths)
    write(ops, paths, a.out)
    print(f"wrote {a.out} ({len(paths)} programs)")


if __name__ == "__main__":
    main()
