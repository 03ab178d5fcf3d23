#!/usr/bin/env python3
"""Violations planted in valid programs, for `eir verify`'s tests.

Each case takes a committed, valid .pt2 (tests/bad/base.pt2, a fixture of
tests/e2e/fixtures, tests/verify/edge_mlp.pt2), edits its models/model.json
(or a weights config) with zipfile + json, and names what the verifier must
report: the rule, the node (None for the signature), the target, and a piece
of the message saying what was expected. Needs no torch.

    python3 tests/verify/plant.py OUT_DIR     # write every case as OUT_DIR/<name>.pt2
    python3 tests/verify/plant.py --fixtures  # write C_FIXTURES as tests/verify/planted_<name>.pt2

python/tests/test_verify.py runs them; tests/unit/test_verify.c runs the few
written into tests/verify/ (planted_*.pt2) without Python.
"""
import json
import os
import sys
import zipfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BASE = os.path.join(REPO, "tests", "bad", "base.pt2")
FIX = os.path.join(REPO, "tests", "e2e", "fixtures")
EDGE = os.path.join(REPO, "tests", "verify", "edge_mlp.pt2")


def fixture(name):
    return os.path.join(FIX, name + ".pt2")


def plant(src, dst, edit):
    """Copy archive src to dst with edit(model, records) applied to the parsed
    model.json (records: name -> bytes of the other entries, editable)."""
    with zipfile.ZipFile(src) as z:
        infos = z.infolist()
        data = {i.filename: z.read(i.filename) for i in infos}
    mj = next(n for n in data if n.endswith("models/model.json"))
    model = json.loads(data[mj])
    edit(model, data)
    data[mj] = json.dumps(model).encode()
    with zipfile.ZipFile(dst, "w") as z:
        for i in infos:
            # stored, as torch writes them: eir maps payloads in place
            z.writestr(zipfile.ZipInfo(i.filename, date_time=i.date_time), data[i.filename],
                       compress_type=zipfile.ZIP_STORED)


def graph(m):
    return m["graph_module"]["graph"]


def node(g, name):
    return next(n for n in g["nodes"] if n["name"] == name)


def inp(n, name):
    return next(i for i in n["inputs"] if i["name"] == name)


def sig(m):
    return m["graph_module"]["signature"]


def subgraph(n, i):
    return n["inputs"][i]["arg"]["as_graph"]["graph"]


EP = "executorch.exir.dialects.edge._ops."


# ---- the edits ----

def set_target(name, target):
    def f(m, _):
        node(graph(m), name)["target"] = target
    return f


def rename_input(name, old, new):
    def f(m, _):
        inp(node(graph(m), name), old)["name"] = new
    return f


def drop_input(name, arg):
    def f(m, _):
        n = node(graph(m), name)
        n["inputs"] = [i for i in n["inputs"] if i["name"] != arg]
    return f


def set_input(name, arg, value, index=None):
    def f(m, _):
        n = node(graph(m), name)
        (n["inputs"][index] if index is not None else inp(n, arg))["arg"] = value
    return f


def duplicate_input(m, _):
    n = node(graph(m), "linear")
    n["inputs"].append(dict(inp(n, "weight")))


def kwarg_positional(m, _):
    node(graph(m), "mean")["inputs"].append({"name": "dtype", "arg": {"as_none": True}, "kind": 1})


def swap_inputs(m, _):
    n = node(graph(m), "linear")
    n["inputs"][0], n["inputs"][1] = n["inputs"][1], n["inputs"][0]


def extra_output(m, _):
    g = graph(m)
    g["tensor_values"]["sum_extra"] = dict(g["tensor_values"]["sum_1"])
    node(g, "sum_1")["outputs"].append({"as_tensor": {"name": "sum_extra"}})


def extra_positional(m, _):
    node(graph(m), "aten_relu_default")["inputs"].append({"name": "", "arg": {"as_int": 1}, "kind": 1})


