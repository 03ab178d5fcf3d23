/* decomp_build.c — the to-core pass's building blocks: errors that name the
 * node, readers of a node's arguments, builders of new arguments and nodes
 * (each with the metadata torch's meta kernels give it), views, reshapes,
 * permutes and batched matrix products shared by the rules. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decomp_int.h"
#include "../ir/edit.h"

/* ---- errors ---- */

eir_status dc_refuse(dc *c, const char *fmt, ...) {
    eir_buf b, src;
    eir_buf_init(&b);
    eir_buf_init(&src);
    eir_buf_printf(&b, "to-core: node %%%s (%s): cannot decompose: ", c->src.name ? c->src.name : "?", c->op);
    va_list ap;
    va_start(ap, fmt);
    eir_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    for (uint32_t i = 0; i < c->src.num_metadata; i++)
        if (!strcmp(c->src.metadata[i].key, "stack_trace") && eir_stack_user_line(&src, c->src.metadata[i].value) &&
            src.data)
            eir_buf_printf(&b, " [%s]", src.data);
    eir_status st = eir_fail(c->p, EIR_ERR_GRAPH, "%s", b.data ? b.data : "to-core: out of memory");
    eir_buf_free(&b);
    eir_buf_free(&src);
    return st;
}

/* ---- reading arguments ---- */

const eir_arg *dc_arg_named(const dc *c, const char *name) {
    for (uint32_t i = 0; i < c->src.num_inputs; i++)
        if (c->src.inputs[i].kind && !strcmp(c->src.inputs[i].name, name)) return &c->src.inputs[i].arg;
    return NULL;
}

/* The tensor value an argument names, or EIR_NO_VALUE. */
uint32_t dc_tensor_of(const dc *c, const char *name) {
    const eir_arg *a = dc_arg_named(c, name);
    if (!a || (a->kind != EIR_ARG_TENSOR && a->kind != EIR_ARG_OPTIONAL_TENSOR) || a->value >= c->g->num_values ||
        c->g->values[a->value].kind != EIR_VALUE_TENSOR)
        return EIR_NO_VALUE;
    return a->value;
}

/* A concrete int list; *n receives its length. */
bool dc_ints_of(const eir_arg *a, int64_t *out, uint32_t max, uint32_t *n) {
    if (!a) return false;
    if (a->kind == EIR_ARG_INT || (a->kind == EIR_ARG_SYM_INT && a->literal)) {
        out[0] = a->u.i;
        *n = 1;
        return true;
    }
    if (a->kind != EIR_ARG_INTS && a->kind != EIR_ARG_SYM_INTS) return false;
    if (a->u.list.n > max) return false;
    for (uint32_t i = 0; i < a->u.list.n; i++)
        if (!int_of(&a->u.list.items[i], &out[i])) return false;
    *n = a->u.list.n;
    return true;
}

bool dc_bool_arg(const dc *c, const char *name, bool def, bool *out) {
    const eir_arg *a = dc_arg_named(c, name);
    if (is_none(a)) { *out = def; return true; }
    if (a->kind == EIR_ARG_BOOL) { *out = a->u.b; return true; }
    if (a->kind == EIR_ARG_SYM_BOOL && a->literal) { *out = a->u.b; return true; }
    return false;
}

bool dc_float_arg(const dc *c, const char *name, double def, double *out) {
    const eir_arg *a = dc_arg_named(c, name);
    if (is_none(a)) { *out = def; return true; }
    if (a->kind == EIR_ARG_FLOAT) { *out = a->u.f; return true; }
    int64_t i;
    if (int_of(a, &i)) { *out = (double)i; return true; }
    return false;
}

/* An int list from concrete values (items from the pool). */
eir_arg dc_a_ints(dc *c, const int64_t *v, uint32_t n) {
    eir_arg a = {0};
    a.kind = EIR_ARG_INTS;
    if (c->npool + n > POOL) n = 0; /* callers bound n by MAXR */
    a.u.list.items = &c->pool[c->npool];
    a.u.list.n = n;
    for (uint32_t i = 0; i < n; i++) c->pool[c->npool++] = a_int(v[i]);
    return a;
}

/* A size list for a shape of possibly symbolic sizes: concrete ones as ints,
 * a single symbolic one as -1 (view / expand infer it); false if more than
 * one is symbolic. */
