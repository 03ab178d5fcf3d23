/* loss.c — kernel family for the loss functions torch.export keeps as
 * user-level ATen ops (run_decompositions() would lower them):
 *
 *   element-wise  mse_loss, l1_loss, smooth_l1_loss, huber_loss,
 *                 binary_cross_entropy, binary_cross_entropy_with_logits,
 *                 kl_div, poisson_nll_loss, margin_ranking_loss,
 *                 hinge_embedding_loss, soft_margin_loss
 *   per sample    cosine_embedding_loss, triplet_margin_loss,
 *                 multi_margin_loss, multilabel_margin_loss (+ _forward)
 *   class index   nll_loss / nll_loss2d (+ _forward), nll_loss_nd,
 *                 cross_entropy_loss (class indices with weights and
 *                 ignore_index, label smoothing, class-probability targets)
 *
 * reduction is torch's enum: 0 none, 1 mean, 2 sum. Element-wise steps
 * round to the computation dtype after every operation, as torch's
 * composition of ops (and its Half / BFloat16 arithmetic) does; mean and sum
 * add the per-element losses in double. nll_loss repeats its CPU kernel's
 * cascade sum in the input's dtype step for step; cross_entropy_loss runs
 * reduce.c's log_softmax kernel first. */
#include <stdio.h>
#include <stdlib.h>

#include "kutil.h"
#include "tables.h"

static const char *tname(eir_dtype d) { return eir_torch_dtype_name(d); }

static const eir_tview *targ(const eir_karg *a, uint32_t na, uint32_t i) {
    return i < na && a[i].kind == EIR_KA_TENSOR ? a[i].t : NULL;
}
static double farg(const eir_karg *a, uint32_t na, uint32_t i, double dflt) {
    if (i >= na || a[i].kind == EIR_KA_NONE) return dflt;
    return a[i].kind == EIR_KA_FLOAT ? a[i].f : a[i].s.f;
}
static int64_t iarg(const eir_karg *a, uint32_t na, uint32_t i, int64_t dflt) {
    return i < na && a[i].kind != EIR_KA_NONE ? a[i].i : dflt;
}


static int check_reduction(const char *op, int64_t r, eir_kctx *ctx) {
    if (r < 0 || r > 2) return eir_kerr(ctx, "%s: %lld is not a valid value for reduction", op, (long long)r);
    return 0;
}

/* Store a reduced loss: the sum of n per-element losses, or their mean. */
static void store_reduced(eir_tview *out, double sum, int64_t n, int64_t reduction) {
    eir_store_f64(out->data, out->dtype, reduction == 1 ? sum / (double)n : sum);
}

/* ---- element-wise losses ----------------------------------------------- */

typedef struct lp {
    eir_dtype ct;           /* computation dtype: every step rounds to it */
    double a, b;            /* beta / delta / margin / eps ... */
    int flags;              /* op-specific switches */
} lp;

static inline double R(double v, const lp *p) { return eir_round_f64(v, p->ct); }

typedef double (*elem_fn)(const double *v, const lp *p);

static double mse_e(const double *v, const lp *p) {
    double d = R(v[0] - v[1], p);
    return R(d * d, p);
}
static double l1_e(const double *v, const lp *p) { return fabs(R(v[0] - v[1], p)); }
/* smooth_l1: a = beta (in the dtype) */
static double smooth_l1_e(const double *v, const lp *p) {
    double z = fabs(R(v[0] - v[1], p)), b = p->a;
    return z < b ? R(R(R(0.5 * z, p) * z, p) / b, p) : R(z - R(0.5 * b, p), p);
}
/* huber: a = delta (in the dtype) */
static double huber_e(const double *v, const lp *p) {
    double z = fabs(R(v[0] - v[1], p)), d = p->a;
    return z < d ? R(R(0.5 * z, p) * z, p) : R(d * R(z - R(0.5 * d, p), p), p);
}
/* binary_cross_entropy: (input, target[, weight]); flags 1: weighted */
static double bce_e(const double *v, const lp *p) {
    double x = v[0], y = v[1];
    double l1p = fmax(R(log1p(-x), p), -100.0), lg = fmax(R(log(x), p), -100.0);
    double l = R(R(R(y - 1, p) * l1p, p) - R(y * lg, p), p);
    return p->flags & 1 ? R(l * v[2], p) : l;
}
/* binary_cross_entropy_with_logits: (input, target, weight, pos_weight);
 * flags 1: weight given, 2: pos_weight given */
static double bce_logits_e(const double *v, const lp *p) {
    double x = v[0], t = v[1];
    double ls = R((x < 0 ? x : (x != x ? x : 0.0)) - log1p(exp(-fabs(x))), p);
    if (p->flags & 2) ls = R(ls * R(R(R(v[3] - 1, p) * t, p) + 1, p), p);
    double l = R(R(R(1 - t, p) * x, p) - ls, p);
    return p->flags & 1 ? R(l * v[2], p) : l;
}
/* kl_div: (input, target); flags 1: log_target */
static double kl_div_e(const double *v, const lp *p) {
    double x = v[0], t = v[1];
    if (p->flags & 1) return R(R(exp(t), p) * R(t - x, p), p);
    double xl = isnan(t) ? NAN : t == 0 ? 0.0 : R(t * log(t), p);
    return R(xl - R(t * x, p), p);
}
/* poisson_nll_loss: (input, target); flags 1: log_input, 2: full; a = eps */
static double poisson_e(const double *v, const lp *p) {
    double x = v[0], t = v[1], l;
    if (p->flags & 1) l = R(R(exp(x), p) - R(t * x, p), p);
    else l = R(x - R(t * R(log(R(x + p->a, p)), p), p), p);
    if (p->flags & 2) {
        double st = R(R(R(t * R(log(t), p), p) - t, p) + R(0.5 * R(log(R(R(2 * M_PI, p) * t, p)), p), p), p);
        l = R(l + (t <= 1 ? 0.0 : st), p);
    }
    return l;
}
/* clamp_min(v, 0) as torch's clamp: NaN stays NaN */
static inline double clamp0(double v) { return v < 0 ? 0.0 : v; }
/* margin_ranking_loss: (input1, input2, target); a = margin */
static double margin_rank_e(const double *v, const lp *p) {
    return clamp0(R(R(-v[2] * R(v[0] - v[1], p), p) + p->a, p));
}
/* hinge_embedding_loss: (input, target); a = margin */
static double hinge_e(const double *v, const lp *p) {
    double mc = clamp0(R(p->a - v[0], p));
    return R((v[1] != 1 ? mc : 0.0) + (v[1] != -1 ? v[0] : 0.0), p);
}
/* soft_margin_loss: (input, target) */
static double soft_margin_e(const double *v, const lp *p) { return R(log1p(R(exp(R(-v[0] * v[1], p)), p)), p); }

