/* misc.c — kernel family: the remaining Core ATen forward ops and their
 * user-level forms.
 *
 *   distances    _cdist_forward / cdist (p = 0, 1, 2, inf, any p >= 0;
 *                compute_mode picks torch's matrix-product path for p = 2),
 *                _pdist_forward / pdist
 *   bags         _embedding_bag, _embedding_bag_forward_only, embedding_bag
 *                (sum / mean / max, offsets, per_sample_weights,
 *                include_last_offset, padding_idx, all four outputs)
 *   masking      masked_scatter
 *   creation     empty_strided (filled with zeros: torch leaves it
 *                uninitialized, eir keeps runs deterministic)
 *   batch norm   _native_batch_norm_legit (.default updates running_mean /
 *                running_var in place, as its schema's Tensor(a!) says),
 *                .no_stats, _native_batch_norm_legit_functional (returns the
 *                new running stats instead); the training mode of reduce.c's
 *                batch_norm / native_batch_norm (eir_batch_norm_training)
 *
 * Floating math accumulates in double (torch's CPU accumulate type for f32
 * reductions is double too) and rounds once into the output dtype. */
#include <stdio.h>
#include <stdlib.h>

#include "kutil.h"
#include "tables.h"

static const char *dname(eir_dtype d) { return eir_torch_dtype_name(d); }

static inline char *addr(const eir_tview *t, const int64_t *idx) { return (char *)eir_tview_at(t, idx); }

static bool next_index(int64_t *idx, const int64_t *sizes, int32_t rank) {
    for (int32_t i = rank - 1; i >= 0; i--) {
        if (++idx[i] < sizes[i]) return true;
        idx[i] = 0;
    }
    return false;
}

/* ======================================================================
 * cdist / pdist
 * ====================================================================== */

/* the p-norm of a difference vector, accumulated over calls */
typedef struct pacc { double p, acc; } pacc;

static inline void pacc_add(pacc *a, double d) {
    d = fabs(d);
    if (a->p == 0) a->acc += d != 0;
    else if (a->p == 1) a->acc += d;
    else if (a->p == 2) a->acc += d * d;
    else if (isinf(a->p)) a->acc = d > a->acc || isnan(d) ? d : a->acc;
    else a->acc += pow(d, a->p);
}

static inline double pacc_result(const pacc *a) {
    if (a->p == 0 || a->p == 1 || isinf(a->p)) return a->acc;
    if (a->p == 2) return sqrt(a->acc);
    return pow(a->acc, 1.0 / a->p);
}

static double scalar_p(const eir_karg *a) {
    return a->kind == EIR_KA_FLOAT ? a->f : (a->kind == EIR_KA_INT || a->kind == EIR_KA_SCALAR) ? a->s.f : 2.0;
}

