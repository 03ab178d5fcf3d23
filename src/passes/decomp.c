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

#include "../ir/program.h"
#include "../ops/optable.h"
#include "decomp.h"

#define MAXR 16     /* ranks handled; higher ones are refused */
#define POOL 512    /* list items of the arguments of one new node */

typedef struct tm {
    eir_tensor_meta m;
    eir_symint sz[MAXR], st[MAXR];
} tm;

/* In-place writes to graph inputs (buffers, user inputs) become mutation
 * outputs: per input, the name of the value that holds its latest version
 * (names, since value ids shift when nodes are erased). */
typedef struct mutation {
    const char *input;           /* the placeholder */
    const char *latest;          /* its newest value */
    eir_output_kind kind;        /* BUFFER_MUTATION or USER_INPUT_MUTATION */
    const char *target;          /* buffer FQN, or the user input's name */
} mutation;

typedef struct mut_state {
    mutation m[64];
    uint32_t n;
} mut_state;

typedef struct dc {
    eir_program *p;
    eir_graph *g;
    uint32_t pos;                /* where the next new node goes */
    uint32_t node;               /* index of the node being decomposed */
    eir_node src;                /* a copy of it (the node array may move) */
    const char *op;              /* its target without "torch.ops." */
    bool dry;                    /* check only */
    bool kept;                   /* the rule rewrote the node in place */
    const eir_tensor_meta *pwm;  /* metadata of the steps of a pointwise chain */
    mut_state *muts;             /* the root graph's input mutations */
    uint32_t size_src;           /* a tensor whose sizes views may read (sym_size) */
    eir_arg pool[POOL];
    uint32_t npool;
} dc;

/* ---- errors ---- */

