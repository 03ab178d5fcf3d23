/* to_edge.c — lowering a Core ATen program to ExecuTorch's Edge dialect: the
 * pass `to-edge`, what executorch.exir.to_edge(ep) (ExecuTorch 1.5.1,
 * exir/program/_program.py _generate_edge_program) does to the root graph:
 *
 *   1. remove_unused_parameters_pass: parameters no node reads leave.
 *   2. RemoveNonCoreAtenOpGraphAssertsPass: aten._assert_tensor_metadata
 *      calls leave.
 *   3. ReplaceViewOpsWithViewCopyOpsPass, NormalizeTransposePass: a view
 *      overload with a view_copy counterpart (aten.permute.default ->
 *      aten.permute_copy.default) calls the copy instead.
 *   4. ScalarToTensorPass: a Python number where the schema wants a Tensor
 *      becomes a 0-d tensor constant as torch.tensor() makes it (int64,
 *      float32 or bool).
 *   5. RemoveNoopPass, RemoveToCopyPass: slice_copy that keeps its input's
 *      static shape, and _to_copy that keeps dtype, shape and strides, leave
 *      (their uses read the input).
 *   6. RemoveMixedTypeOperators: add/mul/sub/div.Tensor, div.Tensor_mode and
 *      minimum whose tensor operands differ from the promoted dtype
 *      (torch's elementwise_dtypes: dimensioned tensors before 0-d ones)
 *      get an _to_copy of those operands to it.
 *   7. OpReplacePass: every OpOverload (ATen or custom) except the symbolic
 *      ones and aten._assert_scalar, aten._assert_async.msg and
 *      aten.scalar_tensor calls executorch.exir.dialects.edge._ops.<op>.
 *   8. MemoryFormatOpsPass: _to_copy, clone and empty.memory_format call
 *      dim_order_ops._to_dim_order_copy / _clone_dim_order /
 *      _empty_dim_order, memory_format replaced by dim_order (the input's
 *      dim order for preserve_format).
 *   9. lift_constant_tensor_pass: the constants of step 4 become persistent
 *      buffers `_lifted_tensor_constant<N>` (N counts the buffers), placed
 *      before the first user input.
 *  10. a retrace writes each mutated user input back: aten.copy(input,
 *      value) at the end, named by the USER_INPUT_MUTATION output.
 *  11. dead code elimination, and the names a retrace gives: each converted
 *      call is named after its operator (`aten_add_tensor`,
 *      `dim_order_ops__to_dim_order_copy_default`, FX's snake case and
 *      `_1`, `_2` suffixes), each output of a multi-output call `getitem`.
 *
 * Steps 2-8 and 11 apply to the nested graphs of cond, map_impl, while_loop
 * and scan too, as to_edge()'s retrace lowers them; their subgraphs are
 * named submodule_0, submodule_1, ... per graph, as the retrace names them,
 * and a number in a body becomes aten.scalar_tensor in the body (see
 * body_scalar).
 *
 * A program that is not Core ATen is first lowered by the pass `to-core`
 * when the pass table has one; otherwise it is refused with the list of the
 * non-core calls. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes.h"
#include "../ir/edit.h"
#include "../ir/verify.h"
#include "../ops/optable.h"

#define EDGE_OPS "executorch.exir.dialects.edge._ops."
#define TORCH_OPS "torch.ops."

typedef struct te_ctx {
    eir_program *p;
    eir_graph *g;
    uint32_t changed;
    uint32_t nconst;             /* constants lifted so far */
    uint32_t nbuffers;           /* buffers of the signature before lifting */
    uint32_t nlocal;             /* constants made in the nested graph being lowered */
} te_ctx;

/* ---- small facts ---- */

/* Sets every argument naming a value to that value's current name. */
static void sync_arg(const eir_graph *g, eir_arg *a) {
    if (eir_arg_names_value(a)) {
        if (a->value < g->num_values) a->name = g->values[a->value].name;
    } else if (eir_arg_kind_is_list(a->kind))
        for (uint32_t i = 0; i < a->u.list.n; i++) sync_arg(g, &a->u.list.items[i]);
}

static void sync_names(eir_program *p, eir_graph *g) {
    for (uint32_t i = 0; i < g->num_inputs; i++) sync_arg(g, (eir_arg *)&g->inputs[i]);
    for (uint32_t i = 0; i < g->num_outputs; i++) sync_arg(g, (eir_arg *)&g->outputs[i]);
    for (uint32_t n = 0; n < g->num_nodes; n++) {
        const eir_node *nd = &g->nodes[n];
        for (uint32_t i = 0; i < nd->num_inputs; i++) sync_arg(g, (eir_arg *)&nd->inputs[i].arg);
        for (uint32_t i = 0; i < nd->num_outputs; i++) sync_arg(g, (eir_arg *)&nd->outputs[i]);
    }
    if (g != p->graph) return;
    for (uint32_t i = 0; i < p->num_input_specs; i++) sync_arg(g, &p->input_specs[i].arg);
    for (uint32_t i = 0; i < p->num_output_specs; i++) sync_arg(g, &p->output_specs[i].arg);
}

/* "torch.ops.aten.add.Tensor" -> "aten.add.Tensor"; NULL for other targets. */
static const char *op_name(const char *target) {
    return strncmp(target, TORCH_OPS, strlen(TORCH_OPS)) ? NULL : target + strlen(TORCH_OPS);
}

static bool is_op(const eir_node *nd, const char *name) {
    const char *o = op_name(nd->target);
    return o && !strcmp(o, name);
}

static bool static_sizes(const eir_tensor_meta *m) {
    for (uint32_t d = 0; d < m->rank; d++)
        if (m->sizes[d].is_expr) return false;
    return true;
}

static const eir_value *tensor_value(const eir_graph *g, const eir_arg *a) {
    if ((a->kind != EIR_ARG_TENSOR && a->kind != EIR_ARG_OPTIONAL_TENSOR) || a->value == EIR_NO_VALUE ||
        a->value >= g->num_values || g->values[a->value].kind != EIR_VALUE_TENSOR)
        return NULL;
    return &g->values[a->value];
}

/* The single tensor a node defines (its first output), or NULL. */
static const eir_value *single_output(const eir_graph *g, const eir_node *nd) {
    if (nd->num_outputs != 1) return NULL;
    return tensor_value(g, &nd->outputs[0]);
}