/* _cdist_forward(x1, x2, p, compute_mode?) and cdist(x1, x2, p=2, compute_mode=None) */
static int k_cdist(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 2 || a[0].kind != EIR_KA_TENSOR || a[1].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "cdist: expected two tensors");
    const eir_tview *x1 = a[0].t, *x2 = a[1].t;
    double p = na > 2 ? scalar_p(&a[2]) : 2.0;
    int64_t mode = na > 3 && a[3].kind == EIR_KA_INT ? a[3].i : 0;
    if (x1->rank < 2) return eir_kerr(ctx, "cdist only supports at least 2D tensors, X1 got: %dD", x1->rank);
    if (x2->rank < 2) return eir_kerr(ctx, "cdist only supports at least 2D tensors, X2 got: %dD", x2->rank);
    if (x1->sizes[x1->rank - 1] != x2->sizes[x2->rank - 1])
        return eir_kerr(ctx, "X1 and X2 must have the same number of columns. X1: %lld X2: %lld",
                        (long long)x1->sizes[x1->rank - 1], (long long)x2->sizes[x2->rank - 1]);
    if (!(x1->dtype == EIR_F32 || x1->dtype == EIR_F64) || x2->dtype != x1->dtype)
        return eir_kerr(ctx, "cdist only supports floating-point dtypes, X1 got: %s, X2 got: %s", dname(x1->dtype), dname(x2->dtype));
    if (!(p >= 0)) return eir_kerr(ctx, "cdist only supports non-negative p values");
    if (mode < 0 || mode > 2) return eir_kerr(ctx, "possible modes: None, 'use_mm_for_euclid_dist_if_necessary', 'use_mm_for_euclid_dist', 'donot_use_mm_for_euclid_dist'");
    int32_t r = out->rank, nb = r - 2;
    if (r < 2) return eir_kerr(ctx, "cdist: output rank %d", r);
    int64_t P = x1->sizes[x1->rank - 2], R = x2->sizes[x2->rank - 2], M = x1->sizes[x1->rank - 1];
    if (out->sizes[r - 2] != P || out->sizes[r - 1] != R) return eir_kerr(ctx, "cdist: output shape does not fit the inputs");
    /* batch dims broadcast: views of x1/x2 batch parts aligned to out's */
    eir_tview b1, b2;
    memset(&b1, 0, sizeof b1);
    memset(&b2, 0, sizeof b2);
    b1.rank = b2.rank = nb;
    for (int32_t i = 0; i < nb; i++) {
        int32_t i1 = i - (nb - (x1->rank - 2)), i2 = i - (nb - (x2->rank - 2));
        b1.sizes[i] = b2.sizes[i] = out->sizes[i];
        b1.strides[i] = i1 >= 0 && x1->sizes[i1] != 1 ? x1->strides[i1] : 0;
        b2.strides[i] = i2 >= 0 && x2->sizes[i2] != 1 ? x2->strides[i2] : 0;
        if ((i1 >= 0 && x1->sizes[i1] != 1 && x1->sizes[i1] != out->sizes[i]) || (i2 >= 0 && x2->sizes[i2] != 1 && x2->sizes[i2] != out->sizes[i]))
            return eir_kerr(ctx, "cdist: batch dims of X1 and X2 do not broadcast to the output's");
    }
    if (eir_tview_numel(out) == 0) return 0;
    /* torch takes the |x|^2 + |y|^2 - 2 x.y route for p = 2 with many rows (or when asked) */
    bool mm = p == 2 && (mode == 1 || (mode == 0 && (P > 25 || R > 25)));
    size_t es = eir_elsize(x1->dtype), eo = eir_elsize(out->dtype);
    int64_t bidx[EIR_MAX_RANK] = {0};
    do {
        int64_t o1 = 0, o2 = 0, oo = 0;
        for (int32_t i = 0; i < nb; i++) { o1 += bidx[i] * b1.strides[i]; o2 += bidx[i] * b2.strides[i]; oo += bidx[i] * out->strides[i]; }
        const char *base1 = (const char *)x1->data + o1 * (int64_t)es, *base2 = (const char *)x2->data + o2 * (int64_t)es;
        int64_t s1r = x1->strides[x1->rank - 2], s1c = x1->strides[x1->rank - 1];
        int64_t s2r = x2->strides[x2->rank - 2], s2c = x2->strides[x2->rank - 1];
        for (int64_t i = 0; i < P; i++)
            for (int64_t j = 0; j < R; j++) {
                double res;
                if (mm) {
                    double n1 = 0, n2 = 0, dot = 0;
                    for (int64_t k = 0; k < M; k++) {
                        double u = eir_load_f64(base1 + (i * s1r + k * s1c) * (int64_t)es, x1->dtype);
                        double v = eir_load_f64(base2 + (j * s2r + k * s2c) * (int64_t)es, x2->dtype);
                        n1 += u * u; n2 += v * v; dot += u * v;
                    }
                    double d2 = n1 + n2 - 2 * dot;
                    res = sqrt(d2 > 0 ? d2 : 0);
                } else {
                    pacc acc = {p, 0};
                    for (int64_t k = 0; k < M; k++)
                        pacc_add(&acc, eir_load_f64(base1 + (i * s1r + k * s1c) * (int64_t)es, x1->dtype) -
                                           eir_load_f64(base2 + (j * s2r + k * s2c) * (int64_t)es, x2->dtype));
                    res = pacc_result(&acc);
                }
                eir_store_f64((char *)out->data + (oo + i * out->strides[r - 2] + j * out->strides[r - 1]) * (int64_t)eo, out->dtype, res);
            }
    } while (next_index(bidx, b1.sizes, nb));
    return 0;
}

