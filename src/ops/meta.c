/* meta.c — shape and dtype inference for ATen overloads (meta.h): type
 * promotion, broadcasting, TensorIterator's output layout, view geometry,
 * and one meta function per overload in META[], sorted by name (the less
 * common overloads' functions are in meta_more.c, through meta_int.h). Symbolic sizes are
 * sympy trees (src/ir/sym.h); an inferred expression is compared with a
 * recorded one by evaluating both at several points. */
#include "meta.h"
#include "meta_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "optable.h"
#include "../ir/program.h"


int meta_fail(mctx *c, const char *fmt, ...) EIR_PRINTF(2, 3);
int meta_fail(mctx *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, c->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- dims: integers, expressions, unknown ---- */


static eir_mdim from_symint(const eir_program *p, const eir_symint *s) {
    if (!s->is_expr) return D(s->value);
    if (s->expr >= p->num_exprs || !p->exprs[s->expr].tree) return UNK;
    return (eir_mdim){EIR_MDIM_SYM, 0, p->exprs[s->expr].tree};
}

static const eir_sym_node *tree_of(mctx *c, eir_mdim d) {
    if (d.kind == EIR_MDIM_SYM) return d.e;
    eir_sym_node *n = eir_arena_alloc(c->a, sizeof *n);
    if (!n) return NULL;
    memset(n, 0, sizeof *n);
    n->kind = EIR_SYM_INTEGER;
    n->ival = d.c;
    return n;
}

static eir_mdim call2(mctx *c, const char *fn, eir_mdim x, eir_mdim y) {
    const eir_sym_node *a = tree_of(c, x), *b = tree_of(c, y);
    eir_sym_node *n = eir_arena_alloc(c->a, sizeof *n);
    eir_sym_node **args = eir_arena_array(c->a, 2, sizeof *args);
    if (!a || !b || !n || !args) return UNK;
    memset(n, 0, sizeof *n);
    n->kind = EIR_SYM_CALL;
    n->name = fn;
    n->nargs = 2;
    args[0] = (eir_sym_node *)a;
    args[1] = (eir_sym_node *)b;
    n->args = args;
    return (eir_mdim){EIR_MDIM_SYM, 0, n};
}


eir_mdim meta_dmul(mctx *c, eir_mdim x, eir_mdim y) {
    if (!known(x) || !known(y)) return UNK;
    if (x.kind == EIR_MDIM_INT && y.kind == EIR_MDIM_INT) {
        int64_t r;
        if (__builtin_mul_overflow(x.c, y.c, &r)) return UNK;
        return D(r);
    }
    if (is_int(x, 1)) return y;
    if (is_int(y, 1)) return x;
    if (is_int(x, 0) || is_int(y, 0)) return D(0);
    if (y.kind == EIR_MDIM_INT) { eir_mdim t = x; x = y; y = t; }
    /* k * (j * e) -> (k j) * e */
    if (x.kind == EIR_MDIM_INT && y.e->kind == EIR_SYM_CALL && !strcmp(y.e->name, "Mul") && y.e->nargs == 2 &&
        y.e->args[0]->kind == EIR_SYM_INTEGER) {
        int64_t k;
        if (!__builtin_mul_overflow(x.c, y.e->args[0]->ival, &k)) return call2(c, "Mul", D(k), (eir_mdim){EIR_MDIM_SYM, 0, y.e->args[1]});
    }
    return call2(c, "Mul", x, y);
}

eir_mdim meta_dadd(mctx *c, eir_mdim x, eir_mdim y) {
    if (!known(x) || !known(y)) return UNK;
    if (x.kind == EIR_MDIM_INT && y.kind == EIR_MDIM_INT) {
        int64_t r;
        if (__builtin_add_overflow(x.c, y.c, &r)) return UNK;
        return D(r);
    }
    if (is_int(x, 0)) return y;
    if (is_int(y, 0)) return x;
    if (x.kind == EIR_MDIM_INT) { eir_mdim t = x; x = y; y = t; }
    /* (e + k) + j -> e + (k + j), so that sizes such as s + 2p - 2 - 1 read as torch prints them */
    if (y.kind == EIR_MDIM_INT && x.e->kind == EIR_SYM_CALL && !strcmp(x.e->name, "Add") && x.e->nargs == 2 &&
        x.e->args[1]->kind == EIR_SYM_INTEGER) {
        int64_t k;
        if (!__builtin_add_overflow(x.e->args[1]->ival, y.c, &k)) {
            eir_mdim e = {EIR_MDIM_SYM, 0, x.e->args[0]};
            return k == 0 ? e : call2(c, "Add", e, D(k));
        }
    }
    return call2(c, "Add", x, y);
}

eir_mdim meta_dsub(mctx *c, eir_mdim x, eir_mdim y) {
    if (y.kind == EIR_MDIM_INT) return y.c == INT64_MIN ? UNK : meta_dadd(c, x, D(-y.c));
    return meta_dadd(c, x, meta_dmul(c, D(-1), y));
}

/* floor division, as Python's // */
eir_mdim meta_dfloordiv(mctx *c, eir_mdim x, eir_mdim y) {
    if (!known(x) || !known(y)) return UNK;
    if (x.kind == EIR_MDIM_INT && y.kind == EIR_MDIM_INT) {
        if (y.c == 0 || (x.c == INT64_MIN && y.c == -1)) return UNK;
        int64_t q = x.c / y.c;
        if ((x.c % y.c != 0) && ((x.c < 0) != (y.c < 0))) q--;
        return D(q);
    }
    if (is_int(y, 1)) return x;
    return call2(c, "FloorDiv", x, y);
}

static eir_mdim dmax1(mctx *c, eir_mdim x) {
    if (x.kind == EIR_MDIM_INT) return D(x.c < 1 ? 1 : x.c);
    return x; /* a symbolic size is >= 2 where torch specialised 0 and 1 */
}

/* Symbols take values drawn from their range constraints, differently in
 * each trial, so that two expressions which agree at every trial are taken
 * as equal, and ones that differ at every trial as different. */
#define TRIALS 3

typedef struct evalctx {
    const eir_program *p;
    int trial;
} evalctx;

static bool sym_lookup(void *vctx, const char *name, eir_sym_value *v) {
    evalctx *e = vctx;
    uint64_t h = 1469598103934665603ull;
    for (const char *s = name; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ull;
    h = (h ^ (uint64_t)(e->trial + 1)) * 1099511628211ull;
    h ^= h >> 29;
    int64_t lo = 2, hi = 1000;
    for (uint32_t i = 0; i < e->p->num_ranges; i++) {
        const eir_range *r = &e->p->ranges[i];
        if (!r->symbol || strcmp(r->symbol, name)) continue;
        if (r->has_min && r->min > lo) lo = r->min;
        if (r->has_max && r->max < hi) hi = r->max;
        if (r->has_max && r->max < lo) lo = hi = r->max;
    }
    if (hi < lo) hi = lo;
    v->is_float = false;
    v->i = lo + (int64_t)(h % (uint64_t)(hi - lo + 1));
    return true;
}

static bool deval(const eir_program *p, eir_mdim d, int trial, int64_t *out) {
    if (d.kind == EIR_MDIM_INT) { *out = d.c; return true; }
    if (d.kind != EIR_MDIM_SYM) return false;
    evalctx e = {p, trial};
    char err[64];
    return eir_sym_eval(d.e, sym_lookup, &e, out, err, sizeof err);
}

static eir_meta_cmp dcmp(const eir_program *p, eir_mdim x, eir_mdim y) {
    if (!known(x) || !known(y)) return EIR_MCMP_UNKNOWN;
    if (x.kind == EIR_MDIM_INT && y.kind == EIR_MDIM_INT) return x.c == y.c ? EIR_MCMP_AGREE : EIR_MCMP_DIFFER;
    if (x.kind == EIR_MDIM_SYM && y.kind == EIR_MDIM_SYM && x.e == y.e) return EIR_MCMP_AGREE;
    int same = 0, differ = 0;
    for (int t = 0; t < TRIALS; t++) {
        int64_t a, b;
        if (!deval(p, x, t, &a) || !deval(p, y, t, &b)) return EIR_MCMP_UNKNOWN;
        if (a == b) same++;
        else differ++;
    }
    return differ == 0 ? EIR_MCMP_AGREE : same == 0 ? EIR_MCMP_DIFFER : EIR_MCMP_UNKNOWN;
}

/* the value at trial 0, for decisions (broadcasting, stride order) that torch makes on hints */
bool meta_dval(mctx *c, eir_mdim d, int64_t *out) { return deval(c->p, d, 0, out); }

bool meta_deq(mctx *c, eir_mdim x, eir_mdim y) { return dcmp(c->p, x, y) == EIR_MCMP_AGREE; }

/* ---- tensors ---- */

void meta_set_contiguous(mctx *c, eir_mtensor *t) {
    eir_mdim s = D(1);
    for (uint32_t i = t->rank; i-- > 0;) {
        t->strides[i] = s;
        s = meta_dmul(c, s, dmax1(c, t->sizes[i]));
    }
    t->offset = D(0);
    t->strides_known = true;
}

/* dims from fastest to slowest: channels_last (N, C, H, W) -> C, W, H, N */
void meta_set_strides_order(mctx *c, eir_mtensor *t, const uint32_t *order) {
    eir_mdim s = D(1);
    for (uint32_t k = 0; k < t->rank; k++) {
        t->strides[order[k]] = s;
        s = meta_dmul(c, s, dmax1(c, t->sizes[order[k]]));
    }
    t->offset = D(0);
    t->strides_known = true;
}

static const uint32_t CL2D[] = {1, 3, 2, 0}, CL3D[] = {1, 4, 3, 2, 0};

void meta_set_channels_last(mctx *c, eir_mtensor *t) {
    if (t->rank == 4) meta_set_strides_order(c, t, CL2D);
    else if (t->rank == 5) meta_set_strides_order(c, t, CL3D);
    else meta_set_contiguous(c, t);
}

/* numeric sizes and strides (trial 0); false when any is unknown */
static bool numeric(mctx *c, const eir_mtensor *t, int64_t *sz, int64_t *st) {
    if (!t->sizes_known || (st && !t->strides_known)) return false;
    for (uint32_t i = 0; i < t->rank; i++) {
        if (!meta_dval(c, t->sizes[i], &sz[i])) return false;
        if (st && !meta_dval(c, t->strides[i], &st[i])) return false;
    }
    return true;
}

/* TensorImpl::is_contiguous(format) */
static bool is_contig_order(mctx *c, const eir_mtensor *t, const uint32_t *order) {
    int64_t sz[MAXR], st[MAXR];
    if (!numeric(c, t, sz, st)) return false;
    int64_t expect = 1;
    for (uint32_t i = 0; i < t->rank; i++) if (sz[i] == 0) return true;
    for (uint32_t k = 0; k < t->rank; k++) {
        uint32_t d = order ? order[k] : t->rank - 1 - k;
        if (sz[d] == 1) continue;
        if (st[d] != expect || __builtin_mul_overflow(expect, sz[d], &expect)) return false;
    }
    return true;
}

bool meta_is_contiguous(mctx *c, const eir_mtensor *t) { return is_contig_order(c, t, NULL); }
static bool is_channels_last(mctx *c, const eir_mtensor *t) {
    return t->rank == 4 && is_contig_order(c, t, CL2D);
}

/* TensorImpl::is_non_overlapping_and_dense */
static bool is_dense(mctx *c, const eir_mtensor *t) {
    int64_t sz[MAXR], st[MAXR];
    if (!numeric(c, t, sz, st)) return false;
    if (t->rank == 1) return sz[0] < 2 || st[0] == 1;
    uint32_t perm[MAXR];
    for (uint32_t i = 0; i < t->rank; i++) perm[i] = i;
    for (uint32_t i = 1; i < t->rank; i++)
        for (uint32_t j = i; j > 0; j--) {
            uint32_t a = perm[j - 1], b = perm[j];
            bool after = sz[a] < 2 ? sz[b] >= 2 : (sz[b] >= 2 && st[b] < st[a]);
            if (!after) break;
            perm[j - 1] = b;
            perm[j] = a;
        }
    int64_t req = 1;
    for (uint32_t k = 0; k < t->rank; k++) {
        uint32_t d = perm[k];
        if (sz[d] < 2) return true;
        if (st[d] != req || __builtin_mul_overflow(req, sz[d], &req)) return false;
    }
    return true;
}

/* torch._prims_common.suggest_memory_format: strides like channels-last */
bool meta_strides_like_cl(mctx *c, const eir_mtensor *t) {
    if (t->rank != 4 && t->rank != 5) return false;
    int64_t sz[MAXR], st[MAXR];
    if (!numeric(c, t, sz, st)) return false;
    const uint32_t *order = t->rank == 4 ? CL2D : CL3D;
    int64_t min = 0;
    if (st[1] == 0) return false;
    for (uint32_t k = 0; k < t->rank; k++) {
        uint32_t d = order[k];
        if (sz[d] == 0) return false;
        if (st[d] < min) return false;
        if (d == 0 && min == st[1]) return false;
        min = st[d];
        if (st[d] > 1 && __builtin_mul_overflow(min, sz[d], &min)) return false;
    }
    return true;
}

/* TensorIterator's stride order for inputs ins (already broadcast to out's
 * sizes): perm[0] is the fastest dim. */
static bool ti_perm(mctx *c, const eir_mtensor *ins, uint32_t n, const eir_mtensor *out, uint32_t *perm) {
    uint32_t r = out->rank;
    int64_t shape[MAXR], bst[8][MAXR];
    if (n > 8) return false;
    for (uint32_t i = 0; i < r; i++) if (!meta_dval(c, out->sizes[i], &shape[i])) return false;
    for (uint32_t k = 0; k < n; k++) {
        int64_t sz[MAXR], st[MAXR];
        if (!numeric(c, &ins[k], sz, st)) return false;
        uint32_t off = r - ins[k].rank;
        for (uint32_t i = 0; i < r; i++) {
            if (i < off) { bst[k][i] = 0; continue; }
            uint32_t j = i - off;
            bst[k][i] = (sz[j] == 1 && shape[i] != 1) ? 0 : st[j];
        }
    }
    for (uint32_t i = 0; i < r; i++) perm[i] = r - 1 - i;
    for (uint32_t i = 1; i < r; i++) {
        uint32_t d1 = i;
        for (int32_t d0 = (int32_t)i - 1; d0 >= 0; d0--) {
            int cmp = 0;
            uint32_t a = perm[d0], b = perm[d1];
            for (uint32_t k = 0; k < n && !cmp; k++) {
                int64_t s0 = bst[k][a], s1 = bst[k][b];
                if (s0 == 0 || s1 == 0) continue;
                if (s0 < s1) cmp = -1;
                else if (s0 > s1) cmp = 1;
                else if (shape[a] > shape[b]) cmp = 1;
            }
            if (cmp > 0) {
                perm[d0] = b;
                perm[d1] = a;
                d1 = (uint32_t)d0;
            } else if (cmp < 0) {
                break;
            }
        }
    }
    return true;
}

/* The layout TensorIterator gives a new output of sizes out->sizes from
 * inputs ins: the fast set-up when every operand has the output's shape
 * (contiguous, channels-last, or the inputs' common dense strides), else
 * strides in the order of the inputs' strides. */
void meta_ti_layout(mctx *c, const eir_mtensor *ins, uint32_t n, eir_mtensor *out) {
    out->offset = D(0);
    out->strides_known = false;
    for (uint32_t k = 0; k < n; k++) if (!ins[k].strides_known) return;
    bool same_shape = true;
    for (uint32_t k = 0; k < n && same_shape; k++) {
        if (ins[k].rank != out->rank) same_shape = false;
        for (uint32_t i = 0; i < out->rank && same_shape; i++)
            if (!meta_deq(c, ins[k].sizes[i], out->sizes[i])) same_shape = false;
    }
    if (same_shape && n > 0) {
        bool contig = true, cl = true, dense = true, same_strides = true;
        for (uint32_t k = 0; k < n; k++) {
            contig = contig && meta_is_contiguous(c, &ins[k]);
            cl = cl && is_channels_last(c, &ins[k]);
            dense = dense && is_dense(c, &ins[k]);
            for (uint32_t i = 0; i < out->rank && same_strides; i++)
                if (!meta_deq(c, ins[k].strides[i], ins[0].strides[i])) same_strides = false;
        }
        if (contig) { meta_set_contiguous(c, out); return; }
        if (cl) { meta_set_channels_last(c, out); return; }
        if (dense && same_strides) {
            for (uint32_t i = 0; i < out->rank; i++) out->strides[i] = ins[0].strides[i];
            out->strides_known = true;
            return;
        }
    }
    uint32_t perm[MAXR];
    if (!ti_perm(c, ins, n, out, perm)) return;
    eir_mdim s = D(1);
    for (uint32_t k = 0; k < out->rank; k++) {
        out->strides[perm[k]] = s;
        s = meta_dmul(c, s, dmax1(c, out->sizes[perm[k]])); /* an empty dim counts as 1, as in empty() */
    }
    out->strides_known = true;
}

/* empty_like(self, memory_format=preserve): self's strides when it is
 * dense, else dense strides in the order of self's */
void meta_like_preserve(mctx *c, const eir_mtensor *self, eir_mtensor *out) {
    out->offset = D(0);
    out->strides_known = false;
    if (!self->strides_known) return;
    if (is_dense(c, self)) {
        for (uint32_t i = 0; i < out->rank; i++) out->strides[i] = self->strides[i];
        out->strides_known = true;
        return;
    }
    meta_ti_layout(c, self, 1, out);
}

/* ---- dtypes ---- */

int meta_dt_cat(eir_dtype d) {
    switch (d) {
    case EIR_BOOL: return 0;
    case EIR_U8: case EIR_I8: case EIR_I16: case EIR_I32: case EIR_I64: return 1;
    case EIR_F16: case EIR_BF16: case EIR_F32: case EIR_F64: return 2;
    case EIR_C32: case EIR_C64: case EIR_C128: return 3;
    default: return -1;
    }
}

eir_dtype meta_to_complex(eir_dtype f) {
    return f == EIR_F64 ? EIR_C128 : f == EIR_F16 ? EIR_C32 : EIR_C64;
}
eir_dtype meta_complex_value(eir_dtype z) {
    return z == EIR_C128 ? EIR_F64 : z == EIR_C32 ? EIR_F16 : EIR_F32;
}

/* c10::promoteTypes for the dtypes above; UNKNOWN for others */
eir_dtype meta_promote(eir_dtype a, eir_dtype b) {
    if (a == EIR_DTYPE_UNKNOWN) return b;
    if (b == EIR_DTYPE_UNKNOWN) return a;
    if (a == b) return a;
    int ca = meta_dt_cat(a), cb = meta_dt_cat(b);
    if (ca < 0 || cb < 0) return EIR_DTYPE_UNKNOWN;
    if (ca == 0) return b;
    if (cb == 0) return a;
    if (ca == 3 || cb == 3) {
        eir_dtype va = ca == 3 ? meta_complex_value(a) : a, vb = cb == 3 ? meta_complex_value(b) : b;
        if (meta_dt_cat(va) != 2) va = EIR_F16;
        if (meta_dt_cat(vb) != 2) vb = EIR_F16;
        return meta_to_complex(meta_promote(va, vb));
    }
    if (ca == 2 && cb == 2) {
        if ((a == EIR_F16 && b == EIR_BF16) || (a == EIR_BF16 && b == EIR_F16)) return EIR_F32;
        return eir_dtype_size(a) >= eir_dtype_size(b) ? a : b;
    }
    if (ca == 2) return a;
    if (cb == 2) return b;
    /* two integer types */
    if (a == EIR_U8 || b == EIR_U8) {
        eir_dtype o = a == EIR_U8 ? b : a;
        return o == EIR_I8 ? EIR_I16 : o;
    }
    return eir_dtype_size(a) >= eir_dtype_size(b) ? a : b;
}

/* at::native::result_type: dimensioned tensors over zero-dim ones over
 * wrapped numbers, a lower group counting only when its category is higher */
static eir_dtype combine(eir_dtype hi, eir_dtype lo) {
    if (hi == EIR_DTYPE_UNKNOWN) return lo;
    if (lo == EIR_DTYPE_UNKNOWN) return hi;
    int ch = meta_dt_cat(hi), cl = meta_dt_cat(lo);
    if (ch == 3) return hi;
    if (cl == 3) return ch == 2 ? meta_to_complex(hi) : lo;
    if (ch == 2) return hi;
    if (hi == EIR_BOOL || cl == 2) return meta_promote(hi, lo);
    return hi;
}

static eir_dtype result_type(const operand *ops, uint32_t n) {
    eir_dtype dim = EIR_DTYPE_UNKNOWN, zero = EIR_DTYPE_UNKNOWN, wrap = EIR_DTYPE_UNKNOWN;
    for (uint32_t i = 0; i < n; i++) {
        eir_dtype d = ops[i].t.dtype;
        if (ops[i].wrapped) {
            if (meta_dt_cat(d) == 3) d = EIR_C64;
            else if (meta_dt_cat(d) == 2) d = EIR_F32;
            wrap = meta_promote(wrap, d);
        } else if (ops[i].t.rank == 0) {
            zero = meta_promote(zero, d);
        } else {
            dim = meta_promote(dim, d);
        }
    }
    return combine(dim, combine(zero, wrap));
}

/* ---- arguments ---- */

const eir_arg *meta_arg(mctx *c, const char *name) {
    for (uint32_t i = 0; i < c->nd->num_inputs; i++)
        if (c->nd->inputs[i].name && !strcmp(c->nd->inputs[i].name, name)) {
            const eir_arg *a = &c->nd->inputs[i].arg;
            if (a->kind == EIR_ARG_NONE || (a->kind == EIR_ARG_OPTIONAL_TENSOR && a->value == EIR_NO_VALUE))
                return NULL;
            return a;
        }
    return NULL;
}

static bool tensor_of_value(mctx *c, uint32_t v, eir_mtensor *t) {
    memset(t, 0, sizeof *t);
    if (v == EIR_NO_VALUE || v >= c->g->num_values) return false;
    const eir_value *val = &c->g->values[v];
    if (val->kind != EIR_VALUE_TENSOR || val->meta.rank > MAXR) return false;
    const eir_tensor_meta *m = &val->meta;
    t->dtype = m->dtype;
    t->rank = m->rank;
    t->sizes_known = t->strides_known = true;
    for (uint32_t i = 0; i < m->rank; i++) {
        t->sizes[i] = from_symint(c->p, &m->sizes[i]);
        if (t->sizes[i].kind == EIR_MDIM_INT && t->sizes[i].c < 0) return false; /* not a tensor's size */
        t->strides[i] = m->strides ? from_symint(c->p, &m->strides[i]) : UNK;
    }
    t->offset = from_symint(c->p, &m->storage_offset);
    return true;
}

/* A tensor argument, or a Python number in a Tensor slot (a wrapped
 * number). 1: read; 0: absent (None); -1: a form not inferred. */
static int in_operand(mctx *c, const eir_arg *a, operand *o) {
    memset(o, 0, sizeof *o);
    if (!a) return 0;
    switch (a->kind) {
    case EIR_ARG_TENSOR: case EIR_ARG_OPTIONAL_TENSOR:
        return tensor_of_value(c, a->value, &o->t) ? 1 : -1;
    case EIR_ARG_INT: case EIR_ARG_SYM_INT: o->t.dtype = EIR_I64; break;
    case EIR_ARG_FLOAT: case EIR_ARG_SYM_FLOAT: o->t.dtype = EIR_F64; break;
    case EIR_ARG_BOOL: case EIR_ARG_SYM_BOOL: o->t.dtype = EIR_BOOL; break;
    case EIR_ARG_COMPLEX: o->t.dtype = EIR_C128; break;
    default: return -1;
    }
    o->wrapped = true;
    o->t.sizes_known = o->t.strides_known = true;
    o->t.offset = D(0);
    return 1;
}

int meta_in_tensor(mctx *c, const char *name, eir_mtensor *t) {
    const eir_arg *a = meta_arg(c, name);
    if (!a) return 0;
    if (a->kind != EIR_ARG_TENSOR && a->kind != EIR_ARG_OPTIONAL_TENSOR) return -1;
    return tensor_of_value(c, a->value, t) ? 1 : -1;
}

bool meta_symint_arg(mctx *c, const eir_arg *a, eir_mdim *out) {
    if (a->kind == EIR_ARG_INT) { *out = D(a->u.i); return true; }
    if (a->kind == EIR_ARG_SYM_INT) {
        if (a->literal) { *out = D(a->u.i); return true; }
        if (a->value >= c->g->num_values || c->g->values[a->value].kind != EIR_VALUE_SYM_INT) return false;
        *out = from_symint(c->p, &c->g->values[a->value].sym);
        return true;
    }
    return false;
}

/* the schema's default of argument `name` as text, or NULL */
static const char *schema_default(mctx *c, const char *name) {
    for (uint32_t i = 0; i < c->s->nargs; i++)
        if (!strcmp(c->s->args[i].name, name)) return c->s->args[i].def;
    return NULL;
}

/* an int argument (its schema default when absent); false when it is symbolic or unknown */
bool meta_in_int(mctx *c, const char *name, int64_t *v) {
    const eir_arg *a = meta_arg(c, name);
    if (!a) {
        const char *d = schema_default(c, name);
        if (!d || !strcmp(d, "None")) return false;
        if (!strcmp(d, "True") || !strcmp(d, "False")) { *v = d[0] == 'T'; return true; }
        char *end;
        long long x = strtoll(d, &end, 10);
        if (*end) return false;
        *v = x;
        return true;
    }
    if (a->kind == EIR_ARG_BOOL) { *v = a->u.b; return true; }
    eir_mdim m;
    if (!meta_symint_arg(c, a, &m) || m.kind != EIR_MDIM_INT) return false;
    *v = m.c;
    return true;
}

bool meta_in_bool(mctx *c, const char *name, bool def) {
    const eir_arg *a = meta_arg(c, name);
    if (a && a->kind == EIR_ARG_BOOL) return a->u.b;
    if (a && a->kind == EIR_ARG_INT) return a->u.i != 0;
    const char *d = schema_default(c, name);
    if (!a && d) return !strcmp(d, "True");
    return def;
}

/* an int list (a single int fills the list to `fill` entries, as int[2] k=3);
 * default text "[1, 1]" when absent. Returns the count, or -1. */
int meta_in_ints(mctx *c, const char *name, eir_mdim *out, uint32_t max, uint32_t fill) {
    const eir_arg *a = meta_arg(c, name);
    if (!a) {
        const char *d = schema_default(c, name);
        if (!d || d[0] != '[') return -1;
        uint32_t n = 0;
        const char *s = d + 1;
        while (*s && *s != ']') {
            char *end;
            long long x = strtoll(s, &end, 10);
            if (end == s || n >= max) return -1;
            out[n++] = D(x);
            s = end;
            while (*s == ',' || *s == ' ') s++;
        }
        if (n == 1 && fill > 1 && fill <= max)
            for (; n < fill; n++) out[n] = out[0];
        return (int)n;
    }
    if (a->kind == EIR_ARG_INT || a->kind == EIR_ARG_SYM_INT) {
        if (!meta_symint_arg(c, a, &out[0])) return -1;
        uint32_t n = fill > 1 && fill <= max ? fill : 1;
        for (uint32_t i = 1; i < n; i++) out[i] = out[0];
        return (int)n;
    }
    if (a->kind != EIR_ARG_INTS && a->kind != EIR_ARG_SYM_INTS) return -1;
    if (a->u.list.n > max) return -1;
    for (uint32_t i = 0; i < a->u.list.n; i++)
        if (!meta_symint_arg(c, &a->u.list.items[i], &out[i])) return -1;
    if (a->u.list.n == 1 && fill > 1 && fill <= max)
        for (uint32_t i = 1; i < fill; i++) out[i] = out[0];
    return (int)(a->u.list.n == 1 && fill > 1 && fill <= max ? fill : a->u.list.n);
}

eir_dtype meta_in_dtype(mctx *c, const char *name) {
    const eir_arg *a = meta_arg(c, name);
    return a && a->kind == EIR_ARG_SCALAR_TYPE ? (eir_dtype)a->u.i : EIR_DTYPE_UNKNOWN;
}

/* memory_format argument: an EIR_MF_* code, EIR_MF_UNKNOWN when absent */
int meta_in_memfmt(mctx *c, const char *name) {
    const eir_arg *a = meta_arg(c, name);
    return a && a->kind == EIR_ARG_MEMORY_FORMAT ? (int)a->u.i : EIR_MF_UNKNOWN;
}

bool meta_wrap_dim(mctx *c, int64_t d, uint32_t rank, const char *what, uint32_t *out) {
    int64_t r = rank == 0 ? 1 : rank;
    if (d < -r || d >= r) {
        meta_fail(c, "%s %lld is out of range for a tensor of rank %u (expected a dim in [%lld, %lld])", what,
             (long long)d, rank, (long long)-r, (long long)(r - 1));
        return false;
    }
    *out = (uint32_t)(d < 0 ? d + r : d);
    return true;
}

/* ---- broadcasting ---- */

int meta_broadcast(mctx *c, const operand *ops, uint32_t n, eir_mtensor *out, const char *const *names) {
    uint32_t r = 0;
    for (uint32_t k = 0; k < n; k++) {
        if (!ops[k].t.sizes_known) return 0;
        if (ops[k].t.rank > r) r = ops[k].t.rank;
    }
    out->rank = r;
    out->sizes_known = true;
    for (uint32_t i = 0; i < r; i++) {
        eir_mdim s = D(1);
        int from = -1;
        for (uint32_t k = 0; k < n; k++) {
            uint32_t off = r - ops[k].t.rank;
            if (i < off) continue;
            eir_mdim d = ops[k].t.sizes[i - off];
            if (is_int(d, 1)) continue;
            if (is_int(s, 1)) { s = d; from = (int)k; continue; }
            eir_meta_cmp e = dcmp(c->p, s, d);
            if (e == EIR_MCMP_DIFFER && s.kind == EIR_MDIM_INT && d.kind == EIR_MDIM_INT)
                return meta_fail(c, "the sizes of '%s' and '%s' do not broadcast: %lld vs %lld at dim %u of the result",
                            names[from], names[k], (long long)s.c, (long long)d.c, i);
            if (s.kind == EIR_MDIM_SYM && d.kind == EIR_MDIM_INT) s = d; /* torch guarded s == d */
        }
        out->sizes[i] = s;
    }
    return 1;
}

/* ---- pointwise ---- */


/* A pointwise op over the Tensor/Scalar arguments names[0..n): promotion
 * (kind PW_SAME: the common dtype; PW_FLOAT: integers become float32;
 * PW_BOOL: bool; PW_TRUEDIV: as PW_FLOAT), broadcasting, TensorIterator's layout. */
int meta_pointwise(mctx *c, eir_mtensor *o, const char *const *names, uint32_t n, int kind) {
    operand ops[4];
    eir_mtensor ts[4];
    uint32_t nt = 0;
    const char *present[4];
    uint32_t np = 0;
    for (uint32_t k = 0; k < n; k++) {
        int r = in_operand(c, meta_arg(c, names[k]), &ops[np]);
        if (r < 0 || (r == 0 && k == 0)) return 0;
        if (r == 0) continue; /* an optional operand left out (clamp's min or max) */
        present[np] = names[k];
        ts[nt++] = ops[np++].t;
    }
    memset(o, 0, sizeof *o);
    int b = meta_broadcast(c, ops, np, o, present);
    if (b <= 0) return b;
    eir_dtype dt = result_type(ops, np);
    if (dt == EIR_DTYPE_UNKNOWN) return 0;
    if ((kind == PW_FLOAT || kind == PW_TRUEDIV) && meta_dt_cat(dt) < 2) dt = EIR_F32;
    if (kind == PW_BOOL) dt = EIR_BOOL;
    o->dtype = dt;
    meta_ti_layout(c, ts, nt, o);
    return 1;
}

static const char *const N_SELF[] = {"self"};
static const char *const N_SELF_OTHER[] = {"self", "other"};

static int m_unary(mctx *c, eir_mtensor *o, uint32_t max) { return meta_pointwise(c, o, N_SELF, 1, PW_SAME); }
static int m_unary_float(mctx *c, eir_mtensor *o, uint32_t max) { return meta_pointwise(c, o, N_SELF, 1, PW_FLOAT); }
static int m_unary_bool(mctx *c, eir_mtensor *o, uint32_t max) { return meta_pointwise(c, o, N_SELF, 1, PW_BOOL); }
static int m_binary(mctx *c, eir_mtensor *o, uint32_t max) { return meta_pointwise(c, o, N_SELF_OTHER, 2, PW_SAME); }
static int m_binary_float(mctx *c, eir_mtensor *o, uint32_t max) {
    return meta_pointwise(c, o, N_SELF_OTHER, 2, PW_FLOAT);
}
static int m_binary_bool(mctx *c, eir_mtensor *o, uint32_t max) { return meta_pointwise(c, o, N_SELF_OTHER, 2, PW_BOOL); }

static int m_div_mode(mctx *c, eir_mtensor *o, uint32_t max) {
    const eir_arg *m = meta_arg(c, "rounding_mode");
    bool rounding = m && m->kind == EIR_ARG_STRING;
    int r = meta_pointwise(c, o, N_SELF_OTHER, 2, rounding ? PW_SAME : PW_FLOAT);
    /* floor division of floats: torch's meta is a chain of a dozen pointwise
     * ops (fmod, where, copysign...) whose layout is not TensorIterator's
     * when the inputs' layouts differ; inferred only when all are contiguous */
    if (r > 0 && rounding && !strcmp(m->u.s, "floor") && meta_dt_cat(o->dtype) == 2) {
        eir_mtensor a, b;
        bool ca = meta_in_tensor(c, "self", &a) != 1 || meta_is_contiguous(c, &a);
        bool cb = meta_in_tensor(c, "other", &b) != 1 || meta_is_contiguous(c, &b);
        if (!ca || !cb) o->strides_known = false;
    }
    return r;
}

static int m_where(mctx *c, eir_mtensor *o, uint32_t max) {
    static const char *const names[] = {"condition", "self", "other"};
    operand ops[3];
    for (uint32_t k = 0; k < 3; k++)
        if (in_operand(c, meta_arg(c, names[k]), &ops[k]) <= 0) return 0;
    memset(o, 0, sizeof *o);
    int b = meta_broadcast(c, ops, 3, o, names);
    if (b <= 0) return b;
    o->dtype = result_type(ops + 1, 2);
    if (o->dtype == EIR_DTYPE_UNKNOWN) return 0;
    eir_mtensor ts[3] = {ops[0].t, ops[1].t, ops[2].t};
    meta_ti_layout(c, ts, 3, o);
    return 1;
}

/* ops returning their first argument (in place, or an alias when nothing changes) */
static int m_self(mctx *c, eir_mtensor *o, uint32_t max) {
    const char *first = c->s->nargs ? c->s->args[0].name : "self";
    return meta_in_tensor(c, first, o) == 1 ? 1 : 0;
}

static int m_clone(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor self;
    if (meta_in_tensor(c, "self", &self) != 1) return 0;
    *o = self;
    int mf = meta_in_memfmt(c, "memory_format");
    eir_dtype dt = meta_in_dtype(c, "dtype");
    if (dt != EIR_DTYPE_UNKNOWN) o->dtype = dt;
    if (mf == EIR_MF_CONTIGUOUS) meta_set_contiguous(c, o);
    else if (mf == EIR_MF_CHANNELS_LAST || mf == EIR_MF_CHANNELS_LAST_3D) meta_set_channels_last(c, o);
    else meta_like_preserve(c, &self, o);
    return 1;
}

/* aten.to.dtype and friends: self itself when nothing changes, else a copy */
static int m_to(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor self;
    if (meta_in_tensor(c, "self", &self) != 1) return 0;
    eir_dtype dt = meta_in_dtype(c, "dtype");
    int mf = meta_in_memfmt(c, "memory_format");
    bool copy = meta_in_bool(c, "copy", false);
    if (!copy && (dt == EIR_DTYPE_UNKNOWN || dt == self.dtype) && (mf == EIR_MF_UNKNOWN || mf == EIR_MF_PRESERVE)) {
        *o = self;
        return 1;
    }
    return m_clone(c, o, max);
}

static int m_contiguous(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor self;
    if (meta_in_tensor(c, "self", &self) != 1) return 0;
    int mf = meta_in_memfmt(c, "memory_format");
    bool cl = mf == EIR_MF_CHANNELS_LAST;
    if (cl ? is_channels_last(c, &self) : meta_is_contiguous(c, &self)) { *o = self; return 1; }
    *o = self;
    if (cl) meta_set_channels_last(c, o);
    else meta_set_contiguous(c, o);
    return 1;
}

/* ---- factories ---- */

int meta_sizes_arg(mctx *c, const char *name, eir_mtensor *o) {
    int n = meta_in_ints(c, name, o->sizes, MAXR, 0);
    if (n < 0) return 0;
    o->rank = (uint32_t)n;
    o->sizes_known = true;
    return 1;
}

static eir_dtype scalar_dtype(const eir_arg *a) {
    if (!a) return EIR_F32;
    switch (a->kind) {
    case EIR_ARG_INT: case EIR_ARG_SYM_INT: return EIR_I64;
    case EIR_ARG_BOOL: case EIR_ARG_SYM_BOOL: return EIR_BOOL;
    case EIR_ARG_COMPLEX: return EIR_C64;
    default: return EIR_F32;
    }
}

static int m_full(mctx *c, eir_mtensor *o, uint32_t max) {
    memset(o, 0, sizeof *o);
    if (!meta_sizes_arg(c, "size", o)) return 0;
    o->dtype = meta_in_dtype(c, "dtype");
    if (o->dtype == EIR_DTYPE_UNKNOWN) o->dtype = scalar_dtype(meta_arg(c, "fill_value"));
    meta_set_contiguous(c, o);
    return 1;
}

static int m_zeros(mctx *c, eir_mtensor *o, uint32_t max) {
    memset(o, 0, sizeof *o);
    if (!meta_sizes_arg(c, "size", o)) return 0;
    o->dtype = meta_in_dtype(c, "dtype");
    if (o->dtype == EIR_DTYPE_UNKNOWN) o->dtype = EIR_F32;
    int mf = meta_in_memfmt(c, "memory_format");
    if (mf == EIR_MF_CHANNELS_LAST || mf == EIR_MF_CHANNELS_LAST_3D) meta_set_channels_last(c, o);
    else meta_set_contiguous(c, o);
    return 1;
}

static int m_scalar_tensor(mctx *c, eir_mtensor *o, uint32_t max) {
    memset(o, 0, sizeof *o);
    o->sizes_known = true;
    o->dtype = meta_in_dtype(c, "dtype");
    if (o->dtype == EIR_DTYPE_UNKNOWN) o->dtype = EIR_F32;
    meta_set_contiguous(c, o);
    return 1;
}

/* new_zeros / new_ones / new_full / new_empty: self's dtype, a contiguous tensor */
static int m_new(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor self;
    if (meta_in_tensor(c, "self", &self) != 1) return 0;
    memset(o, 0, sizeof *o);
    if (!meta_sizes_arg(c, "size", o)) return 0;
    o->dtype = meta_in_dtype(c, "dtype");
    if (o->dtype == EIR_DTYPE_UNKNOWN) o->dtype = self.dtype;
    meta_set_contiguous(c, o);
    return 1;
}

/* zeros_like / ones_like / full_like / empty_like / rand_like */
static int m_like(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor self;
    if (meta_in_tensor(c, "self", &self) != 1) return 0;
    *o = self;
    eir_dtype dt = meta_in_dtype(c, "dtype");
    if (dt != EIR_DTYPE_UNKNOWN) o->dtype = dt;
    int mf = meta_in_memfmt(c, "memory_format");
    if (mf == EIR_MF_CONTIGUOUS) meta_set_contiguous(c, o);
    else if (mf == EIR_MF_CHANNELS_LAST || mf == EIR_MF_CHANNELS_LAST_3D) meta_set_channels_last(c, o);
    else meta_like_preserve(c, &self, o);
    return 1;
}

static bool num_arg(const eir_arg *a, double *v, bool *is_float) {
    if (!a) return false;
    if (a->kind == EIR_ARG_INT || (a->kind == EIR_ARG_SYM_INT && a->literal)) { *v = (double)a->u.i; *is_float = false; return true; }
    if (a->kind == EIR_ARG_FLOAT || (a->kind == EIR_ARG_SYM_FLOAT && a->literal)) { *v = a->u.f; *is_float = true; return true; }
    if (a->kind == EIR_ARG_BOOL) { *v = a->u.b; *is_float = false; return true; } /* arange(False, True, True) */
    return false;
}

static int m_arange(mctx *c, eir_mtensor *o, uint32_t max) {
    memset(o, 0, sizeof *o);
    const eir_arg *as = meta_arg(c, "start"), *ae = meta_arg(c, "end"), *ap = meta_arg(c, "step");
    double start = 0, end = 0, step = 1;
    bool fs = false, fe = false, fp = false;
    if (as && !num_arg(as, &start, &fs)) return 0;
    if (ap && !num_arg(ap, &step, &fp)) return 0;
    o->rank = 1;
    o->sizes_known = true;
    if (!num_arg(ae, &end, &fe)) {
        /* a symbolic end: arange(0, s, 1) has s elements */
        eir_mdim e;
        if (!ae || !meta_symint_arg(c, ae, &e) || start != 0 || step != 1) return 0;
        o->sizes[0] = e;
    } else {
        if (step == 0) return meta_fail(c, "argument 'step' is 0; expected a nonzero step");
        double n = (end - start) / step;
        if (!(n < 9.0e18)) return 0; /* nan, inf or beyond int64 */
        int64_t len = n > 0 ? (int64_t)n : 0;
        if ((double)len < n) len++;
        o->sizes[0] = D(len < 0 ? 0 : len);
    }
    o->dtype = meta_in_dtype(c, "dtype");
    if (o->dtype == EIR_DTYPE_UNKNOWN) o->dtype = (fs || fe || fp) ? EIR_F32 : EIR_I64;
    meta_set_contiguous(c, o);
    return 1;
}

/* ---- views ---- */

static int m_alias(mctx *c, eir_mtensor *o, uint32_t max) { return meta_in_tensor(c, "self", o) == 1 ? 1 : 0; }

static int m_permute(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor self;
    if (meta_in_tensor(c, "self", &self) != 1) return 0;
    eir_mdim d[MAXR];
    int n = meta_in_ints(c, "dims", d, MAXR, 0);
    if (n < 0) return 0;
    if ((uint32_t)n != self.rank)
        return meta_fail(c, "argument 'dims' has %d entries, expected %u (the rank of 'self')", n, self.rank);
    *o = self;
    bool seen[MAXR] = {0};
    for (uint32_t i = 0; i < self.rank; i++) {
        uint32_t k;
        if (d[i].kind != EIR_MDIM_INT) return 0;
        if (!meta_wrap_dim(c, d[i].c, self.rank, "argument 'dims': dim", &k)) return -1;
        if (seen[k]) return meta_fail(c, "argument 'dims' repeats dim %u", k);
        seen[k] = true;
        o->sizes[i] = self.sizes[k];
        o->strides[i] = self.strides[k];
    }
    return 1;
}

static int m_transpose(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor self;
    if (meta_in_tensor(c, "self", &self) != 1) return 0;
    int64_t d0, d1;
    uint32_t a, b;
    if (!meta_in_int(c, "dim0", &d0) || !meta_in_int(c, "dim1", &d1)) return 0;
    if (!meta_wrap_dim(c, d0, self.rank, "argument 'dim0'", &a) || !meta_wrap_dim(c, d1, self.rank, "argument 'dim1'", &b))
        return -1;
    *o = self;
    if (self.rank == 0) return 1;
    o->sizes[a] = self.sizes[b]; o->sizes[b] = self.sizes[a];
    o->strides[a] = self.strides[b]; o->strides[b] = self.strides[a];
    return 1;
}

static int m_t(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor self;
    if (meta_in_tensor(c, "self", &self) != 1) return 0;
    if (self.rank > 2) return meta_fail(c, "'self' has rank %u; t() expects a tensor of rank <= 2", self.rank);
    *o = self;
    if (self.rank == 2) {
        o->sizes[0] = self.sizes[1]; o->sizes[1] = self.sizes[0];
        o->strides[0] = self.strides[1]; o->strides[1] = self.strides[0];
    }
    return 1;
}

static int m_unsqueeze(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor self;
    int64_t d;
    uint32_t k;
    if (meta_in_tensor(c, "self", &self) != 1 || !meta_in_int(c, "dim", &d)) return 0;
    if (self.rank + 1 > MAXR) return 0;
    if (!meta_wrap_dim(c, d, self.rank + 1, "argument 'dim'", &k)) return -1;
    *o = self;
    o->rank = self.rank + 1;
    for (uint32_t i = self.rank; i > k; i--) { o->sizes[i] = self.sizes[i - 1]; o->strides[i] = self.strides[i - 1]; }
    o->sizes[k] = D(1);
    o->strides[k] = k >= self.rank ? D(1) : meta_dmul(c, self.sizes[k], self.strides[k]);
    return 1;
}

static int squeeze_dims(mctx *c, eir_mtensor *o, const bool *drop) {
    eir_mtensor self = *o;
    uint32_t r = 0;
    for (uint32_t i = 0; i < self.rank; i++) {
        if (drop[i] && is_int(self.sizes[i], 1)) continue;
        o->sizes[r] = self.sizes[i];
        o->strides[r] = self.strides[i];
        r++;
    }
    o->rank = r;
    return 1;
}

static int m_squeeze(mctx *c, eir_mtensor *o, uint32_t max) {
    if (meta_in_tensor(c, "self", o) != 1) return 0;
    bool drop[MAXR];
    const char *nm = meta_arg(c, "dim") ? "dim" : "dims";
    if (!meta_arg(c, nm)) {
        for (uint32_t i = 0; i < MAXR; i++) drop[i] = true;
        return squeeze_dims(c, o, drop);
    }
    memset(drop, 0, sizeof drop);
    eir_mdim d[MAXR];
    int n = meta_in_ints(c, nm, d, MAXR, 0);
    if (n < 0) return 0;
    for (int i = 0; i < n; i++) {
        uint32_t k;
        if (d[i].kind != EIR_MDIM_INT) return 0;
        if (!meta_wrap_dim(c, d[i].c, o->rank, "argument 'dim'", &k)) return -1;
        if (k < o->rank) drop[k] = true;
    }
    return squeeze_dims(c, o, drop);
}

static int m_expand(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor self;
    if (meta_in_tensor(c, "self", &self) != 1) return 0;
    eir_mdim sz[MAXR];
    int n = meta_in_ints(c, "size", sz, MAXR, 0);
    if (n < 0) return 0;
    if ((uint32_t)n < self.rank)
        return meta_fail(c, "argument 'size' has %d entries, fewer than the rank of 'self' (%u)", n, self.rank);
    memset(o, 0, sizeof *o);
    o->dtype = self.dtype;
    o->rank = (uint32_t)n;
    o->sizes_known = o->strides_known = true;
    o->offset = self.offset;
    uint32_t off = (uint32_t)n - self.rank;
    for (uint32_t i = 0; i < (uint32_t)n; i++) {
        if (i < off) {
            if (is_int(sz[i], -1)) return meta_fail(c, "argument 'size': -1 at dim %u, a new leading dim", i);
            o->sizes[i] = sz[i];
            o->strides[i] = D(0);
            continue;
        }
        eir_mdim have = self.sizes[i - off];
        if (is_int(sz[i], -1) || meta_deq(c, sz[i], have)) {
            o->sizes[i] = have;
            o->strides[i] = self.strides[i - off];
        } else if (is_int(have, 1)) {
            o->sizes[i] = sz[i];
            o->strides[i] = D(0);
        } else if (have.kind == EIR_MDIM_INT && sz[i].kind == EIR_MDIM_INT) {
            return meta_fail(c, "argument 'size': %lld at dim %u, but 'self' has size %lld there (expected it or -1; only "
                        "size-1 dims expand)", (long long)sz[i].c, i, (long long)have.c);
        } else {
            o->sizes[i] = sz[i];
            o->strides[i] = self.strides[i - off];
        }
    }
    return 1;
}

/* at::detail::computeStride: the strides of a view of (sizes, strides) as
 * shape; 0 when no view can express it, -1 when the numbers overflow */
static int view_strides(const int64_t *os, const int64_t *ost, uint32_t on, const int64_t *ns, uint32_t nn,
                         int64_t *nst) {
    if (on == 0) {
        for (uint32_t i = 0; i < nn; i++) nst[i] = 1;
        return 1;
    }
    int64_t numel = 1;
    for (uint32_t i = 0; i < on; i++)
        if (__builtin_mul_overflow(numel, os[i], &numel)) return -1;
    if (numel == 0) {
        bool same = on == nn;
        for (uint32_t i = 0; same && i < on; i++) same = os[i] == ns[i];
        if (same) { memcpy(nst, ost, on * sizeof *nst); return 1; }
        int64_t s = 1;
        for (uint32_t i = nn; i-- > 0;) {
            nst[i] = s;
            if (__builtin_mul_overflow(s, ns[i] < 1 ? 1 : ns[i], &s)) return -1;
        }
        return 1;
    }
    int64_t view_d = (int64_t)nn - 1;
    int64_t chunk = ost[on - 1], tnumel = 1, vnumel = 1;
    for (int64_t td = (int64_t)on - 1; td >= 0; td--) {
        if (__builtin_mul_overflow(tnumel, os[td], &tnumel)) return -1;
        int64_t want;
        bool ovf = __builtin_mul_overflow(tnumel, chunk, &want);
        if (td == 0 || (os[td - 1] != 1 && (ovf || ost[td - 1] != want))) {
            while (view_d >= 0 && (vnumel < tnumel || ns[view_d] == 1)) {
                if (__builtin_mul_overflow(vnumel, chunk, &nst[view_d]) ||
                    __builtin_mul_overflow(vnumel, ns[view_d], &vnumel))
                    return -1;
                view_d--;
            }
            if (vnumel != tnumel) return 0;
            if (td > 0) { chunk = ost[td - 1]; tnumel = 1; vnumel = 1; }
        }
    }
    return view_d == -1;
}

/* self viewed (or, `copy_ok`, reshaped: copied, contiguous at offset 0,
 * when no view fits) as sizes sz */
int meta_reshape_to(mctx *c, eir_mtensor *o, const eir_mtensor *self_in, const eir_mdim *sz, uint32_t n, bool copy_ok,
                      const char *what) {
    eir_mtensor self = *self_in;
    memset(o, 0, sizeof *o);
    o->dtype = self.dtype;
    o->rank = n;
    o->sizes_known = true;
    for (uint32_t i = 0; i < n; i++) o->sizes[i] = sz[i];
    /* a contiguous input gives a contiguous view at its offset */
    if (meta_is_contiguous(c, &self)) {
        meta_set_contiguous(c, o);
        o->offset = self.offset;
        return 1;
    }
    int64_t os[MAXR], ost[MAXR], ns[MAXR], nst[MAXR];
    bool all_int = self.strides_known && self.offset.kind == EIR_MDIM_INT;
    for (uint32_t i = 0; i < self.rank && all_int; i++) {
        all_int = self.sizes[i].kind == EIR_MDIM_INT && self.strides[i].kind == EIR_MDIM_INT;
        if (all_int) { os[i] = self.sizes[i].c; ost[i] = self.strides[i].c; }
    }
    for (uint32_t i = 0; i < n && all_int; i++) {
        all_int = sz[i].kind == EIR_MDIM_INT;
        if (all_int) ns[i] = sz[i].c;
    }
    for (uint32_t i = 0; i < n && all_int; i++) all_int = ns[i] >= 0;
    int vs = all_int ? view_strides(os, ost, self.rank, ns, n, nst) : -1;
    if (vs < 0) return 1; /* sizes only */
    if (vs) {
        for (uint32_t i = 0; i < n; i++) o->strides[i] = D(nst[i]);
        o->offset = self.offset;
        o->strides_known = true;
        return 1;
    }
    if (!copy_ok)
        return meta_fail(c, "%s: 'self' has strides no view of the new shape can express; expected reshape() or a "
                    "contiguous input", what);
    meta_set_contiguous(c, o);
    return 1;
}

/* view / reshape: the new shape with -1 inferred */
static int view_like(mctx *c, eir_mtensor *o, const char *size_name, bool copy_ok) {
    eir_mtensor self;
    if (meta_in_tensor(c, "self", &self) != 1) return 0;
    eir_mdim sz[MAXR];
    int n = meta_in_ints(c, size_name, sz, MAXR, 0);
    if (n < 0) return 0;
    eir_mdim numel = D(1), known_prod = D(1);
    for (uint32_t i = 0; i < self.rank; i++) numel = meta_dmul(c, numel, self.sizes[i]);
    int infer = -1;
    for (int i = 0; i < n; i++) {
        if (is_int(sz[i], -1)) {
            if (infer >= 0) return meta_fail(c, "argument '%s' has more than one -1", size_name);
            infer = i;
        } else {
            known_prod = meta_dmul(c, known_prod, sz[i]);
        }
    }
    if (infer >= 0) {
        sz[infer] = meta_dfloordiv(c, numel, known_prod);
    } else if (numel.kind == EIR_MDIM_INT && known_prod.kind == EIR_MDIM_INT && numel.c != known_prod.c) {
        return meta_fail(c, "argument '%s' has %lld elements, but 'self' has %lld (expected the same number)", size_name,
                    (long long)known_prod.c, (long long)numel.c);
    }
    char what[64];
    snprintf(what, sizeof what, "argument '%s'", size_name);
    return meta_reshape_to(c, o, &self, sz, (uint32_t)n, copy_ok, what);
}

static int m_view(mctx *c, eir_mtensor *o, uint32_t max) { return view_like(c, o, "size", false); }
static int m_reshape(mctx *c, eir_mtensor *o, uint32_t max) { return view_like(c, o, "shape", true); }

static int m_slice(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor self;
    int64_t dim, step = 1;
    uint32_t d;
    if (meta_in_tensor(c, "self", &self) != 1 || !meta_in_int(c, "dim", &dim)) return 0;
    if (!meta_wrap_dim(c, dim, self.rank, "argument 'dim'", &d)) return -1;
    if (self.rank == 0) return 0;
    if (meta_arg(c, "step") && !meta_in_int(c, "step", &step)) return 0;
    if (step <= 0) return meta_fail(c, "argument 'step' is %lld; expected a positive step", (long long)step);
    *o = self;
    const eir_arg *as = meta_arg(c, "start"), *ae = meta_arg(c, "end");
    eir_mdim start = D(0), end = D(INT64_MAX);
    if (as && !meta_symint_arg(c, as, &start)) return 0;
    if (ae && !meta_symint_arg(c, ae, &end)) return 0;
    eir_mdim size = self.sizes[d];
    if (size.kind == EIR_MDIM_INT && start.kind == EIR_MDIM_INT && end.kind == EIR_MDIM_INT) {
        int64_t s = start.c, e = end.c, n = size.c;
        if (s < 0) s += n;
        if (e < 0) e += n;
        if (s < 0) s = 0; else if (s > n) s = n;
        if (e < s) e = s; else if (e > n) e = n;
        o->sizes[d] = D((e - s) / step + ((e - s) % step != 0));
        start = D(s);
    } else if ((start.kind != EIR_MDIM_INT || start.c >= 0) && (end.kind != EIR_MDIM_INT || end.c >= 0)) {
        /* symbolic bounds inside the dim, as torch guarded them: (end - start + step - 1) // step */
        eir_mdim e = is_int(end, INT64_MAX) ? size : end;
        o->sizes[d] = meta_dfloordiv(c, meta_dadd(c, meta_dsub(c, e, start), D(step - 1)), D(step));
    } else {
        o->sizes[d] = UNK;
        o->strides[d] = meta_dmul(c, self.strides[d], D(step));
        o->offset = UNK;
        return 1;
    }
    o->strides[d] = meta_dmul(c, self.strides[d], D(step));
    o->offset = meta_dadd(c, self.offset, meta_dmul(c, start, self.strides[d]));
    return 1;
}

static int m_select(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor self;
    int64_t dim;
    uint32_t d;
    if (meta_in_tensor(c, "self", &self) != 1 || !meta_in_int(c, "dim", &dim)) return 0;
    if (self.rank == 0) return meta_fail(c, "'self' is 0-dim; select() needs a dim to index");
    if (!meta_wrap_dim(c, dim, self.rank, "argument 'dim'", &d)) return -1;
    const eir_arg *ai = meta_arg(c, "index");
    eir_mdim idx;
    if (!ai || !meta_symint_arg(c, ai, &idx)) return 0;
    if (idx.kind == EIR_MDIM_INT && self.sizes[d].kind == EIR_MDIM_INT) {
        int64_t n = self.sizes[d].c;
        if (idx.c < -n || idx.c >= n)
            return meta_fail(c, "argument 'index' is %lld, out of range for dim %u of size %lld", (long long)idx.c, d,
                        (long long)n);
        if (idx.c < 0) idx = D(idx.c + n);
    } else if (idx.kind == EIR_MDIM_INT && idx.c < 0) {
        idx = meta_dadd(c, self.sizes[d], idx);
    }
    *o = self;
    o->offset = meta_dadd(c, self.offset, meta_dmul(c, idx, self.strides[d]));
    for (uint32_t i = d; i + 1 < self.rank; i++) { o->sizes[i] = self.sizes[i + 1]; o->strides[i] = self.strides[i + 1]; }
    o->rank = self.rank - 1;
    return 1;
}

static int m_as_strided(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor self;
    if (meta_in_tensor(c, "self", &self) != 1) return 0;
    memset(o, 0, sizeof *o);
    o->dtype = self.dtype;
    int n = meta_in_ints(c, "size", o->sizes, MAXR, 0), m = meta_in_ints(c, "stride", o->strides, MAXR, 0);
    if (n < 0 || m < 0) return 0;
    if (n != m) return meta_fail(c, "arguments 'size' (%d entries) and 'stride' (%d) differ in length", n, m);
    o->rank = (uint32_t)n;
    o->sizes_known = o->strides_known = true;
    const eir_arg *a = meta_arg(c, "storage_offset");
    o->offset = self.offset;
    if (a && !meta_symint_arg(c, a, &o->offset)) o->offset = UNK;
    return 1;
}

/* split / split_with_sizes: slices along dim */
static int split_common(mctx *c, eir_mtensor *o, uint32_t max, const eir_mdim *lens, uint32_t n, uint32_t d,
                        const eir_mtensor *self) {
    if (n > max) return 0;
    eir_mdim start = D(0);
    for (uint32_t k = 0; k < n; k++) {
        o[k] = *self;
        o[k].sizes[d] = lens[k];
        o[k].offset = meta_dadd(c, self->offset, meta_dmul(c, start, self->strides[d]));
        start = meta_dadd(c, start, lens[k]);
    }
    return (int)n;
}

static int m_split_with_sizes(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor self;
    int64_t dim = 0;
    uint32_t d;
    if (meta_in_tensor(c, "self", &self) != 1 || !meta_in_int(c, "dim", &dim)) return 0;
    if (!meta_wrap_dim(c, dim, self.rank, "argument 'dim'", &d) || self.rank == 0) return self.rank ? -1 : 0;
    eir_mdim lens[64];
    int n = meta_in_ints(c, "split_sizes", lens, 64, 0);
    if (n < 0) return 0;
    eir_mdim total = D(0);
    for (int k = 0; k < n; k++) total = meta_dadd(c, total, lens[k]);
    if (dcmp(c->p, total, self.sizes[d]) == EIR_MCMP_DIFFER && total.kind == EIR_MDIM_INT)
        return meta_fail(c, "argument 'split_sizes' sums to %lld, expected the size of dim %u of 'self'", (long long)total.c,
                    d);
    return split_common(c, o, max, lens, (uint32_t)n, d, &self);
}

static int m_split(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor self;
    int64_t dim = 0, ss;
    uint32_t d;
    if (meta_in_tensor(c, "self", &self) != 1 || !meta_in_int(c, "dim", &dim) || !meta_in_int(c, "split_size", &ss)) return 0;
    if (!meta_wrap_dim(c, dim, self.rank, "argument 'dim'", &d) || self.rank == 0) return self.rank ? -1 : 0;
    if (self.sizes[d].kind != EIR_MDIM_INT) return 0;
    int64_t size = self.sizes[d].c;
    if (ss <= 0) return ss == 0 && size == 0 ? 0 : meta_fail(c, "argument 'split_size' is %lld; expected > 0", (long long)ss);
    eir_mdim lens[64];
    uint32_t n = 0;
    if (size / ss + (size % ss != 0) > 64) return 0;
    for (int64_t s = 0; s < size || (size == 0 && n == 0); s = size - s <= ss ? size : s + ss) {
        if (n >= 64) return 0;
        lens[n++] = D(size - s < ss ? size - s : ss);
        if (size == 0) break;
    }
    return split_common(c, o, max, lens, n, d, &self);
}

static int m_unbind(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor self;
    int64_t dim = 0;
    uint32_t d;
    if (meta_in_tensor(c, "self", &self) != 1 || !meta_in_int(c, "dim", &dim)) return 0;
    if (!meta_wrap_dim(c, dim, self.rank, "argument 'dim'", &d) || self.rank == 0) return self.rank ? -1 : 0;
    if (self.sizes[d].kind != EIR_MDIM_INT || self.sizes[d].c > (int64_t)max || self.sizes[d].c < 1) return 0;
    for (int64_t k = 0; k < self.sizes[d].c; k++) {
        o[k] = self;
        o[k].offset = meta_dadd(c, self.offset, meta_dmul(c, D(k), self.strides[d]));
        for (uint32_t i = d; i + 1 < self.rank; i++) {
            o[k].sizes[i] = self.sizes[i + 1];
            o[k].strides[i] = self.strides[i + 1];
        }
        o[k].rank = self.rank - 1;
    }
    return (int)self.sizes[d].c;
}

/* ---- joining ---- */

static int m_cat(mctx *c, eir_mtensor *o, uint32_t max) {
    const eir_arg *ta = meta_arg(c, "tensors");
    int64_t dim = 0;
    if (!ta || ta->kind != EIR_ARG_TENSORS || ta->u.list.n == 0 || ta->u.list.n > 256 || !meta_in_int(c, "dim", &dim))
        return 0;
    uint32_t n = ta->u.list.n;
    operand *ops = eir_arena_array(c->a, n, sizeof *ops);
    if (!ops) return 0;
    int ref = -1;
    for (uint32_t k = 0; k < n; k++) {
        ops[k].wrapped = false;
        if (!tensor_of_value(c, ta->u.list.items[k].value, &ops[k].t)) return 0;
        /* legacy: 1-dim empty tensors are skipped */
        if (!(ops[k].t.rank == 1 && is_int(ops[k].t.sizes[0], 0)) && ref < 0) ref = (int)k;
    }
    memset(o, 0, sizeof *o);
    o->dtype = EIR_DTYPE_UNKNOWN;
    for (uint32_t k = 0; k < n; k++) o->dtype = meta_promote(o->dtype, ops[k].t.dtype);
    if (o->dtype == EIR_DTYPE_UNKNOWN) return 0;
    if (ref < 0) {
        o->rank = 1; o->sizes[0] = D(0); o->sizes_known = true;
        meta_set_contiguous(c, o);
        return 1;
    }
    const eir_mtensor *r = &ops[ref].t;
    uint32_t d;
    if (!meta_wrap_dim(c, dim, r->rank, "argument 'dim'", &d)) return -1;
    *o = *r;
    o->dtype = EIR_DTYPE_UNKNOWN;
    for (uint32_t k = 0; k < n; k++) o->dtype = meta_promote(o->dtype, ops[k].t.dtype);
    eir_mdim total = D(0);
    bool all_cl = r->rank == 4;
    for (uint32_t k = 0; k < n; k++) {
        const eir_mtensor *t = &ops[k].t;
        if (t->rank == 1 && is_int(t->sizes[0], 0)) continue;
        if (t->rank != r->rank)
            return meta_fail(c, "tensor %u of 'tensors' has rank %u, tensor %d has rank %u (expected the same rank)", k,
                        t->rank, ref, r->rank);
        for (uint32_t i = 0; i < r->rank; i++) {
            if (i == d) continue;
            if (t->sizes[i].kind == EIR_MDIM_INT && r->sizes[i].kind == EIR_MDIM_INT && t->sizes[i].c != r->sizes[i].c)
                return meta_fail(c, "tensor %u of 'tensors' has size %lld at dim %u, tensor %d has %lld (expected the same "
                            "sizes except in dim %u)", k, (long long)t->sizes[i].c, i, ref,
                            (long long)r->sizes[i].c, d);
        }
        total = meta_dadd(c, total, t->sizes[d]);
        if (!meta_strides_like_cl(c, t)) all_cl = false;
    }
    o->sizes[d] = total;
    if (all_cl) meta_set_channels_last(c, o);
    else meta_set_contiguous(c, o);
    return 1;
}

static int m_stack(mctx *c, eir_mtensor *o, uint32_t max) {
    const eir_arg *ta = meta_arg(c, "tensors");
    int64_t dim = 0;
    if (!ta || ta->kind != EIR_ARG_TENSORS || ta->u.list.n == 0 || !meta_in_int(c, "dim", &dim)) return 0;
    eir_mtensor first;
    if (!tensor_of_value(c, ta->u.list.items[0].value, &first) || first.rank + 1 > MAXR) return 0;
    uint32_t d;
    if (!meta_wrap_dim(c, dim, first.rank + 1, "argument 'dim'", &d)) return -1;
    *o = first;
    for (uint32_t k = 1; k < ta->u.list.n; k++) {
        eir_mtensor t;
        if (!tensor_of_value(c, ta->u.list.items[k].value, &t)) return 0;
        o->dtype = meta_promote(o->dtype, t.dtype);
    }
    o->rank = first.rank + 1;
    for (uint32_t i = first.rank; i > d; i--) o->sizes[i] = first.sizes[i - 1];
    o->sizes[d] = D(ta->u.list.n);
    meta_set_contiguous(c, o);
    return 1;
}

/* ---- linear algebra ---- */

int meta_check_same(mctx *c, eir_mdim x, eir_mdim y, const char *what) {
    if (x.kind == EIR_MDIM_INT && y.kind == EIR_MDIM_INT && x.c != y.c)
        return meta_fail(c, "%s: %lld vs %lld (expected equal)", what, (long long)x.c, (long long)y.c);
    return 1;
}

static int m_mm(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor a, b;
    if (meta_in_tensor(c, "self", &a) != 1 || meta_in_tensor(c, "mat2", &b) != 1) return 0;
    if (a.rank != 2 || b.rank != 2) return meta_fail(c, "'self' has rank %u and 'mat2' rank %u; mm expects two matrices",
                                                a.rank, b.rank);
    if (meta_check_same(c, a.sizes[1], b.sizes[0], "the inner sizes of 'self' and 'mat2'") < 0) return -1;
    memset(o, 0, sizeof *o);
    o->dtype = a.dtype;
    o->rank = 2;
    o->sizes_known = true;
    o->sizes[0] = a.sizes[0];
    o->sizes[1] = b.sizes[1];
    meta_set_contiguous(c, o);
    return 1;
}

static int m_addmm(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor a, b;
    if (meta_in_tensor(c, "mat1", &a) != 1 || meta_in_tensor(c, "mat2", &b) != 1) return 0;
    if (a.rank != 2 || b.rank != 2)
        return meta_fail(c, "'mat1' has rank %u and 'mat2' rank %u; addmm expects two matrices", a.rank, b.rank);
    if (meta_check_same(c, a.sizes[1], b.sizes[0], "the inner sizes of 'mat1' and 'mat2'") < 0) return -1;
    memset(o, 0, sizeof *o);
    o->dtype = a.dtype;
    o->rank = 2;
    o->sizes_known = true;
    o->sizes[0] = a.sizes[0];
    o->sizes[1] = b.sizes[1];
    meta_set_contiguous(c, o);
    return 1;
}

static int bmm_like(mctx *c, eir_mtensor *o, const char *an, const char *bn) {
    eir_mtensor a, b;
    if (meta_in_tensor(c, an, &a) != 1 || meta_in_tensor(c, bn, &b) != 1) return 0;
    if (a.rank != 3 || b.rank != 3)
        return meta_fail(c, "'%s' has rank %u and '%s' rank %u; expected two batches of matrices (rank 3)", an, a.rank, bn,
                    b.rank);
    if (meta_check_same(c, a.sizes[0], b.sizes[0], "the batch sizes") < 0) return -1;
    if (meta_check_same(c, a.sizes[2], b.sizes[1], "the inner sizes") < 0) return -1;
    memset(o, 0, sizeof *o);
    o->dtype = a.dtype;
    o->rank = 3;
    o->sizes_known = true;
    o->sizes[0] = a.sizes[0];
    o->sizes[1] = a.sizes[1];
    o->sizes[2] = b.sizes[2];
    meta_set_contiguous(c, o);
    return 1;
}

static int m_bmm(mctx *c, eir_mtensor *o, uint32_t max) { return bmm_like(c, o, "self", "mat2"); }
static int m_baddbmm(mctx *c, eir_mtensor *o, uint32_t max) { return bmm_like(c, o, "batch1", "batch2"); }

static int m_matmul(mctx *c, eir_mtensor *o, uint32_t max) {
    operand a, b;
    if (in_operand(c, meta_arg(c, "self"), &a) != 1 || in_operand(c, meta_arg(c, "other"), &b) != 1) return 0;
    if (a.wrapped || b.wrapped || a.t.rank == 0 || b.t.rank == 0)
        return meta_fail(c, "both arguments of matmul must be at least 1-dimensional");
    uint32_t ra = a.t.rank, rb = b.t.rank;
    eir_mdim ka = a.t.sizes[ra - 1], kb = b.t.sizes[rb == 1 ? 0 : rb - 2];
    if (meta_check_same(c, ka, kb, "the inner sizes of 'self' and 'other'") < 0) return -1;
    /* batch dims broadcast */
    operand ba = a, bb = b;
    ba.t.rank = ra >= 2 ? ra - 2 : 0;
    bb.t.rank = rb >= 2 ? rb - 2 : 0;
    static const char *const names[] = {"self", "other"};
    operand both[2] = {ba, bb};
    memset(o, 0, sizeof *o);
    int r = meta_broadcast(c, both, 2, o, names);
    if (r <= 0) return r;
    if (ra >= 2) o->sizes[o->rank++] = a.t.sizes[ra - 2];
    if (rb >= 2) o->sizes[o->rank++] = b.t.sizes[rb - 1];
    o->dtype = a.t.dtype;
    meta_set_contiguous(c, o);
    return 1;
}

static int m_linear(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor x, w;
    if (meta_in_tensor(c, "input", &x) != 1 || meta_in_tensor(c, "weight", &w) != 1) return 0;
    if (x.rank == 0 || w.rank == 0 || w.rank > 2) return 0;
    eir_mdim in_w = w.sizes[w.rank - 1];
    if (meta_check_same(c, x.sizes[x.rank - 1], in_w, "the last size of 'input' and of 'weight'") < 0) return -1;
    *o = x;
    if (w.rank == 2) o->sizes[x.rank - 1] = w.sizes[0];
    else o->rank = x.rank - 1;
    meta_set_contiguous(c, o);
    return 1;
}

/* ---- convolution and pooling ---- */

static int m_convolution(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor x, w;
    if (meta_in_tensor(c, "input", &x) != 1 || meta_in_tensor(c, "weight", &w) != 1) return 0;
    bool conv_nd = !strncmp(c->s->name, "aten.conv", 9) && strcmp(c->s->name, "aten.convolution.default");
    /* conv1d/2d/3d take an unbatched input: as a batch of one, the batch dim dropped after */
    bool unbatched = conv_nd && w.rank >= 3 && x.rank + 1 == w.rank;
    if (unbatched) {
        for (uint32_t i = x.rank; i > 0; i--) { x.sizes[i] = x.sizes[i - 1]; x.strides[i] = x.strides[i - 1]; }
        x.sizes[0] = D(1);
        x.strides[0] = D(1);
        x.rank++;
    }
    if (x.rank < 3 || w.rank != x.rank) return 0;
    uint32_t k = x.rank - 2;
    eir_mdim st[MAXR], pd[MAXR], dl[MAXR], op[MAXR];
    if (meta_in_ints(c, "stride", st, MAXR, k) != (int)k || meta_in_ints(c, "dilation", dl, MAXR, k) != (int)k) return 0;
    const eir_arg *pa = meta_arg(c, "padding");
    const char *pmode = pa && pa->kind == EIR_ARG_STRING ? pa->u.s : !pa && conv_nd && strstr(c->s->name, ".padding")
                        ? "valid" : NULL;
    if (pmode && !strcmp(pmode, "valid")) {
        for (uint32_t i = 0; i < k; i++) pd[i] = D(0);
    } else if (pmode && !strcmp(pmode, "same")) {
        /* the input's spatial sizes (torch allows 'same' with stride 1 only) */
        *o = x;
        o->sizes[1] = w.sizes[0];
        if (meta_strides_like_cl(c, &x) && !unbatched) meta_set_channels_last(c, o);
        else meta_set_contiguous(c, o);
        goto unbatch;
    } else if (pmode || meta_in_ints(c, "padding", pd, MAXR, k) != (int)k) {
        return 0;
    }
    bool transposed = conv_nd ? strstr(c->s->name, "conv_transpose") != NULL : meta_in_bool(c, "transposed", false);
    int64_t groups = 1;
    if (!meta_in_int(c, "groups", &groups)) return 0;
    if (transposed && meta_in_ints(c, "output_padding", op, MAXR, k) != (int)k) return 0;
    *o = x;
    o->dtype = x.dtype;
    o->sizes[1] = transposed ? meta_dmul(c, w.sizes[1], D(groups)) : w.sizes[0];
    for (uint32_t i = 0; i < k; i++) {
        eir_mdim in = x.sizes[2 + i], ks = w.sizes[2 + i];
        eir_mdim span = meta_dmul(c, dl[i], meta_dsub(c, ks, D(1)));
        if (transposed) {
            /* (in - 1) * s - 2p + d (k - 1) + op + 1 */
            eir_mdim v = meta_dmul(c, meta_dsub(c, in, D(1)), st[i]);
            v = meta_dsub(c, v, meta_dmul(c, D(2), pd[i]));
            o->sizes[2 + i] = meta_dadd(c, meta_dadd(c, v, span), meta_dadd(c, op[i], D(1)));
        } else {
            /* (in + 2p - d (k - 1) - 1) // s + 1 */
            eir_mdim v = meta_dsub(c, meta_dsub(c, meta_dadd(c, in, meta_dmul(c, D(2), pd[i])), span), D(1));
            o->sizes[2 + i] = meta_dadd(c, meta_dfloordiv(c, v, st[i]), D(1));
            int64_t vv;
            if (meta_dval(c, o->sizes[2 + i], &vv) && vv <= 0 && o->sizes[2 + i].kind == EIR_MDIM_INT)
                return meta_fail(c, "the output would have size %lld in spatial dim %u (input %lld after padding is smaller "
                            "than the kernel); expected a positive size", (long long)vv, i,
                            (long long)(in.kind == EIR_MDIM_INT ? in.c : -1));
        }
    }
    bool cl = meta_strides_like_cl(c, &x) && !unbatched;
    if (cl) meta_set_channels_last(c, o);
    else meta_set_contiguous(c, o);
unbatch:
    if (unbatched) {
        for (uint32_t i = 0; i + 1 < o->rank; i++) { o->sizes[i] = o->sizes[i + 1]; o->strides[i] = o->strides[i + 1]; }
        o->rank--;
    }
    return 1;
}

/* pooling_output_shape: (in + 2p - d (k - 1) - 1 + (ceil ? s - 1 : 0)) // s + 1,
 * one less when ceil mode would start the last window in the padding */
eir_mdim meta_pool_size(mctx *c, eir_mdim in, eir_mdim k, eir_mdim s, eir_mdim p, eir_mdim d, bool ceil) {
    eir_mdim v = meta_dsub(c, meta_dsub(c, meta_dadd(c, in, meta_dmul(c, D(2), p)), meta_dmul(c, d, meta_dsub(c, k, D(1)))), D(1));
    if (ceil) v = meta_dadd(c, v, meta_dsub(c, s, D(1)));
    eir_mdim out = meta_dadd(c, meta_dfloordiv(c, v, s), D(1));
    if (ceil) {
        if (out.kind != EIR_MDIM_INT || in.kind != EIR_MDIM_INT || p.kind != EIR_MDIM_INT || s.kind != EIR_MDIM_INT)
            return UNK;
        int64_t start, lim;
        if (__builtin_mul_overflow(out.c - 1, s.c, &start) || __builtin_add_overflow(in.c, p.c, &lim)) return UNK;
        if (start >= lim) out.c--;
    }
    return out;
}

static int pool2d(mctx *c, eir_mtensor *o, uint32_t max, bool with_indices, bool avg) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    if (x.rank != 3 && x.rank != 4) return meta_fail(c, "'self' has rank %u; 2-d pooling expects rank 3 or 4", x.rank);
    eir_mdim k[2], s[2], p[2], d[2] = {D(1), D(1)};
    if (meta_in_ints(c, "kernel_size", k, 2, 2) != 2 || meta_in_ints(c, "padding", p, 2, 2) != 2) return 0;
    int ns = meta_in_ints(c, "stride", s, 2, 2);
    if (ns == 0) { s[0] = k[0]; s[1] = k[1]; }
    else if (ns != 2) return 0;
    if (!avg && meta_in_ints(c, "dilation", d, 2, 2) != 2) return 0;
    bool ceil = meta_in_bool(c, "ceil_mode", false);
    *o = x;
    for (uint32_t i = 0; i < 2; i++) o->sizes[x.rank - 2 + i] = meta_pool_size(c, x.sizes[x.rank - 2 + i], k[i], s[i], p[i], d[i], ceil);
    if (x.rank == 4 && meta_strides_like_cl(c, &x)) meta_set_channels_last(c, o);
    else meta_set_contiguous(c, o);
    if (!with_indices) return 1;
    if (max < 2) return 0;
    o[1] = o[0];
    o[1].dtype = EIR_I64;
    return 2;
}

static int m_max_pool2d_with_indices(mctx *c, eir_mtensor *o, uint32_t max) { return pool2d(c, o, max, true, false); }
static int m_max_pool2d(mctx *c, eir_mtensor *o, uint32_t max) { return pool2d(c, o, max, false, false); }
static int m_avg_pool2d(mctx *c, eir_mtensor *o, uint32_t max) { return pool2d(c, o, max, false, true); }

static int m_adaptive_avg_pool2d(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1 || (x.rank != 3 && x.rank != 4)) return 0;
    eir_mdim os[2];
    if (meta_in_ints(c, "output_size", os, 2, 2) != 2) return 0;
    *o = x;
    o->sizes[x.rank - 2] = os[0];
    o->sizes[x.rank - 1] = os[1];
    if (x.rank == 4 && meta_strides_like_cl(c, &x)) meta_set_channels_last(c, o);
    else meta_set_contiguous(c, o);
    return 1;
}