def output_none(m, _):
    g = graph(m)
    node(g, "sum_1")["outputs"] = [{"as_none": True}]
    inp(node(g, "gt"), "self")["arg"] = {"as_tensor": {"name": "add"}}


def cond_two_operands(m, _):
    n = node(graph(m), "cond")
    n["inputs"][3]["arg"] = {"as_tensors": [{"name": "add"}, {"name": "add"}]}


def cond_not_graph(m, _):
    node(graph(m), "cond")["inputs"][1]["arg"] = {"as_tensor": {"name": "add"}}


def cond_float_pred(m, _):
    node(graph(m), "cond")["inputs"][0]["arg"] = {"as_tensor": {"name": "add"}}


def nested_unknown(m, _):
    t = subgraph(node(graph(m), "cond"), 1)
    t["nodes"][0]["target"] = "torch.ops.aten.relu_x.default"


def while_drop_carried(m, _):
    n = node(graph(m), "while_loop")
    n["inputs"][2]["arg"] = {"as_tensors": [n["inputs"][2]["arg"]["as_tensors"][0]]}


def rename_node(name, new):
    def f(m, _):
        node(graph(m), name)["name"] = new
    return f


def builtin_on_tensor(m, _):
    node(graph(m), "sum_1")["target"] = "_operator.add"


def swap_input_specs(m, _):
    s = sig(m)["input_specs"]
    s[0], s[1] = s[1], s[0]


def buffer_as_parameter(m, _):
    s = sig(m)["input_specs"]
    b = s[2]["buffer"]
    s[2] = {"parameter": {"arg": b["arg"], "parameter_name": b["buffer_name"]}}


def buffer_not_persistent(m, _):
    sig(m)["input_specs"][2]["buffer"]["persistent"] = False


def constant_from_state_dict(m, _):
    sig(m)["input_specs"][3]["tensor_constant"]["tensor_constant_name"] = "scale"


def swap_output_specs(m, _):
    s = sig(m)["output_specs"]
    s[0], s[1] = s[1], s[0]


def spec_kind(i):
    return next(iter(i))


def mutation_target(target):
    def f(m, _):
        for s in sig(m)["output_specs"]:
            k = spec_kind(s)
            if k == "buffer_mutation":
                s[k]["buffer_name"] = target
                return
    return f


def all_mutations_target(target):
    def f(m, _):
        for s in sig(m)["output_specs"]:
            k = spec_kind(s)
            if k == "buffer_mutation":
                s[k]["buffer_name"] = target
    return f


def swap_mutation_targets(m, _):
    muts = [s["buffer_mutation"] for s in sig(m)["output_specs"] if spec_kind(s) == "buffer_mutation"]
    muts[0]["buffer_name"], muts[1]["buffer_name"] = muts[1]["buffer_name"], muts[0]["buffer_name"]


def user_output_first(m, _):
    s = sig(m)["output_specs"]
    o = graph(m)["outputs"]
    s.insert(0, s.pop())
    o.insert(0, o.pop())


def input_mutation_target(m, _):
    for s in sig(m)["output_specs"]:
        if spec_kind(s) == "user_input_mutation":
            s["user_input_mutation"]["user_input_name"] = "zz"


def token_not_returned(m, _):
    s = sig(m)["output_specs"]
    s[0] = {"user_output": {"arg": {"as_tensor": {"name": s[0]["token"]["arg"]["name"]}}}}


def edge_out_dtype(m, _):
    graph(m)["tensor_values"]["aten_relu_default"]["dtype"] = 5     # int64


def edge_scalar(m, _):
    node(graph(m), "aten_add_tensor")["inputs"][1]["arg"] = {"as_float": 1.0}


def edge_dim_order(m, _):
    n = node(graph(m), "dim_order_ops__clone_dim_order_default")
    n["target"] = EP + "aten.clone.default"
    n["inputs"] = n["inputs"][:1]


