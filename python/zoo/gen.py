#!/usr/bin/env python3
"""Generate the conformance zoo: .pt2 archives plus the expected texts.

    python3 python/zoo/gen.py --out DIR [--only NAME ...]

For each program NAME of zoo.PROGRAMS two variants are written: NAME (as
exported) and NAME.decomp (ep.run_decompositions()).  For each variant V:

    V.pt2          torch.export.save(ep)
    V.graph.txt    str(ep2.graph) + "\\n"          (ep2 = torch.export.load(V.pt2))
    V.code.txt     ep2.graph_module.code + "\\n"
    V.program.txt  str(ep2) + "\\n"
    V.io.json      user inputs / outputs of ep2
    V.notes.txt    differences between the texts of ep and ep2 (only if any)
"""
from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
import time
import traceback
import warnings
from typing import Dict, Iterable, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import torch  # noqa: E402
from torch.export.graph_signature import InputKind, OutputKind  # noqa: E402

import zoo  # noqa: E402  (registers mylib::sin and the dataclass)

# torch-internal deprecation chatter on every save/load; not ours to fix.
warnings.filterwarnings("ignore", message=".*LeafSpec.*is deprecated", category=FutureWarning)
# nn.LSTM re-assigns _flat_weights during export; harmless.
warnings.filterwarnings("ignore", message=".*were assigned during export", category=UserWarning)

SUFFIXES = (".pt2", ".graph.txt", ".code.txt", ".program.txt", ".io.json", ".notes.txt")


# --------------------------------------------------------------------------
# texts and io description
# --------------------------------------------------------------------------

def texts(ep) -> Dict[str, str]:
    return {
        "graph": str(ep.graph) + "\n",
        "code": ep.graph_module.code + "\n",
        "program": str(ep) + "\n",
    }


def _dim(d):
    if isinstance(d, int):
        return d
    if isinstance(d, torch.SymInt):
        n = d.node
        if n.is_constant() if hasattr(n, "is_constant") else False:
            return int(d)
        return str(d)
    return int(d)


def _jsonable(v):
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            return str(v)
        return v
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, torch.dtype):
        return str(v).replace("torch.", "")
    return str(v)


def _describe(arg, val) -> dict:
    """One io.json entry from a graph-signature argument and the node's meta val."""
    from torch.export.graph_signature import (
        ConstantArgument, CustomObjArgument, SymIntArgument, TensorArgument)
    SymFloatArgument = getattr(torch.export.graph_signature, "SymFloatArgument", ())
    SymBoolArgument = getattr(torch.export.graph_signature, "SymBoolArgument", ())
    name = getattr(arg, "name", "")
    if isinstance(arg, TensorArgument):
        d = {"name": name, "kind": "tensor"}
        if isinstance(val, torch.Tensor):
            d["dtype"] = str(val.dtype).replace("torch.", "")
            d["shape"] = [_dim(s) for s in val.shape]
        return d
    if isinstance(arg, ConstantArgument):
        return {"name": name, "kind": "constant", "value": _jsonable(arg.value)}
    if isinstance(arg, SymIntArgument):
        return {"name": name, "kind": "sym_int"}
    if SymFloatArgument and isinstance(arg, SymFloatArgument):
        return {"name": name, "kind": "sym_float"}
    if SymBoolArgument and isinstance(arg, SymBoolArgument):
        return {"name": name, "kind": "sym_bool"}
    if isinstance(arg, CustomObjArgument):
        return {"name": name, "kind": "custom_obj", "class_fqn": arg.class_fqn}
    return {"name": name, "kind": type(arg).__name__}


def io_desc(ep) -> dict:
    nodes = {n.name: n for n in ep.graph.nodes}
    out_node = next(n for n in ep.graph.nodes if n.op == "output")
    out_vals = {}
    for o in torch.fx.node.map_arg(out_node.args[0], lambda n: n) if out_node.args else ():
        if isinstance(o, torch.fx.Node):
            out_vals[o.name] = o.meta.get("val")
    inputs, outputs = [], []
    for spec in ep.graph_signature.input_specs:
        if spec.kind == InputKind.USER_INPUT:
            n = nodes.get(getattr(spec.arg, "name", ""))
            inputs.append(_describe(spec.arg, n.meta.get("val") if n is not None else None))
    for spec in ep.graph_signature.output_specs:
        if spec.kind == OutputKind.USER_OUTPUT:
            nm = getattr(spec.arg, "name", "")
            val = out_vals.get(nm)
            if val is None and nm in nodes:
                val = nodes[nm].meta.get("val")
            outputs.append(_describe(spec.arg, val))
    return {"inputs": inputs, "outputs": outputs, "summary": summary(ep)}


