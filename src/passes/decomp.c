/* decomp.c — the to-core pass: decompositions that take an ATen-dialect
 * program (as torch.export.export gives it) to the Core ATen dialect, the way
 * torch's ep.run_decompositions() does: linear -> permute + addmm/mm (+ view),
 * conv*d -> convolution, batch_norm (eval) -> _native_batch_norm_legit_no_training,
 * layer_norm -> native_layer_norm, reshape/flatten/unflatten -> view, matmul ->
 * mm / expand + view + bmm, in-place ops on intermediates -> their functional
 * forms, and the others listed in RULES[] below (docs/IR.md has the table).
 *
 * The pass only rewrites the graph through the editing API (src/ir/edit.c).
 * Each new node gets the metadata torch's meta kernels would give it,
 * computed here per decomposition; the node it replaces lends its recorded
 * output metadata to the node that takes its place, and its stack_trace,
 * nn_module_stack and other metadata to every new node.
 *
 * It runs in two rounds: the first only checks every node it would rewrite
 * (arguments it can read, shapes it can compute, no mutation of graph
 * inputs), and fails naming the first node it cannot decompose with the
 * program unchanged; the second rewrites. Operators without a rule here are
 * left as they are (eir convert --to core reports those torch would have
 * decomposed). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decomp_int.h"
#include "../ir/edit.h"

/* ---- in-place ops on intermediates ---- */

static bool arg_names(const eir_arg *a, uint32_t v) {
    if ((a->kind == EIR_ARG_TENSOR || a->kind == EIR_ARG_OPTIONAL_TENSOR) && a->value == v) return true;
    if (a->kind == EIR_ARG_TENSORS || a->kind == EIR_ARG_OPTIONAL_TENSORS)
        for (uint32_t i = 0; i < a->u.list.n; i++)
            if (arg_names(&a->u.list.items[i], v)) return true;
    return false;
}

/* Whether an output of node u is read by a node after `after`, or is a
 * graph output. */
static bool view_read_after(const eir_graph *g, const eir_node *u, uint32_t after) {
    for (uint32_t o = 0; o < u->num_outputs; o++) {
        const eir_arg *oa = &u->outputs[o];
        uint32_t vals[MAXR + 1], nv = 0;
        if (oa->kind == EIR_ARG_TENSOR) vals[nv++] = oa->value;
        else if (oa->kind == EIR_ARG_TENSORS)
            for (uint32_t i = 0; i < oa->u.list.n && nv <= MAXR; i++) vals[nv++] = oa->u.list.items[i].value;
        for (uint32_t k = 0; k < nv; k++) {
            for (uint32_t i = after + 1; i < g->num_nodes; i++)
                for (uint32_t j = 0; j < g->nodes[i].num_inputs; j++)
                    if (arg_names(&g->nodes[i].inputs[j].arg, vals[k])) return true;
            for (uint32_t i = 0; i < g->num_outputs; i++)
                if (arg_names(&g->outputs[i], vals[k])) return true;
            /* a view of the view: be conservative */
            for (uint32_t i = 0; i <= after && i < g->num_nodes; i++) {
                const eir_op_schema *s = eir_op_find(!strncmp(g->nodes[i].target, "torch.ops.", 10)
                                                         ? g->nodes[i].target + 10 : g->nodes[i].target);
                if (s && !(s->flags & EIR_OPF_VIEW)) continue;
                for (uint32_t j = 0; j < g->nodes[i].num_inputs; j++)
                    if (arg_names(&g->nodes[i].inputs[j].arg, vals[k])) return true;
            }
        }
    }
    return false;
}

static const char *short_op(const char *t) { return !strncmp(t, "torch.ops.", 10) ? t + 10 : t; }

static void repl_arg(eir_arg *a, uint32_t from, uint32_t to, const char *name) {
    if ((a->kind == EIR_ARG_TENSOR || a->kind == EIR_ARG_OPTIONAL_TENSOR) && a->value == from) {
        a->value = to;
        a->name = name;
    } else if (a->kind == EIR_ARG_TENSORS || a->kind == EIR_ARG_OPTIONAL_TENSORS)
        for (uint32_t i = 0; i < a->u.list.n; i++) repl_arg(&a->u.list.items[i], from, to, name);
}

/* Uses of `from` in the nodes from index `start` on, the graph outputs and
 * (root graph) the output specs move to `to`. */
static void replace_from(dc *c, uint32_t from, uint32_t to, uint32_t start) {
    eir_graph *g = c->g;
    const char *name = g->values[to].name;
    for (uint32_t i = start; i < g->num_nodes; i++)
        for (uint32_t j = 0; j < g->nodes[i].num_inputs; j++)
            repl_arg((eir_arg *)&g->nodes[i].inputs[j].arg, from, to, name);
    for (uint32_t i = 0; i < g->num_outputs; i++) repl_arg((eir_arg *)&g->outputs[i], from, to, name);
    if (g == c->p->graph)
        for (uint32_t i = 0; i < c->p->num_output_specs; i++) repl_arg(&c->p->output_specs[i].arg, from, to, name);
}

/* x.resize_(size) of an intermediate that keeps or shrinks its number of
 * elements: as_strided(x, size, contiguous strides), as torch's
 * functionalization gives it (growing needs a new storage: refused) */
static eir_status resize_emit(dc *c, uint32_t x, uint32_t out, int32_t mi) {
    const eir_tensor_meta *xm = meta_of(c, x);
    int64_t sz[MAXR];
    uint32_t n;
    if (!dc_ints_of(dc_arg_named(c, "size"), sz, MAXR, &n)) return dc_refuse(c, "argument 'size': expected concrete ints");
    const eir_arg *mf = dc_arg_named(c, "memory_format");
    if (!is_none(mf) && !(mf->kind == EIR_ARG_MEMORY_FORMAT && mf->u.i == EIR_MF_CONTIGUOUS))
        return dc_refuse(c, "argument 'memory_format': only contiguous_format is decomposed");
    if (mi >= 0) return dc_refuse(c, "it resizes the graph input %s", c->g->values[x].name);
    if (!dc_meta_concrete_sizes(xm) || xm->storage_offset.is_expr) return dc_refuse(c, "an input of symbolic size");
    int64_t have = 1, want = 1;
    for (uint32_t i = 0; i < xm->rank; i++) have *= xm->sizes[i].value;
    for (uint32_t i = 0; i < n; i++) {
        if (sz[i] < 0) return dc_refuse(c, "argument 'size': negative size %lld", (long long)sz[i]);
        want *= sz[i];
    }
    if (want > have || !dc_meta_contiguous(xm))
        return dc_refuse(c, "resize_ to %lld elements of a %s tensor of %lld (only a contiguous one keeping or shrinking "
                            "its elements is decomposed)", (long long)want, dc_meta_contiguous(xm) ? "contiguous" : "non-contiguous",
                         (long long)have);
    if (c->dry) return EIR_OK;
    tm t;
    dc_tm_new(&t, xm, xm->dtype, sz, n);
    t.m.storage_offset = xm->storage_offset;
    int64_t st_[MAXR];
    for (uint32_t i = 0; i < n; i++) st_[i] = t.st[i].value;
    eir_named_arg ai[3] = {pos_arg("self", a_tensor(x)), pos_arg("size", dc_a_ints(c, sz, n)),
                           pos_arg("stride", dc_a_ints(c, st_, n))};
    uint32_t res;
    eir_status st = dc_emit(c, "as_strided.default", 3, ai, &t.m, "as_strided", &res);
    if (st) return st;
    if ((st = finish(c, out, res))) return st;
    return finish(c, x, res);
}

