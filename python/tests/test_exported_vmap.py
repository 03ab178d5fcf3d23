"""Live checks, against torch 2.13, of programs that use torch.vmap, run as exported.

torch.export.export (strict=False and strict=True) leaves torch.vmap's pre-dispatch
batching ops in the graph: torch._functorch.predispatch._vmap_increment_nesting,
_add_batch_dim, _remove_batch_dim, _vmap_decrement_nesting and
lazy_load_decompositions, with per-sample shapes on the ops between them. eir runs
the region once per batch index (docs/RUNTIME.md, "vmap"). Each program here is
exported, saved, run with `eir run` and compared with the function run eagerly by
torch: as exported, and after run_decompositions() (which turns the batching into
plain ops). The family: pointwise ops, reductions, matmul, views, in-place ops on
per-sample values, nested vmap, in_dims (ints, negative, None, nested containers),
out_dims, several and unbatched outputs, chunk_size, a batch size that is a symbol
(other batch sizes on rerun), random ops under randomness="different" and "same",
vmap inside a cond branch (exported without the increment/decrement pair) and
associative_scan's generic mode (exported as vmap ops); malformed archives are refused.
"""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

from test_exported_compose import Fn, eir_run  # noqa: E402
from test_exported_rnn_where import _r, compare  # noqa: E402

PRE = "torch._functorch.predispatch."
vmap = torch.vmap


def export(tmp_path, f, args, strict, decompose, dynamic_shapes=None):
    return export_forms(tmp_path, f, args, strict, (decompose,), dynamic_shapes)[0]


def export_forms(tmp_path, f, args, strict, decompose, dynamic_shapes=None):
    """f exported once; for each flag of decompose, that program (False: it must
    contain vmap's operators) or its run_decompositions() (True), saved: [(ep, path)]"""
    ep = torch.export.export(Fn(f), tuple(args), dynamic_shapes=dynamic_shapes, strict=strict)
    out = []
    for dec in decompose:
        if not dec:
            targets = {f"{getattr(n.target, '__module__', '')}.{getattr(n.target, '__name__', '')}"
                       for m in ep.graph_module.modules() if isinstance(m, torch.fx.GraphModule)
                       for n in m.graph.nodes if n.op == "call_function"}
            assert PRE + "_add_batch_dim" in targets, f"no vmap ops in the exported program: {targets}"
        form = ep.run_decompositions() if dec else ep
        _fill_dead_constants(form)
        path = str(tmp_path / ("dec.pt2" if dec else "p.pt2"))
        torch.export.save(form, path)
        out.append((form, path))
    return out


def _fill_dead_constants(ep):
    """vmap with out_dims other than 0 exports a lifted constant made under the vmap
    transform, which only a dead permute reads: torch.export.save cannot write it
    (strict=False: "accessing `data` under vmap transform is not allowed") or writes
    it without data (strict=True). It is replaced by zeros of its shape so that the
    program can be saved and loaded; nothing reads it."""
    lifted = ep.graph_signature.inputs_to_lifted_tensor_constants
    for node in ep.graph.nodes:
        if node.op != "placeholder" or node.name not in lifted:
            continue
        name = lifted[node.name]
        if isinstance(ep.constants.get(name), torch.Tensor) and all(len(u.users) == 0 for u in node.users):
            v = node.meta["val"]
            ep.constants[name] = torch.zeros(tuple(v.shape), dtype=v.dtype)


def check(eir, tmp_path, f, args, what, strict=(False, True), decompose=(False, True), dynamic_shapes=None, reruns=()):
    for s in strict:
        for dec, (ep, path) in zip(decompose, export_forms(tmp_path, f, args, s, decompose, dynamic_shapes)):
            form = ("strict, " if s else "") + ("decomposed" if dec else "as exported")
            for k, xs in enumerate([args, *reruns]):
                r, out = eir_run(eir, tmp_path, path, xs, tag=f"run{k}")
                assert r.returncode == 0, f"{what} ({form}): {r.stderr}"
                compare(out, f(*xs), f"{what} ({form}, inputs {k})")