/* ---- normalization ---- */

static int m_batch_norm_no_training(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor x;
    if (meta_in_tensor(c, "input", &x) != 1 || max < 3) return 0;
    o[0] = x;
    meta_like_preserve(c, &x, &o[0]);
    for (int k = 1; k < 3; k++) {
        memset(&o[k], 0, sizeof o[k]);
        o[k].dtype = x.dtype;
        o[k].rank = 1;
        o[k].sizes_known = true;
        o[k].sizes[0] = D(0);
        meta_set_contiguous(c, &o[k]);
    }
    return 3;
}

static int m_batch_norm(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor x;
    if (meta_in_tensor(c, "input", &x) != 1) return 0;
    o[0] = x;
    meta_like_preserve(c, &x, &o[0]);
    return 1;
}

static int layer_norm(mctx *c, eir_mtensor *o, uint32_t max, bool native) {
    eir_mtensor x;
    if (meta_in_tensor(c, "input", &x) != 1) return 0;
    eir_mdim ns[MAXR];
    int n = meta_in_ints(c, "normalized_shape", ns, MAXR, 0);
    if (n < 0) return 0;
    if ((uint32_t)n > x.rank)
        return meta_fail(c, "argument 'normalized_shape' has %d dims, more than 'input' (rank %u)", n, x.rank);
    uint32_t axis = x.rank - (uint32_t)n;
    for (int i = 0; i < n; i++)
        if (meta_check_same(c, x.sizes[axis + i], ns[i], "argument 'normalized_shape' and the trailing sizes of 'input'") < 0)
            return -1;
    o[0] = x;
    meta_set_contiguous(c, &o[0]);
    if (!native) return 1;
    if (max < 3) return 0;
    for (int k = 1; k < 3; k++) {
        o[k] = x;
        for (uint32_t i = axis; i < x.rank; i++) o[k].sizes[i] = D(1);
        meta_set_contiguous(c, &o[k]); /* on the CPU, mean and rstd keep the input's dtype */
    }
    return 3;
}

