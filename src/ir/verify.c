/* verify.c — the Export IR verifier: structure, operators, arguments,
 * signature and the rules of the ATen, Core ATen and Edge dialects, every
 * violation reported with its node, target, argument and the user's source
 * line. docs/IR.md lists the rules (their ids are the `rule` of each
 * violation) and where each comes from. */
#include "verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "program.h"
#include "../ops/optable.h"
#include "../ops/meta.h"

#include "edge_ops.inc"

static int cmp_edge(const void *key, const void *row) {
    return strcmp((const char *)key, ((const eir_edge_op *)row)->name);
}

const eir_edge_op *eir_edge_op_find(const char *name) {
    return bsearch(name, EIR_EDGE_OPS, EIR_ARRAY_LEN(EIR_EDGE_OPS), sizeof EIR_EDGE_OPS[0], cmp_edge);
}

static int cmp_str(const void *key, const void *row) { return strcmp((const char *)key, *(const char *const *)row); }

bool eir_edge_is_view_copy(const char *name) {
    return bsearch(name, EIR_VIEW_COPY_OPS, EIR_ARRAY_LEN(EIR_VIEW_COPY_OPS), sizeof EIR_VIEW_COPY_OPS[0],
                   cmp_str) != NULL;
}

static bool in_list(const char *s, const char *const *list, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!strcmp(s, list[i])) return true;
    return false;
}

/* ---- the operators a graph may call besides ATen and custom ops ---- */

/* torch/_export/verifier.py: Verifier.allowed_builtin_ops, as the serializer
 * writes them (module.name) */
static const char *const BUILTINS[] = {
    "_operator.getitem", "_operator.add", "_operator.mul", "_operator.sub", "_operator.truediv",
    "_operator.ge", "_operator.le", "_operator.gt", "_operator.lt", "_operator.eq", "_operator.ne",
    "_operator.floordiv", "_operator.mod", "_operator.and_", "_operator.or_", "_operator.not_",
    "_operator.pow", "_operator.neg", "_operator.abs", "_operator.lshift", "_operator.rshift",
    "math.ceil", "math.floor", "math.trunc", "builtins.round",
};
static const char *const UNARY_BUILTINS[] = {
    "_operator.not_", "_operator.neg", "_operator.abs", "math.ceil", "math.floor", "math.trunc",
};

/* ... and its _allowed_torch_functions */
static const char *const TORCH_FUNCTIONS[] = {
    "torch.autograd.grad_mode.set_grad_enabled", "torch.sym_int", "torch.sym_float", "torch.sym_ite",
    "torch.sym_max", "torch.sym_min", "torch.sym_not", "torch.sym_sqrt", "torch.sym_sum",
    "torch.export.custom_ops._call_custom_autograd_function_in_pre_dispatch", "torch._C._set_grad_enabled",
    "torch.amp.autocast_mode._enter_autocast", "torch.amp.autocast_mode._exit_autocast",
    "torch.fx.experimental.symbolic_shapes.cast_symbool_to_symint_guardless",
    "torch._functorch.predispatch._add_batch_dim", "torch._functorch.predispatch._remove_batch_dim",
    "torch._functorch.predispatch._vmap_increment_nesting", "torch._functorch.predispatch._vmap_decrement_nesting",
    "torch._functorch.predispatch.lazy_load_decompositions", "torch._functorch.predispatch._make_dual",
    "torch._functorch.predispatch._unpack_dual", "torch._functorch.predispatch._jvp_increment_nesting",
    "torch._functorch.predispatch._jvp_decrement_nesting", "torch._functorch.predispatch._unwrap_for_grad",
    "torch._functorch.predispatch._enter_dual_level", "torch._functorch.predispatch._exit_dual_level",
};

/* the higher-order operators of torch 2.13 (torch._ops._higher_order_ops) */
static const char *const HOPS[] = {
    "_export_tracepoint", "aoti_call_delegate", "associative_scan", "auto_functionalized",
    "auto_functionalized_v2", "autograd_function_apply", "call_torchbind", "cond", "custom_function_call",
    "dynamo_bypassing_wrapper", "executorch_call_delegate", "flat_apply", "flex_attention",
    "flex_attention_backward", "foreach_map", "graphsafe_run_with_rng_state", "hints_wrapper",
    "inductor_compiled_code", "inline_asm_elementwise", "invoke_leaf_function", "invoke_quant",
    "invoke_quant_packed", "invoke_subgraph", "local_map_hop", "map_impl", "out_dtype", "print",
    "run_and_save_rng_state", "run_const_graph", "run_dtensor_rng_op", "run_with_rng_state", "scan",
    "strict_mode", "tag_activation_checkpoint", "while_loop", "while_loop_stack_output", "with_effects", "wrap",
    "wrap_activation_checkpoint", "wrap_with_autocast", "wrap_with_set_grad_enabled",
};

/* ATen ops a decomposed (Core ATen) program keeps although torch does not
 * tag them core: runtime assertions and the symbolic-size ops torch's
 * run_decompositions() leaves in place (ExecuTorch accepts the same ones,
 * its _EXECUTORCH_SYM_OPS and DISALLOW_LIST). */
static const char *const CORE_EXTRA[] = {
    "aten._assert_async.msg", "aten._assert_scalar.default", "aten._assert_tensor_metadata.default",
    "aten._local_scalar_dense.default", "aten.scalar_tensor.default", "aten.sym_constrain_range.default",
    "aten.sym_constrain_range_for_size.default", "aten.sym_numel.default", "aten.sym_size.int",
    "aten.sym_storage_offset.default", "aten.sym_stride.int", "aten._make_dep_token.default",
    "aten._functional_sym_constrain_range.default", "aten._functional_sym_constrain_range_for_size.default",
    "aten._functional_assert_scalar.default", "aten._functional_assert_async.msg", "aten._print.default",
};

/* ExecuTorch's EXIRATenDialectVerifier exception list: ATen ops Edge
 * programs may call although they are not Core ATen */
static const char *const EDGE_EXCEPTIONS[] = {
    "aten.mkldnn_rnn_layer.default", "aten._upsample_bilinear2d_aa.default", "aten.quantize_per_tensor.default",
    "aten.dequantize.self", "aten.max.default", "aten.min.default", "aten.full_like.default",
};

/* ops ExecuTorch's dim-order mode replaces (DimOrderOpsMap) */
static const char *const EDGE_DIM_ORDER[] = {"aten._to_copy.default", "aten.empty.memory_format", "aten.clone.default"};

#define EDGE_PREFIX "executorch.exir.dialects.edge._ops."

/* ---- the report ---- */

typedef struct vctx {
    eir_program *p;
    eir_dialect dialect;
    eir_verify_report *r;
    const char *graph;           /* path of the current subgraph, NULL at the root */
    uint32_t meta_flags;         /* EIR_META_* for the current subgraph's nodes */
    bool backend;                /* the Backend dialect: Core ATen rules (dialect CORE) plus eir_cpu ops */
} vctx;

static char *rdup(eir_verify_report *r, const char *s) {
    if (!s) return NULL;
    char *d = eir_arena_strdup(&r->arena, s);
    if (!d) r->oom = true;
    return d;
}

static const char *short_target(const char *t) {
    if (!t) return NULL;
    if (!strncmp(t, "torch.ops.", 10)) return t + 10;
    if (!strncmp(t, EDGE_PREFIX, strlen(EDGE_PREFIX))) return t + strlen(EDGE_PREFIX);
    return t;
}

static const char *meta_get(const eir_node *nd, const char *key) {
    for (uint32_t i = 0; i < nd->num_metadata; i++)
        if (!strcmp(nd->metadata[i].key, key)) return nd->metadata[i].value;
    return NULL;
}

/* Add a violation. nd may be NULL (signature, program); arg may be NULL. */
static void viol(vctx *c, const char *rule, const eir_node *nd, const char *arg, const char *fmt, ...)
    EIR_PRINTF(5, 6);
static void viol(vctx *c, const char *rule, const eir_node *nd, const char *arg, const char *fmt, ...) {
    eir_verify_report *r = c->r;
    if (r->oom) return;
    if (r->n == r->cap) {
        uint32_t cap = r->cap ? r->cap * 2 : 16;
        eir_violation *nv = realloc(r->v, cap * sizeof *nv);
        if (!nv) { r->oom = true; return; }
        r->v = nv;
        r->cap = cap;
    }
    eir_violation *v = &r->v[r->n];
    memset(v, 0, sizeof *v);
    eir_buf b, src;
    eir_buf_init(&b);
    eir_buf_init(&src);
    const char *st = nd ? meta_get(nd, "stack_trace") : NULL;
    bool has_src = st && eir_stack_user_line(&src, st) && src.data;
    if (nd) {
        eir_buf_printf(&b, "node %%%s (%s)", nd->name ? nd->name : "?", short_target(nd->target));
        if (c->graph) eir_buf_printf(&b, " in %s", c->graph);
        eir_buf_puts(&b, ": ");
    }
    va_list ap;
    va_start(ap, fmt);
    eir_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    if (has_src) eir_buf_printf(&b, " [%s]", src.data);
    v->rule = rule;
    v->graph = rdup(r, c->graph);
    v->node = nd ? rdup(r, nd->name ? nd->name : "?") : NULL;
    v->target = nd ? rdup(r, short_target(nd->target)) : NULL;
    v->arg = rdup(r, arg);
    v->source = has_src ? rdup(r, src.data) : NULL;
    v->message = rdup(r, b.oom || !b.data ? "" : b.data);
    if (b.oom || src.oom) r->oom = true;
    eir_buf_free(&b);
    eir_buf_free(&src);
    r->n++;
}