/* _pdist_forward(self, p=2) and pdist(input, p=2): distances of rows i < j, row-major */
static int k_pdist(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 1 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "pdist: expected a tensor");
    const eir_tview *x = a[0].t;
    double p = na > 1 ? scalar_p(&a[1]) : 2.0;
    if (x->rank != 2) return eir_kerr(ctx, "pdist only supports 2D tensors, got: %dD", x->rank);
    if (x->dtype != EIR_F32 && x->dtype != EIR_F64) return eir_kerr(ctx, "pdist only supports floating-point dtypes");
    if (!(p >= 0)) return eir_kerr(ctx, "pdist only supports non-negative p values");
    int64_t N = x->sizes[0], M = x->sizes[1], np = N > 1 ? N * (N - 1) / 2 : 0;
    if (out->rank != 1 || out->sizes[0] != np) return eir_kerr(ctx, "pdist: output shape does not fit the input");
    size_t es = eir_elsize(x->dtype), eo = eir_elsize(out->dtype);
    int64_t k = 0;
    for (int64_t i = 0; i < N; i++)
        for (int64_t j = i + 1; j < N; j++, k++) {
            pacc acc = {p, 0};
            for (int64_t c = 0; c < M; c++)
                pacc_add(&acc, eir_load_f64((const char *)x->data + (i * x->strides[0] + c * x->strides[1]) * (int64_t)es, x->dtype) -
                                   eir_load_f64((const char *)x->data + (j * x->strides[0] + c * x->strides[1]) * (int64_t)es, x->dtype));
            eir_store_f64((char *)out->data + k * out->strides[0] * (int64_t)eo, out->dtype, pacc_result(&acc));
        }
    return 0;
}

/* ======================================================================
 * embedding bags
 * ====================================================================== */

static inline int64_t ld_i(const eir_tview *t, int64_t i) {
    return eir_load_i64((const char *)t->data + i * t->strides[0] * (int64_t)eir_elsize(t->dtype), t->dtype);
}
static inline void st_i(const eir_tview *t, int64_t i, int64_t v) {
    eir_store_i64((char *)t->data + i * t->strides[0] * (int64_t)eir_elsize(t->dtype), t->dtype, v);
}

/* (weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights, include_last_offset, padding_idx)
 * -> (output, offset2bag, bag_size, max_indices), with torch's CPU semantics:
 *   - bag b sums indices [offsets[b], offsets[b+1]) (the last bag runs to the end of indices);
 *   - offset2bag, bag_size and max mode use each index's bag as found by searching offsets, so with
 *     include_last_offset the last bag's count and max include any indices past the last offset;
 *   - bag_size and max_indices are zeros in sum mode; max_indices is bag_size in mean mode. */