static const eir_named_arg *find_input(const eir_node *nd, const char *name) {
    for (uint32_t i = 0; i < nd->num_inputs; i++)
        if (nd->inputs[i].name && !strcmp(nd->inputs[i].name, name) && nd->inputs[i].kind) return &nd->inputs[i];
    return NULL;
}

/* ---- dtype promotion (torch.result_type of tensors only) ---- */

static int dtype_category(eir_dtype d) {
    switch (d) {
    case EIR_BOOL: return 0;
    case EIR_U8: case EIR_I8: case EIR_I16: case EIR_I32: case EIR_I64: case EIR_U16: case EIR_U32: case EIR_U64:
        return 1;
    case EIR_F16: case EIR_F32: case EIR_F64: case EIR_BF16: return 2;
    case EIR_C32: case EIR_C64: case EIR_C128: return 3;
    default: return -1;
    }
}

static int dtype_width(eir_dtype d) {
    switch (d) {
    case EIR_BOOL: case EIR_U8: case EIR_I8: return 1;
    case EIR_I16: case EIR_F16: case EIR_BF16: case EIR_U16: return 2;
    case EIR_I32: case EIR_F32: case EIR_C32: case EIR_U32: return 4;
    default: return 8;
    }
}

static eir_dtype promote2(eir_dtype a, eir_dtype b) {
    if (a == EIR_DTYPE_UNKNOWN) return b;
    if (b == EIR_DTYPE_UNKNOWN || a == b) return a;
    int ca = dtype_category(a), cb = dtype_category(b);
    if (ca != cb) return ca > cb ? a : b;
    if (ca == 1) {
        if ((a == EIR_U8 && b == EIR_I8) || (a == EIR_I8 && b == EIR_U8)) return EIR_I16;
        if (a == EIR_U8) return b;
        if (b == EIR_U8) return a;
    }
    if (ca == 2 && ((a == EIR_F16 && b == EIR_BF16) || (a == EIR_BF16 && b == EIR_F16))) return EIR_F32;
    return dtype_width(a) >= dtype_width(b) ? a : b;
}

/* c10's combine_categories: the dimensioned result keeps its dtype unless
 * the 0-d operands are of a higher category. */
static eir_dtype combine_categories(eir_dtype higher, eir_dtype lower) {
    if (higher == EIR_DTYPE_UNKNOWN) return lower;
    int ch = dtype_category(higher), cl = dtype_category(lower);
    if (ch >= 2) return higher;
    if (higher == EIR_BOOL || cl >= 2) return promote2(higher, lower);
    return higher;
}

/* ---- editing helpers ---- */

static eir_status nomem(te_ctx *c) { return eir_fail(c->p, EIR_ERR_NOMEM, "out of memory"); }

/* A 0-d tensor constant from a Python number, lifted as ExecuTorch lifts it:
 * a persistent buffer `_lifted_tensor_constant<N>` placed before the first
 * user input. *value_out receives its placeholder's value. */
static eir_status lift_scalar(te_ctx *c, const eir_arg *num, uint32_t *value_out) {
    eir_program *p = c->p;
    union { int64_t i; float f; bool b; } data;
    eir_dtype dt;
    if (num->kind == EIR_ARG_INT) dt = EIR_I64, data.i = num->u.i;
    else if (num->kind == EIR_ARG_FLOAT) dt = EIR_F32, data.f = (float)num->u.f;
    else dt = EIR_BOOL, data.b = num->u.b;
    char fqn[64];
    snprintf(fqn, sizeof fqn, "_lifted_tensor_constant%u", c->nbuffers + c->nconst);
    uint32_t v;
    eir_status st = eir_program_add_state(p, EIR_IN_BUFFER, fqn, dt, 0, NULL, &data, true, &v);
    if (st != EIR_OK) return st;
    c->nconst++;
    eir_graph *g = c->g = p->graph;
    eir_value *vals = (eir_value *)g->values;
    const eir_tensor *t = eir_program_find_tensor(p, fqn);
    if (!t) return eir_fail(p, EIR_ERR_GRAPH, "to-edge: the constant %s was not stored", fqn);
    vals[v].name = t->fqn;       /* the placeholder is named as its target */
    /* move its input (and spec) to just before the first user input */
    uint32_t at = EIR_NO_VALUE, to = EIR_NO_VALUE;
    for (uint32_t i = 0; i < g->num_inputs && i < p->num_input_specs; i++) {
        if (g->inputs[i].value == v && g->inputs[i].kind == EIR_ARG_TENSOR) at = i;
        if (to == EIR_NO_VALUE && p->input_specs[i].kind == EIR_IN_USER_INPUT) to = i;
    }
    if (at == EIR_NO_VALUE) return eir_fail(p, EIR_ERR_GRAPH, "to-edge: the constant %s has no graph input", fqn);
    if (to == EIR_NO_VALUE) to = g->num_inputs;
    if (to > at) to--;           /* the position once it is taken out */
    eir_arg *ins = (eir_arg *)g->inputs;
    eir_arg in = ins[at];
    eir_input_spec spec = p->input_specs[at];
    if (to > at) {
        memmove(&ins[at], &ins[at + 1], (to - at) * sizeof *ins);
        memmove(&p->input_specs[at], &p->input_specs[at + 1], (to - at) * sizeof *p->input_specs);
    } else if (to < at) {
        memmove(&ins[to + 1], &ins[to], (at - to) * sizeof *ins);
        memmove(&p->input_specs[to + 1], &p->input_specs[to], (at - to) * sizeof *p->input_specs);
    }
    in.name = vals[v].name;
    spec.arg.name = vals[v].name;
    ins[to] = in;
    p->input_specs[to] = spec;
    *value_out = v;
    return EIR_OK;
}

/* Insert, before node pos, `_to_copy(src, dtype=dt)` with node pos's
 * metadata; *out receives its result, a contiguous tensor of src's sizes. */
