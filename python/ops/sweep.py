#!/usr/bin/env python3
"""sweep.py — the per-op conformance sweep: every forward op of the Core ATen
opset of the installed torch (torch.Tag.core, *_backward ops left out) x every
dtype of samples.DTYPES, eir against torch in the same run.

For one (op, dtype): the samples of samples.py that torch accepts eagerly
become ONE program (a module calling torch.ops.aten.<op>.<overload> once per
sample), exported with torch.export and saved; `eir run` runs it on the
samples' inputs and each output is compared with ep.module()'s within the
tolerance of its dtype (python/tests/tolerances.py; integers and bool exact),
and so is each input the op writes (running stats, eir's DIR/input_<i>.npy).
Both runs start from the same input values, written before torch runs.
An eir error is re-run sample by sample to name the sample at fault.

Status of a cell (STATUS): ok, mismatch, eir: missing kernel, eir: error,
torch: unsupported (torch refuses the first, ordinary sample in eager mode;
other samples it refuses are left out), not in graph (export turned the call
into other ops, or export/save failed), not sampled (samples.py has nothing
for the op, e.g. a core op new in this torch).

    python3 python/ops/sweep.py [--only OP ...] [--dtypes f32,i64] [--jobs 2]
                                [--table build/OPS.md] [--doc docs/OPS.md] [-v]
                                [--exact float16,bfloat16]

Exits 1 if a failing cell is not excused by python/ops/known_gaps.txt (a whole
cell, or each failing sample of it), or if the list names a gap that no longer
fails (it must stay honest). --exact compares the named dtypes bit for bit: a
diagnostic for rounding differences the tolerances hide (torch's own scalar
and vectorized paths round differently, so expect some).
"""
from __future__ import annotations

import os
import sys
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import harness  # noqa: E402
from harness import REPO, STATUS, render_details, run_samples  # noqa: E402,F401

GAPS_FILE = os.path.join(HERE, "known_gaps.txt")
# the statuses this sweep gives (harness.STATUS also has the OpInfo sweep's)
STATUSES = ("ok", "mismatch", "missing", "error", "unsupported", "not-in-graph", "not-sampled")
FAILING = ("mismatch", "missing", "error", "not-sampled")


def core_ops():
    """"name.overload" of every Core ATen forward op of the installed torch.
    From every registered schema: iterating torch.ops.aten lists only the
    op packets Python has touched so far."""
    import torch
    out = set()
    for sc in torch._C._jit_get_all_schemas():
        if not sc.name.startswith("aten::"):
            continue
        name, ov = sc.name[6:], sc.overload_name or "default"
        if name.endswith("_backward"):
            continue
        try:
            op = getattr(getattr(torch.ops.aten, name), ov)
        except (AttributeError, RuntimeError):
            continue
        if torch.Tag.core in op.tags:
            out.add(f"{name}.{ov}")
    return sorted(out)


def resolve(op_name):
    import torch
    name, ov = op_name.rsplit(".", 1)
    return getattr(getattr(torch.ops.aten, name), ov)


# ---------------------------------------------------------------------------
# one (op, dtype)
# ---------------------------------------------------------------------------

def run_one(op_name, dt_name, eir, workdir):
    """Status of one (op, dtype): a dict with status, msg, samples, bad (per-sample problems), seconds."""
    import torch
    from samples import DTYPES, SAMPLERS, G, materialize

    t0 = time.time()
    res = harness.new_result(op_name, dt_name)

    def done(status, msg=""):
        res.update(status=status, msg=msg, seconds=round(time.time() - t0, 3))
        return res

    if op_name not in SAMPLERS:
        return done("not-sampled")
    op = resolve(op_name)
    torch.manual_seed(zlib.crc32(op_name.encode()))
    g = G(DTYPES[dt_name], zlib.crc32(f"{op_name}/{dt_name}".encode()))
    samples = SAMPLERS[op_name](g)

    # torch decides: the dtype is unsupported if torch refuses the first
    # (ordinary) sample; other samples it refuses are left out. (Empty and
    # 0-d samples can pass where the dtype has no kernel at all.)
    kept = []
    for k, s in enumerate(samples):
        try:
            with torch.no_grad():
                op(*materialize(s.args, lambda i: i.value()),
                   **{k: materialize(v, lambda i: i.value()) for k, v in s.kwargs.items()})
        except Exception as e:  # noqa: BLE001  (torch's refusal is data here)
            if k == 0:
                return done("unsupported", f"{s.label}: {harness._short(e, 160)}")
            res["refused"].append(f"{s.label}: {harness._short(e, 160)}")
            continue
        kept.append(s)
    if not kept:
        return done("unsupported", "no samples")
    res["samples"] = len(kept)

    def in_graph(ep, _kept):
        targets = [n.target for n in ep.graph.nodes if n.op == "call_function"]
        if op not in targets:
            seen = sorted({getattr(t, "__name__", str(t)) if callable(t) and not hasattr(t, "_schema")
                           else str(t).replace("aten.", "") for t in targets})
            return "not-in-graph", "the exported graph calls " + ", ".join(seen[:12])
        return None

    return done(*run_samples(res, op, kept, eir, workdir, "not-in-graph", in_graph))