/* ---- values and arguments ---- */

static const eir_value *value_of(const eir_graph *g, const eir_arg *a) {
    return a->value != EIR_NO_VALUE && a->value < g->num_values ? &g->values[a->value] : NULL;
}

static const char *schema_type_name(eir_schema_type t) {
    static const char *const names[] = {
        [EIR_ST_TENSOR] = "Tensor", [EIR_ST_OPT_TENSOR] = "Tensor?", [EIR_ST_TENSORS] = "Tensor[]",
        [EIR_ST_OPT_TENSORS] = "Tensor?[]", [EIR_ST_INT] = "int", [EIR_ST_OPT_INT] = "int?",
        [EIR_ST_INTS] = "int[]", [EIR_ST_OPT_INTS] = "int[]?", [EIR_ST_FLOAT] = "float",
        [EIR_ST_OPT_FLOAT] = "float?", [EIR_ST_FLOATS] = "float[]", [EIR_ST_OPT_FLOATS] = "float[]?",
        [EIR_ST_BOOL] = "bool", [EIR_ST_OPT_BOOL] = "bool?", [EIR_ST_BOOLS] = "bool[]",
        [EIR_ST_SCALAR] = "Scalar", [EIR_ST_OPT_SCALAR] = "Scalar?", [EIR_ST_STR] = "str",
        [EIR_ST_OPT_STR] = "str?", [EIR_ST_STRS] = "str[]", [EIR_ST_DTYPE] = "ScalarType",
        [EIR_ST_LAYOUT] = "Layout", [EIR_ST_MEMFMT] = "MemoryFormat", [EIR_ST_DEVICE] = "Device",
        [EIR_ST_OPT_DEVICE] = "Device?", [EIR_ST_GENERATOR] = "Generator?", [EIR_ST_OTHER] = "(other)",
    };
    return t <= EIR_ST_OTHER ? names[t] : "?";
}

static bool is_list_kind(eir_arg_kind k) {
    return k == EIR_ARG_TENSORS || k == EIR_ARG_INTS || k == EIR_ARG_FLOATS || k == EIR_ARG_BOOLS ||
           k == EIR_ARG_STRINGS || k == EIR_ARG_SYM_INTS || k == EIR_ARG_SYM_FLOATS || k == EIR_ARG_SYM_BOOLS ||
           k == EIR_ARG_OPTIONAL_TENSORS;
}

static bool is_number_kind(eir_arg_kind k) {
    return k == EIR_ARG_INT || k == EIR_ARG_FLOAT || k == EIR_ARG_BOOL || k == EIR_ARG_SYM_INT ||
           k == EIR_ARG_SYM_FLOAT || k == EIR_ARG_SYM_BOOL || k == EIR_ARG_COMPLEX;
}

/* Whether an argument of kind k fits a schema argument of type t. A Tensor
 * slot takes a Python number too: torch records `x + 1` as
 * aten.add.Tensor(x, 1) (a wrapped number); Edge forbids that separately. */
static bool arg_fits(eir_schema_type t, const char *def, const eir_arg *a) {
    eir_arg_kind k = a->kind;
    bool none = k == EIR_ARG_NONE || (k == EIR_ARG_OPTIONAL_TENSOR && a->value == EIR_NO_VALUE);
    if (none) {
        switch (t) {
        case EIR_ST_OPT_TENSOR: case EIR_ST_OPT_TENSORS: case EIR_ST_OPT_INT: case EIR_ST_OPT_INTS:
        case EIR_ST_OPT_FLOAT: case EIR_ST_OPT_FLOATS: case EIR_ST_OPT_BOOL: case EIR_ST_OPT_SCALAR:
        case EIR_ST_OPT_STR: case EIR_ST_OPT_DEVICE: case EIR_ST_GENERATOR: case EIR_ST_OTHER:
        /* the table does not say whether a ScalarType / Layout / MemoryFormat is optional */
        case EIR_ST_DTYPE: case EIR_ST_LAYOUT: case EIR_ST_MEMFMT:
            return true;
        default:
            return def && !strcmp(def, "None");
        }
    }
    /* an empty list is written with whichever list kind the serializer picked */
    if (is_list_kind(k) && a->u.list.n == 0)
        return t == EIR_ST_TENSORS || t == EIR_ST_OPT_TENSORS || t == EIR_ST_INTS || t == EIR_ST_OPT_INTS ||
               t == EIR_ST_FLOATS || t == EIR_ST_OPT_FLOATS || t == EIR_ST_BOOLS || t == EIR_ST_STRS ||
               t == EIR_ST_OTHER;
    switch (t) {
    case EIR_ST_TENSOR: case EIR_ST_OPT_TENSOR:
        return k == EIR_ARG_TENSOR || k == EIR_ARG_OPTIONAL_TENSOR || is_number_kind(k);
    case EIR_ST_TENSORS: return k == EIR_ARG_TENSORS;
    case EIR_ST_OPT_TENSORS: return k == EIR_ARG_OPTIONAL_TENSORS || k == EIR_ARG_TENSORS;
    case EIR_ST_INT: case EIR_ST_OPT_INT: return k == EIR_ARG_INT || k == EIR_ARG_SYM_INT;
    /* int[1] takes a single int too (torch broadcasts it) */
    case EIR_ST_INTS: case EIR_ST_OPT_INTS:
        return k == EIR_ARG_INTS || k == EIR_ARG_SYM_INTS || k == EIR_ARG_INT || k == EIR_ARG_SYM_INT;
    case EIR_ST_FLOAT: case EIR_ST_OPT_FLOAT:
        return k == EIR_ARG_FLOAT || k == EIR_ARG_SYM_FLOAT || k == EIR_ARG_INT || k == EIR_ARG_SYM_INT;
    case EIR_ST_FLOATS: case EIR_ST_OPT_FLOATS: return k == EIR_ARG_FLOATS || k == EIR_ARG_INTS || k == EIR_ARG_SYM_FLOATS;
    case EIR_ST_BOOL: case EIR_ST_OPT_BOOL: return k == EIR_ARG_BOOL || k == EIR_ARG_SYM_BOOL;
    case EIR_ST_BOOLS: return k == EIR_ARG_BOOLS;
    case EIR_ST_SCALAR: case EIR_ST_OPT_SCALAR: return is_number_kind(k);
    case EIR_ST_STR: case EIR_ST_OPT_STR: return k == EIR_ARG_STRING;
    case EIR_ST_STRS: return k == EIR_ARG_STRINGS;
    case EIR_ST_DTYPE: return k == EIR_ARG_SCALAR_TYPE;
    case EIR_ST_LAYOUT: return k == EIR_ARG_LAYOUT;
    case EIR_ST_MEMFMT: return k == EIR_ARG_MEMORY_FORMAT;
    case EIR_ST_DEVICE: case EIR_ST_OPT_DEVICE: return k == EIR_ARG_DEVICE;
    case EIR_ST_GENERATOR: case EIR_ST_OTHER: return true;
    }
    return true;
}

/* The schema argument of each node input (-1 where there is none); checks
 * names, order, positional use of keyword-only arguments, kinds, and that
 * every argument without a default is given. */