/* The broadcast shape of the given views (NULL entries skipped). */
static int broadcast_shape(const eir_tview *const *ins, int n, int32_t *rank, int64_t *sizes, eir_kctx *ctx) {
    *rank = 0;
    for (int k = 0; k < n; k++)
        if (ins[k] && ins[k]->rank > *rank) *rank = ins[k]->rank;
    for (int32_t d = 0; d < *rank; d++) sizes[d] = 1;
    for (int k = 0; k < n; k++) {
        if (!ins[k]) continue;
        for (int32_t d = 0; d < ins[k]->rank; d++) {
            int32_t od = d + *rank - ins[k]->rank;
            int64_t s = ins[k]->sizes[d];
            if (s == sizes[od] || s == 1) continue;
            if (sizes[od] != 1)
                return eir_kerr(ctx, "The size of tensor a (%lld) must match the size of tensor b (%lld) at non-singleton dimension %d",
                                (long long)sizes[od], (long long)s, od);
            sizes[od] = s;
        }
    }
    return 0;
}

/* Run f over the broadcast inputs: reduction none writes each loss into
 * out (out's shape), mean / sum write one value. ins[k] may be NULL (the
 * element function ignores that slot). */
static int elementwise_loss(const char *op, const eir_tview *const *ins, int nin, elem_fn f, const lp *p, int64_t reduction,
                            eir_tview *out, eir_kctx *ctx) {
    if (check_reduction(op, reduction, ctx)) return -1;
    int32_t rank;
    int64_t sizes[EIR_MAX_RANK];
    if (broadcast_shape(ins, nin, &rank, sizes, ctx)) return -1;
    eir_tview bv[4];
    const eir_tview *ops[5];
    int nops = 0;
    if (reduction == 0) {
        if (out->rank != rank) return eir_kerr(ctx, "%s: output rank %d, expected %d", op, out->rank, rank);
        ops[nops++] = out;
    }
    int slot[4];
    for (int k = 0; k < nin; k++) {
        slot[k] = -1;
        if (!ins[k]) continue;
        eir_tview_broadcast(ins[k], rank, sizes, &bv[k]);
        slot[k] = nops;
        ops[nops++] = &bv[k];
    }
    eir_iter it;
    eir_iter_init(&it, rank, sizes, nops, ops);
    char *ptr[5];
    int64_t len, n = 0;
    double sum = 0;
    while (eir_iter_next(&it, ptr, &len))
        for (int64_t j = 0; j < len; j++) {
            double v[4] = {0, 0, 0, 0};
            for (int k = 0; k < nin; k++)
                if (slot[k] >= 0) v[k] = eir_load_f64(ptr[slot[k]] + j * it.inner_stride[slot[k]], ins[k]->dtype);
            double l = f(v, p);
            if (reduction == 0) eir_store_f64(ptr[0] + j * it.inner_stride[0], out->dtype, l);
            else sum += eir_round_f64(l, out->dtype);
            n++;
        }
    if (reduction != 0) store_reduced(out, sum, n, reduction);
    return 0;
}

static lp params_for(const eir_tview *out) {
    lp p = {out->dtype, 0, 0, 0};
    return p;
}

/* mse_loss / l1_loss(self, target, reduction=mean) */
static int simple2(const char *op, elem_fn f, const eir_karg *a, uint32_t na, eir_tview *out, eir_kctx *ctx, double param) {
    if (na < 2 || a[0].kind != EIR_KA_TENSOR || a[1].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "%s: expected self and target", op);
    lp p = params_for(out);
    p.a = eir_round_f64(param, p.ct);
    const eir_tview *ins[2] = {a[0].t, a[1].t};
    return elementwise_loss(op, ins, 2, f, &p, iarg(a, na, 2, 1), out, ctx);
}
static int k_mse_loss(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return simple2("mse_loss", mse_e, a, na, o, c, 0); }
static int k_l1_loss(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return simple2("l1_loss", l1_e, a, na, o, c, 0); }
static int k_soft_margin_loss(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return simple2("soft_margin_loss", soft_margin_e, a, na, o, c, 0); }
/* smooth_l1_loss(self, target, reduction, beta=1.0): beta 0 is l1_loss */
static int k_smooth_l1_loss(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    double beta = farg(a, na, 3, 1.0);
    if (beta < 0) return eir_kerr(c, "smooth_l1_loss does not support negative values for beta.");
    return simple2("smooth_l1_loss", beta == 0 ? l1_e : smooth_l1_e, a, na, o, c, beta);
}
/* huber_loss(self, target, reduction, delta=1.0) */
static int k_huber_loss(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    double delta = farg(a, na, 3, 1.0);
    if (!(delta > 0)) return eir_kerr(c, "huber_loss does not support non-positive values for delta.");
    return simple2("huber_loss", huber_e, a, na, o, c, delta);
}

/* every element of t satisfies 0 <= v <= 1 (NaN does not) */
static bool in_unit_range(const eir_tview *t) {
    eir_iter it;
    const eir_tview *ops[1] = {t};
    eir_iter_init(&it, t->rank, t->sizes, 1, ops);
    char *p[1];
    int64_t len;
    while (eir_iter_next(&it, p, &len))
        for (int64_t j = 0; j < len; j++) {
            double v = eir_load_f64(p[0] + j * it.inner_stride[0], t->dtype);
            if (!(v >= 0 && v <= 1)) return false;
        }
    return true;
}

/* binary_cross_entropy(self, target, weight?, reduction=mean): the logs
 * clamped at -100 */
