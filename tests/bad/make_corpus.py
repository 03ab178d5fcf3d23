#!/usr/bin/env python3
"""Write defective .pt2 archives derived from base.pt2 (stdlib only).

Output: tests/bad/corpus/NN_name.pt2 and tests/bad/corpus/expected.json,
which maps each file name to a substring eir's error message must contain.
"""
import copy
import io
import json
import os
import shutil
import struct
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = os.path.join(HERE, "base.pt2")
OUT = os.path.join(HERE, "corpus")


def load_base():
    with zipfile.ZipFile(BASE) as z:
        recs = [(i.filename, z.read(i.filename)) for i in z.infolist()]
    root = recs[0][0].split("/", 1)[0]
    return root, recs


ROOT, RECORDS = load_base()
MJ = "models/model.json"
WCFG = "data/weights/model_weights_config.json"
CCFG = "data/constants/model_constants_config.json"


def rec(name):
    for n, d in RECORDS:
        if n == ROOT + "/" + name:
            return d
    raise KeyError(name)


BASE_MODEL = json.loads(rec(MJ))
BASE_BYTES = open(BASE, "rb").read()


def build(replace=None, drop=(), add=(), raw_names=None):
    """Zip the base records with some replaced (relative name -> bytes),
    some dropped, some added (full name, bytes) appended."""
    replace = replace or {}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        for n, d in RECORDS:
            rel = n.split("/", 1)[1]
            if rel in drop:
                continue
            z.writestr(zipfile.ZipInfo(n, (1980, 1, 1, 0, 0, 0)), replace.get(rel, d))
        for n, d in add:
            z.writestr(zipfile.ZipInfo(n, (1980, 1, 1, 0, 0, 0)), d)
    return buf.getvalue()


def dumps(m):
    return json.dumps(m).encode()


def with_model(fn):
    m = copy.deepcopy(BASE_MODEL)
    fn(m)
    return build({MJ: dumps(m)})


def with_model_text(fn):
    return build({MJ: fn(rec(MJ).decode()).encode()})


def with_cfg(which, fn):
    c = json.loads(rec(which))
    fn(c)
    return build({which: dumps(c)})


def g(m):
    return m["graph_module"]["graph"]


def node(m, name, graph=None):
    for n in (graph or g(m))["nodes"]:
        if n["name"] == name:
            return n
    raise KeyError(name)


def node_index(m, name):
    return [n["name"] for n in g(m)["nodes"]].index(name)


def cond_branch(m, which):
    return node(m, "cond")["inputs"][1 if which == "true" else 2]["arg"]["as_graph"]["graph"]


# ---- ZIP-level helpers ------------------------------------------------------

def eocd_offset(b):
    return b.rfind(b"PK\x05\x06")


def zip64_eocd_offset(b):
    o = b.rfind(b"PK\x06\x06")
    assert o > 0, "base.pt2 has no zip64 end record"
    return o


def cd_offset(b):
    with zipfile.ZipFile(io.BytesIO(b)) as z:
        return z.start_dir


def local_header_offset(b, rel):
    with zipfile.ZipFile(io.BytesIO(b)) as z:
        return z.getinfo(ROOT + "/" + rel).header_offset


def data_offset(b, rel):
    o = local_header_offset(b, rel)
    nlen, xlen = struct.unpack_from("<HH", b, o + 26)
    return o + 30 + nlen + xlen


def patch(b, off, new):
    return b[:off] + new + b[off + len(new):]


# ---- the corpus ---------------------------------------------------------------

CASES = []  # (name, bytes, expected substring)


def case(name, expected):
    def deco(fn):
        CASES.append((name, fn(), expected))
        return fn
    return deco


B = BASE_BYTES


@case("empty_file", "not a ZIP archive")
def _():
    return b""


@case("not_a_zip", "not a ZIP")
def _():
    return b"this is plainly not a zip archive, just some text\n" * 4


@case("truncated_in_payload", "truncated")
def _():
    return B[: data_offset(B, MJ) + 100]


@case("truncated_in_central_dir", "central directory")
def _():
    return B[: cd_offset(B) + 40]


@case("truncated_in_zip64_eocd", "central directory")
def _():
    return B[: zip64_eocd_offset(B) + 30]


@case("truncated_before_central_dir", "central directory")
def _():
    return B[: cd_offset(B)]


@case("bad_central_dir_signature", "central directory")
def _():
    return patch(B, cd_offset(B), b"PK\x09\x09")


@case("central_dir_name_len_huge", "central directory")
def _():
    return patch(B, cd_offset(B) + 28, struct.pack("<H", 0xFFFF))