static void check_args(vctx *c, const eir_graph *g, const eir_node *nd, const eir_op_schema *s, int32_t *map) {
    bool given[64] = {0};
    uint32_t next_pos = 0;
    int32_t last = -1;
    for (uint32_t i = 0; i < nd->num_inputs; i++) {
        const eir_named_arg *in = &nd->inputs[i];
        map[i] = -1;
        int32_t si = -1;
        if (in->name && in->name[0]) {
            for (uint32_t k = 0; k < s->nargs; k++)
                if (!strcmp(s->args[k].name, in->name)) si = (int32_t)k;
            if (si < 0) {
                eir_buf names;
                eir_buf_init(&names);
                for (uint32_t k = 0; k < s->nargs; k++) eir_buf_printf(&names, "%s%s", k ? ", " : "", s->args[k].name);
                viol(c, "arg.unknown", nd, in->name, "argument '%s' is not in the schema of %s (its arguments: %s)",
                     in->name, s->name, names.data ? names.data : "none");
                eir_buf_free(&names);
                continue;
            }
        } else {
            /* a positional argument written without its name (Edge programs) */
            if (next_pos >= s->nargs || s->args[next_pos].kwarg_only) {
                uint32_t npos = 0;
                while (npos < s->nargs && !s->args[npos].kwarg_only) npos++;
                viol(c, "arg.count", nd, NULL, "positional argument %u is one too many: %s takes %u positional "
                     "argument%s", i, s->name, npos, npos == 1 ? "" : "s");
                continue;
            }
            si = (int32_t)next_pos;
        }
        const eir_schema_arg *sa = &s->args[si];
        if (si < 64 && given[si]) {
            viol(c, "arg.duplicate", nd, sa->name, "argument '%s' is given twice", sa->name);
            continue;
        }
        if (si < 64) given[si] = true;
        map[i] = si;
        if (in->kind == 1 && sa->kwarg_only)
            viol(c, "arg.kwarg-only", nd, sa->name, "argument '%s' is keyword-only in %s but is passed positionally",
                 sa->name, s->name);
        if (si < last)
            viol(c, "arg.order", nd, sa->name, "argument '%s' comes after '%s'; the schema of %s has it before",
                 sa->name, s->args[last].name, s->name);
        else last = si;
        next_pos = (uint32_t)si + 1;
        if (!arg_fits(sa->type, sa->def, &in->arg)) {
            bool none = in->arg.kind == EIR_ARG_NONE ||
                        (in->arg.kind == EIR_ARG_OPTIONAL_TENSOR && in->arg.value == EIR_NO_VALUE);
            if (none)
                viol(c, "arg.none", nd, sa->name, "argument '%s' is None but its type %s is not optional", sa->name,
                     schema_type_name(sa->type));
            else
                viol(c, "arg.kind", nd, sa->name, "argument '%s' is %s, expected %s", sa->name,
                     eir_arg_kind_name(in->arg.kind), schema_type_name(sa->type));
        } else if (c->dialect == EIR_DIALECT_EDGE && (sa->type == EIR_ST_TENSOR || sa->type == EIR_ST_OPT_TENSOR) &&
                   is_number_kind(in->arg.kind)) {
            viol(c, "edge.scalar", nd, sa->name, "argument '%s' is the number %s where the schema wants a Tensor; "
                 "Edge programs pass scalars as tensors (to_edge lifts them into tensor constants)", sa->name,
                 eir_arg_kind_name(in->arg.kind));
        }
        /* a tensor slot must get a tensor value, not a symbolic int or object */
        const eir_value *v = in->arg.kind == EIR_ARG_TENSOR ? value_of(g, &in->arg) : NULL;
        if (v && v->kind != EIR_VALUE_TENSOR && v->kind != EIR_VALUE_UNTYPED)
            viol(c, "meta.missing", nd, sa->name, "argument '%s' names %%%s, which has no tensor metadata", sa->name,
                 v->name);
    }
    for (uint32_t k = 0; k < s->nargs && k < 64; k++)
        if (!given[k] && !s->args[k].def)
            viol(c, "arg.missing", nd, s->args[k].name, "argument '%s' (%s) is missing; it has no default",
                 s->args[k].name, schema_type_name(s->args[k].type));
}

/* The node's outputs against the schema's returns. */
static void check_outputs(vctx *c, const eir_graph *g, const eir_node *nd, const eir_op_schema *s) {
    if (s->nreturns == 0) {
        if (nd->num_outputs > 1 || (nd->num_outputs == 1 && nd->outputs[0].kind != EIR_ARG_NONE))
            viol(c, "out.count", nd, NULL, "has %u outputs; %s returns nothing", nd->num_outputs, s->name);
        return;
    }
    if (nd->num_outputs != s->nreturns) {
        viol(c, "out.count", nd, NULL, "has %u output%s; %s returns %u", nd->num_outputs,
             nd->num_outputs == 1 ? "" : "s", s->name, s->nreturns);
        return;
    }
    for (uint32_t i = 0; i < nd->num_outputs; i++) {
        const eir_arg *o = &nd->outputs[i];
        const eir_value *v = value_of(g, o);
        if (o->kind == EIR_ARG_TENSOR && v && v->kind == EIR_VALUE_TENSOR && v->meta.dtype == EIR_DTYPE_UNKNOWN)
            viol(c, "meta.missing", nd, o->name, "output %u (%%%s) has no dtype in its tensor metadata", i, v->name);
        /* torch writes as_none only for outputs that are None; an ATen op with one return returns a value */
        if (o->kind == EIR_ARG_NONE && s->nreturns == 1)
            viol(c, "meta.missing", nd, NULL, "output %u is None: no value, and no metadata, for what %s returns", i,
                 s->name);
    }
}

/* ---- dialects ---- */

static eir_dtype arg_dtype(const eir_graph *g, const eir_arg *a, bool *present) {
    *present = false;
    if (a->kind == EIR_ARG_TENSOR || a->kind == EIR_ARG_OPTIONAL_TENSOR) {
        const eir_value *v = value_of(g, a);
        if (v && v->kind == EIR_VALUE_TENSOR) { *present = true; return v->meta.dtype; }
    } else if ((a->kind == EIR_ARG_TENSORS || a->kind == EIR_ARG_OPTIONAL_TENSORS) && a->u.list.n) {
        return arg_dtype(g, &a->u.list.items[0], present);
    }
    return EIR_DTYPE_UNKNOWN;
}

/* edge.yaml: the tensor arguments' and returns' dtypes must form one of the
 * operator's allowed rows; arguments sharing a type alias within a row must
 * share the dtype (ExecuTorch's EdgeOpArgValidator and
 * FunctionDtypeConstraint.validate). */
static void check_edge_dtypes(vctx *c, const eir_graph *g, const eir_node *nd, const eir_op_schema *s,
                              const int32_t *map, const eir_edge_op *e) {
    eir_dtype dt[32];
    bool have[32] = {0};
    uint32_t nc = e->ncols < 32 ? e->ncols : 32;
    for (uint32_t k = 0; k < nc; k++) {
        dt[k] = EIR_DTYPE_UNKNOWN;
        if (e->col_ret[k] >= 0) {
            uint32_t oi = (uint32_t)e->col_ret[k];
            if (oi < nd->num_outputs) dt[k] = arg_dtype(g, &nd->outputs[oi], &have[k]);
            continue;
        }
        for (uint32_t i = 0; i < nd->num_inputs; i++)
            if (map[i] >= 0 && !strcmp(s->args[map[i]].name, e->cols[k]))
                dt[k] = arg_dtype(g, &nd->inputs[i].arg, &have[k]);
    }
    for (uint32_t r = 0; r < e->nrows; r++) {
        eir_dtype chosen[255];
        for (int a = 0; a < 255; a++) chosen[a] = EIR_DTYPE_UNKNOWN;
        bool ok = true;
        for (uint32_t k = 0; k < nc && ok; k++) {
            if (!have[k]) continue;
            uint8_t al = e->rows[r * e->ncols + k];
            if (al == 255 || (unsigned)dt[k] >= 64 || !((e->alias[al] >> dt[k]) & 1)) { ok = false; break; }
            if (chosen[al] != EIR_DTYPE_UNKNOWN && chosen[al] != dt[k]) ok = false;
            chosen[al] = dt[k];
        }
        if (ok) return;
    }
    eir_buf b;
    eir_buf_init(&b);
    for (uint32_t k = 0; k < nc; k++) {
        if (!have[k]) continue;
        const char *ab = eir_dtype_name(dt[k]);
        eir_buf_printf(&b, "%s%s: %s", b.len ? ", " : "", e->cols[k], ab ? ab : "?");
    }
    viol(c, "edge.dtype", nd, NULL, "the dtypes (%s) are not one of the combinations edge.yaml allows for %s",
         b.data ? b.data : "", e->name);
    eir_buf_free(&b);
}

static bool is_functional(const eir_op_schema *s) {
    return !(s->flags & (EIR_OPF_INPLACE | EIR_OPF_OUT)) && !eir_op_mutates_args(s);
}

