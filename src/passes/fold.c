/* fold.c — constant folding: the pass `fold`.
 *
 * A call folds when it is a side-effect-free, deterministic ATen operator
 * (no mutable schema, no in-place or out= form, no seeded randomness, no
 * assertion or other effect, not a higher-order or custom operator) that
 * eir can run, whose tensor arguments are all constants, whose other
 * arguments hold no symbolic value, and whose results have static
 * metadata. Constants are parameters, lifted tensor constants and buffers
 * the program never writes (no BUFFER_MUTATION output, no in-place write
 * through any view of them, not an operand of a higher-order or custom
 * operator), and the results of folded calls. This is ExecuTorch's
 * constant_prop_pass rule on an ExportedProgram with lifted state, with
 * torch's skip_constructors (torch/_export/passes/constant_folding.py): a
 * call with no tensor argument (full, arange, ...) folds only into a
 * folded consumer, never into a constant of its own, and neither does a
 * call whose result is a graph output.
 *
 * Evaluation uses eir's runtime on a copy of the program cut down to the
 * folded calls: the copy's outputs are the frontier results (those a call
 * that stays, or the graph's outputs, still read), its user inputs and
 * the calls that stay are removed. Each frontier result then becomes a
 * lifted tensor constant named as ExecuTorch names propagated constants
 * (`_prop_tensor_constant<N>`, N the number of constants; placeholder
 * `c__prop_tensor_constant<N>`), contiguous, with the sizes and dtype the
 * program recorded for it; the folded calls are erased, and so are the
 * parameters and constants that only they read. Buffers always stay. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes.h"
#include "../ir/edit.h"
#include "../ops/optable.h"

typedef struct fold_ctx {
    eir_program *p;
    eir_graph *g;
    uint32_t nv, nn;
    bool *const_in;              /* per value: a graph input holding a constant */
    bool *is_const;              /* per value: a constant input or a folded call's result */
    bool *excluded;              /* per node: never folds (feeds an output, a constructor at the frontier) */
    bool *fold;                  /* per node */
    bool *frontier;              /* per value: a folded result something that stays reads */
} fold_ctx;

/* Calls fn on every argument (list items included) that names a value. */
static void each_value(const eir_arg *a, void (*fn)(const eir_arg *, void *), void *ctx) {
    if (eir_arg_names_value(a)) fn(a, ctx);
    else if (eir_arg_kind_is_list(a->kind))
        for (uint32_t i = 0; i < a->u.list.n; i++) each_value(&a->u.list.items[i], fn, ctx);
}

static void each_input_value(const eir_node *nd, void (*fn)(const eir_arg *, void *), void *ctx) {
    for (uint32_t i = 0; i < nd->num_inputs; i++) each_value(&nd->inputs[i].arg, fn, ctx);
}

static bool static_meta(const eir_tensor_meta *m) {
    if (m->storage_offset.is_expr) return false;
    for (uint32_t d = 0; d < m->rank; d++)
        if (m->sizes[d].is_expr || (m->strides && m->strides[d].is_expr)) return false;
    return true;
}

/* ---- which state is constant ---- */

static bool is_aten(const char *t) { return !strncmp(t, "torch.ops.aten.", 15); }

typedef struct origin_ctx { const uint32_t *origin; bool *written; uint32_t first; } origin_ctx;
static void mark_written(const eir_arg *a, void *ctx) {
    origin_ctx *o = ctx;
    if (a->kind == EIR_ARG_TENSOR || a->kind == EIR_ARG_OPTIONAL_TENSOR)
        if (o->origin[a->value] != EIR_NO_VALUE) o->written[o->origin[a->value]] = true;
}
static void first_origin(const eir_arg *a, void *ctx) {
    origin_ctx *o = ctx;
    if ((a->kind == EIR_ARG_TENSOR || a->kind == EIR_ARG_OPTIONAL_TENSOR) && o->first == EIR_NO_VALUE)
        o->first = o->origin[a->value];
}

/* A call that may write its tensor arguments: an in-place, out= or mutable
 * ATen overload, an unknown one, and anything that is not ATen (higher-order
 * and custom operators: their effect on an operand is not known here). */