static eir_status insert_cast(te_ctx *c, uint32_t pos, uint32_t src, eir_dtype dt, uint32_t *out) {
    eir_program *p = c->p;
    eir_graph *g = c->g;
    eir_tensor_meta m = g->values[src].meta;
    uint32_t r = m.rank;
    eir_symint *st = eir_arena_array(&p->arena, r ? r : 1, sizeof *st);
    if (!st) return nomem(c);
    eir_symint stride = {0};
    stride.value = 1;
    for (uint32_t d = r; d-- > 0;) {
        st[d] = stride;
        if (m.sizes[d].is_expr || stride.is_expr) {
            /* a symbolic stride: only the trailing ones stay concrete here */
            st[d] = m.strides[d];
            stride = m.sizes[d];
        } else
            stride.value *= m.sizes[d].value ? m.sizes[d].value : 1;
    }
    m.strides = st;
    m.dtype = dt;
    m.requires_grad = false;
    m.storage_offset = (eir_symint){0};
    uint32_t v = eir_graph_add_value(p, g, EIR_VALUE_TENSOR, &m, "_to_copy");
    if (v == EIR_NO_VALUE) return EIR_ERR_NOMEM;
    eir_named_arg ins[2];
    memset(ins, 0, sizeof ins);
    ins[0].name = "self";
    ins[0].kind = 1;
    ins[0].arg.kind = EIR_ARG_TENSOR;
    ins[0].arg.value = src;
    ins[0].arg.name = g->values[src].name;
    ins[1].name = "dtype";
    ins[1].kind = 2;
    ins[1].arg.kind = EIR_ARG_SCALAR_TYPE;
    ins[1].arg.u.i = dt;
    eir_arg o = {0};
    o.kind = EIR_ARG_TENSOR;
    o.value = v;
    o.name = g->values[v].name;
    eir_status s = eir_graph_insert_node(p, g, pos, "torch.ops.aten._to_copy.default", 2, ins, 1, &o, NULL);
    if (s != EIR_OK) return s;
    /* ExportPass gives a call it inserts the metadata of the call it is at */
    const eir_node *user = &g->nodes[pos + 1];
    eir_node *cast = (eir_node *)&g->nodes[pos];
    for (uint32_t i = 0; i < user->num_metadata; i++)
        if ((s = eir_node_set_metadata(p, cast, user->metadata[i].key, user->metadata[i].value)) != EIR_OK) return s;
    *out = v;
    return EIR_OK;
}

/* In a nested graph, a Python number where the schema wants a Tensor
 * becomes `aten.scalar_tensor(number, dtype=...)` in front of node *n, named
 * `_tensor_constant<k>` (k counts per graph). ExecuTorch's retrace makes it
 * a tensor attribute of the submodule read by get_attr, which the .pt2
 * schema cannot hold (torch.export.save refuses "getattr nodes containing
 * tensors"); scalar_tensor computes the same 0-d tensor inside the body and
 * is one of the plain ATen operators Edge programs keep. */
static eir_status body_scalar(te_ctx *c, uint32_t *n, const eir_arg *num, uint32_t *value_out) {
    eir_program *p = c->p;
    eir_graph *g = c->g;
    eir_dtype dt = num->kind == EIR_ARG_INT ? EIR_I64 : num->kind == EIR_ARG_FLOAT ? EIR_F32 : EIR_BOOL;
    eir_tensor_meta m = {0};
    m.dtype = dt;
    m.layout = EIR_LAYOUT_STRIDED;
    char name[64];
    snprintf(name, sizeof name, "_tensor_constant%u", c->nlocal++);
    uint32_t v = eir_graph_add_value(p, g, EIR_VALUE_TENSOR, &m, name);
    if (v == EIR_NO_VALUE) return EIR_ERR_NOMEM;
    eir_named_arg ins[2];
    memset(ins, 0, sizeof ins);
    ins[0].name = "s";
    ins[0].kind = 1;
    ins[0].arg = *num;
    ins[0].arg.name = NULL;
    ins[1].name = "dtype";
    ins[1].kind = 2;
    ins[1].arg.kind = EIR_ARG_SCALAR_TYPE;
    ins[1].arg.u.i = dt;
    eir_arg o = {0};
    o.kind = EIR_ARG_TENSOR;
    o.value = v;
    o.name = g->values[v].name;
    eir_status st = eir_graph_insert_node(p, g, *n, TORCH_OPS "aten.scalar_tensor.default", 2, ins, 1, &o, NULL);
    if (st != EIR_OK) return st;
    /* the metadata of the call it is made for, as ExportPass gives it */
    const eir_node *user = &g->nodes[*n + 1];
    eir_node *sc = (eir_node *)&g->nodes[*n];
    for (uint32_t i = 0; i < user->num_metadata; i++)
        if ((st = eir_node_set_metadata(p, sc, user->metadata[i].key, user->metadata[i].value)) != EIR_OK) return st;
    (*n)++;
    *value_out = v;
    return EIR_OK;
}

/* Each argument of the given schema type that is a number becomes a 0-d
 * tensor (ScalarToTensorPass): lifted in the root graph, computed by
 * scalar_tensor in a nested one. Node *n moves past the calls inserted. */
static eir_status scalars_to_tensors(te_ctx *c, uint32_t *n, const eir_op_schema *s) {
    bool root = c->g == c->p->graph;
    for (uint32_t i = 0; i < c->g->nodes[*n].num_inputs; i++) {
        eir_named_arg *na = (eir_named_arg *)&c->g->nodes[*n].inputs[i];
        if (!na->kind || !na->name) continue;
        const eir_schema_arg *sa = NULL;
        for (uint32_t k = 0; k < s->nargs; k++)
            if (!strcmp(s->args[k].name, na->name)) sa = &s->args[k];
        if (!sa || sa->type != EIR_ST_TENSOR) continue;
        eir_arg_kind k = na->arg.kind;
        if (k != EIR_ARG_INT && k != EIR_ARG_FLOAT && k != EIR_ARG_BOOL) continue;
        uint32_t v = EIR_NO_VALUE;
        eir_arg num = na->arg;
        eir_status st = root ? lift_scalar(c, &num, &v) : body_scalar(c, n, &num, &v);
        if (st != EIR_OK) return st;
        na = (eir_named_arg *)&c->g->nodes[*n].inputs[i];
        memset(&na->arg, 0, sizeof na->arg);
        na->arg.kind = EIR_ARG_TENSOR;
        na->arg.value = v;
        na->arg.name = c->g->values[v].name;
        c->changed++;
    }
    return EIR_OK;
}