# the sampled sweep of `make test` (dtypes="sample"): these in every op, SAMPLE_EXTRA more
# per op chosen by a hash of its name, and the dtypes known_gaps.txt names for it
SAMPLE_DTYPES = ("f32", "i64", "bool")
SAMPLE_EXTRA = 2


def dtypes_for(op, dtypes=None, gaps=None):
    """The dtypes swept for op: `dtypes` (a list of names), all of them
    (None or "all"), or "sample" (harness.sample_dtypes)."""
    from samples import DTYPES
    if dtypes == "sample":
        return harness.sample_dtypes(op, SAMPLE_DTYPES, SAMPLE_EXTRA, load_gaps() if gaps is None else gaps, list(DTYPES))
    return list(DTYPES) if dtypes in (None, "all") else list(dtypes)


def sweep(ops=None, dtypes=None, jobs=2, eir=None, progress=None):
    """Results of every (op, dtype): {(op, dtype): result dict}. dtypes: a
    list of names, None or "all" for every dtype, "sample" for the sampled
    sweep (dtypes_for)."""
    ops = ops or core_ops()
    eir = eir or harness.default_eir()
    gaps = load_gaps()
    cells = [(o, d) for o in ops for d in dtypes_for(o, dtypes, gaps)]
    return harness.run_cells(lambda wd: [("sweep:run_one", o, d, eir, wd) for o, d in cells], jobs, progress)


# ---------------------------------------------------------------------------
# known gaps and the verdict
# ---------------------------------------------------------------------------

def load_gaps(path=GAPS_FILE):
    """{(op, dtype or "*", sample or None): reason} from known_gaps.txt."""
    return harness.load_gaps(path)


def judge(results, gaps):
    """Problems: failing cells known_gaps.txt does not excuse, and listed gaps
    that no longer fail (only for ops this run covered)."""
    return harness.judge(results, gaps, FAILING, "known_gaps.txt")


def summary_counts(results):
    return harness.summary_counts(results, STATUSES)


# ---------------------------------------------------------------------------
# the table
# ---------------------------------------------------------------------------