/* an ATen op: exists, its dialect's rules, its arguments */
static void check_aten(vctx *c, const eir_graph *g, const eir_node *nd, const char *name, bool edge_op) {
    const eir_op_schema *s = eir_op_find(name);
    if (!s) {
        viol(c, "op.unknown", nd, NULL, "%s is not an ATen operator of torch 2.13", name);
        return;
    }
    if (c->dialect != EIR_DIALECT_ATEN && !is_functional(s))
        viol(c, "op.functional", nd, NULL, "%s is not functional (%s); the %s dialect allows only functional "
             "operators", name, s->flags & EIR_OPF_INPLACE ? "it writes its input in place"
             : s->flags & EIR_OPF_OUT ? "it is an out= variant" : "its schema writes an argument, Tensor(a!)",
             c->dialect == EIR_DIALECT_CORE ? "Core ATen" : "Edge");
    bool extra = in_list(name, CORE_EXTRA, EIR_ARRAY_LEN(CORE_EXTRA));
    if (c->dialect == EIR_DIALECT_CORE && !(s->flags & EIR_OPF_CORE) && !extra)
        viol(c, "core.not-core", nd, NULL, "%s is not in the Core ATen opset of torch 2.13%s", name,
             s->flags & EIR_OPF_DECOMP ? " (ep.run_decompositions() rewrites it)" : "");
    if (c->dialect == EIR_DIALECT_EDGE) {
        if (!edge_op && !extra)
            viol(c, "edge.not-edge-op", nd, NULL, "%s is not an Edge operator (to_edge() wraps every ATen "
                 "operator as executorch.exir.dialects.edge._ops.%s)", name, name);
        if (edge_op && !(s->flags & EIR_OPF_CORE) && !extra && !eir_edge_is_view_copy(name) &&
            !in_list(name, EDGE_EXCEPTIONS, EIR_ARRAY_LEN(EDGE_EXCEPTIONS)))
            viol(c, "edge.not-core", nd, NULL, "%s is neither a Core ATen operator nor a view_copy one; Edge "
                 "allows only those", name);
        if (edge_op && in_list(name, EDGE_DIM_ORDER, EIR_ARRAY_LEN(EDGE_DIM_ORDER)))
            viol(c, "edge.dim-order", nd, NULL, "%s is not used in dim-order mode (ExecuTorch's default): "
                 "dim_order_ops replace it", name);
    }
    int32_t stackmap[64];
    int32_t *map = nd->num_inputs <= 64 ? stackmap : malloc(nd->num_inputs * sizeof *map);
    if (!map) { c->r->oom = true; return; }
    check_args(c, g, nd, s, map);
    check_outputs(c, g, nd, s);
    if (c->dialect == EIR_DIALECT_EDGE) {
        const eir_edge_op *e = eir_edge_op_find(name);
        if (e) check_edge_dtypes(c, g, nd, s, map, e);
    }
    if (map != stackmap) free(map);
}

/* ---- the Backend dialect's operators (src/ops/backend_ops.c) ---- */

/* a literal size of tensor argument `arg` (or output 0 when arg is NULL) at dim d; -1: symbolic or absent */
static int64_t lit_dim(const eir_value *v, uint32_t d) {
    if (!v || v->kind != EIR_VALUE_TENSOR || d >= v->meta.rank || v->meta.sizes[d].is_expr) return -1;
    return v->meta.sizes[d].value;
}

static const eir_value *named_tensor(const eir_graph *g, const eir_node *nd, const char *name) {
    for (uint32_t i = 0; i < nd->num_inputs; i++)
        if (nd->inputs[i].name && !strcmp(nd->inputs[i].name, name) && nd->inputs[i].arg.kind == EIR_ARG_TENSOR)
            return value_of(g, &nd->inputs[i].arg);
    return NULL;
}

static int64_t named_int(const eir_node *nd, const char *name) {
    for (uint32_t i = 0; i < nd->num_inputs; i++)
        if (nd->inputs[i].name && !strcmp(nd->inputs[i].name, name) && nd->inputs[i].arg.kind == EIR_ARG_INT)
            return nd->inputs[i].arg.u.i;
    return -1;
}

/* The blocked layout (docs/IR.md): a float32 (N, C, H, W) kept as (N, ceil(C / B), H, W, B).
 * to_blocked: input 4-d, result blocked by `block`; from_blocked: input 5-d, result 4-d with
 * `channels` channels; conv2d_blocked: input 4-d or blocked, weight 4-d, residual and result
 * blocked by `block` with the weight's output channels. Sizes compared where literal. */
static void check_blocked(vctx *c, const eir_graph *g, const eir_node *nd, const char *name, bool conv, bool to) {
    const eir_value *x = named_tensor(g, nd, "input"), *y = nd->num_outputs ? value_of(g, &nd->outputs[0]) : NULL;
    const eir_value *w = conv ? named_tensor(g, nd, "weight") : NULL, *r = conv ? named_tensor(g, nd, "residual") : NULL;
    int64_t B = to || conv ? named_int(nd, "block") : lit_dim(x, 4);
    if ((to || conv) && B < 1) {
        viol(c, "backend.block", nd, "block", "block must be a positive int");
        return;
    }
    uint32_t xr = to ? 4 : conv ? 0 : 5, yr = to || conv ? 5 : 4;
    if (x && x->kind == EIR_VALUE_TENSOR && (xr ? x->meta.rank != xr : x->meta.rank != 4 && x->meta.rank != 5)) {
        viol(c, "backend.rank", nd, "input", "argument 'input' (%%%s) has %u dims, expected %s", x->name, x->meta.rank,
             xr == 4 ? "4" : xr == 5 ? "5 (blocked)" : "4 or 5 (blocked)");
        return;
    }
    if (y && y->kind == EIR_VALUE_TENSOR && y->meta.rank != yr) {
        viol(c, "backend.rank", nd, NULL, "output 0 (%%%s) has %u dims, expected %u", y->name, y->meta.rank, yr);
        return;
    }
    if (conv && w && w->kind == EIR_VALUE_TENSOR && w->meta.rank != 4) {
        viol(c, "backend.rank", nd, "weight", "argument 'weight' (%%%s) has %u dims, expected 4", w->name, w->meta.rank);
        return;
    }
    if (!x || !y || x->kind != EIR_VALUE_TENSOR || y->kind != EIR_VALUE_TENSOR) return;
    /* channels C of the NCHW side, blocks of the blocked side */
    int64_t C = to ? lit_dim(x, 1) : conv ? lit_dim(w, 0) : named_int(nd, "channels");
    const eir_value *bv = to || conv ? y : x, *nv = to ? x : y;
    int64_t want[5] = {lit_dim(nv, 0), C >= 0 && B > 0 ? (C + B - 1) / B : -1, lit_dim(nv, 2), lit_dim(nv, 3), B};
    if (conv) want[0] = lit_dim(x, 0), want[2] = want[3] = -1;
    for (uint32_t d = 0; d < 5; d++) {
        int64_t have = lit_dim(bv, d);
        if (have >= 0 && want[d] >= 0 && have != want[d]) {
            viol(c, "backend.blocked", nd, NULL, "%%%s should be [N, ceil(C / B), H, W, B] = [%lld, %lld, %lld, %lld, "
                 "%lld]; dim %u is %lld", bv->name, (long long)want[0], (long long)want[1], (long long)want[2],
                 (long long)want[3], (long long)want[4], d, (long long)have);
            return;
        }
    }
    if (!to && !conv && lit_dim(y, 1) >= 0 && C >= 0 && lit_dim(y, 1) != C)
        viol(c, "backend.blocked", nd, "channels", "output has %lld channels, 'channels' is %lld",
             (long long)lit_dim(y, 1), (long long)C);
    /* input channels: the weight's per group times groups (depthwise: groups == C) */
    int64_t grp = conv ? named_int(nd, "groups") : 1, wc = lit_dim(w, 1) >= 0 && grp > 0 ? lit_dim(w, 1) * grp : -1;
    if (conv && x->meta.rank == 5 && lit_dim(x, 1) >= 0 && lit_dim(x, 4) > 0 && wc >= 0 &&
        lit_dim(x, 1) != (wc + lit_dim(x, 4) - 1) / lit_dim(x, 4))
        viol(c, "backend.blocked", nd, "input", "input has %lld blocks of %lld, the weight %lld input channels",
             (long long)lit_dim(x, 1), (long long)lit_dim(x, 4), (long long)wc);
    if (conv && r && r->kind == EIR_VALUE_TENSOR) {
        bool same = r->meta.rank == 5;
        for (uint32_t d = 0; same && d < 5; d++)
            same = lit_dim(r, d) < 0 || lit_dim(y, d) < 0 || lit_dim(r, d) == lit_dim(y, d);
        if (!same) viol(c, "backend.blocked", nd, "residual", "residual (%%%s) is not blocked like the result", r->name);
    }
    (void)name;
}

/* max_pool2d_blocked: a float32 blocked input (5-d), the result blocked alike: the same
 * images, blocks and block, literal sizes compared */