static eir_status refuse(dc *c, const char *fmt, ...) EIR_PRINTF(2, 3);
static eir_status refuse(dc *c, const char *fmt, ...) {
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

static const eir_arg *arg_named(const dc *c, const char *name) {
    for (uint32_t i = 0; i < c->src.num_inputs; i++)
        if (c->src.inputs[i].kind && !strcmp(c->src.inputs[i].name, name)) return &c->src.inputs[i].arg;
    return NULL;
}

static bool is_none(const eir_arg *a) {
    return !a || a->kind == EIR_ARG_NONE || (a->kind == EIR_ARG_OPTIONAL_TENSOR && a->value == EIR_NO_VALUE);
}

/* The tensor value an argument names, or EIR_NO_VALUE. */
static uint32_t tensor_of(const dc *c, const char *name) {
    const eir_arg *a = arg_named(c, name);
    if (!a || (a->kind != EIR_ARG_TENSOR && a->kind != EIR_ARG_OPTIONAL_TENSOR) || a->value >= c->g->num_values ||
        c->g->values[a->value].kind != EIR_VALUE_TENSOR)
        return EIR_NO_VALUE;
    return a->value;
}

static const eir_tensor_meta *meta_of(const dc *c, uint32_t v) { return &c->g->values[v].meta; }

static bool int_of(const eir_arg *a, int64_t *out) {
    if (!a) return false;
    if (a->kind == EIR_ARG_INT || (a->kind == EIR_ARG_SYM_INT && a->literal)) { *out = a->u.i; return true; }
    if (a->kind == EIR_ARG_BOOL) { *out = a->u.b; return true; }
    return false;
}

/* A concrete int list; *n receives its length. */
static bool ints_of(const eir_arg *a, int64_t *out, uint32_t max, uint32_t *n) {
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

static bool bool_arg(const dc *c, const char *name, bool def, bool *out) {
    const eir_arg *a = arg_named(c, name);
    if (is_none(a)) { *out = def; return true; }
    if (a->kind == EIR_ARG_BOOL) { *out = a->u.b; return true; }
    if (a->kind == EIR_ARG_SYM_BOOL && a->literal) { *out = a->u.b; return true; }
    return false;
}

static bool float_arg(const dc *c, const char *name, double def, double *out) {
    const eir_arg *a = arg_named(c, name);
    if (is_none(a)) { *out = def; return true; }
    if (a->kind == EIR_ARG_FLOAT) { *out = a->u.f; return true; }
    int64_t i;
    if (int_of(a, &i)) { *out = (double)i; return true; }
    return false;
}

/* ---- building arguments ---- */

static eir_arg a_tensor(uint32_t v) {
    eir_arg a = {0};
    a.kind = EIR_ARG_TENSOR;
    a.value = v;
    return a;
}
static eir_arg a_opt_tensor(uint32_t v) {
    eir_arg a = {0};
    if (v == EIR_NO_VALUE) { a.kind = EIR_ARG_NONE; a.value = EIR_NO_VALUE; return a; }
    a.kind = EIR_ARG_TENSOR;
    a.value = v;
    return a;
}
static eir_arg a_int(int64_t i) {
    eir_arg a = {0};
    a.kind = EIR_ARG_INT;
    a.u.i = i;
    return a;
}
static eir_arg a_float(double f) {
    eir_arg a = {0};
    a.kind = EIR_ARG_FLOAT;
    a.u.f = f;
    return a;
}
static eir_arg a_bool(bool b) {
    eir_arg a = {0};
    a.kind = EIR_ARG_BOOL;
    a.u.b = b;
    return a;
}
static eir_arg a_none(void) {
    eir_arg a = {0};
    a.kind = EIR_ARG_NONE;
    a.value = EIR_NO_VALUE;
    return a;
}
static eir_arg a_kind(eir_arg_kind k, int64_t i) {
    eir_arg a = {0};
    a.kind = k;
    a.u.i = i;
    return a;
}
/* An int list from concrete values (items from the pool). */
static eir_arg a_ints(dc *c, const int64_t *v, uint32_t n) {
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
    *out = a_ints(c, v, n);
    return true;
}

static eir_named_arg pos_arg(const char *name, eir_arg a) {
    eir_named_arg n = {name, a, 1};
    return n;
}
static eir_named_arg kw_arg(const char *name, eir_arg a) {
    eir_named_arg n = {name, a, 2};
    return n;
}

/* ---- tensor metadata ---- */

static eir_symint si(int64_t v) {
    eir_symint s = {0};
    s.value = v;
    return s;
}

static bool si_eq(eir_symint a, eir_symint b) {
    if (a.is_expr != b.is_expr) return false;
    return a.is_expr ? a.expr == b.expr : a.value == b.value;
}

static void tm_from(tm *t, const eir_tensor_meta *m) {
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
static bool tm_contig(tm *t) {
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

static bool meta_concrete_sizes(const eir_tensor_meta *m) {
    for (uint32_t i = 0; i < m->rank; i++)
        if (m->sizes[i].is_expr) return false;
    return true;
}

/* Whether m is contiguous (strides of sizes 1 ignored); false when unknown. */
static bool meta_contiguous(const eir_tensor_meta *m) {
    if (m->rank > MAXR) return false;
    tm t;
    tm_from(&t, m);
    if (!tm_contig(&t)) return false;
    for (uint32_t d = 0; d < m->rank; d++) {
        if (!m->sizes[d].is_expr && m->sizes[d].value <= 1) continue;
        if (!si_eq(m->strides[d], t.st[d])) return false;
    }
    return true;
}

static bool meta_same_geometry(const eir_tensor_meta *a, const eir_tensor_meta *b) {
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
static eir_status emit_n(dc *c, const char *target, uint32_t nin, const eir_named_arg *ins, uint32_t nout,
                         const eir_tensor_meta *const *ms, const char *hint, bool list_out, uint32_t *vals) {
    eir_program *p = c->p;
    eir_graph *g = c->g;
    char full[128];
    snprintf(full, sizeof full, "torch.ops.aten.%s", target);
    eir_arg outs[MAXR + 1], items[MAXR + 1];
    if (nout > MAXR) return refuse(c, "too many outputs");
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

static eir_status emit(dc *c, const char *target, uint32_t nin, const eir_named_arg *ins, const eir_tensor_meta *m,
                       const char *hint, uint32_t *val) {
    return emit_n(c, target, nin, ins, 1, &m, hint, false, val);
}

/* The decomposed node's single tensor output. */
static uint32_t out_value(const dc *c) {
    if (c->src.num_outputs != 1 || c->src.outputs[0].kind != EIR_ARG_TENSOR) return EIR_NO_VALUE;
    uint32_t v = c->src.outputs[0].value;
    return v < c->g->num_values ? v : EIR_NO_VALUE;
}

/* Uses of the decomposed node's output move to v. */
static eir_status finish(dc *c, uint32_t from, uint32_t to) {
    return eir_graph_replace_uses(c->p, c->g, from, to, NULL);
}

/* A check every rule starts with: one tensor output, a tensor input named
 * `self_name`, ranks within MAXR. */
static eir_status need_io(dc *c, const char *self_name, uint32_t *self, uint32_t *out) {
    *out = out_value(c);
    if (*out == EIR_NO_VALUE) return refuse(c, "expected one tensor output");
    if (meta_of(c, *out)->rank > MAXR) return refuse(c, "rank above %d", MAXR);
    if (self_name) {
        *self = tensor_of(c, self_name);
        if (*self == EIR_NO_VALUE) return refuse(c, "argument '%s': expected a tensor", self_name);
        if (meta_of(c, *self)->rank > MAXR) return refuse(c, "rank above %d", MAXR);
    }
    return EIR_OK;
}

/* The product of sizes sz[0..n) as one size: concrete, or a sympy Mul of a
 * constant and plain symbols (interned in the program's expression table;
 * in a dry run only checked). False for other symbolic factors. */
static bool sym_product(dc *c, const eir_symint *sz, uint32_t n, eir_symint *out);

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

static bool sym_product(dc *c, const eir_symint *sz, uint32_t n, eir_symint *out) {
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
static bool can_view(const dc *c, const eir_tensor_meta *xm) {
    if (meta_contiguous(xm) || sym_contiguous(c, xm)) return true;
    if (!meta_concrete_sizes(xm) || xm->rank > MAXR) return false;
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
static eir_status emit_reshape(dc *c, uint32_t x, const eir_tensor_meta *m, const char *hint, uint32_t *res) {
    const eir_tensor_meta *xm = meta_of(c, x);
    tm out;
    tm_from(&out, m);
    bool viewable = meta_contiguous(xm) || sym_contiguous(c, xm);
    bool concrete = meta_concrete_sizes(xm) && meta_concrete_sizes(m);
    if (viewable) {
        if (!tm_contig(&out)) {
            /* symbolic strides: the recorded ones, when they are the contiguous ones */
            if (!sym_contiguous(c, m)) return refuse(c, "the strides of a view of symbolic size");
            tm_from(&out, m);
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
        if (!ok) return refuse(c, "symbolic strides of input %s", c->g->values[x].name);
        viewable = view_strides(osz, ost, xm->rank, nsz, m->rank, nst);
        if (viewable) {
            for (uint32_t i = 0; i < m->rank; i++) out.st[i] = si(nst[i]);
            out.m.storage_offset = xm->storage_offset;
        } else if (!tm_contig(&out))
            return refuse(c, "the strides of a view of symbolic size");
    } else
        return refuse(c, "a reshape of the non-contiguous input %s with symbolic sizes", c->g->values[x].name);
    eir_arg size = {0};
    if (!a_size_list(c, m->sizes, m->rank, true, &size) && !sym_size_list(c, c->size_src, m->sizes, m->rank, &size))
        return refuse(c, "a view to more than one symbolic size");
    if (c->dry) { c->npool = 0; return EIR_OK; }
    uint32_t src = x;
    if (!viewable) {
        tm cl;
        tm_from(&cl, xm);
        if (!tm_contig(&cl)) return refuse(c, "the strides of a copy of symbolic size");
        /* the size list stays in the pool: emit() only rewinds its count */
        uint32_t used = c->npool;
        eir_named_arg ci[2] = {pos_arg("self", a_tensor(x)), kw_arg("memory_format", a_kind(EIR_ARG_MEMORY_FORMAT, EIR_MF_CONTIGUOUS))};
        eir_status st = emit(c, "clone.default", 2, ci, &cl.m, "clone", &src);
        if (st) return st;
        c->npool = used;
    }
    eir_named_arg vi[2] = {pos_arg("self", a_tensor(src)), pos_arg("size", size)};
    return emit(c, "view.default", 2, vi, &out.m, hint, res);
}

/* ---- rules ---- */

static eir_status emit_batched_mm(dc *c, uint32_t a, uint32_t b, const eir_tensor_meta *om, uint32_t *out_res);

typedef eir_status (*rule_fn)(dc *c);

static void tm_pointwise(tm *t, const eir_tensor_meta *m);
static void tm_new(tm *t, const eir_tensor_meta *like, eir_dtype dt, const int64_t *sz, uint32_t n);

/* x.T of a 2-d weight: permute(w, [1, 0]) */
static eir_status emit_t(dc *c, uint32_t w, uint32_t *res) {
    tm t;
    tm_from(&t, meta_of(c, w));
    eir_symint s = t.sz[0];
    t.sz[0] = t.sz[1];
    t.sz[1] = s;
    s = t.st[0];
    t.st[0] = t.st[1];
    t.st[1] = s;
    int64_t perm[2] = {1, 0};
    eir_named_arg pi[2] = {pos_arg("self", a_tensor(w)), pos_arg("dims", a_ints(c, perm, 2))};
    return emit(c, "permute.default", 2, pi, &t.m, "permute", res);
}

/* linear of a vector: torch's matmul (unsqueeze + mm + squeeze) without a
 * bias, addmm on a [1, K] view with one */
static eir_status linear_1d(dc *c, uint32_t x, uint32_t w, uint32_t b, uint32_t out) {
    const eir_tensor_meta *xm = meta_of(c, x), *om = meta_of(c, out);
    if (!meta_concrete_sizes(xm) || !meta_concrete_sizes(om) || xm->strides[0].is_expr)
        return refuse(c, "symbolic sizes of a 1-d input");
    int64_t k = xm->sizes[0].value, n = om->rank == 1 ? om->sizes[0].value : 1;
    if (om->rank != 1) return refuse(c, "a 1-d input with a result of rank %u", om->rank);
    tm row, res;
    int64_t rs[2] = {1, k}, os_[2] = {1, n};
    tm_new(&row, xm, xm->dtype, rs, 2);
    tm_new(&res, om, om->dtype, os_, 2);
    if (b == EIR_NO_VALUE) {
        row.st[1] = xm->strides[0];
        row.st[0] = si(k * xm->strides[0].value);
        row.m.storage_offset = xm->storage_offset;
    } else {
        dc probe = *c;
        probe.dry = true;
        uint32_t tmp;
        eir_status st = emit_reshape(&probe, x, &row.m, "view", &tmp);
        if (st) return st;
    }
    if (c->dry) return EIR_OK;
    eir_status st;
    uint32_t wt, u, mm, r;
    if (b == EIR_NO_VALUE) {
        if ((st = emit_t(c, w, &wt))) return st;
        eir_named_arg ui[2] = {pos_arg("self", a_tensor(x)), pos_arg("dim", a_int(0))};
        if ((st = emit(c, "unsqueeze.default", 2, ui, &row.m, "unsqueeze", &u))) return st;
        eir_named_arg mi[2] = {pos_arg("self", a_tensor(u)), pos_arg("mat2", a_tensor(wt))};
        if ((st = emit(c, "mm.default", 2, mi, &res.m, "mm", &mm))) return st;
        int64_t zero = 0;
        eir_named_arg si_[2] = {pos_arg("self", a_tensor(mm)), pos_arg("dim", a_ints(c, &zero, 1))};
        if ((st = emit(c, "squeeze.dims", 2, si_, om, "squeeze", &r))) return st;
        return finish(c, out, r);
    }
    if ((st = emit_reshape(c, x, &row.m, "view", &u))) return st;
    if ((st = emit_t(c, w, &wt))) return st;
    eir_named_arg ai[3] = {pos_arg("self", a_tensor(b)), pos_arg("mat1", a_tensor(u)), pos_arg("mat2", a_tensor(wt))};
    if ((st = emit(c, "addmm.default", 3, ai, &res.m, "addmm", &mm))) return st;
    if ((st = emit_reshape(c, mm, om, "view", &r))) return st;
    return finish(c, out, r);
}

/* linear(x, w, b) of rank >= 2 with result metadata om; *resp the
 * result (nothing is emitted in a dry run) */
static eir_status emit_linear(dc *c, uint32_t x, uint32_t w, uint32_t b, const eir_tensor_meta *om, uint32_t *resp) {
    eir_status st;
    const eir_tensor_meta *xm = meta_of(c, x);
    if (b != EIR_NO_VALUE && meta_of(c, b)->rank > 1) return refuse(c, "argument 'bias': expected a 1-d tensor");
    tm flat_in, flat_out;
    c->size_src = x;
    if (xm->rank > 2) {
        eir_symint n;
        if (!sym_product(c, xm->sizes, xm->rank - 1, &n))
            return refuse(c, "the batch sizes of input %s are not plain symbols", c->g->values[x].name);
        tm_from(&flat_in, xm);
        flat_in.m.rank = 2;
        flat_in.sz[0] = n;
        flat_in.sz[1] = xm->sizes[xm->rank - 1];
        tm_from(&flat_out, om);
        flat_out.m.rank = 2;
        flat_out.sz[0] = n;
        flat_out.sz[1] = om->sizes[om->rank - 1];
        if (!tm_contig(&flat_out) || !tm_contig(&flat_in)) return refuse(c, "symbolic feature size");
        dc probe = *c;
        probe.dry = true;
        st = emit_reshape(&probe, x, &flat_in.m, "view", &x);
        if (st) return st;
    }
    if (xm->rank > 2 && !can_view(c, xm)) {
        /* torch's matmul: broadcast the weight, bmm, then add the bias */
        if (!meta_concrete_sizes(xm)) return refuse(c, "symbolic sizes of a non-contiguous input");
        for (uint32_t i = 0; i < xm->rank; i++)
            if (xm->strides[i].is_expr) return refuse(c, "symbolic strides of input %s", c->g->values[x].name);
        if (c->dry) return EIR_OK;
        uint32_t wt, mmv, res;
        tm mo;
        tm_from(&mo, om);
        if (!tm_contig(&mo)) return refuse(c, "symbolic output size");
        if ((st = emit_t(c, w, &wt))) return st;
        if ((st = emit_batched_mm(c, x, wt, b != EIR_NO_VALUE ? &mo.m : om, &mmv))) return st;
        res = mmv;
        if (b != EIR_NO_VALUE) {
            eir_named_arg ad[2] = {pos_arg("self", a_tensor(mmv)), pos_arg("other", a_tensor(b))};
            if ((st = emit(c, "add.Tensor", 2, ad, om, "add", &res))) return st;
        }
        *resp = res;
        return EIR_OK;
    }
    if (c->dry) return EIR_OK;
    uint32_t in2 = x, wt, mm;
    if (xm->rank > 2) {
        st = emit_reshape(c, x, &flat_in.m, "view", &in2);
        if (st) return st;
    }
    st = emit_t(c, w, &wt);
    if (st) return st;
    const eir_tensor_meta *mmm = xm->rank > 2 ? &flat_out.m : om;
    if (b != EIR_NO_VALUE) {
        eir_named_arg ai[3] = {pos_arg("self", a_tensor(b)), pos_arg("mat1", a_tensor(in2)), pos_arg("mat2", a_tensor(wt))};
        st = emit(c, "addmm.default", 3, ai, mmm, "addmm", &mm);
    } else {
        eir_named_arg mi[2] = {pos_arg("self", a_tensor(in2)), pos_arg("mat2", a_tensor(wt))};
        st = emit(c, "mm.default", 2, mi, mmm, "mm", &mm);
    }
    if (st) return st;
    uint32_t res = mm;
    if (xm->rank > 2) {
        st = emit_reshape(c, mm, om, "view", &res);
        if (st) return st;
    }
    *resp = res;
    return EIR_OK;
}

static eir_status r_linear(dc *c) {
    uint32_t x, out;
    eir_status st = need_io(c, "input", &x, &out);
    if (st) return st;
    uint32_t w = tensor_of(c, "weight"), b = tensor_of(c, "bias");
    if (w == EIR_NO_VALUE || meta_of(c, w)->rank != 2) return refuse(c, "argument 'weight': expected a 2-d tensor");
    const eir_tensor_meta *xm = meta_of(c, x);
    if (xm->rank == 1) return linear_1d(c, x, w, b, out);
    if (xm->rank < 2) return refuse(c, "input of rank %u (only rank >= 1 is decomposed)", xm->rank);
    uint32_t res = EIR_NO_VALUE;
    if ((st = emit_linear(c, x, w, b, meta_of(c, out), &res))) return st;
    if (c->dry) return EIR_OK;
    return finish(c, out, res);
}

/* conv1d/2d/3d (.default and .padding) and conv_transpose1d/2d/3d -> convolution */
static eir_status r_conv(dc *c) {
    uint32_t x, out;
    eir_status st = need_io(c, "input", &x, &out);
    if (st) return st;
    uint32_t w = tensor_of(c, "weight"), b = tensor_of(c, "bias");
    if (w == EIR_NO_VALUE) return refuse(c, "argument 'weight': expected a tensor");
    bool transposed = strstr(c->op, "conv_transpose") != NULL;
    uint32_t k = meta_of(c, w)->rank >= 3 ? meta_of(c, w)->rank - 2 : 0;
    if (!k || k > 3) return refuse(c, "weight of rank %u", meta_of(c, w)->rank);
    if (meta_of(c, x)->rank != k + 2)
        return refuse(c, "unbatched input (rank %u; only rank %u is decomposed)", meta_of(c, x)->rank, k + 2);
    int64_t stride[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, dil[3] = {1, 1, 1}, opad[3] = {0, 0, 0}, groups = 1;
    int64_t tmp[3];
    uint32_t n;
    struct { const char *name; int64_t *dst; } lists[] = {
        {"stride", stride}, {"padding", pad}, {"dilation", dil}, {"output_padding", opad}};
    for (uint32_t li = 0; li < 4; li++) {
        const eir_arg *a = arg_named(c, lists[li].name);
        if (is_none(a)) continue;
        if (a->kind == EIR_ARG_STRING && !strcmp(lists[li].name, "padding")) continue;
        if (!ints_of(a, tmp, 3, &n) || !(n == 1 || n == k))
            return refuse(c, "argument '%s': expected %u concrete ints", lists[li].name, k);
        for (uint32_t i = 0; i < k; i++) lists[li].dst[i] = tmp[n == 1 ? 0 : i];
    }
    const eir_arg *ga = arg_named(c, "groups");
    if (!is_none(ga) && !int_of(ga, &groups)) return refuse(c, "argument 'groups': expected an int");
    const eir_arg *pa = arg_named(c, "padding");
    if (pa && pa->kind == EIR_ARG_STRING) {
        if (!strcmp(pa->u.s, "valid")) {
            for (uint32_t i = 0; i < k; i++) pad[i] = 0;
        } else if (!strcmp(pa->u.s, "same")) {
            const eir_tensor_meta *wm = meta_of(c, w);
            for (uint32_t i = 0; i < k; i++) {
                if (wm->sizes[2 + i].is_expr) return refuse(c, "symbolic kernel size");
                int64_t total = dil[i] * (wm->sizes[2 + i].value - 1);
                if (total % 2) return refuse(c, "padding='same' needs asymmetric padding here");
                pad[i] = total / 2;
            }
        } else
            return refuse(c, "argument 'padding': unknown string '%s'", pa->u.s);
    }
    if (c->dry) return EIR_OK;
    eir_named_arg ci[9] = {
        pos_arg("input", a_tensor(x)),          pos_arg("weight", a_tensor(w)),
        pos_arg("bias", a_opt_tensor(b)),       pos_arg("stride", a_ints(c, stride, k)),
        pos_arg("padding", a_ints(c, pad, k)),  pos_arg("dilation", a_ints(c, dil, k)),
        pos_arg("transposed", a_bool(transposed)), pos_arg("output_padding", a_ints(c, opad, k)),
        pos_arg("groups", a_int(groups))};
    uint32_t res;
    st = emit(c, "convolution.default", 9, ci, meta_of(c, out), "convolution", &res);
    if (st) return st;
    return finish(c, out, res);
}

static eir_status r_batch_norm(dc *c) {
    uint32_t x, out;
    eir_status st = need_io(c, "input", &x, &out);
    if (st) return st;
    bool training;
    double momentum, eps;
    if (!bool_arg(c, "training", false, &training)) return refuse(c, "argument 'training': expected a bool");
    if (training)
        return refuse(c, "batch_norm in training mode updates its running statistics "
                         "(_native_batch_norm_legit_functional and buffer mutations are not produced yet)");
    if (!float_arg(c, "momentum", 0.1, &momentum) || !float_arg(c, "eps", 1e-5, &eps))
        return refuse(c, "arguments 'momentum' and 'eps': expected floats");
    uint32_t w = tensor_of(c, "weight"), b = tensor_of(c, "bias");
    uint32_t rm = tensor_of(c, "running_mean"), rv = tensor_of(c, "running_var");
    if (rm == EIR_NO_VALUE || rv == EIR_NO_VALUE) return refuse(c, "batch_norm without running statistics");
    if (c->dry) return EIR_OK;
    tm save;
    tm_from(&save, meta_of(c, x));
    save.m.rank = 1;
    save.sz[0] = si(0);
    save.st[0] = si(1);
    save.m.storage_offset = si(0);
    const eir_tensor_meta *ms[3] = {meta_of(c, out), &save.m, &save.m};
    eir_named_arg bi[7] = {pos_arg("input", a_tensor(x)),        pos_arg("weight", a_opt_tensor(w)),
                           pos_arg("bias", a_opt_tensor(b)),      pos_arg("running_mean", a_tensor(rm)),
                           pos_arg("running_var", a_tensor(rv)), pos_arg("momentum", a_float(momentum)),
                           pos_arg("eps", a_float(eps))};
    uint32_t vals[3];
    st = emit_n(c, "_native_batch_norm_legit_no_training.default", 7, bi, 3, ms, NULL, false, vals);
    if (st) return st;
    return finish(c, out, vals[0]);
}

static eir_status r_layer_norm(dc *c) {
    uint32_t x, out;
    eir_status st = need_io(c, "input", &x, &out);
    if (st) return st;
    const eir_arg *ns = arg_named(c, "normalized_shape");
    if (!ns || (ns->kind != EIR_ARG_INTS && ns->kind != EIR_ARG_SYM_INTS))
        return refuse(c, "argument 'normalized_shape': expected a list of ints");
    double eps;
    if (!float_arg(c, "eps", 1e-5, &eps)) return refuse(c, "argument 'eps': expected a float");
    const eir_tensor_meta *xm = meta_of(c, x);
    uint32_t nn = ns->u.list.n;
    if (nn > xm->rank) return refuse(c, "normalized_shape longer than the input's rank");
    tm stat;
    tm_from(&stat, xm);
    for (uint32_t i = xm->rank - nn; i < xm->rank; i++) stat.sz[i] = si(1);
    if (!tm_contig(&stat)) return refuse(c, "the strides of mean/rstd for symbolic sizes");
    if (c->dry) return EIR_OK;
    const eir_tensor_meta *ms[3] = {meta_of(c, out), &stat.m, &stat.m};
    uint32_t w = tensor_of(c, "weight"), b = tensor_of(c, "bias");
    eir_named_arg li[5] = {pos_arg("input", a_tensor(x)), pos_arg("normalized_shape", *ns),
                           pos_arg("weight", a_opt_tensor(w)), pos_arg("bias", a_opt_tensor(b)),
                           pos_arg("eps", a_float(eps))};
    uint32_t vals[3];
    st = emit_n(c, "native_layer_norm.default", 5, li, 3, ms, NULL, false, vals);
    if (st) return st;
    return finish(c, out, vals[0]);
}

/* dropout and its variants in eval mode: a copy */
static eir_status r_dropout(dc *c) {
    uint32_t x, out;
    eir_status st = need_io(c, "input", &x, &out);
    if (st) return st;
    bool train;
    if (!bool_arg(c, "train", false, &train)) return refuse(c, "argument 'train': expected a bool");
    if (train) return refuse(c, "dropout in training mode (random) is not decomposed");
    if (strcmp(c->op, "aten.dropout.default")) {
        /* the variants' CompositeImplicitAutograd kernels return the input */
        if (c->dry) return EIR_OK;
        return finish(c, out, x);
    }
    const eir_tensor_meta *xm = meta_of(c, x);
    bool dense = meta_contiguous(xm);
    if (!dense && meta_concrete_sizes(xm)) {
        /* clone keeps the strides of a dense input (a permutation), else
         * makes it contiguous */
        tm t;
        tm_pointwise(&t, xm);
        dense = true;
        for (uint32_t i = 0; i < xm->rank && dense; i++)
            dense = xm->sizes[i].value <= 1 || (!xm->strides[i].is_expr && xm->strides[i].value == t.st[i].value);
        if (!dense && !meta_concrete_sizes(xm)) return refuse(c, "a non-dense input of symbolic size");
    } else if (!dense)
        return refuse(c, "a non-contiguous input of symbolic size");
    if (c->dry) return EIR_OK;
    tm cm;
    tm_from(&cm, meta_of(c, out));
    if (dense) {
        for (uint32_t i = 0; i < xm->rank; i++) cm.st[i] = xm->strides[i];
    } else
        tm_contig(&cm);
    cm.m.storage_offset = si(0);
    eir_named_arg ci[1] = {pos_arg("self", a_tensor(x))};
    uint32_t res;
    st = emit(c, "clone.default", 1, ci, &cm.m, "clone", &res);
    if (st) return st;
    return finish(c, out, res);
}

static eir_status r_sum(dc *c) {
    uint32_t x, out;
    eir_status st = need_io(c, "self", &x, &out);
    if (st) return st;
    if (c->dry) return EIR_OK;
    const eir_arg *dt = arg_named(c, "dtype");
    eir_named_arg si_[3] = {pos_arg("self", a_tensor(x)), pos_arg("dim", a_ints(c, NULL, 0)), {0}};
    uint32_t n = 2;
    if (!is_none(dt)) si_[n++] = kw_arg("dtype", *dt);
    uint32_t res;
    st = emit(c, "sum.dim_IntList", n, si_, meta_of(c, out), "sum", &res);
    if (st) return st;
    return finish(c, out, res);
}

static eir_status emit_permute(dc *c, uint32_t x, const int64_t *perm, uint32_t rank, const eir_tensor_meta *m,
                               uint32_t *res) {
    eir_named_arg pi[2] = {pos_arg("self", a_tensor(x)), pos_arg("dims", a_ints(c, perm, rank))};
    return emit(c, "permute.default", 2, pi, m, "permute", res);
}

static int64_t wrap_dim(int64_t d, uint32_t rank) {
    int64_t r = rank ? rank : 1;
    return d < 0 ? d + r : d;
}

static eir_status r_transpose(dc *c) {
    uint32_t x, out;
    eir_status st = need_io(c, "self", &x, &out);
    if (st) return st;
    uint32_t r = meta_of(c, x)->rank;
    int64_t d0 = 0, d1 = 1;
    if (!strcmp(c->op, "aten.t.default")) {
        if (r < 2) {
            if (c->dry) return EIR_OK;
            return finish(c, out, x);
        }
    } else if (!int_of(arg_named(c, "dim0"), &d0) || !int_of(arg_named(c, "dim1"), &d1))
        return refuse(c, "arguments 'dim0', 'dim1': expected ints");
    d0 = wrap_dim(d0, r);
    d1 = wrap_dim(d1, r);
    if (d0 < 0 || d1 < 0 || (r && (d0 >= r || d1 >= r)) || (!r && (d0 > 0 || d1 > 0)))
        return refuse(c, "dimension out of range for rank %u", r);
    if (c->dry) return EIR_OK;
    int64_t perm[MAXR];
    for (uint32_t i = 0; i < r; i++) perm[i] = i;
    if (r) {
        perm[d0] = d1;
        perm[d1] = d0;
    }
    uint32_t res;
    st = emit_permute(c, x, perm, r, meta_of(c, out), &res);
    if (st) return st;
    return finish(c, out, res);
}

/* to.dtype / to.dtype_layout / to.device -> _to_copy */
static eir_status r_to(dc *c) {
    uint32_t x, out;
    eir_status st = need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x), *om = meta_of(c, out);
    bool copy = false;
    bool_arg(c, "copy", false, &copy);
    if (c->dry) return EIR_OK;
    if (!copy && meta_same_geometry(xm, om)) return finish(c, out, x); /* torch returns self */
    eir_named_arg ti[4];
    uint32_t n = 0;
    ti[n++] = pos_arg("self", a_tensor(x));
    if (om->dtype != xm->dtype) ti[n++] = kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, om->dtype));
    const eir_arg *dev = arg_named(c, "device");
    if (!is_none(dev) && dev->kind == EIR_ARG_DEVICE) ti[n++] = kw_arg("device", *dev);
    const eir_arg *mf = arg_named(c, "memory_format");
    if (!is_none(mf)) ti[n++] = kw_arg("memory_format", *mf);
    uint32_t res;
    st = emit(c, "_to_copy.default", n, ti, om, "_to_copy", &res);
    if (st) return st;
    return finish(c, out, res);
}

static eir_status r_contiguous(dc *c) {
    uint32_t x, out;
    eir_status st = need_io(c, "self", &x, &out);
    if (st) return st;
    if (c->dry) return EIR_OK;
    if (meta_same_geometry(meta_of(c, x), meta_of(c, out))) return finish(c, out, x);
    eir_named_arg ci[2] = {pos_arg("self", a_tensor(x)), kw_arg("memory_format", a_kind(EIR_ARG_MEMORY_FORMAT, EIR_MF_CONTIGUOUS))};
    uint32_t res;
    st = emit(c, "clone.default", 2, ci, meta_of(c, out), "clone", &res);
    if (st) return st;
    return finish(c, out, res);
}

/* reshape / flatten / unflatten / view_as / reshape_as -> view (a contiguous
 * clone first when no view exists) */
static eir_status r_reshape(dc *c) {
    uint32_t x, out;
    eir_status st = need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_tensor_meta *om = meta_of(c, out);
    if (meta_same_geometry(meta_of(c, x), om) && strcmp(c->op, "aten.reshape.default")) {
        if (c->dry) return EIR_OK;
        return finish(c, out, x);
    }
    dc probe = *c;
    probe.dry = true;
    uint32_t res;
    st = emit_reshape(&probe, x, om, "view", &res);
    if (st || c->dry) return st;
    st = emit_reshape(c, x, om, "view", &res);
    if (st) return st;
    return finish(c, out, res);
}

/* zeros / ones / *_like / new_* -> full / full_like */
static eir_status r_fill(dc *c) {
    uint32_t out = out_value(c);
    if (out == EIR_NO_VALUE) return refuse(c, "expected one tensor output");
    const eir_tensor_meta *om = meta_of(c, out);
    const char *op = c->op + 5; /* after "aten." */
    bool like = strstr(op, "_like.") != NULL, is_new = !strncmp(op, "new_", 4);
    eir_arg fill;
    if (strstr(op, "zeros")) fill = a_int(0);
    else if (strstr(op, "ones")) fill = a_int(1);
    else {
        const eir_arg *f = arg_named(c, "fill_value");
        if (!f) return refuse(c, "argument 'fill_value' missing");
        fill = *f;
    }
    uint32_t x = EIR_NO_VALUE;
    if (like || is_new) {
        x = tensor_of(c, "self");
        if (x == EIR_NO_VALUE) return refuse(c, "argument 'self': expected a tensor");
    }
    const eir_arg *size = arg_named(c, "size");
    if (!like && (!size || (size->kind != EIR_ARG_INTS && size->kind != EIR_ARG_SYM_INTS)))
        return refuse(c, "argument 'size': expected a list of ints");
    if (c->dry) return EIR_OK;
    eir_named_arg fi[8];
    uint32_t n = 0;
    const eir_arg *dev = arg_named(c, "device"), *pm = arg_named(c, "pin_memory");
    if (like) {
        fi[n++] = pos_arg("self", a_tensor(x));
        fi[n++] = pos_arg("fill_value", fill);
        const eir_arg *dt = arg_named(c, "dtype");
        if (!is_none(dt)) fi[n++] = kw_arg("dtype", *dt);
        if (!is_none(dev)) fi[n++] = kw_arg("device", *dev);
        if (!is_none(pm)) fi[n++] = kw_arg("pin_memory", *pm);
        const eir_arg *mf = arg_named(c, "memory_format");
        fi[n++] = kw_arg("memory_format", is_none(mf) ? a_kind(EIR_ARG_MEMORY_FORMAT, EIR_MF_PRESERVE) : *mf);
    } else {
        fi[n++] = pos_arg("size", *size);
        fi[n++] = pos_arg("fill_value", fill);
        fi[n++] = kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, om->dtype));
        fi[n++] = kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED));
        eir_arg d = {0};
        d.kind = EIR_ARG_DEVICE;
        d.u.device = om->device;
        fi[n++] = kw_arg("device", is_none(dev) ? d : *dev);
        fi[n++] = kw_arg("pin_memory", a_bool(false));
    }
    uint32_t res;
    eir_status st = emit(c, like ? "full_like.default" : "full.default", n, fi, om, like ? "full_like" : "full", &res);
    if (st) return st;
    return finish(c, out, res);
}

/* pointwise chains over x, each step with the output's metadata */
static eir_status emit_pw(dc *c, const char *target, uint32_t a, eir_arg other, const char *other_name,
                          const char *hint, uint32_t *res) {
    eir_named_arg pi[2] = {pos_arg("self", a_tensor(a)), pos_arg(other_name, other)};
    return emit(c, target, other_name ? 2 : 1, pi, c->pwm, hint, res);
}

static eir_status emit_to_copy(dc *c, uint32_t x, const eir_tensor_meta *m, uint32_t *res) {
    eir_named_arg ti[2] = {pos_arg("self", a_tensor(x)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, m->dtype))};
    return emit(c, "_to_copy.default", 2, ti, m, "_to_copy", res);
}

static eir_status r_activation(dc *c) {
    uint32_t x, out;
    eir_status st = need_io(c, "self", &x, &out);
    if (st) return st;
    if (c->dry) return EIR_OK;
    const char *op = c->op + 5;
    uint32_t r, s, t, u;
    /* half types compute in float32, as torch's decompositions do
     * (pw_cast_for_opmath) */
    const eir_tensor_meta *om = meta_of(c, out);
    tm f32;
    tm_from(&f32, om);
    bool upcast = (om->dtype == EIR_F16 || om->dtype == EIR_BF16) && strncmp(op, "relu6.", 6);
    c->pwm = om;
    if (upcast) {
        f32.m.dtype = EIR_F32;
        c->pwm = &f32.m;
        if ((st = emit_to_copy(c, x, &f32.m, &x))) return st;
    }
    if (!strncmp(op, "silu.", 5)) {
        if ((st = emit_pw(c, "sigmoid.default", x, a_none(), NULL, "sigmoid", &s))) return st;
        if ((st = emit_pw(c, "mul.Tensor", x, a_tensor(s), "other", "mul", &r))) return st;
    } else if (!strncmp(op, "hardswish.", 10) || !strncmp(op, "hardsigmoid.", 12)) {
        bool swish = !strncmp(op, "hardswish.", 10);
        if ((st = emit_pw(c, "add.Tensor", x, a_int(3), "other", "add", &s))) return st;
        if ((st = emit_pw(c, "clamp.default", s, a_int(0), "min", "clamp", &t))) return st;
        eir_named_arg ci[3] = {pos_arg("self", a_tensor(t)), pos_arg("min", a_none()), pos_arg("max", a_int(6))};
        if ((st = emit(c, "clamp.default", 3, ci, c->pwm, "clamp", &u))) return st;
        if (swish) {
            uint32_t m;
            if ((st = emit_pw(c, "mul.Tensor", x, a_tensor(u), "other", "mul", &m))) return st;
            u = m;
        }
        if ((st = emit_pw(c, "div.Tensor", u, a_int(6), "other", "div", &r))) return st;
    } else { /* relu6 */
        eir_named_arg hi[3] = {pos_arg("self", a_tensor(x)), pos_arg("min_val", a_int(0)), pos_arg("max_val", a_int(6))};
        if ((st = emit(c, "hardtanh.default", 3, hi, meta_of(c, out), "hardtanh", &r))) return st;
    }
    if (upcast && (st = emit_to_copy(c, r, om, &r))) return st;
    return finish(c, out, r);
}

/* a @ b (ranks >= 2 and >= 1... with b of rank >= 2) by expand + view +
 * bmm + view, batch dims broadcast, concrete sizes; the result has
 * metadata om. */
static eir_status emit_batched_mm(dc *c, uint32_t a, uint32_t b, const eir_tensor_meta *om, uint32_t *out_res) {
    const eir_tensor_meta *am = meta_of(c, a), *bm = meta_of(c, b);
    eir_status st;
    int64_t n = am->sizes[am->rank - 2].value, k = am->sizes[am->rank - 1].value, m = bm->sizes[bm->rank - 1].value;
    /* batched: broadcast batch dims */
    uint32_t br = om->rank - 2;
    int64_t batch = 1;
    for (uint32_t i = 0; i < br; i++) batch *= om->sizes[i].value;
    tm ea, eb, va, vb, bo;
    tm_from(&ea, am);
    ea.m.rank = br + 2;
    tm_from(&eb, bm);
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
        if (ea.st[i].is_expr || eb.st[i].is_expr) return refuse(c, "symbolic operand strides");
    }
    ea.m.storage_offset = am->storage_offset;
    eb.m.storage_offset = bm->storage_offset;
    tm_from(&va, am);
    va.m.rank = 3;
    va.sz[0] = si(batch), va.sz[1] = si(n), va.sz[2] = si(k);
    tm_contig(&va);
    tm_from(&vb, bm);
    vb.m.rank = 3;
    vb.sz[0] = si(batch), vb.sz[1] = si(k), vb.sz[2] = si(m);
    tm_contig(&vb);
    tm_from(&bo, om);
    bo.m.rank = 3;
    bo.sz[0] = si(batch), bo.sz[1] = si(n), bo.sz[2] = si(m);
    tm_contig(&bo);
    uint32_t xa, xb, ra, rb, bmv;
    eir_named_arg ei[2] = {pos_arg("self", a_tensor(a)), pos_arg("size", a_ints(c, esa, br + 2))};
    if ((st = emit(c, "expand.default", 2, ei, &ea.m, "expand", &xa))) return st;
    if ((st = emit_reshape(c, xa, &va.m, "view", &ra))) return st;
    eir_named_arg fi[2] = {pos_arg("self", a_tensor(b)), pos_arg("size", a_ints(c, esb, br + 2))};
    if ((st = emit(c, "expand.default", 2, fi, &eb.m, "expand", &xb))) return st;
    if ((st = emit_reshape(c, xb, &vb.m, "view", &rb))) return st;
    eir_named_arg bi[2] = {pos_arg("self", a_tensor(ra)), pos_arg("mat2", a_tensor(rb))};
    if ((st = emit(c, "bmm.default", 2, bi, &bo.m, "bmm", &bmv))) return st;
    return emit_reshape(c, bmv, om, "view", out_res);
}

/* matmul: 2-d @ 2-d -> mm; n-d @ 2-d -> view + mm + view; batched -> expand +
 * view + bmm + view (all concrete sizes) */
static eir_status r_matmul(dc *c) {
    uint32_t a, out;
    eir_status st = need_io(c, "self", &a, &out);
    if (st) return st;
    uint32_t b = tensor_of(c, "other");
    if (b == EIR_NO_VALUE) return refuse(c, "argument 'other': expected a tensor");
    const eir_tensor_meta *am = meta_of(c, a), *bm = meta_of(c, b), *om = meta_of(c, out);
    if (am->rank == 1 && bm->rank == 2) {
        /* torch: a.unsqueeze(0).mm(b).squeeze(0) */
        tm ua, mo;
        tm_from(&ua, am);
        ua.m.rank = 2;
        ua.sz[1] = am->sizes[0];
        ua.st[1] = am->strides[0];
        ua.sz[0] = si(1);
        ua.st[0] = am->sizes[0].is_expr ? am->sizes[0] : si(am->sizes[0].value * am->strides[0].value);
        if (am->strides[0].is_expr || (am->sizes[0].is_expr && !(am->strides[0].value == 1)))
            return refuse(c, "symbolic strides of operand %s", c->g->values[a].name);
        tm_from(&mo, om);
        mo.m.rank = 2;
        mo.sz[0] = si(1);
        mo.sz[1] = om->sizes[0];
        if (!tm_contig(&mo)) return refuse(c, "symbolic result size");
        if (c->dry) return EIR_OK;
        uint32_t u, mmv, res;
        int64_t zero = 0;
        eir_named_arg ui[2] = {pos_arg("self", a_tensor(a)), pos_arg("dim", a_int(0))};
        if ((st = emit(c, "unsqueeze.default", 2, ui, &ua.m, "unsqueeze", &u))) return st;
        eir_named_arg mi[2] = {pos_arg("self", a_tensor(u)), pos_arg("mat2", a_tensor(b))};
        if ((st = emit(c, "mm.default", 2, mi, &mo.m, "mm", &mmv))) return st;
        eir_named_arg si_[2] = {pos_arg("self", a_tensor(mmv)), pos_arg("dim", a_ints(c, &zero, 1))};
        if ((st = emit(c, "squeeze.dims", 2, si_, om, "squeeze", &res))) return st;
        return finish(c, out, res);
    }
    if (am->rank < 2 || bm->rank < 2 || bm->rank > MAXR)
        return refuse(c, "operands of rank %u and %u (only rank >= 2 both, and 1-d @ 2-d, are decomposed)", am->rank,
                      bm->rank);
    if (am->rank == 2 && bm->rank == 2) {
        if (c->dry) return EIR_OK;
        eir_named_arg mi[2] = {pos_arg("self", a_tensor(a)), pos_arg("mat2", a_tensor(b))};
        uint32_t res;
        if ((st = emit(c, "mm.default", 2, mi, om, "mm", &res))) return st;
        return finish(c, out, res);
    }
    if (!meta_concrete_sizes(am) || !meta_concrete_sizes(bm)) return refuse(c, "symbolic operand sizes");
    for (uint32_t i = 0; i < am->rank; i++)
        if (am->strides[i].is_expr) return refuse(c, "symbolic strides of operand %s", c->g->values[a].name);
    for (uint32_t i = 0; i < bm->rank; i++)
        if (bm->strides[i].is_expr) return refuse(c, "symbolic strides of operand %s", c->g->values[b].name);
    int64_t k = am->sizes[am->rank - 1].value, m = bm->sizes[bm->rank - 1].value;
    if (bm->rank == 2 && can_view(c, am)) {
        /* fold the batch into the rows */
        int64_t rows = 1;
        for (uint32_t i = 0; i + 1 < am->rank; i++) rows *= am->sizes[i].value;
        tm fin, fout;
        tm_from(&fin, am);
        fin.m.rank = 2;
        fin.sz[0] = si(rows);
        fin.sz[1] = si(k);
        tm_contig(&fin);
        tm_from(&fout, om);
        fout.m.rank = 2;
        fout.sz[0] = si(rows);
        fout.sz[1] = si(m);
        tm_contig(&fout);
        dc probe = *c;
        probe.dry = true;
        uint32_t tmp;
        if ((st = emit_reshape(&probe, a, &fin.m, "view", &tmp))) return st;
        if (c->dry) return EIR_OK;
        uint32_t v, mmv, res;
        if ((st = emit_reshape(c, a, &fin.m, "view", &v))) return st;
        eir_named_arg mi[2] = {pos_arg("self", a_tensor(v)), pos_arg("mat2", a_tensor(b))};
        if ((st = emit(c, "mm.default", 2, mi, &fout.m, "mm", &mmv))) return st;
        if ((st = emit_reshape(c, mmv, om, "view", &res))) return st;
        return finish(c, out, res);
    }
    if (c->dry) return EIR_OK;
    uint32_t res;
    if ((st = emit_batched_mm(c, a, b, om, &res))) return st;
    return finish(c, out, res);
}

static eir_status r_max_pool(dc *c) {
    uint32_t x, out;
    eir_status st = need_io(c, "self", &x, &out);
    if (st) return st;
    if (c->dry) return EIR_OK;
    const eir_tensor_meta *om = meta_of(c, out);
    tm idx;
    tm_from(&idx, om);
    idx.m.dtype = EIR_I64;
    const eir_tensor_meta *ms[2] = {om, &idx.m};
    eir_named_arg pi[6];
    uint32_t n = 0;
    static const char *names[6] = {"self", "kernel_size", "stride", "padding", "dilation", "ceil_mode"};
    for (uint32_t i = 0; i < 6; i++) {
        const eir_arg *a = arg_named(c, names[i]);
        if (!a) break;
        pi[n++] = pos_arg(names[i], *a);
    }
    char target[64];
    snprintf(target, sizeof target, "%.*s_with_indices.default", (int)(strchr(c->op + 5, '.') - (c->op + 5)), c->op + 5);
    uint32_t vals[2];
    if ((st = emit_n(c, target, n, pi, 2, ms, NULL, false, vals))) return st;
    return finish(c, out, vals[0]);
}

static eir_status r_adaptive_avg_pool(dc *c) {
    uint32_t x, out;
    eir_status st = need_io(c, "self", &x, &out);
    if (st) return st;
    int64_t os[3];
    uint32_t n;
    if (!ints_of(arg_named(c, "output_size"), os, 3, &n)) return refuse(c, "argument 'output_size': expected ints");
    bool ones = true;
    for (uint32_t i = 0; i < n; i++) ones = ones && os[i] == 1;
    if (!ones && n == 1) return refuse(c, "adaptive_avg_pool1d to a size other than 1");
    if (c->dry) return EIR_OK;
    uint32_t res;
    if (ones) {
        int64_t dims[3] = {-1, -2, -3};
        eir_named_arg mi[3] = {pos_arg("self", a_tensor(x)), pos_arg("dim", a_ints(c, dims, n)), pos_arg("keepdim", a_bool(true))};
        st = emit(c, "mean.dim", 3, mi, meta_of(c, out), "mean", &res);
    } else {
        eir_named_arg ai[2] = {pos_arg("self", a_tensor(x)), pos_arg("output_size", *arg_named(c, "output_size"))};
        st = emit(c, n == 2 ? "_adaptive_avg_pool2d.default" : "_adaptive_avg_pool3d.default",
                  2, ai, meta_of(c, out), "_adaptive_avg_pool", &res);
    }
    if (st) return st;
    return finish(c, out, res);
}

static eir_status r_split(dc *c) {
    uint32_t x = tensor_of(c, "self");
    if (x == EIR_NO_VALUE) return refuse(c, "argument 'self': expected a tensor");
    if (c->src.num_outputs != 1 || c->src.outputs[0].kind != EIR_ARG_TENSORS) return refuse(c, "expected a Tensor[] output");
    const eir_arg *ol = &c->src.outputs[0];
    int64_t size, dim = 0;
    if (!int_of(arg_named(c, "split_size"), &size) || size <= 0) return refuse(c, "argument 'split_size': expected a positive int");
    const eir_arg *da = arg_named(c, "dim");
    if (!is_none(da) && !int_of(da, &dim)) return refuse(c, "argument 'dim': expected an int");
    const eir_tensor_meta *xm = meta_of(c, x);
    dim = wrap_dim(dim, xm->rank);
    if (dim < 0 || dim >= xm->rank || xm->sizes[dim].is_expr) return refuse(c, "split dimension symbolic or out of range");
    int64_t len = xm->sizes[dim].value, nparts = len ? (len + size - 1) / size : 1;
    if (nparts != ol->u.list.n || nparts > MAXR) return refuse(c, "%lld parts, the node has %u outputs", (long long)nparts, ol->u.list.n);
    if (c->dry) return EIR_OK;
    int64_t sizes[MAXR];
    const eir_tensor_meta *ms[MAXR];
    for (int64_t i = 0; i < nparts; i++) {
        sizes[i] = len - i * size < size ? len - i * size : size;
        ms[i] = meta_of(c, ol->u.list.items[i].value);
    }
    eir_named_arg si_[3] = {pos_arg("self", a_tensor(x)), pos_arg("split_sizes", a_ints(c, sizes, (uint32_t)nparts)),
                            pos_arg("dim", a_int(dim))};
    uint32_t vals[MAXR];
    eir_status st = emit_n(c, "split_with_sizes.default", 3, si_, (uint32_t)nparts, ms, NULL, true, vals);
    if (st) return st;
    for (int64_t i = 0; i < nparts; i++)
        if ((st = finish(c, ol->u.list.items[i].value, vals[i]))) return st;
    return EIR_OK;
}

/* same arguments, another name */
static eir_status r_rename(dc *c) {
    uint32_t out = out_value(c);
    if (out == EIR_NO_VALUE) return refuse(c, "expected one tensor output");
    if (c->dry) return EIR_OK;
    const char *to = NULL;
    static const struct { const char *from, *to; } R[] = {
        {"aten.__and__.Tensor", "bitwise_and.Tensor"},   {"aten.__or__.Tensor", "bitwise_or.Tensor"},
        {"aten.__xor__.Tensor", "bitwise_xor.Tensor"},   {"aten.__and__.Scalar", "bitwise_and.Scalar"},
        {"aten.__or__.Scalar", "bitwise_or.Scalar"},     {"aten.__xor__.Scalar", "bitwise_xor.Scalar"},
        {"aten.arange.start", "arange.start_step"},     {"aten.arange.default", "arange.start_step"},
        {"aten.detach.default", "alias.default"},       {"aten.divide.Tensor", "div.Tensor"},
        {"aten.divide.Tensor_mode", "div.Tensor_mode"}, {"aten.subtract.Tensor", "sub.Tensor"},
        {"aten.broadcast_to.default", "expand.default"},
    };
    for (uint32_t i = 0; i < sizeof R / sizeof *R; i++)
        if (!strcmp(c->op, R[i].from)) to = R[i].to;
    eir_named_arg ins[16];
    uint32_t n = 0;
    if (!strcmp(c->op, "aten.arange.default")) ins[n++] = pos_arg("start", a_int(0));
    for (uint32_t i = 0; i < c->src.num_inputs && n < 15; i++) {
        if (!c->src.inputs[i].kind) continue;
        ins[n] = c->src.inputs[i];
        if (!strncmp(c->op, "aten.arange", 11) && !strcmp(ins[n].name, "end")) ins[n].kind = 1;
        n++;
    }
    char hint[32];
    snprintf(hint, sizeof hint, "%.*s", (int)(strchr(to, '.') - to), to);
    uint32_t res;
    eir_status st = emit(c, to, n, ins, meta_of(c, out), hint, &res);
    if (st) return st;
    return finish(c, out, res);
}

/* item -> _local_scalar_dense: same argument, same output; the node is
 * retargeted in place */
static eir_status r_item(dc *c) {
    if (c->src.num_outputs != 1) return refuse(c, "expected one output");
    if (c->dry) return EIR_OK;
    char *t = eir_arena_strdup(&c->p->arena, "torch.ops.aten._local_scalar_dense.default");
    if (!t) return eir_fail(c->p, EIR_ERR_NOMEM, "to-core: out of memory");
    ((eir_node *)&c->g->nodes[c->node])->target = t;
    c->kept = true;
    return EIR_OK;
}

/* real / imag of a complex tensor -> view_as_real + select; of a real one
 * (real only) the tensor itself */
static eir_status r_real_imag(dc *c) {
    uint32_t x, out;
    eir_status st = need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x);
    eir_dtype part = xm->dtype == EIR_C64 ? EIR_F32 : xm->dtype == EIR_C128 ? EIR_F64 : xm->dtype == EIR_C32 ? EIR_F16
                                                                                                          : EIR_DTYPE_UNKNOWN;
    bool imag = strstr(c->op, "imag") != NULL;
    if (part == EIR_DTYPE_UNKNOWN) {
        if (imag) return refuse(c, "imag of a real tensor");
        if (c->dry) return EIR_OK;
        return finish(c, out, x);
    }
    if (xm->rank + 1 > MAXR) return refuse(c, "rank above %d", MAXR - 1);
    for (uint32_t i = 0; i < xm->rank; i++)
        if (xm->strides[i].is_expr) return refuse(c, "symbolic strides of input %s", c->g->values[x].name);
    if (xm->storage_offset.is_expr) return refuse(c, "symbolic storage offset of input %s", c->g->values[x].name);
    if (c->dry) return EIR_OK;
    tm v;
    tm_from(&v, xm);
    v.m.dtype = part;
    for (uint32_t i = 0; i < xm->rank; i++) v.st[i] = si(xm->strides[i].value * 2);
    v.sz[xm->rank] = si(2);
    v.st[xm->rank] = si(1);
    v.m.rank = xm->rank + 1;
    v.m.storage_offset = si(xm->storage_offset.value * 2);
    uint32_t vr, res;
    eir_named_arg vi[1] = {pos_arg("self", a_tensor(x))};
    if ((st = emit(c, "view_as_real.default", 1, vi, &v.m, "view_as_real", &vr))) return st;
    eir_named_arg si_[3] = {pos_arg("self", a_tensor(vr)), pos_arg("dim", a_int(xm->rank)), pos_arg("index", a_int(imag))};
    if ((st = emit(c, "select.int", 3, si_, meta_of(c, out), "select", &res))) return st;
    return finish(c, out, res);
}