static bool may_write(const eir_node *nd) {
    if (!is_aten(nd->target)) return true;
    const eir_op_schema *op = eir_op_find(nd->target);
    if (!op) return true;
    return (op->flags & (EIR_OPF_INPLACE | EIR_OPF_OUT)) || eir_op_mutates_args(op);
}

static eir_status find_constant_inputs(fold_ctx *c) {
    eir_program *p = c->p;
    eir_graph *g = c->g;
    uint32_t *origin = malloc((c->nv ? c->nv : 1) * sizeof *origin);
    bool *written = calloc(c->nv ? c->nv : 1, sizeof *written);
    if (!origin || !written) {
        free(origin), free(written);
        return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    }
    for (uint32_t v = 0; v < c->nv; v++) origin[v] = EIR_NO_VALUE;
    for (uint32_t i = 0; i < g->num_inputs && i < p->num_input_specs; i++) {
        const eir_input_spec *s = &p->input_specs[i];
        const eir_arg *a = &g->inputs[i];
        if (a->kind != EIR_ARG_TENSOR || a->value == EIR_NO_VALUE) continue;
        if (s->kind != EIR_IN_PARAMETER && s->kind != EIR_IN_BUFFER && s->kind != EIR_IN_CONSTANT_TENSOR) continue;
        const eir_tensor *t = s->target ? eir_program_find_tensor(p, s->target) : NULL;
        if (!t || !t->data || t->subclass || t->is_custom_obj || !eir_dtype_size(t->dtype)) continue;
        if (!static_meta(&g->values[a->value].meta)) continue;
        origin[a->value] = a->value;
        c->const_in[a->value] = true;
    }
    /* views carry their base's origin; a write through any of them writes the base */
    for (uint32_t n = 0; n < c->nn; n++) {
        const eir_node *nd = &g->nodes[n];
        origin_ctx oc = {origin, written, EIR_NO_VALUE};
        if (may_write(nd)) each_input_value(nd, mark_written, &oc);
        const eir_op_schema *op = is_aten(nd->target) ? eir_op_find(nd->target) : NULL;
        if (op && (op->flags & EIR_OPF_VIEW)) {
            each_input_value(nd, first_origin, &oc);
            for (uint32_t k = 0, v; (v = eir_node_output_value(nd, k)) != EIR_NO_VALUE; k++) origin[v] = oc.first;
        }
    }
    /* state the program returns a new value for */
    for (uint32_t o = 0; o < p->num_output_specs; o++) {
        const eir_output_spec *s = &p->output_specs[o];
        if (s->kind != EIR_OUT_BUFFER_MUTATION && s->kind != EIR_OUT_PARAMETER_MUTATION) continue;
        for (uint32_t i = 0; i < g->num_inputs && i < p->num_input_specs; i++)
            if (p->input_specs[i].target && s->target && !strcmp(p->input_specs[i].target, s->target) &&
                eir_arg_names_value(&g->inputs[i]))
                written[g->inputs[i].value] = true;
    }
    for (uint32_t v = 0; v < c->nv; v++)
        if (written[v]) c->const_in[v] = false;
    free(origin), free(written);
    return EIR_OK;
}

/* ---- which calls fold ---- */

typedef struct args_ctx { const bool *is_const; bool ok, any_tensor; } args_ctx;
static void check_arg(const eir_arg *a, void *ctx) {
    args_ctx *x = ctx;
    if (a->kind == EIR_ARG_TENSOR || a->kind == EIR_ARG_OPTIONAL_TENSOR) {
        x->any_tensor = true;
        if (!x->is_const[a->value]) x->ok = false;
    } else x->ok = false;        /* a symbolic value or an object */
}

static bool bad_arg_kind(const eir_arg *a) {
    if (a->kind == EIR_ARG_GRAPH || a->kind == EIR_ARG_CUSTOM_OBJ) return true;
    if (eir_arg_kind_is_list(a->kind))
        for (uint32_t i = 0; i < a->u.list.n; i++)
            if (bad_arg_kind(&a->u.list.items[i])) return true;
    return false;
}