static void check_pool_blocked(vctx *c, const eir_graph *g, const eir_node *nd) {
    const eir_value *x = named_tensor(g, nd, "input"), *y = nd->num_outputs ? value_of(g, &nd->outputs[0]) : NULL;
    for (int k = 0; k < 2; k++) {
        const eir_value *v = k ? y : x;
        if (!v || v->kind != EIR_VALUE_TENSOR) continue;
        if (v->meta.dtype != EIR_F32)
            viol(c, "backend.dtype", nd, k ? NULL : "input", "%s (%%%s) is %s; eir_cpu.max_pool2d_blocked.default runs "
                 "on float32 tensors", k ? "output 0" : "argument 'input'", v->name,
                 eir_dtype_name(v->meta.dtype) ? eir_dtype_name(v->meta.dtype) : "?");
        if (v->meta.rank != 5) {
            viol(c, "backend.rank", nd, k ? NULL : "input", "%s (%%%s) has %u dims, expected 5 (blocked)",
                 k ? "output 0" : "argument 'input'", v->name, v->meta.rank);
            return;
        }
    }
    if (!x || !y || x->kind != EIR_VALUE_TENSOR || y->kind != EIR_VALUE_TENSOR) return;
    static const uint32_t dims[3] = {0, 1, 4};
    for (int i = 0; i < 3; i++) {
        int64_t a = lit_dim(x, dims[i]), b = lit_dim(y, dims[i]);
        if (a >= 0 && b >= 0 && a != b) {
            viol(c, "backend.blocked", nd, NULL, "%%%s is not blocked like the input %%%s: dim %u is %lld, the "
                 "input's %lld", y->name, x->name, dims[i], (long long)b, (long long)a);
            return;
        }
    }
}

/* eir_cpu.linear_packed: where the sizes are literal, the packed weight (P, K, W) multiplies the
 * input's K and its panels hold out_features columns, (P - 1) W < out_features <= P W, the result's
 * last size */
static void check_packed(vctx *c, const eir_graph *g, const eir_node *nd) {
    const eir_value *x = NULL, *w = NULL, *y = nd->num_outputs ? value_of(g, &nd->outputs[0]) : NULL;
    int64_t n = -1;
    for (uint32_t i = 0; i < nd->num_inputs; i++) {
        const char *an = nd->inputs[i].name;
        const eir_arg *a = &nd->inputs[i].arg;
        if (!an) continue;
        if (!strcmp(an, "input")) x = value_of(g, a);
        else if (!strcmp(an, "packed_weight")) w = value_of(g, a);
        else if (!strcmp(an, "out_features") && a->kind == EIR_ARG_INT) n = a->u.i;
    }
    if (!w || w->kind != EIR_VALUE_TENSOR || w->meta.rank != 3) return;
    const eir_symint *ws = w->meta.sizes;
    if (ws[0].is_expr || ws[1].is_expr || ws[2].is_expr) return;
    int64_t P = ws[0].value, K = ws[1].value, W = ws[2].value;
    if (n >= 0 && (W < 1 || n <= (P - 1) * W || n > P * W))
        viol(c, "backend.packed", nd, "out_features", "out_features %lld does not fill the last of %lld panels of "
             "%lld columns", (long long)n, (long long)P, (long long)W);
    if (x && x->kind == EIR_VALUE_TENSOR && x->meta.rank >= 1 && !x->meta.sizes[x->meta.rank - 1].is_expr &&
        x->meta.sizes[x->meta.rank - 1].value != K)
        viol(c, "backend.packed", nd, "input", "input's last size %lld is not the packed weight's K (%lld)",
             (long long)x->meta.sizes[x->meta.rank - 1].value, (long long)K);
    if (n >= 0 && y && y->kind == EIR_VALUE_TENSOR && y->meta.rank >= 1 && !y->meta.sizes[y->meta.rank - 1].is_expr &&
        y->meta.sizes[y->meta.rank - 1].value != n)
        viol(c, "backend.packed", nd, NULL, "output %%%s's last size %lld is not out_features (%lld)", y->name,
             (long long)y->meta.sizes[y->meta.rank - 1].value, (long long)n);
}

static void check_backend(vctx *c, const eir_graph *g, const eir_node *nd, const char *name) {
    const eir_op_schema *s = eir_backend_op_find(name);
    if (!s) {
        viol(c, "backend.unknown", nd, NULL, "%s is not an operator of the Backend dialect (eir_cpu.attention.default, "
             "eir_cpu.conv2d.default, eir_cpu.conv2d_blocked.default, eir_cpu.from_blocked.default, "
             "eir_cpu.linear.default, eir_cpu.linear_packed.default, eir_cpu.lstm.default, "
             "eir_cpu.max_pool2d.default, eir_cpu.max_pool2d_blocked.default, "
             "eir_cpu.to_blocked.default)", name);
        return;
    }
    int32_t map[64];
    if (nd->num_inputs > 64) {
        viol(c, "arg.count", nd, NULL, "%u arguments; %s takes %u", nd->num_inputs, name, s->nargs);
        return;
    }
    check_args(c, g, nd, s, map);
    check_outputs(c, g, nd, s);
    bool conv = !strcmp(name, "eir_cpu.conv2d.default"), cblk = !strcmp(name, "eir_cpu.conv2d_blocked.default");
    bool tob = !strcmp(name, "eir_cpu.to_blocked.default"), fromb = !strcmp(name, "eir_cpu.from_blocked.default");
    if (!strcmp(name, "eir_cpu.max_pool2d_blocked.default")) {
        check_pool_blocked(c, g, nd);
        return;
    }
    if (!strcmp(name, "eir_cpu.max_pool2d.default")) {  /* aten.max_pool2d's arguments, a float32 tensor */
        const eir_value *x = nd->num_inputs ? value_of(g, &nd->inputs[0].arg) : NULL;
        const eir_value *y = nd->num_outputs ? value_of(g, &nd->outputs[0]) : NULL;
        for (int k = 0; k < 2; k++) {
            const eir_value *v = k ? y : x;
            if (v && v->kind == EIR_VALUE_TENSOR && v->meta.dtype != EIR_F32)
                viol(c, "backend.dtype", nd, k ? NULL : "input", "%s (%%%s) is %s; %s runs on float32 tensors",
                     k ? "the result" : "argument 'input'", v->name,
                     eir_dtype_name(v->meta.dtype) ? eir_dtype_name(v->meta.dtype) : "?", name);
        }
        return;
    }
    if (cblk || tob || fromb) {
        check_blocked(c, g, nd, name, cblk, tob);
        if (!cblk) return;
    }
    if (!strcmp(name, "eir_cpu.linear_packed.default")) check_packed(c, g, nd);
    const char *act = "none";
    bool has_lo = false, has_hi = false;
    for (uint32_t i = 0; i < nd->num_inputs; i++) {
        if (map[i] < 0) continue;
        const eir_schema_arg *sa = &s->args[map[i]];
        const eir_arg *a = &nd->inputs[i].arg;
        if (a->kind == EIR_ARG_TENSOR) {
            const eir_value *v = value_of(g, a);
            uint32_t want = !strcmp(sa->name, "bias") ? 1 : cblk ? 0 : conv ? 4 : !strcmp(sa->name, "weight") ? 2
                            : !strcmp(sa->name, "packed_weight") ? 3 : 0;
            if (v && v->kind == EIR_VALUE_TENSOR && v->meta.dtype != EIR_F32)
                viol(c, "backend.dtype", nd, sa->name, "argument '%s' (%%%s) is %s; %s runs on float32 tensors",
                     sa->name, v->name, eir_dtype_name(v->meta.dtype) ? eir_dtype_name(v->meta.dtype) : "?", name);
            else if (v && v->kind == EIR_VALUE_TENSOR && want && v->meta.rank != want)
                viol(c, "backend.rank", nd, sa->name, "argument '%s' (%%%s) has %u dims, expected %u", sa->name,
                     v->name, v->meta.rank, want);
        } else if (!strcmp(sa->name, "activation") && a->kind == EIR_ARG_STRING) {
            act = a->u.s ? a->u.s : "";
            if (eir_backend_activation(act) < 0)
                viol(c, "backend.activation", nd, sa->name, "activation '%s' is not one of none, relu, hardtanh, "
                     "silu, hardswish", act);
        } else if (!strcmp(sa->name, "min")) has_lo = a->kind != EIR_ARG_NONE;
        else if (!strcmp(sa->name, "max")) has_hi = a->kind != EIR_ARG_NONE;
        else if (a->kind == EIR_ARG_INTS && (a->u.list.n < 1 || a->u.list.n > 2))
            viol(c, "backend.arg", nd, sa->name, "argument '%s' has %u ints, expected 1 or 2", sa->name, a->u.list.n);
    }
    if (!strcmp(act, "hardtanh") && (!has_lo || !has_hi))
        viol(c, "backend.activation", nd, has_lo ? "max" : "min", "activation 'hardtanh' needs min and max");
    else if (strcmp(act, "hardtanh") && (has_lo || has_hi))
        viol(c, "backend.activation", nd, has_lo ? "min" : "max", "min and max go with activation 'hardtanh' only, "
             "not '%s'", act);
    for (uint32_t i = 0; i < nd->num_outputs; i++) {
        const eir_value *v = value_of(g, &nd->outputs[i]);
        if (v && v->kind == EIR_VALUE_TENSOR && v->meta.dtype != EIR_F32)
            viol(c, "backend.dtype", nd, NULL, "output %u (%%%s) is %s; %s makes float32 tensors", i, v->name,
                 eir_dtype_name(v->meta.dtype) ? eir_dtype_name(v->meta.dtype) : "?", name);
    }
}