/* RemoveMixedTypeOperators for node *n (which moves when casts go before it). */
static eir_status unmix_types(te_ctx *c, uint32_t *n, const char *name) {
    bool int_to_float;
    if (!strcmp(name, "aten.add.Tensor") || !strcmp(name, "aten.mul.Tensor") || !strcmp(name, "aten.sub.Tensor") ||
        !strcmp(name, "aten.minimum.default"))
        int_to_float = false;
    else if (!strcmp(name, "aten.div.Tensor"))
        int_to_float = true;
    else if (!strcmp(name, "aten.div.Tensor_mode")) {
        const eir_named_arg *rm = find_input(&c->g->nodes[*n], "rounding_mode");
        int_to_float = !rm || rm->arg.kind == EIR_ARG_NONE;
    } else
        return EIR_OK;
    const eir_node *nd = &c->g->nodes[*n];
    uint32_t npos = 0;
    eir_dtype dim = EIR_DTYPE_UNKNOWN, zero = EIR_DTYPE_UNKNOWN;
    for (uint32_t i = 0; i < nd->num_inputs; i++) {
        if (nd->inputs[i].kind == 1) npos++;
        const eir_value *v = tensor_value(c->g, &nd->inputs[i].arg);
        if (!v) continue;
        if (v->meta.rank) dim = promote2(dim, v->meta.dtype);
        else zero = promote2(zero, v->meta.dtype);
    }
    if (npos <= 1) return EIR_OK;
    eir_dtype to = combine_categories(dim, zero);
    if (int_to_float && dtype_category(to) < 2) to = EIR_F32;
    for (uint32_t i = 0; i < c->g->nodes[*n].num_inputs; i++) {
        const eir_named_arg *na = &c->g->nodes[*n].inputs[i];
        const eir_value *v = tensor_value(c->g, &na->arg);
        if (!v || na->arg.kind != EIR_ARG_TENSOR || v->meta.dtype == to) continue;
        uint32_t src = na->arg.value, cast = EIR_NO_VALUE;
        eir_status st = insert_cast(c, *n, src, to, &cast);
        if (st != EIR_OK) return st;
        (*n)++;
        eir_named_arg *w = (eir_named_arg *)&c->g->nodes[*n].inputs[i];
        w->arg.value = cast;
        w->arg.name = c->g->values[cast].name;
        c->changed++;
    }
    return EIR_OK;
}

/* Whether node n passes its input through (RemoveNoopPass on slice_copy,
 * RemoveToCopyPass on _to_copy); *src receives the input's value. */
static bool is_noop(const eir_graph *g, const eir_node *nd, uint32_t *src) {
    bool slice = is_op(nd, "aten.slice_copy.Tensor"), to = is_op(nd, "aten._to_copy.default");
    if ((!slice && !to) || !nd->num_inputs) return false;
    const eir_value *in = tensor_value(g, &nd->inputs[0].arg), *out = single_output(g, nd);
    if (!in || !out || in->meta.rank != out->meta.rank) return false;
    const eir_tensor_meta *a = &in->meta, *b = &out->meta;
    if (slice && (!static_sizes(a) || !static_sizes(b))) return false;
    for (uint32_t d = 0; d < a->rank; d++) {
        if (a->sizes[d].is_expr != b->sizes[d].is_expr) return false;
        if (a->sizes[d].is_expr ? a->sizes[d].expr != b->sizes[d].expr : a->sizes[d].value != b->sizes[d].value)
            return false;
        if (to) {
            if (!a->strides || !b->strides || a->strides[d].is_expr != b->strides[d].is_expr) return false;
            if (a->strides[d].is_expr ? a->strides[d].expr != b->strides[d].expr
                                      : a->strides[d].value != b->strides[d].value)
                return false;
        }
    }
    if (to && (a->dtype != b->dtype || strcmp(a->device.type ? a->device.type : "cpu",
                                              b->device.type ? b->device.type : "cpu")))
        return false;
    *src = nd->inputs[0].arg.value;
    return true;
}

/* torch's Tensor.dim_order(): dimensions from the outermost stride in. */
static uint32_t dim_order(const eir_tensor_meta *m, int64_t *out) {
    uint32_t r = m->rank;
    for (uint32_t d = 0; d < r; d++) out[d] = d;
    if (!m->strides) return r;
    for (uint32_t i = 1; i < r; i++) {   /* stable insertion sort, larger strides first */
        int64_t x = out[i];
        uint32_t j = i;
        while (j > 0 && !m->strides[x].is_expr && !m->strides[out[j - 1]].is_expr &&
               m->strides[out[j - 1]].value < m->strides[x].value) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = x;
    }
    return r;
}

/* MemoryFormatOpsPass: memory_format -> dim_order. Returns the new target
 * (without the Edge prefix) or NULL when the node is not one of its ops. */