static int m_native_layer_norm(mctx *c, eir_mtensor *o, uint32_t max) { return layer_norm(c, o, max, true); }
static int m_layer_norm(mctx *c, eir_mtensor *o, uint32_t max) { return layer_norm(c, o, max, false); }

static int m_native_group_norm(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor x;
    int64_t groups;
    if (meta_in_tensor(c, "input", &x) != 1 || !meta_in_int(c, "group", &groups) || max < 3 || x.rank < 2) return 0;
    o[0] = x;
    meta_like_preserve(c, &x, &o[0]);
    for (int k = 1; k < 3; k++) {
        memset(&o[k], 0, sizeof o[k]);
        o[k].dtype = x.dtype;
        o[k].rank = 2;
        o[k].sizes_known = true;
        o[k].sizes[0] = x.sizes[0];
        o[k].sizes[1] = D(groups);
        meta_set_contiguous(c, &o[k]);
    }
    return 3;
}

static int m_softmax(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor x;
    int64_t dim;
    uint32_t d;
    if (meta_in_tensor(c, "self", &x) != 1 || !meta_in_int(c, "dim", &dim)) return 0;
    if (!meta_wrap_dim(c, dim, x.rank, "argument 'dim'", &d)) return -1;
    *o = x;
    if (meta_in_bool(c, "half_to_float", false)) o->dtype = EIR_F32;
    eir_dtype dt = meta_in_dtype(c, "dtype");
    if (dt != EIR_DTYPE_UNKNOWN) o->dtype = dt;
    meta_set_contiguous(c, o);
    return 1;
}