/* Whether the call itself may fold (its arguments aside). */
static bool foldable_call(const eir_graph *g, const eir_node *nd) {
    if (!is_aten(nd->target) || eir_node_is_impure(nd)) return false;
    const eir_op_schema *op = eir_op_find(nd->target);
    if (!op || (op->flags & (EIR_OPF_INPLACE | EIR_OPF_OUT | EIR_OPF_RANDOM)) || eir_op_mutates_args(op)) return false;
    if (!eir_op_runnable(nd->target)) return false;
    if (nd->num_outputs == 0) return false;
    for (uint32_t i = 0; i < nd->num_outputs; i++) {
        const eir_arg *o = &nd->outputs[i];
        if (o->kind == EIR_ARG_TENSOR) {
            if (o->value == EIR_NO_VALUE || !static_meta(&g->values[o->value].meta)) return false;
        } else if (o->kind == EIR_ARG_TENSORS) {
            for (uint32_t k = 0; k < o->u.list.n; k++) {
                const eir_arg *it = &o->u.list.items[k];
                if (it->kind != EIR_ARG_TENSOR || it->value == EIR_NO_VALUE ||
                    !static_meta(&g->values[it->value].meta))
                    return false;
            }
        } else return false;
    }
    for (uint32_t i = 0; i < nd->num_inputs; i++)
        if (bad_arg_kind(&nd->inputs[i].arg)) return false;
    return true;
}

/* Calls that make a tensor from nothing but their arguments' values, or
 * whose result does not depend on their tensor argument's data. */
static bool constructor_like(const eir_node *nd, bool any_tensor) {
    static const char *const LIKE[] = {
        "torch.ops.aten.empty_like.default", "torch.ops.aten.new_empty.default",
        "torch.ops.aten.new_empty_strided.default", "torch.ops.aten.zeros_like.default",
        "torch.ops.aten.ones_like.default", "torch.ops.aten.full_like.default",
        "torch.ops.aten.new_zeros.default", "torch.ops.aten.new_ones.default", "torch.ops.aten.new_full.default",
    };
    if (!any_tensor) return true;
    for (size_t i = 0; i < sizeof LIKE / sizeof *LIKE; i++)
        if (!strcmp(nd->target, LIKE[i])) return true;
    return false;
}

/* An int list argument equal to the recorded sizes or strides (None: no claim). */
static bool ints_match(const eir_arg *a, const eir_symint *v, uint32_t rank) {
    if (a->kind == EIR_ARG_NONE || (a->kind == EIR_ARG_OPTIONAL_TENSOR && a->value == EIR_NO_VALUE)) return true;
    if ((a->kind != EIR_ARG_INTS && a->kind != EIR_ARG_SYM_INTS) || a->u.list.n != rank) return false;
    for (uint32_t d = 0; d < rank; d++) {
        const eir_arg *it = &a->u.list.items[d];
        bool lit = it->kind == EIR_ARG_INT || (it->kind == EIR_ARG_SYM_INT && it->literal);
        if (!lit || it->u.i != v[d].value) return false;
    }
    return true;
}

/* aten._assert_tensor_metadata on a constant whose recorded metadata
 * satisfies it: torch inserts one before each dtype cast (`.to`), and on a
 * constant it checks what is already known, so it goes with the folded
 * calls. One that would fail stays, to fail at run time as in torch. */