STRICT = (True,)
FAMILY = {
    # pointwise, with scalars, broadcasting and an operand not mapped
    "pointwise": (lambda x, y: vmap(lambda a, b: a.sin() * b + 2 * a.exp() - b.relu())(x, y),
                  lambda: (_r(4, 5), _r(4, 5, seed=1))),
    "broadcast_unmapped": (lambda x, w: vmap(lambda a, b: a * b + b.sum(), in_dims=(0, None))(x, w),
                           lambda: (_r(3, 4, 5), _r(5, seed=1))),
    "reductions": (lambda x: vmap(lambda a: (a.sum(0), a.mean(), a.amax(-1), a.softmax(0), a.var(1)))(x),
                   lambda: (_r(3, 4, 5),)),
    "argmax_int": (lambda x: vmap(lambda a: (a.argmax(), a.cumsum(0), (a > 0).sum(0)))(x), lambda: (_r(3, 6),)),
    "matmul": (lambda x, y: vmap(lambda a, b: a @ b)(x, y), lambda: (_r(3, 4, 5), _r(3, 5, 2, seed=1))),
    "matmul_shared": (lambda x, w: vmap(lambda a: torch.tanh(a @ w), in_dims=1)(x), lambda: (_r(4, 3, 5), _r(5, 6, seed=1))),
    "linear": (lambda x, w, b: vmap(lambda a: torch.nn.functional.linear(a, w, b))(x),
               lambda: (_r(3, 7, 4), _r(5, 4, seed=1), _r(5, seed=2))),
    "views": (lambda x: vmap(lambda a: (a.t()[1:].reshape(-1), a[:, 2], a.unsqueeze(0).expand(2, -1, -1),
                                        a.flatten(), a.narrow(1, 1, 2).permute(1, 0)))(x),
              lambda: (_r(3, 4, 5),)),
    "view_output": (lambda x: vmap(lambda a: a[1:3])(x), lambda: (_r(3, 4),)),
    "inplace": (lambda x: vmap(lambda a: a.clone().mul_(2).add_(1))(x), lambda: (_r(3, 4),)),
    "dtype_int": (lambda x: vmap(lambda a: (a * 3) // 2 + a.abs())(x), lambda: (_r(4, 5, dtype=torch.int64),)),
    "float64": (lambda x: vmap(lambda a: a.cos().cumprod(0))(x), lambda: (_r(3, 4, dtype=torch.float64),)),
    "in_dims": (lambda x, y: vmap(lambda a, b: (a * b).sum(0) + a.sin(), in_dims=(0, 1))(x, y),
                lambda: (_r(3, 4), _r(4, 3, seed=1))),
    "in_dims_negative": (lambda x: vmap(lambda a: a.sum(0), in_dims=-1)(x), lambda: (_r(3, 4, 5),)),
    "in_dims_middle": (lambda x: vmap(lambda a: a @ a.t(), in_dims=1)(x), lambda: (_r(3, 4, 5),)),
    "in_dims_none_first": (lambda x, y: vmap(lambda a, b: a * b, in_dims=(None, 0))(x, y), lambda: (_r(4), _r(3, 4, seed=1))),
    "in_dims_containers": (lambda x, y: vmap(lambda d, t: d["a"] * t[0] + d["b"] - t[1],
                                             in_dims=({"a": 0, "b": 1}, (0, None)))({"a": x, "b": y.t()}, (x, y[0])),
                           lambda: (_r(3, 4), _r(3, 4, seed=1))),
    # out_dims other than 0 on the outermost vmap: only strict=True exports them (strict=False fails: "We found
    # a fake tensor in the exported program constant's list")
    "out_dims": (lambda x: vmap(lambda a: (a * 2, a + 1, a.sum()), out_dims=(1, 0, 0))(x), lambda: (_r(3, 4),), STRICT),
    "out_dims_negative": (lambda x: vmap(lambda a: a.exp(), in_dims=1, out_dims=-1)(x), lambda: (_r(3, 4, 5),), STRICT),
    "unbatched_output": (lambda x, w: vmap(lambda a: (a * 2, w.sum(), w * 3))(x), lambda: (_r(3, 4), _r(2, seed=1))),
    "nested": (lambda x: vmap(vmap(lambda a: a * 2 + a.sum()))(x), lambda: (_r(3, 4, 5),)),
    "nested_in_dims": (lambda x, y: vmap(vmap(lambda a, b: a * b, in_dims=(1, None)), in_dims=(0, 1))(x, y),
                       lambda: (_r(3, 4, 5), _r(4, 3, seed=1))),
    "nested_out_dims": (lambda x: vmap(vmap(lambda a: a.cos(), in_dims=1, out_dims=1))(x), lambda: (_r(3, 4, 5),)),
    "nested_three": (lambda x: vmap(vmap(vmap(lambda a: a.sigmoid() + a)))(x), lambda: (_r(2, 3, 4, 5),)),
    "nested_matmul": (lambda x, y: vmap(lambda a: vmap(lambda b: a @ b)(y))(x), lambda: (_r(3, 2, 4), _r(5, 4, 2, seed=1))),
    "chunk_size": (lambda x: vmap(lambda a: a.sin() * 2, chunk_size=2)(x), lambda: (_r(5, 4),)),
    "sequential": (lambda x: vmap(lambda a: a * 2)(x) + vmap(lambda a: a.sum() * a, in_dims=1, out_dims=1)(x),
                   lambda: (_r(3, 4),), STRICT),
    # inside a cond branch torch drops _vmap_increment_nesting / _vmap_decrement_nesting; only non-strict
    # export takes the program, and run_decompositions() fails on it in torch
    "in_cond": (lambda x: torch.cond(x.sum() > 0, lambda a: vmap(lambda b: b.sin() * b.sum())(a), lambda a: a.cos(), (x,)),
                lambda: (_r(3, 4),), (False,), (False,)),
    "in_cond_false": (lambda x: torch.cond(x.sum() > 100, lambda a: a.cos(), lambda a: vmap(lambda b: b.exp())(a), (x,)),
                      lambda: (_r(3, 4),), (False,), (False,)),
    "in_cond_nested": (lambda x, w: torch.cond(x.sum() > 0,
                                               lambda a, v: vmap(vmap(lambda b, c: b * c + c.sum(), in_dims=(0, None)),
                                                                 in_dims=(1, 0))(a, v),
                                               lambda a, v: a.transpose(0, 1).unsqueeze(-1).expand(-1, -1, 5) * 0,
                                               (x, w)),
                       lambda: (_r(3, 4).abs(), _r(4, 5, seed=1)), (False,), (False,)),
    "associative_scan": (lambda x: __import__("torch._higher_order_ops.associative_scan", fromlist=["x"]).associative_scan(
                             lambda a, b: a * b + a, x, dim=0, combine_mode="generic"),
                         lambda: (_r(7, 3),), (False,)),
    "two_inputs_one_storage": (lambda x: vmap(lambda a, b: a - b, in_dims=(0, 1))(x, x), lambda: (_r(4, 4),)),
}


@pytest.mark.parametrize("name", list(FAMILY))
def test_vmap(eir, tmp_path, name):
    f, args, *forms = FAMILY[name]
    check(eir, tmp_path, f, args(), name, *forms)


def test_vmap_dynamic_batch(eir, tmp_path):
    """the batch size is a symbol (s0): other batch sizes on rerun"""
    def f(x, y):
        return vmap(lambda a, b: (a.cos() @ a).sum(0) * b)(x, y)
    b = torch.export.Dim("b", min=2, max=64)
    check(eir, tmp_path, f, (_r(3, 4, 4), _r(3, 4, seed=1)), "dynamic", dynamic_shapes=(({0: b}, {0: b}),),
          reruns=[(_r(7, 4, 4, seed=2), _r(7, 4, seed=3)), (_r(2, 4, 4, seed=4), _r(2, 4, seed=5))])


def test_vmap_dynamic_nested(eir, tmp_path):
    def f(x):
        return vmap(vmap(lambda a: a * a.sum()), in_dims=1)(x)
    ds = (({0: torch.export.Dim("m", min=2, max=32), 1: torch.export.Dim("n", min=2, max=32)},),)
    check(eir, tmp_path, f, (_r(3, 4, 5),), "dynamic nested", dynamic_shapes=ds,
          reruns=[(_r(6, 2, 5, seed=1),), (_r(2, 9, 5, seed=2),)])


@pytest.mark.parametrize("strict", [False, True])
def test_vmap_randomness(eir, tmp_path, strict):
    """randomness="same": every sample draws the same numbers; "different": its own.
    eir's generator is not torch's, so the values are checked by these properties."""
    def f(x):
        return (vmap(lambda a: a + torch.rand_like(a), randomness="same")(x),
                vmap(lambda a: a + torch.rand_like(a), randomness="different")(x))
    x = torch.zeros(6, 50)
    for dec in (False, True):
        ep, path = export(tmp_path, f, (x,), strict, dec)
        r, out = eir_run(eir, tmp_path, path, (x,))
        assert r.returncode == 0, r.stderr
        same, diff = np.load(out / "output_0.npy"), np.load(out / "output_1.npy")
        for o in (same, diff):
            assert o.shape == (6, 50) and o.dtype == np.float32
            assert (o >= 0).all() and (o < 1).all() and o.std() > 0.1
        assert (same == same[0]).all(), "randomness='same': the samples differ"
        assert len({row.tobytes() for row in diff}) == 6, "randomness='different': samples repeat"


def test_vmap_randomness_error_refused_by_torch():
    """randomness="error" (the default) with a random op: torch refuses to export it,
    so no program holds one"""
    with pytest.raises(Exception, match="randomness"):
        torch.export.export(Fn(lambda x: vmap(lambda a: a + torch.rand_like(a))(x)), (torch.zeros(3, 4),), strict=False)


def test_vmap_print(eir, tmp_path):
    """eir print of a nested vmap program equals torch's print of the program it reads back"""
    import subprocess
    f, args = FAMILY["nested_in_dims"]
    ep, path = export(tmp_path, f, args(), False, False)
    ep = torch.export.load(path)
    r = subprocess.run([eir, "print", path], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.rstrip("\n") == str(ep.graph).rstrip("\n")


def test_vmap_info_dialect(eir, tmp_path):
    """vmap's batching functions are not Core ATen: eir info says ATen and counts them;
    after run_decompositions() the program is Core ATen"""
    import json
    import subprocess
    f, args = FAMILY["nested_in_dims"]
    for decompose, want in ((False, "ATen"), (True, "Core ATen")):
        ep, path = export(tmp_path, f, args(), False, decompose)
        r = subprocess.run([eir, "info", "--json", path], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["dialect"] == want
        n = sum(1 for nd in ep.graph.nodes if nd.op == "call_function" and "predispatch" in str(nd.target.__module__))
        assert (n > 0) == (not decompose)
        r = subprocess.run([eir, "info", path], capture_output=True, text=True, timeout=60)
        assert (f", {n} Python function nodes)" in r.stdout) == (not decompose), r.stdout


# ---------------------------------------------------------------- malformed programs

def _edit(src, dst, edit):
    """a copy of the archive src whose graph JSON `edit(nodes)` changed"""
    import json
    import zipfile
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename.endswith("models/model.json"):
                m = json.loads(data)
                edit(m["graph_module"]["graph"]["nodes"])
                data = json.dumps(m).encode()
            zout.writestr(info, data)


def _node(nodes, target, k=0):
    return [n for n in nodes if n["target"] == PRE + target][k]


def _set_arg(node, pos, value):
    node["inputs"][pos]["arg"] = {"as_int": value}


MALFORMED = {
    # (edit, expected status, text the message must contain)
    "no_decrement": (lambda ns: ns.remove(_node(ns, "_vmap_decrement_nesting")), 1,
                     "node %_vmap_increment_nesting (torch._functorch.predispatch._vmap_increment_nesting): "
                     "no _vmap_decrement_nesting after it"),
    "no_increment": (lambda ns: ns.remove(_node(ns, "_vmap_increment_nesting")), 1,
                     "node %_add_batch_dim (torch._functorch.predispatch._add_batch_dim): vmap level 1, but 0 vmap "
                     "levels are open here"),
    "bad_level": (lambda ns: _set_arg(_node(ns, "_add_batch_dim"), 2, 3), 1,
                  "node %_add_batch_dim (torch._functorch.predispatch._add_batch_dim): vmap level 3, but 1 vmap level is open here"),
    "bad_in_dim": (lambda ns: _set_arg(_node(ns, "_add_batch_dim"), 1, 5), 1,
                   "node %_add_batch_dim (torch._functorch.predispatch._add_batch_dim): batch dim 5 of args_0, a tensor of 2 dims"),
    "batch_size_mismatch": (lambda ns: _set_arg(_node(ns, "_vmap_increment_nesting"), 0, 4), 1,
                            "vmap: args_0 has size 3 in its mapped dimension 0, where the batch size (node %_vmap_increment_nesting) is 4"),
    "remove_batch_size": (lambda ns: _set_arg(_node(ns, "_remove_batch_dim"), 2, 5), 1,
                          "node %_remove_batch_dim (torch._functorch.predispatch._remove_batch_dim): batch size 5, where its "
                          "vmap (node %_vmap_increment_nesting) has 3"),
    "bad_out_dim": (lambda ns: _set_arg(_node(ns, "_remove_batch_dim"), 3, 1), 1,
                    "node %_remove_batch_dim (torch._functorch.predispatch._remove_batch_dim): out dim 1 of "
                    "_remove_batch_dim, a tensor of 2 dims, is not of the batch size 3"),
    "bad_randomness": (lambda ns: _node(ns, "_vmap_increment_nesting")["inputs"][1].update(arg={"as_string": "sometimes"}), 1,
                       "randomness 'sometimes', expected 'error', 'different' or 'same'"),
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_vmap_malformed(eir, tmp_path, name):
    """an archive whose vmap ops contradict each other or their operands: refused with a
    message naming the node, never a crash"""
    edit, status, text = MALFORMED[name]

    def f(x, y):
        return vmap(lambda a, b: (a * b).sum(0) + a.sin(), in_dims=(0, 1))(x, y)
    args = (_r(3, 4), _r(4, 3, seed=1))
    _, path = export(tmp_path, f, args, False, False)
    bad = str(tmp_path / "bad.pt2")
    _edit(path, bad, edit)
    r, _ = eir_run(eir, tmp_path, bad, args)
    assert r.returncode == status, r.stderr
    assert text in r.stderr, r.stderr