@case("eocd_cd_offset_out_of_range", "central directory")
def _():
    b = patch(B, eocd_offset(B) + 16, struct.pack("<I", len(B) + 1000))
    return patch(b, zip64_eocd_offset(b) + 48, struct.pack("<Q", len(B) + 1000))


@case("bad_local_header_signature", "'base/models/model.json': local header is corrupt")
def _():
    return patch(B, local_header_offset(B, MJ), b"XXXX")


@case("local_header_offset_past_end", "'base/models/model.json': local header is corrupt")
def _():
    # make the central-directory entry of model.json point past the end
    with zipfile.ZipFile(io.BytesIO(B)) as z:
        names = [i.filename for i in z.infolist()]
    o = cd_offset(B)
    for n in names:
        nlen, xlen, clen = struct.unpack_from("<HHH", B, o + 28)
        if n == ROOT + "/" + MJ:
            return patch(B, o + 42, struct.pack("<I", len(B) - 10))
        o += 46 + nlen + xlen + clen
    raise AssertionError


@case("record_size_past_end", "'base/models/model.json': data (2147483632 bytes at offset")
def _():
    with zipfile.ZipFile(io.BytesIO(B)) as z:
        names = [i.filename for i in z.infolist()]
    o = cd_offset(B)
    for n in names:
        nlen, xlen, clen = struct.unpack_from("<HHH", B, o + 28)
        if n == ROOT + "/" + MJ:
            big = struct.pack("<II", 0x7FFFFFF0, 0x7FFFFFF0)
            return patch(B, o + 20, big)
        o += 46 + nlen + xlen + clen
    raise AssertionError


@case("record_outside_root", "'evil/extra' is outside the archive root")
def _():
    return build(add=[("evil/extra", b"x")])


@case("missing_archive_format", "no record 'base/archive_format'")
def _():
    return build(drop=["archive_format"])


@case("wrong_archive_format", "'archive_format' says 'zip', expected 'pt2'")
def _():
    return build({"archive_format": b"zip"})


@case("wrong_archive_version", "archive_version '7' is not supported")
def _():
    return build({"archive_version": b"7"})


@case("missing_model_json", "no record 'base/models/model.json'")
def _():
    return build(drop=[MJ])


@case("model_json_not_json", "models/model.json: JSON error at line 1")
def _():
    return build({MJ: b"this is not json {"})


@case("json_nested_100000", "nesting too deep")
def _():
    return build({MJ: b"[" * 100000 + b"]" * 100000})


@case("json_nested_100000_objects", "nesting too deep")
def _():
    return build({MJ: b'{"a":' * 100000 + b"1" + b"}" * 100000})


@case("huge_integer", "integer out of the int64 range")
def _():
    return with_model_text(lambda t: t.replace('"as_int": 0}', '"as_int": 123456789012345678901234567890}', 1))


@case("wrong_type_graph_inputs", "$.graph_module.graph.inputs: expected an array, got an object")
def _():
    return with_model(lambda m: g(m).__setitem__("inputs", {"x": 1}))


@case("wrong_type_node_target", "nodes[1].target: expected a string, got an integer")
def _():
    return with_model(lambda m: g(m)["nodes"][1].__setitem__("target", 42))


@case("wrong_type_tensor_name", "nodes[2].inputs[0].arg.as_tensor.name: expected a string, got an array")
def _():
    return with_model(lambda m: g(m)["nodes"][2]["inputs"][0]["arg"]["as_tensor"].__setitem__("name", ["mul"]))


@case("wrong_type_sizes", "tensor_values.x.sizes: expected an array, got a string")
def _():
    return with_model(lambda m: g(m)["tensor_values"]["x"].__setitem__("sizes", "5,4"))


@case("wrong_type_dtype_string", "tensor_values.linear.dtype: expected an integer, got a string")
def _():
    return with_model(lambda m: g(m)["tensor_values"]["linear"].__setitem__("dtype", "float32"))


@case("wrong_type_metadata_value", "nodes[0].metadata.torch_fn: expected a string, got an integer")
def _():
    return with_model(lambda m: g(m)["nodes"][0]["metadata"].__setitem__("torch_fn", 7))


@case("wrong_type_schema_major", "schema_version.major: expected an integer, got a string")
def _():
    return with_model(lambda m: m["schema_version"].__setitem__("major", "8"))


@case("wrong_type_root_array", "expected an ExportedProgram object, got an array")
def _():
    return build({MJ: b"[1, 2, 3]"})


@case("wrong_type_is_param", "$.config.lin.weight.is_param: expected a bool")
def _():
    return with_cfg(WCFG, lambda c: c["config"]["lin.weight"].__setitem__("is_param", "yes"))