static bool satisfied_assert(const eir_graph *g, const eir_node *nd, const bool *is_const) {
    if (strcmp(nd->target, "torch.ops.aten._assert_tensor_metadata.default") || nd->num_inputs == 0) return false;
    const eir_arg *t = &nd->inputs[0].arg;
    if (t->kind != EIR_ARG_TENSOR || t->value == EIR_NO_VALUE || !is_const[t->value]) return false;
    const eir_tensor_meta *m = &g->values[t->value].meta;
    for (uint32_t i = 1; i < nd->num_inputs; i++) {
        const char *name = nd->inputs[i].name ? nd->inputs[i].name : "";
        const eir_arg *a = &nd->inputs[i].arg;
        if (a->kind == EIR_ARG_NONE) continue;
        if (!strcmp(name, "size")) {
            if (!ints_match(a, m->sizes, m->rank)) return false;
        } else if (!strcmp(name, "stride")) {
            if (!m->strides || !ints_match(a, m->strides, m->rank)) return false;
        } else if (!strcmp(name, "dtype")) {
            if (a->kind != EIR_ARG_SCALAR_TYPE || a->u.i != (int64_t)m->dtype) return false;
        } else if (!strcmp(name, "device")) {
            if (a->kind != EIR_ARG_DEVICE || !a->u.device.type || strcmp(a->u.device.type, "cpu")) return false;
        } else if (!strcmp(name, "layout")) {
            if (a->kind != EIR_ARG_LAYOUT || a->u.i != EIR_LAYOUT_STRIDED) return false;
        } else return false;
    }
    return true;
}

typedef struct use_ctx { uint32_t *uses; } use_ctx;
static void count_use(const eir_arg *a, void *ctx) { ((use_ctx *)ctx)->uses[a->value]++; }

static void reads_any(const eir_arg *a, void *ctx) {
    args_ctx *x = ctx;
    if ((a->kind == EIR_ARG_TENSOR || a->kind == EIR_ARG_OPTIONAL_TENSOR) && x->is_const[a->value]) x->any_tensor = true;
}

typedef struct need_ctx { bool *need; } need_ctx;
static void mark_need(const eir_arg *a, void *ctx) { ((need_ctx *)ctx)->need[a->value] = true; }

/* The fold set and its frontier, excluding calls until no constructor-like
 * call is at the frontier; *nfront receives the number of frontier values. */