static int k_bce(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 2 || a[0].kind != EIR_KA_TENSOR || a[1].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "binary_cross_entropy: expected self and target");
    const eir_tview *w = targ(a, na, 2);
    if (!in_unit_range(a[0].t)) return eir_kerr(ctx, "all elements of input should be between 0 and 1");
    if (!in_unit_range(a[1].t)) return eir_kerr(ctx, "all elements of target should be between 0 and 1");
    lp p = params_for(out);
    p.flags = w ? 1 : 0;
    const eir_tview *ins[3] = {a[0].t, a[1].t, w};
    return elementwise_loss("binary_cross_entropy", ins, 3, bce_e, &p, iarg(a, na, 3, 1), out, ctx);
}
/* binary_cross_entropy_with_logits(self, target, weight?, pos_weight?, reduction=mean) */
static int k_bce_logits(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 2 || a[0].kind != EIR_KA_TENSOR || a[1].kind != EIR_KA_TENSOR)
        return eir_kerr(ctx, "binary_cross_entropy_with_logits: expected self and target");
    const eir_tview *w = targ(a, na, 2), *pw = targ(a, na, 3);
    lp p = params_for(out);
    p.flags = (w ? 1 : 0) | (pw ? 2 : 0);
    const eir_tview *ins[4] = {a[0].t, a[1].t, w, pw};
    return elementwise_loss("binary_cross_entropy_with_logits", ins, 4, bce_logits_e, &p, iarg(a, na, 4, 1), out, ctx);
}
/* kl_div(self, target, reduction=mean, *, log_target=False) */
static int k_kl_div(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 2 || a[0].kind != EIR_KA_TENSOR || a[1].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "kl_div: expected self and target");
    if (eir_is_complex(a[0].t->dtype) || eir_is_complex(a[1].t->dtype)) return eir_kerr(ctx, "kl_div: Complex inputs not supported.");
    if (!eir_is_floating(a[0].t->dtype) || !eir_is_floating(a[1].t->dtype)) return eir_kerr(ctx, "kl_div: Integral inputs not supported.");
    lp p = params_for(out);
    p.flags = iarg(a, na, 3, 0) ? 1 : 0;
    const eir_tview *ins[2] = {a[0].t, a[1].t};
    return elementwise_loss("kl_div", ins, 2, kl_div_e, &p, iarg(a, na, 2, 1), out, ctx);
}
/* poisson_nll_loss(input, target, log_input, full, eps, reduction) */
static int k_poisson_nll(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 6 || a[0].kind != EIR_KA_TENSOR || a[1].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "poisson_nll_loss: expected 6 arguments");
    lp p = params_for(out);
    p.flags = (a[2].i ? 1 : 0) | (a[3].i ? 2 : 0);
    p.a = eir_round_f64(farg(a, na, 4, 1e-8), p.ct);
    const eir_tview *ins[2] = {a[0].t, a[1].t};
    return elementwise_loss("poisson_nll_loss", ins, 2, poisson_e, &p, a[5].i, out, ctx);
}
/* margin_ranking_loss(input1, input2, target, margin=0, reduction=mean) */
static int k_margin_ranking(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 3 || !targ(a, na, 0) || !targ(a, na, 1) || !targ(a, na, 2)) return eir_kerr(ctx, "margin_ranking_loss: expected three tensors");
    lp p = params_for(out);
    p.a = eir_round_f64(farg(a, na, 3, 0), p.ct);
    const eir_tview *ins[3] = {a[0].t, a[1].t, a[2].t};
    return elementwise_loss("margin_ranking_loss", ins, 3, margin_rank_e, &p, iarg(a, na, 4, 1), out, ctx);
}
/* hinge_embedding_loss(self, target, margin=1.0, reduction=mean) */
static int k_hinge(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 2 || !targ(a, na, 0) || !targ(a, na, 1)) return eir_kerr(ctx, "hinge_embedding_loss: expected self and target");
    lp p = params_for(out);
    p.a = eir_round_f64(farg(a, na, 2, 1.0), p.ct);
    const eir_tview *ins[2] = {a[0].t, a[1].t};
    return elementwise_loss("hinge_embedding_loss", ins, 2, hinge_e, &p, iarg(a, na, 3, 1), out, ctx);
}

/* ---- per-sample losses ----------------------------------------------------
 * Losses with one value per sample (row) go through loss_values: none
 * writes them into out ([N], or 0-d for a single sample), mean / sum reduce. */

static void loss_values(const double *v, int64_t n, int64_t reduction, eir_tview *out) {
    if (reduction == 0) {
        for (int64_t i = 0; i < n; i++) {
            int64_t at[1] = {i};
            eir_store_f64(out->rank ? eir_tview_at(out, at) : out->data, out->dtype, v[i]);
        }
        return;
    }
    double s = 0;
    for (int64_t i = 0; i < n; i++) s += eir_round_f64(v[i], out->dtype);
    store_reduced(out, s, n, reduction);
}

/* element (i, d) of a [N, D] or [D] view */
static inline double at2(const eir_tview *t, int64_t i, int64_t d) {
    int64_t off = t->rank == 2 ? i * t->strides[0] + d * t->strides[1] : t->rank == 1 ? d * t->strides[0] : 0;
    return eir_load_f64((const char *)t->data + off * (int64_t)eir_elsize(t->dtype), t->dtype);
}

/* cosine_embedding_loss(input1, input2, target, margin=0, reduction=mean) */
static int k_cosine_embedding(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 3 || !targ(a, na, 0) || !targ(a, na, 1) || !targ(a, na, 2)) return eir_kerr(ctx, "cosine_embedding_loss: expected three tensors");
    const eir_tview *x1 = a[0].t, *x2 = a[1].t, *y = a[2].t;
    int64_t reduction = iarg(a, na, 4, 1);
    if (check_reduction("cosine_embedding_loss", reduction, ctx)) return -1;
    char s1[96], s2[96];
    if (y->rank > 1) return eir_kerr(ctx, "0D or 1D target tensor expected, multi-target not supported");
    if (y->rank == 1 && (x1->rank != 2 || x2->rank != 2))
        return eir_kerr(ctx, "1D target tensor expects 2D input tensors, but found inputs with sizes %s and %s.", eir_sizes_str(x1, s1, sizeof s1), eir_sizes_str(x2, s2, sizeof s2));
    if (y->rank == 0 && (x1->rank != 1 || x2->rank != 1))
        return eir_kerr(ctx, "0D target tensor expects 1D input tensors, but found inputs with sizes %s and %s.", eir_sizes_str(x1, s1, sizeof s1), eir_sizes_str(x2, s2, sizeof s2));
    int32_t rank;
    int64_t sz[EIR_MAX_RANK];
    const eir_tview *ins[2] = {x1, x2};
    if (broadcast_shape(ins, 2, &rank, sz, ctx)) return -1;
    eir_tview b1, b2;
    eir_tview_broadcast(x1, rank, sz, &b1);
    eir_tview_broadcast(x2, rank, sz, &b2);
    int64_t N = rank == 2 ? sz[0] : 1, D = sz[rank - 1];
    if (y->rank == 1 && y->sizes[0] != N)
        return eir_kerr(ctx, "The size of tensor a (%lld) must match the size of tensor b (%lld) at non-singleton dimension 0", (long long)N, (long long)y->sizes[0]);
    lp p = params_for(out);
    double margin = eir_round_f64(farg(a, na, 3, 0), p.ct), eps = eir_round_f64(1e-12, p.ct);
    double *v = eir_kalloc((size_t)(N > 0 ? N : 1) * sizeof *v);
    if (!v) return eir_kerr(ctx, "cosine_embedding_loss: out of memory");
    for (int64_t i = 0; i < N; i++) {
        double prod = 0, m1 = 0, m2 = 0;
        for (int64_t d = 0; d < D; d++) {
            double u = at2(&b1, i, d), w = at2(&b2, i, d);
            prod += R(u * w, &p);
            m1 += R(u * u, &p);
            m2 += R(w * w, &p);
        }
        m1 = R(R(m1, &p) + eps, &p);
        m2 = R(R(m2, &p) + eps, &p);
        double cosv = R(R(prod, &p) / R(sqrt(R(m1 * m2, &p)), &p), &p);
        double t = at2(y, 0, i);
        v[i] = R((t == 1 ? R(1 - cosv, &p) : 0.0) + (t == -1 ? clamp0(R(cosv - margin, &p)) : 0.0), &p);
    }
    loss_values(v, N, reduction, out);
    eir_kfree(v);
    return 0;
}