static int embedding_bag(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx, bool has_pad) {
    if (na < 8 || a[0].kind != EIR_KA_TENSOR || a[1].kind != EIR_KA_TENSOR || a[2].kind != EIR_KA_TENSOR)
        return eir_kerr(ctx, "embedding_bag: expected weight, indices and offsets");
    if (no < 4) return eir_kerr(ctx, "embedding_bag: expected four outputs");
    const eir_tview *w = a[0].t, *ix = a[1].t, *off = a[2].t;
    int64_t mode = a[4].i;
    const eir_tview *psw = a[6].kind == EIR_KA_TENSOR ? a[6].t : NULL;
    bool ilo = a[7].i != 0;
    int64_t pad = has_pad && na > 8 && a[8].kind == EIR_KA_INT ? a[8].i : -1;
    if (w->rank != 2) return eir_kerr(ctx, "embedding_bag: weight has to be a 2D Tensor, but got Tensor of dimension %d", w->rank);
    if (ix->rank != 1) return eir_kerr(ctx, "embedding_bag: input has to be a 1D or 2D Tensor, but got Tensor of dimension %d", ix->rank);
    if (off->rank != 1) return eir_kerr(ctx, "embedding_bag: offsets has to be a 1D Tensor, but got Tensor of dimension %d", off->rank);
    if ((ix->dtype != EIR_I64 && ix->dtype != EIR_I32) || (off->dtype != EIR_I64 && off->dtype != EIR_I32))
        return eir_kerr(ctx, "embedding_bag: expected indices and offsets of type Long or Int, got %s and %s", dname(ix->dtype), dname(off->dtype));
    if (!(w->dtype == EIR_F32 || w->dtype == EIR_F64 || w->dtype == EIR_F16 || w->dtype == EIR_BF16))
        return eir_kerr(ctx, "\"embedding_bag\" not implemented for '%s'", dname(w->dtype));
    if (mode < 0 || mode > 2) return eir_kerr(ctx, "embedding_bag: unknown mode %lld", (long long)mode);
    if (psw && mode != 0)
        return eir_kerr(ctx, "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' (got mode='%s'). Please open a feature request on GitHub.", mode == 1 ? "mean" : "max");
    int64_t V = w->sizes[0], D = w->sizes[1], L = ix->sizes[0], NO = off->sizes[0];
    if (psw && (psw->rank != 1 || psw->sizes[0] != L))
        return eir_kerr(ctx, "embedding_bag: expected per_sample_weights to be 1D with the same number of elements as indices");
    int64_t B = ilo ? NO - 1 : NO;
    if (B < 0) B = 0;
    eir_tview *y = &out[0], *o2b = &out[1], *bsz = &out[2], *mxi = &out[3];
    if (y->rank != 2 || y->sizes[0] != B || y->sizes[1] != D) return eir_kerr(ctx, "embedding_bag: output shape does not fit the inputs");
    if (NO > 0 && ld_i(off, 0) != 0)
        return eir_kerr(ctx, "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. However, got %lld", (long long)ld_i(off, 0));
    for (int64_t b = 1; b < NO; b++)
        if (ld_i(off, b) < ld_i(off, b - 1)) return eir_kerr(ctx, "embedding_bag: offsets must be non-decreasing, but offsets[%lld] = %lld < offsets[%lld] = %lld",
                                                           (long long)b, (long long)ld_i(off, b), (long long)(b - 1), (long long)ld_i(off, b - 1));
    if (NO > 0 && ld_i(off, NO - 1) > L)
        return eir_kerr(ctx, "offsets[-1] can not be greater than input's length %lld but got offsets[-1] of %lld", (long long)L, (long long)ld_i(off, NO - 1));
    for (int64_t i = 0; i < L; i++) {
        int64_t v = ld_i(ix, i);
        if (v < 0 || v >= V) {
            if (mode == 2) return eir_kerr(ctx, "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be %lld", (long long)v);
            return eir_kerr(ctx, "Index %lld of input takes value %lld which is not in the valid range [0, %lld)", (long long)i, (long long)v, (long long)V);
        }
    }
    size_t wes = eir_elsize(w->dtype), yes = eir_elsize(y->dtype);
    double *acc = calloc((size_t)(B * D > 0 ? B * D : 1), sizeof *acc);
    int64_t *bag = malloc((size_t)(L > 0 ? L : 1) * sizeof *bag), *cnt = calloc((size_t)(B > 0 ? B : 1), sizeof *cnt);
    int64_t *amax = mode == 2 ? calloc((size_t)(B * D > 0 ? B * D : 1), sizeof *amax) : NULL;
    if (!acc || !bag || !cnt || (mode == 2 && !amax)) {
        free(acc); free(bag); free(cnt); free(amax);
        return eir_kerr(ctx, "embedding_bag: out of memory");
    }
    /* each index's bag: the last bag whose offset is <= i (empty bags lose to the one after them) */
    for (int64_t i = 0, b = 0; i < L; i++) {
        while (b + 1 < NO && ld_i(off, b + 1) <= i) b++;
        bag[i] = b < B ? b : B - 1;
        if (bag[i] >= 0 && ld_i(ix, i) != pad) cnt[bag[i]]++;
    }
    if (mode == 2) {
        bool *seen = calloc((size_t)(B > 0 ? B : 1), sizeof *seen);
        if (!seen) { free(acc); free(bag); free(cnt); free(amax); return eir_kerr(ctx, "embedding_bag: out of memory"); }
        for (int64_t i = 0; i < L; i++) {
            int64_t b = bag[i], v = ld_i(ix, i);
            if (b < 0 || v == pad) continue;
            for (int64_t d = 0; d < D; d++) {
                double x = eir_load_f64((const char *)w->data + (v * w->strides[0] + d * w->strides[1]) * (int64_t)wes, w->dtype);
                if (!seen[b] || x > acc[b * D + d]) { acc[b * D + d] = x; amax[b * D + d] = v; }
            }
            seen[b] = true;
        }
        free(seen);
    } else {
        /* torch's fast path (float/half/bfloat16 weights, no padding_idx) bounds each bag by the
         * offsets; its generic path adds every index into its offset2bag bag. They differ only when
         * include_last_offset leaves indices past the last offset (the generic path counts them). */
        bool fast = (w->dtype == EIR_F32 || w->dtype == EIR_F16 || w->dtype == EIR_BF16) && pad < 0;
        for (int64_t b = 0; b < B; b++) {
            int64_t s = ld_i(off, b), e = b + 1 < NO ? ld_i(off, b + 1) : L;
            for (int64_t i = fast ? s : 0; i < (fast ? e : L); i++) {
                int64_t v = ld_i(ix, i);
                if (v == pad || (!fast && bag[i] != b)) continue;
                double sc = psw ? eir_load_f64((const char *)psw->data + i * psw->strides[0] * (int64_t)eir_elsize(psw->dtype), psw->dtype) : 1.0;
                for (int64_t d = 0; d < D; d++)
                    acc[b * D + d] += sc * eir_load_f64((const char *)w->data + (v * w->strides[0] + d * w->strides[1]) * (int64_t)wes, w->dtype);
            }
            /* both paths divide by the offset2bag count */
            if (mode == 1 && cnt[b] > 0)
                for (int64_t d = 0; d < D; d++) acc[b * D + d] /= (double)cnt[b];
        }
    }
    for (int64_t b = 0; b < B; b++)
        for (int64_t d = 0; d < D; d++)
            eir_store_f64((char *)y->data + (b * y->strides[0] + d * y->strides[1]) * (int64_t)yes, y->dtype, acc[b * D + d]);
    /* the index outputs have whatever sizes torch's meta gave them (offset2bag is empty with per_sample_weights) */
    if (o2b->rank == 1) for (int64_t i = 0; i < o2b->sizes[0]; i++) st_i(o2b, i, i < L ? bag[i] : 0);
    if (bsz->rank == 1) for (int64_t b = 0; b < bsz->sizes[0]; b++) st_i(bsz, b, mode == 0 || b >= B ? 0 : cnt[b]);
    if (mode == 2 && mxi->rank == 2) {
        for (int64_t b = 0; b < mxi->sizes[0]; b++)
            for (int64_t d = 0; d < mxi->sizes[1]; d++) {
                int64_t idx2[2] = {b, d};
                eir_store_i64(addr(mxi, idx2), mxi->dtype, b < B && d < D ? amax[b * D + d] : 0);
            }
    } else if (mxi->rank == 1) {
        for (int64_t b = 0; b < mxi->sizes[0]; b++) st_i(mxi, b, mode == 1 && b < B ? cnt[b] : 0);
    }
    free(acc); free(bag); free(cnt); free(amax);
    return 0;
}