static bool a_size_list(dc *c, const eir_symint *sz, uint32_t n, bool minus_one_ok, eir_arg *out) {
    int64_t v[MAXR] = {0};
    uint32_t nsym = 0;
    if (n > MAXR) return false;
    for (uint32_t i = 0; i < n; i++) {
        if (sz[i].is_expr) { v[i] = -1; nsym++; }
        else v[i] = sz[i].value;
    }
    if (nsym > (minus_one_ok ? 1u : 0u)) return false;
    *out = dc_a_ints(c, v, n);
    return true;
}

void dc_tm_from(tm *t, const eir_tensor_meta *m) {
    t->m = *m;
    uint32_t r = m->rank < MAXR ? m->rank : MAXR;
    t->m.rank = r;
    for (uint32_t i = 0; i < r; i++) {
        t->sz[i] = m->sizes[i];
        t->st[i] = m->strides[i];
    }
    t->m.sizes = t->sz;
    t->m.strides = t->st;
}

/* Contiguous strides for t's sizes, as torch computes them (a size 0 or 1
 * counts as 1); false when a stride would be a product with a symbolic
 * size. */
bool dc_tm_contig(tm *t) {
    int64_t expect = 1;
    bool sym = false;
    eir_symint symst = {0};
    for (uint32_t d = t->m.rank; d-- > 0;) {
        if (sym) {
            /* past a symbolic size: only the symbol times the 1s before it */
            if (expect != 1) return false;
            t->st[d] = symst;
            if (t->sz[d].is_expr || t->sz[d].value > 1) {
                if (d > 0) return false;
            }
            continue;
        }
        t->st[d] = si(expect);
        if (t->sz[d].is_expr) {
            if (d == 0) continue;
            if (expect != 1) return false;
            sym = true;
            symst = t->sz[d];
            continue;
        }
        expect *= t->sz[d].value > 1 ? t->sz[d].value : 1;
    }
    t->m.storage_offset = si(0);
    return true;
}

bool dc_meta_concrete_sizes(const eir_tensor_meta *m) {
    for (uint32_t i = 0; i < m->rank; i++)
        if (m->sizes[i].is_expr) return false;
    return true;
}

/* Whether m is contiguous (strides of sizes 1 ignored); false when unknown. */
bool dc_meta_contiguous(const eir_tensor_meta *m) {
    if (m->rank > MAXR) return false;
    tm t;
    dc_tm_from(&t, m);
    if (!dc_tm_contig(&t)) return false;
    for (uint32_t d = 0; d < m->rank; d++) {
        if (!m->sizes[d].is_expr && m->sizes[d].value <= 1) continue;
        if (!si_eq(m->strides[d], t.st[d])) return false;
    }
    return true;
}

bool dc_meta_same_geometry(const eir_tensor_meta *a, const eir_tensor_meta *b) {
    if (a->rank != b->rank || a->dtype != b->dtype) return false;
    for (uint32_t d = 0; d < a->rank; d++)
        if (!si_eq(a->sizes[d], b->sizes[d]) || !si_eq(a->strides[d], b->strides[d])) return false;
    return si_eq(a->storage_offset, b->storage_offset);
}

/* torch's computeStride: the strides of a view of (sizes, strides) as
 * newsizes, all concrete; false when no view exists. */