/* the p-norm of a row of (x1 - x2 + eps), as pairwise_distance */
static double pdist_row(const eir_tview *x1, const eir_tview *x2, int64_t i, int64_t D, double pn, double eps, const lp *p) {
    double acc = 0;
    for (int64_t d = 0; d < D; d++) {
        double v = fabs(R(R(at2(x1, i, d) - at2(x2, i, d), p) + eps, p));
        if (pn == 0) acc += v != 0;
        else if (isinf(pn)) acc = pn > 0 ? (v > acc || isnan(v) ? v : acc) : (d == 0 || v < acc || isnan(v) ? v : acc);
        else if (pn == 1) acc += v;
        else if (pn == 2) acc += v * v;
        else acc += pow(v, pn);
    }
    if (pn == 2) return R(sqrt(acc), p);
    if (pn == 0 || pn == 1 || isinf(pn)) return R(acc, p);
    return R(pow(acc, 1.0 / pn), p);
}
/* triplet_margin_loss(anchor, positive, negative, margin=1, p=2, eps=1e-6, swap=False, reduction=mean) */
static int k_triplet_margin(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 3 || !targ(a, na, 0) || !targ(a, na, 1) || !targ(a, na, 2)) return eir_kerr(ctx, "triplet_margin_loss: expected three tensors");
    const eir_tview *t[3] = {a[0].t, a[1].t, a[2].t};
    if (t[0]->rank != t[1]->rank || t[1]->rank != t[2]->rank)
        return eir_kerr(ctx, "The anchor, positive, and negative tensors are expected to have the same number of dimensions, but got: "
                             "anchor %dD, positive %dD, and negative %dD inputs", t[0]->rank, t[1]->rank, t[2]->rank);
    int64_t reduction = iarg(a, na, 7, 1);
    if (check_reduction("triplet_margin_loss", reduction, ctx)) return -1;
    int32_t rank;
    int64_t sz[EIR_MAX_RANK];
    if (broadcast_shape(t, 3, &rank, sz, ctx)) return -1;
    if (rank < 1 || rank > 2) return eir_kerr(ctx, "triplet_margin_loss: expected 1-d or 2-d inputs, got %dD", rank);
    eir_tview b[3];
    for (int k = 0; k < 3; k++) eir_tview_broadcast(t[k], rank, sz, &b[k]);
    lp p = params_for(out);
    double margin = eir_round_f64(farg(a, na, 3, 1.0), p.ct), pn = farg(a, na, 4, 2.0), eps = eir_round_f64(farg(a, na, 5, 1e-6), p.ct);
    bool swap = iarg(a, na, 6, 0) != 0;
    int64_t N = rank == 2 ? sz[0] : 1, D = sz[rank - 1];
    double *v = eir_kalloc((size_t)(N > 0 ? N : 1) * sizeof *v);
    if (!v) return eir_kerr(ctx, "triplet_margin_loss: out of memory");
    for (int64_t i = 0; i < N; i++) {
        double dp = pdist_row(&b[0], &b[1], i, D, pn, eps, &p), dn = pdist_row(&b[0], &b[2], i, D, pn, eps, &p);
        if (swap) {
            double ds = pdist_row(&b[1], &b[2], i, D, pn, eps, &p);
            dn = isnan(dn) || isnan(ds) ? NAN : (ds < dn ? ds : dn);
        }
        v[i] = clamp0(R(R(margin + dp, &p) - dn, &p));
    }
    loss_values(v, N, reduction, out);
    eir_kfree(v);
    return 0;
}

/* multi_margin_loss(self, target, p=1, margin=1, weight?, reduction=mean):
 * torch's kernel, per sample in the dtype, summed over samples in the
 * accumulate type (double below float64... and float64 itself) */
static int k_multi_margin(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 2 || !targ(a, na, 0) || !targ(a, na, 1)) return eir_kerr(ctx, "multi_margin_loss: expected self and target");
    const eir_tview *x = a[0].t, *tg = a[1].t, *w = targ(a, na, 4);
    int64_t pn = iarg(a, na, 2, 1), reduction = iarg(a, na, 5, 1);
    char s1[96];
    if (pn != 1 && pn != 2) return eir_kerr(ctx, "only p == 1 and p == 2 supported");
    if (check_reduction("multi_margin_loss", reduction, ctx)) return -1;
    if (!((x->rank <= 1 && eir_tview_numel(x) > 0) || (x->rank == 2 && x->sizes[1] > 0)))
        return eir_kerr(ctx, "Expected non-empty vector or matrix with optional 0-dim batch size, but got: %s", eir_sizes_str(x, s1, sizeof s1));
    int64_t nframe = x->rank <= 1 ? 1 : x->sizes[0], dim = x->rank == 0 ? 1 : x->sizes[x->rank - 1];
    if (tg->rank > 1 || eir_tview_numel(tg) != nframe)
        return eir_kerr(ctx, "inconsistent target size, expected %lld but got %s", (long long)nframe, eir_sizes_str(tg, s1, sizeof s1));
    if (w && (w->rank > 1 || eir_tview_numel(w) != dim))
        return eir_kerr(ctx, "inconsistent weight size, expected %lld but got %s", (long long)dim, eir_sizes_str(w, s1, sizeof s1));
    lp p = params_for(out);
    double margin = eir_round_f64(farg(a, na, 3, 1.0), p.ct);
    double *v = eir_kalloc((size_t)nframe * sizeof *v);
    if (!v) return eir_kerr(ctx, "multi_margin_loss: out of memory");
    for (int64_t i = 0; i < nframe; i++) {
        int64_t at[1] = {i};
        int64_t ti = eir_load_i64(tg->rank ? eir_tview_at(tg, at) : tg->data, tg->dtype);
        if (ti < 0 || ti >= dim) { eir_kfree(v); return eir_kerr(ctx, "target out of range"); }
        double xt = at2(x, i, ti), s = 0;
        for (int64_t d = 0; d < dim; d++) {
            if (d == ti) continue;
            double z = R(R(margin - xt, &p) + at2(x, i, d), &p);
            if (z > 0) {
                double h = pn == 1 ? z : R(z * z, &p);
                if (w) h = R(h * at2(w, 0, ti), &p);
                s = R(s + h, &p);
            }
        }
        v[i] = R(s / (double)dim, &p);
    }
    if (reduction == 0 && out->rank > 0) loss_values(v, nframe, 0, out);
    else {
        /* the accumulate type: double for float32/float64, float for the half types */
        double s = 0;
        bool half = p.ct == EIR_F16 || p.ct == EIR_BF16;
        for (int64_t i = 0; i < nframe; i++) s = half ? (float)(s + v[i]) : s + v[i];
        if (reduction == 1) s = half ? (float)(s / (double)nframe) : s / (double)nframe;
        eir_store_f64(out->data, out->dtype, s);
    }
    eir_kfree(v);
    return 0;
}

