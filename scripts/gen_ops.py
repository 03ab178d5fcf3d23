"""Generate src/ops/schemas.inc: one row per ATen operator overload of the
installed torch — its schema arguments (name, type, kwarg-only, default),
number of returns and flags (core, view, in-place, out=, random, has a
default decomposition). The output is
committed so a C build needs no Python; `make check-generated` regenerates
and diffs it."""
import sys

import torch

TYPES = {
    "Tensor": "TENSOR", "Optional[Tensor]": "OPT_TENSOR", "List[Tensor]": "TENSORS",
    "List[Optional[Tensor]]": "OPT_TENSORS", "int": "INT", "Optional[int]": "OPT_INT", "List[int]": "INTS",
    "Optional[List[int]]": "OPT_INTS", "float": "FLOAT", "Optional[float]": "OPT_FLOAT", "List[float]": "FLOATS",
    "Optional[List[float]]": "OPT_FLOATS", "bool": "BOOL", "Optional[bool]": "OPT_BOOL", "List[bool]": "BOOLS",
    "number": "SCALAR", "Optional[number]": "OPT_SCALAR", "str": "STR", "Optional[str]": "OPT_STR",
    "Optional[Generator]": "GENERATOR", "Device": "DEVICE", "Optional[Device]": "OPT_DEVICE",
    "complex": "SCALAR", "List[str]": "STRS",
}


# Arguments whose kernels write them in place although the schema has no
# Tensor(a!): in training mode batch_norm and native_batch_norm update the
# running statistics (torch's batch_norm_cpu_update_stats_template). A
# BatchNorm module in training mode exports to aten.batch_norm.default.
UNANNOTATED_WRITES = {
    "batch_norm.default": ("running_mean", "running_var"),
    "native_batch_norm.default": ("running_mean", "running_var"),
}


def arg_type(a) -> str:
    t = str(a.type)
    # ScalarType / Layout / MemoryFormat are ints in the JIT type system;
    # real_type keeps their names
    real = str(getattr(a, "real_type", a.type))
    if "ScalarType" in real:
        return "DTYPE"
    if "Layout" in real:
        return "LAYOUT"
    if "MemoryFormat" in real:
        return "MEMFMT"
    if t in TYPES:
        return TYPES[t]
    if "ScalarType" in real:
        return "DTYPE"
    if "Layout" in real:
        return "LAYOUT"
    if "MemoryFormat" in real:
        return "MEMFMT"
    if "SymInt" in real and "List" in real:
        return "OPT_INTS" if real.startswith("Optional") else "INTS"
    if "SymInt" in real:
        return "OPT_INT" if real.startswith("Optional") else "INT"
    return "OTHER"


def c_string(s: str) -> str:
    out = []
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif 32 <= ord(ch) < 127:
            out.append(ch)
        else:
            out.append("\\%03o" % ord(ch))
    return '"' + "".join(out) + '"'


def default_str(a) -> str:
    if not a.has_default_value():
        return "NULL"
    v = a.default_value
    if v is None:
        s = "None"
    elif isinstance(v, bool):
        s = "True" if v else "False"
    elif isinstance(v, (int, float)):
        s = repr(v)
    elif isinstance(v, (list, tuple)):
        s = "[" + ", ".join(repr(x) for x in v) + "]"
    elif isinstance(v, str):
        s = v
    else:
        s = str(v).replace("torch.", "")
    return c_string(s)


def main() -> None:
    rows = []
    # what ep.run_decompositions() rewrites by default: torch's Core ATen
    # decompositions plus every CompositeImplicitAutograd op it does not keep
    decomps = torch.export.default_decompositions()
    # dir(torch.ops.aten) only lists ops already touched; the JIT registry has them all
    pairs = sorted({(s.name[len("aten::"):], s.overload_name or "default")
                    for s in torch._C._jit_get_all_schemas() if s.name.startswith("aten::")})
    ops = {}
    for name, ov in pairs:
        try:
            ops[(name, ov)] = getattr(getattr(torch.ops.aten, name), ov)
        except Exception:
            continue
    for (name, ov), op in ops.items():
        if True:
            s = op._schema
            flags = []
            if torch.Tag.core in op.tags:
                flags.append("EIR_OPF_CORE")
            if any(a.alias_info is not None and a.alias_info.is_write and a.kwarg_only for a in s.arguments):
                flags.append("EIR_OPF_OUT")
            elif s.arguments and s.arguments[0].alias_info is not None and s.arguments[0].alias_info.is_write:
                flags.append("EIR_OPF_INPLACE")
            elif any(r.alias_info is not None and not r.alias_info.is_write for r in s.returns):
                flags.append("EIR_OPF_VIEW")
            if torch.Tag.nondeterministic_seeded in op.tags:
                flags.append("EIR_OPF_RANDOM")
            if torch.Tag.core not in op.tags and op in decomps:
                flags.append("EIR_OPF_DECOMP")
            # functionalization (run_decompositions() runs it first) replaces an in-place op
            # with the op of its NativeFunctionsGroup: same name without the trailing _, same
            # overload and arguments (sigmoid_.default -> sigmoid.default)
            func = ops.get((name[:-1], ov)) if name.endswith("_") and "EIR_OPF_INPLACE" in flags else None
            if func is not None and [a.name for a in func._schema.arguments] == [a.name for a in s.arguments]:
                flags.append("EIR_OPF_FUNCTIONAL")
            args = [(a.name, arg_type(a), a.kwarg_only, default_str(a)) for a in s.arguments]
            # arguments other than self and out= that the op writes (Tensor(a!)), e.g. batch norm's running stats
            mutates = sum(1 << i for i, a in enumerate(s.arguments)
                          if i > 0 and not a.kwarg_only and a.alias_info is not None and a.alias_info.is_write)
            mutates |= sum(1 << s.arguments.index(a) for a in s.arguments
                           if a.name in UNANNOTATED_WRITES.get(f"{name}.{ov}", ()))
            rows.append((f"aten.{name}.{ov}", args, len(s.returns), flags, mutates))
    rows.sort(key=lambda r: r[0])
    out = sys.stdout
    out.write(f"/* ATen operator schemas of torch {torch.__version__}.\n"
              " * Generated by scripts/gen_ops.py; do not edit. */\n")
    for i, (n, args, _, _, _) in enumerate(rows):
        if args:
            out.write(f"static const eir_schema_arg A{i}[] = {{")
            out.write(", ".join(f'{{"{a}", EIR_ST_{t}, {int(k)}, {d}}}' for a, t, k, d in args))
            out.write("};\n")
    out.write("static const eir_op_schema EIR_OP_SCHEMAS[] = {\n")
    for i, (n, args, nret, flags, mutates) in enumerate(rows):
        f = " | ".join(flags) if flags else "0"
        a = f"A{i}" if args else "NULL"
        out.write(f'    {{"{n}", {a}, {len(args)}, {nret}, {f}}},\n')
    out.write("};\n")
    # sorted by name, like the table above
    out.write("/* Arguments other than self and out= that an op writes in place (bit i = argument i). */\n")
    out.write("static const eir_op_mutates EIR_OP_MUTATES[] = {\n")
    for n, _, _, _, mutates in rows:
        if mutates:
            out.write(f'    {{"{n}", {mutates:#x}}},\n')
    out.write("};\n")


if __name__ == "__main__":
    main()
