#!/usr/bin/env python3
"""conversion_sweep.py — `eir convert` over every program the sweeps export,
checked by torch 2.13; writes two tables.

--to-core (docs/TO-CORE.md): each OpInfo program of python/ops/opinfo_sweep.py,
exported as a user would (not decomposed), goes through `eir convert --to
core`. A cell is `converted` when the result verifies as Core ATen (or has
only non-core operators torch's own run_decompositions() keeps too), loads in
torch.export.load, gives the original's outputs (and written inputs) within
python/tests/tolerances.py, and calls no operator run_decompositions() of the
same program leaves out; `refused` when eir refuses it (the reason is eir's
message); `wrong` when a check fails.

--roundtrip (docs/ROUNDTRIP.md): `eir convert IN OUT` with no pass, then
torch.export.load(OUT) must print (print(ep)) exactly as torch.export.load(IN)
and compute the same outputs bit for bit, over every zoo variant
($EIR_ZOO_DIR), the Core ATen sweep programs (python/ops/sweep.py), the
OpInfo sweep programs and tests/e2e/fixtures.

    python3 python/tools/conversion_sweep.py [--to-core] [--roundtrip]
        [--only KEY ...] [--dtypes f32] [--jobs 2] [--sample N]
        [--to-core-doc docs/TO-CORE.md] [--roundtrip-doc docs/ROUNDTRIP.md]

Without --to-core / --roundtrip both run. --sample N takes every N-th OpInfo
(and Core op) only: the quick version the tests use.
"""
from __future__ import annotations

import argparse
import glob
import json
import re
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
for d in (os.path.join(REPO, "python", "ops"), os.path.join(REPO, "python", "tests")):
    if d not in sys.path:
        sys.path.insert(0, d)

import harness  # noqa: E402


# ---------------------------------------------------------------------------
# checks of one saved program
# ---------------------------------------------------------------------------

def _run(ep, flat, kwargs=None, seed=0):
    """Outputs of ep.module() on copies of flat (and kwargs), then those
    copies (the inputs the program writes) and the module's buffers."""
    import torch
    cl = lambda t: t.clone() if isinstance(t, torch.Tensor) else t  # noqa: E731
    args = torch.utils._pytree.tree_map(cl, tuple(flat))
    kw = torch.utils._pytree.tree_map(cl, dict(kwargs or {}))
    torch.manual_seed(seed)
    m = ep.module()
    with torch.no_grad():
        out = m(*args, **kw)
    return (torch.utils._pytree.tree_leaves(out) + torch.utils._pytree.tree_leaves((args, kw))
            + [b for b in m.buffers()])


def _compare(got, want, how):
    """None, or what differs; how: 'exact', 'close' (tolerances.py) or 'meta'."""
    import torch
    from tolerances import tolerance
    if len(got) != len(want):
        return f"{len(got)} outputs vs {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        if isinstance(w, torch.Tensor) != isinstance(g, torch.Tensor):
            return f"output {i}: {type(g).__name__} vs {type(w).__name__}"
        if not isinstance(w, torch.Tensor):
            if g != w and not (g != g and w != w):
                return f"output {i}: {g} vs {w}"
            continue
        if g.shape != w.shape or g.dtype != w.dtype:
            return f"output {i}: {tuple(g.shape)} {g.dtype} vs {tuple(w.shape)} {w.dtype}"
        if how == "meta" or g.numel() == 0:
            continue
        if how == "exact":
            same = torch.equal(g, w) or (g.is_floating_point() or g.is_complex()) and bool(
                ((g == w) | (g.isnan() & w.isnan())).all())
            if not same:
                return f"output {i} differs"
            continue
        rtol, atol = tolerance(w.dtype)
        if g.dtype == torch.bool or not (g.is_floating_point() or g.is_complex()):
            if not torch.equal(g, w):
                return f"output {i} differs"
        elif not torch.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True):
            d = (g.to(torch.complex128 if g.is_complex() else torch.float64) -
                 w.to(torch.complex128 if w.is_complex() else torch.float64)).abs()
            d = d[~d.isnan()]
            return f"output {i} differs: max |diff| {d.max().item() if d.numel() else 'nan'}"
    return None