/* ---- indexing ---- */

static int m_embedding(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor w, idx;
    if (meta_in_tensor(c, "weight", &w) != 1 || meta_in_tensor(c, "indices", &idx) != 1) return 0;
    if (w.rank != 2) return meta_fail(c, "'weight' has rank %u; expected a 2-d embedding table", w.rank);
    if (meta_dt_cat(idx.dtype) != 1) return meta_fail(c, "'indices' has dtype %s; expected an integer dtype",
                                            eir_dtype_name(idx.dtype) ? eir_dtype_name(idx.dtype) : "?");
    if (idx.rank + 1 > MAXR) return 0;
    *o = idx;
    o->dtype = w.dtype;
    o->sizes[o->rank++] = w.sizes[1];
    meta_set_contiguous(c, o);
    return 1;
}

static int m_index_select(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor x, idx;
    int64_t dim;
    uint32_t d;
    if (meta_in_tensor(c, "self", &x) != 1 || meta_in_tensor(c, "index", &idx) != 1 || !meta_in_int(c, "dim", &dim)) return 0;
    if (!meta_wrap_dim(c, dim, x.rank, "argument 'dim'", &d)) return -1;
    if (idx.rank > 1) return meta_fail(c, "'index' has rank %u; expected a 0-d or 1-d index", idx.rank);
    *o = x;
    if (x.rank) o->sizes[d] = idx.rank ? idx.sizes[0] : D(1);
    meta_set_contiguous(c, o);
    return 1;
}