/* the functional op in place of the in-place one; mi >= 0: x is the latest
 * version of mutated input mi, and the result becomes it */
static eir_status inplace_emit(dc *c, const eir_op_schema *fn, uint32_t x, uint32_t out, int32_t mi) {
    if (!strcmp(c->op, "aten.copy_.default")) {
        /* x.copy_(src) of the same dtype and sizes: src is x's new value */
        uint32_t src = dc_tensor_of(c, "src");
        const eir_tensor_meta *xm = meta_of(c, x), *sm = src != EIR_NO_VALUE ? meta_of(c, src) : NULL;
        bool same = sm && sm->dtype == xm->dtype && sm->rank == xm->rank;
        for (uint32_t i = 0; same && i < xm->rank; i++) same = si_eq(sm->sizes[i], xm->sizes[i]);
        if (!same) return dc_refuse(c, "copy_ that converts or broadcasts its source");
        if (c->dry) {
            if (mi >= 0) c->muts->m[mi].latest = c->g->values[out].name;
            return EIR_OK;
        }
        replace_from(c, out, src, c->node + 1);
        replace_from(c, x, src, c->node + 1);
        if (mi >= 0) c->muts->m[mi].latest = c->g->values[src].name;
        return EIR_OK;
    }
    if (!strcmp(c->op, "aten.resize_.default")) return resize_emit(c, x, out, mi);
    if (c->dry) {
        /* later writes through this node's output write the same input */
        if (mi >= 0 && c->src.outputs[0].kind == EIR_ARG_TENSOR)
            c->muts->m[mi].latest = c->g->values[out].name;
        return EIR_OK;
    }
    eir_named_arg ins[16];
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->src.num_inputs && n < 16; i++)
        if (c->src.inputs[i].kind) ins[n++] = c->src.inputs[i];
    const char *name = fn->name + 5;
    char hint[48];
    snprintf(hint, sizeof hint, "%.*s", (int)(strchr(name, '.') - name), name);
    uint32_t res;
    eir_status st;
    if ((st = dc_emit(c, name, n, ins, meta_of(c, out), hint, &res))) return st;
    if ((st = finish(c, out, res))) return st;
    if ((st = finish(c, x, res))) return st;
    if (mi >= 0) c->muts->m[mi].latest = c->g->values[res].name;
    return EIR_OK;
}

static uint32_t value_named(const eir_graph *g, const char *name) {
    for (uint32_t i = 0; i < g->num_values; i++)
        if (!strcmp(g->values[i].name, name)) return i;
    return EIR_NO_VALUE;
}

/* The mutation record of graph input v (a buffer or user input of the
 * top-level graph, a new record when first written) or of the input whose
 * latest version v is; -1 when v is neither. */
static int32_t input_record(dc *c, uint32_t v) {
    const eir_value *xv = &c->g->values[v];
    for (uint32_t i = 0; c->muts && i < c->muts->n; i++)
        if (!strcmp(c->muts->m[i].latest, xv->name)) return (int32_t)i;
    if (xv->producer >= 0) return -1;
    const eir_input_spec *spec = NULL;
    for (uint32_t i = 0; c->g == c->p->graph && i < c->p->num_input_specs; i++)
        if (c->p->input_specs[i].arg.kind == EIR_ARG_TENSOR && c->p->input_specs[i].arg.value == v)
            spec = &c->p->input_specs[i];
    if (!spec || (spec->kind != EIR_IN_BUFFER && spec->kind != EIR_IN_USER_INPUT)) return -1;
    if (!c->muts || c->muts->n == sizeof c->muts->m / sizeof *c->muts->m) return -1;
    mutation *m = &c->muts->m[c->muts->n];
    m->input = m->latest = xv->name;
    m->kind = spec->kind == EIR_IN_BUFFER ? EIR_OUT_BUFFER_MUTATION : EIR_OUT_USER_INPUT_MUTATION;
    m->target = spec->kind == EIR_IN_BUFFER ? spec->target : xv->name;
    return (int32_t)c->muts->n++;
}

/* An in-place op writing x = as_strided(base, size, stride[, offset]),
 * detach(base) or alias(base) of a graph input (or its latest version), as
 * torch's functionalization writes it: the functional op on x; for
 * as_strided, as_strided_scatter of its result into base's latest version
 * (the mutation output) and as_strided of that for the node's result and
 * later reads of x; for a whole-tensor alias the result itself. */
static eir_status inplace_through_view(dc *c, const eir_op_schema *fn, uint32_t x, uint32_t out, const eir_node *pn) {
    bool whole = strcmp(pn->target, "torch.ops.aten.as_strided.default") != 0;
    if ((!whole && pn->num_inputs < 3) || pn->num_inputs < 1 || pn->inputs[0].arg.kind != EIR_ARG_TENSOR)
        return dc_refuse(c, "it writes %s, a view without its arguments", c->g->values[x].name);
    uint32_t base = pn->inputs[0].arg.value;
    int32_t mi = input_record(c, base);
    if (mi < 0)
        return dc_refuse(c, "it writes %s, a view (%s) of %s, which is not a buffer or user input of the "
                         "top-level graph", c->g->values[x].name, short_op(pn->target), c->g->values[base].name);
    /* another view of base, taken before and read after, would see the write */
    const eir_value *bv = &c->g->values[base];
    for (uint32_t i = bv->producer >= 0 ? (uint32_t)bv->producer + 1 : 0; i < c->node; i++) {
        const eir_node *u = &c->g->nodes[i];
        if (u == pn) continue;
        const eir_op_schema *us = eir_op_find(short_op(u->target));
        if (us && !(us->flags & EIR_OPF_VIEW)) continue;
        bool reads = false;
        for (uint32_t j = 0; j < u->num_inputs; j++) reads = reads || arg_names(&u->inputs[j].arg, base);
        if (reads && view_read_after(c->g, u, c->node))
            return dc_refuse(c, "%s, which it writes through %s, is aliased by %%%s (%s), read afterwards", bv->name,
                             c->g->values[x].name, u->name ? u->name : "?", short_op(u->target));
    }
    if (c->dry) return EIR_OK;
    eir_named_arg ins[16], si_[5], vi[4];
    uint32_t n = 0, ns = 0, nvw = 0;
    for (uint32_t i = 0; i < c->src.num_inputs && n < 16; i++)
        if (c->src.inputs[i].kind) ins[n++] = c->src.inputs[i];
    uint32_t cur = value_named(c->g, c->muts->m[mi].latest);
    if (cur == EIR_NO_VALUE) cur = base;
    uint32_t nv, sc, view;
    eir_status st;
    if ((st = sh_emit(c, fn->name + 5, n, ins, NULL, &nv))) return st;
    if (whole) {
        if ((st = finish(c, out, nv))) return st;
        if ((st = eir_graph_replace_uses(c->p, c->g, x, nv, NULL))) return st;
        if ((st = eir_graph_replace_uses(c->p, c->g, cur, nv, NULL))) return st;
        c->muts->m[mi].latest = c->g->values[nv].name;
        return EIR_OK;
    }
    si_[ns++] = pos_arg("self", a_tensor(cur));
    si_[ns++] = pos_arg("src", a_tensor(nv));
    vi[nvw++] = pos_arg("self", a_tensor(EIR_NO_VALUE));
    for (uint32_t i = 1; i < pn->num_inputs && ns < 5; i++) si_[ns++] = vi[nvw++] = pn->inputs[i];
    if ((st = sh_emit(c, "as_strided_scatter.default", ns, si_, meta_of(c, cur), &sc))) return st;
    vi[0] = pos_arg("self", a_tensor(sc));
    if ((st = sh_emit(c, "as_strided.default", nvw, vi, meta_of(c, x), &view))) return st;
    if ((st = finish(c, out, view))) return st;
    if ((st = eir_graph_replace_uses(c->p, c->g, x, view, NULL))) return st;
    if ((st = eir_graph_replace_uses(c->p, c->g, cur, sc, NULL))) return st;
    c->muts->m[mi].latest = c->g->values[sc].name;
    return EIR_OK;
}