/* multilabel_margin_loss(self, target, reduction=mean) and
 * multilabel_margin_loss_forward(...) -> (output, is_target): each sample's
 * targets are the labels before its first -1 */
static int multilabel_margin(const eir_karg *a, uint32_t na, eir_tview *out, eir_tview *is_target, eir_kctx *ctx) {
    if (na < 2 || !targ(a, na, 0) || !targ(a, na, 1)) return eir_kerr(ctx, "multilabel_margin_loss: expected self and target");
    const eir_tview *x = a[0].t, *tg = a[1].t;
    int64_t reduction = iarg(a, na, 2, 1);
    char s1[96], s2[96];
    if (check_reduction("multilabel_margin_loss", reduction, ctx)) return -1;
    if (!((x->rank == 2 && x->sizes[1] != 0) || (x->rank == 1 && x->sizes[0] != 0) || x->rank == 0))
        return eir_kerr(ctx, "Expected non-empty vector or matrix with optional 0-dim batch size, but got: %s", eir_sizes_str(x, s1, sizeof s1));
    int64_t nframe = x->rank <= 1 ? 1 : x->sizes[0], dim = x->rank == 0 ? 1 : x->sizes[x->rank - 1];
    bool ok = x->rank <= 1 ? tg->rank <= 1 && eir_tview_numel(tg) == dim : tg->rank == 2 && tg->sizes[0] == nframe && tg->sizes[1] == dim;
    if (!ok) return eir_kerr(ctx, "inconsistent target size: %s for input of size: %s", eir_sizes_str(tg, s1, sizeof s1), eir_sizes_str(x, s2, sizeof s2));
    lp p = params_for(out);
    int64_t *t = eir_kalloc((size_t)(nframe * dim) * sizeof *t);
    uint8_t *mark = eir_kalloc((size_t)(nframe * dim));
    double *v = eir_kalloc((size_t)nframe * sizeof *v);
    int rc = 0;
    if (!t || !mark || !v) { rc = eir_kerr(ctx, "multilabel_margin_loss: out of memory"); goto done; }
    for (int64_t i = 0; i < nframe * dim; i++) {
        int64_t idx[2] = {i / dim, i % dim}, at1[1] = {i};
        const void *e = tg->rank == 2 ? eir_tview_at(tg, idx) : tg->rank == 1 ? eir_tview_at(tg, at1) : tg->data;
        t[i] = eir_load_i64(e, tg->dtype);
        if (t[i] < -1 || t[i] >= dim) { rc = eir_kerr(ctx, "argument #2 'target' is out of range"); goto done; }
    }
    memset(mark, 0, (size_t)(nframe * dim));
    for (int64_t i = 0; i < nframe; i++) {
        const int64_t *ti = t + i * dim;
        uint8_t *mi = mark + i * dim;
        for (int64_t k = 0; k < dim && ti[k] >= 0; k++) mi[ti[k]] = 1;
        double s = 0;
        for (int64_t k = 0; k < dim && ti[k] >= 0; k++) {
            double xt = at2(x, i, ti[k]);
            for (int64_t d = 0; d < dim; d++) {
                if (mi[d]) continue;
                double z = R(R(1 - xt, &p) + at2(x, i, d), &p);
                if (z > 0) s += z;
            }
        }
        v[i] = R(s, &p);  /* the per-sample sum, returned in the dtype */
    }
    if (reduction == 0 && out->rank > 0) {
        for (int64_t i = 0; i < nframe; i++) v[i] = R(v[i] / (double)dim, &p);
        loss_values(v, nframe, 0, out);
    } else {
        double s = 0;
        for (int64_t i = 0; i < nframe; i++) s += v[i];
        s /= (double)dim;
        if (reduction == 1) s /= (double)nframe;
        eir_store_f64(out->data, out->dtype, s);
    }
    if (is_target)
        for (int64_t i = 0; i < nframe * dim; i++) {
            int64_t idx[2] = {i / dim, i % dim}, at1[1] = {i};
            void *e = is_target->rank == 2 ? eir_tview_at(is_target, idx) : is_target->rank == 1 ? eir_tview_at(is_target, at1) : is_target->data;
            eir_store_f64(e, is_target->dtype, mark[i]);
        }
done:
    eir_kfree(t);
    eir_kfree(mark);
    eir_kfree(v);
    return rc;
}
static int k_multilabel_margin(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return multilabel_margin(a, na, o, NULL, c); }
static int k_multilabel_margin_fwd(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    return multilabel_margin(a, na, o, no > 1 ? &o[1] : NULL, c);
}

/* ---- nll_loss and cross_entropy_loss ---------------------------------------
 * Inputs are [N, C, *spatial] (or [C] with a 0-d target); sample s of n*S
 * is (n, spatial position s % S). */

typedef struct clsv {
    const eir_tview *t;
    int64_t N, C, S;           /* samples, classes, spatial positions per sample */
    int64_t nst, cst;          /* strides (elements) of the sample and class dims */
    int64_t *sp;               /* S offsets of the spatial positions */
} clsv;

/* x as [N, C, *] (class_dim 1) or [C] */
static int clsv_init(clsv *v, const eir_tview *x) {
    memset(v, 0, sizeof *v);
    v->t = x;
    bool mask[EIR_MAX_RANK] = {false};
    for (int32_t d = 2; d < x->rank; d++) mask[d] = true;
    if (x->rank <= 1) { v->N = 1; v->C = x->rank ? x->sizes[0] : 1; v->cst = x->rank ? x->strides[0] : 0; }
    else { v->N = x->sizes[0]; v->C = x->sizes[1]; v->nst = x->strides[0]; v->cst = x->strides[1]; }
    v->sp = eir_tview_offsets(x, mask, &v->S);
    return v->sp ? 0 : -1;
}
static inline char *clsv_at(const clsv *v, int64_t s, int64_t c) {
    int64_t n = s / v->S, off = n * v->nst + c * v->cst + v->sp[s % v->S];
    return (char *)v->t->data + off * (int64_t)eir_elsize(v->t->dtype);
}
/* target / per-sample outputs as [N, *spatial] (or 0-d) */
typedef struct smpv {
    const eir_tview *t;
    int64_t S, nst;
    int64_t *sp;
} smpv;
static int smpv_init(smpv *v, const eir_tview *t) {
    memset(v, 0, sizeof *v);
    v->t = t;
    bool mask[EIR_MAX_RANK] = {false};
    for (int32_t d = 1; d < t->rank; d++) mask[d] = true;
    v->nst = t->rank ? t->strides[0] : 0;
    v->sp = eir_tview_offsets(t, mask, &v->S);
    return v->sp ? 0 : -1;
}
static inline char *smpv_at(const smpv *v, int64_t s) {
    int64_t off = (s / v->S) * v->nst + v->sp[s % v->S];
    return (char *)v->t->data + off * (int64_t)eir_elsize(v->t->dtype);
}