static eir_status plan_fold(fold_ctx *c, uint32_t *nfront) {
    eir_program *p = c->p;
    eir_graph *g = c->g;
    bool *callable = calloc(c->nn ? c->nn : 1, sizeof *callable);
    bool *ctor = calloc(c->nn ? c->nn : 1, sizeof *ctor);
    bool *assert_n = calloc(c->nn ? c->nn : 1, sizeof *assert_n);
    bool *outv = calloc(c->nv ? c->nv : 1, sizeof *outv);
    bool *need = calloc(c->nv ? c->nv : 1, sizeof *need);
    uint32_t *uses = calloc(c->nv ? c->nv : 1, sizeof *uses);
    eir_status st = EIR_OK;
    if (!callable || !ctor || !assert_n || !outv || !need || !uses) {
        st = eir_fail(p, EIR_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (uint32_t n = 0; n < c->nn; n++) callable[n] = foldable_call(g, &g->nodes[n]);
    /* values the graph returns: their calls stay */
    need_ctx oc = {outv};
    for (uint32_t i = 0; i < g->num_outputs; i++) each_value(&g->outputs[i], mark_need, &oc);
    for (uint32_t i = 0; i < p->num_output_specs; i++) each_value(&p->output_specs[i].arg, mark_need, &oc);
    for (uint32_t n = 0; n < c->nn; n++)
        for (uint32_t k = 0, v; (v = eir_node_output_value(&g->nodes[n], k)) != EIR_NO_VALUE; k++)
            if (outv[v]) c->excluded[n] = true;
    for (;;) {
        memcpy(c->is_const, c->const_in, c->nv * sizeof *c->is_const);
        for (uint32_t n = 0; n < c->nn; n++) {
            const eir_node *nd = &g->nodes[n];
            c->fold[n] = false;
            if (!callable[n] || c->excluded[n]) continue;
            args_ctx ac = {c->is_const, true, false};
            each_input_value(nd, check_arg, &ac);
            if (!ac.ok) continue;
            c->fold[n] = true;
            ctor[n] = constructor_like(nd, ac.any_tensor);
            for (uint32_t k = 0, v; (v = eir_node_output_value(nd, k)) != EIR_NO_VALUE; k++) c->is_const[v] = true;
        }
        for (uint32_t n = 0; n < c->nn; n++)
            if (!c->excluded[n] && satisfied_assert(g, &g->nodes[n], c->is_const)) c->fold[n] = assert_n[n] = true;
        /* uses by the calls that stay */
        memset(uses, 0, c->nv * sizeof *uses);
        use_ctx uc = {uses};
        for (uint32_t n = 0; n < c->nn; n++)
            if (!c->fold[n]) each_input_value(&g->nodes[n], count_use, &uc);
        bool again = false;
        for (uint32_t n = 0; n < c->nn; n++) {
            if (!c->fold[n] || !ctor[n]) continue;
            for (uint32_t k = 0, v; (v = eir_node_output_value(&g->nodes[n], k)) != EIR_NO_VALUE; k++)
                if (uses[v]) c->excluded[n] = again = true;
        }
        if (!again) break;
    }
    /* the frontier, and only the folded calls it needs (dead ones are dce's) */
    uint32_t nf = 0;
    for (uint32_t v = 0; v < c->nv; v++) {
        c->frontier[v] = uses[v] && !c->const_in[v] && c->is_const[v];
        need[v] = c->frontier[v];
        nf += c->frontier[v];
    }
    need_ctx nc = {need};
    memcpy(ctor, c->fold, c->nn * sizeof *ctor);      /* ctor now: the fold set before pruning */
    for (uint32_t n = c->nn; n-- > 0;) {
        if (!c->fold[n]) continue;
        bool needed = assert_n[n];
        for (uint32_t k = 0, v; (v = eir_node_output_value(&g->nodes[n], k)) != EIR_NO_VALUE; k++) needed |= need[v];
        c->fold[n] = needed;
        if (needed) each_input_value(&g->nodes[n], mark_need, &nc);
    }
    /* an unneeded foldable call is dead (only other such calls read it); one
     * that reads a folded result goes with it, or it would read an erased value */
    memset(outv, 0, c->nv * sizeof *outv);
    for (uint32_t n = 0; n < c->nn; n++) {
        if (!ctor[n]) continue;
        if (!c->fold[n]) {
            args_ctx rc = {outv, true, false};
            each_input_value(&g->nodes[n], reads_any, &rc);
            c->fold[n] = rc.any_tensor;
        }
        if (c->fold[n])
            for (uint32_t k = 0, v; (v = eir_node_output_value(&g->nodes[n], k)) != EIR_NO_VALUE; k++) outv[v] = true;
    }
    *nfront = nf;
done:
    free(callable), free(ctor), free(assert_n), free(outv), free(need), free(uses);
    return st;
}

/* ---- evaluation ---- */

typedef struct folded {
    uint32_t node, k;            /* the k-th value node `node` defines */
    void *data;                  /* contiguous, malloc'd */
} folded;

static void copy_contiguous(char *dst, const eir_tensor_view *v, size_t es) {
    int64_t n = eir_tensor_numel(v);
    if (n <= 0) return;
    if (!v->strides || eir_tensor_is_contiguous(v)) {
        memcpy(dst, v->data, (size_t)n * es);
        return;
    }
    int64_t idx[EIR_MAX_RANK] = {0};
    for (int64_t i = 0; i < n; i++) {
        int64_t off = 0;
        for (uint32_t d = 0; d < v->rank; d++) off += idx[d] * v->strides[d];
        memcpy(dst + (size_t)i * es, (const char *)v->data + off * (int64_t)es, es);
        for (uint32_t d = v->rank; d-- > 0;) {
            if (++idx[d] < v->sizes[d]) break;
            idx[d] = 0;
        }
    }
}

/* A copy of p that computes the frontier values: its outputs are those
 * values, and everything else is removed. */
static eir_status evaluate(fold_ctx *c, folded *fv, uint32_t nf) {
    eir_program *p = c->p;
    void *buf = NULL;
    size_t size = 0;
    eir_program *q = NULL;
    eir_runtime *rt = NULL;
    bool *erase = NULL;
    eir_status st = eir_program_save_buffer(p, &buf, &size);
    if (st) return st;
    st = eir_program_load_buffer(buf, size, &q);
    if (st) {
        st = eir_fail(p, st, "fold: reloading the program: %s", q ? eir_errmsg(q) : "out of memory");
        goto done;
    }
    eir_graph *qg = q->graph;
    if (qg->num_nodes != c->nn) {
        st = eir_fail(p, EIR_ERR_GRAPH, "fold: the program reloads with %u nodes, not %u", qg->num_nodes, c->nn);
        goto done;
    }
    /* outputs: the frontier values */
    eir_arg *outs = eir_arena_array(&q->arena, nf ? nf : 1, sizeof *outs);
    eir_output_spec *specs = eir_arena_array(&q->arena, nf ? nf : 1, sizeof *specs);
    erase = calloc(c->nn ? c->nn : 1, sizeof *erase);
    if (!outs || !specs || !erase) {
        st = eir_fail(p, EIR_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < nf; i++) {
        uint32_t v = eir_node_output_value(&qg->nodes[fv[i].node], fv[i].k);
        if (v == EIR_NO_VALUE) {
            st = eir_fail(p, EIR_ERR_GRAPH, "fold: node %s differs after reloading", c->g->nodes[fv[i].node].name);
            goto done;
        }
        outs[i] = (eir_arg){.kind = EIR_ARG_TENSOR, .value = v, .name = qg->values[v].name};
        specs[i] = (eir_output_spec){.kind = EIR_OUT_USER_OUTPUT, .arg = outs[i]};
    }
    qg->outputs = outs;
    qg->num_outputs = nf;
    qg->is_single_tensor_return = false;
    q->output_specs = specs;
    q->num_output_specs = nf;
    q->num_guards_code = 0;
    q->num_module_calls = 0;
    q->num_ranges = 0;
    for (uint32_t n = 0; n < c->nn; n++) erase[n] = !c->fold[n];
    if ((st = eir_graph_erase_nodes(q, qg, erase))) {
        st = eir_fail(p, st, "fold: cutting the program down: %s", eir_errmsg(q));
        goto done;
    }
    /* inputs nothing reads any more, user inputs among them */
    for (uint32_t i = qg->num_inputs; i-- > 0;) {
        if (i >= q->num_input_specs) continue;
        const eir_arg *a = &qg->inputs[i];
        if (eir_arg_names_value(a) && eir_graph_num_uses(qg, a->value)) continue;
        eir_input_spec *s = &q->input_specs[i];
        if (s->kind == EIR_IN_USER_INPUT || s->kind == EIR_IN_CONSTANT_INPUT) {
            s->kind = EIR_IN_TOKEN;      /* a placeholder drop_input takes; no stored tensor */
            s->target = NULL;
        }
        if ((st = eir_program_drop_input(q, i))) {
            st = eir_fail(p, st, "fold: cutting the program down: %s", eir_errmsg(q));
            goto done;
        }
    }
    st = eir_runtime_create(q, &rt);
    if (!st) st = eir_runtime_run(rt);
    if (st) {
        st = eir_fail(p, st, "fold: evaluating the constant calls: %s", rt ? eir_runtime_errmsg(rt) : "out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < nf; i++) {
        const eir_node *nd = &c->g->nodes[fv[i].node];
        const eir_value *val = &c->g->values[eir_node_output_value(nd, fv[i].k)];
        eir_tensor_view v;
        if ((st = eir_runtime_output(rt, i, &v))) {
            st = eir_fail(p, st, "fold: node %s (%s): %s", nd->name, nd->target, eir_runtime_errmsg(rt));
            goto done;
        }
        bool same = v.dtype == val->meta.dtype && v.rank == val->meta.rank;
        for (uint32_t d = 0; same && d < v.rank; d++) same = v.sizes[d] == val->meta.sizes[d].value;
        if (!same) {
            st = eir_fail(p, EIR_ERR_GRAPH, "fold: node %s (%s): value %s computes to a %s tensor of rank %u, "
                          "the program records %s of rank %u", nd->name, nd->target, val->name,
                          eir_dtype_name(v.dtype), v.rank, eir_dtype_name(val->meta.dtype), val->meta.rank);
            goto done;
        }
        size_t es = eir_dtype_size(v.dtype);
        int64_t numel = eir_tensor_numel(&v);
        fv[i].data = malloc(numel > 0 ? (size_t)numel * es : 1);
        if (!fv[i].data) {
            st = eir_fail(p, EIR_ERR_NOMEM, "out of memory");
            goto done;
        }
        copy_contiguous(fv[i].data, &v, es);
    }
done:
    free(erase);
    if (rt) eir_runtime_free(rt);
    if (q) eir_program_free(q);
    eir_free(buf);
    return st;
}

/* ---- rewriting ---- */

/* The value's recorded strides into st, when they lay its elements out
 * densely: a permutation of the contiguous strides (w.t(), a permute), no
 * overlap (expand) and no gap (a slice). */
static bool dense_strides(const eir_tensor_meta *m, int64_t *st) {
    if (!m->strides || m->rank > 64) return false;
    uint32_t order[64], n = 0;
    for (uint32_t d = 0; d < m->rank; d++) {
        if (m->sizes[d].value == 0) return false;
        st[d] = m->strides[d].value;
        if (st[d] < 0) return false;
        if (m->sizes[d].value > 1) order[n++] = d;
    }
    for (uint32_t i = 1; i < n; i++)
        for (uint32_t j = i; j > 0 && st[order[j - 1]] > st[order[j]]; j--) {
            uint32_t t = order[j];
            order[j] = order[j - 1], order[j - 1] = t;
        }
    int64_t expect = 1;
    for (uint32_t i = 0; i < n; i++) {
        if (st[order[i]] != expect) return false;
        expect *= m->sizes[order[i]].value;
    }
    return true;
}

/* src (contiguous) into dst laid out with strides st */
static void scatter_strided(char *dst, const char *src, const eir_tensor_meta *m, const int64_t *st, size_t es) {
    int64_t numel = 1, idx[64] = {0};
    for (uint32_t d = 0; d < m->rank; d++) numel *= m->sizes[d].value;
    for (int64_t i = 0; i < numel; i++) {
        int64_t off = 0;
        for (uint32_t d = 0; d < m->rank; d++) off += idx[d] * st[d];
        memcpy(dst + off * (int64_t)es, src + i * (int64_t)es, es);
        for (uint32_t d = m->rank; d-- > 0;) {
            if (++idx[d] < m->sizes[d].value) break;
            idx[d] = 0;
        }
    }
}

static eir_status constant_name(eir_program *p, char *out, size_t cap) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->num_tensors; i++) n += p->tensors[i].is_constant;
    for (uint32_t tries = 0; tries < 1000000; tries++, n++) {
        snprintf(out, cap, "_prop_tensor_constant%u", n);
        if (!eir_program_find_tensor(p, out)) return EIR_OK;
    }
    return eir_fail(p, EIR_ERR_GRAPH, "fold: no free constant name");
}

eir_status eir_pass_fold(eir_program *p, uint32_t *changed) {
    *changed = 0;
    eir_graph *g = p->graph;
    fold_ctx c = {p, g, g->num_values, g->num_nodes, NULL, NULL, NULL, NULL, NULL};
    uint32_t nvv = c.nv ? c.nv : 1, nnn = c.nn ? c.nn : 1;
    c.const_in = calloc(nvv, 1), c.is_const = calloc(nvv, 1), c.frontier = calloc(nvv, 1);
    c.excluded = calloc(nnn, 1), c.fold = calloc(nnn, 1);
    folded *fv = NULL;
    char **used_state = NULL;
    uint32_t nf = 0, nused = 0;
    eir_status st = EIR_OK;
    if (!c.const_in || !c.is_const || !c.frontier || !c.excluded || !c.fold) {
        st = eir_fail(p, EIR_ERR_NOMEM, "out of memory");
        goto done;
    }
    if ((st = find_constant_inputs(&c)) || (st = plan_fold(&c, &nf)) || !nf) goto done;

    fv = calloc(nf, sizeof *fv);
    if (!fv) {
        st = eir_fail(p, EIR_ERR_NOMEM, "out of memory");
        goto done;
    }
    uint32_t k = 0;
    for (uint32_t n = 0; n < c.nn; n++)
        for (uint32_t j = 0, v; (v = eir_node_output_value(&g->nodes[n], j)) != EIR_NO_VALUE; j++)
            if (c.frontier[v]) fv[k++] = (folded){n, j, NULL};
    if ((st = evaluate(&c, fv, nf))) goto done;

    /* the parameters and constants read now, to drop those that only folded calls read */
    used_state = calloc(g->num_inputs ? g->num_inputs : 1, sizeof *used_state);
    if (!used_state) {
        st = eir_fail(p, EIR_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < g->num_inputs && i < p->num_input_specs; i++) {
        const eir_input_spec *s = &p->input_specs[i];
        if ((s->kind == EIR_IN_PARAMETER || s->kind == EIR_IN_CONSTANT_TENSOR) && s->target &&
            eir_arg_names_value(&g->inputs[i]) && eir_graph_num_uses(g, g->inputs[i].value))
            used_state[nused++] = (char *)s->target;
    }

    /* each frontier value becomes a lifted constant */
    for (uint32_t i = 0; i < nf; i++) {
        uint32_t v = eir_node_output_value(&g->nodes[fv[i].node], fv[i].k);
        /* a copy: adding the constant may move the value table (sizes and strides stay put) */
        const eir_tensor_meta meta = g->values[v].meta, *m = &meta;
        int64_t sizes[64];
        if (m->rank > 64) {
            st = eir_fail(p, EIR_ERR_GRAPH, "fold: value %s has rank %u", g->values[v].name, m->rank);
            goto done;
        }
        for (uint32_t d = 0; d < m->rank; d++) sizes[d] = m->sizes[d].value;
        char name[64];
        uint32_t cv;
        if ((st = constant_name(p, name, sizeof name)) ||
            (st = eir_program_add_state(p, EIR_IN_CONSTANT_TENSOR, name, m->dtype, m->rank, sizes, fv[i].data, true,
                                        &cv)))
            goto done;
        /* a dense view keeps its recorded strides (w.t() stays column-major) */
        int64_t ks[64];
        eir_tensor *tn = (eir_tensor *)eir_program_find_tensor(p, name);
        if (tn && tn->data && dense_strides(m, ks)) {
            scatter_strided((char *)tn->data, fv[i].data, m, ks, eir_dtype_size(m->dtype));
            eir_symint *vs = (eir_symint *)g->values[cv].meta.strides;
            for (uint32_t d = 0; d < m->rank; d++) {
                ((int64_t *)tn->strides)[d] = ks[d];
                vs[d].value = ks[d];
            }
        }
        free(fv[i].data);                /* copied into the program */
        fv[i].data = NULL;
        v = eir_node_output_value(&g->nodes[fv[i].node], fv[i].k);
        if ((st = eir_graph_replace_uses(p, g, v, cv, NULL))) goto done;
    }
    uint32_t nfold = 0;
    for (uint32_t n = 0; n < c.nn; n++) nfold += c.fold[n];
    if ((st = eir_graph_erase_nodes(p, g, c.fold))) goto done;
    *changed = nfold;

    /* parameters and constants only the folded calls read */
    for (uint32_t i = g->num_inputs; i-- > 0;) {
        if (i >= p->num_input_specs) continue;
        const eir_input_spec *s = &p->input_specs[i];
        if ((s->kind != EIR_IN_PARAMETER && s->kind != EIR_IN_CONSTANT_TENSOR) || !s->target) continue;
        if (!eir_arg_names_value(&g->inputs[i]) || eir_graph_num_uses(g, g->inputs[i].value)) continue;
        bool was_used = false;
        for (uint32_t u = 0; u < nused && !was_used; u++) was_used = !strcmp(used_state[u], s->target);
        if (was_used && (st = eir_program_drop_input(p, i))) goto done;
    }
done:
    if (fv)
        for (uint32_t i = 0; i < nf; i++) free(fv[i].data);
    free(fv), free(used_state);
    free(c.const_in), free(c.is_const), free(c.frontier), free(c.excluded), free(c.fold);
    return st;
}