/* Whether value v is read by a node after index `after` or is a graph output. */
static bool read_after(const eir_graph *g, uint32_t v, uint32_t after) {
    for (uint32_t i = after + 1; i < g->num_nodes; i++)
        for (uint32_t j = 0; j < g->nodes[i].num_inputs; j++)
            if (arg_names(&g->nodes[i].inputs[j].arg, v)) return true;
    for (uint32_t i = 0; i < g->num_outputs; i++)
        if (arg_names(&g->outputs[i], v)) return true;
    return false;
}

/* Whether v, or a view of it (of a view of it, ...), is read after node `after`. */
static bool alias_read_after(const eir_graph *g, uint32_t v, uint32_t after, int depth) {
    if (read_after(g, v, after)) return true;
    if (depth > 8) return true;
    for (uint32_t i = g->values[v].producer >= 0 ? (uint32_t)g->values[v].producer + 1 : 0; i <= after && i < g->num_nodes;
         i++) {
        const eir_node *u = &g->nodes[i];
        const eir_op_schema *us = eir_op_find(short_op(u->target));
        if (!us || !(us->flags & EIR_OPF_VIEW) || !u->num_inputs || !arg_names(&u->inputs[0].arg, v)) continue;
        for (uint32_t o = 0; o < u->num_outputs; o++)
            if (u->outputs[o].kind == EIR_ARG_TENSOR && alias_read_after(g, u->outputs[o].value, after, depth + 1))
                return true;
    }
    return false;
}

/* An in-place op writing x, a chain of slices and selects of an intermediate tensor or of a
 * buffer or user input of the top-level graph (a KV cache's `self.k[:, a:b] = k`), as
 * `m[:4, 2:6] = v` exports (torchvision's Swin Transformer builds its attention mask
 * so): the functional op on x, then slice_scatter of the result into each view's base (a select's
 * result unsqueezed first), outward to the intermediate, whose later reads take the scattered
 * value (for an input, its mutation output's value). Refused when x,
 * a view between it and the intermediate, or another view of them taken before is read after
 * the write (those would see it). Returns 1 (nothing done) when x is not such a chain. */
static int inplace_through_slices(dc *c, const eir_op_schema *fn, uint32_t x, uint32_t out, eir_status *st) {
    const eir_graph *g = c->g;
    int32_t chain[8];
    uint32_t nchain = 0, v = x;
    while (g->values[v].producer >= 0) {
        const eir_node *pn = &g->nodes[g->values[v].producer];
        bool sl = !strcmp(pn->target, "torch.ops.aten.slice.Tensor"), se = !strcmp(pn->target, "torch.ops.aten.select.int");
        if (!sl && !se) break;
        if (nchain == 8 || pn->num_inputs < 1 || pn->inputs[0].arg.kind != EIR_ARG_TENSOR) return 1;
        if (se) { /* written back as a slice of one: its dim and index known, a negative index of a known size */
            const eir_tensor_meta *bm = meta_of(c, pn->inputs[0].arg.value);
            int64_t d, i;
            if (pn->num_inputs < 3 || !int_of(&pn->inputs[1].arg, &d) || !int_of(&pn->inputs[2].arg, &i)) return 1;
            d = wrap_dim(d, bm->rank);
            if (d < 0 || d >= (int64_t)bm->rank || (i < 0 && bm->sizes[d].is_expr)) return 1;
        }
        chain[nchain++] = g->values[v].producer;
        v = pn->inputs[0].arg.value;
    }
    if (!nchain) return 1;
    if (g->values[v].producer >= 0) {
        const eir_op_schema *rs = eir_op_find(short_op(g->nodes[g->values[v].producer].target));
        if (!rs || (rs->flags & EIR_OPF_VIEW) || eir_op_mutates_args(rs)) return 1;
    } else if (input_record(c, v) < 0) { /* a graph input: a buffer or user input of the top-level graph */
        return 1;
    }
    uint32_t root = v;
    /* x and the views between are not read after the write; nor is another view of any of them */
    for (uint32_t k = 0; k <= nchain; k++) {
        uint32_t w = k < nchain ? g->nodes[chain[k]].outputs[0].value : root;
        if (k < nchain && read_after(g, w, c->node)) {
            *st = dc_refuse(c, "it writes %s through %s, which is read afterwards", g->values[root].name,
                            g->values[w].name);
            return 0;
        }
        for (uint32_t i = (uint32_t)g->values[w].producer + 1; i < c->node; i++) {
            const eir_node *u = &g->nodes[i];
            bool in_chain = false;
            for (uint32_t q = 0; q < nchain; q++) in_chain = in_chain || (int32_t)i == chain[q];
            const eir_op_schema *us = eir_op_find(short_op(u->target));
            if (in_chain || (us && !(us->flags & EIR_OPF_VIEW)) || !u->num_inputs ||
                !arg_names(&u->inputs[0].arg, w))
                continue;
            bool later = false;
            for (uint32_t o = 0; o < u->num_outputs; o++)
                later = later || (u->outputs[o].kind == EIR_ARG_TENSOR && alias_read_after(g, u->outputs[o].value, c->node, 0));
            if (later) {
                *st = dc_refuse(c, "%s, which it writes through %s, is aliased by %%%s (%s), read afterwards",
                                g->values[root].name, g->values[x].name, u->name ? u->name : "?", short_op(u->target));
                return 0;
            }
        }
    }
    if (c->dry) {
        *st = EIR_OK;
        return 0;
    }
    eir_named_arg ins[16], sa[8];
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->src.num_inputs && n < 16; i++)
        if (c->src.inputs[i].kind) ins[n++] = c->src.inputs[i];
    uint32_t nv, cur;
    if ((*st = sh_emit(c, fn->name + 5, n, ins, NULL, &nv))) return 0; /* a fresh tensor: metadata inferred */
    cur = nv;
    for (uint32_t k = 0; k < nchain; k++) { /* innermost view first */
        const eir_node *vn = &c->g->nodes[chain[k]];
        bool sl = !strcmp(vn->target, "torch.ops.aten.slice.Tensor");
        uint32_t base = vn->inputs[0].arg.value, ns = 0;
        sa[ns++] = pos_arg("self", a_tensor(base));
        if (sl) {
            sa[ns++] = pos_arg("src", a_tensor(cur));
            for (uint32_t i = 1; i < vn->num_inputs && ns < 8; i++) sa[ns++] = vn->inputs[i];
        } else { /* select(b, d, i) is slice(b, d, i, i + 1) without dim d: torch's own select_scatter
                  * decomposes (arange, eq, where); this stays two Core ATen ops */
            const eir_tensor_meta *bm = meta_of(c, base);
            int64_t d = 0, i = 0;
            (void)int_of(&vn->inputs[1].arg, &d);
            (void)int_of(&vn->inputs[2].arg, &i);
            d = wrap_dim(d, bm->rank);
            if (i < 0) i += bm->sizes[d].value;
            uint32_t u;
            if ((*st = sh_unsqueeze(c, cur, d, NULL, &u))) return 0;
            sa[ns++] = pos_arg("src", a_tensor(u));
            sa[ns++] = pos_arg("dim", a_int(d));
            sa[ns++] = pos_arg("start", a_int(i));
            sa[ns++] = pos_arg("end", a_int(i + 1));
        }
        if ((*st = sh_emit(c, "slice_scatter.default", ns, sa, NULL, &cur))) return 0;
    }
    if ((*st = finish(c, out, nv))) return 0;
    /* a buffer or user input written (or its latest version): its new value is the scattered one */
    for (uint32_t i = 0; c->muts && i < c->muts->n; i++)
        if (!strcmp(c->muts->m[i].latest, c->g->values[root].name)) c->muts->m[i].latest = c->g->values[cur].name;
    *st = eir_graph_replace_uses(c->p, c->g, root, cur, NULL);
    return 0;
}