static eir_status to_dim_order(te_ctx *c, uint32_t n, const char **target) {
    const eir_node *nd = &c->g->nodes[n];
    const char *o = op_name(nd->target);
    *target = NULL;
    if (!o) return EIR_OK;
    const char *t = !strcmp(o, "aten._to_copy.default") ? "dim_order_ops._to_dim_order_copy.default"
                    : !strcmp(o, "aten.clone.default")    ? "dim_order_ops._clone_dim_order.default"
                    : !strcmp(o, "aten.empty.memory_format") ? "dim_order_ops._empty_dim_order.default"
                                                              : NULL;
    if (!t) return EIR_OK;
    eir_program *p = c->p;
    int64_t fmt = EIR_MF_PRESERVE;
    uint32_t keep = 0;
    eir_named_arg *ins = eir_arena_array(&p->arena, nd->num_inputs + 1, sizeof *ins);
    if (!ins) return nomem(c);
    for (uint32_t i = 0; i < nd->num_inputs; i++) {
        if (nd->inputs[i].name && !strcmp(nd->inputs[i].name, "memory_format")) {
            if (nd->inputs[i].arg.kind == EIR_ARG_MEMORY_FORMAT) fmt = nd->inputs[i].arg.u.i;
            continue;
        }
        ins[keep++] = nd->inputs[i];
    }
    uint32_t rank;
    const eir_value *in = nd->num_inputs ? tensor_value(c->g, &nd->inputs[0].arg) : NULL;
    int64_t order[EIR_MAX_RANK > 64 ? EIR_MAX_RANK : 64];
    if (in) rank = in->meta.rank;
    else if (nd->num_inputs && nd->inputs[0].arg.kind == EIR_ARG_INTS) rank = nd->inputs[0].arg.u.list.n;
    else if (nd->num_inputs && nd->inputs[0].arg.kind == EIR_ARG_SYM_INTS) rank = nd->inputs[0].arg.u.list.n;
    else return eir_fail(p, EIR_ERR_GRAPH, "to-edge: node %s (%s): argument 'self' is not a tensor or a size list",
                         nd->name ? nd->name : "?", o);
    if (rank > 64) return eir_fail(p, EIR_ERR_GRAPH, "to-edge: node %s (%s): rank %u", nd->name ? nd->name : "?", o, rank);
    if ((fmt == EIR_MF_PRESERVE || fmt == EIR_MF_UNKNOWN) && in) dim_order(&in->meta, order);
    else if (fmt == EIR_MF_CHANNELS_LAST && rank == 4) order[0] = 0, order[1] = 2, order[2] = 3, order[3] = 1;
    else if (fmt == EIR_MF_CHANNELS_LAST_3D && rank == 5)
        order[0] = 0, order[1] = 2, order[2] = 3, order[3] = 4, order[4] = 1;
    else
        for (uint32_t d = 0; d < rank; d++) order[d] = d;
    eir_arg *items = eir_arena_array(&p->arena, rank ? rank : 1, sizeof *items);
    if (!items) return nomem(c);
    for (uint32_t d = 0; d < rank; d++) {
        memset(&items[d], 0, sizeof items[d]);
        items[d].kind = EIR_ARG_INT;
        items[d].u.i = order[d];
    }
    eir_named_arg *dn = &ins[keep++];
    memset(dn, 0, sizeof *dn);
    dn->name = "dim_order";
    dn->kind = 2;
    dn->arg.kind = EIR_ARG_INTS;
    dn->arg.u.list.n = rank;
    dn->arg.u.list.items = items;
    eir_node *w = (eir_node *)nd;
    w->inputs = ins;
    w->num_inputs = keep;
    *target = t;
    return EIR_OK;
}

/* FX's name for a call of an Edge operator: its qualified name in snake
 * case, dots as underscores ("aten.add.Tensor" -> "aten_add_tensor"). */
static void fx_name(const char *op, char *out, size_t cap) {
    size_t n = 0;
    bool prev_lower = false;
    for (const char *q = op; *q && n + 2 < cap; q++) {
        char ch = *q;
        bool upper = ch >= 'A' && ch <= 'Z';
        if (prev_lower && upper) out[n++] = '_';
        char lc = upper ? (char)(ch - 'A' + 'a') : ch;
        out[n++] = ((lc >= 'a' && lc <= 'z') || (lc >= '0' && lc <= '9') || lc == '_') ? lc : '_';
        prev_lower = ch >= 'a' && ch <= 'z';
    }
    out[n] = 0;
}

typedef struct namer {
    eir_program *p;
    eir_strmap taken;
} namer;

/* torch.fx's _Namespace.create_name: `base`, then `base_1`, `base_2`, ... */
static const char *fresh(namer *nm, const char *cand) {
    char base[256];
    snprintf(base, sizeof base, "%s", cand);
    size_t k = strlen(base);
    while (k > 0 && base[k - 1] >= '0' && base[k - 1] <= '9') k--;
    if (k < strlen(base) && k >= 2 && base[k - 1] == '_') base[k - 1] = 0;
    char buf[300];
    uint32_t dummy;
    snprintf(buf, sizeof buf, "%s", base);
    for (unsigned long i = 1; eir_strmap_get(&nm->taken, buf, &dummy); i++) snprintf(buf, sizeof buf, "%s_%lu", base, i);
    char *s = eir_arena_strdup(&nm->p->arena, buf);
    if (s && !eir_strmap_put(&nm->taken, s, 0)) return NULL;
    return s;
}

/* A constant body_scalar made (scalar_tensor named _tensor_constant<k>). */
static bool is_const_call(const eir_node *nd) {
    return is_op(nd, "aten.scalar_tensor.default") && nd->name && !strncmp(nd->name, "_tensor_constant", 16);
}