static int k_embedding_bag_pad(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    return embedding_bag(a, na, o, no, c, true);
}
static int k_embedding_bag_nopad(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    return embedding_bag(a, na, o, no, c, false);
}

/* ======================================================================
 * masked_scatter(self, mask, source): the mask's true positions (row-major,
 * self and mask broadcast together) take source's elements in order
 * ====================================================================== */

static int k_masked_scatter(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 3 || a[0].kind != EIR_KA_TENSOR || a[1].kind != EIR_KA_TENSOR || a[2].kind != EIR_KA_TENSOR)
        return eir_kerr(ctx, "masked_scatter: expected self, mask and source tensors");
    const eir_tview *x = a[0].t, *m = a[1].t, *src = a[2].t;
    if (m->dtype != EIR_BOOL) return eir_kerr(ctx, "masked_scatter_ only supports boolean masks, but got mask with dtype %s", dname(m->dtype));
    if (src->dtype != x->dtype)
        return eir_kerr(ctx, "masked_scatter: expected self and source to have same dtypes but got%s and %s", dname(x->dtype), dname(src->dtype));
    eir_tview xb, mb;
    if (!eir_tview_broadcast(x, out->rank, out->sizes, &xb) || !eir_tview_broadcast(m, out->rank, out->sizes, &mb))
        return eir_kerr(ctx, "masked_scatter: self and mask do not broadcast to the output's shape");
    int64_t n = eir_tview_numel(out), ns = eir_tview_numel(src), ones = 0;
    int64_t idx[EIR_MAX_RANK] = {0};
    if (n > 0)
        do ones += *(const uint8_t *)addr(&mb, idx) != 0;
        while (next_index(idx, out->sizes, out->rank));
    if (ones > ns) return eir_kerr(ctx, "Number of elements of source < number of ones in mask");
    size_t es = eir_elsize(out->dtype);
    int64_t sidx[EIR_MAX_RANK] = {0};
    memset(idx, 0, sizeof idx);
    if (n > 0)
        do {
            const char *from;
            if (*(const uint8_t *)addr(&mb, idx)) {
                from = addr(src, sidx);
                next_index(sidx, src->sizes, src->rank);
            } else {
                from = addr(&xb, idx);
            }
            memcpy(addr(out, idx), from, es);
        } while (next_index(idx, out->sizes, out->rank));
    return 0;
}