static eir_status r_inplace(dc *c, const eir_op_schema *fn) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_value *xv = &c->g->values[x];
    /* the graph input this writes: x itself, or x as its latest version */
    int32_t mi = -1;
    for (uint32_t i = 0; c->muts && i < c->muts->n; i++)
        if (!strcmp(c->muts->m[i].latest, xv->name)) mi = (int32_t)i;
    if (xv->producer < 0 && mi < 0) {
        const eir_input_spec *spec = NULL;
        for (uint32_t i = 0; c->g == c->p->graph && i < c->p->num_input_specs; i++)
            if (c->p->input_specs[i].arg.kind == EIR_ARG_TENSOR && c->p->input_specs[i].arg.value == x)
                spec = &c->p->input_specs[i];
        if (!spec || (spec->kind != EIR_IN_BUFFER && spec->kind != EIR_IN_USER_INPUT))
            return dc_refuse(c, "it writes the graph input %s in place (only buffers and user inputs of the top-level "
                             "graph become mutation outputs)", xv->name);
        if (!c->muts || c->muts->n == sizeof c->muts->m / sizeof *c->muts->m)
            return dc_refuse(c, "too many mutated inputs");
        mutation *m = &c->muts->m[c->muts->n];
        m->input = m->latest = xv->name;
        m->kind = spec->kind == EIR_IN_BUFFER ? EIR_OUT_BUFFER_MUTATION : EIR_OUT_USER_INPUT_MUTATION;
        m->target = spec->kind == EIR_IN_BUFFER ? spec->target : xv->name;
        mi = (int32_t)c->muts->n++;
    }
    const eir_node *pn = xv->producer >= 0 ? &c->g->nodes[xv->producer] : NULL;
    /* a view of x taken before and read after would see the write */
    for (uint32_t i = xv->producer >= 0 ? (uint32_t)xv->producer + 1 : 0; i < c->node; i++) {
        const eir_node *u = &c->g->nodes[i];
        const eir_op_schema *us = eir_op_find(short_op(u->target));
        if (us && !(us->flags & EIR_OPF_VIEW)) continue;
        bool reads = false;
        for (uint32_t j = 0; j < u->num_inputs; j++) reads = reads || arg_names(&u->inputs[j].arg, x);
        if (reads && view_read_after(c->g, u, c->node))
            return dc_refuse(c, "%s, which it writes, is aliased by %%%s (%s), read afterwards", xv->name,
                          u->name ? u->name : "?", short_op(u->target));
    }
    if (!pn) return inplace_emit(c, fn, x, out, mi);
    if (mi < 0 && (!strcmp(pn->target, "torch.ops.aten.as_strided.default") ||
                   !strcmp(pn->target, "torch.ops.aten.detach.default") || !strcmp(pn->target, "torch.ops.aten.alias.default")))
        return inplace_through_view(c, fn, x, out, pn);
    const eir_op_schema *ps = eir_op_find(short_op(pn->target));
    if (mi < 0 && ps && (ps->flags & EIR_OPF_VIEW)) {
        eir_status vst = EIR_OK;
        if (!inplace_through_slices(c, fn, x, out, &vst)) return vst;
    }
    /* an in-place producer is fine when it is itself rewritten (earlier) */
    bool chain = ps && (ps->flags & EIR_OPF_INPLACE) && (ps->flags & EIR_OPF_FUNCTIONAL) && !eir_op_mutates_args(ps);
    if (!ps || (ps->flags & EIR_OPF_VIEW) || ((ps->flags & EIR_OPF_INPLACE) && !chain))
        return dc_refuse(c, "it writes %s, a view or an in-place result of %%%s (%s)", xv->name,
                      pn->name ? pn->name : "?", short_op(pn->target));
    return inplace_emit(c, fn, x, out, mi);
}

/* normal_(x, mean, std) -> normal_functional(x, mean, std), written back
 * as the other in-place ops */
eir_status decomp_normal_inplace(dc *c) {
    const eir_op_schema *fn = eir_op_find("aten.normal_functional.default");
    if (!fn) return dc_refuse(c, "no schema for aten.normal_functional.default");
    if (!is_none(dc_arg_named(c, "generator"))) return dc_refuse(c, "argument 'generator' is not decomposed");
    return r_inplace(c, fn);
}

/* ---- the table ---- */