/* squeeze.dim(x, d) -> squeeze.dims(x, [d]) */
static eir_status r_squeeze(dc *c) {
    uint32_t x, out;
    eir_status st = need_io(c, "self", &x, &out);
    if (st) return st;
    int64_t d;
    if (!int_of(arg_named(c, "dim"), &d)) return refuse(c, "argument 'dim': expected an int");
    if (c->dry) return EIR_OK;
    eir_named_arg si_[2] = {pos_arg("self", a_tensor(x)), pos_arg("dim", a_ints(c, &d, 1))};
    uint32_t res;
    if ((st = emit(c, "squeeze.dims", 2, si_, meta_of(c, out), "squeeze", &res))) return st;
    return finish(c, out, res);
}

/* ---- scaled_dot_product_attention (torch's math path, as
 * run_decompositions() writes it on CPU) ---- */

/* contiguous metadata of concrete sizes, dtype and device of `like` */
static void tm_new(tm *t, const eir_tensor_meta *like, eir_dtype dt, const int64_t *sz, uint32_t n) {
    tm_from(t, like);
    t->m.dtype = dt;
    t->m.rank = n;
    for (uint32_t i = 0; i < n; i++) t->sz[i] = si(sz[i]);
    tm_contig(t);
}

static void tm_permute(tm *t, const eir_tensor_meta *m, const int64_t *perm) {
    tm_from(t, m);
    for (uint32_t i = 0; i < m->rank; i++) {
        t->sz[i] = m->sizes[perm[i]];
        t->st[i] = m->strides[perm[i]];
    }
}

