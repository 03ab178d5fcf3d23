/* meta_api.c — the public face of shape and dtype inference (include/eir.h,
 * "shape and dtype inference"): one node output's inferred metadata as an
 * eir_inferred_meta, symbolic sizes interned in the program's expression
 * table; and filling the metadata a program built with the editing API left
 * out. The inference itself is meta.c's. */
#include <stdio.h>
#include <string.h>

#include "meta.h"
#include "meta_int.h"
#include "optable.h"
#include "../ir/program.h"

#define MAX_OUTS 64

static const char *short_target(const char *t) {
    if (!t) return "?";
    if (!strncmp(t, "torch.ops.", 10)) return t + 10;
    return t;
}

/* ---- symbolic sizes as expressions of the program ---- */

/* sympy's srepr of a tree; false for a node sympy text cannot hold here */
static bool put_srepr(const eir_program *p, eir_buf *b, const eir_sym_node *n) {
    switch (n->kind) {
    case EIR_SYM_INTEGER:
        eir_buf_printf(b, "Integer(%lld)", (long long)n->ival);
        return true;
    case EIR_SYM_RATIONAL:
        eir_buf_printf(b, "Rational(%lld, %lld)", (long long)n->ival, (long long)n->den);
        return true;
    case EIR_SYM_SYMBOL:
        /* the symbol as the program spells it (its assumptions), when it has it alone */
        for (uint32_t i = 0; i < p->num_exprs; i++) {
            const eir_sym_node *t = p->exprs[i].tree;
            if (t && t->kind == EIR_SYM_SYMBOL && t->name && n->name && !strcmp(t->name, n->name)) {
                eir_buf_puts(b, p->exprs[i].srepr);
                return true;
            }
        }
        if (!n->name) return false;
        eir_buf_printf(b, "Symbol('%s', integer=True%s)", n->name, n->name[0] == 'u' ? "" : ", positive=True");
        return true;
    case EIR_SYM_CALL:
        if (!n->name) return false;
        eir_buf_printf(b, "%s(", n->name);
        for (uint32_t i = 0; i < n->nargs; i++) {
            if (i) eir_buf_puts(b, ", ");
            if (!put_srepr(p, b, n->args[i])) return false;
        }
        eir_buf_putc(b, ')');
        return true;
    default:
        return false;
    }
}

/* d as an eir_symint of p; false when it is unknown or not expressible */
static bool to_symint(eir_program *p, eir_mdim d, eir_symint *out) {
    memset(out, 0, sizeof *out);
    if (d.kind == EIR_MDIM_INT) { out->value = d.c; return true; }
    if (d.kind != EIR_MDIM_SYM) return false;
    if (d.e->kind == EIR_SYM_INTEGER) { out->value = d.e->ival; return true; }
    uint32_t id = eir_meta_find_expr(p, d.e);
    if (id == UINT32_MAX) {
        eir_buf b;
        eir_buf_init(&b);
        bool ok = put_srepr(p, &b, d.e) && b.data && !b.oom;
        if (ok) {
            char saved[512];
            snprintf(saved, sizeof saved, "%s", p->errmsg);
            id = eir_program_intern_expr(p, b.data, "inferred size");
            if (id == UINT32_MAX) eir_fail(p, EIR_OK, "%s", saved); /* keep the caller's message */
        }
        eir_buf_free(&b);
        if (id == UINT32_MAX) return false;
    }
    out->is_expr = true;
    out->expr = id;
    return true;
}

/* ---- one output ---- */