static int m_gather(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor x, idx;
    if (meta_in_tensor(c, "self", &x) != 1 || meta_in_tensor(c, "index", &idx) != 1) return 0;
    *o = idx;
    o->dtype = x.dtype;
    meta_set_contiguous(c, o);
    return 1;
}

/* ---- reductions ---- */


/* the reduced dims of argument `dim` (absent, None or []: every dim) */
static int reduce_dims(mctx *c, const eir_mtensor *x, const char *name, bool *mask) {
    memset(mask, 0, MAXR * sizeof *mask);
    const eir_arg *a = meta_arg(c, name);
    eir_mdim d[MAXR];
    int n = a ? meta_in_ints(c, name, d, MAXR, 0) : 0;
    if (n < 0) return 0;
    /* any.dims / all.dims with dim=[] reduce nothing (the other overloads: everything) */
    if (n == 0 && a && c->s && (!strcmp(c->s->name, "aten.any.dims") || !strcmp(c->s->name, "aten.all.dims"))) return 1;
    if (n == 0) {
        for (uint32_t i = 0; i < x->rank; i++) mask[i] = true;
        return 1;
    }
    for (int i = 0; i < n; i++) {
        uint32_t k;
        if (d[i].kind != EIR_MDIM_INT) return 0;
        if (!meta_wrap_dim(c, d[i].c, x->rank, "argument 'dim'", &k)) return -1;
        if (x->rank && mask[k]) return meta_fail(c, "argument 'dim' repeats dim %u", k);
        if (x->rank) mask[k] = true;
    }
    return 1;
}

int meta_reduction(mctx *c, eir_mtensor *o, int kind, const char *dim_name) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    bool mask[MAXR];
    int r = reduce_dims(c, &x, dim_name, mask);
    if (r <= 0) return r;
    bool keep = meta_in_bool(c, "keepdim", false);
    *o = x;
    uint32_t n = 0;
    for (uint32_t i = 0; i < x.rank; i++) {
        if (!mask[i]) o->sizes[n++] = x.sizes[i];
        else if (keep) o->sizes[n++] = D(1);
    }
    o->rank = n;
    eir_dtype dt = meta_in_dtype(c, "dtype");
    switch (kind) {
    case RED_SUM: if (meta_dt_cat(x.dtype) <= 1) o->dtype = EIR_I64; break;
    case RED_BOOL: o->dtype = x.dtype == EIR_U8 ? EIR_U8 : EIR_BOOL; break;
    case RED_LONG: o->dtype = EIR_I64; break;
    case RED_FLOAT: o->dtype = meta_dt_cat(x.dtype) == 3 ? meta_complex_value(x.dtype) : x.dtype; break;
    default: break;
    }
    if (dt != EIR_DTYPE_UNKNOWN) o->dtype = dt;
    meta_set_contiguous(c, o);
    return 1;
}

static int m_sum(mctx *c, eir_mtensor *o, uint32_t max) { return meta_reduction(c, o, RED_SUM, "dim"); }
static int m_reduce_same(mctx *c, eir_mtensor *o, uint32_t max) { return meta_reduction(c, o, RED_SAME, "dim"); }
static int m_reduce_bool(mctx *c, eir_mtensor *o, uint32_t max) { return meta_reduction(c, o, RED_BOOL, "dim"); }
static int m_reduce_long(mctx *c, eir_mtensor *o, uint32_t max) { return meta_reduction(c, o, RED_LONG, "dim"); }
static int m_reduce_var(mctx *c, eir_mtensor *o, uint32_t max) { return meta_reduction(c, o, RED_FLOAT, "dim"); }
static int m_amax(mctx *c, eir_mtensor *o, uint32_t max) { return meta_reduction(c, o, RED_SAME, "dim"); }

static int m_constant_pad_nd(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    eir_mdim pad[2 * MAXR];
    int n = meta_in_ints(c, "pad", pad, 2 * MAXR, 0);
    if (n < 0) return 0;
    if (n % 2 || (uint32_t)n / 2 > x.rank)
        return meta_fail(c, "argument 'pad' has %d entries; expected an even number, at most twice the rank of 'self' (%u)",
                    n, x.rank);
    *o = x;
    for (int i = 0; i < n / 2; i++) {
        uint32_t d = x.rank - 1 - (uint32_t)i;
        o->sizes[d] = meta_dadd(c, meta_dadd(c, x.sizes[d], pad[2 * i]), pad[2 * i + 1]);
    }
    if (meta_strides_like_cl(c, &x)) meta_set_channels_last(c, o);
    else meta_set_contiguous(c, o);
    return 1;
}

/* scaled_dot_product_attention: (batch..., L, Ev), the batch dims of query,
 * key and value broadcast */
static int m_sdpa(mctx *c, eir_mtensor *o, uint32_t max) {
    static const char *const names[] = {"query", "key", "value"};
    operand ops[3];
    for (uint32_t k = 0; k < 3; k++) {
        ops[k].wrapped = false;
        if (meta_in_tensor(c, names[k], &ops[k].t) != 1 || ops[k].t.rank < 2) return 0;
    }
    eir_mtensor q = ops[0].t, v = ops[2].t;
    for (uint32_t k = 0; k < 3; k++) ops[k].t.rank -= 2;
    eir_mtensor b;
    memset(&b, 0, sizeof b);
    int r = meta_broadcast(c, ops, 3, &b, names);
    if (r <= 0) return r;
    bool same_batch = b.rank == q.rank - 2;
    for (uint32_t i = 0; i < b.rank && same_batch; i++) same_batch = meta_deq(c, b.sizes[i], q.sizes[i]);
    *o = q;
    o->rank = b.rank + 2;
    for (uint32_t i = 0; i < b.rank; i++) o->sizes[i] = b.sizes[i];
    o->sizes[b.rank] = q.sizes[q.rank - 2];
    o->sizes[b.rank + 1] = v.sizes[v.rank - 1];
    if (same_batch && meta_deq(c, q.sizes[q.rank - 1], v.sizes[v.rank - 1])) meta_like_preserve(c, &q, o);
    else meta_set_contiguous(c, o);
    return 1;
}

/* ---- composites as exported (the ATen dialect keeps them) ---- */

static int m_dropout(mctx *c, eir_mtensor *o, uint32_t max) {
    if (!meta_in_bool(c, "train", true)) return meta_in_tensor(c, "input", o) == 1 ? 1 : 0;
    static const char *const names[] = {"input"};
    return meta_pointwise(c, o, names, 1, PW_SAME);
}

static int m_flatten(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor self;
    int64_t s0 = 0, s1 = -1;
    uint32_t a, b;
    if (meta_in_tensor(c, "self", &self) != 1 || !meta_in_int(c, "start_dim", &s0) || !meta_in_int(c, "end_dim", &s1)) return 0;
    if (self.rank == 0) {
        *o = self;
        o->rank = 1;
        o->sizes[0] = D(1);
        o->strides[0] = D(1);
        return 1;
    }
    if (!meta_wrap_dim(c, s0, self.rank, "argument 'start_dim'", &a) || !meta_wrap_dim(c, s1, self.rank, "argument 'end_dim'", &b))
        return -1;
    if (a > b) return meta_fail(c, "argument 'start_dim' (%u) comes after 'end_dim' (%u)", a, b);
    if (a == b) { *o = self; return 1; }
    eir_mdim sz[MAXR];
    uint32_t n = 0;
    for (uint32_t i = 0; i < a; i++) sz[n++] = self.sizes[i];
    eir_mdim prod = D(1);
    for (uint32_t i = a; i <= b; i++) prod = meta_dmul(c, prod, self.sizes[i]);
    sz[n++] = prod;
    for (uint32_t i = b + 1; i < self.rank; i++) sz[n++] = self.sizes[i];
    return meta_reshape_to(c, o, &self, sz, n, true, "argument 'start_dim'");
}

static int m_unflatten(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor self;
    int64_t dim;
    uint32_t d;
    if (meta_in_tensor(c, "self", &self) != 1 || !meta_in_int(c, "dim", &dim)) return 0;
    if (!meta_wrap_dim(c, dim, self.rank, "argument 'dim'", &d) || self.rank == 0) return self.rank ? -1 : 0;
    eir_mdim part[MAXR], sz[MAXR];
    int k = meta_in_ints(c, "sizes", part, MAXR, 0);
    if (k <= 0 || self.rank - 1 + (uint32_t)k > MAXR) return 0;
    int infer = -1;
    eir_mdim prod = D(1);
    for (int i = 0; i < k; i++) {
        if (is_int(part[i], -1)) infer = i;
        else prod = meta_dmul(c, prod, part[i]);
    }
    if (infer >= 0) part[infer] = meta_dfloordiv(c, self.sizes[d], prod);
    uint32_t n = 0;
    for (uint32_t i = 0; i < d; i++) sz[n++] = self.sizes[i];
    for (int i = 0; i < k; i++) sz[n++] = part[i];
    for (uint32_t i = d + 1; i < self.rank; i++) sz[n++] = self.sizes[i];
    return meta_reshape_to(c, o, &self, sz, n, false, "argument 'sizes'");
}