@case("unknown_union_member", "nodes[1].inputs[0].arg: unknown Argument member 'as_tensorz'")
def _():
    def f(m):
        a = g(m)["nodes"][1]["inputs"][0]["arg"]
        a["as_tensorz"] = a.pop("as_tensor")
    return with_model(f)


@case("union_two_keys", "nodes[1].inputs[0].arg: Argument union must have exactly one key, got 2")
def _():
    return with_model(lambda m: g(m)["nodes"][1]["inputs"][0]["arg"].__setitem__("as_int", 3))


@case("union_empty", "outputs[0]: Argument union must have exactly one key, got 0")
def _():
    return with_model(lambda m: g(m)["outputs"].__setitem__(0, {}))


@case("unknown_input_spec_kind", "input_specs[0]: unknown InputSpec member 'weight'")
def _():
    def f(m):
        s = m["graph_module"]["signature"]["input_specs"][0]
        s["weight"] = s.pop("parameter")
    return with_model(f)


@case("schema_major_9", "schema version 9.0 is not supported")
def _():
    return with_model(lambda m: m["schema_version"].update(major=9, minor=0))


@case("dtype_99", "tensor_values.mul.dtype: unknown dtype code 99")
def _():
    return with_model(lambda m: g(m)["tensor_values"]["mul"].__setitem__("dtype", 99))


@case("weight_dtype_99", "scale.tensor_meta.dtype: unknown dtype code 99")
def _():
    return with_cfg(WCFG, lambda c: c["config"]["scale"]["tensor_meta"].__setitem__("dtype", 99))


@case("negative_size", "p_lin_weight.sizes[0]: negative size -3")
def _():
    return with_model(lambda m: g(m)["tensor_values"]["p_lin_weight"]["sizes"].__setitem__(0, {"as_int": -3}))


@case("weight_negative_size", "lin.weight.tensor_meta.sizes[0]: negative size -3")
def _():
    return with_cfg(WCFG, lambda c: c["config"]["lin.weight"]["tensor_meta"]["sizes"].__setitem__(0, {"as_int": -3}))


@case("weight_sizes_exceed_payload", "does not fit its payload 'data/weights/weight_0'")
def _():
    def f(c):
        tm = c["config"]["lin.weight"]["tensor_meta"]
        tm["sizes"] = [{"as_int": 30}, {"as_int": 4}]
    return with_cfg(WCFG, f)


@case("weight_strides_exceed_payload", "does not fit its payload 'data/weights/weight_0'")
def _():
    def f(c):
        tm = c["config"]["lin.weight"]["tensor_meta"]
        tm["strides"] = [{"as_int": 400}, {"as_int": 1}]
    return with_cfg(WCFG, f)


@case("weight_storage_offset_exceeds_payload", "does not fit its payload 'data/weights/weight_1'")
def _():
    return with_cfg(WCFG, lambda c: c["config"]["lin.bias"]["tensor_meta"].__setitem__("storage_offset", {"as_int": 2}))


@case("weight_storage_offset_overflow", "overflow")
def _():
    return with_cfg(WCFG, lambda c: c["config"]["lin.bias"]["tensor_meta"].__setitem__("storage_offset", {"as_int": 2**62}))


@case("weight_sizes_overflow_int64", "overflow")
def _():
    def f(c):
        tm = c["config"]["lin.weight"]["tensor_meta"]
        tm["sizes"] = [{"as_int": 2**40}, {"as_int": 2**40}]
        tm["strides"] = [{"as_int": 2**40}, {"as_int": 1}]
    return with_cfg(WCFG, f)


@case("payload_too_small", "of 20 bytes")
def _():
    return build({"data/weights/weight_0": rec("data/weights/weight_0")[:20]})


@case("missing_weight_payload", "payload record 'base/data/weights/weight_1' is missing")
def _():
    return build(drop=["data/weights/weight_1"])


@case("missing_constant_payload", "payload record 'base/data/constants/tensor_0' is missing")
def _():
    return build(drop=["data/constants/tensor_0"])


@case("missing_weights_config", "no record 'base/data/weights/model_weights_config.json'")
def _():
    return build(drop=[WCFG])


@case("weights_config_not_json", "model_weights_config.json")
def _():
    return build({WCFG: b'{"config": {'})


@case("path_name_slash", "path_name 'sub/weight_0' must be a plain record name")
def _():
    return with_cfg(WCFG, lambda c: c["config"]["lin.weight"].__setitem__("path_name", "sub/weight_0"))


@case("path_name_dotdot", "path_name '../constants/tensor_0' must be a plain record name")
def _():
    return with_cfg(WCFG, lambda c: c["config"]["lin.weight"].__setitem__("path_name", "../constants/tensor_0"))