/* utils::CeilLog2 */
static int64_t ceil_log2(int64_t x) {
    if (x <= 2) return 1;
    return 64 - __builtin_clzll((unsigned long long)(x - 1));
}

/* The negative log likelihood of x (log-probabilities, clsv) at the target
 * classes. reduction none with a batch writes per-sample losses into out;
 * otherwise out gets the sum (reduction none of a single 1-d sample, or
 * sum) or the weighted mean, by torch's cascade sum in the dtype.
 * total_weight, when given, gets the sum of the weights used. */
static int nll_core(const char *op, const clsv *x, const smpv *tg, const eir_tview *w, int64_t reduction, int64_t ignore,
                    bool batched_none, eir_tview *out, eir_tview *total_weight, eir_kctx *ctx) {
    lp p = {x->t->dtype, 0, 0, 0};
    int64_t count = x->N * x->S;
    size_t wes = w ? eir_elsize(w->dtype) : 0;
    if (batched_none) {
        smpv o;
        if (smpv_init(&o, out)) return eir_kerr(ctx, "%s: out of memory", op);
        int rc = 0;
        for (int64_t s = 0; s < count; s++) {
            int64_t t = eir_load_i64(smpv_at(tg, s), tg->t->dtype);
            double l = 0;
            if (t != ignore) {
                if (t < 0 || t >= x->C) { rc = eir_kerr(ctx, "Target %lld is out of bounds.", (long long)t); break; }
                double wv = w ? eir_load_f64((const char *)w->data + t * w->strides[0] * (int64_t)wes, w->dtype) : 1.0;
                l = R(-eir_load_f64(clsv_at(x, s, t), x->t->dtype) * wv, &p);
            }
            eir_store_f64(smpv_at(&o, s), out->dtype, l);
        }
        eir_kfree(o.sp);
        if (total_weight) eir_store_f64(total_weight->data, total_weight->dtype, 0);
        return rc;
    }
    if (count == 0) {
        eir_store_f64(out->data, out->dtype, reduction == 1 ? NAN : 0.0);
        if (total_weight) eir_store_f64(total_weight->data, total_weight->dtype, 0);
        return 0;
    }
    enum { LEVELS = 8 };
    int64_t power = ceil_log2(count) / LEVELS;
    if (power < 4) power = 4;
    int64_t mask = ((int64_t)1 << power) - 1, ignored = 0;
    double ws[LEVELS] = {0}, ls[LEVELS] = {0};
    for (int64_t s = 0; s < count; s++) {
        int64_t t = eir_load_i64(smpv_at(tg, s), tg->t->dtype);
        if (t == ignore) { ignored++; continue; }
        if (t < 0 || t >= x->C) return eir_kerr(ctx, "Target %lld is out of bounds.", (long long)t);
        double d = eir_load_f64(clsv_at(x, s, t), x->t->dtype);
        if (w) {
            double wv = eir_load_f64((const char *)w->data + t * w->strides[0] * (int64_t)wes, w->dtype);
            ls[0] = R(ls[0] - R(d * wv, &p), &p);
            ws[0] = R(ws[0] + wv, &p);
        } else {
            ls[0] = R(ls[0] - d, &p);
        }
        for (int j = 0; j + 1 < LEVELS; j++) {
            if (s & (mask << (j * power))) break;
            ws[j + 1] = R(ws[j + 1] + ws[j], &p);
            ls[j + 1] = R(ls[j + 1] + ls[j], &p);
            ws[j] = ls[j] = 0;
        }
    }
    double tw = 0, val = 0;
    if (w)
        for (int j = 0; j < LEVELS; j++) tw = R(tw + ws[j], &p);
    else
        tw = R((double)(count - ignored), &p);
    for (int j = 0; j < LEVELS; j++) val = R(val + ls[j], &p);
    if (reduction == 1) val = R(val / tw, &p);
    eir_store_f64(out->data, out->dtype, val);
    if (total_weight) eir_store_f64(total_weight->data, total_weight->dtype, tw);
    return 0;
}

/* shape checks shared by the nll_loss overloads; nd: nll_loss_nd's rules,
 * two_d: nll_loss2d's */
static int nll_checks(const eir_tview *x, const eir_tview *tg, const eir_tview *w, int form, eir_kctx *ctx) {
    char s1[96], s2[96];
    if (form == 0) {  /* nll_loss */
        if (x->rank < 1 || x->rank > 2) return eir_kerr(ctx, "input tensor should be 1D or 2D");
        if (tg->rank > 1) return eir_kerr(ctx, "0D or 1D target tensor expected, multi-target not supported");
        bool no_batch = x->rank == 1 && tg->rank == 0;
        if (!(no_batch || x->sizes[0] == tg->sizes[0]))
            return eir_kerr(ctx, "size mismatch (got input: %s, target: %s)", eir_sizes_str(x, s1, sizeof s1), eir_sizes_str(tg, s2, sizeof s2));
    } else if (form == 1) {  /* nll_loss2d */
        if (tg->rank != 3) return eir_kerr(ctx, "only batches of spatial targets supported (3D tensors) but got targets of size: %s", eir_sizes_str(tg, s1, sizeof s1));
        if (x->rank != 4) return eir_kerr(ctx, "only batches of spatial inputs supported (4D tensors), but got input of size: %s", eir_sizes_str(x, s1, sizeof s1));
        if (x->sizes[0] != tg->sizes[0] || x->sizes[2] != tg->sizes[1] || x->sizes[3] != tg->sizes[2])
            return eir_kerr(ctx, "size mismatch (got input: %s , target: %s", eir_sizes_str(x, s1, sizeof s1), eir_sizes_str(tg, s2, sizeof s2));
    } else {  /* nll_loss_nd */
        if (x->rank < 1) return eir_kerr(ctx, "Expected 1 or more dimensions (got %d)", x->rank);
        if (x->rank != 1 && (tg->rank < 1 || x->sizes[0] != tg->sizes[0]))
            return eir_kerr(ctx, "Expected input batch_size (%lld) to match target batch_size (%lld).", (long long)x->sizes[0],
                            (long long)(tg->rank ? tg->sizes[0] : 1));
        if (x->rank <= 2) return nll_checks(x, tg, w, 0, ctx);
        bool same = tg->rank == x->rank - 1;
        for (int32_t d = 2; same && d < x->rank; d++) same = tg->sizes[d - 1] == x->sizes[d];
        if (!same) {
            eir_tview want = *x;
            want.rank = x->rank - 1;
            for (int32_t d = 1; d < want.rank; d++) want.sizes[d] = x->sizes[d + 1];
            return eir_kerr(ctx, "Expected target size %s, got %s", eir_sizes_str(&want, s1, sizeof s1), eir_sizes_str(tg, s2, sizeof s2));
        }
    }
    int64_t C = x->rank == 1 ? x->sizes[0] : x->sizes[1];
    if (w && eir_tview_numel(w) != C)
        return eir_kerr(ctx, "weight tensor should be defined either for all %lld classes or no classes but got weight tensor of shape: %s",
                        (long long)C, eir_sizes_str(w, s1, sizeof s1));
    if (eir_is_floating(tg->dtype) || tg->dtype == EIR_BOOL)
        return eir_kerr(ctx, "expected scalar type Long but found %s", tname(tg->dtype));
    return 0;
}