static int m_narrow(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor self;
    int64_t dim;
    uint32_t d;
    if (meta_in_tensor(c, "self", &self) != 1 || !meta_in_int(c, "dim", &dim)) return 0;
    if (!meta_wrap_dim(c, dim, self.rank, "argument 'dim'", &d) || self.rank == 0) return self.rank ? -1 : 0;
    const eir_arg *as = meta_arg(c, "start"), *al = meta_arg(c, "length");
    eir_mdim start, len;
    if (!as || !al || !meta_symint_arg(c, as, &start) || !meta_symint_arg(c, al, &len)) return 0;
    if (start.kind == EIR_MDIM_INT && start.c < 0) start = meta_dadd(c, self.sizes[d], start);
    *o = self;
    o->sizes[d] = len;
    o->offset = meta_dadd(c, self.offset, meta_dmul(c, start, self.strides[d]));
    return 1;
}

static int m_chunk(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor self;
    int64_t chunks, dim = 0;
    uint32_t d;
    if (meta_in_tensor(c, "self", &self) != 1 || !meta_in_int(c, "chunks", &chunks) || !meta_in_int(c, "dim", &dim)) return 0;
    if (!meta_wrap_dim(c, dim, self.rank, "argument 'dim'", &d) || self.rank == 0) return self.rank ? -1 : 0;
    if (chunks <= 0) return meta_fail(c, "argument 'chunks' is %lld; expected > 0", (long long)chunks);
    if (self.sizes[d].kind != EIR_MDIM_INT) return 0;
    int64_t size = self.sizes[d].c, ss = size / chunks + (size % chunks != 0);
    eir_mdim lens[64];
    uint32_t n = 0;
    if (ss > 0 && size / ss + (size % ss != 0) > 64) return 0;
    if (ss == 0) { lens[n++] = D(0); }
    for (int64_t s = 0; ss > 0 && s < size; s = size - s <= ss ? size : s + ss) {
        if (n >= 64) return 0;
        lens[n++] = D(size - s < ss ? size - s : ss);
    }
    return split_common(c, o, max, lens, n, d, &self);
}

/* pad: constant_pad_nd's sizes; the other modes (reflect, replicate,
 * circular) give contiguous results */
static int m_pad(mctx *c, eir_mtensor *o, uint32_t max) {
    const eir_arg *m = meta_arg(c, "mode");
    if (m && m->kind != EIR_ARG_STRING) return 0;
    int r = m_constant_pad_nd(c, o, max);
    if (r > 0 && m && strcmp(m->u.s, "constant")) meta_set_contiguous(c, o);
    return r;
}

static int m_group_norm(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor x;
    if (meta_in_tensor(c, "input", &x) != 1) return 0;
    o[0] = x;
    meta_like_preserve(c, &x, &o[0]);
    return 1;
}

static int m_real(mctx *c, eir_mtensor *o, uint32_t max) {
    if (meta_in_tensor(c, "self", o) != 1) return 0;
    if (meta_dt_cat(o->dtype) != 3) return 1;
    o->dtype = meta_complex_value(o->dtype);
    for (uint32_t i = 0; i < o->rank; i++) o->strides[i] = meta_dmul(c, o->strides[i], D(2));
    o->offset = meta_dmul(c, o->offset, D(2));
    return 1;
}

static int m_view_as_real(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor self;
    if (meta_in_tensor(c, "self", &self) != 1) return 0;
    if (meta_dt_cat(self.dtype) != 3)
        return meta_fail(c, "'self' has dtype %s; view_as_real expects a complex tensor",
                    eir_dtype_name(self.dtype) ? eir_dtype_name(self.dtype) : "?");
    if (self.rank + 1 > MAXR) return 0;
    *o = self;
    o->dtype = meta_complex_value(self.dtype);
    for (uint32_t i = 0; i < self.rank; i++) o->strides[i] = meta_dmul(c, self.strides[i], D(2));
    o->sizes[self.rank] = D(2);
    o->strides[self.rank] = D(1);
    o->rank = self.rank + 1;
    o->offset = meta_dmul(c, self.offset, D(2));
    return 1;
}

/* index.Tensor with integer index tensors: the indexed dims are replaced by
 * the indices' broadcast shape, in place when they are adjacent, else in front */
static int m_index(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor self;
    const eir_arg *ia = meta_arg(c, "indices");
    if (meta_in_tensor(c, "self", &self) != 1 || !ia) return 0;
    if (ia->kind != EIR_ARG_OPTIONAL_TENSORS && ia->kind != EIR_ARG_TENSORS) return 0;
    uint32_t n = ia->u.list.n;
    if (n > self.rank) return meta_fail(c, "argument 'indices' has %u entries, more than the rank of 'self' (%u)", n, self.rank);
    operand idx[MAXR];
    const char *names[MAXR];
    uint32_t ni = 0, first = UINT32_MAX, last = 0;
    bool used[MAXR] = {0};
    for (uint32_t k = 0; k < n; k++) {
        const eir_arg *e = &ia->u.list.items[k];
        if (e->kind == EIR_ARG_NONE || e->value == EIR_NO_VALUE) continue;
        idx[ni].wrapped = false;
        if (!tensor_of_value(c, e->value, &idx[ni].t)) return 0;
        if (meta_dt_cat(idx[ni].t.dtype) != 1 || idx[ni].t.dtype == EIR_U8) return 0; /* masks: data-dependent sizes */
        names[ni] = "indices";
        used[k] = true;
        if (first == UINT32_MAX) first = k;
        last = k;
        ni++;
    }
    if (!ni) return 0;
    eir_mtensor bs;
    memset(&bs, 0, sizeof bs);
    int b = meta_broadcast(c, idx, ni, &bs, names);
    if (b <= 0) return b;
    bool adjacent = true;
    for (uint32_t k = first; k <= last; k++) if (!used[k]) adjacent = false;
    memset(o, 0, sizeof *o);
    o->dtype = self.dtype;
    o->sizes_known = true;
    uint32_t r = 0;
    if (self.rank - ni + bs.rank > MAXR) return 0;
    if (!adjacent) for (uint32_t i = 0; i < bs.rank; i++) o->sizes[r++] = bs.sizes[i];
    for (uint32_t k = 0; k < self.rank; k++) {
        if (k < n && used[k]) {
            if (adjacent && k == first) for (uint32_t i = 0; i < bs.rank; i++) o->sizes[r++] = bs.sizes[i];
            continue;
        }
        o->sizes[r++] = self.sizes[k];
    }
    o->rank = r;
    meta_set_contiguous(c, o);
    return 1;
}

/* ---- more pointwise, reductions and the Edge dialect's view copies ---- */

static const char *const N_POW[] = {"self", "exponent"};
static int m_pow(mctx *c, eir_mtensor *o, uint32_t max) {
    int r = meta_pointwise(c, o, N_POW, 2, PW_SAME);
    /* pow(bool tensor, bool): torch's meta gives int64 (its eager kernel bool) */
    const eir_arg *e = meta_arg(c, "exponent");
    if (r > 0 && o->dtype == EIR_BOOL && e && e->kind == EIR_ARG_BOOL) o->dtype = EIR_I64;
    return r;
}

int meta_op_clamp_tensor(mctx *c, eir_mtensor *o, uint32_t max) {
    static const char *const names[] = {"self", "min", "max"};
    return meta_pointwise(c, o, names, 3, PW_SAME);
}

/* masked_fill: self's dtype, self and mask broadcast (mask must fit self) */
static int m_masked_fill(mctx *c, eir_mtensor *o, uint32_t max) {
    static const char *const names[] = {"self", "mask"};
    operand ops[2];
    if (in_operand(c, meta_arg(c, "self"), &ops[0]) != 1 || in_operand(c, meta_arg(c, "mask"), &ops[1]) != 1) return 0;
    if (ops[1].t.dtype != EIR_BOOL)
        return meta_fail(c, "'mask' has dtype %s; expected bool", eir_dtype_name(ops[1].t.dtype) ? eir_dtype_name(ops[1].t.dtype) : "?");
    memset(o, 0, sizeof *o);
    int b = meta_broadcast(c, ops, 2, o, names);
    if (b <= 0) return b;
    o->dtype = ops[0].t.dtype;
    eir_mtensor ts[2] = {ops[0].t, ops[1].t};
    meta_ti_layout(c, ts, 2, o);
    return 1;
}

static int m_fill(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor self;
    if (meta_in_tensor(c, "self", &self) != 1) return 0;
    *o = self;
    meta_like_preserve(c, &self, o);
    return 1;
}

/* max.dim / min.dim: values and int64 indices */
static int m_minmax_dim(mctx *c, eir_mtensor *o, uint32_t max) {
    if (max < 2) return 0;
    int r = meta_reduction(c, o, RED_SAME, "dim");
    if (r <= 0) return r;
    o[1] = o[0];
    o[1].dtype = EIR_I64;
    return 2;
}

static int m_prod(mctx *c, eir_mtensor *o, uint32_t max) { return meta_reduction(c, o, RED_SUM, "dim"); }

static int m_logsumexp(mctx *c, eir_mtensor *o, uint32_t max) {
    int r = meta_reduction(c, o, RED_SAME, "dim");
    if (r > 0 && meta_dt_cat(o->dtype) < 2) o->dtype = EIR_F32;
    return r;
}

static int m_cumsum(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor x;
    int64_t dim;
    uint32_t d;
    if (meta_in_tensor(c, "self", &x) != 1 || !meta_in_int(c, "dim", &dim)) return 0;
    if (!meta_wrap_dim(c, dim, x.rank, "argument 'dim'", &d)) return -1;
    *o = x;
    eir_dtype dt = meta_in_dtype(c, "dtype");
    if (dt != EIR_DTYPE_UNKNOWN) o->dtype = dt;
    else if (meta_dt_cat(x.dtype) <= 1) o->dtype = EIR_I64;
    meta_set_contiguous(c, o);
    return 1;
}

static int m_topk(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor x;
    int64_t dim = -1;
    uint32_t d;
    const eir_arg *ak = meta_arg(c, "k");
    eir_mdim k;
    if (meta_in_tensor(c, "self", &x) != 1 || !meta_in_int(c, "dim", &dim) || !ak || !meta_symint_arg(c, ak, &k) || max < 2) return 0;
    if (!meta_wrap_dim(c, dim, x.rank, "argument 'dim'", &d)) return -1;
    o[0] = x;
    if (x.rank) o[0].sizes[d] = k;
    meta_set_contiguous(c, &o[0]);
    o[1] = o[0];
    o[1].dtype = EIR_I64;
    return 2;
}

static int m_native_dropout(mctx *c, eir_mtensor *o, uint32_t max) {
    static const char *const names[] = {"input"};
    if (max < 2) return 0;
    int r = meta_pointwise(c, o, names, 1, PW_SAME);
    if (r <= 0) return r;
    o[1] = o[0];
    o[1].dtype = EIR_BOOL;
    return 2;
}

static int m_diagonal(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor x;
    int64_t off = 0, d1 = 0, d2 = 1;
    uint32_t a, b;
    if (meta_in_tensor(c, "self", &x) != 1 || !meta_in_int(c, "offset", &off) || !meta_in_int(c, "dim1", &d1) ||
        !meta_in_int(c, "dim2", &d2))
        return 0;
    if (!meta_wrap_dim(c, d1, x.rank, "argument 'dim1'", &a) || !meta_wrap_dim(c, d2, x.rank, "argument 'dim2'", &b)) return -1;
    if (a == b) return meta_fail(c, "arguments 'dim1' and 'dim2' are both dim %u; expected two different dims", a);
    if (x.sizes[a].kind != EIR_MDIM_INT || x.sizes[b].kind != EIR_MDIM_INT || off == INT64_MIN) return 0;
    int64_t s1 = x.sizes[a].c, s2 = x.sizes[b].c, n;
    *o = x;
    if (off >= 0) {
        n = s1 < s2 - off ? s1 : s2 - off;
        o->offset = meta_dadd(c, x.offset, meta_dmul(c, D(off), x.strides[b]));
    } else {
        n = s1 + off < s2 ? s1 + off : s2;
        o->offset = meta_dadd(c, x.offset, meta_dmul(c, D(-off), x.strides[a]));
    }
    if (n <= 0) n = 0; /* torch's meta moves the offset all the same (its eager kernel does not) */
    uint32_t r = 0;
    for (uint32_t i = 0; i < x.rank; i++) {
        if (i == a || i == b) continue;
        o->sizes[r] = x.sizes[i];
        o->strides[r] = x.strides[i];
        r++;
    }
    o->sizes[r] = D(n);
    o->strides[r] = meta_dadd(c, x.strides[a], x.strides[b]);
    o->rank = r + 1;
    return 1;
}

/* _scaled_dot_product_flash_attention_for_cpu: the output laid out as
 * (batch, L, heads, Ev) transposed to (batch, heads, L, Ev); logsumexp f32 */
static int m_sdpa_flash_cpu(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor q, v;
    if (meta_in_tensor(c, "query", &q) != 1 || meta_in_tensor(c, "value", &v) != 1 || q.rank != 4 || v.rank != 4 || max < 2)
        return 0;
    o[0] = q;
    o[0].sizes[3] = v.sizes[3];
    static const uint32_t order[] = {3, 1, 2, 0};
    meta_set_strides_order(c, &o[0], order);
    o[1] = q;
    o[1].rank = 3;
    o[1].dtype = EIR_F32;
    meta_set_contiguous(c, &o[1]);
    return 2;
}

/* The Edge dialect's *_copy ops: the view's sizes in a new contiguous tensor */
#define VIEW_COPY(name, view)                                                       \
    static int name(mctx *c, eir_mtensor *o, uint32_t max) {                        \
        int r = view(c, o, max);                                                    \
        for (int k = 0; k < r; k++) if (o[k].sizes_known) meta_set_contiguous(c, &o[k]); \
        return r;                                                                   \
    }
VIEW_COPY(m_alias_copy, m_alias)
VIEW_COPY(m_expand_copy, m_expand)
VIEW_COPY(m_permute_copy, m_permute)
VIEW_COPY(m_select_copy, m_select)
VIEW_COPY(m_slice_copy, m_slice)
VIEW_COPY(m_split_with_sizes_copy, m_split_with_sizes)
VIEW_COPY(m_squeeze_copy, m_squeeze)
VIEW_COPY(m_t_copy, m_t)
VIEW_COPY(m_transpose_copy, m_transpose)
VIEW_COPY(m_unbind_copy, m_unbind)
VIEW_COPY(m_unsqueeze_copy, m_unsqueeze)
VIEW_COPY(m_view_copy, m_view)
VIEW_COPY(m_diagonal_copy, m_diagonal)


/* ---- the table ---- */

typedef struct meta_row { const char *name; meta_fn fn; } meta_row;