@case("dangling_node_input", "node %add (aten.add.Tensor), $.graph_module.graph.nodes[2].inputs[1].arg.as_tensor.name: 'nosuchvalue' is not a value")
def _():
    return with_model(lambda m: g(m)["nodes"][2]["inputs"][1]["arg"]["as_tensor"].__setitem__("name", "nosuchvalue"))


@case("dangling_graph_output", "outputs[1].as_tensor.name: 'ghost' is not a value")
def _():
    return with_model(lambda m: g(m)["outputs"][1]["as_tensor"].__setitem__("name", "ghost"))


@case("dangling_in_subgraph", "nodes[5].inputs[1].arg.as_graph.graph.nodes[0].inputs[0]")
def _():
    return with_model(lambda m: cond_branch(m, "true")["nodes"][0]["inputs"][0]["arg"]["as_tensor"].__setitem__("name", "ghost"))


@case("use_before_definition", "nodes[1].inputs[0].arg.as_tensor.name: 'mul' is used before it is defined")
def _():
    def f(m):
        ns = g(m)["nodes"]
        ns[1], ns[2] = ns[2], ns[1]
    return with_model(f)


@case("value_defined_twice", "nodes[3].outputs[0]: value 'mul' is defined twice")
def _():
    return with_model(lambda m: g(m)["nodes"][3]["outputs"][0]["as_tensor"].__setitem__("name", "mul"))


@case("node_output_shadows_input", "value 'x' is defined twice")
def _():
    return with_model(lambda m: g(m)["nodes"][0]["outputs"][0]["as_tensor"].__setitem__("name", "x"))


@case("input_specs_count_mismatch", "lists 4 input specs but the graph has 5 inputs")
def _():
    return with_model(lambda m: m["graph_module"]["signature"]["input_specs"].pop(2))


@case("output_specs_count_mismatch", "lists 1 output specs but the graph has 2 outputs")
def _():
    return with_model(lambda m: m["graph_module"]["signature"]["output_specs"].pop())


@case("parameter_without_payload", "lin.nothere")
def _():
    return with_model(lambda m: m["graph_module"]["signature"]["input_specs"][1]["parameter"].__setitem__("parameter_name", "lin.nothere"))


@case("constant_without_payload", "nothere")
def _():
    return with_model(lambda m: m["graph_module"]["signature"]["input_specs"][3]["tensor_constant"].__setitem__("tensor_constant_name", "nothere"))


@case("meta_dtype_disagrees_payload", "f32[3, 4]")
def _():
    return with_model(lambda m: g(m)["tensor_values"]["p_lin_weight"].__setitem__("dtype", 8))


@case("meta_shape_disagrees_payload", "f32[3]")
def _():
    return with_model(lambda m: g(m)["tensor_values"]["p_lin_bias"].__setitem__("sizes", [{"as_int": 4}]))


@case("missing_tensor_meta", "'getitem_2' is not a value of this graph")
def _():
    return with_model(lambda m: g(m)["tensor_values"].pop("getitem_2"))


@case("sym_expr_unterminated", "x.sizes[0].as_expr.expr_str: bad symbolic expression 'Symbol('s0''")
def _():
    return with_model(lambda m: g(m)["tensor_values"]["x"]["sizes"][0]["as_expr"].__setitem__("expr_str", "Symbol('s0'"))


@case("sym_expr_garbage", "bad symbolic expression")
def _():
    return with_model(lambda m: g(m)["tensor_values"]["linear"]["sizes"][0]["as_expr"].__setitem__("expr_str", "Mul(Integer(2), , )"))


@case("sym_expr_deep", "nesting too deep")
def _():
    e = "Neg(" * 50000 + "Integer(1)" + ")" * 50000
    return with_model(lambda m: g(m)["tensor_values"]["linear"]["sizes"][0]["as_expr"].__setitem__("expr_str", e))


@case("range_min_gt_max", "range_constraints.s77: empty range")
def _():
    def f(m):
        for k in m["range_constraints"]:
            m["range_constraints"][k] = {"min_val": 100, "max_val": 3}
    return with_model(f)


@case("nul_in_string_escaped", "nodes[1].target: string contains a NUL")
def _():
    return with_model(lambda m: g(m)["nodes"][1].__setitem__("target", "torch.ops.aten.mul\u0000.Tensor"))


@case("nul_byte_raw_in_json", "control character in a string")
def _():
    return with_model_text(lambda t: t.replace('"torch.ops.aten.mul.Tensor"', '"torch.ops.aten.mul\x00.Tensor"', 1))