static eir_status infer(eir_program *p, const eir_graph *g, uint32_t node, uint32_t output, eir_inferred_meta *out,
                        uint32_t *value_out) {
    if (!p || !g || !out) return p ? eir_fail(p, EIR_ERR_ARG, "eir_node_infer_meta: a NULL argument") : EIR_ERR_ARG;
    if (node >= g->num_nodes)
        return eir_fail(p, EIR_ERR_ARG, "eir_node_infer_meta: node %u out of range (the graph has %u nodes)", node,
                        g->num_nodes);
    const eir_node *nd = &g->nodes[node];
    const char *nm = nd->name ? nd->name : "?", *tg = short_target(nd->target);
    if (!eir_meta_has(nd->target))
        return eir_fail(p, EIR_ERR_UNSUPPORTED, "node %%%s (%s): no shape and dtype inference for this operator", nm,
                        tg);
    uint32_t ids[MAX_OUTS];
    uint32_t nid = meta_flat_outputs(nd, ids, MAX_OUTS);
    if (output >= nid)
        return eir_fail(p, EIR_ERR_ARG, "node %%%s (%s): output %u out of range (the node has %u)", nm, tg, output,
                        nid);
    if (value_out) *value_out = ids[output];
    eir_arena scratch;
    eir_arena_init(&scratch);
    eir_mtensor *inf = eir_arena_array(&scratch, MAX_OUTS, sizeof *inf);
    char err[512];
    int n = inf ? eir_meta_infer_node(p, g, nd, &scratch, inf, MAX_OUTS, err, sizeof err) : 0;
    eir_status st = EIR_OK;
    if (!inf) {
        st = eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    } else if (n < 0) {
        st = eir_fail(p, EIR_ERR_GRAPH, "node %%%s (%s): %s", nm, tg, err);
    } else if (n == 0) {
        st = eir_fail(p, EIR_ERR_UNSUPPORTED, "node %%%s (%s): this form of the operator's arguments is not inferred",
                      nm, tg);
    } else if ((uint32_t)n != nid) {
        st = eir_fail(p, EIR_ERR_UNSUPPORTED, "node %%%s (%s): the node has %u outputs, the operator returns %d here",
                      nm, tg, nid, n);
    } else {
        const eir_mtensor *t = &inf[output];
        memset(out, 0, sizeof *out);
        out->dtype = t->dtype;
        if (!t->sizes_known) {
            st = eir_fail(p, EIR_ERR_UNSUPPORTED, "node %%%s (%s): the rank of output %u is not inferred", nm, tg,
                          output);
        } else if (t->rank > EIR_INFER_MAX_RANK) {
            st = eir_fail(p, EIR_ERR_UNSUPPORTED, "node %%%s (%s): output %u has rank %u, more than %d", nm, tg, output,
                          t->rank, EIR_INFER_MAX_RANK);
        } else {
            out->rank = t->rank;
            for (uint32_t i = 0; i < t->rank; i++) {
                if (!to_symint(p, t->sizes[i], &out->sizes[i])) out->unknown_sizes |= 1u << i;
                if (!t->strides_known || !to_symint(p, t->strides[i], &out->strides[i]))
                    out->unknown_strides |= 1u << i;
            }
            out->unknown_offset = !t->strides_known || !to_symint(p, t->offset, &out->storage_offset);
        }
    }
    eir_arena_release(&scratch);
    return st;
}

eir_status eir_node_infer_meta(eir_program *p, const eir_graph *g, uint32_t node, uint32_t output,
                               eir_inferred_meta *out) {
    return infer(p, g, node, output, out, NULL);
}

/* ---- filling a built program's metadata ---- */

typedef struct fillctx {
    uint32_t filled;
    eir_status first;            /* the first failure, and its message */
    char msg[1024];
} fillctx;

static void fill_fail(fillctx *f, eir_status st, const char *msg) {
    if (f->first != EIR_OK) return;
    f->first = st;
    snprintf(f->msg, sizeof f->msg, "%s", msg);
}