/* empty_strided(size, stride, dtype?, layout?, device?, pin_memory?): zeros in the recorded layout */
static int k_empty_strided(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    int64_t n = eir_tview_numel(out);
    if (n == 0) return 0;
    size_t es = eir_elsize(out->dtype);
    int64_t idx[EIR_MAX_RANK] = {0};
    do memset(addr(out, idx), 0, es);
    while (next_index(idx, out->sizes, out->rank));
    return 0;
}

/* ======================================================================
 * batch norm with batch statistics (training) or running statistics
 * ====================================================================== */

typedef struct bn_io {
    const eir_tview *x, *w, *b, *rm, *rv;    /* rm/rv may be NULL (no_stats) */
    bool training;
    double momentum, eps;
    eir_tview *y, *save_mean, *save_invstd;
    const eir_tview *rm_out, *rv_out;         /* where the new running stats go (in place or functional outputs) */
} bn_io;

static double ld1(const eir_tview *t, int64_t c) {
    return eir_load_f64((const char *)t->data + c * t->strides[0] * (int64_t)eir_elsize(t->dtype), t->dtype);
}
static void st1(const eir_tview *t, int64_t c, double v) {
    eir_store_f64((char *)t->data + c * t->strides[0] * (int64_t)eir_elsize(t->dtype), t->dtype, v);
}