@case("invalid_utf8_in_json", "invalid UTF-8 in a string")
def _():
    t = rec(MJ).replace(b'"torch.ops.aten.mul.Tensor"', b'"torch.ops.aten.mul\xff\xfe.Tensor"', 1)
    return build({MJ: t})


# Duplicate keys: like Python's json (and so torch), the last one wins.
@case("duplicate_json_keys_last_wins", "schema version 9.20 is not supported")
def _():
    return with_model_text(lambda t: t.replace('"schema_version": {"major": 8,', '"schema_version": {"major": 8, "major": 9,', 1))


@case("single_tensor_return_two_outputs", "is_single_tensor_return is true but the graph has 2 outputs")
def _():
    return with_model(lambda m: g(m).__setitem__("is_single_tensor_return", True))


@case("missing_required_field", "nodes[0]: missing field 'target'")
def _():
    return with_model(lambda m: g(m)["nodes"][0].pop("target"))


@case("float_nan_as_bare_token", "invalid value")
def _():
    return with_model_text(lambda t: t.replace('"as_float": 1.0', '"as_float": NaN', 1))


@case("trailing_garbage_json", "extra text after the JSON value")
def _():
    return build({MJ: rec(MJ) + b" }"})


@case("sym_expr_unknown_function", "x.sizes[0].as_expr.expr_str: bad symbolic expression 'Frobnicate(Symbol('s77', positive=True, integer=True))': unknown function 'Frobnicate'")
def _():
    return with_model(lambda m: g(m)["tensor_values"]["x"]["sizes"][0]["as_expr"].__setitem__(
        "expr_str", "Frobnicate(Symbol('s77', positive=True, integer=True))"))


@case("sym_expr_wrong_arity", "FloorDiv takes 2 arguments, got 1")
def _():
    return with_model(lambda m: g(m)["tensor_values"]["x"]["sizes"][0]["as_expr"].__setitem__(
        "expr_str", "FloorDiv(Symbol('s77', positive=True, integer=True))"))


# ---- archives that load and print (torch loads them too) but must not run -------
# Written as rNN_name.pt2: `eir info` succeeds, `eir run` (on its own random
# inputs) exits 1 with the expected message; never an out-of-bounds access.

# ---- pickled payloads (tensor subclasses): torch.save archives in a record ----
# data.pkl is written opcode by opcode (protocol 2), as torch.save writes it.

def pk_str(s):
    b = s.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def pk_tuple(*items):
    return b"(" + b"".join(items) + b"t"


def pk_int(i):
    return b"J" + struct.pack("<i", i)


def pk_tensor(key="0", numel=12, size=(3, 4), stride=(4, 1), offset=0, storage=b"FloatStorage"):
    """_rebuild_tensor_v2(persid('storage', torch.<storage>, key, 'cpu', numel), ...)"""
    pid = b"(" + pk_str("storage") + b"ctorch\n" + storage + b"\n" + pk_str(key) + pk_str("cpu") + pk_int(numel) + b"tQ"
    return (b"ctorch._utils\n_rebuild_tensor_v2\n" + b"(" + pid + pk_int(offset) + pk_tuple(*map(pk_int, size)) +
            pk_tuple(*map(pk_int, stride)) + b"\x89" + b"ccollections\nOrderedDict\n)R" + b"tR")