/* x, target, weight, reduction, ignore_index -> out (and total_weight) */
static int nll_run(const char *op, const eir_tview *x, const eir_tview *tg, const eir_tview *w, int64_t reduction, int64_t ignore,
                   eir_tview *out, eir_tview *total_weight, eir_kctx *ctx) {
    if (check_reduction(op, reduction, ctx)) return -1;
    clsv cx;
    smpv st;
    if (clsv_init(&cx, x) || smpv_init(&st, tg)) { eir_kfree(cx.sp); return eir_kerr(ctx, "%s: out of memory", op); }
    bool batched_none = reduction == 0 && x->rank >= 2;
    int rc = nll_core(op, &cx, &st, w, reduction, ignore, batched_none, out, total_weight, ctx);
    eir_kfree(cx.sp);
    eir_kfree(st.sp);
    return rc;
}

static int nll_entry(int form, bool fwd, const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    static const char *const names[3] = {"nll_loss", "nll_loss2d", "nll_loss_nd"};
    if (na < 2 || !targ(a, na, 0) || !targ(a, na, 1)) return eir_kerr(ctx, "%s: expected self and target", names[form]);
    const eir_tview *x = a[0].t, *tg = a[1].t, *w = targ(a, na, 2);
    if (nll_checks(x, tg, w, form, ctx)) return -1;
    return nll_run(names[form], x, tg, w, iarg(a, na, 3, 1), iarg(a, na, 4, -100), out, fwd && no > 1 ? &out[1] : NULL, ctx);
}
static int k_nll_loss(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return nll_entry(0, false, a, na, o, no, c); }
static int k_nll_loss_fwd(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return nll_entry(0, true, a, na, o, no, c); }
static int k_nll_loss2d(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return nll_entry(1, false, a, na, o, no, c); }
static int k_nll_loss2d_fwd(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return nll_entry(1, true, a, na, o, no, c); }
static int k_nll_loss_nd(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return nll_entry(2, false, a, na, o, no, c); }

/* cross_entropy_loss(self, target, weight?, reduction=mean, ignore_index=-100, label_smoothing=0):
 * log_softmax over the class dim, then nll_loss_nd; with label smoothing
 * (1 - ls) * nll + ls / C * the smoothing loss; a floating target of
 * self's shape holds class probabilities */