def edge_noncontiguous(m, records):
    name = next(n for n in records if n.endswith("data/weights/model_weights_config.json"))
    cfg = json.loads(records[name])
    for k, v in cfg["config"].items():
        if k == "l.weight":
            v["tensor_meta"]["strides"] = [{"as_int": 1}, {"as_int": 3}]
    records[name] = json.dumps(cfg).encode()
    # the graph's placeholder keeps its declared (contiguous) metadata


# (name, source archive, dialect, edit, [(rule, node, target, text), ...])
CASES = [
    ("op_unknown_aten", BASE, "aten", set_target("linear", "torch.ops.aten.linearr.default"),
     [("op.unknown", "linear", "aten.linearr.default", "aten.linearr.default is not an ATen operator of torch 2.13")]),
    ("op_unknown_hop", BASE, "aten", set_target("cond", "torch.ops.higher_order.cond_x"),
     [("op.unknown", "cond", "higher_order.cond_x", "is not a higher-order operator of torch 2.13")]),
    ("op_not_allowed", BASE, "aten", set_target("sum_1", "builtins.print"),
     [("op.not-allowed", "sum_1", "builtins.print", "'builtins.print' is not an allowed operator")]),
    ("op_target", BASE, "aten", set_target("sum_1", "torch.ops.aten.sum"),
     [("op.target", "sum_1", "aten.sum", "is not torch.ops.<namespace>.<op>.<overload>")]),
    ("arg_unknown", BASE, "aten", rename_input("mul", "other", "othr"),
     [("arg.unknown", "mul", "aten.mul.Tensor", "argument 'othr' is not in the schema of aten.mul.Tensor "
                                                "(its arguments: self, other)"),
      ("arg.missing", "mul", "aten.mul.Tensor", "argument 'other' (Tensor) is missing")]),
    ("arg_missing", BASE, "aten", drop_input("mul", "other"),
     [("arg.missing", "mul", "aten.mul.Tensor", "argument 'other' (Tensor) is missing; it has no default")]),
    ("arg_duplicate", BASE, "aten", duplicate_input,
     [("arg.duplicate", "linear", "aten.linear.default", "argument 'weight' is given twice")]),
    ("arg_kind_scalar", BASE, "aten", set_input("gt", "other", {"as_tensor": {"name": "add"}}),
     [("arg.kind", "gt", "aten.gt.Scalar", "argument 'other' is as_tensor, expected Scalar")]),
    ("arg_kind_tensor", BASE, "aten", set_input("mul", "other", {"as_string": "x"}),
     [("arg.kind", "mul", "aten.mul.Tensor", "argument 'other' is as_string, expected Tensor")]),
    ("arg_kind_int", BASE, "aten", set_input("max_1", "dim", {"as_float": 1.5}),
     [("arg.kind", "max_1", "aten.max.dim", "argument 'dim' is as_float, expected int")]),
    ("arg_none", BASE, "aten", set_input("linear", "input", {"as_none": True}),
     [("arg.none", "linear", "aten.linear.default", "argument 'input' is None but its type Tensor is not optional")]),
    ("arg_kwarg_only", fixture("buffer_mutation"), "aten", kwarg_positional,
     [("arg.kwarg-only", "mean", "aten.mean.dim", "argument 'dtype' is keyword-only in aten.mean.dim but is "
                                                  "passed positionally")]),
    ("arg_order", BASE, "aten", swap_inputs,
     [("arg.order", "linear", "aten.linear.default", "argument 'input' comes after 'weight'")]),
    ("arg_count", EDGE, "edge", extra_positional,
     [("arg.count", "aten_relu_default", "aten.relu.default",
       "positional argument 1 is one too many: aten.relu.default takes 1 positional argument")]),
    ("out_count", BASE, "aten", extra_output,
     [("out.count", "sum_1", "aten.sum.default", "has 2 outputs; aten.sum.default returns 1")]),
    ("meta_missing", BASE, "aten", output_none,
     [("meta.missing", "sum_1", "aten.sum.default", "output 0 is None: no value, and no metadata, for what "
                                                    "aten.sum.default returns")]),
    ("hop_cond_operands", BASE, "aten", cond_two_operands,
     [("hop.subgraph", "cond", "higher_order.cond", "subgraph true_graph_0 takes 1 input, expected 2 (one per "
                                                    "operand)"),
      ("hop.subgraph", "cond", "higher_order.cond", "subgraph false_graph_0 takes 1 input, expected 2")]),
    ("hop_cond_not_graph", BASE, "aten", cond_not_graph,
     [("hop.args", "cond", "higher_order.cond", "operand 1 should be the true branch subgraph")]),
    ("hop_cond_pred", BASE, "aten", cond_float_pred,
     [("hop.args", "cond", "higher_order.cond", "the predicate %add is a float32 tensor of rank 2; cond takes a "
                                                "bool tensor of one element, a bool or a SymBool")]),
    ("hop_while_carried", fixture("while_loop"), "aten", while_drop_carried,
     [("hop.subgraph", "while_loop", "higher_order.while_loop",
       "subgraph while_loop_cond_graph_0 takes 2 inputs, expected 1 (the carried and additional inputs)"),
      ("hop.subgraph", "while_loop", "higher_order.while_loop",
       "subgraph while_loop_body_graph_0 returns 2 values, expected 1 (one per carried input)")]),
    ("nested_unknown", BASE, "aten", nested_unknown,
     [("op.unknown", "relu", "aten.relu_x.default", "in true_graph_0: aten.relu_x.default is not an ATen operator")]),
    ("graph_name_node", BASE, "aten", rename_node("mul", "linear"),
     [("graph.name", "linear", "aten.mul.Tensor", "the name 'linear' is also the name of node 0")]),
    ("graph_name_input", BASE, "aten", rename_node("sum_1", "x"),
     [("graph.name", "x", "aten.sum.default", "the name 'x' is already the name of a graph input")]),
    ("builtin_on_tensor", BASE, "aten", builtin_on_tensor,
     [("arg.count", "sum_1", "_operator.add", "_operator.add takes 2 operands, got 1"),
      ("arg.kind", "sum_1", "_operator.add", "operand 0 of _operator.add is a tensor")]),
    ("core_not_core", BASE, "core", lambda m, r: None,
     [("core.not-core", "linear", "aten.linear.default", "aten.linear.default is not in the Core ATen opset of "
                                                         "torch 2.13 (ep.run_decompositions() rewrites it)")]),
    ("core_inplace", fixture("mlp.decomp"), "core", set_target("relu", "torch.ops.aten.relu_.default"),
     [("op.functional", "relu", "aten.relu_.default", "aten.relu_.default is not functional (it writes its input "
                                                      "in place); the Core ATen dialect allows only functional")]),
    ("core_out", fixture("mlp.decomp"), "core", set_target("relu", "torch.ops.aten.relu.out"),
     [("op.functional", "relu", "aten.relu.out", "(it is an out= variant)"),
      ("arg.missing", "relu", "aten.relu.out", "argument 'out' (Tensor) is missing")]),
    ("sig_input_order", BASE, "aten", swap_input_specs,
     [("sig.input-order", None, None, "input_specs[0] describes %p_lin_bias but graph input 0 is %p_lin_weight")]),
    ("sig_parameter", BASE, "aten", buffer_as_parameter,
     [("sig.parameter", None, None, "parameter 'scale' (%b_scale) is stored as a buffer, not as an nn.Parameter")]),
    ("sig_buffer_persistent", BASE, "aten", buffer_not_persistent,
     [("sig.buffer", None, None, "non-persistent buffer 'scale' is in the state dict; it should not be")]),
    ("sig_constant", BASE, "aten", constant_from_state_dict,
     [("sig.constant", None, None, "constant tensor 'scale' is not in the constants")]),
    ("sig_output_order", BASE, "aten", swap_output_specs,
     [("sig.output-order", None, None, "output_specs[0] describes %getitem_2 but graph output 0 is %getitem_1")]),
    ("sig_mutation_target", fixture("buffer_mutation.decomp"), "core", mutation_target("nothere"),
     [("sig.mutation", None, None, "mutates buffer 'nothere', which is not one of the program's buffers")]),
    ("sig_mutation_twice", fixture("buffer_mutation.decomp"), "core", all_mutations_target("count"),
     [("sig.mutation", None, None, "buffer 'count' is mutated by output_specs[0] and again by output_specs[1]")]),
    ("sig_mutation_shape", fixture("buffer_mutation.decomp"), "core", swap_mutation_targets,
     [("sig.mutation", None, None, "a mutation keeps the dtype and shape")]),
    ("sig_mutation_order", fixture("buffer_mutation.decomp"), "core", user_output_first,
     [("sig.output-order", None, None, "output_specs[1] is a mutation after a user output")]),
    ("sig_input_mutation", fixture("input_mutation.decomp"), "core", input_mutation_target,
     [("sig.mutation", None, None, "mutates user input 'zz', which is not one of the program's user inputs")]),
    ("sig_token", fixture("effects.decomp"), "core", token_not_returned,
     [("sig.token", None, None, "signature: 1 input token but 0 output tokens; every effect token taken is "
                                "returned")]),
    ("edge_dtype", EDGE, "edge", edge_out_dtype,
     [("edge.dtype", "aten_relu_default", "aten.relu.default",
       "the dtypes (self: float32, __ret_0: int64) are not one of the combinations edge.yaml allows for "
       "aten.relu.default")]),
    ("edge_not_edge_op", EDGE, "edge", set_target("aten_relu_default", "torch.ops.aten.relu.default"),
     [("edge.not-edge-op", "aten_relu_default", "aten.relu.default", "aten.relu.default is not an Edge operator")]),
    ("edge_scalar", EDGE, "edge", edge_scalar,
     [("edge.scalar", "aten_add_tensor", "aten.add.Tensor", "argument 'other' is the number as_float where the "
                                                             "schema wants a Tensor")]),
    ("edge_not_core", EDGE, "edge", set_target("aten_relu_default", EP + "aten.hardswish.default"),
     [("edge.not-core", "aten_relu_default", "aten.hardswish.default",
       "aten.hardswish.default is neither a Core ATen operator nor a view_copy one")]),
    ("edge_dim_order", EDGE, "edge", edge_dim_order,
     [("edge.dim-order", "dim_order_ops__clone_dim_order_default", "aten.clone.default",
       "aten.clone.default is not used in dim-order mode")]),
    ("edge_contiguous", EDGE, "edge", edge_noncontiguous,
     [("edge.contiguous", None, None, "'l.weight' is not contiguous; tensors of an Edge program are contiguous")]),
    ("edge_in_aten", EDGE, "aten", lambda m, r: None,
     [("op.edge-in-aten", "aten_relu_default", "aten.relu.default", "is an Edge operator; the ATen dialect calls "
                                                                    "ATen operators (torch.ops.aten.relu.default)")]),
]


# the cases tests/unit/test_verify.c reads, committed as tests/verify/planted_<name>.pt2
C_FIXTURES = ["arg_unknown", "hop_cond_operands", "nested_unknown", "sig_mutation_target", "edge_dtype",
              "edge_scalar", "core_inplace"]


def main(argv):
    if argv[1:] == ["--fixtures"]:
        here = os.path.dirname(os.path.abspath(__file__))
        for name, src, _, edit, _ in CASES:
            if name in C_FIXTURES:
                plant(src, os.path.join(here, "planted_" + name + ".pt2"), edit)
        print(len(C_FIXTURES), "fixtures written to", here)
        return
    out = argv[1] if len(argv) > 1 else "."
    os.makedirs(out, exist_ok=True)
    for name, src, _, edit, _ in CASES:
        plant(src, os.path.join(out, name + ".pt2"), edit)
    print(len(CASES), "cases written to", out)


if __name__ == "__main__":
    main(sys.argv)