/* sorted by name (strcmp) */
static const meta_row META[] = {
    {"aten.__and__.Scalar", m_binary},
    {"aten.__and__.Tensor", m_binary},
    {"aten.__lshift__.Scalar", m_binary},
    {"aten.__lshift__.Tensor", m_binary},
    {"aten.__or__.Tensor", m_binary},
    {"aten.__rshift__.Scalar", m_binary},
    {"aten.__rshift__.Tensor", m_binary},
    {"aten.__xor__.Tensor", m_binary},
    {"aten._adaptive_avg_pool2d.default", m_adaptive_avg_pool2d},
    {"aten._adaptive_avg_pool2d_backward.default", meta_op_pool_backward},
    {"aten._adaptive_avg_pool3d.default", meta_op_adaptive_avg_pool3d},
    {"aten._cdist_forward.default", meta_op_cdist},
    {"aten._embedding_bag.default", meta_op_embedding_bag},
    {"aten._fft_c2c.default", meta_op_fft_c2c},
    {"aten._fft_c2r.default", meta_op_fft_c2r},
    {"aten._fft_r2c.default", meta_op_fft_r2c},
    {"aten._linalg_det.default", meta_op_det},
    {"aten._linalg_eigh.default", meta_op_eigh},
    {"aten._linalg_slogdet.default", meta_op_slogdet},
    {"aten._linalg_svd.default", meta_op_svd},
    {"aten._log_softmax.default", m_softmax},
    {"aten._native_batch_norm_legit.default", meta_op_batch_norm_legit},
    {"aten._native_batch_norm_legit.no_stats", meta_op_batch_norm_legit},
    {"aten._native_batch_norm_legit_no_training.default", m_batch_norm_no_training},
    {"aten._pdist_forward.default", meta_op_pdist},
    {"aten._scaled_dot_product_flash_attention_for_cpu.default", m_sdpa_flash_cpu},
    {"aten._softmax.default", m_softmax},
    {"aten._to_copy.default", m_clone},
    {"aten._unique2.default", meta_op_unique2},
    {"aten._unsafe_view.default", m_view},
    {"aten._upsample_bicubic2d_aa.vec", meta_op_upsample_vec},
    {"aten._upsample_bilinear2d_aa.vec", meta_op_upsample_vec},
    {"aten._upsample_nearest_exact1d.vec", meta_op_upsample_vec},
    {"aten._upsample_nearest_exact2d.vec", meta_op_upsample_vec},
    {"aten._upsample_nearest_exact3d.vec", meta_op_upsample_vec},
    {"aten.abs.default", m_unary},
    {"aten.acos.default", m_unary_float},
    {"aten.acosh.default", m_unary_float},
    {"aten.adaptive_avg_pool1d.default", meta_op_adaptive_avg_pool1d},
    {"aten.adaptive_avg_pool2d.default", m_adaptive_avg_pool2d},
    {"aten.adaptive_avg_pool3d.default", meta_op_adaptive_avg_pool3d},
    {"aten.adaptive_max_pool1d.default", meta_op_adaptive_max_pool1d},
    {"aten.adaptive_max_pool2d.default", meta_op_adaptive_max_pool2d},
    {"aten.adaptive_max_pool3d.default", meta_op_adaptive_max_pool3d},
    {"aten.add.Scalar", m_binary},
    {"aten.add.Tensor", m_binary},
    {"aten.add_.Scalar", m_self},
    {"aten.add_.Tensor", m_self},
    {"aten.addcdiv.default", meta_op_addc},
    {"aten.addcmul.default", meta_op_addc},
    {"aten.addmm.default", m_addmm},
    {"aten.adjoint.default", meta_op_mT},
    {"aten.alias.default", m_alias},
    {"aten.alias_copy.default", m_alias_copy},
    {"aten.all.default", m_reduce_bool},
    {"aten.all.dim", m_reduce_bool},
    {"aten.all.dims", m_reduce_bool},
    {"aten.amax.default", m_amax},
    {"aten.amin.default", m_amax},
    {"aten.aminmax.default", meta_op_aminmax},
    {"aten.any.default", m_reduce_bool},
    {"aten.any.dim", m_reduce_bool},
    {"aten.any.dims", m_reduce_bool},
    {"aten.arange.default", m_arange},
    {"aten.arange.start", m_arange},
    {"aten.arange.start_step", m_arange},
    {"aten.argmax.default", m_reduce_long},
    {"aten.argmin.default", m_reduce_long},
    {"aten.argwhere.default", meta_op_nonzero},
    {"aten.as_strided.default", m_as_strided},
    {"aten.as_strided_scatter.default", meta_op_strided_self},
    {"aten.asin.default", m_unary_float},
    {"aten.asinh.default", m_unary_float},
    {"aten.atan.default", m_unary_float},
    {"aten.atan2.default", m_binary_float},
    {"aten.atan2.out", meta_op_atan2_out},
    {"aten.atanh.default", m_unary_float},
    {"aten.avg_pool1d.default", meta_op_avg_pool1d},
    {"aten.avg_pool2d.default", m_avg_pool2d},
    {"aten.avg_pool2d_backward.default", meta_op_pool_backward},
    {"aten.avg_pool3d.default", meta_op_avg_pool3d},
    {"aten.baddbmm.default", m_baddbmm},
    {"aten.bartlett_window.default", meta_op_window},
    {"aten.bartlett_window.periodic", meta_op_window},
    {"aten.batch_norm.default", m_batch_norm},
    {"aten.bitwise_and.Scalar", m_binary},
    {"aten.bitwise_and.Tensor", m_binary},
    {"aten.bitwise_left_shift.Tensor", m_binary},
    {"aten.bitwise_not.default", m_unary},
    {"aten.bitwise_or.Scalar", m_binary},
    {"aten.bitwise_or.Tensor", m_binary},
    {"aten.bitwise_right_shift.Tensor", m_binary},
    {"aten.bitwise_xor.Scalar", m_binary},
    {"aten.bitwise_xor.Tensor", m_binary},
    {"aten.blackman_window.default", meta_op_window},
    {"aten.blackman_window.periodic", meta_op_window},
    {"aten.bmm.default", m_bmm},
    {"aten.broadcast_to.default", m_expand},
    {"aten.cat.default", m_cat},
    {"aten.ceil.default", m_unary},
    {"aten.celu.default", m_unary},
    {"aten.cholesky.default", meta_op_cholesky},
    {"aten.chunk.default", m_chunk},
    {"aten.clamp.Tensor", meta_op_clamp_tensor},
    {"aten.clamp.default", meta_op_clamp_tensor},
    {"aten.clamp_.default", m_self},
    {"aten.clamp_max.Tensor", meta_op_clamp_scalar},
    {"aten.clamp_max.default", meta_op_clamp_scalar},
    {"aten.clamp_min.Tensor", meta_op_clamp_scalar},
    {"aten.clamp_min.default", meta_op_clamp_scalar},
    {"aten.clamp_min_.default", m_self},
    {"aten.clone.default", m_clone},
    {"aten.col2im.default", meta_op_col2im},
    {"aten.constant_pad_nd.default", m_constant_pad_nd},
    {"aten.contiguous.default", m_contiguous},
    {"aten.conv1d.default", m_convolution},
    {"aten.conv1d.padding", m_convolution},
    {"aten.conv2d.default", m_convolution},
    {"aten.conv2d.padding", m_convolution},
    {"aten.conv3d.default", m_convolution},
    {"aten.conv3d.padding", m_convolution},
    {"aten.conv_transpose1d.default", m_convolution},
    {"aten.conv_transpose2d.input", m_convolution},
    {"aten.conv_transpose3d.input", m_convolution},
    {"aten.convolution.default", m_convolution},
    {"aten.convolution_backward.default", meta_op_convolution_backward},
    {"aten.copy.default", meta_op_like_self},
    {"aten.copy_.default", m_self},
    {"aten.copysign.Scalar", m_binary_float},
    {"aten.copysign.Tensor", m_binary_float},
    {"aten.cos.default", m_unary_float},
    {"aten.cosh.default", m_unary_float},
    {"aten.count_nonzero.default", m_reduce_long},
    {"aten.count_nonzero.dim_IntList", m_reduce_long},
    {"aten.cross_entropy_loss.default", meta_op_nll_loss},
    {"aten.cummax.default", meta_op_cumminmax},
    {"aten.cummin.default", meta_op_cumminmax},
    {"aten.cumprod.default", m_cumsum},
    {"aten.cumsum.default", m_cumsum},
    {"aten.deg2rad.default", m_unary_float},
    {"aten.det.default", meta_op_det},
    {"aten.detach.default", m_alias},
    {"aten.diagonal.default", m_diagonal},
    {"aten.diagonal_copy.default", m_diagonal_copy},
    {"aten.diagonal_scatter.default", meta_op_strided_self},
    {"aten.digamma.default", m_unary_float},
    {"aten.div.Scalar", m_binary_float},
    {"aten.div.Scalar_mode", m_div_mode},
    {"aten.div.Tensor", m_binary_float},
    {"aten.div.Tensor_mode", m_div_mode},
    {"aten.div_.Tensor", m_self},
    {"aten.divide.Scalar", m_binary_float},
    {"aten.divide.Scalar_mode", m_div_mode},
    {"aten.divide.Tensor", m_binary_float},
    {"aten.divide.Tensor_mode", m_div_mode},
    {"aten.dot.default", meta_op_dot},
    {"aten.dropout.default", m_dropout},
    {"aten.elu.default", m_unary},
    {"aten.embedding.default", m_embedding},
    {"aten.embedding_dense_backward.default", meta_op_embedding_dense_backward},
    {"aten.empty.memory_format", m_zeros},
    {"aten.empty_like.default", m_like},
    {"aten.empty_strided.default", meta_op_empty_strided},
    {"aten.eq.Scalar", m_binary_bool},
    {"aten.eq.Tensor", m_binary_bool},
    {"aten.erf.default", m_unary_float},
    {"aten.erfc.default", m_unary_float},
    {"aten.erfinv.default", m_unary_float},
    {"aten.exp.default", m_unary_float},
    {"aten.exp2.default", m_unary_float},
    {"aten.expand.default", m_expand},
    {"aten.expand_as.default", meta_op_expand_as},
    {"aten.expand_copy.default", m_expand_copy},
    {"aten.expm1.default", m_unary_float},
    {"aten.eye.default", meta_op_eye},
    {"aten.eye.m", meta_op_eye},
    {"aten.fill.Scalar", m_fill},
    {"aten.fill.Tensor", meta_op_like_self},
    {"aten.fill_.Scalar", m_self},
    {"aten.flatten.using_ints", m_flatten},
    {"aten.flip.default", meta_op_like_self},
    {"aten.float_power.Scalar", meta_op_float_power},
    {"aten.float_power.Tensor_Scalar", meta_op_float_power},
    {"aten.float_power.Tensor_Tensor", meta_op_float_power},
    {"aten.floor.default", m_unary},
    {"aten.floor_divide.default", m_binary},
    {"aten.fmax.default", m_binary},
    {"aten.fmin.default", m_binary},
    {"aten.fmod.Scalar", m_binary},
    {"aten.fmod.Tensor", m_binary},
    {"aten.frac.default", m_unary},
    {"aten.full.default", m_full},
    {"aten.full_like.default", m_like},
    {"aten.gather.default", m_gather},
    {"aten.gcd.default", m_binary},
    {"aten.ge.Scalar", m_binary_bool},
    {"aten.ge.Tensor", m_binary_bool},
    {"aten.gelu.default", m_unary},
    {"aten.gelu_.default", m_self},
    {"aten.ger.default", meta_op_outer},
    {"aten.glu.default", meta_op_glu},
    {"aten.grid_sampler.default", meta_op_grid_sampler},
    {"aten.grid_sampler_2d.default", meta_op_grid_sampler},
    {"aten.grid_sampler_3d.default", meta_op_grid_sampler},
    {"aten.group_norm.default", m_group_norm},
    {"aten.gt.Scalar", m_binary_bool},
    {"aten.gt.Tensor", m_binary_bool},
    {"aten.hamming_window.default", meta_op_window},
    {"aten.hamming_window.periodic", meta_op_window},
    {"aten.hamming_window.periodic_alpha", meta_op_window},
    {"aten.hamming_window.periodic_alpha_beta", meta_op_window},
    {"aten.hann_window.default", meta_op_window},
    {"aten.hann_window.periodic", meta_op_window},
    {"aten.hardshrink.default", m_unary},
    {"aten.hardsigmoid.default", m_unary},
    {"aten.hardswish.default", m_unary},
    {"aten.hardswish_.default", m_self},
    {"aten.hardtanh.default", m_unary},
    {"aten.hardtanh_.default", m_self},
    {"aten.heaviside.default", meta_op_heaviside},
    {"aten.huber_loss.default", meta_op_pointwise_loss},
    {"aten.hypot.default", m_binary_float},
    {"aten.i0.default", m_unary_float},
    {"aten.igamma.default", m_binary_float},
    {"aten.igammac.default", m_binary_float},
    {"aten.index.Tensor", m_index},
    {"aten.index_add.default", meta_op_like_self},
    {"aten.index_copy.default", meta_op_like_self},
    {"aten.index_fill.int_Scalar", meta_op_like_self},
    {"aten.index_fill.int_Tensor", meta_op_like_self},
    {"aten.index_put.default", meta_op_like_self},
    {"aten.index_select.default", m_index_select},
    {"aten.inverse.default", meta_op_inverse},
    {"aten.isclose.default", m_binary_bool},
    {"aten.isfinite.default", m_unary_bool},
    {"aten.isinf.default", m_unary_bool},
    {"aten.isnan.default", m_unary_bool},
    {"aten.isneginf.default", m_unary_bool},
    {"aten.isposinf.default", m_unary_bool},
    {"aten.kaiser_window.beta", meta_op_window},
    {"aten.kaiser_window.default", meta_op_window},
    {"aten.kaiser_window.periodic", meta_op_window},
    {"aten.kthvalue.default", meta_op_values_indices},
    {"aten.l1_loss.default", meta_op_pointwise_loss},
    {"aten.layer_norm.default", m_layer_norm},
    {"aten.lcm.default", m_binary},
    {"aten.ldexp.Tensor", m_binary_float},
    {"aten.le.Scalar", m_binary_bool},
    {"aten.le.Tensor", m_binary_bool},
    {"aten.leaky_relu.default", m_unary},
    {"aten.leaky_relu_.default", m_self},
    {"aten.lerp.Scalar", meta_op_lerp},
    {"aten.lerp.Tensor", meta_op_lerp},
    {"aten.lgamma.default", m_unary_float},
    {"aten.lift_fresh.default", m_alias},
    {"aten.linalg_cholesky.default", meta_op_linalg_cholesky},
    {"aten.linalg_cholesky_ex.default", meta_op_linalg_cholesky_ex},
    {"aten.linalg_det.default", meta_op_det},
    {"aten.linalg_eigh.default", meta_op_eigh},
    {"aten.linalg_eigvalsh.default", meta_op_eigh},
    {"aten.linalg_inv.default", meta_op_linalg_inv},
    {"aten.linalg_inv_ex.default", meta_op_linalg_inv_ex},
    {"aten.linalg_matrix_exp.default", meta_op_matrix_exp},
    {"aten.linalg_qr.default", meta_op_qr},
    {"aten.linalg_slogdet.default", meta_op_slogdet},
    {"aten.linalg_svd.default", meta_op_svd},
    {"aten.linalg_svdvals.default", meta_op_svd},
    {"aten.linalg_vector_norm.default", meta_op_vector_norm},
    {"aten.linear.default", m_linear},
    {"aten.log.default", m_unary_float},
    {"aten.log10.default", m_unary_float},
    {"aten.log1p.default", m_unary_float},
    {"aten.log2.default", m_unary_float},
    {"aten.log_sigmoid.default", m_unary},
    {"aten.log_softmax.int", m_softmax},
    {"aten.logaddexp.default", m_binary},
    {"aten.logaddexp2.default", m_binary},
    {"aten.logcumsumexp.default", meta_op_logcumsumexp},
    {"aten.logdet.default", meta_op_det},
    {"aten.logical_and.default", m_binary_bool},
    {"aten.logical_not.default", m_unary_bool},
    {"aten.logical_or.default", m_binary_bool},
    {"aten.logical_xor.default", m_binary_bool},
    {"aten.logit.default", m_unary_float},
    {"aten.logsumexp.default", m_logsumexp},
    {"aten.lt.Scalar", m_binary_bool},
    {"aten.lt.Tensor", m_binary_bool},
    {"aten.mH.default", meta_op_mT},
    {"aten.mT.default", meta_op_mT},
    {"aten.masked_fill.Scalar", m_masked_fill},
    {"aten.masked_fill.Tensor", m_masked_fill},
    {"aten.masked_fill_.Scalar", m_self},
    {"aten.masked_scatter.default", meta_op_contig_self},
    {"aten.masked_select.default", meta_op_masked_select},
    {"aten.matmul.default", m_matmul},
    {"aten.matrix_H.default", meta_op_mT},
    {"aten.matrix_exp.default", meta_op_matrix_exp},
    {"aten.max.default", m_reduce_same},
    {"aten.max.dim", m_minmax_dim},
    {"aten.max_pool1d.default", meta_op_max_pool1d},
    {"aten.max_pool1d_with_indices.default", meta_op_max_pool1d_with_indices},
    {"aten.max_pool2d.default", m_max_pool2d},
    {"aten.max_pool2d_with_indices.default", m_max_pool2d_with_indices},
    {"aten.max_pool2d_with_indices_backward.default", meta_op_pool_backward},
    {"aten.max_pool3d.default", meta_op_max_pool3d},
    {"aten.max_pool3d_with_indices.default", meta_op_max_pool3d_with_indices},
    {"aten.maximum.default", m_binary},
    {"aten.mean.default", m_reduce_same},
    {"aten.mean.dim", m_reduce_same},
    {"aten.median.default", m_reduce_same},
    {"aten.median.dim", meta_op_values_indices},
    {"aten.min.default", m_reduce_same},
    {"aten.min.dim", m_minmax_dim},
    {"aten.minimum.default", m_binary},
    {"aten.mish.default", m_unary},
    {"aten.mm.default", m_mm},
    {"aten.mode.default", meta_op_values_indices},
    {"aten.mse_loss.default", meta_op_pointwise_loss},
    {"aten.mul.Scalar", m_binary},
    {"aten.mul.Tensor", m_binary},
    {"aten.mul_.Scalar", m_self},
    {"aten.mul_.Tensor", m_self},
    {"aten.mv.default", meta_op_mv},
    {"aten.mvlgamma.default", meta_op_unary_float_self},
    {"aten.nan_to_num.default", m_unary},
    {"aten.nanmean.default", m_reduce_same},
    {"aten.nanmedian.default", m_reduce_same},
    {"aten.nanmedian.dim", meta_op_values_indices},
    {"aten.nansum.default", m_sum},
    {"aten.narrow.default", m_narrow},
    {"aten.native_dropout.default", m_native_dropout},
    {"aten.native_group_norm.default", m_native_group_norm},
    {"aten.native_group_norm_backward.default", meta_op_native_group_norm_backward},
    {"aten.native_layer_norm.default", m_native_layer_norm},
    {"aten.native_layer_norm_backward.default", meta_op_native_layer_norm_backward},
    {"aten.ne.Scalar", m_binary_bool},
    {"aten.ne.Tensor", m_binary_bool},
    {"aten.neg.default", m_unary},
    {"aten.new_empty.default", m_new},
    {"aten.new_empty_strided.default", meta_op_empty_strided},
    {"aten.new_full.default", m_new},
    {"aten.new_ones.default", m_new},
    {"aten.new_zeros.default", m_new},
    {"aten.nextafter.default", m_binary},
    {"aten.nll_loss.default", meta_op_nll_loss},
    {"aten.nll_loss2d.default", meta_op_nll_loss},
    {"aten.nll_loss2d_forward.default", meta_op_nll_loss},
    {"aten.nll_loss_forward.default", meta_op_nll_loss},
    {"aten.nll_loss_nd.default", meta_op_nll_loss},
    {"aten.nonzero.default", meta_op_nonzero},
    {"aten.ones.default", m_zeros},
    {"aten.ones_like.default", m_like},
    {"aten.outer.default", meta_op_outer},
    {"aten.pad.default", m_pad},
    {"aten.permute.default", m_permute},
    {"aten.permute_copy.default", m_permute_copy},
    {"aten.polygamma.default", meta_op_unary_float_self},
    {"aten.positive.default", m_alias},
    {"aten.pow.Scalar", m_pow},
    {"aten.pow.Tensor_Scalar", m_pow},
    {"aten.pow.Tensor_Tensor", m_pow},
    {"aten.prod.default", m_sum},
    {"aten.prod.dim_int", m_prod},
    {"aten.qr.default", meta_op_qr},
    {"aten.rad2deg.default", m_unary_float},
    {"aten.rand.default", m_zeros},
    {"aten.rand_like.default", m_like},
    {"aten.randint.default", meta_op_zeros_long},
    {"aten.randint.low", meta_op_zeros_long},
    {"aten.randint_like.default", m_like},
    {"aten.randint_like.low_dtype", m_like},
    {"aten.randn.default", m_zeros},
    {"aten.randn_like.default", m_like},
    {"aten.randperm.default", meta_op_zeros_long},
    {"aten.ravel.default", meta_op_ravel},
    {"aten.real.default", m_real},
    {"aten.reciprocal.default", m_unary_float},
    {"aten.reflection_pad1d.default", meta_op_pad_nd},
    {"aten.reflection_pad2d.default", meta_op_pad_nd},
    {"aten.reflection_pad3d.default", meta_op_pad_nd},
    {"aten.relu.default", m_unary},
    {"aten.relu6.default", m_unary},
    {"aten.relu_.default", m_self},
    {"aten.remainder.Scalar", m_binary},
    {"aten.remainder.Tensor", m_binary},
    {"aten.repeat.default", meta_op_repeat},
    {"aten.repeat_interleave.Tensor", meta_op_repeat_interleave_tensor},
    {"aten.replication_pad1d.default", meta_op_pad_nd},
    {"aten.replication_pad2d.default", meta_op_pad_nd},
    {"aten.replication_pad3d.default", meta_op_pad_nd},
    {"aten.reshape.default", m_reshape},
    {"aten.resize_.default", meta_op_resize},
    {"aten.resolve_conj.default", m_alias},
    {"aten.resolve_neg.default", m_alias},
    {"aten.roll.default", meta_op_like_self},
    {"aten.round.decimals", m_unary},
    {"aten.round.default", m_unary},
    {"aten.rsqrt.default", m_unary_float},
    {"aten.rsub.Scalar", m_binary},
    {"aten.rsub.Tensor", m_binary},
    {"aten.scalar_tensor.default", m_scalar_tensor},
    {"aten.scaled_dot_product_attention.default", m_sdpa},
    {"aten.scatter.reduce", meta_op_contig_self},
    {"aten.scatter.src", meta_op_contig_self},
    {"aten.scatter.value", meta_op_contig_self},
    {"aten.scatter.value_reduce", meta_op_contig_self},
    {"aten.scatter_add.default", meta_op_contig_self},
    {"aten.scatter_reduce.two", meta_op_contig_self},
    {"aten.select.int", m_select},
    {"aten.select_copy.int", m_select_copy},
    {"aten.select_scatter.default", meta_op_strided_self},
    {"aten.selu.default", m_unary},
    {"aten.sgn.default", m_unary},
    {"aten.sigmoid.default", m_unary_float},
    {"aten.sigmoid_.default", m_self},
    {"aten.sign.default", m_unary},
    {"aten.signbit.default", m_unary_bool},
    {"aten.silu.default", m_unary},
    {"aten.silu_.default", m_self},
    {"aten.sin.default", m_unary_float},
    {"aten.sinc.default", m_unary_float},
    {"aten.sinh.default", m_unary_float},
    {"aten.slice.Tensor", m_slice},
    {"aten.slice_copy.Tensor", m_slice_copy},
    {"aten.slice_scatter.default", meta_op_strided_self},
    {"aten.slogdet.default", meta_op_slogdet},
    {"aten.smooth_l1_loss.default", meta_op_pointwise_loss},
    {"aten.soft_margin_loss.default", meta_op_pointwise_loss},
    {"aten.softmax.int", m_softmax},
    {"aten.softplus.default", m_unary},
    {"aten.softshrink.default", m_unary},
    {"aten.sort.default", meta_op_sort},
    {"aten.sort.stable", meta_op_sort},
    {"aten.special_airy_ai.default", meta_op_unary_float_x},
    {"aten.special_bessel_j0.default", m_unary_float},
    {"aten.special_bessel_j1.default", m_unary_float},
    {"aten.special_bessel_y0.default", m_unary_float},
    {"aten.special_bessel_y1.default", m_unary_float},
    {"aten.special_digamma.default", m_unary_float},
    {"aten.special_entr.default", m_unary_float},
    {"aten.special_erf.default", m_unary_float},
    {"aten.special_erfc.default", m_unary_float},
    {"aten.special_erfcx.default", m_unary_float},
    {"aten.special_erfinv.default", m_unary_float},
    {"aten.special_exp2.default", m_unary_float},
    {"aten.special_expit.default", m_unary_float},
    {"aten.special_expm1.default", m_unary_float},
    {"aten.special_gammainc.default", m_binary_float},
    {"aten.special_gammaincc.default", m_binary_float},
    {"aten.special_gammaln.default", m_unary_float},
    {"aten.special_i0.default", m_unary_float},
    {"aten.special_i0e.default", m_unary_float},
    {"aten.special_i1.default", m_unary_float},
    {"aten.special_i1e.default", m_unary_float},
    {"aten.special_log1p.default", m_unary_float},
    {"aten.special_log_ndtr.default", m_unary_float},
    {"aten.special_modified_bessel_i0.default", m_unary_float},
    {"aten.special_modified_bessel_i1.default", m_unary_float},
    {"aten.special_modified_bessel_k0.default", m_unary_float},
    {"aten.special_modified_bessel_k1.default", m_unary_float},
    {"aten.special_multigammaln.default", meta_op_unary_float_self},
    {"aten.special_ndtr.default", m_unary_float},
    {"aten.special_ndtri.default", m_unary_float},
    {"aten.special_polygamma.default", meta_op_unary_float_self},
    {"aten.special_psi.default", m_unary_float},
    {"aten.special_round.default", m_unary},
    {"aten.special_scaled_modified_bessel_k0.default", meta_op_unary_float_x},
    {"aten.special_scaled_modified_bessel_k1.default", meta_op_unary_float_x},
    {"aten.special_sinc.default", m_unary_float},
    {"aten.special_spherical_bessel_j0.default", meta_op_unary_float_x},
    {"aten.special_xlog1py.default", m_binary_float},
    {"aten.special_xlogy.default", m_binary_float},
    {"aten.special_zeta.default", m_binary_float},
    {"aten.split.Tensor", m_split},
    {"aten.split_with_sizes.default", m_split_with_sizes},
    {"aten.split_with_sizes_copy.default", m_split_with_sizes_copy},
    {"aten.sqrt.default", m_unary_float},
    {"aten.squeeze.default", m_squeeze},
    {"aten.squeeze.dim", m_squeeze},
    {"aten.squeeze.dims", m_squeeze},
    {"aten.squeeze_copy.dim", m_squeeze_copy},
    {"aten.squeeze_copy.dims", m_squeeze_copy},
    {"aten.stack.default", m_stack},
    {"aten.std.correction", m_reduce_var},
    {"aten.std.default", m_reduce_var},
    {"aten.std.dim", m_reduce_var},
    {"aten.std_mean.correction", meta_op_var_mean},
    {"aten.std_mean.dim", meta_op_var_mean},
    {"aten.sub.Scalar", m_binary},
    {"aten.sub.Tensor", m_binary},
    {"aten.sub_.Tensor", m_self},
    {"aten.subtract.Scalar", m_binary},
    {"aten.subtract.Tensor", m_binary},
    {"aten.sum.default", m_sum},
    {"aten.sum.dim_IntList", m_sum},
    {"aten.svd.default", meta_op_svd},
    {"aten.swapaxes.default", meta_op_swapaxes},
    {"aten.swapdims.default", meta_op_swapaxes},
    {"aten.t.default", m_t},
    {"aten.t_copy.default", m_t_copy},
    {"aten.tan.default", m_unary_float},
    {"aten.tanh.default", m_unary_float},
    {"aten.tanh_.default", m_self},
    {"aten.threshold.default", m_unary},
    {"aten.to.dtype", m_to},
    {"aten.topk.default", m_topk},
    {"aten.transpose.int", m_transpose},
    {"aten.transpose_copy.int", m_transpose_copy},
    {"aten.tril.default", meta_op_like_self},
    {"aten.triu.default", meta_op_like_self},
    {"aten.true_divide.Scalar", m_binary_float},
    {"aten.true_divide.Tensor", m_binary_float},
    {"aten.trunc.default", m_unary},
    {"aten.type_as.default", meta_op_type_as},
    {"aten.unbind.int", m_unbind},
    {"aten.unbind_copy.int", m_unbind_copy},
    {"aten.unflatten.int", m_unflatten},
    {"aten.unsqueeze.default", m_unsqueeze},
    {"aten.unsqueeze_copy.default", m_unsqueeze_copy},
    {"aten.upsample_bicubic2d.vec", meta_op_upsample_vec},
    {"aten.upsample_bilinear2d.vec", meta_op_upsample_vec},
    {"aten.upsample_linear1d.vec", meta_op_upsample_vec},
    {"aten.upsample_nearest1d.vec", meta_op_upsample_vec},
    {"aten.upsample_nearest2d.vec", meta_op_upsample_vec},
    {"aten.upsample_nearest3d.vec", meta_op_upsample_vec},
    {"aten.upsample_trilinear3d.vec", meta_op_upsample_vec},
    {"aten.var.correction", m_reduce_var},
    {"aten.var.default", m_reduce_var},
    {"aten.var.dim", m_reduce_var},
    {"aten.var_mean.correction", meta_op_var_mean},
    {"aten.var_mean.dim", meta_op_var_mean},
    {"aten.vdot.default", meta_op_dot},
    {"aten.view.default", m_view},
    {"aten.view_as_real.default", m_view_as_real},
    {"aten.view_copy.default", m_view_copy},
    {"aten.where.Scalar", m_where},
    {"aten.where.ScalarOther", m_where},
    {"aten.where.ScalarSelf", m_where},
    {"aten.where.self", m_where},
    {"aten.xlogy.Tensor", m_binary_float},
    {"aten.zero.default", meta_op_like_self},
    {"aten.zero_.default", m_self},
    {"aten.zeros.default", m_zeros},
    {"aten.zeros_like.default", m_like},
};

