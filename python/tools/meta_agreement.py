"""Measure eir's shape and dtype inference against the metadata torch recorded.

Runs `eir verify --meta-report` over the zoo (EIR_ZOO_DIR or --zoo, every
NAME.pt2 and NAME.decomp.pt2), the committed fixtures (tests/e2e/fixtures,
tests/legacy), the modules of python/tests/test_meta.py (--modules), the
programs of the Core ATen sweep and the OpInfo sweep (--sweeps DIR: exported
into DIR on the first run, about ten minutes, and reused) and any further
.pt2 given, and writes docs/META.md: totals per source; per operator
overload, the nodes seen, the nodes with a meta function, the outputs
compared and how many agree on dtype / sizes / strides / storage offset,
with an example of each disagreement or unknown; and the coverage of the
Core ATen opset and of the overloads eir's runtime runs.

    python3 python/tools/meta_agreement.py --zoo /work/zoo --modules --sweeps build/meta-sweeps --out docs/META.md
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
    "nonzero, argwhere, masked_select, _unique2, repeat_interleave.Tensor": "data-dependent sizes (torch's "
        "unbacked symbols u0, u1...): dtype and rank inferred, those sizes and the strides that depend on them "
        "unknown.",
    "div.Tensor_mode, div.Scalar_mode": "floor division of floats: torch's meta is a chain of a dozen pointwise "
        "ops (fmod, where, copysign...) whose output layout is not TensorIterator's when the inputs' layouts "
        "differ; eir infers the strides only when every input is contiguous.",
    "_fft_r2c, _fft_c2r, _fft_c2c": "sizes and dtype inferred; the strides are pocketfft's choice and not inferred.",
    "fft_* front ends, stft": "sizes and dtype inferred; the strides come from the _fft_* calls (pocketfft's "
        "choice) and are not inferred.",
    "einsum, linalg_tensorinv, linalg_tensorsolve": "sizes and dtype inferred; the strides are those of the "
        "permutes, reshapes and matrix products torch chooses for the contraction, not inferred.",
    "combinations, bincount, unique_consecutive, where(condition), nonzero_numpy, one_hot (num_classes -1), "
    "repeat_interleave.self_Tensor (without output_size)": "data-dependent sizes: dtype and rank inferred, those "
        "sizes unknown.",
    "narrow.Tensor": "the start is a tensor's value: sizes and strides inferred, the storage offset unknown.",
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


def new_ops():
    return collections.defaultdict(lambda: {"seen": 0, "meta": 0, "inferred": 0, "outputs": 0,
                                            "agree": collections.Counter(), "differ": collections.Counter(),
                                            "unknown": collections.Counter(), "errors": 0, "examples": []})


def collect(eir, paths, ops=None):
    ops = new_ops() if ops is None else ops
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


def totals(ops):
    t = collections.Counter()
    for o in ops.values():
        t["seen"] += o["seen"]
        t["meta"] += o["meta"]
        t["outputs"] += o["outputs"]
        t["errors"] += o["errors"]
        for f in FIELDS:
            t["agree_" + f] += o["agree"][f]
            t["differ_" + f] += o["differ"][f]
            t["unknown_" + f] += o["unknown"][f]
    return t


def meta_names():
    """The overloads with a meta function: the tables of src/ops/meta.c and
    src/ops/meta_tail.c (which lists meta_tail_la.c's functions too)."""
    import re
    names = set()
    for src in ("meta.c", "meta_tail.c"):
        with open(os.path.join(REPO, "src", "ops", src)) as f:
            names |= set(re.findall(r'^    \{"(aten\.[^"]+)", (?:m|meta_op|meta_tail|t)_', f.read(), re.M))
    return names


def eir_list(eir, *args):
    p = subprocess.run([eir, "ops", "--list", *args], capture_output=True, text=True, check=True)
    return set(p.stdout.split())


def tensor_output(name):
    """Whether the overload returns a tensor (torch's schema); None when torch is not there."""
    try:
        import torch
        n, ov = name[len("aten."):].rsplit(".", 1)
        sch = getattr(getattr(torch.ops.aten, n), ov)._schema
    except Exception:  # noqa: BLE001
        return None
    return any("Tensor" in str(r.type) for r in sch.returns)


# Overloads whose output sizes depend on the data: torch gives them unbacked
# symbols (u0...); eir infers the dtype and rank and leaves those sizes unknown.
DATA_DEPENDENT = ("aten.nonzero.default", "aten.argwhere.default", "aten.masked_select.default",
                  "aten._unique2.default", "aten.repeat_interleave.Tensor")


def coverage(eir):
    have = meta_names()
    core = eir_list(eir, "core") | eir_list(eir, "core", "--missing")
    runs = eir_list(eir, "all") - eir_list(eir, "inplace") - eir_list(eir, "out")
    L = ["## Coverage", ""]
    for title, ops in (("Core ATen (torch.Tag.core)", core), ("functional overloads eir's runtime runs", runs)):
        lack = sorted(ops - have)
        no_tensor = [o for o in lack if tensor_output(o) is False]
        rest = [o for o in lack if o not in no_tensor]
        L.append(f"- {title}: {len(ops)} overloads, {len(ops & have)} with a meta function; "
                 f"{len(no_tensor)} return no tensor (not inferred: "
                 + ", ".join(f"`{o[5:]}`" for o in no_tensor[:12]) + (", ..." if len(no_tensor) > 12 else "")
                 + (f"); {len(rest)} lack one" if rest else "); none lacks one")
                 + ("" if not rest else ": " + ", ".join(f"`{o[5:]}`" for o in rest) if len(rest) <= 60 else
                    " (the other backward ops, the rest of linear algebra: eig, lu, solve, pinv, matrix norms; "
                    "the margin and embedding losses, FFT front ends, RNNs, histograms and the rest of the long "
                    "tail; `eir verify` does not check their nodes)") + ".")
    L += ["", "Data-dependent output sizes (torch: unbacked symbols): "
          + ", ".join(f"`{o[5:]}`" for o in DATA_DEPENDENT)
          + " and `index.Tensor` with a boolean mask. eir infers their dtype and rank and leaves the "
          "data-dependent sizes unknown (`?` below; `eir_node_infer_meta` reports them in `unknown_sizes`, "
          "`eir_program_fill_meta` refuses to fill them).", ""]
    return L


def write(sources, out, eir):
    ops = new_ops()
    per_source = []
    for name, paths, sops in sources:
        for t, o in sops.items():
            m = ops[t]
            for k in ("seen", "meta", "inferred", "outputs", "errors"):
                m[k] += o[k]
            for k in ("agree", "differ", "unknown"):
                m[k].update(o[k])
            m["examples"] += o["examples"]
        per_source.append((name, len(paths), totals(sops)))
    total = totals(ops)
    nprog = sum(n for _, n, _ in per_source)
    lines = [
        "# Shape and dtype inference: agreement with torch",
        "",
        "eir infers every output's dtype, sizes, strides and storage offset from a node's",
        "arguments (src/ops/meta.c, src/ops/meta_more.c, src/ops/meta_tail.c and src/ops/meta_tail_la.c, one meta function",
        "per ATen overload; public as",
        "`eir_node_infer_meta` and `eir_program_fill_meta` in include/eir.h) and `eir verify`",
        "compares them with the metadata torch 2.13 recorded (rules `meta.mismatch`: recorded",
        "and inferred disagree, `meta.args`: the arguments contradict each other). An overload",
        "without a meta function is not checked. This page is written by `make meta-doc`",
        "(python/tools/meta_agreement.py) from `eir verify --meta-report` over",
        f"{nprog} programs: the zoo (every program as exported and after",
        "run_decompositions()), tests/e2e/fixtures and tests/legacy, the modules of",
        "python/tests/test_meta.py (promotion, channels-last layouts, views, reductions, linear",
        "algebra, normalisation, attention, the long tail, a dynamic batch; strict and non-strict, as exported",
        "and decomposed), and the programs of the two op sweeps: the Core ATen sweep",
        "(python/ops/sweep.py: every Core ATen overload called on its samples, in float32, int64,",
        "bool and two more dtypes per op) and the OpInfo sweep (python/ops/opinfo_sweep.py: every",
        "OpInfo of torch's op_db as exported, in float32 and bfloat16 or int64), which reach",
        "empty, 0-dim and non-contiguous inputs.",
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
        "  for convolution, pooling, upsampling and padding, contiguous results for reductions,",
        "  matmuls, softmax, embedding, indexing and scatter; views compute their strides and",
        "  storage offset (`view` by torch's computeStride, `reshape` copying when no view fits);",
        "  the `*_scatter` view inverses keep self's strides.",
        "",
        "## Totals",
        "",
        "| source | programs | ATen nodes | with meta | outputs compared | dtype agree / differ | "
        "sizes agree / differ | strides agree / differ | offset agree / differ |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, n, t in per_source + [("all", nprog, total)]:
        lines.append(f"| {name} | {n} | {t['seen']} | {t['meta']} | {t['outputs']} | "
                     + " | ".join(f"{t['agree_' + f]} / {t['differ_' + f]}" for f in FIELDS) + " |")
    lines += ["", "An output neither agrees nor differs where a field is unknown (data-dependent sizes, the strides",
              "eir does not infer, dtypes under autocast): "
              + ", ".join(f"{f} {total['unknown_' + f]}" for f in FIELDS) + f"; {total['errors']} nodes where "
              "inference found the arguments contradictory.", ""]
    lines += coverage(eir)
    lines += ["## Per overload", "",
              "| overload | nodes | with meta | inferred | outputs | dtype | sizes | strides | offset |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
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
    lines += ["", "Where torch's meta and its eager kernels part ways, eir follows the meta (what export",
              "records): `pow(bool tensor, True)` is int64, an empty `diagonal` still moves the storage",
              "offset. Overloads without a meta function in these programs are listed in the table",
              "with 0 in 'with meta'; their nodes are not checked.", ""]
    with open(out, "w") as f:
        f.write("\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--eir", default=os.path.join(REPO, "build", "eir"))
    ap.add_argument("--zoo", default=os.environ.get("EIR_ZOO_DIR"))
    ap.add_argument("--out", default=os.path.join(REPO, "docs", "META.md"))
    ap.add_argument("--modules", action="store_true",
                    help="also export the modules of python/tests/test_meta.py (needs torch)")
    ap.add_argument("--sweeps", help="the sweeps' programs: exported here when the directory is empty (needs torch)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("pt2", nargs="*")
    a = ap.parse_args()
    sources = []

    def add(name, paths):
        if paths:
            sources.append((name, paths, collect(a.eir, paths)))

    if a.zoo:
        add("zoo", sorted(glob.glob(os.path.join(a.zoo, "*.pt2"))))
    add("fixtures", sorted(glob.glob(os.path.join(REPO, "tests", "e2e", "fixtures", "*.pt2")))
        + sorted(glob.glob(os.path.join(REPO, "tests", "legacy", "**", "*.pt2"), recursive=True)))
    if a.modules:
        import tempfile
        sys.path.insert(0, os.path.join(REPO, "python", "tests"))
        import test_meta
        tmp = tempfile.mkdtemp(prefix="eir_meta_")
        paths = []
        for name in test_meta.CASES:
            for strict in ((False, True) if name in test_meta.STRICT else (False,)):
                for decomp in (False, True):
                    out = os.path.join(tmp, f"test_meta.{name}{'.strict' if strict else ''}"
                                            f"{'.decomp' if decomp else ''}.pt2")
                    paths.append(test_meta.export(name, strict, decomp, out))
        add("python/tests/test_meta.py", paths)
    if a.sweeps:
        if not glob.glob(os.path.join(a.sweeps, "*.pt2")):
            export_sweeps(a.sweeps, a.jobs)
        add("Core ATen sweep", sorted(glob.glob(os.path.join(a.sweeps, "core.*.pt2"))))
        add("OpInfo sweep", sorted(glob.glob(os.path.join(a.sweeps, "opinfo.*.pt2"))))
    add("given", list(a.pt2))
    write(sources, a.out, a.eir)
    print(f"wrote {a.out} ({sum(len(p) for _, p, _ in sources)} programs)")


if __name__ == "__main__":
    main()