static const struct { const char *op; rule_fn fn; } RULES[] = {
    {"aten.linear.default", decomp_linear},
    {"aten.conv1d.default", decomp_conv},
    {"aten.conv2d.default", decomp_conv},
    {"aten.conv3d.default", decomp_conv},
    {"aten.conv1d.padding", decomp_conv},
    {"aten.conv2d.padding", decomp_conv},
    {"aten.conv3d.padding", decomp_conv},
    {"aten.conv_transpose1d.default", decomp_conv},
    {"aten.conv_transpose2d.input", decomp_conv},
    {"aten.conv_transpose3d.input", decomp_conv},
    {"aten.batch_norm.default", decomp_batch_norm},
    {"aten.layer_norm.default", decomp_layer_norm},
    {"aten.dropout.default", decomp_dropout},
    {"aten.dropout_.default", decomp_dropout_inplace},
    {"aten.feature_dropout_.default", decomp_dropout_inplace},
    {"aten.alpha_dropout_.default", decomp_dropout_inplace},
    {"aten.feature_alpha_dropout_.default", decomp_dropout_inplace},
    {"aten.feature_dropout.default", decomp_dropout},
    {"aten.alpha_dropout.default", decomp_dropout},
    {"aten.feature_alpha_dropout.default", decomp_dropout},
    {"aten.bernoulli.default", decomp_bernoulli},
    {"aten.normal_.default", decomp_normal_inplace},
    {"aten.histogramdd.default", decomp_histogramdd},
    {"aten.histogramdd.TensorList_bins", decomp_histogramdd},
    {"aten.multilabel_margin_loss.default", decomp_multilabel_margin},
    {"aten.embedding_bag.default", decomp_embedding_bag},
    {"aten.embedding_bag.padding_idx", decomp_embedding_bag},
    {"aten.tensor_split.tensor_indices_or_sections", decomp_tensor_split_tensor},
    {"aten.nonzero_numpy.default", decomp_nonzero_numpy},
    {"aten.combinations.default", decomp_combinations},
    {"aten.stft.default", decomp_stft},
    {"aten.upsample_bicubic2d.vec", decomp_upsample_bicubic},
    {"aten.sum.default", decomp_sum},
    {"aten.transpose.int", decomp_transpose},
    {"aten.t.default", decomp_transpose},
    {"aten.to.dtype", decomp_to},
    {"aten.to.dtype_layout", decomp_to},
    {"aten.to.device", decomp_to},
    {"aten.contiguous.default", decomp_contiguous},
    {"aten.reshape.default", decomp_reshape},
    {"aten.flatten.using_ints", decomp_reshape},
    {"aten.unflatten.int", decomp_reshape},
    {"aten.view_as.default", decomp_reshape},
    {"aten.reshape_as.default", decomp_reshape},
    {"aten.zeros.default", decomp_fill},
    {"aten.ones.default", decomp_fill},
    {"aten.zeros_like.default", decomp_fill},
    {"aten.ones_like.default", decomp_fill},
    {"aten.new_zeros.default", decomp_fill},
    {"aten.new_ones.default", decomp_fill},
    {"aten.new_full.default", decomp_fill},
    {"aten.silu.default", decomp_activation},
    {"aten.hardswish.default", decomp_activation},
    {"aten.hardsigmoid.default", decomp_activation},
    {"aten.relu6.default", decomp_activation},
    {"aten.matmul.default", decomp_matmul},
    {"aten.max_pool2d.default", decomp_max_pool},
    {"aten.max_pool3d.default", decomp_max_pool},
    {"aten.adaptive_avg_pool1d.default", decomp_adaptive_avg_pool},
    {"aten.adaptive_avg_pool2d.default", decomp_adaptive_avg_pool},
    {"aten.adaptive_avg_pool3d.default", decomp_adaptive_avg_pool},
    {"aten.split.Tensor", decomp_split},
    {"aten.__and__.Tensor", decomp_rename},
    {"aten.__or__.Tensor", decomp_rename},
    {"aten.__xor__.Tensor", decomp_rename},
    {"aten.__and__.Scalar", decomp_rename},
    {"aten.__or__.Scalar", decomp_rename},
    {"aten.__xor__.Scalar", decomp_rename},
    {"aten.arange.start", decomp_rename},
    {"aten.arange.default", decomp_rename},
    {"aten.item.default", decomp_item},
    {"aten.scaled_dot_product_attention.default", decomp_sdpa},
    {"aten.squeeze.dim", decomp_squeeze},
    {"aten.real.default", decomp_real_imag},
    {"aten.imag.default", decomp_real_imag},
    {"aten.group_norm.default", decomp_group_norm},
    {"aten.pad.default", decomp_pad},
    {"aten.repeat_interleave.self_int", decomp_repeat_interleave},
    {"aten.repeat_interleave.self_Tensor", decomp_repeat_interleave},
    {"aten.lstm.input", decomp_lstm},
    {"aten.softmax.int", decomp_softmax},
    {"aten.log_softmax.int", decomp_softmax},
    {"aten.rsub.Tensor", decomp_rsub},
    {"aten.rsub.Scalar", decomp_rsub},
    {"aten.detach.default", decomp_rename},
    {"aten.divide.Tensor", decomp_rename},
    {"aten.divide.Tensor_mode", decomp_rename},
    {"aten.subtract.Tensor", decomp_rename},
    {"aten.broadcast_to.default", decomp_rename},
    {"aten.lift_fresh_copy.default", decomp_lift_detach},
    {"aten.detach_.default", decomp_lift_detach},
    {"aten.einsum.default", decomp_einsum},
    {"aten.rms_norm.default", decomp_rms_norm},
    {"aten.mse_loss.default", decomp_pointwise_loss},
    {"aten.l1_loss.default", decomp_pointwise_loss},
    {"aten.huber_loss.default", decomp_pointwise_loss},
    {"aten.smooth_l1_loss.default", decomp_pointwise_loss},
    {"aten.broadcast_tensors.default", decomp_broadcast_tensors},
    {"aten.msort.default", decomp_msort},
    {"aten.mT.default", decomp_mT},
    /* pointwise, activations, reductions, losses */
    {"aten.square.default", decomp_pw_unary},
    {"aten.positive.default", decomp_pw_unary},
    {"aten.frac.default", decomp_pw_unary},
    {"aten.deg2rad.default", decomp_pw_unary},
    {"aten.rad2deg.default", decomp_pw_unary},
    {"aten.sgn.default", decomp_pw_unary},
    {"aten.selu.default", decomp_pw_unary},
    {"aten.special_polygamma.default", decomp_pw_unary},
    {"aten.isposinf.default", decomp_pw_unary},
    {"aten.isneginf.default", decomp_pw_unary},
    {"aten.isreal.default", decomp_pw_unary},
    {"aten.max.other", decomp_pw_binary},
    {"aten.min.other", decomp_pw_binary},
    {"aten.true_divide.Tensor", decomp_pw_binary},
    {"aten.floor_divide.default", decomp_pw_binary},
    {"aten.clamp_min.default", decomp_pw_binary},
    {"aten.clamp_min.Tensor", decomp_pw_binary},
    {"aten.clamp_max.default", decomp_pw_binary},
    {"aten.clamp_max.Tensor", decomp_pw_binary},
    {"aten.masked_fill.Scalar", decomp_pw_binary},
    {"aten.masked_fill.Tensor", decomp_pw_binary},
    {"aten.float_power.Tensor_Tensor", decomp_float_power},
    {"aten.float_power.Tensor_Scalar", decomp_float_power},
    {"aten.sinc.default", decomp_pw_chain},
    {"aten.logit.default", decomp_pw_chain},
    {"aten.special_entr.default", decomp_pw_chain},
    {"aten.special_ndtr.default", decomp_pw_chain},
    {"aten.special_log_ndtr.default", decomp_pw_chain},
    {"aten.hardshrink.default", decomp_pw_chain},
    {"aten.softshrink.default", decomp_pw_chain},
    {"aten.threshold.default", decomp_pw_chain},
    {"aten.softplus.default", decomp_pw_chain},
    {"aten.celu.default", decomp_pw_chain},
    {"aten.mish.default", decomp_pw_chain},
    {"aten.log_sigmoid.default", decomp_pw_chain},
    {"aten.isfinite.default", decomp_pw_chain},
    {"aten.nan_to_num.default", decomp_pw_chain},
    {"aten.xlogy.Tensor", decomp_pw_chain2},
    {"aten.special_xlog1py.default", decomp_pw_chain2},
    {"aten.heaviside.default", decomp_pw_chain2},
    {"aten.logaddexp.default", decomp_pw_chain2},
    {"aten.logaddexp2.default", decomp_pw_chain2},
    {"aten.lerp.Scalar", decomp_pw_chain2},
    {"aten.lerp.Tensor", decomp_pw_chain2},
    {"aten.addcdiv.default", decomp_pw_chain2},
    {"aten.addcmul.default", decomp_pw_chain2},
    {"aten.isclose.default", decomp_pw_chain2},
    {"aten.glu.default", decomp_glu},
    {"aten.prelu.default", decomp_prelu},
    {"aten.logsumexp.default", decomp_logsumexp},
    {"aten.nansum.default", decomp_nan_reduce},
    {"aten.nanmean.default", decomp_nan_reduce},
    {"aten.count_nonzero.default", decomp_nan_reduce},
    {"aten.count_nonzero.dim_IntList", decomp_nan_reduce},
    {"aten.std.default", decomp_var_std},
    {"aten.std.dim", decomp_var_std},
    {"aten.std.correction", decomp_var_std},
    {"aten.var.default", decomp_var_std},
    {"aten.var.dim", decomp_var_std},
    {"aten.std_mean.default", decomp_var_std},
    {"aten.std_mean.dim", decomp_var_std},
    {"aten.std_mean.correction", decomp_var_std},
    {"aten.var_mean.default", decomp_var_std},
    {"aten.var_mean.dim", decomp_var_std},
    {"aten.all.default", decomp_all},
    {"aten.all.dim", decomp_all},
    {"aten.all.dims", decomp_all},
    {"aten.aminmax.default", decomp_aminmax},
    {"aten.mvlgamma.default", decomp_mvlgamma},
    {"aten.renorm.default", decomp_renorm},
    {"aten._safe_softmax.default", decomp_safe_softmax},
    {"aten.rrelu.default", decomp_rrelu},
    {"aten.binary_cross_entropy.default", decomp_loss_pointwise},
    {"aten.binary_cross_entropy_with_logits.default", decomp_loss_pointwise},
    {"aten.kl_div.default", decomp_loss_pointwise},
    {"aten.margin_ranking_loss.default", decomp_loss_pointwise},
    {"aten.soft_margin_loss.default", decomp_loss_pointwise},
    {"aten.poisson_nll_loss.default", decomp_loss_pointwise},
    {"aten.hinge_embedding_loss.default", decomp_loss_pointwise},
    {"aten.pairwise_distance.default", decomp_distance},
    {"aten.triplet_margin_loss.default", decomp_distance},
    {"aten.cosine_similarity.default", decomp_cosine_similarity},
    {"aten.nll_loss_nd.default", decomp_nll_ce},
    {"aten.cross_entropy_loss.default", decomp_nll_ce},
    {"aten.cosine_embedding_loss.default", decomp_cosine_embedding},
    {"aten.multi_margin_loss.default", decomp_multi_margin},
    /* shapes, views, factories, indexing, linear algebra */
    {"aten.squeeze.default", decomp_squeeze_all},
    {"aten.squeeze_copy.default", decomp_squeeze_all},
    {"aten.squeeze_copy.dim", decomp_squeeze_all},
    {"aten.alias_copy.default", decomp_view_copy},
    {"aten.t_copy.default", decomp_view_copy},
    {"aten.transpose_copy.int", decomp_view_copy},
    {"aten.unsqueeze_copy.default", decomp_view_copy},
    {"aten.expand_copy.default", decomp_view_copy},
    {"aten.diagonal_copy.default", decomp_view_copy},
    {"aten.unfold_copy.default", decomp_view_copy},
    {"aten.split_with_sizes_copy.default", decomp_view_copy},
    {"aten.atleast_1d.default", decomp_atleast},
    {"aten.atleast_2d.default", decomp_atleast},
    {"aten.atleast_3d.default", decomp_atleast},
    {"aten.stack.default", decomp_stack},
    {"aten.hstack.default", decomp_stack},
    {"aten.vstack.default", decomp_stack},
    {"aten.dstack.default", decomp_stack},
    {"aten.column_stack.default", decomp_stack},
    {"aten.unbind.int", decomp_unbind},
    {"aten.chunk.default", decomp_chunk},
    {"aten.unsafe_chunk.default", decomp_chunk},
    {"aten.unsafe_split.Tensor", decomp_chunk},
    {"aten.tensor_split.sections", decomp_tensor_split},
    {"aten.tensor_split.indices", decomp_tensor_split},
    {"aten.hsplit.int", decomp_tensor_split},
    {"aten.hsplit.array", decomp_tensor_split},
    {"aten.vsplit.int", decomp_tensor_split},
    {"aten.vsplit.array", decomp_tensor_split},
    {"aten.dsplit.int", decomp_tensor_split},
    {"aten.dsplit.array", decomp_tensor_split},
    {"aten.narrow.default", decomp_narrow},
    {"aten.movedim.intlist", decomp_movedim},
    {"aten.movedim.int", decomp_movedim},
    {"aten.numpy_T.default", decomp_movedim},
    {"aten.mH.default", decomp_movedim},
    {"aten.matrix_H.default", decomp_movedim},
    {"aten.ravel.default", decomp_ravel},
    {"aten.fliplr.default", decomp_flip},
    {"aten.flipud.default", decomp_flip},
    {"aten.rot90.default", decomp_flip},
    {"aten.roll.default", decomp_roll},
    {"aten.tile.default", decomp_tile},
    {"aten.expand_as.default", decomp_expand_as},
    {"aten.tril.default", decomp_tril},
    {"aten.triu.default", decomp_tril},
    {"aten.meshgrid.indexing", decomp_meshgrid},
    {"aten.cartesian_prod.default", decomp_cartesian_prod},
    {"aten.kron.default", decomp_kron},
    {"aten.eye.default", decomp_eye},
    {"aten.eye.m", decomp_eye},
    {"aten.diagflat.default", decomp_diagonal},
    {"aten.new_empty.default", decomp_empty},
    {"aten.empty_like.default", decomp_empty},
    {"aten.zero.default", decomp_zero},
    {"aten.fill.Tensor", decomp_fill_tensor},
    {"aten.resolve_conj.default", decomp_resolve},
    {"aten.resolve_neg.default", decomp_resolve},
    {"aten.pixel_shuffle.default", decomp_shuffle},
    {"aten.pixel_unshuffle.default", decomp_shuffle},
    {"aten.channel_shuffle.default", decomp_shuffle},
    {"aten.diff.default", decomp_diff},
    {"aten.take.default", decomp_take},
    {"aten.index_fill.int_Scalar", decomp_index_fill},
    {"aten.index_fill.int_Tensor", decomp_index_fill},
    {"aten.index_copy.default", decomp_index_fill},
    {"aten.index_add.default", decomp_index_fill},
    {"aten.sum_to_size.default", decomp_sum_to_size},
    {"aten.max_pool1d.default", decomp_max_pool1d},
    {"aten.max_pool1d_with_indices.default", decomp_max_pool1d},
    {"aten.adaptive_max_pool1d.default", decomp_max_pool1d},
    {"aten.linspace.default", decomp_linspace},
    {"aten.logspace.default", decomp_linspace},
    {"aten.block_diag.default", decomp_block_diag},
    {"aten.take_along_dim.default", decomp_take_along_dim},
    {"aten.trapezoid.dx", decomp_trapezoid},
    {"aten.trapz.dx", decomp_trapezoid},
    {"aten.cumulative_trapezoid.dx", decomp_trapezoid},
    {"aten.trapezoid.x", decomp_trapezoid},
    {"aten.trapz.x", decomp_trapezoid},
    {"aten.cumulative_trapezoid.x", decomp_trapezoid},
    {"aten.logdet.default", decomp_logdet},
    {"aten.native_batch_norm.default", decomp_native_bn},
    {"aten._chunk_cat.default", decomp_chunk_cat},
    {"aten.instance_norm.default", decomp_instance_norm},
    {"aten.upsample_nearest1d.vec", decomp_upsample_nearest},
    {"aten.upsample_nearest3d.vec", decomp_upsample_nearest},
    {"aten._upsample_nearest_exact1d.vec", decomp_upsample_nearest},
    {"aten._upsample_nearest_exact2d.vec", decomp_upsample_nearest},
    {"aten._upsample_nearest_exact3d.vec", decomp_upsample_nearest},
    {"aten.fft_fftshift.default", decomp_roll},
    {"aten.fft_ifftshift.default", decomp_roll},
    {"aten.outer.default", decomp_outer},
    {"aten.dot.default", decomp_dot},
    {"aten.vdot.default", decomp_dot},
    {"aten.mv.default", decomp_dot},
    {"aten.linalg_vecdot.default", decomp_dot},
    {"aten.inner.default", decomp_tensordot},
    {"aten.tensordot.default", decomp_tensordot},
    {"aten.addr.default", decomp_addr},
    {"aten.baddbmm.default", decomp_baddbmm},
    {"aten.diag.default", decomp_diagonal},
    {"aten.trace.default", decomp_diagonal},
    {"aten.linalg_diagonal.default", decomp_diagonal},
    {"aten.linalg_matrix_power.default", decomp_matrix_power},
    {"aten.linalg_multi_dot.default", decomp_multi_dot},
    {"aten.linalg_svd.default", decomp_linalg_front},
    {"aten.linalg_svdvals.default", decomp_linalg_front},
    {"aten.linalg_eigh.default", decomp_linalg_front},
    {"aten.linalg_eigvalsh.default", decomp_linalg_front},
    {"aten.linalg_det.default", decomp_linalg_front},
    {"aten.linalg_slogdet.default", decomp_linalg_front},
    /* FFT, upsampling, unpooling, distances, indexing */
    {"aten.fft_fft.default", decomp_fft},
    {"aten.fft_ifft.default", decomp_fft},
    {"aten.fft_rfft.default", decomp_fft},
    {"aten.fft_irfft.default", decomp_fft},
    {"aten.fft_hfft.default", decomp_fft},
    {"aten.fft_ihfft.default", decomp_fft},
    {"aten.fft_fft2.default", decomp_fft},
    {"aten.fft_ifft2.default", decomp_fft},
    {"aten.fft_rfft2.default", decomp_fft},
    {"aten.fft_irfft2.default", decomp_fft},
    {"aten.fft_hfft2.default", decomp_fft},
    {"aten.fft_ihfft2.default", decomp_fft},
    {"aten.fft_fftn.default", decomp_fft},
    {"aten.fft_ifftn.default", decomp_fft},
    {"aten.fft_rfftn.default", decomp_fft},
    {"aten.fft_irfftn.default", decomp_fft},
    {"aten.fft_hfftn.default", decomp_fft},
    {"aten.fft_ihfftn.default", decomp_fft},
    {"aten.upsample_linear1d.vec", decomp_upsample_linear},
    {"aten.upsample_trilinear3d.vec", decomp_upsample_linear},
    {"aten.argsort.default", decomp_argsort},
    {"aten.argsort.stable", decomp_argsort},
    {"aten.conj_physical.default", decomp_conj_physical},
    {"aten.max_unpool2d.default", decomp_max_unpool},
    {"aten.max_unpool3d.default", decomp_max_unpool},
    {"aten.cdist.default", decomp_cdist},
    {"aten.pdist.default", decomp_pdist},
    {"aten._softmax_backward_data.default", decomp_softmax_backward},
    {"aten.linalg_vander.default", decomp_vander},
    {"aten.bilinear.default", decomp_bilinear},
    {"aten.isin.Tensor_Tensor", decomp_isin},
    {"aten.cross.default", decomp_cross},
    {"aten.linalg_cross.default", decomp_cross},
    {"aten.diag_embed.default", decomp_diag_embed},
    {"aten.argwhere.default", decomp_argwhere},
    {"aten.im2col.default", decomp_im2col},
    {"aten._unsafe_masked_index.default", decomp_masked_index},
    /* ranges, batch / instance norm forms, quantiles, linear algebra, padding */
    {"aten.linspace.Tensor_Tensor", decomp_linspace_tensor},
    {"aten.linspace.Tensor_Scalar", decomp_linspace_tensor},
    {"aten.linspace.Scalar_Tensor", decomp_linspace_tensor},
    {"aten.logspace.Tensor_Tensor", decomp_linspace_tensor},
    {"aten.logspace.Tensor_Scalar", decomp_linspace_tensor},
    {"aten.logspace.Scalar_Tensor", decomp_linspace_tensor},
    {"aten.native_dropout_backward.default", decomp_dropout_backward},
    {"aten._unsafe_masked_index_put_accumulate.default", decomp_masked_index_put},
    {"aten.quantile.scalar", decomp_quantile},
    {"aten.nanquantile.scalar", decomp_quantile},
    {"aten.svd.default", decomp_svd},
    {"aten.matrix_exp.default", decomp_matrix_exp},
    {"aten.resize_as.default", decomp_resize_as},
    {"aten.linalg_matrix_norm.default", decomp_matrix_norm},
    {"aten.linalg_matrix_norm.str_ord", decomp_matrix_norm},
    {"aten.linalg_norm.default", decomp_matrix_norm},
    {"aten.linalg_cond.default", decomp_cond},
    {"aten.linalg_pinv.atol_rtol_float", decomp_pinv_float},
    {"aten.pinverse.default", decomp_pinv_float},
    /* error checks through effect tokens */
    {"aten.linalg_inv.default", decomp_checked_linalg},
    {"aten.linalg_tensorinv.default", decomp_checked_linalg},
    {"aten.linalg_tensorsolve.default", decomp_checked_linalg},
    {"aten.linalg_cholesky.default", decomp_checked_linalg},
    {"aten.linalg_solve.default", decomp_checked_linalg},
    {"aten.linalg_lu_factor.default", decomp_checked_linalg},
    {"aten.linalg_ldl_factor.default", decomp_checked_linalg},
    {"aten.lu_solve.default", decomp_checked_linalg},
    {"aten._print.default", decomp_print},
    {"aten._native_batch_norm_legit.default", decomp_bn_update},
    {"aten._batch_norm_with_update.default", decomp_bn_update},
    {"aten.linalg_matrix_rank.atol_rtol_float", decomp_matrix_rank},
    {"aten.linalg_matrix_rank.atol_rtol_tensor", decomp_matrix_rank},
    {"aten.gradient.scalarint", decomp_gradient},
    {"aten.gradient.scalararray", decomp_gradient},
    {"aten.gradient.scalarrayint", decomp_gradient},
    {"aten.gradient.scalarrayarray", decomp_gradient},
    {"aten.gradient.array", decomp_gradient},
    {"aten.gradient.tensorarray", decomp_gradient},
    {"aten.gradient.tensorarrayint", decomp_gradient},
    {"aten.linalg_solve_ex.default", decomp_keep_front},
    {"aten.qr.default", decomp_keep_front},
    {"aten._lu_with_info.default", decomp_keep_front},
    {"aten.linalg_eigvals.default", decomp_keep_front},
    {"aten.grid_sampler.default", decomp_keep_front},
    {"aten._upsample_bilinear2d_aa.vec", decomp_keep_front},
};