static int cmp_row(const void *key, const void *row) { return strcmp((const char *)key, ((const meta_row *)row)->name); }

#define EDGE_PREFIX "executorch.exir.dialects.edge._ops."

static const char *overload_name(const char *t) {
    if (!t) return NULL;
    if (!strncmp(t, "torch.ops.", 10)) return t + 10;
    if (!strncmp(t, EDGE_PREFIX, strlen(EDGE_PREFIX))) return t + strlen(EDGE_PREFIX);
    return t;
}

static meta_fn find_fn(const char *target) {
    const char *name = overload_name(target);
    if (!name) return NULL;
    const meta_row *row = bsearch(name, META, EIR_ARRAY_LEN(META), sizeof META[0], cmp_row);
    return row ? row->fn : meta_tail_find(name); /* ---- the long tail: src/ops/meta_tail.c ---- */
}

/* the meta function of overload `name` of this table, called on c's node
 * (whose arguments it reads by name) */
int meta_delegate(mctx *c, const char *name, eir_mtensor *o, uint32_t max) {
    const meta_row *row = bsearch(name, META, EIR_ARRAY_LEN(META), sizeof META[0], cmp_row);
    return row ? row->fn(c, o, max) : 0;
}

bool meta_tensor_of_value(mctx *c, uint32_t v, eir_mtensor *t) { return tensor_of_value(c, v, t); }

bool eir_meta_has(const char *target) { return find_fn(target) != NULL; }

uint32_t eir_meta_count(void) { return (uint32_t)EIR_ARRAY_LEN(META) + meta_tail_count(); }

/* name i of the two sorted tables merged */
const char *eir_meta_name(uint32_t i) {
    uint32_t a = 0, b = 0, na = (uint32_t)EIR_ARRAY_LEN(META), nb = meta_tail_count();
    if (i >= na + nb) return NULL;
    for (;;) {
        const char *x = a < na ? META[a].name : NULL, *y = b < nb ? meta_tail_name(b) : NULL;
        bool first = y == NULL || (x != NULL && strcmp(x, y) < 0);
        if (a + b == i) return first ? x : y;
        if (first) a++;
        else b++;
    }
}

int eir_meta_infer_node(const eir_program *p, const eir_graph *g, const eir_node *nd, eir_arena *scratch,
                        eir_mtensor *outs, uint32_t max, char *err, size_t errlen) {
    if (errlen) err[0] = 0;
    meta_fn fn = find_fn(nd->target);
    if (!fn) return 0;
    const eir_op_schema *s = eir_op_find(overload_name(nd->target));
    if (!s || max == 0) return 0;
    mctx c = {p, g, nd, s, scratch, err, errlen};
    return fn(&c, outs, max);
}

/* ---- comparing with the recorded metadata ---- */

static void put_dim(eir_buf *b, eir_mdim d) {
    if (d.kind == EIR_MDIM_INT) eir_buf_printf(b, "%lld", (long long)d.c);
    else if (d.kind == EIR_MDIM_SYM) eir_sym_print(b, d.e);
    else eir_buf_putc(b, '?');
}

static void describe(char *dst, size_t n, const eir_mtensor *t) {
    eir_buf b;
    eir_buf_init(&b);
    const char *dt = t->dtype == EIR_DTYPE_UNKNOWN ? "?" : eir_dtype_abbr(t->dtype);
    eir_buf_puts(&b, dt ? dt : "?");
    if (!t->sizes_known) {
        eir_buf_puts(&b, "[?]");
    } else {
        eir_buf_putc(&b, '[');
        for (uint32_t i = 0; i < t->rank; i++) { if (i) eir_buf_puts(&b, ", "); put_dim(&b, t->sizes[i]); }
        eir_buf_putc(&b, ']');
    }
    if (t->strides_known && t->sizes_known) {
        eir_buf_puts(&b, " strides [");
        for (uint32_t i = 0; i < t->rank; i++) { if (i) eir_buf_puts(&b, ", "); put_dim(&b, t->strides[i]); }
        eir_buf_puts(&b, "] offset ");
        put_dim(&b, t->offset);
    }
    snprintf(dst, n, "%s", b.data && !b.oom ? b.data : "?");
    eir_buf_free(&b);
}

uint32_t meta_flat_outputs(const eir_node *nd, uint32_t *ids, uint32_t max) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < nd->num_outputs; i++) {
        const eir_arg *a = &nd->outputs[i];
        if (a->kind == EIR_ARG_TENSORS || a->kind == EIR_ARG_OPTIONAL_TENSORS) {
            for (uint32_t k = 0; k < a->u.list.n && n < max; k++) ids[n++] = a->u.list.items[k].value;
        } else if (n < max) {
            ids[n++] = a->kind == EIR_ARG_TENSOR || a->kind == EIR_ARG_OPTIONAL_TENSOR ? a->value : EIR_NO_VALUE;
        }
    }
    return n;
}

#define MAX_OUTS 64

int eir_meta_check_node(const eir_program *p, const eir_graph *g, const eir_node *nd, uint32_t flags,
                        eir_meta_outcome *outs, uint32_t max, char *err, size_t errlen) {
    if (!find_fn(nd->target)) return 0;
    eir_arena scratch;
    eir_arena_init(&scratch);
    eir_mtensor *inf = eir_arena_array(&scratch, MAX_OUTS, sizeof *inf);
    uint32_t ids[MAX_OUTS];
    int n = inf ? eir_meta_infer_node(p, g, nd, &scratch, inf, MAX_OUTS, err, errlen) : 0;
    int written = 0;
    if (n > 0) {
        uint32_t nid = meta_flat_outputs(nd, ids, MAX_OUTS);
        if (nid != (uint32_t)n) {
            /* the node's outputs are not the op's returns as inferred (a form not known here) */
            n = 0;
        }
        for (uint32_t i = 0; i < (uint32_t)n && (uint32_t)written < max; i++) {
            eir_mtensor rec;
            mctx c = {p, g, nd, NULL, &scratch, err, errlen};
            if (ids[i] == EIR_NO_VALUE || !tensor_of_value(&c, ids[i], &rec)) continue;
            eir_meta_outcome *o = &outs[written++];
            memset(o, 0, sizeof *o);
            o->output = i;
            o->value = g->values[ids[i]].name;
            const eir_mtensor *t = &inf[i];
            o->dtype = t->dtype == EIR_DTYPE_UNKNOWN || (flags & EIR_META_NO_DTYPE) ? EIR_MCMP_UNKNOWN
                       : t->dtype == rec.dtype       ? EIR_MCMP_AGREE
                                                     : EIR_MCMP_DIFFER;
            o->sizes = o->strides = o->offset = EIR_MCMP_UNKNOWN;
            if (t->sizes_known) {
                if (t->rank != rec.rank) {
                    o->sizes = EIR_MCMP_DIFFER;
                } else {
                    o->sizes = EIR_MCMP_AGREE;
                    for (uint32_t k = 0; k < t->rank; k++) {
                        eir_meta_cmp e = dcmp(p, t->sizes[k], rec.sizes[k]);
                        if (e == EIR_MCMP_DIFFER) { o->sizes = e; break; }
                        if (e == EIR_MCMP_UNKNOWN) o->sizes = e;
                    }
                }
            }
            if (t->strides_known && t->sizes_known && t->rank == rec.rank && !(flags & EIR_META_NO_LAYOUT)) {
                o->strides = EIR_MCMP_AGREE;
                for (uint32_t k = 0; k < t->rank; k++) {
                    /* a stride of a size-1 dim is never used to address memory; torch's own
                     * kernels differ in what they put there, and so do recorded ones */
                    int64_t sz;
                    if (meta_dval(&c, rec.sizes[k], &sz) && sz <= 1) continue;
                    eir_meta_cmp e = dcmp(p, t->strides[k], rec.strides[k]);
                    if (e == EIR_MCMP_DIFFER) { o->strides = e; break; }
                    if (e == EIR_MCMP_UNKNOWN) o->strides = e;
                }
                o->offset = dcmp(p, t->offset, rec.offset);
                /* torch.export.load makes every value's fake tensor with empty_strided (storage
                 * offset 0), so a program saved again after loading records 0 for every view
                 * (a slice's, a split's); a recorded 0 says nothing */
                int64_t ro;
                if (o->offset == EIR_MCMP_DIFFER && meta_dval(&c, rec.offset, &ro) && ro == 0)
                    o->offset = EIR_MCMP_UNKNOWN;
            }
            describe(o->recorded, sizeof o->recorded, &rec);
            describe(o->inferred, sizeof o->inferred, t);
        }
    }
    eir_arena_release(&scratch);
    if (n < 0) return -1;
    return written;
}

uint32_t eir_meta_subgraph_flags(const eir_node *nd) {
    const char *t = nd->target ? nd->target : "";
    return strstr(t, "higher_order.wrap_with_autocast") ? EIR_META_NO_DTYPE : 0;
}

typedef struct walkctx {
    const eir_program *p;
    eir_meta_visit visit;
    void *ctx;
} walkctx;

static void walk(walkctx *w, const eir_graph *g, const char *path, uint32_t flags) {
    eir_meta_outcome outs[16];
    char err[512];
    for (uint32_t i = 0; i < g->num_nodes; i++) {
        const eir_node *nd = &g->nodes[i];
        bool has = find_fn(nd->target) != NULL;
        int n = has ? eir_meta_check_node(w->p, g, nd, flags, outs, EIR_ARRAY_LEN(outs), err, sizeof err) : 0;
        w->visit(w->ctx, path, nd, has, outs, n, n < 0 ? err : NULL);
        for (uint32_t k = 0; k < nd->num_inputs; k++) {
            const eir_arg *a = &nd->inputs[k].arg;
            if (a->kind != EIR_ARG_GRAPH || !a->u.graph.graph) continue;
            char sub[512];
            snprintf(sub, sizeof sub, "%s%s%s", path ? path : "", path ? "/" : "",
                     a->u.graph.name ? a->u.graph.name : "?");
            walk(w, a->u.graph.graph, sub, flags | eir_meta_subgraph_flags(nd));
        }
    }
}

void eir_meta_check_program(const eir_program *p, eir_meta_visit visit, void *ctx) {
    if (!p || !p->graph || !visit) return;
    walkctx w = {p, visit, ctx};
    walk(&w, p->graph, NULL, p->layout_made_up ? EIR_META_NO_LAYOUT : 0);
}

uint32_t eir_meta_find_expr(const eir_program *p, const eir_sym_node *e) {
    if (!p || !e) return UINT32_MAX;
    for (uint32_t i = 0; i < p->num_exprs; i++)
        if (p->exprs[i].tree == e) return i;
    eir_mdim d = {EIR_MDIM_SYM, 0, e};
    for (uint32_t i = 0; i < p->num_exprs; i++) {
        if (!p->exprs[i].tree) continue;
        eir_mdim x = {EIR_MDIM_SYM, 0, p->exprs[i].tree};
        if (dcmp(p, d, x) == EIR_MCMP_AGREE) return i;
    }
    return UINT32_MAX;
}