def ts_zip(pkl, storages=None):
    """A torch.save archive: archive/data.pkl, archive/byteorder, archive/data/<key>."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        z.writestr(zipfile.ZipInfo("archive/data.pkl", (1980, 1, 1, 0, 0, 0)), pkl)
        z.writestr(zipfile.ZipInfo("archive/byteorder", (1980, 1, 1, 0, 0, 0)), b"little")
        for k, d in (storages or {"0": bytes(48)}).items():
            z.writestr(zipfile.ZipInfo("archive/data/" + k, (1980, 1, 1, 0, 0, 0)), d)
        z.writestr(zipfile.ZipInfo("archive/version", (1980, 1, 1, 0, 0, 0)), b"3\n")
    return buf.getvalue()


def pickled_weight(payload):
    """lin.weight (f32[3, 4]) marked use_pickle, its record replaced by payload."""
    c = json.loads(rec(WCFG))
    c["config"]["lin.weight"]["use_pickle"] = True
    path = c["config"]["lin.weight"]["path_name"]
    return build({WCFG: dumps(c), "data/weights/" + path: payload})


@case("pickle_forbidden_global", "data/weights/model_weights_config.json: $.config.lin.weight: pickled payload 'data/weights/weight_0': data.pkl: pickle byte 2: pickle refers to os.system, which eir does not load")
def _():
    return pickled_weight(ts_zip(b"\x80\x02cos\nsystem\n" + pk_tuple(pk_str("true")) + b"R."))


@case("pickle_stack_global_builtin", "pickle refers to builtins.eval, which eir does not load")
def _():
    return pickled_weight(ts_zip(b"\x80\x04\x8c\x08builtins\x8c\x04eval\x93" + pk_tuple(pk_str("1")) + b"R."))


@case("pickle_forbidden_subclass_type", "pickle refers to __main__.Evil, which eir does not load")
def _():
    return pickled_weight(ts_zip(b"\x80\x02ctorch._tensor\n_rebuild_from_type_v2\n(ctorch._utils\n_rebuild_tensor_v2\n"
                                 b"c__main__\nEvil\n" + b")Ntt" + b"R."))


@case("pickle_truncated", "data.pkl: pickle byte 149: truncated: the pickle ends without STOP")
def _():
    return pickled_weight(ts_zip((b"\x80\x02" + pk_tensor() + b".")[:-1]))


@case("pickle_huge_string_length", "truncated: 4294967295 more bytes needed")
def _():
    return pickled_weight(ts_zip(b"\x80\x02X\xff\xff\xff\xffabc."))


@case("pickle_bad_memo_index", "memo index 9 was never stored")
def _():
    return pickled_weight(ts_zip(b"\x80\x02]q\x00h\x09."))


@case("pickle_nested_marks", "more than 4096 nested MARKs")
def _():
    return pickled_weight(ts_zip(b"\x80\x02" + b"(" * 100000 + b"."))


@case("pickle_self_referencing_parameter", "tensor nested deeper than 32 calls")
def _():
    # C = _rebuild_parameter_with_state(t, True, {}, D), then D['x'] = C: the state holds the parameter itself
    return pickled_weight(ts_zip(b"\x80\x02}q\x000" + b"ctorch._utils\n_rebuild_parameter_with_state\n(" + pk_tensor() +
                                 b"\x88}h\x00tRq\x01" + b"h\x00" + pk_str("x") + b"h\x01s0."))


@case("pickle_storage_record_missing", "data.pkl names storage '7' but the archive has no record 'data/7'")
def _():
    return pickled_weight(ts_zip(b"\x80\x02" + pk_tensor(key="7") + b"."))


@case("pickle_storage_too_small", "record 'data/0' has 8 bytes, but data.pkl says 12 f32 elements (48 bytes)")
def _():
    return pickled_weight(ts_zip(b"\x80\x02" + pk_tensor() + b".", {"0": bytes(8)}))


@case("pickle_view_past_storage", "data.pkl: a f32 tensor whose sizes/strides/offset need 448 bytes does not fit its storage '0' of 48 bytes")
def _():
    return pickled_weight(ts_zip(b"\x80\x02" + pk_tensor(offset=100) + b"."))


@case("pickle_storage_key_path", "storage key '../x' is not a plain record name")
def _():
    return pickled_weight(ts_zip(b"\x80\x02" + pk_tensor(key="../x") + b"."))


@case("pickle_shape_contradicts_config", "$.config.lin.weight.tensor_meta: says f32[3, 4], but pickled payload 'data/weights/weight_0' holds f32[2, 2]")
def _():
    return pickled_weight(ts_zip(b"\x80\x02" + pk_tensor(numel=4, size=(2, 2), stride=(2, 1)) + b"."))


@case("pickle_payload_not_a_zip", "pickled payload 'data/weights/weight_0': not a torch.save archive")
def _():
    return pickled_weight(b"\x80\x02N." + bytes(64))


@case("pickle_dict_not_tensor", "pickled payload 'data/weights/weight_0' holds a dict, expected one tensor")
def _():
    return pickled_weight(ts_zip(b"\x80\x02}(" + pk_str("w") + pk_tensor() + b"u."))


@case("pickle_unknown_opcode", "data.pkl: pickle byte 2: opcode 0xfe is not supported")
def _():
    return pickled_weight(ts_zip(b"\x80\x02\xfe."))


# ---- legacy layouts: the flat ZIP of torch <= 2.7, the 2.8 PT2 archive ----

def pk_param(t):
    return b"ctorch._utils\n_rebuild_parameter\n(" + t + b"\x88ccollections\nOrderedDict\n)Rt" + b"R"


def pk_dict(items):
    return b"}(" + b"".join(pk_str(k) + v for k, v in items) + b"u"


def legacy_state(weight=None):
    """base.pt2's state dict as torch.save writes it: lin.weight, lin.bias (parameters), scale."""
    w = weight if weight is not None else pk_param(pk_tensor("0", 12, (3, 4), (4, 1)))
    return ts_zip(b"\x80\x02" + pk_dict([("lin.weight", w), ("lin.bias", pk_param(pk_tensor("1", 3, (3,), (1,)))),
                                          ("scale", pk_tensor("2", 3, (3,), (1,)))]) + b".",
                  {"0": bytes(48), "1": bytes(12), "2": bytes(12)})