static void fill_graph(eir_program *p, eir_graph *g, fillctx *f) {
    for (uint32_t k = 0; k < g->num_nodes; k++) {
        const eir_node *nd = &g->nodes[k];
        uint32_t ids[MAX_OUTS];
        uint32_t nid = meta_flat_outputs(nd, ids, MAX_OUTS);
        for (uint32_t i = 0; i < nid; i++) {
            if (ids[i] == EIR_NO_VALUE || ids[i] >= g->num_values) continue;
            eir_value *v = (eir_value *)&g->values[ids[i]];
            if (v->kind != EIR_VALUE_TENSOR || v->meta.dtype != EIR_DTYPE_UNKNOWN) continue;
            eir_inferred_meta m;
            uint32_t vid;
            eir_status st = infer(p, g, k, i, &m, &vid);
            if (st == EIR_OK && m.unknown_sizes) {
                uint32_t d = (uint32_t)__builtin_ctz(m.unknown_sizes);
                st = eir_fail(p, EIR_ERR_UNSUPPORTED,
                              "node %%%s (%s): size %u of output %u is data-dependent or not expressible", nd->name ? nd->name : "?",
                              short_target(nd->target), d, i);
            }
            if (st == EIR_OK && m.dtype == EIR_DTYPE_UNKNOWN)
                st = eir_fail(p, EIR_ERR_UNSUPPORTED, "node %%%s (%s): the dtype of output %u is not inferred",
                              nd->name ? nd->name : "?", short_target(nd->target), i);
            if (st != EIR_OK) {
                fill_fail(f, st, eir_errmsg(p));
                continue;
            }
            eir_symint *sz = eir_arena_array(&p->arena, m.rank ? m.rank : 1, sizeof *sz);
            eir_symint *stv = eir_arena_array(&p->arena, m.rank ? m.rank : 1, sizeof *stv);
            if (!sz || !stv) {
                fill_fail(f, EIR_ERR_NOMEM, "out of memory");
                continue;
            }
            /* strides the inference leaves open are the contiguous ones, as a new tensor's */
            bool contiguous = m.unknown_strides || m.unknown_offset;
            int64_t run = 1;
            bool sym = false;
            for (uint32_t d = m.rank; d-- > 0;) {
                sz[d] = m.sizes[d];
                if (contiguous) {
                    memset(&stv[d], 0, sizeof stv[d]);
                    stv[d].value = run;
                    if (m.sizes[d].is_expr) sym = true;
                    else if (__builtin_mul_overflow(run, m.sizes[d].value > 1 ? m.sizes[d].value : 1, &run)) sym = true;
                } else {
                    stv[d] = m.strides[d];
                }
            }
            if (contiguous && sym) {
                char msg[512];
                snprintf(msg, sizeof msg, "node %%%s (%s): the strides of output %u are not inferred",
                         nd->name ? nd->name : "?", short_target(nd->target), i);
                fill_fail(f, EIR_ERR_UNSUPPORTED, msg);
                continue;
            }
            v->meta.dtype = m.dtype;
            v->meta.rank = m.rank;
            v->meta.sizes = sz;
            v->meta.strides = stv;
            memset(&v->meta.storage_offset, 0, sizeof v->meta.storage_offset);
            if (!contiguous) v->meta.storage_offset = m.storage_offset;
            if (v->meta.layout == EIR_LAYOUT_UNKNOWN) v->meta.layout = EIR_LAYOUT_STRIDED;
            if (!v->meta.device.type) v->meta.device.type = "cpu", v->meta.device.index = -1;
            f->filled++;
        }
        for (uint32_t a = 0; a < nd->num_inputs; a++) {
            const eir_arg *ga = &nd->inputs[a].arg;
            if (ga->kind == EIR_ARG_GRAPH && ga->u.graph.graph) fill_graph(p, ga->u.graph.graph, f);
        }
    }
}

eir_status eir_program_fill_meta(eir_program *p, uint32_t *filled) {
    if (filled) *filled = 0;
    if (!p) return EIR_ERR_ARG;
    eir_graph *g = eir_program_graph_mut(p);
    if (!g) return eir_fail(p, EIR_ERR_ARG, "eir_program_fill_meta: the program has no graph");
    fillctx f = {0, EIR_OK, ""};
    fill_graph(p, g, &f);
    if (filled) *filled = f.filled;
    return f.first == EIR_OK ? EIR_OK : eir_fail(p, f.first, "%s", f.msg);
}