static bool view_strides(const int64_t *osz, const int64_t *ost, uint32_t orank, const int64_t *nsz, uint32_t nrank,
                         int64_t *nst) {
    int64_t numel = 1;
    for (uint32_t i = 0; i < orank; i++) numel *= osz[i];
    if (numel == 0) {
        int64_t e = 1;
        for (uint32_t d = nrank; d-- > 0;) { nst[d] = e; e *= nsz[d] > 1 ? nsz[d] : 1; }
        return true;
    }
    if (orank == 0) {
        for (uint32_t d = 0; d < nrank; d++) nst[d] = 1;
        return true;
    }
    int64_t view_d = (int64_t)nrank - 1;
    int64_t chunk_base_stride = ost[orank - 1];
    int64_t tensor_numel = 1, view_numel = 1;
    for (int64_t td = (int64_t)orank - 1; td >= 0; td--) {
        tensor_numel *= osz[td];
        if (td == 0 || (osz[td - 1] != 1 && ost[td - 1] != tensor_numel * chunk_base_stride)) {
            while (view_d >= 0 && (view_numel < tensor_numel || nsz[view_d] == 1)) {
                nst[view_d] = view_numel * chunk_base_stride;
                view_numel *= nsz[view_d];
                view_d--;
            }
            if (view_numel != tensor_numel) return false;
            if (td > 0) {
                chunk_base_stride = ost[td - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    return view_d == -1;
}

/* ---- emitting nodes ---- */

/* Adds a node calling aten.<target> before the decomposed one, with one
 * tensor output of metadata m (or, with nout > 1, nout outputs of metas
 * ms[]; list_out: one Tensor[] output). The new node carries the
 * decomposed node's metadata. */
eir_status dc_emit_n(dc *c, const char *target, uint32_t nin, const eir_named_arg *ins, uint32_t nout,
                         const eir_tensor_meta *const *ms, const char *hint, bool list_out, uint32_t *vals) {
    eir_program *p = c->p;
    eir_graph *g = c->g;
    char full[128];
    snprintf(full, sizeof full, "torch.ops.aten.%s", target);
    eir_arg outs[MAXR + 1], items[MAXR + 1];
    if (nout > MAXR) return dc_refuse(c, "too many outputs");
    for (uint32_t i = 0; i < nout; i++) {
        uint32_t v = eir_graph_add_value(p, g, EIR_VALUE_TENSOR, ms[i], nout > 1 ? "getitem" : hint);
        if (v == EIR_NO_VALUE) return eir_fail(p, EIR_ERR_NOMEM, "to-core: out of memory");
        vals[i] = v;
        items[i] = a_tensor(v);
        outs[i] = items[i];
    }
    uint32_t no = nout;
    if (list_out) {
        eir_arg l = {0};
        l.kind = EIR_ARG_TENSORS;
        l.u.list.n = nout;
        l.u.list.items = items;
        outs[0] = l;
        no = 1;
    }
    eir_status st = eir_graph_insert_node(p, g, c->pos, full, nin, ins, no, outs, NULL);
    c->npool = 0;
    if (st) return st;
    eir_node *nd = (eir_node *)&g->nodes[c->pos];
    for (uint32_t i = 0; i < c->src.num_metadata; i++) {
        st = eir_node_set_metadata(p, nd, c->src.metadata[i].key, c->src.metadata[i].value);
        if (st) return st;
    }
    c->pos++;
    c->node++;
    return EIR_OK;
}

eir_status dc_emit(dc *c, const char *target, uint32_t nin, const eir_named_arg *ins, const eir_tensor_meta *m,
                       const char *hint, uint32_t *val) {
    return dc_emit_n(c, target, nin, ins, 1, &m, hint, false, val);
}

/* A check every rule starts with: one tensor output, a tensor input named
 * `self_name`, ranks within MAXR. */
eir_status dc_need_io(dc *c, const char *self_name, uint32_t *self, uint32_t *out) {
    *out = out_value(c);
    if (*out == EIR_NO_VALUE) return dc_refuse(c, "expected one tensor output");
    if (meta_of(c, *out)->rank > MAXR) return dc_refuse(c, "rank above %d", MAXR);
    if (self_name) {
        *self = dc_tensor_of(c, self_name);
        if (*self == EIR_NO_VALUE) return dc_refuse(c, "argument '%s': expected a tensor", self_name);
        if (meta_of(c, *self)->rank > MAXR) return dc_refuse(c, "rank above %d", MAXR);
    }
    return EIR_OK;
}

/* The srepr of the product of sizes sz[0..n) into b (sympy's order: the
 * number first, then the symbols by name); *k the constant factor, *ns the
 * number of symbols. False for symbolic factors other than plain symbols. */
static bool product_srepr(const dc *c, const eir_symint *sz, uint32_t n, eir_buf *b, int64_t *k, uint32_t *ns) {
    const char *syms[MAXR];
    *k = 1;
    *ns = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!sz[i].is_expr) { *k *= sz[i].value; continue; }
        if (sz[i].expr >= c->p->num_exprs || strncmp(c->p->exprs[sz[i].expr].srepr, "Symbol('", 8) || *ns == MAXR)
            return false;
        syms[(*ns)++] = c->p->exprs[sz[i].expr].srepr;
    }
    for (uint32_t i = 1; i < *ns; i++)
        for (uint32_t j = i; j > 0 && strcmp(syms[j - 1], syms[j]) > 0; j--) {
            const char *t = syms[j - 1];
            syms[j - 1] = syms[j];
            syms[j] = t;
        }
    if (*ns == 1 && *k == 1) { eir_buf_puts(b, syms[0]); return true; }
    eir_buf_puts(b, "Mul(");
    if (*k != 1) eir_buf_printf(b, "Integer(%lld), ", (long long)*k);
    for (uint32_t i = 0; i < *ns; i++) eir_buf_printf(b, "%s%s", i ? ", " : "", syms[i]);
    eir_buf_puts(b, ")");
    return true;
}

/* Whether m's strides are the contiguous ones, symbolic ones compared as
 * sympy expressions. */
static bool sym_contiguous(const dc *c, const eir_tensor_meta *m) {
    for (uint32_t d = 0; d < m->rank; d++) {
        if (!m->sizes[d].is_expr && m->sizes[d].value <= 1) continue;
        eir_buf b;
        eir_buf_init(&b);
        int64_t k;
        uint32_t ns;
        bool ok = product_srepr(c, m->sizes + d + 1, m->rank - d - 1, &b, &k, &ns);
        if (ok && !ns) ok = !m->strides[d].is_expr && m->strides[d].value == k;
        else if (ok) ok = m->strides[d].is_expr && m->strides[d].expr < c->p->num_exprs && b.data &&
                          !strcmp(c->p->exprs[m->strides[d].expr].srepr, b.data);
        eir_buf_free(&b);
        if (!ok) return false;
    }
    return true;
}

bool dc_sym_product(dc *c, const eir_symint *sz, uint32_t n, eir_symint *out) {
    int64_t hint = 1;
    bool hinted = true;
    for (uint32_t i = 0; i < n; i++) {
        hint *= sz[i].value;
        if (sz[i].is_expr) hinted = hinted && sz[i].has_hint;
    }
    eir_buf b;
    eir_buf_init(&b);
    int64_t k;
    uint32_t ns;
    bool ok = product_srepr(c, sz, n, &b, &k, &ns);
    if (ok && (!ns || k == 0)) {
        *out = si(k == 0 ? 0 : k);
    } else if (ok && ns == 1 && k == 1) {
        for (uint32_t i = 0; i < n; i++)
            if (sz[i].is_expr) *out = sz[i];
    } else if (ok && !c->dry) {
        uint32_t id = b.data ? eir_program_intern_expr(c->p, b.data, "to-core") : UINT32_MAX;
        ok = id != UINT32_MAX;
        memset(out, 0, sizeof *out);
        out->is_expr = true;
        out->expr = id;
        out->has_hint = hinted;
        out->value = hinted ? hint : 0;
    } else if (ok)
        memset(out, 0, sizeof *out), out->is_expr = true;
    eir_buf_free(&b);
    return ok;
}

/* A size list for sizes sz[0..n) whose symbolic entries are sizes of tensor
 * `src`: sym_size.int nodes read them (torch's way). False when one is not. */
static bool sym_size_list(dc *c, uint32_t src, const eir_symint *sz, uint32_t n, eir_arg *out) {
    const eir_tensor_meta *sm = src != EIR_NO_VALUE ? meta_of(c, src) : NULL;
    int64_t dim[MAXR];
    if (n > MAXR || c->npool + n > POOL) return false;
    for (uint32_t i = 0; i < n; i++) {
        dim[i] = -1;
        if (!sz[i].is_expr) continue;
        for (uint32_t d = 0; sm && d < sm->rank && dim[i] < 0; d++)
            if (si_eq(sm->sizes[d], sz[i])) dim[i] = d;
        if (dim[i] < 0) return false;
    }
    eir_arg items[MAXR];
    for (uint32_t i = 0; i < n; i++) {
        eir_arg a = {0};
        a.kind = EIR_ARG_SYM_INT;
        a.literal = true;
        a.u.i = sz[i].value;
        if (dim[i] >= 0 && !c->dry) {
            uint32_t v = eir_graph_add_value(c->p, c->g, EIR_VALUE_SYM_INT, NULL, "sym_size_int");
            if (v == EIR_NO_VALUE) return false;
            ((eir_value *)&c->g->values[v])->sym = sz[i];
            eir_arg o = {0};
            o.kind = EIR_ARG_SYM_INT;
            o.value = v;
            eir_named_arg ins[2] = {pos_arg("self", a_tensor(src)), pos_arg("dim", a_int(dim[i]))};
            if (eir_graph_insert_node(c->p, c->g, c->pos, "torch.ops.aten.sym_size.int", 2, ins, 1, &o, NULL))
                return false;
            eir_node *nd = (eir_node *)&c->g->nodes[c->pos];
            for (uint32_t k = 0; k < c->src.num_metadata; k++)
                if (eir_node_set_metadata(c->p, nd, c->src.metadata[k].key, c->src.metadata[k].value)) return false;
            c->pos++;
            c->node++;
            a.literal = false;
            a.value = v;
            a.u.i = 0;
        }
        items[i] = a;
    }
    memset(out, 0, sizeof *out);
    out->kind = EIR_ARG_SYM_INTS;
    out->u.list.n = n;
    out->u.list.items = &c->pool[c->npool];
    for (uint32_t i = 0; i < n; i++) c->pool[c->npool++] = items[i];
    return true;
}

/* Whether x (all but its last dimension folded into one) can be viewed as
 * a matrix, so that torch's matmul folds it rather than broadcasting. */
bool dc_contiguous(const dc *c, const eir_tensor_meta *m) { return dc_meta_contiguous(m) || sym_contiguous(c, m); }

bool dc_can_view(const dc *c, const eir_tensor_meta *xm) {
    if (dc_meta_contiguous(xm) || sym_contiguous(c, xm)) return true;
    if (!dc_meta_concrete_sizes(xm) || xm->rank > MAXR) return false;
    int64_t osz[MAXR], ost[MAXR], nsz[2] = {1, 1}, nst[2];
    for (uint32_t i = 0; i < xm->rank; i++) {
        if (xm->strides[i].is_expr) return false;
        osz[i] = xm->sizes[i].value;
        ost[i] = xm->strides[i].value;
        if (i + 1 < xm->rank) nsz[0] *= osz[i];
    }
    nsz[1] = xm->rank ? osz[xm->rank - 1] : 1;
    return view_strides(osz, ost, xm->rank, nsz, 2, nst);
}

/* view(x, sizes of m) with m's metadata, preceded by a contiguous clone when
 * x's strides admit no such view (torch's reshape). */
eir_status dc_emit_reshape(dc *c, uint32_t x, const eir_tensor_meta *m, const char *hint, uint32_t *res) {
    const eir_tensor_meta *xm = meta_of(c, x);
    tm out;
    dc_tm_from(&out, m);
    bool viewable = dc_meta_contiguous(xm) || sym_contiguous(c, xm);
    bool concrete = dc_meta_concrete_sizes(xm) && dc_meta_concrete_sizes(m);
    if (viewable) {
        if (!dc_tm_contig(&out)) {
            /* symbolic strides: the recorded ones, when they are the contiguous ones */
            if (!sym_contiguous(c, m)) return dc_refuse(c, "the strides of a view of symbolic size");
            dc_tm_from(&out, m);
        }
        out.m.storage_offset = xm->storage_offset;
    } else if (concrete) {
        int64_t osz[MAXR], ost[MAXR], nsz[MAXR], nst[MAXR];
        bool ok = !xm->storage_offset.is_expr;
        for (uint32_t i = 0; i < xm->rank; i++) {
            osz[i] = xm->sizes[i].value;
            ost[i] = xm->strides[i].value;
            ok = ok && !xm->strides[i].is_expr;
        }
        for (uint32_t i = 0; i < m->rank; i++) nsz[i] = m->sizes[i].value;
        if (!ok) return dc_refuse(c, "symbolic strides of input %s", c->g->values[x].name);
        viewable = view_strides(osz, ost, xm->rank, nsz, m->rank, nst);
        if (viewable) {
            for (uint32_t i = 0; i < m->rank; i++) out.st[i] = si(nst[i]);
            out.m.storage_offset = xm->storage_offset;
        } else if (!dc_tm_contig(&out))
            return dc_refuse(c, "the strides of a view of symbolic size");
    } else
        return dc_refuse(c, "a reshape of the non-contiguous input %s with symbolic sizes", c->g->values[x].name);
    eir_arg size = {0};
    if (!a_size_list(c, m->sizes, m->rank, true, &size) && !sym_size_list(c, c->size_src, m->sizes, m->rank, &size))
        return dc_refuse(c, "a view to more than one symbolic size");
    if (c->dry) { c->npool = 0; return EIR_OK; }
    uint32_t src = x;
    if (!viewable) {
        tm cl;
        dc_tm_from(&cl, xm);
        if (!dc_tm_contig(&cl)) return dc_refuse(c, "the strides of a copy of symbolic size");
        /* the size list stays in the pool: dc_emit() only rewinds its count */
        uint32_t used = c->npool;
        eir_named_arg ci[2] = {pos_arg("self", a_tensor(x)), kw_arg("memory_format", a_kind(EIR_ARG_MEMORY_FORMAT, EIR_MF_CONTIGUOUS))};
        eir_status st = dc_emit(c, "clone.default", 2, ci, &cl.m, "clone", &src);
        if (st) return st;
        c->npool = used;
    }
    eir_named_arg vi[2] = {pos_arg("self", a_tensor(src)), pos_arg("size", size)};
    return dc_emit(c, "view.default", 2, vi, &out.m, hint, res);
}

/* x.T of a 2-d weight: permute(w, [1, 0]) */
eir_status dc_emit_t(dc *c, uint32_t w, uint32_t *res) {
    tm t;
    dc_tm_from(&t, meta_of(c, w));
    eir_symint s = t.sz[0];
    t.sz[0] = t.sz[1];
    t.sz[1] = s;
    s = t.st[0];
    t.st[0] = t.st[1];
    t.st[1] = s;
    int64_t perm[2] = {1, 0};
    eir_named_arg pi[2] = {pos_arg("self", a_tensor(w)), pos_arg("dims", dc_a_ints(c, perm, 2))};
    return dc_emit(c, "permute.default", 2, pi, &t.m, "permute", res);
}

eir_status dc_emit_permute(dc *c, uint32_t x, const int64_t *perm, uint32_t rank, const eir_tensor_meta *m,
                               uint32_t *res) {
    eir_named_arg pi[2] = {pos_arg("self", a_tensor(x)), pos_arg("dims", dc_a_ints(c, perm, rank))};
    return dc_emit(c, "permute.default", 2, pi, m, "permute", res);
}

/* pointwise chains over x, each step with the output's metadata */
eir_status dc_emit_pw(dc *c, const char *target, uint32_t a, eir_arg other, const char *other_name,
                          const char *hint, uint32_t *res) {
    eir_named_arg pi[2] = {pos_arg("self", a_tensor(a)), pos_arg(other_name, other)};
    return dc_emit(c, target, other_name ? 2 : 1, pi, c->pwm, hint, res);
}

eir_status dc_emit_to_copy(dc *c, uint32_t x, const eir_tensor_meta *m, uint32_t *res) {
    eir_named_arg ti[2] = {pos_arg("self", a_tensor(x)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, m->dtype))};
    return dc_emit(c, "_to_copy.default", 2, ti, m, "_to_copy", res);
}

/* a @ b (ranks >= 2 and >= 1... with b of rank >= 2) by expand + view +
 * bmm + view, batch dims broadcast, concrete sizes; the result has
 * metadata om. */
eir_status dc_emit_batched_mm(dc *c, uint32_t a, uint32_t b, const eir_tensor_meta *om, uint32_t *out_res) {
    const eir_tensor_meta *am = meta_of(c, a), *bm = meta_of(c, b);
    eir_status st;
    int64_t n = am->sizes[am->rank - 2].value, k = am->sizes[am->rank - 1].value, m = bm->sizes[bm->rank - 1].value;
    /* batched: broadcast batch dims */
    uint32_t br = om->rank - 2;
    int64_t batch = 1;
    for (uint32_t i = 0; i < br; i++) batch *= om->sizes[i].value;
    tm ea, eb, va, vb, bo;
    dc_tm_from(&ea, am);
    ea.m.rank = br + 2;
    dc_tm_from(&eb, bm);
    eb.m.rank = br + 2;
    int64_t esa[MAXR], esb[MAXR];
    for (uint32_t i = 0; i < br; i++) esa[i] = esb[i] = om->sizes[i].value;
    esa[br] = n, esa[br + 1] = k, esb[br] = k, esb[br + 1] = m;
    /* expand strides: broadcast dims get stride 0 */
    for (uint32_t i = 0; i < br + 2; i++) {
        int64_t ia = (int64_t)i - (int64_t)(br + 2 - am->rank), ib = (int64_t)i - (int64_t)(br + 2 - bm->rank);
        ea.sz[i] = si(esa[i]);
        ea.st[i] = ia >= 0 && am->sizes[ia].value == esa[i] ? am->strides[ia] : si(0);
        eb.sz[i] = si(esb[i]);
        eb.st[i] = ib >= 0 && bm->sizes[ib].value == esb[i] ? bm->strides[ib] : si(0);
        if (ea.st[i].is_expr || eb.st[i].is_expr) return dc_refuse(c, "symbolic operand strides");
    }
    ea.m.storage_offset = am->storage_offset;
    eb.m.storage_offset = bm->storage_offset;
    dc_tm_from(&va, am);
    va.m.rank = 3;
    va.sz[0] = si(batch), va.sz[1] = si(n), va.sz[2] = si(k);
    dc_tm_contig(&va);
    dc_tm_from(&vb, bm);
    vb.m.rank = 3;
    vb.sz[0] = si(batch), vb.sz[1] = si(k), vb.sz[2] = si(m);
    dc_tm_contig(&vb);
    dc_tm_from(&bo, om);
    bo.m.rank = 3;
    bo.sz[0] = si(batch), bo.sz[1] = si(n), bo.sz[2] = si(m);
    dc_tm_contig(&bo);
    uint32_t xa, xb, ra, rb, bmv;
    eir_named_arg ei[2] = {pos_arg("self", a_tensor(a)), pos_arg("size", dc_a_ints(c, esa, br + 2))};
    if ((st = dc_emit(c, "expand.default", 2, ei, &ea.m, "expand", &xa))) return st;
    if ((st = dc_emit_reshape(c, xa, &va.m, "view", &ra))) return st;
    eir_named_arg fi[2] = {pos_arg("self", a_tensor(b)), pos_arg("size", dc_a_ints(c, esb, br + 2))};
    if ((st = dc_emit(c, "expand.default", 2, fi, &eb.m, "expand", &xb))) return st;
    if ((st = dc_emit_reshape(c, xb, &vb.m, "view", &rb))) return st;
    eir_named_arg bi[2] = {pos_arg("self", a_tensor(ra)), pos_arg("mat2", a_tensor(rb))};
    if ((st = dc_emit(c, "bmm.default", 2, bi, &bo.m, "bmm", &bmv))) return st;
    return dc_emit_reshape(c, bmv, om, "view", out_res);
}

/* ---- scaled_dot_product_attention (torch's math path, as
 * run_decompositions() writes it on CPU) ---- */

/* contiguous metadata of concrete sizes, dtype and device of `like` */
void dc_tm_new(tm *t, const eir_tensor_meta *like, eir_dtype dt, const int64_t *sz, uint32_t n) {
    dc_tm_from(t, like);
    t->m.dtype = dt;
    t->m.rank = n;
    for (uint32_t i = 0; i < n; i++) t->sz[i] = si(sz[i]);
    dc_tm_contig(t);
}

void dc_tm_permute(tm *t, const eir_tensor_meta *m, const int64_t *perm) {
    dc_tm_from(t, m);
    for (uint32_t i = 0; i < m->rank; i++) {
        t->sz[i] = m->sizes[perm[i]];
        t->st[i] = m->strides[perm[i]];
    }
}

eir_arg dc_a_device(const eir_tensor_meta *m) {
    eir_arg d = {0};
    d.kind = EIR_ARG_DEVICE;
    d.u.device = m->device;
    return d;
}

/* The strides TensorIterator gives the result of a pointwise op on one
 * input of metadata m (concrete): the input's dimension order (by stride,
 * outermost first), dense. */
void dc_tm_pointwise(tm *t, const eir_tensor_meta *m) {
    dc_tm_from(t, m);
    uint32_t r = t->m.rank, perm[MAXR];
    for (uint32_t i = 0; i < r; i++) perm[i] = i;
    /* insertion sort, stable: larger stride first */
    for (uint32_t i = 1; i < r; i++)
        for (uint32_t j = i; j > 0; j--) {
            uint32_t a = perm[j - 1], b = perm[j];
            if (m->sizes[a].value > 1 && m->sizes[b].value > 1 && m->strides[a].value < m->strides[b].value) {
                perm[j - 1] = b;
                perm[j] = a;
            } else
                break;
        }
    int64_t expect = 1;
    for (uint32_t i = r; i-- > 0;) {
        t->st[perm[i]] = si(expect);
        expect *= m->sizes[perm[i]].value > 1 ? m->sizes[perm[i]].value : 1;
    }
    t->m.storage_offset = si(0);
}

eir_status dc_emit_scalar_mul(dc *c, uint32_t x, double f, const eir_tensor_meta *m, uint32_t *res) {
    tm t;
    dc_tm_pointwise(&t, m);
    eir_named_arg mi[2] = {pos_arg("self", a_tensor(x)), pos_arg("other", a_float(f))};
    return dc_emit(c, "mul.Scalar", 2, mi, &t.m, "mul", res);
}

/* TensorIterator's order of the dimensions of a binary op's result
 * (reorder_dimensions): by the inputs' strides, a broadcast (stride 0)
 * dimension deciding nothing; 1 swaps, -1 keeps. */
static int ti_should_swap(const int64_t (*st)[MAXR], const int64_t *shape, uint32_t d0, uint32_t d1) {
    for (uint32_t a = 0; a < 2; a++) {
        int64_t s0 = st[a][d0], s1 = st[a][d1];
        if (s0 == 0 || s1 == 0) continue;
        if (s0 < s1) return -1;
        if (s0 > s1) return 1;
        if (shape[d0] > shape[d1]) return 1;
    }
    return 0;
}

void dc_tm_binary(tm *t, const eir_tensor_meta *a, const eir_tensor_meta *b) {
    const eir_tensor_meta *m[2] = {a, b};
    uint32_t r = a->rank > b->rank ? a->rank : b->rank;
    int64_t shape[MAXR], st[2][MAXR];
    for (uint32_t d = 0; d < r; d++) {
        int64_t sz[2], sd[2];
        for (uint32_t k = 0; k < 2; k++) {
            int64_t o = (int64_t)d - (int64_t)(r - m[k]->rank);
            sz[k] = o < 0 ? 1 : m[k]->sizes[o].value;
            sd[k] = o < 0 ? 0 : m[k]->strides[o].value;
        }
        shape[d] = sz[0] == 1 ? sz[1] : sz[0];
        for (uint32_t k = 0; k < 2; k++) st[k][d] = sz[k] == 1 && shape[d] != 1 ? 0 : sd[k];
    }
    /* perm[0] is the innermost dimension */
    uint32_t perm[MAXR];
    for (uint32_t i = 0; i < r; i++) perm[i] = r - 1 - i;
    for (uint32_t i = 1; i < r; i++) {
        uint32_t d1 = i;
        for (uint32_t d0 = i; d0-- > 0;) {
            int cmp = ti_should_swap((const int64_t (*)[MAXR])st, shape, perm[d0], perm[d1]);
            if (cmp > 0) {
                uint32_t s = perm[d0];
                perm[d0] = perm[d1];
                perm[d1] = s;
                d1 = d0;
            } else if (cmp < 0)
                break;
        }
    }
    dc_tm_new(t, a->rank >= b->rank ? a : b, a->dtype, shape, r);
    int64_t e = 1;
    for (uint32_t i = 0; i < r; i++) {
        t->st[perm[i]] = si(e);
        e *= shape[perm[i]] > 1 ? shape[perm[i]] : 1;
    }
}

/* ---- new unbacked symbols ---- */

void dc_plan_unbacked(dc *c, uint32_t n) {
    if (c->unb) c->unb->planned += n;
}

eir_status dc_new_unbacked(dc *c, const eir_range *r, eir_symint *out) {
    if (!c->unb) return eir_fail(c->p, EIR_ERR_GRAPH, "to-core: no numbering for a new unbacked symbol");
    uint32_t k, expr;
    eir_status st = eir_graph_unbacked_bindings(c->p, c->g, c->pos, &k);
    if (st) return st;
    if ((st = eir_program_add_unbacked(c->p, c->unb->base + c->unb->total + k, r, &expr))) return st;
    memset(out, 0, sizeof *out);
    out->is_expr = true;
    out->expr = expr;
    return EIR_OK;
}

eir_status dc_emit_local_scalar(dc *c, uint32_t x, uint32_t *val) {
    eir_program *p = c->p;
    eir_graph *g = c->g;
    eir_range unbounded = {0};
    eir_symint s;
    eir_status st = dc_new_unbacked(c, &unbounded, &s);
    if (st) return st;
    uint32_t v = eir_graph_add_value(p, g, EIR_VALUE_SYM_INT, NULL, "_local_scalar_dense");
    if (v == EIR_NO_VALUE) return eir_fail(p, EIR_ERR_NOMEM, "to-core: out of memory");
    ((eir_value *)&g->values[v])->sym = s;
    eir_arg o = {0};
    o.kind = EIR_ARG_SYM_INT;
    o.value = v;
    eir_named_arg in = pos_arg("self", a_tensor(x));
    if ((st = eir_graph_insert_node(p, g, c->pos, "torch.ops.aten._local_scalar_dense.default", 1, &in, 1, &o, NULL)))
        return st;
    eir_node *nd = (eir_node *)&g->nodes[c->pos];
    for (uint32_t i = 0; i < c->src.num_metadata; i++)
        if ((st = eir_node_set_metadata(p, nd, c->src.metadata[i].key, c->src.metadata[i].value))) return st;
    c->pos++;
    c->node++;
    *val = v;
    return EIR_OK;
}