static eir_status rename_nodes(te_ctx *c) {
    eir_program *p = c->p;
    eir_graph *g = c->g;
    namer nm = {p, {0}};
    eir_strmap_init(&nm.taken);
    eir_status st = EIR_OK;
    for (uint32_t i = 0; i < g->num_inputs; i++)
        if (eir_arg_names_value(&g->inputs[i]) && !eir_strmap_put(&nm.taken, g->values[g->inputs[i].value].name, 0))
            st = nomem(c);
    /* a nested graph's constants keep the names of the tensor attributes
     * ExecuTorch gives them (body_scalar) */
    for (uint32_t n = 0; n < g->num_nodes && st == EIR_OK && g != p->graph; n++)
        if (is_const_call(&g->nodes[n]) && !eir_strmap_put(&nm.taken, g->nodes[n].name, 0)) st = nomem(c);
    eir_value *vals = (eir_value *)g->values;
    uint32_t nsub = 0;
    for (uint32_t n = 0; n < g->num_nodes && st == EIR_OK; n++) {
        eir_node *nd = (eir_node *)&g->nodes[n];
        /* the retrace's submodules: submodule_0, submodule_1, ... per graph */
        for (uint32_t i = 0; i < nd->num_inputs && st == EIR_OK; i++) {
            eir_arg *a = (eir_arg *)&nd->inputs[i].arg;
            if (a->kind != EIR_ARG_GRAPH) continue;
            char sub[64];
            snprintf(sub, sizeof sub, "submodule_%u", nsub++);
            char *nmv = eir_arena_strdup(&p->arena, sub);
            if (!nmv || !eir_strmap_put(&nm.taken, nmv, 0)) st = nomem(c);
            a->u.graph.name = nmv;
        }
        if (st != EIR_OK) break;
        if (g != p->graph && is_const_call(nd)) continue;
        char cand[256];
        if (!strncmp(nd->target, EDGE_OPS, strlen(EDGE_OPS))) fx_name(nd->target + strlen(EDGE_OPS), cand, sizeof cand);
        else if (op_name(nd->target)) {
            /* an OpOverload or higher-order operator: its name alone */
            const char *o = op_name(nd->target), *d1 = strchr(o, '.');
            const char *b = d1 ? d1 + 1 : o, *d2 = strchr(b, '.');
            snprintf(cand, sizeof cand, "%.*s", (int)(d2 ? (size_t)(d2 - b) : strlen(b)), b);
        } else {
            const char *d = strrchr(nd->target, '.');
            snprintf(cand, sizeof cand, "%s", d ? d + 1 : nd->target);
        }
        const char *name = fresh(&nm, cand);
        if (!name) { st = nomem(c); break; }
        nd->name = name;
        /* a higher-order call's results are read by getitem even when it
         * returns one value */
        bool hop = !strncmp(nd->target, TORCH_OPS "higher_order.", strlen(TORCH_OPS "higher_order."));
        if (nd->num_outputs == 1 && eir_arg_names_value(&nd->outputs[0]) && !hop) {
            vals[nd->outputs[0].value].name = name;
            continue;
        }
        for (uint32_t i = 0; i < nd->num_outputs && st == EIR_OK; i++) {
            const eir_arg *o = &nd->outputs[i];
            uint32_t cnt = eir_arg_kind_is_list(o->kind) ? o->u.list.n : 1;
            for (uint32_t j = 0; j < cnt; j++) {
                const eir_arg *a = eir_arg_kind_is_list(o->kind) ? &o->u.list.items[j] : o;
                if (!eir_arg_names_value(a)) continue;
                const char *gi;
                if (eir_graph_num_uses(g, a->value) || eir_arg_kind_is_list(o->kind))
                    gi = fresh(&nm, "getitem");
                else {
                    /* no getitem reads it: torch.export.save names it after the call */
                    char un[300];
                    snprintf(un, sizeof un, "%s_unused_%u", name, i);
                    gi = eir_arena_strdup(&p->arena, un);
                    vals[a->value].meta.requires_grad = false;
                }
                if (!gi) { st = nomem(c); break; }
                vals[a->value].name = gi;
            }
        }
    }
    eir_strmap_free(&nm.taken);
    if (st == EIR_OK) sync_names(p, g);
    return st;
}

/* The contiguous strides of m's sizes into st (a view_copy operator's
 * result). A symbolic stride is kept when it is a symbol times a constant;
 * beyond that the recorded strides stay. */
static eir_status contiguous_strides(eir_program *p, const eir_tensor_meta *m, eir_symint *st) {
    int64_t k = 1;
    uint32_t sym = EIR_NO_VALUE;
    eir_symint symsz = {0};
    for (uint32_t d = m->rank; d-- > 0;) {
        eir_symint s = {0};
        if (sym == EIR_NO_VALUE) s.value = k;
        else if (k == 1) s = symsz;
        else {
            eir_buf b;
            eir_buf_init(&b);
            eir_buf_printf(&b, "Mul(Integer(%lld), %s)", (long long)k, p->exprs[sym].srepr);
            uint32_t id = b.data ? eir_program_intern_expr(p, b.data, "to-edge") : EIR_NO_VALUE;
            eir_buf_free(&b);
            if (id == EIR_NO_VALUE) return EIR_ERR_NOMEM;
            s.is_expr = true;
            s.expr = id;
            s.has_hint = symsz.has_hint;
            s.value = symsz.value * k;
        }
        st[d] = s;
        const eir_symint *z = &m->sizes[d];
        if (!z->is_expr) k *= z->value ? z->value : 1;
        else if (sym == EIR_NO_VALUE && !strncmp(p->exprs[z->expr].srepr, "Symbol(", 7)) sym = z->expr, symsz = *z;
        else return EIR_ERR_ARG;         /* two symbols or an expression: keep the recorded strides */
    }
    return EIR_OK;
}

/* A view_copy call's results are contiguous tensors of the view's sizes. */
static eir_status contiguous_result(te_ctx *c, const eir_node *nd) {
    eir_value *vals = (eir_value *)c->g->values;
    for (uint32_t i = 0; i < nd->num_outputs; i++) {
        const eir_arg *a = &nd->outputs[i];
        if (a->kind != EIR_ARG_TENSOR || a->value == EIR_NO_VALUE || a->value >= c->g->num_values) continue;
        eir_tensor_meta *m = &vals[a->value].meta;
        if (!m->strides) continue;
        eir_symint *st = eir_arena_array(&c->p->arena, m->rank ? m->rank : 1, sizeof *st);
        if (!st) return nomem(c);
        eir_status s = contiguous_strides(c->p, m, st);
        if (s == EIR_ERR_NOMEM) return nomem(c);
        if (s != EIR_OK) continue;
        m->strides = st;
        m->storage_offset = (eir_symint){0};
    }
    return EIR_OK;
}

static bool float_dtype(eir_dtype d) { return dtype_category(d) >= 2; }

typedef struct rg_ctx { const eir_graph *g; bool any; } rg_ctx;
static void rg_arg(const eir_arg *a, rg_ctx *c) {
    if ((a->kind == EIR_ARG_TENSOR || a->kind == EIR_ARG_OPTIONAL_TENSOR) && a->value != EIR_NO_VALUE &&
        a->value < c->g->num_values)
        c->any |= c->g->values[a->value].meta.requires_grad;
    else if (eir_arg_kind_is_list(a->kind))
        for (uint32_t i = 0; i < a->u.list.n; i++) rg_arg(&a->u.list.items[i], c);
}

/* The metadata a retrace gives the results of Edge calls: view_copy results
 * are contiguous, and a floating result requires grad when an operand
 * does (parameters do). Positional arguments of Edge calls are written
 * without schema names, as torch.export.save writes calls of operators
 * that are not OpOverloads; an empty dim_order list as a tensor list. */