static int bn_run(eir_kctx *ctx, const char *op, const bn_io *io) {
    const eir_tview *x = io->x;
    if (x->rank < 2) return eir_kerr(ctx, "%s: expected an input with at least 2 dims (N, C, ...), got %dD", op, x->rank);
    if (!(x->dtype == EIR_F32 || x->dtype == EIR_F64 || x->dtype == EIR_F16 || x->dtype == EIR_BF16))
        return eir_kerr(ctx, "\"batch_norm\" not implemented for '%s'", dname(x->dtype));
    int64_t C = x->sizes[1], n = eir_tview_numel(x), per = C ? n / C : 0;
    if (n == 0 && io->training) {
        char shape[160];
        int k = 0;
        for (int32_t i = 0; i < x->rank && k < (int)sizeof shape - 24; i++)
            k += snprintf(shape + k, sizeof shape - (size_t)k, "%s%lld", i ? ", " : "", (long long)x->sizes[i]);
        return eir_kerr(ctx, "input tensor must have at least one element, but got input_sizes = [%s]", shape);
    }
    const eir_tview *vecs[5] = {io->w, io->b, io->rm, io->rv, NULL};
    const char *names[4] = {"weight", "bias", "running_mean", "running_var"};
    for (int i = 0; i < 4; i++)
        if (vecs[i] && (vecs[i]->rank != 1 || vecs[i]->sizes[0] != C))
            return eir_kerr(ctx, "%s should contain %lld elements not %lld", names[i], (long long)C,
                            (long long)(vecs[i]->rank == 1 ? vecs[i]->sizes[0] : eir_tview_numel(vecs[i])));
    if (!io->training && (!io->rm || !io->rv))
        return eir_kerr(ctx, "%s: running_mean and running_var must be defined in evaluation mode", op);
    if (io->y->rank != x->rank) return eir_kerr(ctx, "%s: output shape does not fit the input", op);
    /* dims other than 1, iterated as (dim 0, dims 2..) */
    int64_t osz[EIR_MAX_RANK];
    int32_t orank = 0;
    osz[orank++] = x->sizes[0];
    for (int32_t i = 2; i < x->rank; i++) osz[orank++] = x->sizes[i];
    for (int64_t c = 0; c < C; c++) {
        double mean, invstd;
        if (io->training) {
            double s = 0, ss = 0;
            int64_t idx[EIR_MAX_RANK] = {0}, o[EIR_MAX_RANK] = {0};
            do {
                idx[0] = o[0]; idx[1] = c;
                for (int32_t i = 2; i < x->rank; i++) idx[i] = o[i - 1];
                s += eir_load_f64(eir_tview_at(x, idx), x->dtype);
            } while (next_index(o, osz, orank));
            mean = s / (double)per;
            memset(o, 0, sizeof o);
            do {
                idx[0] = o[0]; idx[1] = c;
                for (int32_t i = 2; i < x->rank; i++) idx[i] = o[i - 1];
                double d = eir_load_f64(eir_tview_at(x, idx), x->dtype) - mean;
                ss += d * d;
            } while (next_index(o, osz, orank));
            double var = ss / (double)per;
            invstd = 1.0 / sqrt(var + io->eps);
            if (io->save_mean && io->save_mean->rank == 1 && io->save_mean->sizes[0] == C) st1(io->save_mean, c, mean);
            if (io->save_invstd && io->save_invstd->rank == 1 && io->save_invstd->sizes[0] == C) st1(io->save_invstd, c, invstd);
            if (io->rm && io->rm_out) st1(io->rm_out, c, io->momentum * mean + (1 - io->momentum) * ld1(io->rm, c));
            if (io->rv && io->rv_out)
                st1(io->rv_out, c, io->momentum * ss / (double)(per - 1) + (1 - io->momentum) * ld1(io->rv, c));
        } else {
            mean = ld1(io->rm, c);
            invstd = 1.0 / sqrt(ld1(io->rv, c) + io->eps);
            if (io->rm_out) st1(io->rm_out, c, ld1(io->rm, c));
            if (io->rv_out) st1(io->rv_out, c, ld1(io->rv, c));
        }
        double wv = io->w ? ld1(io->w, c) : 1, bv = io->b ? ld1(io->b, c) : 0;
        if (per == 0) continue;
        int64_t idx[EIR_MAX_RANK] = {0}, o[EIR_MAX_RANK] = {0};
        do {
            idx[0] = o[0]; idx[1] = c;
            for (int32_t i = 2; i < x->rank; i++) idx[i] = o[i - 1];
            double v = eir_load_f64(eir_tview_at(x, idx), x->dtype);
            eir_store_f64(eir_tview_at(io->y, idx), io->y->dtype, (v - mean) * invstd * wv + bv);
        } while (next_index(o, osz, orank));
    }
    return 0;
}