static eir_arg a_device(const eir_tensor_meta *m) {
    eir_arg d = {0};
    d.kind = EIR_ARG_DEVICE;
    d.u.device = m->device;
    return d;
}

/* The strides TensorIterator gives the result of a pointwise op on one
 * input of metadata m (concrete): the input's dimension order (by stride,
 * outermost first), dense. */
static void tm_pointwise(tm *t, const eir_tensor_meta *m) {
    tm_from(t, m);
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

static eir_status emit_scalar_mul(dc *c, uint32_t x, double f, const eir_tensor_meta *m, uint32_t *res) {
    tm t;
    tm_pointwise(&t, m);
    eir_named_arg mi[2] = {pos_arg("self", a_tensor(x)), pos_arg("other", a_float(f))};
    return emit(c, "mul.Scalar", 2, mi, &t.m, "mul", res);
}

/* expand x to sizes (concrete), then reshape to [prod(batch), r, c] */
static eir_status emit_batch3(dc *c, uint32_t x, const int64_t *sz4, uint32_t *res) {
    const eir_tensor_meta *xm = meta_of(c, x);
    tm e, v;
    tm_from(&e, xm);
    for (uint32_t i = 0; i < 4; i++) {
        e.sz[i] = si(sz4[i]);
        e.st[i] = xm->sizes[i].value == sz4[i] ? xm->strides[i] : si(0);
    }
    int64_t v3[3] = {sz4[0] * sz4[1], sz4[2], sz4[3]};
    tm_new(&v, xm, xm->dtype, v3, 3);
    uint32_t ex;
    eir_named_arg ei[2] = {pos_arg("self", a_tensor(x)), pos_arg("size", a_ints(c, sz4, 4))};
    eir_status st = emit(c, "expand.default", 2, ei, &e.m, "expand", &ex);
    if (st) return st;
    return emit_reshape(c, ex, &v.m, "view", res);
}

static eir_status r_sdpa(dc *c) {
    uint32_t q, out;
    eir_status st = need_io(c, "query", &q, &out);
    if (st) return st;
    uint32_t k = tensor_of(c, "key"), v = tensor_of(c, "value"), mask = tensor_of(c, "attn_mask");
    if (k == EIR_NO_VALUE || v == EIR_NO_VALUE) return refuse(c, "arguments 'key', 'value': expected tensors");
    const eir_tensor_meta *qm = meta_of(c, q), *km = meta_of(c, k), *vm = meta_of(c, v), *om = meta_of(c, out);
    if (qm->rank != 4 || km->rank != 4 || vm->rank != 4) return refuse(c, "only 4-d query, key and value are decomposed");
    if (!meta_concrete_sizes(qm) || !meta_concrete_sizes(km) || !meta_concrete_sizes(vm))
        return refuse(c, "symbolic sizes");
    for (uint32_t i = 0; i < 4; i++)
        if (qm->strides[i].is_expr || km->strides[i].is_expr || vm->strides[i].is_expr)
            return refuse(c, "symbolic strides");
    double p_drop, scale;
    bool causal, gqa;
    if (!float_arg(c, "dropout_p", 0.0, &p_drop) || p_drop != 0.0) return refuse(c, "dropout_p other than 0.0");
    if (!bool_arg(c, "is_causal", false, &causal) || !bool_arg(c, "enable_gqa", false, &gqa) || gqa)
        return refuse(c, "enable_gqa=True");
    int64_t B = qm->sizes[0].value, H = qm->sizes[1].value, L = qm->sizes[2].value, E = qm->sizes[3].value;
    int64_t S = km->sizes[2].value, Ev = vm->sizes[3].value;
    if (km->sizes[0].value != B || km->sizes[1].value != H || vm->sizes[0].value != B || vm->sizes[1].value != H ||
        km->sizes[3].value != E || vm->sizes[2].value != S)
        return refuse(c, "query, key and value with broadcast batch dimensions");
    if (!float_arg(c, "scale", 1.0 / sqrt((double)E), &scale)) return refuse(c, "argument 'scale': expected a float");
    if (causal && mask != EIR_NO_VALUE) return refuse(c, "both attn_mask and is_causal");
    if (mask != EIR_NO_VALUE && (meta_of(c, mask)->rank > 4 || !meta_concrete_sizes(meta_of(c, mask))))
        return refuse(c, "attn_mask of rank above 4 or symbolic sizes");
    if (c->dry) return EIR_OK;
    double sq = sqrt(scale);
    eir_dtype dt = qm->dtype;
    tm t1, t2;
    uint32_t qs, kt, ks, q3, k3, bm, s4, bias = EIR_NO_VALUE;
    /* q * sqrt(scale) */
    if ((st = emit_scalar_mul(c, q, sq, qm, &qs))) return st;
    /* the causal mask as an additive bias */
    if (causal) {
        int64_t ls[2] = {L, S}, l1[1] = {L}, s1[1] = {S}, r1s[2] = {1, S}, rl1[2] = {L, 1};
        uint32_t full, ar_s, ar_l, us, ul, sub, le, land, ninf, zero;
        tm_new(&t1, qm, EIR_BOOL, ls, 2);
        eir_named_arg fi[6] = {pos_arg("size", a_ints(c, ls, 2)), pos_arg("fill_value", a_bool(true)),
                               kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, EIR_BOOL)),
                               kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)),
                               kw_arg("device", a_device(qm)), kw_arg("pin_memory", a_bool(false))};
        if ((st = emit(c, "full.default", 6, fi, &t1.m, "full", &full))) return st;
        tm_new(&t1, qm, EIR_I64, s1, 1);
        eir_named_arg ai[5] = {pos_arg("start", a_int(0)), pos_arg("end", a_int(S)),
                               kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)),
                               kw_arg("device", a_device(qm)), kw_arg("pin_memory", a_bool(false))};
        if ((st = emit(c, "arange.start_step", 5, ai, &t1.m, "arange", &ar_s))) return st;
        tm_new(&t1, qm, EIR_I64, r1s, 2);
        eir_named_arg u1[2] = {pos_arg("self", a_tensor(ar_s)), pos_arg("dim", a_int(-2))};
        if ((st = emit(c, "unsqueeze.default", 2, u1, &t1.m, "unsqueeze", &us))) return st;
        tm_new(&t1, qm, EIR_I64, l1, 1);
        ai[1] = pos_arg("end", a_int(L));
        if ((st = emit(c, "arange.start_step", 5, ai, &t1.m, "arange", &ar_l))) return st;
        tm_new(&t1, qm, EIR_I64, rl1, 2);
        eir_named_arg u2[2] = {pos_arg("self", a_tensor(ar_l)), pos_arg("dim", a_int(-1))};
        if ((st = emit(c, "unsqueeze.default", 2, u2, &t1.m, "unsqueeze", &ul))) return st;
        tm_new(&t1, qm, EIR_I64, ls, 2);
        eir_named_arg sb[2] = {pos_arg("self", a_tensor(us)), pos_arg("other", a_tensor(ul))};
        if ((st = emit(c, "sub.Tensor", 2, sb, &t1.m, "sub", &sub))) return st;
        tm_new(&t1, qm, EIR_BOOL, ls, 2);
        eir_named_arg li[2] = {pos_arg("self", a_tensor(sub)), pos_arg("other", a_int(0))};
        if ((st = emit(c, "le.Scalar", 2, li, &t1.m, "le", &le))) return st;
        eir_named_arg la[2] = {pos_arg("self", a_tensor(le)), pos_arg("other", a_tensor(full))};
        if ((st = emit(c, "logical_and.default", 2, la, &t1.m, "logical_and", &land))) return st;
        mask = land;
        (void)ninf, (void)zero;
    }
    if (mask != EIR_NO_VALUE && meta_of(c, mask)->dtype == EIR_BOOL) {
        const eir_tensor_meta *mm = meta_of(c, mask);
        uint32_t ninf, zero;
        tm_new(&t1, qm, dt, NULL, 0);
        eir_named_arg n1[3] = {pos_arg("s", a_float(-INFINITY)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, dt)),
                               kw_arg("device", a_device(qm))};
        if ((st = emit(c, "scalar_tensor.default", 3, n1, &t1.m, "scalar_tensor", &ninf))) return st;
        eir_named_arg n0[4] = {pos_arg("s", a_float(0.0)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, dt)),
                               kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)),
                               kw_arg("device", a_device(qm))};
        if ((st = emit(c, "scalar_tensor.default", 4, n0, &t1.m, "scalar_tensor", &zero))) return st;
        int64_t msz[4];
        for (uint32_t i = 0; i < mm->rank; i++) msz[i] = mm->sizes[i].value;
        tm_new(&t1, qm, dt, msz, mm->rank);
        eir_named_arg wi[3] = {pos_arg("condition", a_tensor(mask)), pos_arg("self", a_tensor(zero)),
                               pos_arg("other", a_tensor(ninf))};
        if ((st = emit(c, "where.self", 3, wi, &t1.m, "where", &bias))) return st;
    } else if (mask != EIR_NO_VALUE)
        bias = mask;
    /* k^T * sqrt(scale) */
    int64_t pk[4] = {0, 1, 3, 2};
    tm_permute(&t1, km, pk);
    eir_named_arg pi[2] = {pos_arg("self", a_tensor(k)), pos_arg("dims", a_ints(c, pk, 4))};
    if ((st = emit(c, "permute.default", 2, pi, &t1.m, "permute", &kt))) return st;
    if ((st = emit_scalar_mul(c, kt, sq, &t1.m, &ks))) return st;
    (void)t1;
    /* scores = q @ k^T */
    int64_t qsz[4] = {B, H, L, E}, ksz[4] = {B, H, E, S}, ssz[4] = {B, H, L, S}, s3[3] = {B * H, L, S};
    if ((st = emit_batch3(c, qs, qsz, &q3))) return st;
    if ((st = emit_batch3(c, ks, ksz, &k3))) return st;
    tm_new(&t1, qm, dt, s3, 3);
    eir_named_arg bi[2] = {pos_arg("self", a_tensor(q3)), pos_arg("mat2", a_tensor(k3))};
    if ((st = emit(c, "bmm.default", 2, bi, &t1.m, "bmm", &bm))) return st;
    tm_new(&t2, qm, dt, ssz, 4);
    if ((st = emit_reshape(c, bm, &t2.m, "view", &s4))) return st;
    if (bias != EIR_NO_VALUE) {
        uint32_t added;
        eir_named_arg ad[2] = {pos_arg("self", a_tensor(s4)), pos_arg("other", a_tensor(bias))};
        if ((st = emit(c, "add.Tensor", 2, ad, &t2.m, "add", &added))) return st;
        s4 = added;
    }
    /* softmax, with rows that are all -inf set to 0 */
    uint32_t sm, eq, ln1, any, ln2, fl, w;
    eir_named_arg so[3] = {pos_arg("self", a_tensor(s4)), pos_arg("dim", a_int(-1)), pos_arg("half_to_float", a_bool(false))};
    if ((st = emit(c, "_softmax.default", 3, so, &t2.m, "_softmax", &sm))) return st;
    tm bs, bany;
    tm_new(&bs, qm, EIR_BOOL, ssz, 4);
    int64_t asz[4] = {B, H, L, 1};
    tm_new(&bany, qm, EIR_BOOL, asz, 4);
    eir_named_arg eqi[2] = {pos_arg("self", a_tensor(s4)), pos_arg("other", a_float(-INFINITY))};
    if ((st = emit(c, "eq.Scalar", 2, eqi, &bs.m, "eq", &eq))) return st;
    eir_named_arg n1i[1] = {pos_arg("self", a_tensor(eq))};
    if ((st = emit(c, "logical_not.default", 1, n1i, &bs.m, "logical_not", &ln1))) return st;
    eir_named_arg ani[3] = {pos_arg("self", a_tensor(ln1)), pos_arg("dim", a_int(-1)), pos_arg("keepdim", a_bool(true))};
    if ((st = emit(c, "any.dim", 3, ani, &bany.m, "any", &any))) return st;
    eir_named_arg n2i[1] = {pos_arg("self", a_tensor(any))};
    if ((st = emit(c, "logical_not.default", 1, n2i, &bany.m, "logical_not", &ln2))) return st;
    eir_named_arg fli[4] = {pos_arg("self", a_tensor(sm)), pos_arg("fill_value", a_int(0)),
                            kw_arg("pin_memory", a_bool(false)),
                            kw_arg("memory_format", a_kind(EIR_ARG_MEMORY_FORMAT, EIR_MF_PRESERVE))};
    if ((st = emit(c, "full_like.default", 4, fli, &t2.m, "full_like", &fl))) return st;
    eir_named_arg wi[3] = {pos_arg("condition", a_tensor(ln2)), pos_arg("self", a_tensor(fl)), pos_arg("other", a_tensor(sm))};
    if ((st = emit(c, "where.self", 3, wi, &t2.m, "where", &w))) return st;
    /* @ v */
    uint32_t p3, v3, b2, o4, pr, cl, res;
    int64_t vsz[4] = {B, H, S, Ev}, o3[3] = {B * H, L, Ev}, osz[4] = {B, H, L, Ev};
    if ((st = emit_batch3(c, w, ssz, &p3))) return st;
    if ((st = emit_batch3(c, v, vsz, &v3))) return st;
    tm_new(&t1, qm, dt, o3, 3);
    eir_named_arg b2i[2] = {pos_arg("self", a_tensor(p3)), pos_arg("mat2", a_tensor(v3))};
    if ((st = emit(c, "bmm.default", 2, b2i, &t1.m, "bmm", &b2))) return st;
    tm_new(&t2, qm, dt, osz, 4);
    if ((st = emit_reshape(c, b2, &t2.m, "view", &o4))) return st;
    /* the result gets the layout the program recorded for it (torch's CPU
     * kernel writes [B, L, H, Ev] in memory): permute to that memory order,
     * copy contiguous, permute back */
    if (meta_contiguous(om)) return finish(c, out, o4);
    int64_t p1[4] = {0, 1, 2, 3}, p2[4];
    for (uint32_t i = 1; i < 4; i++)
        for (uint32_t j = i; j > 0 && om->strides[p1[j - 1]].value < om->strides[p1[j]].value; j--) {
            int64_t tmp = p1[j - 1];
            p1[j - 1] = p1[j];
            p1[j] = tmp;
        }
    for (uint32_t i = 0; i < 4; i++) p2[p1[i]] = i;
    tm_permute(&t1, &t2.m, p1);
    eir_named_arg ppi[2] = {pos_arg("self", a_tensor(o4)), pos_arg("dims", a_ints(c, p1, 4))};
    if ((st = emit(c, "permute.default", 2, ppi, &t1.m, "permute", &pr))) return st;
    tm_contig(&t1);
    eir_named_arg ci[2] = {pos_arg("self", a_tensor(pr)), kw_arg("memory_format", a_kind(EIR_ARG_MEMORY_FORMAT, EIR_MF_CONTIGUOUS))};
    if ((st = emit(c, "clone.default", 2, ci, &t1.m, "clone", &cl))) return st;
    eir_named_arg p2i[2] = {pos_arg("self", a_tensor(cl)), pos_arg("dims", a_ints(c, p2, 4))};
    if ((st = emit(c, "permute.default", 2, p2i, om, "permute", &res))) return st;
    return finish(c, out, res);
}