static const char *const CIA[] = {
#include "decomp_cia.inc"
};

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

bool eir_decomp_torch_rewrites(const char *op) {
    if (!op) return false;
    if (!strncmp(op, "torch.ops.", 10)) op += 10;
    return bsearch(&op, CIA, sizeof CIA / sizeof *CIA, sizeof *CIA, cmp_str) != NULL;
}

uint32_t eir_decomp_num_rules(void) { return sizeof RULES / sizeof *RULES; }

const char *eir_decomp_rule(uint32_t i) { return i < eir_decomp_num_rules() ? RULES[i].op : NULL; }

static rule_fn rule_for(const char *op) {
    for (uint32_t i = 0; i < sizeof RULES / sizeof *RULES; i++)
        if (!strcmp(RULES[i].op, op)) return RULES[i].fn;
    return NULL;
}

static eir_status run_graph(eir_program *p, eir_graph *g, bool dry, mut_state *muts, unbacked_plan *unb,
                            uint32_t *changed) {
    dc *c = calloc(1, sizeof *c);
    if (!c) return eir_fail(p, EIR_ERR_NOMEM, "to-core: out of memory");
    eir_status st = EIR_OK;
    for (uint32_t i = 0; i < g->num_nodes && !st; i++) {
        const eir_node *nd = &g->nodes[i];
        /* nested graphs first (control flow bodies) */
        for (uint32_t j = 0; j < nd->num_inputs && !st; j++) {
            const eir_arg *a = &nd->inputs[j].arg;
            if (a->kind == EIR_ARG_GRAPH && a->u.graph.graph) st = run_graph(p, a->u.graph.graph, dry, NULL, unb, changed);
        }
        if (st) break;
        nd = &g->nodes[i];
        const char *op = short_op(nd->target);
        rule_fn fn = rule_for(op);
        const eir_op_schema *fs = NULL, *s = NULL;
        if (!fn && (s = eir_op_find(op)) && (s->flags & EIR_OPF_FUNCTIONAL) && !eir_op_mutates_args(s))
            fs = eir_op_inplace_functional(s);
        if (!fn && !fs) continue;
        c->p = p;
        c->g = g;
        c->pos = i;
        c->node = i;
        c->src = *nd;
        c->op = op;
        c->dry = dry;
        c->muts = muts;
        c->size_src = EIR_NO_VALUE;
        c->unb = unb;
        c->npool = 0;
        c->kept = false;
        st = fn ? fn(c) : r_inplace(c, fs);
        /* an in-place op whose functional form has a rule of its own: the
         * checking round checks that rule on this node too (same argument
         * names), the rewriting round visits the functional node next */
        rule_fn ff = !fn && fs ? rule_for(fs->name) : NULL;
        if (!st && ff && dry) {
            c->op = fs->name;
            st = ff(c);
        }
        if (st || dry) continue;
        if (c->kept) {
            (*changed)++;
            continue;
        }
        /* c->node is where the decomposed node now sits */
        st = eir_graph_erase_node(p, g, c->node);
        if (st) break;
        (*changed)++;
        i = ff ? i - 1 : c->pos - 1;
    }
    free(c);
    return st;
}