int eir_batch_norm_training(eir_kctx *ctx, const char *op, const eir_tview *x, const eir_tview *w, const eir_tview *b,
                            const eir_tview *rm, const eir_tview *rv, double momentum, double eps, eir_tview *y,
                            eir_tview *save_mean, eir_tview *save_invstd) {
    bn_io io = {x, w, b, rm, rv, true, momentum, eps, y, save_mean, save_invstd, rm, rv};
    return bn_run(ctx, op, &io);
}

static const eir_tview *opt_t(const eir_karg *a) { return a->kind == EIR_KA_TENSOR ? a->t : NULL; }

/* _native_batch_norm_legit(input, weight?, bias?, Tensor(a!) running_mean, Tensor(b!) running_var, training, momentum, eps) */
static int k_bn_legit(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 8 || no < 3 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "_native_batch_norm_legit: expected 8 arguments and 3 outputs");
    bn_io io = {a[0].t, opt_t(&a[1]), opt_t(&a[2]), opt_t(&a[3]), opt_t(&a[4]), a[5].i != 0, a[6].f, a[7].f, &out[0], &out[1], &out[2], NULL, NULL};
    if (io.training) { io.rm_out = io.rm; io.rv_out = io.rv; } /* the schema's in-place update */
    return bn_run(ctx, "_native_batch_norm_legit", &io);
}

/* _native_batch_norm_legit.no_stats(input, weight?, bias?, training, momentum, eps) */
static int k_bn_legit_no_stats(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 6 || no < 3 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "_native_batch_norm_legit: expected 6 arguments and 3 outputs");
    bn_io io = {a[0].t, opt_t(&a[1]), opt_t(&a[2]), NULL, NULL, a[3].i != 0, a[4].f, a[5].f, &out[0], &out[1], &out[2], NULL, NULL};
    return bn_run(ctx, "_native_batch_norm_legit.no_stats", &io);
}

/* _native_batch_norm_legit_functional(input, weight?, bias?, running_mean, running_var, training, momentum, eps)
 * -> (out, save_mean, save_invstd, running_mean_out, running_var_out) */
static int k_bn_legit_functional(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 8 || no < 5 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "_native_batch_norm_legit_functional: expected 8 arguments and 5 outputs");
    bn_io io = {a[0].t, opt_t(&a[1]), opt_t(&a[2]), opt_t(&a[3]), opt_t(&a[4]), a[5].i != 0, a[6].f, a[7].f, &out[0], &out[1], &out[2], &out[3], &out[4]};
    return bn_run(ctx, "_native_batch_norm_legit_functional", &io);
}

const eir_kernel_entry eir_kernels_misc[] = {
    {"aten._cdist_forward.default", k_cdist},
    {"aten.cdist.default", k_cdist},
    {"aten._pdist_forward.default", k_pdist},
    {"aten.pdist.default", k_pdist},
    {"aten._embedding_bag.default", k_embedding_bag_pad},
    {"aten._embedding_bag_forward_only.default", k_embedding_bag_pad},
    {"aten.embedding_bag.padding_idx", k_embedding_bag_pad},
    {"aten.embedding_bag.default", k_embedding_bag_nopad},
    {"aten.masked_scatter.default", k_masked_scatter},
    {"aten.empty_strided.default", k_empty_strided},
    {"aten._native_batch_norm_legit.default", k_bn_legit},
    {"aten._native_batch_norm_legit.no_stats", k_bn_legit_no_stats},
    {"aten._native_batch_norm_legit_functional.default", k_bn_legit_functional},
    {NULL, NULL},
};