def _random(ep):
    import torch
    return any(n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload)
               and torch.Tag.nondeterministic_seeded in n.target.tags for n in ep.graph.nodes)


def roundtrip(eir, src, dst, flat=None, fallback=None, how="exact"):
    """(ok, problem) of `eir convert src dst` (no pass): print(ep) and outputs
    as torch.export.load(src) gives them. flat: the inputs (default: the
    program's example inputs, else fallback)."""
    import torch
    r = subprocess.run([eir, "convert", str(src), str(dst)], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        return False, "eir convert: " + ((r.stderr.strip().splitlines() or ["?"])[0])[:300]
    try:
        a = torch.export.load(str(src))
    except Exception as e:  # noqa: BLE001
        return None, "torch.export.load of the original fails: " + harness._short(e, 200)
    try:
        b = torch.export.load(str(dst))
    except Exception as e:  # noqa: BLE001
        return False, "torch.export.load fails: " + harness._short(e, 300)
    ta, tb = str(a), str(b)
    if ta != tb:
        la, lb = ta.splitlines(), tb.splitlines()
        k = next((i for i, (x, y) in enumerate(zip(la, lb)) if x != y), min(len(la), len(lb)))
        return False, f"print(ep) differs at line {k + 1}: {(la[k] if k < len(la) else '<end>')[:150]!r} vs " \
                      f"{(lb[k] if k < len(lb) else '<end>')[:150]!r}"
    kwargs = None
    if flat is None and a.example_inputs:
        flat, kwargs = a.example_inputs
    if flat is None:
        flat = fallback
    if flat is None:
        return True, "(no example inputs: print compared only)"
    try:
        want = _run(a, flat, kwargs)
    except Exception as e:  # noqa: BLE001
        return True, "(torch cannot run the original: print compared only: " + harness._short(e, 120) + ")"
    try:
        got = _run(b, flat, kwargs)
    except Exception as e:  # noqa: BLE001
        return False, "the copy fails to run in torch: " + harness._short(e, 300)
    bad = _compare(got, want, "meta" if _random(a) else how)
    return (False, bad) if bad else (True, "")


def to_core(eir, src, dst, flat, how="close"):
    """A dict: status (converted / refused / wrong / error), why, rewrote
    (whether eir changed the op set), ops (of the exported program)."""
    import torch
    import to_core_check as K
    res = {"status": "wrong", "why": "", "rewrote": False}
    r = K.convert(eir, src, dst)
    if r.returncode != 0:
        err = r.stderr.strip()
        if "left that torch's run_decompositions() would rewrite" in err or "cannot decompose" in err:
            res["status"] = "refused"
        else:
            res["status"] = "wrong" if r.returncode != 1 else "refused"
        res["why"] = _reason(err)
        return res
    ep_src = torch.export.load(str(src))
    v = K.verify_core(eir, dst)
    try:
        ep_new = torch.export.load(str(dst))
    except Exception as e:  # noqa: BLE001
        res["why"] = "torch.export.load fails: " + harness._short(e, 300)
        return res
    res["rewrote"] = K.op_set(ep_new) != K.op_set(ep_src)
    if v.returncode == 0 and not res["rewrote"]:
        # Core ATen as exported, nothing rewritten: torch's run_decompositions()
        # leaves these ops too (a core op has no default decomposition)
        torch_ops = K.op_set(ep_new)
    else:
        try:
            torch_ops = K.op_set(torch.export.load(str(src)).run_decompositions())
        except Exception as e:  # noqa: BLE001
            res.update(status="error", why="torch's run_decompositions() fails: " + harness._short(e, 200))
            return res
    if v.returncode != 0:
        bad = K.violating_ops(v.stdout)
        if not (v.returncode == 3 and bad and bad <= torch_ops):
            res["why"] = "eir verify --dialect core: " + ((v.stdout + v.stderr).strip().splitlines() or ["?"])[0][:300]
            return res
    extra = K.op_set(ep_new) - torch_ops
    if extra:
        res["why"] = f"ops torch's run_decompositions() does not leave: {sorted(extra)}"
        return res
    if flat is not None:
        try:
            want = _run(ep_src, flat)
        except Exception as e:  # noqa: BLE001
            res.update(status="converted", why="(torch cannot run the original: not compared: "
                                                + harness._short(e, 120) + ")")
            return res
        try:
            got = _run(ep_new, flat)
        except Exception as e:  # noqa: BLE001
            res["why"] = "the converted program fails in torch: " + harness._short(e, 300)
            return res
        bad = _compare(got, want, "meta" if _random(ep_src) else how)
        if bad:
            res["why"] = bad
            return res
    res["status"] = "converted"
    return res


def _reason(err):
    """The gist of eir's refusal: 'node %x (op): cannot decompose: why', or
    the operators left."""
    lines = [ln for ln in err.splitlines() if ln.strip()]
    for ln in lines:
        if "cannot decompose:" in ln:
            s = ln[ln.index("to-core: ") + 9:] if "to-core: " in ln else ln
            return s.split(" [File:")[0][:300]
    left = [ln.strip() for ln in lines if ln.strip().startswith("%")]
    if left:
        ops = sorted({ln.split("(", 1)[1].split(")", 1)[0] for ln in left if "(" in ln})
        return "no rule for " + ", ".join(ops)
    return (lines[0] if lines else "?")[:300]


# ---------------------------------------------------------------------------
# the cells (run in harness's worker processes)
# ---------------------------------------------------------------------------

def opinfo_cell(key, dt_name, eir, workdir, modes):
    """One OpInfo x dtype program: exported as opinfo_sweep.py does, then the
    round trip and / or to-core."""
    import tempfile
    import torch
    import opinfo_sweep as O
    from samples import DTYPES, materialize
    t0 = time.time()
    res = harness.new_result(key, dt_name)
    res.update(kind="opinfo", rt=None, core=None)

    def done(status, msg=""):
        res.update(status=status, msg=msg, seconds=round(time.time() - t0, 3))
        return res

    info = O.opinfos()[key]
    if dt_name not in O.supported(info):
        return done("unsupported", "torch does not support the dtype on CPU")
    try:
        samples, _, _ = O.cell_samples(info, key, DTYPES[dt_name])
    except O.SampleError as e:
        return done("not-sampled", str(e))
    kept = []
    for s in samples:
        try:
            with torch.no_grad():
                info.op(*materialize(s.args, lambda i: i.value()),
                        **{k: materialize(v, lambda i: i.value()) for k, v in s.kwargs.items()})
            kept.append(s)
        except Exception:  # noqa: BLE001
            pass
    if not kept:
        return done("unsupported", "torch refuses every sample")
    try:
        ep, flat = harness.export_samples(info.op, kept)
    except Exception:  # noqa: BLE001
        ok = []
        for s in kept:
            try:
                harness.export_samples(info.op, [s])
                ok.append(s)
            except Exception:  # noqa: BLE001
                pass
        if not ok:
            return done("export", "torch.export cannot export any sample")
        kept = ok
        ep, flat = harness.export_samples(info.op, kept)
    d = tempfile.mkdtemp(dir=workdir or None, prefix="cell.")
    src = os.path.join(d, "p.pt2")
    try:
        torch.export.save(ep, src)
    except Exception as e:  # noqa: BLE001
        return done("export", "torch.export.save fails: " + harness._short(e, 160))
    try:
        torch.export.load(src).module()(*flat)
    except Exception as e:  # noqa: BLE001
        return done("export", "torch cannot run its own saved program: " + harness._short(e, 160))
    res["ops"] = sorted(O.graph_ops(ep, []))
    how = "meta" if info.name in O.UNINITIALIZED or info.name in O.NONUNIQUE else "close"
    if "roundtrip" in modes:
        ok, why = roundtrip(eir, src, os.path.join(d, "rt.pt2"), flat, None,
                            "meta" if info.name in O.UNINITIALIZED else "exact")
        res["rt"] = {"ok": ok, "why": why}
    if "to-core" in modes:
        res["core"] = to_core(eir, src, os.path.join(d, "core.pt2"), flat, how)
    return done("ok")


def core_cell(op_name, dt_name, eir, workdir):
    """One Core ATen op x dtype program of sweep.py: the round trip."""
    import tempfile
    import torch
    import sweep as S
    import zlib
    from samples import DTYPES, SAMPLERS, G, materialize
    t0 = time.time()
    res = harness.new_result(op_name, dt_name)
    res.update(kind="core", rt=None)

    def done(status, msg=""):
        res.update(status=status, msg=msg, seconds=round(time.time() - t0, 3))
        return res

    if op_name not in SAMPLERS:
        return done("not-sampled")
    op = S.resolve(op_name)
    torch.manual_seed(zlib.crc32(op_name.encode()))
    g = G(DTYPES[dt_name], zlib.crc32(f"{op_name}/{dt_name}".encode()))
    kept = []
    for k, s in enumerate(SAMPLERS[op_name](g)):
        try:
            with torch.no_grad():
                op(*materialize(s.args, lambda i: i.value()),
                   **{k2: materialize(v, lambda i: i.value()) for k2, v in s.kwargs.items()})
            kept.append(s)
        except Exception:  # noqa: BLE001
            if k == 0:
                return done("unsupported")
    if not kept:
        return done("unsupported")
    try:
        ep, flat = harness.export_samples(op, kept)
    except Exception:  # noqa: BLE001
        ok = []
        for s in kept:
            try:
                harness.export_samples(op, [s])
                ok.append(s)
            except Exception:  # noqa: BLE001
                pass
        if not ok:
            return done("export", "torch.export cannot export any sample")
        kept = ok
        ep, flat = harness.export_samples(op, kept)
    d = tempfile.mkdtemp(dir=workdir or None, prefix="cell.")
    src = os.path.join(d, "p.pt2")
    try:
        torch.export.save(ep, src)
    except Exception as e:  # noqa: BLE001
        return done("export", "torch.export.save fails: " + harness._short(e, 160))
    ok, why = roundtrip(eir, src, os.path.join(d, "rt.pt2"), flat, None, "meta" if "empty" in op_name else "exact")
    res["rt"] = {"ok": ok, "why": why}
    return done("ok")


def file_cell(path, group, eir, workdir):
    """A committed or generated .pt2 (zoo, fixtures): the round trip on its
    example inputs (the zoo's), or the fixture's recorded inputs."""
    import tempfile
    import numpy as np
    import torch
    t0 = time.time()
    res = harness.new_result(os.path.basename(path), group)
    res.update(kind=group, rt=None)
    if group in ("zoo", "fixtures"):
        # the zoo's custom operators and input dataclasses (the fixtures come
        # from the zoo too) are registered by its module
        zdir = os.path.join(REPO, "python", "zoo")
        if zdir not in sys.path:
            sys.path.insert(0, zdir)
        import zoo  # noqa: F401
    flat = None
    base = path[:-4]
    ins = sorted(glob.glob(base + ".in_*.npy"), key=lambda p: int(p.rsplit("_", 1)[1][:-4]))
    if ins:
        flat = tuple(torch.from_numpy(np.load(p)) for p in ins)
    d = tempfile.mkdtemp(dir=workdir or None, prefix="cell.")
    ok, why = roundtrip(eir, path, os.path.join(d, "rt.pt2"), None, flat)
    res["rt"] = {"ok": ok, "why": why}
    res.update(seconds=round(time.time() - t0, 3))
    return res


# ---------------------------------------------------------------------------
# tables
# ---------------------------------------------------------------------------

TIMING_BEGIN, TIMING_END = "<!-- to-core-timing:begin -->", "<!-- to-core-timing:end -->"


def keep_timing_block(path, text):
    """text with the Time section (python/tools/to_core_timing.py) of the page
    at path carried over, after the summary."""
    try:
        old = open(path).read()
    except OSError:
        return text
    if TIMING_BEGIN not in old or TIMING_END not in old:
        return text
    block = old[old.index(TIMING_BEGIN):old.index(TIMING_END) + len(TIMING_END)]
    i = text.find("\n## ")
    return text[:i + 1] + block + "\n" + text[i:] if i >= 0 else text + "\n" + block + "\n"


def cells_from_doc(path):
    """The OpInfo cells of a to-core page, read back from its per-OpInfo table (the notes there
    are cut at 200 characters; the reasons of torch's own failures come from their list)."""
    rows, fails = [], {}
    with open(path) as f:
        text = f.read()
    for m in re.finditer(r"^- `([^`]+)` (\w+): (torch's run_decompositions\(\) fails: .*)$", text, re.M):
        fails[(m.group(1), m.group(2))] = m.group(3)
    table = text.split("## Per OpInfo", 1)[-1]
    for m in re.finditer(r"^\| `([^`]+)` \| (\w+) \| ([^|]+) \| (.*) \|$", table, re.M):
        op, dtype, status, note = m.group(1), m.group(2), m.group(3).strip(), m.group(4)
        if status == "–":
            rows.append({"kind": "opinfo", "op": op, "dtype": dtype, "core": None,
                         "status": note.split("not exported: ", 1)[-1], "msg": ""})
            continue
        why = "" if status == "converted" else fails.get((op, dtype), note)
        rows.append({"kind": "opinfo", "op": op, "dtype": dtype, "status": "ok", "msg": "",
                     "core": {"status": status, "why": why, "rewrote": note == "rewritten"}})
    return rows


def to_core_table(results, seconds, dtypes, note=""):
    import torch
    cells = [r for r in results if r.get("kind") == "opinfo"]
    conv = [r for r in cells if r.get("core")]
    by = lambda s: [r for r in conv if r["core"]["status"] == s]  # noqa: E731
    ok, refused, wrong, err = by("converted"), by("refused"), by("wrong"), by("error")
    rewrote = [r for r in ok if r["core"]["rewrote"]]
    L = ["# `eir convert --to core` over the OpInfo sweep", "",
         f"Generated by `make to-core-doc` (`python/tools/conversion_sweep.py --to-core`) against torch "
         f"{torch.__version__}, dtypes {', '.join(dtypes)}. Each OpInfo of torch's `op_db` becomes one program "
         "calling the op on up to six of OpInfo's samples, exported as `python/ops/opinfo_sweep.py` exports it "
         "(no `run_decompositions()`), saved, and converted by `eir convert --to core`. `converted`: the result "
         "verifies as Core ATen in eir (or its only violations are non-core operators torch's own "
         "`run_decompositions()` keeps too), loads in `torch.export.load`, computes the original's outputs "
         "(and inputs it writes) within `python/tests/tolerances.py` (random and uninitialized outputs, and "
         "non-unique ones such as SVD, by shape and dtype), and calls no operator torch's `run_decompositions()` "
         "of the same program leaves out. `refused`: eir refuses, with the program unchanged and nothing "
         "written (its reason below). `wrong`: one of the checks fails.", ""]
    if note:
        L += [note, ""]
    L += [f"Summary: {len(cells)} cells; {len(conv)} exported and saved by torch; **{len(ok)} converted** "
         f"({len(rewrote)} of them needed rewriting, the others were Core ATen as exported), "
         f"**{len(refused)} refused**, **{len(wrong)} wrong**"
         + (f", {len(err)} where torch's own run_decompositions() fails" if err else "") + "."
         + (f" Sweep time {seconds:.0f} s." if seconds else ""), ""]
    if wrong:
        L += ["## Wrong", ""]
        for r in sorted(wrong, key=lambda r: (r["op"], r["dtype"])):
            L.append(f"- `{r['op']}` {r['dtype']}: {r['core']['why']}")
        L.append("")
    if refused:
        reasons = {}
        for r in refused:
            why = r["core"]["why"]
            gist = why.split(": cannot decompose: ")[-1] if "cannot decompose" in why else why
            op = why.split("(", 1)[1].split(")", 1)[0] if "cannot decompose" in why and "(" in why else ""
            reasons.setdefault((op + ": " if op else "") + gist, []).append(r["op"])
        L += ["## Refused, by reason", "", "| reason | cells | OpInfos |", "|---|--:|---|"]
        for why, ks in sorted(reasons.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            ks = sorted(set(ks))
            L.append(f"| {why.replace('|', '/')} | {len(ks)} | " + ", ".join(f"`{k}`" for k in ks[:10])
                     + (f", ... ({len(ks) - 10} more)" if len(ks) > 10 else "") + " |")
        L.append("")
    if err:
        L += ["## torch's run_decompositions() fails", ""]
        for r in err:
            L.append(f"- `{r['op']}` {r['dtype']}: {r['core']['why']}")
        L.append("")
    L += ["## Per OpInfo", "", "| OpInfo | dtype | to core | note |", "|---|---|---|---|"]
    for r in sorted(cells, key=lambda r: (r["op"], r["dtype"])):
        c = r.get("core")
        if not c:
            L.append(f"| `{r['op']}` | {r['dtype']} | – | not exported: {r['status']} |")
            continue
        note = c["why"] if c["status"] != "converted" else ("rewritten" if c["rewrote"] else "Core ATen as exported")
        L.append(f"| `{r['op']}` | {r['dtype']} | {c['status']} | {note.replace('|', '/')[:200]} |")
    return "\n".join(L) + "\n"


def roundtrip_table(results, seconds, dtypes):
    import torch
    groups = [("zoo", "zoo variants (`$EIR_ZOO_DIR/*.pt2`, as exported and `.decomp`)"),
              ("fixtures", "`tests/e2e/fixtures/*.pt2`"),
              ("core", f"Core ATen sweep programs (`python/ops/sweep.py`, {', '.join(dtypes)})"),
              ("opinfo", f"OpInfo sweep programs (`python/ops/opinfo_sweep.py`, {', '.join(dtypes)})")]
    L = ["# Round trip: `eir convert IN OUT`", "",
         f"Generated by `make to-core-doc` (`python/tools/conversion_sweep.py`) against torch "
         f"{torch.__version__}. Each program is read by eir and written again with no pass (`eir convert IN OUT`); "
         "then `torch.export.load(OUT)` must print (`print(ep)`) exactly as `torch.export.load(IN)` does and compute "
         "the same outputs bit for bit on the program's inputs (the sweeps' samples, the zoo's example inputs, the "
         "fixtures' recorded inputs; programs with random operators by shape and dtype).", "",
         "| programs | total | identical | failed |", "|---|--:|--:|--:|"]
    fails = []
    for g, title in groups:
        rs = [r for r in results if r.get("kind") == g and r.get("rt")]
        if not rs:
            continue
        okc = sum(1 for r in rs if r["rt"]["ok"])
        bad = [r for r in rs if r["rt"]["ok"] is False]
        L.append(f"| {title} | {len(rs)} | {okc} | {len(bad)} |")
        fails += [(g, r) for r in bad]
    skipped = [r for r in results if r.get("rt") and r["rt"]["ok"] is None]
    L.append("")
    if seconds:
        L += [f"Sweep time {seconds:.0f} s.", ""]
    L += ["## Failures", ""]
    if not fails:
        L.append("None.")
    for g, r in fails:
        L.append(f"- {g} `{r['op']}`" + (f" {r['dtype']}" if g in ("core", "opinfo") else "") + f": {r['rt']['why']}")
    notes = [r for r in results if r.get("rt") and r["rt"]["ok"] and r["rt"]["why"]]
    if notes or skipped:
        L += ["", "## Compared by print only", ""]
        for r in skipped + notes:
            L.append(f"- {r.get('kind')} `{r['op']}`: {r['rt']['why']}")
    return "\n".join(L) + "\n"


# ---------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--to-core", action="store_true")
    ap.add_argument("--roundtrip", action="store_true")
    ap.add_argument("--only", nargs="*", help="OpInfo keys")
    ap.add_argument("--dtypes", default="f32")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--sample", type=int, default=1, help="every N-th OpInfo / Core op only")
    ap.add_argument("--to-core-doc", default=os.path.join(REPO, "docs", "TO-CORE.md"))
    ap.add_argument("--roundtrip-doc", default=os.path.join(REPO, "docs", "ROUNDTRIP.md"))
    ap.add_argument("--eir", default=None)
    ap.add_argument("--log", help="append each cell's result to this file (JSON lines)")
    ap.add_argument("--from-log", nargs="*", help="write the tables from these logs instead of sweeping")
    ap.add_argument("--from-doc", help="with --from-log: start from the cells of this to-core page (its "
                    "per-OpInfo table); the logs' results replace its rows")
    ap.add_argument("--skip", nargs="*", default=[], help="groups to leave out: opinfo core zoo fixtures")
    ap.add_argument("--note", default="", help="a paragraph for the to-core page, after its introduction "
                    "(how it was assembled from logs)")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args(argv)
    modes = set()
    if a.to_core:
        modes.add("to-core")
    if a.roundtrip:
        modes.add("roundtrip")
    modes = modes or {"to-core", "roundtrip"}
    eir = a.eir or harness.default_eir()
    dtypes = a.dtypes.split(",")
    import opinfo_sweep as O
    keys = a.only or sorted(O.opinfos())[::a.sample]
    tasks = [] if "opinfo" in a.skip else [("conversion_sweep:opinfo_cell", k, d, eir, "", sorted(modes))
                                         for k in keys for d in dtypes]
    if "roundtrip" in modes and not a.only:
        import sweep as S
        if "core" not in a.skip:
            tasks += [("conversion_sweep:core_cell", op, d, eir, "") for op in sorted(S.core_ops())[::a.sample]
                      for d in dtypes]
        zoo = os.environ.get("EIR_ZOO_DIR")
        files = sorted(glob.glob(os.path.join(zoo, "*.pt2"))) if zoo else []
        if "zoo" not in a.skip:
            tasks += [("conversion_sweep:file_cell", p, "zoo", eir, "") for p in files[::a.sample]]
        fx = sorted(glob.glob(os.path.join(REPO, "tests", "e2e", "fixtures", "*.pt2")))
        if "fixtures" not in a.skip:
            tasks += [("conversion_sweep:file_cell", p, "fixtures", eir, "") for p in fx[::a.sample]]
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    os.environ["PYTHONPATH"] = os.pathsep.join([HERE, os.path.join(REPO, "python", "ops"),
                                                os.path.join(REPO, "python", "tests"),
                                                os.environ.get("PYTHONPATH", "")])
    import tempfile
    import shutil
    workdir = tempfile.mkdtemp(prefix="eir-conv-")
    tasks = [t[:4] + (workdir,) + t[5:] for t in tasks]
    results = []
    t0 = time.time()

    log = open(a.log, "w") if a.log else None

    def on_result(r):
        results.append(r)
        if log:
            log.write(json.dumps(r, default=str) + "\n")
            log.flush()
        if a.verbose:
            c = r.get("core") or {}
            rt = r.get("rt") or {}
            print(f"[{len(results)}/{len(tasks)}] {r.get('kind')} {r['op']} {r['dtype']}: {r['status']}"
                  f" core={c.get('status', '-')} rt={rt.get('ok', '-')} {(c.get('why') or rt.get('why') or r['msg'])[:150]}",
                  flush=True)

    if a.from_log:
        latest = {}
        for r in cells_from_doc(a.from_doc) if a.from_doc else []:
            latest[(r["kind"], r["op"], r["dtype"])] = r
        for fn in a.from_log:  # a later log's result of a cell replaces an earlier one's
            with open(fn) as f:
                for line in f:
                    if line.strip():
                        r = json.loads(line)
                        latest[(r.get("kind"), r["op"], r["dtype"])] = r
        results += list(latest.values())
        secs = 0
    else:
        try:
            harness.run_tasks(tasks, a.jobs, on_result, timeout=300)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        secs = time.time() - t0
    if "to-core" in modes:
        text = keep_timing_block(a.to_core_doc, to_core_table(results, secs, dtypes, a.note))
        with open(a.to_core_doc, "w") as f:
            f.write(text)
    if "roundtrip" in modes:
        with open(a.roundtrip_doc, "w") as f:
            f.write(roundtrip_table(results, secs, dtypes))
    wrong = [r for r in results if (r.get("core") or {}).get("status") == "wrong"]
    rtbad = [r for r in results if (r.get("rt") or {}).get("ok") is False]
    print(f"conversion_sweep: {len(results)} cells in {secs:.0f} s; to-core wrong: {len(wrong)}; "
          f"round-trip failures: {len(rtbad)}")
    return 1 if wrong or rtbad else 0


if __name__ == "__main__":
    sys.exit(main())