def render_table(results, gaps, seconds=None):
    import torch
    from samples import DTYPES
    ops = sorted({op for op, _ in results})
    dts = [d for d in DTYPES if any((op, d) in results for op in ops)]
    counts = summary_counts(results)
    L = ["# Core ATen ops in eir", "",
         f"Generated by `make ops-doc` (`python/ops/sweep.py`) from one run against torch {torch.__version__}: "
         "every forward op of the Core ATen opset (`torch.Tag.core`) in every dtype, eir against torch on the "
         "samples of `python/ops/samples.py` (ordinary, broadcasting, empty, 0-d, negative dims, strided and "
         "transposed views, NaN/inf, integer edge cases, mixed-dtype operands), within the tolerances of "
         "`python/tests/tolerances.py` (integers and bool exact). Random ops are checked by shape, dtype and "
         "distribution. `make test` regenerates this table as `build/OPS.md` and fails on any failing cell "
         "not listed in `python/ops/known_gaps.txt`. Programs exported without `run_decompositions()` also "
         "contain non-core ATen ops: `docs/OPS-EXPORTED.md` covers those, through torch's OpInfo samples.", ""]
    L.append("Legend:")
    L.append("")
    L += [f"- `{STATUS[k][0]}` {STATUS[k][1]}" for k in STATUSES]
    L.append("")
    total = len(results)
    tested = total - counts["unsupported"] - counts["not-in-graph"]
    L.append(f"Summary: {total} (op, dtype) cells over {len(ops)} ops; torch runs and exports {tested} of them, "
             f"and eir matches it on {counts['ok']}. The others: " +
             ", ".join(f"{counts[k]} {label}" for k, label in (
                 ("mismatch", "mismatch"), ("missing", "eir: missing kernel"), ("error", "eir: error"),
                 ("not-sampled", "not sampled"), ("unsupported", "torch: unsupported"),
                 ("not-in-graph", "not in graph"))) + "." + (f" Sweep time {seconds:.0f} s." if seconds else ""))
    L.append("")
    L.append("| op | " + " | ".join(dts) + " |")
    L.append("|---|" + "|".join(":-:" for _ in dts) + "|")
    for op in ops:
        cells = []
        for d in dts:
            r = results.get((op, d))
            cells.append(STATUS[r["status"]][0] if r else "")
        L.append(f"| `{op}` | " + " | ".join(cells) + " |")
    listed = sorted(((k, v) for k, v in gaps.items() if k[0] in set(ops)), key=str)
    if listed:
        L += ["", "## Known gaps", "", "From `python/ops/known_gaps.txt` (a cell, or one sample of a cell):", ""]
        by_reason = {}
        for (op, d, smp), reason in listed:
            by_reason.setdefault(reason, []).append(f"`{op}` {d}" + (f" (sample `{smp}`)" if smp else ""))
        for reason, cells in sorted(by_reason.items()):
            L.append(f"- {reason}: " + ", ".join(cells))
    notin = {}  # (op, kind of failure) -> (first message, dtypes)
    for (op, d), r in sorted(results.items(), key=lambda kv: (kv[0][0], dts.index(kv[0][1]))):
        if r["status"] == "not-in-graph":
            kind = r["msg"].split(": ", 1)[0] if "fails" in r["msg"] else r["msg"]
            notin.setdefault((op, kind), (r["msg"], []))[1].append(d)
    if notin:
        L += ["", "## Not in graph", ""]
        for (op, _), (msg, ds) in notin.items():
            which = "every dtype" if len(ds) == len(dts) else ", ".join(ds)
            L.append(f"- `{op}` ({which}): {msg}")
    # every ATen overload by kind, and how many eir runs (`eir ops`)
    import subprocess
    cov = subprocess.run([harness.default_eir(), "ops"], capture_output=True, text=True)
    if cov.returncode == 0:
        L += ["", "## Operator coverage", "",
              "Every ATen overload of torch 2.13 (`src/ops/schemas.inc`) by kind, and how many of them eir runs "
              "(`eir ops`; `eir ops --list inplace --missing` names the rest). An in-place overload without a kernel of "
              "its own runs its functional overload's kernel and writes the result into `self`. Most of the overloads "
              "eir lacks are TorchScript list/dict ops, sparse, quantized, CUDA, `_foreach_*` and optimizer ops that "
              "no exported program contains.", "", cov.stdout.rstrip("\n")]
    # the alias sweep's section (python/ops/alias_sweep.py --doc docs/OPS.md), kept as it is
    import alias_sweep
    alias = alias_sweep.read_section(os.path.join(REPO, "docs", "OPS.md"))
    if alias:
        L += ["", alias.rstrip("\n")]
    # the higher-order operators' section (checked by python/tests/test_exported_hops.py), kept as it is
    with open(os.path.join(REPO, "docs", "OPS.md")) as f:
        page = f.read()
    i, j = page.find("<!-- hops:"), page.find("<!-- /hops -->")
    if i >= 0 and j > i:
        L += ["", page[i:j + len("<!-- /hops -->")]]
    return "\n".join(L) + "\n"


def main(argv=None):
    ap = harness.cli_parser(__doc__, "ops (name.overload)", "OPS.md", "ops_details.txt")
    ap.add_argument("--exact", help="compare these dtypes (torch names: float16,bfloat16) bit for bit: a diagnostic")
    a = ap.parse_args(argv)
    if a.exact:
        os.environ["EIR_OPS_EXACT"] = a.exact  # spawned workers read it at import
        harness.EXACT.update(a.exact.split(","))
    t0 = time.time()

    results = sweep(a.only, a.dtypes.split(",") if a.dtypes else None, a.jobs,
                    progress=harness.progress_printer(a.verbose, FAILING))
    secs = time.time() - t0
    gaps = load_gaps()
    harness.write_reports(results, render_table(results, gaps, secs), (a.table, a.doc), a.details)
    return harness.finish(results, secs, summary_counts(results), judge(results, gaps))


if __name__ == "__main__":
    sys.exit(main())