/* ---- higher-order operators ---- */

static uint32_t list_len(const eir_arg *a) { return is_list_kind(a->kind) ? a->u.list.n : 1; }

static void verify_graph(vctx *c, const eir_graph *g);

static const eir_arg *hop_graph(vctx *c, const eir_node *nd, uint32_t i, const char *role) {
    if (i >= nd->num_inputs || nd->inputs[i].arg.kind != EIR_ARG_GRAPH || !nd->inputs[i].arg.u.graph.graph) {
        viol(c, "hop.args", nd, role, "operand %u should be the %s subgraph", i, role);
        return NULL;
    }
    return &nd->inputs[i].arg;
}

static void want_inputs(vctx *c, const eir_node *nd, const eir_arg *ga, uint32_t want, const char *why) {
    if (ga && ga->u.graph.graph->num_inputs != want)
        viol(c, "hop.subgraph", nd, ga->u.graph.name, "subgraph %s takes %u input%s, expected %u (%s)",
             ga->u.graph.name, ga->u.graph.graph->num_inputs, ga->u.graph.graph->num_inputs == 1 ? "" : "s", want,
             why);
}

static void want_outputs(vctx *c, const eir_node *nd, const eir_arg *ga, uint32_t want, const char *why) {
    if (ga && ga->u.graph.graph->num_outputs != want)
        viol(c, "hop.subgraph", nd, ga->u.graph.name, "subgraph %s returns %u value%s, expected %u (%s)",
             ga->u.graph.name, ga->u.graph.graph->num_outputs, ga->u.graph.graph->num_outputs == 1 ? "" : "s", want,
             why);
}

static uint32_t operand_count(vctx *c, const eir_node *nd, uint32_t i, const char *role) {
    if (i >= nd->num_inputs) {
        viol(c, "hop.args", nd, role, "operand %u (%s) is missing", i, role);
        return 0;
    }
    return list_len(&nd->inputs[i].arg);
}

/* cond's predicate: a bool tensor of one element, a bool or a SymBool (torch.cond) */
static void check_pred(vctx *c, const eir_graph *g, const eir_node *nd) {
    if (nd->num_inputs == 0) return;
    const eir_arg *a = &nd->inputs[0].arg;
    if (a->kind == EIR_ARG_BOOL || a->kind == EIR_ARG_SYM_BOOL) return;
    const eir_value *v = a->kind == EIR_ARG_TENSOR ? value_of(g, a) : NULL;
    if (v && v->kind == EIR_VALUE_TENSOR) {
        bool one = true;
        for (uint32_t d = 0; d < v->meta.rank; d++)
            if (v->meta.sizes[d].is_expr || v->meta.sizes[d].value != 1) one = false;
        if (v->meta.dtype == EIR_BOOL && one) return;
        viol(c, "hop.args", nd, "pred", "the predicate %%%s is a %s tensor of rank %u; cond takes a bool tensor of "
             "one element, a bool or a SymBool", v->name, eir_dtype_name(v->meta.dtype) ? eir_dtype_name(v->meta.dtype)
             : "?", v->meta.rank);
        return;
    }
    if (v && v->kind == EIR_VALUE_SYM_BOOL) return;
    viol(c, "hop.args", nd, "pred", "the predicate is %s; cond takes a bool tensor of one element, a bool or a SymBool",
         eir_arg_kind_name(a->kind));
}

/* The operand layouts of torch 2.13's control-flow operators. */
static void check_hop(vctx *c, const eir_graph *g, const eir_node *nd, const char *hop) {
    if (!in_list(hop, HOPS, EIR_ARRAY_LEN(HOPS))) {
        viol(c, "op.unknown", nd, NULL, "higher_order.%s is not a higher-order operator of torch 2.13", hop);
        return;
    }
    if (!strcmp(hop, "cond")) {
        check_pred(c, g, nd);
        const eir_arg *t = hop_graph(c, nd, 1, "true branch"), *f = hop_graph(c, nd, 2, "false branch");
        uint32_t n = operand_count(c, nd, 3, "operands");
        want_inputs(c, nd, t, n, "one per operand");
        want_inputs(c, nd, f, n, "one per operand");
        want_outputs(c, nd, t, nd->num_outputs, "one per output of the cond");
        want_outputs(c, nd, f, nd->num_outputs, "one per output of the cond");
    } else if (!strcmp(hop, "while_loop")) {
        const eir_arg *cf = hop_graph(c, nd, 0, "cond_fn"), *bf = hop_graph(c, nd, 1, "body_fn");
        uint32_t nc = operand_count(c, nd, 2, "carried_inputs"), na = operand_count(c, nd, 3, "additional_inputs");
        want_inputs(c, nd, cf, nc + na, "the carried and additional inputs");
        want_inputs(c, nd, bf, nc + na, "the carried and additional inputs");
        want_outputs(c, nd, cf, 1, "the loop condition");
        want_outputs(c, nd, bf, nc, "one per carried input");
    } else if (!strcmp(hop, "map_impl")) {
        const eir_arg *f = hop_graph(c, nd, 0, "body");
        uint32_t nx = operand_count(c, nd, 1, "xs"), np = operand_count(c, nd, 2, "pos_args");
        want_inputs(c, nd, f, nx + np, "the mapped and the other operands");
        want_outputs(c, nd, f, nd->num_outputs, "one per output of the map");
    } else if (!strcmp(hop, "scan")) {
        const eir_arg *f = hop_graph(c, nd, 0, "combine_fn");
        uint32_t ni = operand_count(c, nd, 1, "init"), nx = operand_count(c, nd, 2, "xs"),
                 na = operand_count(c, nd, 3, "additional_inputs");
        want_inputs(c, nd, f, ni + nx + na, "the carries, the scanned slices and the additional inputs");
        want_outputs(c, nd, f, nd->num_outputs, "the carries and one per output of the scan");
    }
}

/* ---- graphs ---- */

static void check_node(vctx *c, const eir_graph *g, const eir_node *nd) {
    const char *t = nd->target;
    if (!strncmp(t, EDGE_PREFIX, strlen(EDGE_PREFIX))) {
        const char *name = t + strlen(EDGE_PREFIX);
        if (c->dialect != EIR_DIALECT_EDGE)
            viol(c, "op.edge-in-aten", nd, NULL, "is an Edge operator; the %s dialect calls ATen operators "
                 "(torch.ops.%s)", c->dialect == EIR_DIALECT_CORE ? "Core ATen" : "ATen", name);
        if (!strncmp(name, "aten.", 5)) check_aten(c, g, nd, name, true);
        return;
    }
    if (!strncmp(t, "torch.ops.", 10)) {
        const char *name = t + 10;
        const char *dot = strchr(name, '.');
        if (!dot || !strchr(dot + 1, '.')) {
            if (!strncmp(name, "higher_order.", 13)) check_hop(c, g, nd, name + 13);
            else viol(c, "op.target", nd, NULL, "target '%s' is not torch.ops.<namespace>.<op>.<overload>", t);
            return;
        }
        if (!strncmp(name, "higher_order.", 13)) {
            viol(c, "op.unknown", nd, NULL, "%s is not a higher-order operator of torch 2.13", name);
            return;
        }
        if (!strncmp(name, "aten.", 5)) {
            check_aten(c, g, nd, name, false);
            return;
        }
        if (c->backend && !strncmp(name, "eir_cpu.", 8)) {
            check_backend(c, g, nd, name);
            return;
        }
        /* a custom operator (namespace other than aten): no schema here to check it against */
        if (c->dialect == EIR_DIALECT_EDGE && strncmp(name, "prims.", 6))
            viol(c, "edge.not-edge-op", nd, NULL, "%s is not an Edge operator (to_edge() wraps custom operators "
                 "as executorch.exir.dialects.edge._ops.%s)", name, name);
        return;
    }
    if (in_list(t, BUILTINS, EIR_ARRAY_LEN(BUILTINS))) {
        uint32_t want = in_list(t, UNARY_BUILTINS, EIR_ARRAY_LEN(UNARY_BUILTINS)) ? 1 : 2;
        if (!strcmp(t, "builtins.round")) want = nd->num_inputs == 2 ? 2 : 1;
        if (nd->num_inputs != want)
            viol(c, "arg.count", nd, NULL, "%s takes %u operand%s, got %u", t, want, want == 1 ? "" : "s",
                 nd->num_inputs);
        if (strcmp(t, "_operator.getitem"))
            for (uint32_t i = 0; i < nd->num_inputs; i++)
                if (nd->inputs[i].arg.kind == EIR_ARG_TENSOR || nd->inputs[i].arg.kind == EIR_ARG_TENSORS)
                    viol(c, "arg.kind", nd, NULL, "operand %u of %s is a tensor; Python operators in a graph act on "
                         "symbolic ints, floats and bools (tensor arithmetic is an ATen op)", i, t);
        return;
    }
    if (in_list(t, TORCH_FUNCTIONS, EIR_ARRAY_LEN(TORCH_FUNCTIONS))) return;
    viol(c, "op.not-allowed", nd, NULL, "'%s' is not an allowed operator: a graph calls ATen, higher-order or "
         "custom operators (torch.ops...), Python's operator/math builtins on symbolic values, and torch.sym_*", t);
}