/* ---- group_norm, pad, repeat_interleave ---- */

/* group_norm -> native_group_norm(x, w, b, N, C, HxW, group, eps) (its
 * mean / rstd outputs [N, group] in the input's dtype) */
static eir_status r_group_norm(dc *c) {
    uint32_t x, out;
    eir_status st = need_io(c, "input", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x);
    int64_t groups;
    double eps;
    if (!int_of(arg_named(c, "num_groups"), &groups) || groups <= 0)
        return refuse(c, "argument 'num_groups': expected a positive int");
    if (!float_arg(c, "eps", 1e-5, &eps)) return refuse(c, "argument 'eps': expected a float");
    if (xm->rank < 2) return refuse(c, "input of rank %u (expected rank >= 2)", xm->rank);
    if (!meta_concrete_sizes(xm)) return refuse(c, "symbolic sizes of input %s", c->g->values[x].name);
    int64_t n = xm->sizes[0].value, ch = xm->sizes[1].value, hw = 1;
    for (uint32_t i = 2; i < xm->rank; i++) hw *= xm->sizes[i].value;
    if (ch % groups) return refuse(c, "%lld channels are not divisible into %lld groups", (long long)ch, (long long)groups);
    if (!meta_contiguous(xm) && xm->rank == 4 && !xm->strides[1].is_expr && xm->strides[1].value == 1 && ch > 1)
        return refuse(c, "a channels-last input (torch normalizes a channels-last copy)");
    if (c->dry) return EIR_OK;
    /* torch normalizes contiguous copies of input, weight and bias */
    uint32_t wb[3] = {x, tensor_of(c, "weight"), tensor_of(c, "bias")};
    for (uint32_t i = 0; i < 3; i++) {
        if (wb[i] == EIR_NO_VALUE || meta_contiguous(meta_of(c, wb[i]))) continue;
        tm cl;
        tm_from(&cl, meta_of(c, wb[i]));
        tm_contig(&cl);
        eir_named_arg ci[2] = {pos_arg("self", a_tensor(wb[i])),
                               kw_arg("memory_format", a_kind(EIR_ARG_MEMORY_FORMAT, EIR_MF_CONTIGUOUS))};
        if ((st = emit(c, "clone.default", 2, ci, &cl.m, "clone", &wb[i]))) return st;
    }
    x = wb[0];
    xm = meta_of(c, x);
    tm stat;
    int64_t ssz[2] = {n, groups};
    tm_new(&stat, xm, xm->dtype, ssz, 2);
    const eir_tensor_meta *ms[3] = {meta_of(c, out), &stat.m, &stat.m};
    eir_named_arg gi[8] = {pos_arg("input", a_tensor(x)), pos_arg("weight", a_opt_tensor(wb[1])),
                           pos_arg("bias", a_opt_tensor(wb[2])),
                           pos_arg("N", a_int(n)), pos_arg("C", a_int(ch)), pos_arg("HxW", a_int(hw)),
                           pos_arg("group", a_int(groups)), pos_arg("eps", a_float(eps))};
    uint32_t vals[3];
    if ((st = emit_n(c, "native_group_norm.default", 8, gi, 3, ms, NULL, false, vals))) return st;
    return finish(c, out, vals[0]);
}