def summary(ep) -> dict:
    """What `eir info --json` reports besides inputs/outputs, computed by torch:
    state counts and bytes, control flow, custom-op nodes, range constraints."""
    def nbytes(t):
        return t.numel() * t.element_size() if isinstance(t, torch.Tensor) else 0

    state = {"parameters": [0, 0], "buffers": [0, 0], "constants": [0, 0]}
    for spec in ep.graph_signature.input_specs:
        if spec.kind == InputKind.PARAMETER:
            key, t = "parameters", ep.state_dict[spec.target]
        elif spec.kind == InputKind.BUFFER:
            key = "buffers"
            t = ep.state_dict[spec.target] if spec.persistent else ep.constants[spec.target]
        elif spec.kind in (InputKind.CONSTANT_TENSOR, InputKind.CUSTOM_OBJ):
            key, t = "constants", ep.constants.get(spec.target)
        else:
            continue
        state[key][0] += 1
        state[key][1] += nbytes(t)
    hops = custom = 0
    for gm in ep.graph_module.modules():
        if not isinstance(gm, torch.fx.GraphModule):
            continue
        for n in gm.graph.nodes:
            if n.op != "call_function":
                continue
            if isinstance(n.target, torch._ops.HigherOrderOperator):
                hops += 1
            elif isinstance(n.target, torch._ops.OpOverload) and n.target.namespace not in ("aten", "prims"):
                custom += 1
    from torch.utils._sympy.numbers import int_oo

    def bound(v):
        # int_oo says is_finite (it is an int), yet it is the unbounded end
        return None if v in (int_oo, -int_oo) or not v.is_finite else int(v)

    ranges = {}
    for sym, vr in ep.range_constraints.items():
        ranges[str(sym)] = [bound(vr.lower), bound(vr.upper)]
    return {
        **{k: {"count": c, "bytes": b} for k, (c, b) in state.items()},
        "control_flow": hops > 0,
        "custom_ops": custom,
        "range_constraints": ranges,
    }


def text_diff(orig: Dict[str, str], loaded: Dict[str, str]) -> str:
    parts = []
    for k in ("graph", "code", "program"):
        if orig[k] != loaded[k]:
            d = difflib.unified_diff(
                orig[k].splitlines(keepends=True), loaded[k].splitlines(keepends=True),
                fromfile=f"original.{k}", tofile=f"loaded.{k}", n=1)
            parts.append("".join(d))
    return "".join(parts)


# --------------------------------------------------------------------------
# export / write
# --------------------------------------------------------------------------

def export_program(name: str):
    mod, args, kwargs, ds = zoo.build(name)
    return torch.export.export(mod, tuple(args), kwargs=kwargs or None, dynamic_shapes=ds)


def variants(name: str, ep) -> List[Tuple[str, object]]:
    """[(variant_name, ep)] for a program: as exported, and decomposed."""
    return [(name, ep), (name + ".decomp", ep.run_decompositions())]


def _clean(out_dir: str, vname: str) -> None:
    for s in SUFFIXES:
        p = os.path.join(out_dir, vname + s)
        if os.path.exists(p):
            os.remove(p)


def write_variant(out_dir: str, vname: str, ep) -> Optional[str]:
    """Save ep as vname.pt2, reload it and write the expected files.

    Returns the notes text (differences original vs loaded), '' if none."""
    _clean(out_dir, vname)
    pt2 = os.path.join(out_dir, vname + ".pt2")
    torch.export.save(ep, pt2)
    ep2 = torch.export.load(pt2)
    t_orig = texts(ep)
    t = texts(ep2)
    for k in ("graph", "code", "program"):
        with open(os.path.join(out_dir, f"{vname}.{k}.txt"), "w", encoding="utf-8", newline="") as f:
            f.write(t[k])
    with open(os.path.join(out_dir, vname + ".io.json"), "w", encoding="utf-8") as f:
        json.dump(io_desc(ep2), f, indent=1)
        f.write("\n")
    notes = text_diff(t_orig, t)
    if notes:
        with open(os.path.join(out_dir, vname + ".notes.txt"), "w", encoding="utf-8") as f:
            f.write(notes)
    return notes


def generate(out_dir: str, names: Optional[Iterable[str]] = None, log=print) -> dict:
    """Generate the given programs (default: all).  Returns a summary dict:
    {"ok": [variant...], "failed": {name_or_variant: error}, "notes": [variant...],
     "seconds": float}."""
    os.makedirs(out_dir, exist_ok=True)
    names = list(names) if names else list(zoo.PROGRAMS)
    ok, failed, noted = [], {}, []
    t0 = time.time()
    for name in names:
        if name not in zoo.PROGRAMS:
            failed[name] = "unknown program"
            log(f"FAIL {name}: unknown program (known: {', '.join(zoo.PROGRAMS)})")
            continue
        t1 = time.time()
        try:
            ep = export_program(name)
            vs = variants(name, ep)
        except Exception as e:  # noqa: BLE001
            failed[name] = f"export: {type(e).__name__}: {e}"
            log(f"FAIL {name}: export failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
            log(traceback.format_exc(limit=3))
            continue
        for vname, vep in vs:
            try:
                notes = write_variant(out_dir, vname, vep)
            except Exception as e:  # noqa: BLE001
                _clean(out_dir, vname)
                failed[vname] = f"save/load: {type(e).__name__}: {e}"
                log(f"FAIL {vname}: save/load failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
                log(traceback.format_exc(limit=3))
                continue
            ok.append(vname)
            if notes:
                noted.append(vname)
        log(f"ok   {name:22s} {time.time() - t1:6.2f}s")
    secs = time.time() - t0
    return {"ok": ok, "failed": failed, "notes": noted, "seconds": secs}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="only these programs")
    ap.add_argument("--list", action="store_true", help="list the programs and exit")
    a = ap.parse_args(argv)
    if a.list:
        print("\n".join(zoo.PROGRAMS))
        return 0
    s = generate(a.out, a.only)
    print(f"generated {len(s['ok'])} variants into {a.out} in {s['seconds']:.1f}s")
    if s["notes"]:
        print("original/loaded text differences (see .notes.txt): " + ", ".join(s["notes"]))
    if s["failed"]:
        print(f"{len(s['failed'])} failed:")
        for k, v in s["failed"].items():
            print(f"  {k}: {v.splitlines()[0] if v else ''}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