/* ---- metadata: eir's inference (src/ops/meta.c) against what was recorded ---- */

static void check_meta(vctx *c, const eir_graph *g, const eir_node *nd) {
    if (!eir_meta_has(nd->target)) return;
    eir_meta_outcome outs[16];
    char err[512];
    int n = eir_meta_check_node(c->p, g, nd, c->meta_flags, outs, EIR_ARRAY_LEN(outs), err, sizeof err);
    if (n < 0) {
        viol(c, "meta.args", nd, NULL, "shape inference fails: %s", err);
        return;
    }
    for (int i = 0; i < n; i++) {
        const eir_meta_outcome *o = &outs[i];
        const char *what[4];
        uint32_t k = 0;
        if (o->dtype == EIR_MCMP_DIFFER) what[k++] = "dtype";
        if (o->sizes == EIR_MCMP_DIFFER) what[k++] = "sizes";
        if (o->strides == EIR_MCMP_DIFFER) what[k++] = "strides";
        if (o->offset == EIR_MCMP_DIFFER) what[k++] = "storage offset";
        if (!k) continue;
        char list[64] = "";
        for (uint32_t j = 0; j < k; j++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", j ? (j + 1 == k ? " and " : ", ") : "",
                     what[j]);
        viol(c, "meta.mismatch", nd, o->value, "output %u (%%%s): recorded %s, inferred %s (%s differ%s)", o->output,
             o->value ? o->value : "?", o->recorded, o->inferred, list, k == 1 && strcmp(what[0], "sizes") &&
             strcmp(what[0], "strides") ? "s" : "");
    }
}

static void verify_graph(vctx *c, const eir_graph *g) {
    eir_strmap names;
    eir_strmap_init(&names);
    eir_strmap values;
    eir_strmap_init(&values);
    for (uint32_t i = 0; i < g->num_values; i++)
        if (!eir_strmap_put(&values, g->values[i].name, i)) c->r->oom = true;
    for (uint32_t i = 0; i < g->num_nodes; i++) {
        const eir_node *nd = &g->nodes[i];
        if (nd->name) {
            uint32_t prev;
            if (eir_strmap_get(&names, nd->name, &prev)) {
                viol(c, "graph.name", nd, NULL, "the name '%s' is also the name of node %u; node names are unique",
                     nd->name, prev);
            } else {
                if (!eir_strmap_put(&names, nd->name, i)) c->r->oom = true;
                /* FX names values and nodes from one namespace: a single-output node is its value */
                uint32_t vi;
                if (eir_strmap_get(&values, nd->name, &vi) && g->values[vi].producer != (int32_t)i &&
                    g->values[vi].producer != -2)
                    viol(c, "graph.name", nd, NULL, "the name '%s' is already the name of %s", nd->name,
                         g->values[vi].producer == -1 ? "a graph input" : "another node's output");
            }
        }
        check_node(c, g, nd);
        check_meta(c, g, nd);
        for (uint32_t k = 0; k < nd->num_inputs; k++) {
            const eir_arg *a = &nd->inputs[k].arg;
            if (a->kind != EIR_ARG_GRAPH || !a->u.graph.graph) continue;
            const char *outer = c->graph;
            eir_buf path;
            eir_buf_init(&path);
            if (outer) eir_buf_printf(&path, "%s/", outer);
            eir_buf_puts(&path, a->u.graph.name ? a->u.graph.name : "?");
            char *pd = rdup(c->r, path.data ? path.data : "?");
            eir_buf_free(&path);
            c->graph = pd;
            uint32_t flags = c->meta_flags;
            c->meta_flags |= eir_meta_subgraph_flags(nd);
            verify_graph(c, a->u.graph.graph);
            c->meta_flags = flags;
            c->graph = outer;
        }
    }
    if (c->graph && g->num_outputs == 0)
        viol(c, "graph.output", NULL, c->graph, "subgraph %s returns nothing; a subgraph ends in one output node "
             "with at least one value", c->graph);
    eir_strmap_free(&names);
    eir_strmap_free(&values);
}

/* ---- the signature ---- */

static const char *arg_ref_name(const eir_arg *a) { return a->name ? a->name : "?"; }

static bool same_ref(const eir_arg *a, const eir_arg *b) {
    if (a->value != EIR_NO_VALUE || b->value != EIR_NO_VALUE) return a->value == b->value;
    return a->kind == b->kind;
}

static const eir_input_spec *input_by_target(const eir_program *p, eir_input_kind k, const char *target) {
    for (uint32_t i = 0; i < p->num_input_specs; i++)
        if (p->input_specs[i].kind == k && p->input_specs[i].target && target &&
            !strcmp(p->input_specs[i].target, target))
            return &p->input_specs[i];
    return NULL;
}