/* pad: 'constant' -> constant_pad_nd; 'reflect' / 'replicate' -> per padded
 * dimension an index built from arange (torch's
 * _reflection_or_replication_pad: reflect as m-1 - |m-1 - |i||, replicate as
 * clamp(i, 0, m-1)) and index.Tensor; 'circular' is refused */
static eir_status r_pad(dc *c) {
    uint32_t x, out;
    eir_status st = need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_arg *pa = arg_named(c, "pad"), *ma = arg_named(c, "mode");
    int64_t pad[2 * MAXR];
    uint32_t np;
    if (!ints_of(pa, pad, 2 * MAXR, &np) || np % 2) return refuse(c, "argument 'pad': expected an even number of concrete ints");
    const char *mode = is_none(ma) ? "constant" : ma->kind == EIR_ARG_STRING ? ma->u.s : NULL;
    if (!mode) return refuse(c, "argument 'mode': expected a string");
    const eir_tensor_meta *xm = meta_of(c, x), *om = meta_of(c, out);
    if (!strcmp(mode, "constant")) {
        double v;
        if (!float_arg(c, "value", 0.0, &v)) return refuse(c, "argument 'value': expected a float");
        if (c->dry) return EIR_OK;
        eir_named_arg ci[3] = {pos_arg("self", a_tensor(x)), pos_arg("pad", *pa), pos_arg("value", a_float(v))};
        uint32_t res;
        if ((st = emit(c, "constant_pad_nd.default", 3, ci, om, "constant_pad_nd", &res))) return st;
        return finish(c, out, res);
    }
    bool reflect = !strcmp(mode, "reflect");
    if (!reflect && strcmp(mode, "replicate"))
        return refuse(c, "pad mode '%s' (only 'constant', 'reflect' and 'replicate' are decomposed)", mode);
    uint32_t k = np / 2;
    if (!k || xm->rank < k + 1 || xm->rank > k + 2)
        return refuse(c, "%s padding of %u dimensions of a tensor of rank %u", mode, k, xm->rank);
    if (!meta_concrete_sizes(xm)) return refuse(c, "symbolic sizes of input %s", c->g->values[x].name);
    if (!meta_contiguous(om)) return refuse(c, "a non-contiguous result");
    uint32_t nc = xm->rank - k;
    for (uint32_t i = 0; i < k; i++) {
        int64_t l = pad[2 * (k - 1 - i)], r = pad[2 * (k - 1 - i) + 1], m = xm->sizes[nc + i].value;
        if (l < 0 || r < 0) return refuse(c, "negative %s padding", mode);
        if (reflect && (l >= m || r >= m))
            return refuse(c, "reflect padding (%lld, %lld) of a dimension of size %lld", (long long)l, (long long)r,
                          (long long)m);
        if (!reflect && m == 0) return refuse(c, "replicate padding of an empty dimension");
    }
    if (c->dry) return EIR_OK;
    uint32_t cur = x;
    tm res_m;
    tm_from(&res_m, xm);
    for (uint32_t i = 0; i < k; i++) {
        int64_t l = pad[2 * (k - 1 - i)], r = pad[2 * (k - 1 - i) + 1], m = xm->sizes[nc + i].value, len = l + m + r;
        tm t;
        uint32_t ar, idx, a1, s1, a2;
        tm_new(&t, xm, EIR_I64, &len, 1);
        eir_named_arg ai[5] = {pos_arg("start", a_int(-l)), pos_arg("end", a_int(m + r)),
                               kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)),
                               kw_arg("device", a_device(xm)), kw_arg("pin_memory", a_bool(false))};
        if ((st = emit(c, "arange.start_step", 5, ai, &t.m, "arange", &ar))) return st;
        if (reflect) {
            eir_named_arg b1[1] = {pos_arg("self", a_tensor(ar))};
            if ((st = emit(c, "abs.default", 1, b1, &t.m, "abs", &a1))) return st;
            eir_named_arg s1i[2] = {pos_arg("self", a_int(m - 1)), pos_arg("other", a_tensor(a1))};
            if ((st = emit(c, "sub.Tensor", 2, s1i, &t.m, "sub", &s1))) return st;
            eir_named_arg b2[1] = {pos_arg("self", a_tensor(s1))};
            if ((st = emit(c, "abs.default", 1, b2, &t.m, "abs", &a2))) return st;
            eir_named_arg s2i[2] = {pos_arg("self", a_int(m - 1)), pos_arg("other", a_tensor(a2))};
            if ((st = emit(c, "sub.Tensor", 2, s2i, &t.m, "sub", &idx))) return st;
        } else {
            eir_named_arg ci[3] = {pos_arg("self", a_tensor(ar)), pos_arg("min", a_int(0)), pos_arg("max", a_int(m - 1))};
            if ((st = emit(c, "clamp.default", 3, ci, &t.m, "clamp", &idx))) return st;
        }
        eir_arg items[MAXR];
        for (uint32_t d = 0; d < xm->rank; d++) {
            memset(&items[d], 0, sizeof items[d]);
            items[d].kind = EIR_ARG_OPTIONAL_TENSOR;
            items[d].value = d == nc + i ? idx : EIR_NO_VALUE;
        }
        eir_arg il = {0};
        il.kind = EIR_ARG_OPTIONAL_TENSORS;
        il.u.list.n = xm->rank;
        il.u.list.items = items;
        res_m.sz[nc + i] = si(len);
        tm_contig(&res_m);
        eir_named_arg ii[2] = {pos_arg("self", a_tensor(cur)), pos_arg("indices", il)};
        if ((st = emit(c, "index.Tensor", 2, ii, i + 1 == k ? om : &res_m.m, "index", &cur))) return st;
    }
    return finish(c, out, cur);
}

/* repeat_interleave.self_int -> (flatten) unsqueeze + expand + clone + view;
 * .self_Tensor -> repeat_interleave.Tensor(repeats) + index_select */
static eir_status r_repeat_interleave(dc *c) {
    uint32_t x, out;
    eir_status st = need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x), *om = meta_of(c, out);
    const eir_arg *da = arg_named(c, "dim");
    int64_t dim = 0;
    bool flat = is_none(da);
    if (!flat && !int_of(da, &dim)) return refuse(c, "argument 'dim': expected an int");
    if (!flat) {
        dim = wrap_dim(dim, xm->rank);
        if (dim < 0 || dim >= (int64_t)(xm->rank ? xm->rank : 1)) return refuse(c, "dimension out of range");
    }
    bool by_tensor = !strcmp(c->op, "aten.repeat_interleave.self_Tensor");
    int64_t reps = 0;
    uint32_t rv = EIR_NO_VALUE;
    if (by_tensor) {
        rv = tensor_of(c, "repeats");
        if (rv == EIR_NO_VALUE) return refuse(c, "argument 'repeats': expected a tensor");
        if (meta_of(c, rv)->rank > 1) return refuse(c, "argument 'repeats': a tensor of rank %u", meta_of(c, rv)->rank);
        if (meta_of(c, rv)->rank == 0 || (!meta_of(c, rv)->sizes[0].is_expr && meta_of(c, rv)->sizes[0].value == 1))
            return refuse(c, "a single repeat count in a tensor (torch expands it first)");
    } else if (!int_of(arg_named(c, "repeats"), &reps) || reps < 0)
        return refuse(c, "argument 'repeats': expected a concrete non-negative int");
    if (!by_tensor && !meta_concrete_sizes(xm)) return refuse(c, "symbolic sizes of input %s", c->g->values[x].name);
    if (om->rank < 1) return refuse(c, "a 0-d result");
    tm fl;
    if (flat && xm->rank != 1) {
        int64_t numel = 1;
        if (!meta_concrete_sizes(xm)) return refuse(c, "symbolic sizes of input %s", c->g->values[x].name);
        for (uint32_t i = 0; i < xm->rank; i++) numel *= xm->sizes[i].value;
        tm_new(&fl, xm, xm->dtype, &numel, 1);
        dc probe = *c;
        probe.dry = true;
        uint32_t tmp;
        if (xm->rank != 1 && (st = emit_reshape(&probe, x, &fl.m, "view", &tmp))) return st;
    }
    if (c->dry) return EIR_OK;
    if (flat && xm->rank != 1 && (st = emit_reshape(c, x, &fl.m, "view", &x))) return st;
    xm = meta_of(c, x);
    uint32_t res;
    if (by_tensor) {
        tm ri;
        tm_from(&ri, meta_of(c, rv));
        ri.m.rank = 1;
        ri.sz[0] = om->sizes[flat ? 0 : dim];
        ri.st[0] = si(1);
        ri.m.storage_offset = si(0);
        uint32_t idx;
        eir_named_arg ri_in[1] = {pos_arg("repeats", a_tensor(rv))};
        if ((st = emit(c, "repeat_interleave.Tensor", 1, ri_in, &ri.m, "repeat_interleave", &idx))) return st;
        eir_named_arg is[3] = {pos_arg("self", a_tensor(x)), pos_arg("dim", a_int(dim)), pos_arg("index", a_tensor(idx))};
        if ((st = emit(c, "index_select.default", 3, is, om, "index_select", &res))) return st;
        return finish(c, out, res);
    }
    uint32_t r = xm->rank;
    if (r + 1 > MAXR) return refuse(c, "rank above %d", MAXR - 1);
    tm u, e, cl;
    tm_from(&u, xm);
    for (uint32_t i = r; i > (uint32_t)dim + 1; i--) {
        u.sz[i] = u.sz[i - 1];
        u.st[i] = u.st[i - 1];
    }
    u.sz[dim + 1] = si(1);
    u.st[dim + 1] = (uint32_t)dim + 1 < r ? si(xm->sizes[dim + 1].value * xm->strides[dim + 1].value) : si(1);
    u.m.rank = r + 1;
    e = u;
    e.m.sizes = e.sz;
    e.m.strides = e.st;
    e.sz[dim + 1] = si(reps);
    e.st[dim + 1] = si(0);
    cl = e;
    cl.m.sizes = cl.sz;
    cl.m.strides = cl.st;
    tm_contig(&cl);
    int64_t esz[MAXR];
    for (uint32_t i = 0; i <= r; i++) esz[i] = e.sz[i].value;
    uint32_t us, ex, cv;
    eir_named_arg ui[2] = {pos_arg("self", a_tensor(x)), pos_arg("dim", a_int(dim + 1))};
    if ((st = emit(c, "unsqueeze.default", 2, ui, &u.m, "unsqueeze", &us))) return st;
    eir_named_arg ei[2] = {pos_arg("self", a_tensor(us)), pos_arg("size", a_ints(c, esz, r + 1))};
    if ((st = emit(c, "expand.default", 2, ei, &e.m, "expand", &ex))) return st;
    eir_named_arg ci[2] = {pos_arg("self", a_tensor(ex)),
                           kw_arg("memory_format", a_kind(EIR_ARG_MEMORY_FORMAT, EIR_MF_CONTIGUOUS))};
    if ((st = emit(c, "clone.default", 2, ci, &cl.m, "clone", &cv))) return st;
    if ((st = emit_reshape(c, cv, om, "view", &res))) return st;
    return finish(c, out, res);
}

