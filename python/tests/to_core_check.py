"""to_core_check.py — checks of `eir convert --to core` against torch's own
ep.run_decompositions(), shared by test_to_core.py: the converted program
verifies as Core ATen in eir, torch.export.load reads it, it computes what the
original program computes, and it calls no operator that torch's
run_decompositions() of the same program would not leave."""
from __future__ import annotations

import dataclasses
import subprocess

import torch

from tolerances import tolerance


def op_set(ep) -> set:
    """The call_function targets of ep's graphs (nested ones included), as strings."""
    ops = set()
    for gm in ep.graph_module.modules():
        if not isinstance(gm, torch.fx.GraphModule):
            continue
        for n in gm.graph.nodes:
            if n.op == "call_function":
                ops.add(str(n.target))
    return ops


def node_seq(ep):
    """(target, non-tensor arguments) of ep's call_function nodes, in order;
    tensors inside lists (cat, index_put) count by position only ("%"), since
    eir's and torch's value names differ."""
    seq = []
    for n in ep.graph.nodes:
        if n.op == "call_function":
            args = [torch.fx.node.map_arg(a, lambda _: "%") for a in n.args if not isinstance(a, torch.fx.Node)]
            seq.append((str(n.target), repr(args), repr(sorted(n.kwargs.items()))))
    return seq


def convert(eir, src, dst):
    return subprocess.run([eir, "convert", "--to", "core", str(src), str(dst)], capture_output=True, text=True)


def refused(eir, tmp_path, mod, args, **kw):
    """Export mod (strict=False), save it, and check `eir convert --to core` refuses it: a non-zero
    exit and no output file. Returns eir's message."""
    ep = torch.export.export(mod, args, strict=False, **kw)
    src, dst = tmp_path / "in.pt2", tmp_path / "out.pt2"
    torch.export.save(ep, str(src))
    res = convert(eir, src, dst)
    assert res.returncode != 0
    assert not dst.exists()
    return res.stderr


def verify_core(eir, path):
    return subprocess.run([eir, "verify", "--dialect", "core", str(path)], capture_output=True, text=True)


def violating_ops(text):
    """The operators named by `eir verify` violation lines ("node %x (aten.op.overload): ...")."""
    ops = set()
    for line in text.splitlines():
        if line.startswith("node %") and " (" in line:
            ops.add(line.split(" (", 1)[1].split(")", 1)[0])
    return ops


def flat(out):
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in flat(o)]
    if isinstance(out, dict):
        return [t for o in out.values() for t in flat(o)]
    if dataclasses.is_dataclass(out):
        return [t for f in dataclasses.fields(out) for t in flat(getattr(out, f.name))]
    return [out]


def clone_args(args):
    return torch.utils._pytree.tree_map(lambda t: t.clone() if isinstance(t, torch.Tensor) else t, args)


def same_outputs(ep_a, ep_b, args, kwargs=None):
    """(ok, message): both programs run on the same inputs give equal results."""
    kwargs = kwargs or {}
    res = []
    for ep in (ep_a, ep_b):
        # outputs, then the buffers and inputs the program writes, after two runs
        m = ep.module()
        torch.manual_seed(0)
        a, kw = clone_args(args), clone_args(kwargs)
        m(*clone_args(args), **clone_args(kwargs))
        out = flat(m(*a, **kw))
        res.append(out + [b for b in m.buffers()] + flat(a) + flat(kw))
    ra, rb = res
    if len(ra) != len(rb):
        return False, f"{len(ra)} outputs vs {len(rb)}"
    for i, (a, b) in enumerate(zip(ra, rb)):
        if isinstance(a, torch.Tensor):
            if not isinstance(b, torch.Tensor) or a.shape != b.shape or a.dtype != b.dtype:
                return False, f"output {i}: {getattr(a, 'shape', a)} {getattr(a, 'dtype', '')} vs " \
                              f"{getattr(b, 'shape', b)} {getattr(b, 'dtype', '')}"
            rtol, atol = tolerance(a.dtype)
            if not torch.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True):
                return False, f"output {i} differs: max |diff| {(a.double() - b.double()).abs().max().item()}"
        elif isinstance(b, torch.Tensor) or a != b:
            return False, f"output {i}: {a} vs {b}"
    return True, ""


def check(eir, src_pt2, out_pt2, args, kwargs=None, torch_core_ops=None):
    """Converts src_pt2 and checks the result; returns a dict of findings
    (converted, verify, loads, outputs, ops) with a message for each failure."""
    res = {"converted": False, "verify": False, "loads": False, "outputs": False, "ops": False, "why": ""}
    r = convert(eir, src_pt2, out_pt2)
    if r.returncode != 0:
        res["why"] = (r.stderr.strip().splitlines() or ["?"])[0]
        return res
    res["converted"] = True
    v = verify_core(eir, out_pt2)
    res["verify"] = v.returncode == 0
    ep_src = torch.export.load(str(src_pt2))
    if torch_core_ops is None:
        torch_core_ops = op_set(ep_src.run_decompositions())
    if not res["verify"]:
        # non-core ops torch's run_decompositions() keeps as well
        # (repeat_interleave.Tensor, masked_select, _unique2, ...)
        bad = violating_ops(v.stdout)
        if v.returncode == 3 and bad and bad <= torch_core_ops:
            res["verify"] = "as torch"
        else:
            res["why"] = v.stdout + v.stderr
            return res
    ep_new = torch.export.load(str(out_pt2))
    res["loads"] = True
    extra = op_set(ep_new) - torch_core_ops
    res["ops"] = not extra
    if extra:
        res["why"] = f"ops torch's run_decompositions() does not leave: {sorted(extra)}"
    ok, msg = same_outputs(ep_src, ep_new, args, kwargs)
    res["outputs"] = ok
    if not ok:
        res["why"] = (res["why"] + "; " if res["why"] else "") + msg
    return res


def convert_like_torch(eir, tmp_path, mod, args, strict=False, same_nodes=True, getitems=True, drop=(),
                       assert_messages=True):
    """Export mod(*args) (strict or not), convert it with `eir convert --to core`, and
    require what check() requires with torch's own run_decompositions() of the same
    export as the reference; then (same_nodes) the converted program's call_function
    nodes, target and non-tensor arguments in order, must be torch's. getitems=False:
    getitem nodes are left out on both sides (eir keeps one per output of a
    multi-output node, used or not); drop: nodes of eir's result to leave out;
    assert_messages=False: the messages of _assert_scalar nodes are not compared
    (torch's retrace renames the nodes they name). Returns the converted file."""
    ep = torch.export.export(mod, args, strict=strict)
    src, dst = tmp_path / "in.pt2", tmp_path / "out.pt2"
    torch.export.save(ep, str(src))
    dec = ep.run_decompositions()
    res = check(eir, src, dst, args, torch_core_ops=op_set(dec))
    assert res["converted"] and res["verify"] and res["loads"], res["why"]
    assert res["ops"] and res["outputs"], res["why"]
    if not same_nodes:
        return dst
    got, want = node_seq(torch.export.load(str(dst))), node_seq(dec)
    got = [n for n in got if n not in drop]
    if not assert_messages:
        got, want = ([n if "_assert_scalar" not in n[0] else n[:1] for n in seq] for seq in (got, want))
    if not getitems:
        got = [n for n in got if n[0] != "<built-in function getitem>"]
        want = [n for n in want if n[0] != "<built-in function getitem>"]
    assert got == want
    return dst