static int k_cross_entropy(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 2 || !targ(a, na, 0) || !targ(a, na, 1)) return eir_kerr(ctx, "cross_entropy_loss: expected self and target");
    const eir_tview *x = a[0].t, *tg = a[1].t, *w = targ(a, na, 2);
    int64_t reduction = iarg(a, na, 3, 1), ignore = iarg(a, na, 4, -100);
    double ls = farg(a, na, 5, 0.0);
    if (check_reduction("cross_entropy_loss", reduction, ctx)) return -1;
    if (x->rank < 1) return eir_kerr(ctx, "Expected 1 or more dimensions (got %d)", x->rank);
    bool probs = tg->rank == x->rank;
    for (int32_t d = 0; probs && d < x->rank; d++) probs = tg->sizes[d] == x->sizes[d];
    if (probs) {
        if (!eir_is_floating(tg->dtype)) return eir_kerr(ctx, "Expected floating point type for target with class probabilities, got %s", tname(tg->dtype));
        if (ignore >= 0) return eir_kerr(ctx, "ignore_index is not supported for floating point target");
    }
    if (ls < 0 || ls > 1) return eir_kerr(ctx, "label_smoothing must be between 0.0 and 1.0. Got: %g", ls);
    int64_t class_dim = x->rank == 1 ? 0 : 1, C = x->sizes[class_dim];
    char s1[96];
    if (probs && w && (w->rank != 1 || w->sizes[0] != C))
        return eir_kerr(ctx, "cross_entropy: weight tensor should be defined either for all %lld classes or no classes but got weight tensor of shape: %s",
                        (long long)C, eir_sizes_str(w, s1, sizeof s1));
    if (!probs && nll_checks(x, tg, w, 2, ctx)) return -1;
    /* log_softmax(self, class_dim) into a contiguous scratch tensor */
    eir_tview lsm = *x;
    int64_t st = 1;
    for (int32_t d = x->rank - 1; d >= 0; d--) { lsm.strides[d] = st; st *= x->sizes[d]; }
    lsm.data = eir_kalloc((size_t)(st > 0 ? st : 1) * eir_elsize(x->dtype));
    if (!lsm.data) return eir_kerr(ctx, "cross_entropy_loss: out of memory");
    eir_karg la[3] = {a[0]};
    la[1].kind = EIR_KA_INT; la[1].i = class_dim;
    la[2].kind = EIR_KA_BOOL; la[2].i = 0;
    eir_kernel_fn lsf = eir_kernel_in(eir_kernels_reduce, "aten._log_softmax.default");
    int rc = lsf ? lsf(la, 3, &lsm, 1, ctx) : eir_kerr(ctx, "cross_entropy_loss: no log_softmax kernel");
    if (rc) { eir_kfree(lsm.data); return rc; }
    if (!probs && ls == 0) {
        rc = nll_run("cross_entropy_loss", &lsm, tg, w, reduction, ignore, out, NULL, ctx);
        eir_kfree(lsm.data);
        return rc;
    }
    lp p = {x->dtype, 0, 0, 0};
    clsv cx;
    smpv stg;
    if (clsv_init(&cx, &lsm) || smpv_init(&stg, tg)) { eir_kfree(cx.sp); eir_kfree(lsm.data); return eir_kerr(ctx, "cross_entropy_loss: out of memory"); }
    int64_t count = cx.N * cx.S;
    size_t wes = w ? eir_elsize(w->dtype) : 0;
    double *v = eir_kalloc((size_t)(count > 0 ? count : 1) * sizeof *v);
    if (!v) { rc = eir_kerr(ctx, "cross_entropy_loss: out of memory"); goto done; }
    if (probs) {
        /* -(log_softmax * target' * weight).sum(class_dim), target' = target * (1 - ls) + ls / C */
        clsv ct;
        if (clsv_init(&ct, tg)) { rc = eir_kerr(ctx, "cross_entropy_loss: out of memory"); goto done; }
        double total = 0;
        for (int64_t s = 0; s < count; s++) {
            double acc = 0;
            for (int64_t c = 0; c < C; c++) {
                double t = eir_load_f64(clsv_at(&ct, s, c), tg->dtype);
                if (ls > 0) t = R(R(t * (1 - ls), &p) + ls / (double)C, &p);
                double e = R(eir_load_f64(clsv_at(&cx, s, c), x->dtype) * t, &p);
                if (w) e = R(e * eir_load_f64((const char *)w->data + c * w->strides[0] * (int64_t)wes, w->dtype), &p);
                acc += e;
            }
            v[s] = -R(acc, &p);
            total += acc;
        }
        eir_kfree(ct.sp);
        if (reduction == 0) {
            smpv o;
            if (smpv_init(&o, out)) { rc = eir_kerr(ctx, "cross_entropy_loss: out of memory"); goto done; }
            for (int64_t s = 0; s < count; s++) eir_store_f64(x->rank == 1 ? out->data : smpv_at(&o, s), out->dtype, v[s]);
            eir_kfree(o.sp);
        } else if (reduction == 2) {
            eir_store_f64(out->data, out->dtype, -R(total, &p));
        } else {
            eir_store_f64(out->data, out->dtype, count == 0 ? NAN : R(-R(total, &p) / (double)count, &p));
        }
        goto done;
    }
    {
        /* label smoothing: nll on the log-probabilities, plus the smoothing
         * loss -sum_c(log_softmax (* weight)) of each non-ignored sample */
        eir_tview nll = *out;
        double nll_scalar = 0, *nllv = NULL;
        smpv o = {0};
        if (reduction == 0 && x->rank >= 2) {
            nllv = eir_kalloc((size_t)(count > 0 ? count : 1) * sizeof *nllv);
            if (!nllv) { rc = eir_kerr(ctx, "cross_entropy_loss: out of memory"); goto done; }
            /* a contiguous [N, *spatial] double tensor for nll's per-sample output */
            nll.dtype = EIR_F64;
            nll.data = nllv;
            int64_t s2 = 1;
            for (int32_t d = nll.rank - 1; d >= 0; d--) { nll.strides[d] = s2; s2 *= nll.sizes[d]; }
        } else {
            nll.dtype = EIR_F64;
            nll.rank = 0;
            nll.data = &nll_scalar;
        }
        rc = nll_run("cross_entropy_loss", &lsm, tg, w, reduction, ignore, &nll, NULL, ctx);
        if (rc) { eir_kfree(nllv); goto done; }
        double ssum = 0, wsum = 0;
        int64_t kept = 0;
        for (int64_t s = 0; s < count; s++) {
            int64_t t = eir_load_i64(smpv_at(&stg, s), tg->dtype);
            double acc = 0;
            for (int64_t c = 0; c < C; c++) {
                double e = eir_load_f64(clsv_at(&cx, s, c), x->dtype);
                if (w) e = R(e * eir_load_f64((const char *)w->data + c * w->strides[0] * (int64_t)wes, w->dtype), &p);
                acc += e;
            }
            v[s] = t == ignore ? 0.0 : -R(acc, &p);
            ssum += v[s];
            if (t != ignore) {
                kept++;
                if (w) wsum += eir_load_f64((const char *)w->data + t * w->strides[0] * (int64_t)wes, w->dtype);
            }
        }
        double k1 = R(1 - ls, &p), k2 = R(ls / (double)C, &p);
        if (nllv) {
            if (smpv_init(&o, out)) { eir_kfree(nllv); rc = eir_kerr(ctx, "cross_entropy_loss: out of memory"); goto done; }
            for (int64_t s = 0; s < count; s++)
                eir_store_f64(smpv_at(&o, s), out->dtype, R(R(k1 * R(nllv[s], &p), &p) + R(v[s] * k2, &p), &p));
            eir_kfree(o.sp);
            eir_kfree(nllv);
        } else {
            double ret = R(ssum, &p);
            if (reduction == 1) ret = R(ret / R(w ? wsum : (double)kept, &p), &p);
            if (reduction == 0) ret = v[0];
            eir_store_f64(out->data, out->dtype, R(R(k1 * R(nll_scalar, &p), &p) + R(ret * k2, &p), &p));
        }
    }
done:
    eir_kfree(v);
    eir_kfree(cx.sp);
    eir_kfree(stg.sp);
    eir_kfree(lsm.data);
    return rc;
}

/* ---- table ---------------------------------------------------------------- */

const eir_kernel_entry eir_kernels_loss[] = {
    {"aten.mse_loss.default", k_mse_loss},
    {"aten.l1_loss.default", k_l1_loss},
    {"aten.smooth_l1_loss.default", k_smooth_l1_loss},
    {"aten.huber_loss.default", k_huber_loss},
    {"aten.soft_margin_loss.default", k_soft_margin_loss},
    {"aten.binary_cross_entropy.default", k_bce},
    {"aten.binary_cross_entropy_with_logits.default", k_bce_logits},
    {"aten.kl_div.default", k_kl_div},
    {"aten.poisson_nll_loss.default", k_poisson_nll},
    {"aten.margin_ranking_loss.default", k_margin_ranking},
    {"aten.hinge_embedding_loss.default", k_hinge},
    {"aten.cosine_embedding_loss.default", k_cosine_embedding},
    {"aten.triplet_margin_loss.default", k_triplet_margin},
    {"aten.multi_margin_loss.default", k_multi_margin},
    {"aten.multilabel_margin_loss.default", k_multilabel_margin},
    {"aten.multilabel_margin_loss_forward.default", k_multilabel_margin_fwd},
    {"aten.nll_loss.default", k_nll_loss},
    {"aten.nll_loss_forward.default", k_nll_loss_fwd},
    {"aten.nll_loss2d.default", k_nll_loss2d},
    {"aten.nll_loss2d_forward.default", k_nll_loss2d_fwd},
    {"aten.nll_loss_nd.default", k_nll_loss_nd},
    {"aten.cross_entropy_loss.default", k_cross_entropy},
    {NULL, NULL},
};