/* softmax.int / log_softmax.int -> (_to_copy to dtype) + _softmax /
 * _log_softmax(x, dim, False) */
static eir_status r_softmax(dc *c) {
    uint32_t x, out;
    eir_status st = need_io(c, "self", &x, &out);
    if (st) return st;
    int64_t dim;
    if (!int_of(arg_named(c, "dim"), &dim)) return refuse(c, "argument 'dim': expected an int");
    const eir_arg *dt = arg_named(c, "dtype");
    if (!is_none(dt) && dt->kind != EIR_ARG_SCALAR_TYPE) return refuse(c, "argument 'dtype': expected a dtype");
    if (c->dry) return EIR_OK;
    const eir_tensor_meta *xm = meta_of(c, x), *om = meta_of(c, out);
    if (!is_none(dt) && (eir_dtype)dt->u.i != xm->dtype) {
        tm t;
        tm_from(&t, om);
        eir_named_arg ti[4] = {pos_arg("self", a_tensor(x)), kw_arg("dtype", *dt),
                               kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)),
                               kw_arg("device", a_device(xm))};
        if ((st = emit(c, "_to_copy.default", 4, ti, &t.m, "_to_copy", &x))) return st;
    }
    bool lg = strstr(c->op, "log_softmax") != NULL;
    eir_named_arg si_[3] = {pos_arg("self", a_tensor(x)), pos_arg("dim", a_int(dim)), pos_arg("half_to_float", a_bool(false))};
    uint32_t res;
    if ((st = emit(c, lg ? "_log_softmax.default" : "_softmax.default", 3, si_, om, lg ? "_log_softmax" : "_softmax",
                   &res)))
        return st;
    return finish(c, out, res);
}

/* rsub(self, other, alpha) -> sub(other, self, alpha) */
static eir_status r_rsub(dc *c) {
    uint32_t x, out;
    eir_status st = need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_arg *o = arg_named(c, "other"), *al = arg_named(c, "alpha");
    if (!o) return refuse(c, "argument 'other' missing");
    if (c->dry) return EIR_OK;
    eir_named_arg si_[3] = {pos_arg("self", *o), pos_arg("other", a_tensor(x)), {0}};
    uint32_t n = 2, res;
    int64_t one;
    if (!is_none(al) && !(int_of(al, &one) && one == 1 && al->kind == EIR_ARG_INT)) si_[n++] = kw_arg("alpha", *al);
    if ((st = emit(c, "sub.Tensor", n, si_, meta_of(c, out), "sub", &res))) return st;
    return finish(c, out, res);
}

/* lift_fresh_copy -> clone; detach_ -> nothing (its value is its input's) */
static eir_status r_lift_detach(dc *c) {
    uint32_t x, out;
    eir_status st = need_io(c, "self", &x, &out);
    if (st) return st;
    if (c->dry) return EIR_OK;
    if (!strcmp(c->op, "aten.detach_.default")) return finish(c, out, x);
    eir_named_arg ci[1] = {pos_arg("self", a_tensor(x))};
    uint32_t res;
    if ((st = emit(c, "clone.default", 1, ci, meta_of(c, out), "clone", &res))) return st;
    return finish(c, out, res);
}

/* ---- lstm (torch's lstm_impl: one_layer_lstm unrolled over time) ---- */

static eir_status emit_slice0(dc *c, uint32_t x, int64_t i, uint32_t *res) {
    const eir_tensor_meta *xm = meta_of(c, x);
    tm t;
    tm_from(&t, xm);
    t.sz[0] = si(1);
    t.m.storage_offset = si(xm->storage_offset.value + i * xm->strides[0].value);
    eir_named_arg si_[4] = {pos_arg("self", a_tensor(x)), pos_arg("dim", a_int(0)), pos_arg("start", a_int(i)),
                            pos_arg("end", a_int(i + 1))};
    return emit(c, "slice.Tensor", 4, si_, &t.m, "slice", res);
}

/* squeeze.dims(x, [0]) of a tensor whose first size is 1 */
static eir_status emit_squeeze0(dc *c, uint32_t x, uint32_t *res) {
    const eir_tensor_meta *xm = meta_of(c, x);
    tm t;
    tm_from(&t, xm);
    for (uint32_t i = 1; i < xm->rank; i++) {
        t.sz[i - 1] = xm->sizes[i];
        t.st[i - 1] = xm->strides[i];
    }
    t.m.rank = xm->rank - 1;
    int64_t zero = 0;
    eir_named_arg si_[2] = {pos_arg("self", a_tensor(x)), pos_arg("dim", a_ints(c, &zero, 1))};
    return emit(c, "squeeze.dims", 2, si_, &t.m, "squeeze", res);
}

/* x.unbind(0) as torch's decomposition writes it: every slice, then every
 * squeeze */
static eir_status emit_unbind0(dc *c, uint32_t x, uint32_t n, uint32_t *parts) {
    eir_status st;
    for (uint32_t i = 0; i < n; i++)
        if ((st = emit_slice0(c, x, i, &parts[i]))) return st;
    for (uint32_t i = 0; i < n; i++)
        if ((st = emit_squeeze0(c, parts[i], &parts[i]))) return st;
    return EIR_OK;
}

static eir_status emit_pw2(dc *c, const char *target, uint32_t a, uint32_t b, const eir_tensor_meta *m,
                           const char *hint, uint32_t *res) {
    eir_named_arg pi[2] = {pos_arg("self", a_tensor(a)), pos_arg("other", a_tensor(b))};
    return emit(c, target, b == EIR_NO_VALUE ? 1 : 2, pi, m, hint, res);
}

static eir_status emit_cat0(dc *c, const uint32_t *vals, uint32_t n, const eir_tensor_meta *m, uint32_t *res) {
    eir_arg *items = calloc(n, sizeof *items);
    if (!items) return eir_fail(c->p, EIR_ERR_NOMEM, "to-core: out of memory");
    for (uint32_t i = 0; i < n; i++) items[i] = a_tensor(vals[i]);
    eir_arg l = {0};
    l.kind = EIR_ARG_TENSORS;
    l.u.list.n = n;
    l.u.list.items = items;
    eir_named_arg ci[1] = {pos_arg("tensors", l)};
    eir_status st = emit(c, "cat.default", 1, ci, m, "cat", res);
    free(items);
    return st;
}

static eir_status r_lstm(dc *c) {
    uint32_t x = tensor_of(c, "input");
    if (x == EIR_NO_VALUE) return refuse(c, "argument 'input': expected a tensor");
    if (c->src.num_outputs != 3) return refuse(c, "expected three outputs");
    for (uint32_t i = 0; i < 3; i++)
        if (c->src.outputs[i].kind != EIR_ARG_TENSOR || c->src.outputs[i].value >= c->g->num_values)
            return refuse(c, "expected three tensor outputs");
    const eir_arg *hxa = arg_named(c, "hx"), *pa = arg_named(c, "params");
    if (!hxa || hxa->kind != EIR_ARG_TENSORS || hxa->u.list.n != 2) return refuse(c, "argument 'hx': expected two tensors");
    if (!pa || pa->kind != EIR_ARG_TENSORS) return refuse(c, "argument 'params': expected a list of tensors");
    bool has_b, train, bidir, bf;
    int64_t layers;
    double drop;
    if (!bool_arg(c, "has_biases", true, &has_b) || !bool_arg(c, "train", false, &train) ||
        !bool_arg(c, "bidirectional", false, &bidir) || !bool_arg(c, "batch_first", false, &bf) ||
        !int_of(arg_named(c, "num_layers"), &layers) || !float_arg(c, "dropout", 0.0, &drop))
        return refuse(c, "arguments has_biases, num_layers, dropout, train, bidirectional, batch_first: expected "
                         "concrete values");
    if (bidir) return refuse(c, "a bidirectional lstm is not decomposed yet");
    if (train && drop != 0.0 && layers > 1) return refuse(c, "dropout between layers in training mode (random)");
    uint32_t per = has_b ? 4 : 2;
    if (layers < 1 || layers > MAXR || pa->u.list.n != per * (uint32_t)layers)
        return refuse(c, "%u parameters for %lld layers (lstm with projections is not decomposed)", pa->u.list.n,
                      (long long)layers);
    for (uint32_t i = 0; i < pa->u.list.n; i++) {
        const eir_arg *it = &pa->u.list.items[i];
        if (it->value >= c->g->num_values || c->g->values[it->value].kind != EIR_VALUE_TENSOR)
            return refuse(c, "argument 'params': item %u is not a tensor", i);
    }
    uint32_t h0 = hxa->u.list.items[0].value, c0 = hxa->u.list.items[1].value;
    if (h0 >= c->g->num_values || c0 >= c->g->num_values) return refuse(c, "argument 'hx': expected two tensors");
    const eir_tensor_meta *xm = meta_of(c, x), *hm = meta_of(c, h0), *cm = meta_of(c, c0);
    if (xm->rank != 3) return refuse(c, "input of rank %u (an unbatched lstm is not decomposed)", xm->rank);
    if (!meta_concrete_sizes(xm) || !meta_concrete_sizes(hm) || !meta_concrete_sizes(cm))
        return refuse(c, "symbolic sizes");
    for (uint32_t i = 0; i < 3; i++)
        if (xm->strides[i].is_expr || hm->strides[i].is_expr || cm->strides[i].is_expr || hm->rank != 3 || cm->rank != 3)
            return refuse(c, "symbolic strides, or hidden states not of rank 3");
    int64_t T = xm->sizes[bf ? 1 : 0].value, B = xm->sizes[bf ? 0 : 1].value, H = hm->sizes[2].value;
    if (T < 1 || T > 4096) return refuse(c, "%lld time steps (1 to 4096 are unrolled)", (long long)T);
    if (hm->sizes[0].value != layers || hm->sizes[1].value != B || cm->sizes[0].value != layers ||
        cm->sizes[1].value != B || cm->sizes[2].value != H)
        return refuse(c, "hidden states of sizes other than [num_layers, batch, hidden]");
    for (uint32_t l = 0; l < (uint32_t)layers; l++) {
        const eir_tensor_meta *wih = meta_of(c, pa->u.list.items[l * per].value);
        const eir_tensor_meta *whh = meta_of(c, pa->u.list.items[l * per + 1].value);
        if (wih->rank != 2 || whh->rank != 2 || !meta_concrete_sizes(wih) || !meta_concrete_sizes(whh) ||
            wih->sizes[0].value != 4 * H || whh->sizes[0].value != 4 * H || whh->sizes[1].value != H)
            return refuse(c, "layer %u: weights of sizes other than [4*hidden, in] and [4*hidden, hidden]", l);
    }
    if (c->dry) return EIR_OK;

    eir_status st;
    eir_dtype dt = xm->dtype;
    uint32_t *steps = calloc((size_t)T, sizeof *steps);
    uint32_t hs[MAXR], cs[MAXR], hf[MAXR], cf[MAXR];
    if (!steps) return eir_fail(c->p, EIR_ERR_NOMEM, "to-core: out of memory");
#define TRYL(e) do { if ((st = (e))) { free(steps); return st; } } while (0)
    /* hidden = zip(hx[0], hx[1]) */
    TRYL(emit_unbind0(c, h0, (uint32_t)layers, hs));
    TRYL(emit_unbind0(c, c0, (uint32_t)layers, cs));
    uint32_t inp = x;
    if (bf) {
        int64_t perm[3] = {1, 0, 2};
        tm t;
        tm_permute(&t, xm, perm);
        TRYL(emit_permute(c, x, perm, 3, &t.m, &inp));
    }
    tm g1, gbh, s1, pre;
    int64_t gsz[3] = {1, B, 4 * H}, hsz[3] = {1, B, H};
    tm_new(&g1, xm, dt, gsz, 3);
    tm_new(&s1, xm, dt, hsz, 3);
    tm_from(&gbh, &g1.m);
    gbh.m.rank = 2;
    gbh.sz[0] = si(B);
    gbh.sz[1] = si(4 * H);
    tm_contig(&gbh);
    for (uint32_t l = 0; l < (uint32_t)layers; l++) {
        uint32_t wih = pa->u.list.items[l * per].value, whh = pa->u.list.items[l * per + 1].value;
        uint32_t bih = has_b ? pa->u.list.items[l * per + 2].value : EIR_NO_VALUE;
        uint32_t bhh = has_b ? pa->u.list.items[l * per + 3].value : EIR_NO_VALUE;
        uint32_t hx, cx, pv;
        for (int k = 0; k < 2; k++) {
            uint32_t v = k ? cs[l] : hs[l];
            const eir_tensor_meta *vm = meta_of(c, v);
            tm u;
            tm_from(&u, vm);
            u.m.rank = 3;
            u.sz[2] = vm->sizes[1], u.st[2] = vm->strides[1];
            u.sz[1] = vm->sizes[0], u.st[1] = vm->strides[0];
            u.sz[0] = si(1), u.st[0] = si(vm->sizes[0].value * vm->strides[0].value);
            eir_named_arg ui[2] = {pos_arg("self", a_tensor(v)), pos_arg("dim", a_int(0))};
            TRYL(emit(c, "unsqueeze.default", 2, ui, &u.m, "unsqueeze", k ? &cx : &hx));
        }
        int64_t psz[3] = {T, B, 4 * H};
        tm_new(&pre, xm, dt, psz, 3);
        TRYL(emit_linear(c, inp, wih, bih, &pre.m, &pv));
        TRYL(emit_unbind0(c, pv, (uint32_t)T, steps));
        for (int64_t t = 0; t < T; t++) {
            uint32_t gl, ga, parts[4], sg0, sg1, th2, sg3, m0, m1, cy, tc, hy;
            TRYL(emit_linear(c, hx, whh, bhh, &g1.m, &gl));
            TRYL(emit_pw2(c, "add.Tensor", gl, steps[t], &g1.m, "add", &ga));
            /* gates.chunk(4, 2) */
            tm pm[4];
            const eir_tensor_meta *pms[4];
            for (int k = 0; k < 4; k++) {
                tm_from(&pm[k], &g1.m);
                pm[k].sz[2] = si(H);
                pm[k].m.storage_offset = si(k * H);
                pms[k] = &pm[k].m;
            }
            int64_t ss[4] = {H, H, H, H};
            eir_named_arg sp[3] = {pos_arg("self", a_tensor(ga)), pos_arg("split_sizes", a_ints(c, ss, 4)),
                                   pos_arg("dim", a_int(2))};
            TRYL(emit_n(c, "split_with_sizes.default", 3, sp, 4, pms, NULL, true, parts));
            TRYL(emit_pw2(c, "sigmoid.default", parts[0], EIR_NO_VALUE, &s1.m, "sigmoid", &sg0));
            TRYL(emit_pw2(c, "sigmoid.default", parts[1], EIR_NO_VALUE, &s1.m, "sigmoid", &sg1));
            TRYL(emit_pw2(c, "tanh.default", parts[2], EIR_NO_VALUE, &s1.m, "tanh", &th2));
            TRYL(emit_pw2(c, "sigmoid.default", parts[3], EIR_NO_VALUE, &s1.m, "sigmoid", &sg3));
            TRYL(emit_pw2(c, "mul.Tensor", sg1, cx, &s1.m, "mul", &m0));
            TRYL(emit_pw2(c, "mul.Tensor", sg0, th2, &s1.m, "mul", &m1));
            TRYL(emit_pw2(c, "add.Tensor", m0, m1, &s1.m, "add", &cy));
            TRYL(emit_pw2(c, "tanh.default", cy, EIR_NO_VALUE, &s1.m, "tanh", &tc));
            TRYL(emit_pw2(c, "mul.Tensor", sg3, tc, &s1.m, "mul", &hy));
            hx = hy;
            cx = cy;
            steps[t] = hy;
        }
        tm o;
        int64_t osz[3] = {T, B, H};
        tm_new(&o, xm, dt, osz, 3);
        TRYL(emit_cat0(c, steps, (uint32_t)T, &o.m, &inp));
        TRYL(emit_squeeze0(c, hx, &hf[l]));
        TRYL(emit_squeeze0(c, cx, &cf[l]));
    }
    uint32_t out0 = inp, out1, out2, cat;
    if (bf) {
        int64_t perm[3] = {1, 0, 2};
        tm t;
        tm_permute(&t, meta_of(c, inp), perm);
        TRYL(emit_permute(c, inp, perm, 3, &t.m, &out0));
    }
    /* torch.stack(final_hiddens, 0): cat + view */
    tm fl, fv;
    int64_t fsz[2] = {layers * B, H}, vsz[3] = {layers, B, H};
    tm_new(&fl, xm, dt, fsz, 2);
    tm_new(&fv, xm, dt, vsz, 3);
    TRYL(emit_cat0(c, hf, (uint32_t)layers, &fl.m, &cat));
    TRYL(emit_reshape(c, cat, &fv.m, "view", &out1));
    TRYL(emit_cat0(c, cf, (uint32_t)layers, &fl.m, &cat));
    TRYL(emit_reshape(c, cat, &fv.m, "view", &out2));
#undef TRYL
    free(steps);
    if ((st = finish(c, c->src.outputs[0].value, out0))) return st;
    if ((st = finish(c, c->src.outputs[1].value, out1))) return st;
    return finish(c, c->src.outputs[2].value, out2);
}

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