static eir_status finish_metadata(te_ctx *c) {
    eir_program *p = c->p;
    eir_graph *g = c->g;
    eir_value *vals = (eir_value *)g->values;
    for (uint32_t n = 0; n < g->num_nodes; n++) {
        eir_node *nd = (eir_node *)&g->nodes[n];
        if (strncmp(nd->target, EDGE_OPS, strlen(EDGE_OPS))) continue;
        rg_ctx rc = {g, false};
        for (uint32_t i = 0; i < nd->num_inputs; i++) rg_arg(&nd->inputs[i].arg, &rc);
        for (uint32_t i = 0; i < nd->num_outputs; i++) {
            const eir_arg *a = &nd->outputs[i];
            uint32_t cnt = eir_arg_kind_is_list(a->kind) ? a->u.list.n : 1;
            for (uint32_t j = 0; j < cnt; j++) {
                const eir_arg *x = eir_arg_kind_is_list(a->kind) ? &a->u.list.items[j] : a;
                if (x->kind != EIR_ARG_TENSOR || x->value == EIR_NO_VALUE || x->value >= g->num_values) continue;
                eir_tensor_meta *m = &vals[x->value].meta;
                bool unused = nd->num_outputs > 1 && !eir_arg_kind_is_list(a->kind) && !eir_graph_num_uses(g, x->value);
                m->requires_grad = rc.any && float_dtype(m->dtype) && !unused;
            }
        }
        eir_named_arg *ins = (eir_named_arg *)nd->inputs;
        for (uint32_t i = 0; i < nd->num_inputs; i++) {
            if (ins[i].kind == 1) ins[i].name = "";
            if (ins[i].name && !strcmp(ins[i].name, "dim_order") && ins[i].arg.kind == EIR_ARG_INTS &&
                !ins[i].arg.u.list.n)
                ins[i].arg.kind = EIR_ARG_TENSORS;
        }
    }
    static const char *const edge[] = {"EDGE"};
    p->verifiers = (const char **)edge;
    p->num_verifiers = 1;
    return EIR_OK;
}

/* ---- the dialect of the input ---- */

static eir_status require_core(eir_program *p) {
    eir_verify_report *r = NULL;
    eir_status st = eir_program_verify(p, EIR_DIALECT_CORE, &r);
    if (!r) return st == EIR_OK ? EIR_OK : eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    eir_buf b;
    eir_buf_init(&b);
    uint32_t bad = 0;
    for (uint32_t i = 0; i < eir_verify_num_violations(r); i++) {
        const eir_violation *v = eir_verify_violation(r, i);
        if (strcmp(v->rule, "core.not-core")) continue;
        if (bad < 8)
            eir_buf_printf(&b, "%s%s (%s)", bad ? ", " : "", v->node ? v->node : "?", v->target ? v->target : "?");
        bad++;
    }
    eir_verify_report_free(r);
    if (!bad) {
        eir_buf_free(&b);
        return EIR_OK;
    }
    const eir_pass *core = eir_pass_find("to-core");
    if (core) {
        eir_buf_free(&b);
        uint32_t n = 0;
        return core->run(p, &n);
    }
    st = eir_fail(p, EIR_ERR_INVALID,
                  "to-edge: the program is not Core ATen: %u call%s of non-core operators (%s%s); "
                  "lower it first (ep.run_decompositions())",
                  bad, bad == 1 ? "" : "s", b.data ? b.data : "", bad > 8 ? ", ..." : "");
    eir_buf_free(&b);
    return st;
}

/* ---- the pass ---- */

/* Calls fn(c, graph) for each nested graph node n of c->g holds, with c->g
 * set to it (and its own constant count) for the call. */
static eir_status each_subgraph(te_ctx *c, uint32_t n, eir_status (*fn)(te_ctx *c)) {
    eir_graph *g = c->g;
    uint32_t nlocal = c->nlocal;
    eir_status st = EIR_OK;
    for (uint32_t i = 0; i < g->nodes[n].num_inputs && st == EIR_OK; i++) {
        const eir_arg *a = &g->nodes[n].inputs[i].arg;
        if (a->kind != EIR_ARG_GRAPH || !a->u.graph.graph) continue;
        c->g = a->u.graph.graph;
        c->nlocal = 0;
        st = fn(c);
        c->g = g;
    }
    c->nlocal = nlocal;
    return st;
}

/* Steps 2-8 on c->g and, recursively, on the graphs its calls hold: to_edge()
 * retraces the bodies of cond, map_impl, while_loop and scan with the same
 * passes (their scalars are made in place, see body_scalar). */
static eir_status lower_graph(te_ctx *c) {
    eir_program *p = c->p;
    eir_status st;

    /* 2. tensor metadata assertions */
    {
        eir_graph *g = c->g;
        bool *erase = calloc(g->num_nodes ? g->num_nodes : 1, sizeof *erase);
        if (!erase) return nomem(c);
        uint32_t k = 0;
        for (uint32_t n = 0; n < g->num_nodes; n++)
            if (is_op(&g->nodes[n], "aten._assert_tensor_metadata.default")) erase[n] = true, k++;
        st = k ? eir_graph_erase_nodes(p, g, erase) : EIR_OK;
        free(erase);
        if (st != EIR_OK) return st;
        c->changed += k;
    }

    /* 3-6: per call, in graph order */
    for (uint32_t n = 0; n < c->g->num_nodes; n++) {
        eir_node *nd = (eir_node *)&c->g->nodes[n];
        const char *o = op_name(nd->target);
        if (o && !strncmp(o, "higher_order.", 13)) {
            if ((st = each_subgraph(c, n, lower_graph)) != EIR_OK) return st;
            continue;
        }
        if (!o) continue;
        const eir_op_schema *s = eir_op_find(o);
        /* views -> view_copy */
        if (s && (s->flags & EIR_OPF_VIEW)) {
            const char *ov = strrchr(o, '.');
            char cp[256];
            snprintf(cp, sizeof cp, "%.*s_copy%s", (int)(ov - o), o, ov);
            if (eir_edge_is_view_copy(cp)) {
                char t[300];
                snprintf(t, sizeof t, TORCH_OPS "%s", cp);
                if (!(nd->target = eir_arena_strdup(&p->arena, t))) return nomem(c);
                o = op_name(nd->target);
                s = eir_op_find(o);
                if ((st = contiguous_result(c, nd)) != EIR_OK) return st;
                c->changed++;
            }
        }
        if (!s) continue;
        if ((st = scalars_to_tensors(c, &n, s)) != EIR_OK) return st;
        nd = (eir_node *)&c->g->nodes[n];
        uint32_t src;
        if (is_noop(c->g, nd, &src)) {
            const eir_value *out = single_output(c->g, nd);
            uint32_t ov = (uint32_t)(out - c->g->values);
            if ((st = eir_graph_replace_uses(p, c->g, ov, src, NULL)) != EIR_OK) return st;
            c->changed++;
            continue;            /* dead now; DCE removes it */
        }
        if ((st = unmix_types(c, &n, o)) != EIR_OK) return st;
    }

    /* 7-8: Edge operators, dim order */
    for (uint32_t n = 0; n < c->g->num_nodes; n++) {
        eir_node *nd = (eir_node *)&c->g->nodes[n];
        const char *o = op_name(nd->target);
        if (!o || !strncmp(o, "higher_order.", 13)) continue;
        static const char *const keep[] = {
            "aten._assert_scalar.default", "aten._assert_async.msg", "aten.scalar_tensor.default",
            "aten.sym_size.int", "aten.sym_stride.int", "aten.sym_numel.default",
            "aten._local_scalar_dense.default", "aten.sym_constrain_range.default",
            "aten.sym_constrain_range_for_size.default", "aten.sym_storage_offset.default",
        };
        bool kept = false;
        for (size_t k = 0; k < sizeof keep / sizeof *keep; k++) kept |= !strcmp(o, keep[k]);
        /* an operator overload has a namespace, a name and an overload */
        const char *d1 = strchr(o, '.'), *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
        if (kept || !d2) continue;
        const char *dt;
        if ((st = to_dim_order(c, n, &dt)) != EIR_OK) return st;
        nd = (eir_node *)&c->g->nodes[n];
        char t[300];
        snprintf(t, sizeof t, EDGE_OPS "%s", dt ? dt : o);
        if (!(nd->target = eir_arena_strdup(&p->arena, t))) return nomem(c);
        c->changed++;
    }
    return EIR_OK;
}