static void check_signature(vctx *c) {
    eir_program *p = c->p;
    const eir_graph *g = p->graph;
    char where[96];
    uint32_t tokens_in = 0, tokens_out = 0;
    for (uint32_t i = 0; i < p->num_input_specs; i++) {
        const eir_input_spec *s = &p->input_specs[i];
        snprintf(where, sizeof where, "input_specs[%u]", i);
        if (s->kind == EIR_IN_TOKEN) tokens_in++;
        if (i < g->num_inputs && s->kind != EIR_IN_CONSTANT_INPUT && s->kind != EIR_IN_CUSTOM_OBJ &&
            !same_ref(&s->arg, &g->inputs[i]))
            viol(c, "sig.input-order", NULL, where, "signature: input_specs[%u] describes %%%s but graph input %u "
                 "is %%%s; the specs follow the placeholders in order", i, arg_ref_name(&s->arg), i,
                 arg_ref_name(&g->inputs[i]));
        if (s->kind != EIR_IN_PARAMETER && s->kind != EIR_IN_BUFFER && s->kind != EIR_IN_CONSTANT_TENSOR) continue;
        const eir_tensor *t = s->target ? eir_program_find_tensor(p, s->target) : NULL;
        if (!t) continue;        /* the loader refuses a missing payload */
        if (s->kind == EIR_IN_PARAMETER && !t->is_param)
            viol(c, "sig.parameter", NULL, s->target, "signature: parameter '%s' (%%%s) is stored as a %s, not as "
                 "an nn.Parameter of the state dict", s->target, arg_ref_name(&s->arg),
                 t->is_constant ? "constant" : "buffer");
        if (s->kind == EIR_IN_BUFFER && s->persistent == 1 && t->is_constant)
            viol(c, "sig.buffer", NULL, s->target, "signature: buffer '%s' is persistent but is stored with the "
                 "constants, not in the state dict", s->target);
        if (s->kind == EIR_IN_BUFFER && s->persistent == 0 && !t->is_constant)
            viol(c, "sig.buffer", NULL, s->target, "signature: non-persistent buffer '%s' is in the state dict; it "
                 "should not be (non-persistent buffers are stored with the constants)", s->target);
        if (s->kind == EIR_IN_BUFFER && t->is_param)
            viol(c, "sig.buffer", NULL, s->target, "signature: buffer '%s' is stored as a parameter", s->target);
        if (s->kind == EIR_IN_CONSTANT_TENSOR && !t->is_constant)
            viol(c, "sig.constant", NULL, s->target, "signature: constant tensor '%s' is not in the constants "
                 "(it is stored in the state dict)", s->target);
        if (c->dialect == EIR_DIALECT_EDGE && !t->is_custom_obj && !t->use_pickle) {
            int64_t expect = 1;
            bool contiguous = true;
            for (uint32_t d = t->rank; d-- > 0;) {
                if (t->sizes[d] != 1 && t->strides[d] != expect) contiguous = false;
                expect *= t->sizes[d];
            }
            if (!contiguous)
                viol(c, "edge.contiguous", NULL, s->target, "signature: '%s' is not contiguous; tensors of an Edge "
                     "program are contiguous", s->target);
        }
    }
    /* outputs: tokens, then mutations, then user outputs (torch's order) */
    int phase = 0;
    for (uint32_t i = 0; i < p->num_output_specs; i++) {
        const eir_output_spec *s = &p->output_specs[i];
        snprintf(where, sizeof where, "output_specs[%u]", i);
        if (i < g->num_outputs && !same_ref(&s->arg, &g->outputs[i]))
            viol(c, "sig.output-order", NULL, where, "signature: output_specs[%u] describes %%%s but graph output "
                 "%u is %%%s; the specs follow the outputs in order", i, arg_ref_name(&s->arg), i,
                 arg_ref_name(&g->outputs[i]));
        bool mutation = s->kind == EIR_OUT_BUFFER_MUTATION || s->kind == EIR_OUT_PARAMETER_MUTATION ||
                        s->kind == EIR_OUT_USER_INPUT_MUTATION;
        int ph = s->kind == EIR_OUT_TOKEN ? 0 : mutation ? 1 : 2;
        if (s->kind == EIR_OUT_TOKEN) tokens_out++;
        if (ph < phase)
            viol(c, "sig.output-order", NULL, where, "signature: output_specs[%u] is a %s after %s; the outputs are "
                 "the effect tokens, then the mutated buffers and inputs, then the user outputs", i,
                 ph == 0 ? "token" : "mutation", phase == 2 ? "a user output" : "a mutation");
        else phase = ph;
        const eir_input_spec *in = NULL;
        const char *what = NULL;
        if (s->kind == EIR_OUT_BUFFER_MUTATION) {
            in = input_by_target(p, EIR_IN_BUFFER, s->target);
            what = "buffer";
        } else if (s->kind == EIR_OUT_PARAMETER_MUTATION) {
            in = input_by_target(p, EIR_IN_PARAMETER, s->target);
            what = "parameter";
        } else if (s->kind == EIR_OUT_USER_INPUT_MUTATION) {
            what = "user input";
            for (uint32_t k = 0; k < p->num_input_specs; k++)
                if (p->input_specs[k].kind == EIR_IN_USER_INPUT && s->target && p->input_specs[k].arg.name &&
                    !strcmp(p->input_specs[k].arg.name, s->target))
                    in = &p->input_specs[k];
        }
        if (!mutation) continue;
        if (!in) {
            viol(c, "sig.mutation", NULL, where, "signature: output_specs[%u] (%%%s) mutates %s '%s', which is not "
                 "one of the program's %ss", i, arg_ref_name(&s->arg), what, s->target ? s->target : "?",
                 what);
            continue;
        }
        for (uint32_t k = 0; k < i; k++)
            if (p->output_specs[k].kind == s->kind && p->output_specs[k].target && s->target &&
                !strcmp(p->output_specs[k].target, s->target))
                viol(c, "sig.mutation", NULL, where, "signature: %s '%s' is mutated by output_specs[%u] and again by "
                     "output_specs[%u]", what, s->target, k, i);
        const eir_value *ov = value_of(g, &s->arg), *iv = value_of(g, &in->arg);
        if (ov && iv && ov->kind == EIR_VALUE_TENSOR && iv->kind == EIR_VALUE_TENSOR) {
            bool same = ov->meta.dtype == iv->meta.dtype && ov->meta.rank == iv->meta.rank;
            for (uint32_t d = 0; same && d < ov->meta.rank; d++)
                if (!ov->meta.sizes[d].is_expr && !iv->meta.sizes[d].is_expr &&
                    ov->meta.sizes[d].value != iv->meta.sizes[d].value)
                    same = false;
            if (!same)
                viol(c, "sig.mutation", NULL, where, "signature: output_specs[%u] writes %%%s (%s, rank %u) into %s "
                     "'%s' (%%%s: %s, rank %u); a mutation keeps the dtype and shape", i, ov->name,
                     eir_dtype_name(ov->meta.dtype) ? eir_dtype_name(ov->meta.dtype) : "?", ov->meta.rank, what,
                     s->target, iv->name, eir_dtype_name(iv->meta.dtype) ? eir_dtype_name(iv->meta.dtype) : "?",
                     iv->meta.rank);
        }
    }
    if (tokens_in != tokens_out)
        viol(c, "sig.token", NULL, "tokens", "signature: %u input token%s but %u output token%s; every effect token "
             "taken is returned", tokens_in, tokens_in == 1 ? "" : "s", tokens_out, tokens_out == 1 ? "" : "s");
}

/* ---- the API ---- */

eir_status eir_program_verify(eir_program *p, eir_dialect d, eir_verify_report **out) {
    if (out) *out = NULL;
    if (!p || !out || (d != EIR_DIALECT_ATEN && d != EIR_DIALECT_CORE && d != EIR_DIALECT_EDGE &&
                       d != EIR_DIALECT_BACKEND)) {
        if (p) return eir_fail(p, EIR_ERR_ARG, "eir_program_verify: %s", !out ? "out is NULL" : "unknown dialect");
        return EIR_ERR_ARG;
    }
    if (!p->graph) return eir_fail(p, EIR_ERR_ARG, "eir_program_verify: the program has no graph (not loaded)");
    eir_verify_report *r = calloc(1, sizeof *r);
    if (!r) return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    eir_arena_init(&r->arena);
    vctx c = {p, d == EIR_DIALECT_BACKEND ? EIR_DIALECT_CORE : d, r, NULL, p->layout_made_up ? EIR_META_NO_LAYOUT : 0,
              d == EIR_DIALECT_BACKEND};
    verify_graph(&c, p->graph);
    check_signature(&c);
    if (r->oom) {
        eir_verify_report_free(r);
        return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    }
    *out = r;
    if (!r->n) return EIR_OK;
    return eir_fail(p, EIR_ERR_INVALID, "%u violation%s of the %s dialect; the first: %s", r->n, r->n == 1 ? "" : "s",
                    d == EIR_DIALECT_ATEN ? "ATen" : d == EIR_DIALECT_CORE ? "Core ATen" : d == EIR_DIALECT_EDGE ?
                    "Edge" : "Backend", r->v[0].message);
}

uint32_t eir_verify_num_violations(const eir_verify_report *r) { return r ? r->n : 0; }

const eir_violation *eir_verify_violation(const eir_verify_report *r, uint32_t i) {
    return r && i < r->n ? &r->v[i] : NULL;
}

void eir_verify_report_free(eir_verify_report *r) {
    if (!r) return;
    free(r->v);
    eir_arena_release(&r->arena);
    free(r);
}

static void put_json(eir_buf *b, const char *s) {
    if (!s) { eir_buf_puts(b, "null"); return; }
    eir_buf_putc(b, '"');
    for (const unsigned char *q = (const unsigned char *)s; *q; q++) {
        if (*q == '"' || *q == '\\') { eir_buf_putc(b, '\\'); eir_buf_putc(b, (char)*q); }
        else if (*q == '\n') eir_buf_puts(b, "\\n");
        else if (*q == '\t') eir_buf_puts(b, "\\t");
        else if (*q < 0x20) eir_buf_printf(b, "\\u%04x", *q);
        else eir_buf_putc(b, (char)*q);
    }
    eir_buf_putc(b, '"');
}

eir_status eir_verify_report_format(const eir_verify_report *r, bool json, char **out) {
    if (!out) return EIR_ERR_ARG;
    *out = NULL;
    if (!r) return EIR_ERR_ARG;
    eir_buf b;
    eir_buf_init(&b);
    if (json) {
        eir_buf_puts(&b, "{\"violations\": [");
        for (uint32_t i = 0; i < r->n; i++) {
            const eir_violation *v = &r->v[i];
            eir_buf_puts(&b, i ? ",\n  {\"rule\": " : "\n  {\"rule\": ");
            put_json(&b, v->rule);
            eir_buf_puts(&b, ", \"graph\": ");
            put_json(&b, v->graph);
            eir_buf_puts(&b, ", \"node\": ");
            put_json(&b, v->node);
            eir_buf_puts(&b, ", \"target\": ");
            put_json(&b, v->target);
            eir_buf_puts(&b, ", \"arg\": ");
            put_json(&b, v->arg);
            eir_buf_puts(&b, ", \"source\": ");
            put_json(&b, v->source);
            eir_buf_puts(&b, ", \"message\": ");
            put_json(&b, v->message);
            eir_buf_putc(&b, '}');
        }
        eir_buf_puts(&b, r->n ? "\n]}\n" : "]}\n");
    } else {
        for (uint32_t i = 0; i < r->n; i++) {
            eir_buf_puts(&b, r->v[i].message);
            eir_buf_putc(&b, '\n');
        }
    }
    if (b.oom) { eir_buf_free(&b); return EIR_ERR_NOMEM; }
    if (!b.data) {
        *out = calloc(1, 1);
        return *out ? EIR_OK : EIR_ERR_NOMEM;
    }
    *out = eir_buf_take(&b);
    return *out ? EIR_OK : EIR_ERR_NOMEM;
}

bool eir_dialect_parse(const char *name, eir_dialect *out) {
    if (!name || !out) return false;
    if (!strcmp(name, "aten")) *out = EIR_DIALECT_ATEN;
    else if (!strcmp(name, "core")) *out = EIR_DIALECT_CORE;
    else if (!strcmp(name, "edge")) *out = EIR_DIALECT_EDGE;
    else if (!strcmp(name, "backend")) *out = EIR_DIALECT_BACKEND;
    else return false;
    return true;
}