/* Uses of `from` in the nodes from index `start` on, the graph outputs and
 * (root graph) the output specs move to `to`. */
static void replace_from(dc *c, uint32_t from, uint32_t to, uint32_t start);

static void repl_arg(eir_arg *a, uint32_t from, uint32_t to, const char *name) {
    if ((a->kind == EIR_ARG_TENSOR || a->kind == EIR_ARG_OPTIONAL_TENSOR) && a->value == from) {
        a->value = to;
        a->name = name;
    } else if (a->kind == EIR_ARG_TENSORS || a->kind == EIR_ARG_OPTIONAL_TENSORS)
        for (uint32_t i = 0; i < a->u.list.n; i++) repl_arg(&a->u.list.items[i], from, to, name);
}

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

/* the functional op in place of the in-place one; mi >= 0: x is the latest
 * version of mutated input mi, and the result becomes it */
static eir_status inplace_emit(dc *c, const eir_op_schema *fn, uint32_t x, uint32_t out, int32_t mi) {
    if (!strcmp(c->op, "aten.copy_.default")) {
        /* x.copy_(src) of the same dtype and sizes: src is x's new value */
        uint32_t src = tensor_of(c, "src");
        const eir_tensor_meta *xm = meta_of(c, x), *sm = src != EIR_NO_VALUE ? meta_of(c, src) : NULL;
        bool same = sm && sm->dtype == xm->dtype && sm->rank == xm->rank;
        for (uint32_t i = 0; same && i < xm->rank; i++) same = si_eq(sm->sizes[i], xm->sizes[i]);
        if (!same) return refuse(c, "copy_ that converts or broadcasts its source");
        if (c->dry) {
            if (mi >= 0) c->muts->m[mi].latest = c->g->values[out].name;
            return EIR_OK;
        }
        replace_from(c, out, src, c->node + 1);
        replace_from(c, x, src, c->node + 1);
        if (mi >= 0) c->muts->m[mi].latest = c->g->values[src].name;
        return EIR_OK;
    }
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
    if ((st = emit(c, name, n, ins, meta_of(c, out), hint, &res))) return st;
    if ((st = finish(c, out, res))) return st;
    if ((st = finish(c, x, res))) return st;
    if (mi >= 0) c->muts->m[mi].latest = c->g->values[res].name;
    return EIR_OK;
}

static eir_status r_inplace(dc *c, const eir_op_schema *fn) {
    uint32_t x, out;
    eir_status st = need_io(c, "self", &x, &out);
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
            return refuse(c, "it writes the graph input %s in place (only buffers and user inputs of the top-level "
                             "graph become mutation outputs)", xv->name);
        if (!c->muts || c->muts->n == sizeof c->muts->m / sizeof *c->muts->m)
            return refuse(c, "too many mutated inputs");
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
            return refuse(c, "%s, which it writes, is aliased by %%%s (%s), read afterwards", xv->name,
                          u->name ? u->name : "?", short_op(u->target));
    }
    if (!pn) return inplace_emit(c, fn, x, out, mi);
    const eir_op_schema *ps = eir_op_find(short_op(pn->target));
    /* an in-place producer is fine when it is itself rewritten (earlier) */
    bool chain = ps && (ps->flags & EIR_OPF_INPLACE) && (ps->flags & EIR_OPF_FUNCTIONAL) && !eir_op_mutates_args(ps);
    if (!ps || (ps->flags & EIR_OPF_VIEW) || ((ps->flags & EIR_OPF_INPLACE) && !chain))
        return refuse(c, "it writes %s, a view or an in-place result of %%%s (%s)", xv->name,
                      pn->name ? pn->name : "?", short_op(pn->target));
    return inplace_emit(c, fn, x, out, mi);
}

/* ---- the table ---- */

static const struct { const char *op; rule_fn fn; } RULES[] = {
    {"aten.linear.default", r_linear},
    {"aten.conv1d.default", r_conv},
    {"aten.conv2d.default", r_conv},
    {"aten.conv3d.default", r_conv},
    {"aten.conv1d.padding", r_conv},
    {"aten.conv2d.padding", r_conv},
    {"aten.conv3d.padding", r_conv},
    {"aten.conv_transpose1d.default", r_conv},
    {"aten.conv_transpose2d.input", r_conv},
    {"aten.conv_transpose3d.input", r_conv},
    {"aten.batch_norm.default", r_batch_norm},
    {"aten.layer_norm.default", r_layer_norm},
    {"aten.dropout.default", r_dropout},
    {"aten.feature_dropout.default", r_dropout},
    {"aten.alpha_dropout.default", r_dropout},
    {"aten.feature_alpha_dropout.default", r_dropout},
    {"aten.sum.default", r_sum},
    {"aten.transpose.int", r_transpose},
    {"aten.t.default", r_transpose},
    {"aten.to.dtype", r_to},
    {"aten.to.dtype_layout", r_to},
    {"aten.to.device", r_to},
    {"aten.contiguous.default", r_contiguous},
    {"aten.reshape.default", r_reshape},
    {"aten.flatten.using_ints", r_reshape},
    {"aten.unflatten.int", r_reshape},
    {"aten.view_as.default", r_reshape},
    {"aten.reshape_as.default", r_reshape},
    {"aten.zeros.default", r_fill},
    {"aten.ones.default", r_fill},
    {"aten.zeros_like.default", r_fill},
    {"aten.ones_like.default", r_fill},
    {"aten.new_zeros.default", r_fill},
    {"aten.new_ones.default", r_fill},
    {"aten.new_full.default", r_fill},
    {"aten.silu.default", r_activation},
    {"aten.hardswish.default", r_activation},
    {"aten.hardsigmoid.default", r_activation},
    {"aten.relu6.default", r_activation},
    {"aten.matmul.default", r_matmul},
    {"aten.max_pool2d.default", r_max_pool},
    {"aten.max_pool3d.default", r_max_pool},
    {"aten.adaptive_avg_pool1d.default", r_adaptive_avg_pool},
    {"aten.adaptive_avg_pool2d.default", r_adaptive_avg_pool},
    {"aten.adaptive_avg_pool3d.default", r_adaptive_avg_pool},
    {"aten.split.Tensor", r_split},
    {"aten.__and__.Tensor", r_rename},
    {"aten.__or__.Tensor", r_rename},
    {"aten.__xor__.Tensor", r_rename},
    {"aten.__and__.Scalar", r_rename},
    {"aten.__or__.Scalar", r_rename},
    {"aten.__xor__.Scalar", r_rename},
    {"aten.arange.start", r_rename},
    {"aten.arange.default", r_rename},
    {"aten.item.default", r_item},
    {"aten.scaled_dot_product_attention.default", r_sdpa},
    {"aten.squeeze.dim", r_squeeze},
    {"aten.real.default", r_real_imag},
    {"aten.imag.default", r_real_imag},
    {"aten.group_norm.default", r_group_norm},
    {"aten.pad.default", r_pad},
    {"aten.repeat_interleave.self_int", r_repeat_interleave},
    {"aten.repeat_interleave.self_Tensor", r_repeat_interleave},
    {"aten.lstm.input", r_lstm},
    {"aten.softmax.int", r_softmax},
    {"aten.log_softmax.int", r_softmax},
    {"aten.rsub.Tensor", r_rsub},
    {"aten.rsub.Scalar", r_rsub},
    {"aten.detach.default", r_rename},
    {"aten.divide.Tensor", r_rename},
    {"aten.divide.Tensor_mode", r_rename},
    {"aten.subtract.Tensor", r_rename},
    {"aten.broadcast_to.default", r_rename},
    {"aten.lift_fresh_copy.default", r_lift_detach},
    {"aten.detach_.default", r_lift_detach},
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

static eir_status run_graph(eir_program *p, eir_graph *g, bool dry, mut_state *muts, uint32_t *changed) {
    dc *c = calloc(1, sizeof *c);
    if (!c) return eir_fail(p, EIR_ERR_NOMEM, "to-core: out of memory");
    eir_status st = EIR_OK;
    for (uint32_t i = 0; i < g->num_nodes && !st; i++) {
        const eir_node *nd = &g->nodes[i];
        /* nested graphs first (control flow bodies) */
        for (uint32_t j = 0; j < nd->num_inputs && !st; j++) {
            const eir_arg *a = &nd->inputs[j].arg;
            if (a->kind == EIR_ARG_GRAPH && a->u.graph.graph) st = run_graph(p, a->u.graph.graph, dry, NULL, changed);
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
        c->npool = 0;
        c->kept = false;
        st = fn ? fn(c) : r_inplace(c, fs);
        if (st || dry) continue;
        if (c->kept) {
            (*changed)++;
            continue;
        }
        /* c->node is where the decomposed node now sits */
        st = eir_graph_erase_node(p, g, c->node);
        if (st) break;
        (*changed)++;
        i = c->pos - 1;
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
    eir_status st = run_graph(p, p->graph, true, ms, &n);
    if (!st) {
        ms->n = 0;
        st = run_graph(p, p->graph, false, ms, changed);
    }
    if (!st) st = add_mutation_outputs(p, ms);
    free(ms);
    return st;
}