/* The retrace's names and metadata on c->g and the graphs it holds. */
static eir_status finish_graph(te_ctx *c) {
    eir_status st;
    if ((st = rename_nodes(c)) != EIR_OK || (st = finish_metadata(c)) != EIR_OK) return st;
    for (uint32_t n = 0; n < c->g->num_nodes; n++)
        if ((st = each_subgraph(c, n, finish_graph)) != EIR_OK) return st;
    return EIR_OK;
}

eir_status eir_pass_to_edge(eir_program *p, uint32_t *changed) {
    if (!p) return EIR_ERR_ARG;
    if (changed) *changed = 0;
    eir_status st = require_core(p);
    if (st != EIR_OK) return st;
    te_ctx c = {p, p->graph, 0, 0, 0, 0};

    /* 1. unused parameters */
    for (uint32_t i = p->num_input_specs; i-- > 0;) {
        if (p->input_specs[i].kind != EIR_IN_PARAMETER || i >= c.g->num_inputs) continue;
        const eir_arg *a = &c.g->inputs[i];
        if (!eir_arg_names_value(a) || eir_graph_num_uses(c.g, a->value)) continue;
        if ((st = eir_program_drop_input(p, i)) != EIR_OK) return st;
        c.changed++;
    }
    for (uint32_t i = 0; i < p->num_input_specs; i++) c.nbuffers += p->input_specs[i].kind == EIR_IN_BUFFER;

    /* 2-8 */
    if ((st = lower_graph(&c)) != EIR_OK) return st;
    c.g = p->graph;

    /* a retrace writes each mutated user input back with aten.copy */
    for (uint32_t k = 0, nk = 0; k < p->num_output_specs; k++) {
        const eir_output_spec *os = &p->output_specs[k];
        if (os->kind != EIR_OUT_USER_INPUT_MUTATION || !os->target || !eir_arg_names_value(&os->arg)) continue;
        uint32_t in = EIR_NO_VALUE, m = os->arg.value;
        for (uint32_t i = 0; i < c.g->num_inputs; i++)
            if (eir_arg_names_value(&c.g->inputs[i]) && !strcmp(c.g->values[c.g->inputs[i].value].name, os->target))
                in = c.g->inputs[i].value;
        if (in == EIR_NO_VALUE || c.g->values[in].kind != EIR_VALUE_TENSOR) continue;
        eir_tensor_meta meta = c.g->values[in].meta;
        uint32_t v = eir_graph_add_value(p, c.g, EIR_VALUE_TENSOR, &meta, "copy");
        if (v == EIR_NO_VALUE) return EIR_ERR_NOMEM;
        eir_named_arg ins[2];
        memset(ins, 0, sizeof ins);
        ins[0].name = "self", ins[0].kind = 1, ins[0].arg.kind = EIR_ARG_TENSOR, ins[0].arg.value = in;
        ins[1].name = "src", ins[1].kind = 1, ins[1].arg.kind = EIR_ARG_TENSOR, ins[1].arg.value = m;
        ins[0].arg.name = c.g->values[in].name;
        ins[1].arg.name = c.g->values[m].name;
        eir_arg o = {0};
        o.kind = EIR_ARG_TENSOR;
        o.value = v;
        o.name = c.g->values[v].name;
        uint32_t pos = c.g->num_nodes;
        if ((st = eir_graph_insert_node(p, c.g, pos, EDGE_OPS "aten.copy.default", 2, ins, 1, &o, NULL)) != EIR_OK)
            return st;
        char fn[96];
        snprintf(fn, sizeof fn, "copy_.default_%u;OpOverload.copy_.default", ++nk);
        eir_node *cp = (eir_node *)&c.g->nodes[pos];
        if ((st = eir_node_set_metadata(p, cp, "torch_fn", fn)) != EIR_OK ||
            (st = eir_node_set_metadata(p, cp, "custom", "{\"_torchdynamo_disable\": true, "
                                        "\"_torchdynamo_disable_recursive\": true, "
                                        "\"_torchdynamo_disable_method\": \"dispatch_trace\"}")) != EIR_OK)
            return st;
        /* the mutation output (and any other use after the copy) reads the copy */
        if ((st = eir_graph_replace_uses(p, c.g, m, v, NULL)) != EIR_OK) return st;
        c.changed++;
    }

    /* 11. dead code (nested graphs too), names */
    uint32_t removed = 0;
    if ((st = eir_graph_dce(p, c.g, &removed)) != EIR_OK) return st;
    c.changed += removed;
    if ((st = finish_graph(&c)) != EIR_OK) return st;
    if (changed) *changed = c.changed;
    return EIR_OK;
}