def legacy_constants():
    return ts_zip(b"\x80\x02" + pk_dict([("const", pk_tensor("0", 3, (3,), (1,)))]) + b".", {"0": bytes(12)})


def flat(state=None, constants=None, version=b"8.20", drop=()):
    recs = [("serialized_exported_program.json", rec(MJ)), ("serialized_state_dict.pt", state or legacy_state()),
            ("serialized_constants.pt", constants or legacy_constants()), ("serialized_example_inputs.pt", b""),
            ("version", version)]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        for n, d in recs:
            if n not in drop:
                z.writestr(zipfile.ZipInfo(n, (1980, 1, 1, 0, 0, 0)), d)
    return buf.getvalue()


def v28(state=None):
    """base.pt2 with its weights and constants in data/weights/model.pt, data/constants/model.pt."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        z.writestr(zipfile.ZipInfo(ROOT + "/data/weights/model.pt", (1980, 1, 1, 0, 0, 0)), state or legacy_state())
        z.writestr(zipfile.ZipInfo(ROOT + "/data/constants/model.pt", (1980, 1, 1, 0, 0, 0)), legacy_constants())
        for n, d in RECORDS:
            rel = n.split("/", 1)[1]
            if not rel.startswith("data/weights/") and not rel.startswith("data/constants/"):
                z.writestr(zipfile.ZipInfo(n, (1980, 1, 1, 0, 0, 0)), d)
    return buf.getvalue()


@case("legacy_flat_forbidden_global", "serialized_state_dict.pt: data.pkl: pickle byte 19: pickle refers to posix.system, which eir does not load")
def _():
    return flat(legacy_state(b"cposix\nsystem\n" + pk_tuple(pk_str("true")) + b"R"))


@case("legacy_flat_rebuild_wrong_arity", "serialized_state_dict.pt: 'lin.weight': data.pkl: _rebuild_tensor_v2 takes 6 or 7 arguments, got 2")
def _():
    return flat(legacy_state(b"ctorch._utils\n_rebuild_tensor_v2\n" + pk_tuple(pk_int(1), pk_int(2)) + b"R"))


@case("legacy_flat_wrong_version", "legacy archive has schema version '7.3'; eir (like torch 2.13) reads schema 8.x")
def _():
    return flat(version=b"7.3")


@case("legacy_flat_missing_state_dict", "archive has no record 'serialized_state_dict.pt' (a legacy archive keeps its weights there)")
def _():
    return flat(drop=("serialized_state_dict.pt",))


@case("legacy_flat_missing_version", "legacy archive has no record 'version'")
def _():
    return flat(drop=("version",))


@case("legacy_flat_state_dict_one_tensor", "serialized_state_dict.pt holds one tensor, expected a dict of tensors")
def _():
    return flat(ts_zip(b"\x80\x02" + pk_tensor() + b"."))


@case("legacy_flat_weight_wrong_shape", "the graph declares %p_lin_weight as f32[3, 4] but its payload 'serialized_state_dict.pt:0' holds f32[4, 3]")
def _():
    return flat(legacy_state(pk_param(pk_tensor("0", 12, (4, 3), (3, 1)))))


@case("legacy_flat_storage_past_end", "serialized_state_dict.pt: 'lin.weight': data.pkl: a f32 tensor whose sizes/strides/offset need 64 bytes does not fit its storage '0' of 48 bytes")
def _():
    return flat(legacy_state(pk_param(pk_tensor("0", 12, (3, 4), (6, 1)))))


@case("legacy_flat_dotdot_record", "ZIP record '../evil' has a '.' or '..' path segment")
def _():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        z.writestr(zipfile.ZipInfo("version", (1980, 1, 1, 0, 0, 0)), b"8.20")
        z.writestr(zipfile.ZipInfo("../evil", (1980, 1, 1, 0, 0, 0)), b"x")
    return buf.getvalue()


@case("flat_zip_not_an_archive", "ZIP record 'hello.txt' is not inside an archive root folder")
def _():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        z.writestr(zipfile.ZipInfo("hello.txt", (1980, 1, 1, 0, 0, 0)), b"hi")
    return buf.getvalue()


@case("legacy_v28_truncated_pickle", "data/weights/model.pt: data.pkl: pickle byte")
def _():
    st = ts_zip((b"\x80\x02" + pk_dict([("lin.weight", pk_param(pk_tensor()))]) + b".")[:-9])
    return v28(st)


@case("legacy_v28_missing_weight", "parameter 'lin.bias' (graph input %p_lin_bias) has no payload in data/weights/model.pt")
def _():
    return v28(ts_zip(b"\x80\x02" + pk_dict([("lin.weight", pk_param(pk_tensor()))]) + b"."))


RUN_CASES = []
VIEW_BASE = os.path.join(HERE, "view_base.pt2")


def run_case(name, expected):
    def deco(fn):
        RUN_CASES.append((name, fn(), expected))
        return fn
    return deco


def build_from(path, model_fn):
    with zipfile.ZipFile(path) as z:
        recs = [(i.filename, z.read(i.filename)) for i in z.infolist()]
    root = recs[0][0].split("/", 1)[0]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        for n, d in recs:
            if n == root + "/" + MJ:
                m = json.loads(d)
                model_fn(m)
                d = dumps(m)
            z.writestr(zipfile.ZipInfo(n, (1980, 1, 1, 0, 0, 0)), d)
    return buf.getvalue()


@run_case("param_negative_stride", "value p_lin_weight: its recorded geometry (sizes [3, 4], strides [-4, 1], storage offset 0) has a negative size, stride or offset")
def _():
    return with_model(lambda m: g(m)["tensor_values"]["p_lin_weight"]["strides"].__setitem__(0, {"as_int": -4}))


@run_case("param_offset_past_payload", "value p_lin_weight: its recorded geometry (sizes [3, 4], strides [4, 1], storage offset 1000000000) reaches past the end of its storage")
def _():
    return with_model(lambda m: g(m)["tensor_values"]["p_lin_weight"].__setitem__("storage_offset", {"as_int": 10 ** 9}))


@run_case("view_size_contradicts_op", "node %slice_1 (aten.slice.Tensor): computes size 3 for dim 0 of slice_1, where the program records 4")
def _():
    return build_from(VIEW_BASE, lambda m: g(m)["tensor_values"]["slice_1"]["sizes"].__setitem__(0, {"as_int": 4}))


@run_case("as_strided_past_storage", "node %as_strided (aten.as_strided.default): the view as_strided (sizes [2, 2], strides [1, 3], storage offset 100) reaches outside its storage of 48 bytes")
def _():
    def f(m):
        node(m, "as_strided")["inputs"][3]["arg"] = {"as_int": 100}
    return build_from(VIEW_BASE, f)


@run_case("as_strided_huge_stride", "reaches outside its storage")
def _():
    def f(m):
        node(m, "as_strided")["inputs"][2]["arg"] = {"as_ints": [1, 4611686018427387904]}
    return build_from(VIEW_BASE, f)


@run_case("cond_predicate_keyword", "node %cond (higher_order.cond): unexpected arguments")
def _():
    return with_model(lambda m: node(m, "cond")["inputs"][0].__setitem__("kind", 2))


@run_case("cond_predicate_not_one_element", "node %cond (higher_order.cond): the predicate has 15 elements, expected 1")
def _():
    return with_model(lambda m: node(m, "cond")["inputs"][0]["arg"].__setitem__("as_tensor", {"name": "add"}))


@run_case("while_condition_not_one_element", "node %while_loop (higher_order.while_loop): the condition has 3 elements, expected 1")
def _():
    def f(m):
        node(m, "while_loop")["inputs"][0]["arg"]["as_graph"]["graph"]["outputs"] = [{"as_tensor": {"name": "arg1_1"}}]
    return build_from(os.path.join(HERE, "..", "e2e", "fixtures", "while_loop.pt2"), f)


@run_case("nonzero_columns_contradict_rank", "node %nonzero: nonzero of a 2-d tensor gives [n, 2], where the program records [n, 1]")
def _():
    return build_from(os.path.join(HERE, "..", "e2e", "fixtures", "nonzero_check.decomp.pt2"),
                      lambda m: g(m)["tensor_values"]["nonzero"]["sizes"].__setitem__(1, {"as_int": 1}))


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    expected = {}
    seen = set()
    for i, (name, data, exp) in enumerate(CASES, 1):
        assert data not in seen, name
        seen.add(data)
        fn = "%02d_%s.pt2" % (i, name)
        with open(os.path.join(OUT, fn), "wb") as f:
            f.write(data)
        expected[fn] = exp
    for i, (name, data, exp) in enumerate(RUN_CASES, 1):
        assert data not in seen, name
        seen.add(data)
        fn = "r%02d_%s.pt2" % (i, name)
        with open(os.path.join(OUT, fn), "wb") as f:
            f.write(data)
        expected[fn] = exp
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote %d archives to %s" % (len(CASES) + len(RUN_CASES), OUT))


if __name__ == "__main__":
    main()