static uint32_t value_by_name(const eir_graph *g, const char *name) {
    for (uint32_t i = 0; i < g->num_values; i++)
        if (!strcmp(g->values[i].name, name)) return i;
    return EIR_NO_VALUE;
}

/* The mutated inputs' latest values become BUFFER_MUTATION /
 * USER_INPUT_MUTATION outputs, ahead of the others, in input order (as
 * torch's functionalization writes them). */
static eir_status add_mutation_outputs(eir_program *p, const mut_state *ms) {
    if (!ms->n) return EIR_OK;
    eir_graph *g = p->graph;
    uint32_t n = g->num_outputs, ns = p->num_output_specs, k = 0;
    eir_arg *outs = eir_arena_array(&p->arena, n + ms->n, sizeof *outs);
    eir_output_spec *specs = eir_arena_array(&p->arena, ns + ms->n, sizeof *specs);
    if (!outs || !specs) return eir_fail(p, EIR_ERR_NOMEM, "to-core: out of memory");
    for (uint32_t in = 0; in < g->num_inputs; in++) {
        const eir_arg *ia = &g->inputs[in];
        if (ia->kind != EIR_ARG_TENSOR || ia->value >= g->num_values) continue;
        for (uint32_t i = 0; i < ms->n; i++) {
            if (strcmp(ms->m[i].input, g->values[ia->value].name)) continue;
            uint32_t v = value_by_name(g, ms->m[i].latest);
            if (v == EIR_NO_VALUE) return eir_fail(p, EIR_ERR_GRAPH, "to-core: lost the value %s", ms->m[i].latest);
            eir_arg a = {0};
            a.kind = EIR_ARG_TENSOR;
            a.value = v;
            a.name = g->values[v].name;
            outs[k] = a;
            memset(&specs[k], 0, sizeof specs[k]);
            specs[k].kind = ms->m[i].kind;
            specs[k].arg = a;
            specs[k].target = ms->m[i].target;
            k++;
        }
    }
    if (k != ms->n) return eir_fail(p, EIR_ERR_GRAPH, "to-core: a mutated input is not a graph input");
    memcpy(outs + k, g->outputs, n * sizeof *outs);
    memcpy(specs + k, p->output_specs, ns * sizeof *specs);
    g->outputs = outs;
    g->num_outputs = n + k;
    p->output_specs = specs;
    p->num_output_specs = ns + k;
    return EIR_OK;
}

eir_status eir_pass_to_core(eir_program *p, uint32_t *changed) {
    uint32_t n = 0;
    mut_state *ms = calloc(1, sizeof *ms);
    if (!ms) return eir_fail(p, EIR_ERR_NOMEM, "to-core: out of memory");
    unbacked_plan unb = {0};
    eir_status st = run_graph(p, p->graph, true, ms, &unb, &n);
    if (!st && unb.planned) {
        /* the converted graph binds what the original does, and the new symbols */
        unb.base = eir_program_unbacked_base(p);
        st = eir_graph_unbacked_bindings(p, p->graph, p->graph->num_nodes, &unb.total);
        unb.total += unb.planned;
        decomp_retrace_names(p, &unb);
    }
    if (!st) {
        ms->n = 0;
        st = run_graph(p, p->graph, false, ms, &unb, changed);
    }
    if (!st) st = add_mutation_outputs(p, ms);
    free(ms);
    /* run_decompositions() leaves a program of the ATEN dialect (which
     * also makes torch's ep.module() take out the effect tokens) */
    static const char *const aten[] = {"ATEN"};
    if (!st && p->num_verifiers == 1 && !strcmp(p->verifiers[0], "TRAINING")) p->verifiers = (const char **)aten;
    return st;
}
