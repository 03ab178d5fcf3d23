/* fft.c — kernel family: discrete Fourier transforms.
 *
 *   core ops   _fft_r2c, _fft_c2r, _fft_c2c (what run_decompositions leaves)
 *   user ops   fft_fft / ifft / rfft / irfft / hfft / ihfft, the 2-d and n-d
 *              forms fft2 / ifft2 / rfft2 / irfft2 / fftn / ifftn / rfftn /
 *              irfftn (what torch.export keeps without decompositions):
 *              input padded or trimmed to the signal sizes, norm strings
 *
 * The transform itself is a small mixed-radix FFT in double precision
 * (radix 4 and 2 butterflies, a generic butterfly for other factors up to
 * 64) with Bluestein's chirp-z algorithm for lengths with a larger prime
 * factor, so every length costs O(n log n). Why hand-written: see
 * docs/DEPENDENCIES.md (Debian's permissive FFT, kissfft, is float-only;
 * FFTW is GPL). f32 and complex64 are computed in double and rounded once,
 * which is at least as accurate as torch's pocketfft in float.
 *
 * Multi-dimensional transforms copy the input into one complex double work
 * array shaped like the signal, transform it one dim at a time (line by
 * line), then scale and store into the output's recorded layout. c2r
 * transforms the other dims first, then extends each last-dim line to its
 * Hermitian full spectrum and keeps the real part, as pocketfft's c2r does
 * (the imaginary parts of the DC and Nyquist bins are ignored). */
#include <stdio.h>
#include <stdlib.h>

#include "kutil.h"
#include "tables.h"

static const char *dname(eir_dtype d) { return eir_torch_dtype_name(d); }

/* ======================================================================
 * 1-d complex FFT (forward, e^{-2 pi i jk/n}); inverse via conjugation
 * ====================================================================== */

typedef struct cpx { double re, im; } cpx;

static inline cpx cmul(cpx a, cpx b) { return (cpx){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
static inline cpx cadd(cpx a, cpx b) { return (cpx){a.re + b.re, a.im + b.im}; }
static inline cpx csub(cpx a, cpx b) { return (cpx){a.re - b.re, a.im - b.im}; }

#define FFT_MAX_DIRECT_PRIME 64

typedef struct fft_plan {
    int64_t n;
    int64_t fac[2 * 64];   /* (radix, remaining length) pairs, as in kissfft */
    cpx *tw;               /* tw[k] = e^{-2 pi i k/n} */
    cpx *scratch;          /* generic butterfly: max radix */
    /* Bluestein (n has a prime factor > FFT_MAX_DIRECT_PRIME) */
    struct fft_plan *sub;  /* power-of-two plan of length m >= 2n - 1 */
    cpx *chirp;            /* e^{-pi i k^2/n}, k < n */
    cpx *filt;             /* FFT_m of the conjugate chirp, arranged circularly */
    cpx *work;             /* m */
} fft_plan;

static void plan_free(fft_plan *p) {
    if (!p) return;
    free(p->tw); free(p->scratch); free(p->chirp); free(p->filt); free(p->work);
    plan_free(p->sub);
    free(p);
}

static cpx expi(double turns_num, double turns_den) {
    /* e^{-2 pi i num/den} with num reduced below den by the caller: exact arguments */
    double a = -2.0 * M_PI * turns_num / turns_den;
    return (cpx){cos(a), sin(a)};
}

static fft_plan *plan_new(int64_t n);

static bool factor(int64_t n, int64_t *fac) {
    int64_t p = 4, k = 0;
    double lim = floor(sqrt((double)n));
    do {
        while (n % p) {
            switch (p) {
            case 4: p = 2; break;
            case 2: p = 3; break;
            default: p += 2; break;
            }
            if (p > lim) p = n;
        }
        if (p > FFT_MAX_DIRECT_PRIME) return false;
        n /= p;
        fac[k++] = p;
        fac[k++] = n;
    } while (n > 1);
    return true;
}

static fft_plan *plan_new(int64_t n) {
    fft_plan *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->n = n;
    if (n <= 1) return p;
    if (factor(n, p->fac)) {
        p->tw = malloc((size_t)n * sizeof *p->tw);
        p->scratch = malloc(FFT_MAX_DIRECT_PRIME * sizeof *p->scratch);
        if (!p->tw || !p->scratch) { plan_free(p); return NULL; }
        for (int64_t k = 0; k < n; k++) p->tw[k] = expi((double)k, (double)n);
        return p;
    }
    int64_t m = 1;
    while (m < 2 * n - 1) m <<= 1;
    p->sub = plan_new(m);
    p->chirp = malloc((size_t)n * sizeof *p->chirp);
    p->filt = calloc((size_t)m, sizeof *p->filt);
    p->work = malloc((size_t)m * sizeof *p->work);
    if (!p->sub || !p->chirp || !p->filt || !p->work) { plan_free(p); return NULL; }
    for (int64_t k = 0; k < n; k++) {
        /* k^2 mod 2n keeps the angle small and exact */
        int64_t q = (int64_t)(((__int128)k * k) % (2 * n));
        p->chirp[k] = expi((double)q, (double)(2 * n));
    }
    p->filt[0] = (cpx){p->chirp[0].re, -p->chirp[0].im};
    for (int64_t k = 1; k < n; k++) p->filt[k] = p->filt[m - k] = (cpx){p->chirp[k].re, -p->chirp[k].im};
    return p;
}

static void fft_exec(const fft_plan *p, const cpx *in, int64_t istride, cpx *out);

static void bfly2(cpx *out, int64_t fstride, const fft_plan *p, int64_t m) {
    for (int64_t u = 0; u < m; u++) {
        cpx t = cmul(out[u + m], p->tw[u * fstride]);
        out[u + m] = csub(out[u], t);
        out[u] = cadd(out[u], t);
    }
}

static void bfly4(cpx *out, int64_t fstride, const fft_plan *p, int64_t m) {
    for (int64_t u = 0; u < m; u++) {
        cpx s0 = cmul(out[u + m], p->tw[u * fstride]);
        cpx s1 = cmul(out[u + 2 * m], p->tw[2 * u * fstride]);
        cpx s2 = cmul(out[u + 3 * m], p->tw[3 * u * fstride]);
        cpx s5 = csub(out[u], s1);
        cpx a0 = cadd(out[u], s1);
        cpx s3 = cadd(s0, s2), s4 = csub(s0, s2);
        out[u + 2 * m] = csub(a0, s3);
        out[u] = cadd(a0, s3);
        out[u + m] = (cpx){s5.re + s4.im, s5.im - s4.re};
        out[u + 3 * m] = (cpx){s5.re - s4.im, s5.im + s4.re};
    }
}

static void bfly_generic(cpx *out, int64_t fstride, const fft_plan *p, int64_t m, int64_t r) {
    cpx *s = p->scratch;
    int64_t n = p->n;
    for (int64_t u = 0; u < m; u++) {
        for (int64_t q = 0; q < r; q++) s[q] = out[u + q * m];
        for (int64_t q1 = 0; q1 < r; q1++) {
            int64_t k = u + q1 * m, ti = 0;
            cpx acc = s[0];
            for (int64_t q = 1; q < r; q++) {
                ti += fstride * k;
                ti %= n;
                acc = cadd(acc, cmul(s[q], p->tw[ti]));
            }
            out[k] = acc;
        }
    }
}

/* kissfft's recursive decimation in time: out[0..r*m) from in with stride fstride*istride */
static void work(const fft_plan *p, cpx *out, const cpx *in, int64_t fstride, int64_t istride, const int64_t *fac) {
    int64_t r = fac[0], m = fac[1];
    if (m == 1) {
        for (int64_t k = 0; k < r; k++) out[k] = in[k * fstride * istride];
    } else {
        for (int64_t k = 0; k < r; k++) work(p, out + k * m, in + k * fstride * istride, fstride * r, istride, fac + 2);
    }
    if (r == 2) bfly2(out, fstride, p, m);
    else if (r == 4) bfly4(out, fstride, p, m);
    else bfly_generic(out, fstride, p, m, r);
}

/* out[k] = sum_j in[j*istride] e^{-2 pi i jk/n}; out must not alias in */
static void fft_exec(const fft_plan *p, const cpx *in, int64_t istride, cpx *out) {
    int64_t n = p->n;
    if (n == 1) { out[0] = in[0]; return; }
    if (!p->sub) { work(p, out, in, 1, istride, p->fac); return; }
    /* Bluestein: X_k = w_k * sum_j (x_j w_j) conj(w_{k-j}), a circular convolution of length m */
    int64_t m = p->sub->n;
    cpx *a = p->work;
    for (int64_t k = 0; k < n; k++) a[k] = cmul(in[k * istride], p->chirp[k]);
    for (int64_t k = n; k < m; k++) a[k] = (cpx){0, 0};
    cpx *A = malloc((size_t)m * sizeof *A);
    if (!A) { for (int64_t k = 0; k < n; k++) out[k] = (cpx){NAN, NAN}; return; }
    fft_exec(p->sub, a, 1, A);
    for (int64_t k = 0; k < m; k++) { cpx c = cmul(A[k], p->filt[k]); a[k] = (cpx){c.re, -c.im}; }
    fft_exec(p->sub, a, 1, A); /* conj(FFT(conj(C))) = m * IFFT(C) */
    double inv = 1.0 / (double)m;
    for (int64_t k = 0; k < n; k++) out[k] = cmul((cpx){A[k].re * inv, -A[k].im * inv}, p->chirp[k]);
    free(A);
}

/* Bluestein's filter spectrum is built lazily once per plan (it needs the sub plan). */
static void plan_finish(fft_plan *p) {
    if (!p || !p->sub) return;
    int64_t m = p->sub->n;
    cpx *F = malloc((size_t)m * sizeof *F);
    if (!F) return;
    fft_exec(p->sub, p->filt, 1, F);
    memcpy(p->filt, F, (size_t)m * sizeof *F);
    free(F);
}

static fft_plan *plan_make(int64_t n) {
    fft_plan *p = plan_new(n);
    plan_finish(p);
    return p;
}

/* ======================================================================
 * n-d driver
 * ====================================================================== */

enum { FK_C2C, FK_R2C, FK_C2R };
enum { NORM_NONE = 0, NORM_SQRT = 1, NORM_N = 2 };

typedef struct fft_job {
    int kind;
    bool forward;          /* C2C direction (R2C is forward, C2R inverse) */
    int norm;
    bool onesided;         /* R2C */
    bool conj_in, conj_out;
    int nd;
    int32_t dims[EIR_MAX_RANK];
    int64_t n[EIR_MAX_RANK];  /* signal size per transformed dim (C2R last: the output length) */
} fft_job;

/* transform every line of the contiguous complex array W (rank, sizes) along dim d, length sizes[d] */
static int transform_dim(cpx *W, int32_t rank, const int64_t *sizes, int32_t d, bool forward) {
    int64_t len = sizes[d], inner = 1, outer = 1;
    for (int32_t i = d + 1; i < rank; i++) inner *= sizes[i];
    for (int32_t i = 0; i < d; i++) outer *= sizes[i];
    if (len <= 1 || inner == 0 || outer == 0) return 0;
    fft_plan *p = plan_make(len);
    cpx *line = malloc((size_t)len * sizeof *line), *res = malloc((size_t)len * sizeof *res);
    if (!p || !line || !res) { plan_free(p); free(line); free(res); return -1; }
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            cpx *base = W + o * len * inner + i;
            for (int64_t j = 0; j < len; j++) line[j] = forward ? base[j * inner] : (cpx){base[j * inner].re, -base[j * inner].im};
            fft_exec(p, line, 1, res);
            for (int64_t j = 0; j < len; j++) base[j * inner] = forward ? res[j] : (cpx){res[j].re, -res[j].im};
        }
    plan_free(p);
    free(line);
    free(res);
    return 0;
}

static int64_t prod(const int64_t *s, int32_t r) {
    int64_t n = 1;
    for (int32_t i = 0; i < r; i++) n *= s[i];
    return n;
}

/* index (row-major over sizes) -> element offset in view t */
static const char *elem(const eir_tview *t, const int64_t *idx) {
    int64_t off = 0;
    for (int32_t i = 0; i < t->rank; i++) off += idx[i] * t->strides[i];
    return (const char *)t->data + off * (int64_t)eir_elsize(t->dtype);
}

static bool next_index(int64_t *idx, const int64_t *sizes, int32_t rank) {
    for (int32_t i = rank - 1; i >= 0; i--) {
        if (++idx[i] < sizes[i]) return true;
        idx[i] = 0;
    }
    return false;
}

static int run_job(eir_kctx *ctx, const char *op, const eir_tview *x, eir_tview *out, const fft_job *j) {
    int32_t r = x->rank;
    if (out->rank != r) return eir_kerr(ctx, "%s: output rank %d differs from the input's %d", op, out->rank, r);
    bool xc = eir_is_complex(x->dtype);
    if (!xc && !eir_is_floating(x->dtype) && !eir_is_integral(x->dtype, true))
        return eir_kerr(ctx, "%s: unsupported dtype %s", op, dname(x->dtype));
    if (j->kind == FK_C2R && eir_is_complex(out->dtype)) return eir_kerr(ctx, "%s: expected a real output", op);
    if (j->kind != FK_C2R && !eir_is_complex(out->dtype)) return eir_kerr(ctx, "%s: expected a complex output", op);
    int32_t last = j->nd ? j->dims[j->nd - 1] : -1;
    /* work array shape: input shape with the signal sizes (C2R last dim: the half spectrum) */
    int64_t ws[EIR_MAX_RANK], os[EIR_MAX_RANK];
    for (int32_t i = 0; i < r; i++) ws[i] = x->sizes[i];
    for (int k = 0; k < j->nd; k++) {
        if (j->n[k] < 1) return eir_kerr(ctx, "Invalid number of data points (%lld) specified", (long long)j->n[k]);
        ws[j->dims[k]] = j->kind == FK_C2R && j->dims[k] == last ? j->n[k] / 2 + 1 : j->n[k];
    }
    for (int32_t i = 0; i < r; i++) os[i] = ws[i];
    if (j->kind == FK_C2R) os[last] = j->n[j->nd - 1];
    if (j->kind == FK_R2C && j->onesided) os[last] = ws[last] / 2 + 1;
    for (int32_t i = 0; i < r; i++)
        if (out->sizes[i] != os[i])
            return eir_kerr(ctx, "%s: output dim %d has size %lld, expected %lld", op, i, (long long)out->sizes[i], (long long)os[i]);
    int64_t nw = prod(ws, r), no = prod(os, r);
    if (no == 0) return 0;
    cpx *W = malloc((size_t)(nw ? nw : 1) * sizeof *W);
    if (!W) return eir_kerr(ctx, "%s: out of memory", op);
    /* fill W: the input, zero-padded or trimmed to the signal sizes */
    int64_t idx[EIR_MAX_RANK] = {0};
    int64_t k = 0;
    if (nw)
        do {
            bool inside = true;
            for (int32_t i = 0; i < r && inside; i++) inside = idx[i] < x->sizes[i];
            double re = 0, im = 0;
            if (inside) eir_load_c128(elem(x, idx), x->dtype, &re, &im);
            W[k++] = (cpx){re, j->conj_in ? -im : im};
        } while (next_index(idx, ws, r));
    int rc = 0;
    for (int q = 0; q < j->nd && !rc; q++) {
        int32_t d = j->dims[q];
        if (j->kind == FK_C2R && d == last) continue;
        rc = transform_dim(W, r, ws, d, j->kind == FK_C2R ? false : j->kind == FK_R2C ? true : j->forward);
    }
    double scale = 1;
    if (j->norm != NORM_NONE) {
        double total = 1;
        for (int q = 0; q < j->nd; q++) total *= (double)j->n[q];
        scale = j->norm == NORM_N ? 1.0 / total : 1.0 / sqrt(total);
    }
    if (!rc && j->kind == FK_C2R) {
        /* each last-dim line: Hermitian extension to length N, inverse FFT, real part */
        int64_t N = j->n[j->nd - 1], H = ws[last], inner = 1, outer = 1;
        for (int32_t i = last + 1; i < r; i++) inner *= ws[i];
        for (int32_t i = 0; i < last; i++) outer *= ws[i];
        fft_plan *p = plan_make(N);
        cpx *line = malloc((size_t)N * sizeof *line), *res = malloc((size_t)N * sizeof *res);
        if (!p || !line || !res) rc = -1;
        for (int64_t o = 0; !rc && o < outer; o++)
            for (int64_t i = 0; i < inner; i++) {
                const cpx *base = W + o * H * inner + i;
                for (int64_t q = 0; q < N; q++) line[q] = (cpx){0, 0};
                for (int64_t q = 0; q < H && q < N; q++) line[q] = base[q * inner];
                for (int64_t q = 1; q < N - q; q++) line[N - q] = (cpx){line[q].re, -line[q].im};
                /* inverse via conjugation; only the real part is kept, which the conjugation leaves alone */
                for (int64_t q = 0; q < N; q++) line[q].im = -line[q].im;
                fft_exec(p, line, 1, res);
                /* write out[..., q, ...] for this line */
                int64_t oidx[EIR_MAX_RANK];
                int64_t rem = o;
                for (int32_t d = last - 1; d >= 0; d--) { oidx[d] = rem % os[d]; rem /= os[d]; }
                rem = i;
                for (int32_t d = r - 1; d > last; d--) { oidx[d] = rem % os[d]; rem /= os[d]; }
                for (int64_t q = 0; q < N; q++) {
                    oidx[last] = q;
                    eir_store_f64((char *)elem(out, oidx), out->dtype, res[q].re * scale);
                }
            }
        plan_free(p);
        free(line);
        free(res);
    } else if (!rc) {
        memset(idx, 0, sizeof idx);
        do {
            int64_t wo = 0;
            for (int32_t i = 0; i < r; i++) wo = wo * ws[i] + idx[i];
            cpx v = W[wo];
            eir_store_c128((char *)elem(out, idx), out->dtype, v.re * scale, (j->conj_out ? -v.im : v.im) * scale);
        } while (next_index(idx, os, r));
    }
    free(W);
    if (rc) return eir_kerr(ctx, "%s: out of memory", op);
    return 0;
}

/* dims from an int list (wrapped, unique) */
static int get_dims(eir_kctx *ctx, const char *op, const eir_karg *a, int32_t rank, fft_job *j) {
    j->nd = 0;
    for (uint32_t i = 0; i < a->n; i++) {
        int32_t d = eir_wrap_dim(a->ints[i], rank);
        if (d < 0 || rank == 0)
            return eir_kerr(ctx, "Dimension out of range (expected to be in range of [%d, %d], but got %lld)", -rank,
                            rank - 1, (long long)a->ints[i]);
        for (int k = 0; k < j->nd; k++)
            if (j->dims[k] == d) return eir_kerr(ctx, "%s: FFT dims must be unique", op);
        if (j->nd == EIR_MAX_RANK) return eir_kerr(ctx, "%s: too many dims", op);
        j->dims[j->nd++] = d;
    }
    return 0;
}

/* ---- core ops ---- */

/* _fft_r2c(self, dim, normalization, onesided) */
static int k_fft_r2c(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 4 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "_fft_r2c: expected 4 arguments");
    const eir_tview *x = a[0].t;
    if (x->dtype != EIR_F32 && x->dtype != EIR_F64)
        return eir_kerr(ctx, "_fft_r2c: unsupported dtype %s (torch's CPU FFT takes Float and Double)", dname(x->dtype));
    fft_job j = {FK_R2C, true, (int)a[2].i, a[3].i != 0, false, false, 0, {0}, {0}};
    if (get_dims(ctx, "_fft_r2c", &a[1], x->rank, &j)) return -1;
    if (j.nd == 0) return eir_kerr(ctx, "_fft_r2c: expected at least one dim");
    for (int k = 0; k < j.nd; k++) j.n[k] = x->sizes[j.dims[k]];
    return run_job(ctx, "_fft_r2c", x, out, &j);
}

/* _fft_c2r(self, dim, normalization, last_dim_size) */
static int k_fft_c2r(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 4 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "_fft_c2r: expected 4 arguments");
    const eir_tview *x = a[0].t;
    if (x->dtype != EIR_C64 && x->dtype != EIR_C128)
        return eir_kerr(ctx, "_fft_c2r: unsupported dtype %s (expected ComplexFloat or ComplexDouble)", dname(x->dtype));
    fft_job j = {FK_C2R, false, (int)a[2].i, false, false, false, 0, {0}, {0}};
    if (get_dims(ctx, "_fft_c2r", &a[1], x->rank, &j)) return -1;
    if (j.nd == 0) return eir_kerr(ctx, "_fft_c2r: expected at least one dim");
    for (int k = 0; k < j.nd; k++) j.n[k] = x->sizes[j.dims[k]];
    j.n[j.nd - 1] = a[3].i;
    return run_job(ctx, "_fft_c2r", x, out, &j);
}

/* _fft_c2c(self, dim, normalization, forward) */
static int k_fft_c2c(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 4 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "_fft_c2c: expected 4 arguments");
    const eir_tview *x = a[0].t;
    if (x->dtype != EIR_C64 && x->dtype != EIR_C128)
        return eir_kerr(ctx, "_fft_c2c: unsupported dtype %s (expected ComplexFloat or ComplexDouble)", dname(x->dtype));
    fft_job j = {FK_C2C, a[3].i != 0, (int)a[2].i, false, false, false, 0, {0}, {0}};
    if (get_dims(ctx, "_fft_c2c", &a[1], x->rank, &j)) return -1;
    for (int k = 0; k < j.nd; k++) j.n[k] = x->sizes[j.dims[k]];
    return run_job(ctx, "_fft_c2c", x, out, &j);
}

/* ---- torch.fft.* as exported without decompositions ---- */

/* norm string -> mode for a transform in the given direction ("backward" scales the inverse) */
static int norm_mode(eir_kctx *ctx, const eir_karg *a, bool forward, int *mode) {
    const char *s = a->kind == EIR_KA_STRING ? a->str : NULL;
    if (!s || !strcmp(s, "backward")) *mode = forward ? NORM_NONE : NORM_N;
    else if (!strcmp(s, "forward")) *mode = forward ? NORM_N : NORM_NONE;
    else if (!strcmp(s, "ortho")) *mode = NORM_SQRT;
    else return eir_kerr(ctx, "Invalid normalization mode: \"%s\"", s);
    return 0;
}

enum { U_FFT, U_IFFT, U_RFFT, U_IRFFT, U_HFFT, U_IHFFT };

/* shared tail: kind and direction of a user op; dims and sizes already in j */
static int user_job(eir_kctx *ctx, const char *op, int which, const eir_tview *x, eir_tview *out, fft_job *j, const eir_karg *norm) {
    bool xc = eir_is_complex(x->dtype);
    switch (which) {
    case U_FFT: j->kind = FK_C2C; j->forward = true; break;
    case U_IFFT: j->kind = FK_C2C; j->forward = false; break;
    case U_RFFT: j->kind = FK_R2C; j->forward = true; j->onesided = true; break;
    case U_IRFFT: j->kind = FK_C2R; j->forward = false; break;
    case U_HFFT: j->kind = FK_C2R; j->forward = true; j->conj_in = true; break;
    case U_IHFFT: j->kind = FK_R2C; j->forward = false; j->onesided = true; j->conj_out = true; break;
    }
    if ((which == U_RFFT || which == U_IHFFT) && xc)
        return eir_kerr(ctx, "%s expects a real input tensor, but got %s", which == U_RFFT ? "rfft" : "ihfft", dname(x->dtype));
    if (x->dtype == EIR_F16 || x->dtype == EIR_BF16 || x->dtype == EIR_C32)
        return eir_kerr(ctx, "%s: Unsupported dtype %s", op, dname(x->dtype));
    if (norm_mode(ctx, norm, j->forward, &j->norm)) return -1;
    return run_job(ctx, op, x, out, j);
}

/* fft_X(self, SymInt? n=None, int dim=-1, str? norm=None) */
static int fft1(const eir_karg *a, uint32_t na, eir_tview *out, eir_kctx *ctx, const char *op, int which) {
    if (na < 4 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "%s: expected 4 arguments", op);
    const eir_tview *x = a[0].t;
    fft_job j;
    memset(&j, 0, sizeof j);
    int32_t d = eir_wrap_dim(a[2].i, x->rank);
    if (d < 0 || x->rank == 0)
        return eir_kerr(ctx, "Dimension out of range (expected to be in range of [%d, %d], but got %lld)", -x->rank, x->rank - 1, (long long)a[2].i);
    j.nd = 1;
    j.dims[0] = d;
    bool c2r = which == U_IRFFT || which == U_HFFT;
    if (a[1].kind == EIR_KA_INT) j.n[0] = a[1].i;
    else j.n[0] = c2r ? 2 * (x->sizes[d] - 1) : x->sizes[d];
    return user_job(ctx, op, which, x, out, &j, &a[3]);
}

/* fft_X2 / fft_Xn(self, SymInt[]? s=None, int[]? dim=..., str? norm=None) */
static int fftn(const eir_karg *a, uint32_t na, eir_tview *out, eir_kctx *ctx, const char *op, int which) {
    if (na < 4 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "%s: expected 4 arguments", op);
    const eir_tview *x = a[0].t;
    fft_job j;
    memset(&j, 0, sizeof j);
    const eir_karg *s = &a[1], *dim = &a[2];
    bool has_s = s->kind == EIR_KA_INTS, has_dim = dim->kind == EIR_KA_INTS;
    if (has_dim) {
        if (get_dims(ctx, op, dim, x->rank, &j)) return -1;
        if (has_s && s->n != (uint32_t)j.nd)
            return eir_kerr(ctx, "When given, dim and shape arguments must have the same length");
    } else {
        int32_t cnt = has_s ? (int32_t)s->n : x->rank;
        if (cnt > x->rank) return eir_kerr(ctx, "Got shape with %d values but input tensor only has %d dimensions.", cnt, x->rank);
        for (int32_t i = 0; i < cnt; i++) j.dims[j.nd++] = x->rank - cnt + i;
    }
    if (j.nd == 0) {
        /* nothing to transform: a copy (with the dtype change) */
        if (which == U_RFFT || which == U_IRFFT || which == U_HFFT || which == U_IHFFT)
            return eir_kerr(ctx, "%s must transform at least one axis", op);
    }
    bool c2r = which == U_IRFFT || which == U_HFFT;
    for (int k = 0; k < j.nd; k++) {
        int64_t in = x->sizes[j.dims[k]];
        int64_t def = (c2r && k == j.nd - 1) ? 2 * (in - 1) : in;
        j.n[k] = has_s && s->ints[k] != -1 ? s->ints[k] : def;
    }
    return user_job(ctx, op, which, x, out, &j, &a[3]);
}

#define FFT1(name, which) \
    static int k_fft_##name(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return fft1(a, na, o, c, "fft_" #name, which); }
#define FFTN(name, which) \
    static int k_fft_##name(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return fftn(a, na, o, c, "fft_" #name, which); }
FFT1(fft, U_FFT)
FFT1(ifft, U_IFFT)
FFT1(rfft, U_RFFT)
FFT1(irfft, U_IRFFT)
FFT1(hfft, U_HFFT)
FFT1(ihfft, U_IHFFT)
FFTN(fft2, U_FFT)
FFTN(ifft2, U_IFFT)
FFTN(rfft2, U_RFFT)
FFTN(irfft2, U_IRFFT)
FFTN(fftn, U_FFT)
FFTN(ifftn, U_IFFT)
FFTN(rfftn, U_RFFT)
FFTN(irfftn, U_IRFFT)
FFTN(hfft2, U_HFFT)
FFTN(hfftn, U_HFFT)

/* ihfft2 / ihfftn refuse complex input in torch's words for the n-d forms */
static int ihfft_nd(const eir_karg *a, uint32_t na, eir_tview *o, eir_kctx *c, const char *op) {
    if (na >= 1 && a[0].kind == EIR_KA_TENSOR && eir_is_complex(a[0].t->dtype))
        return eir_kerr(c, "Only supports floating-point dtypes, but found: %s", dname(a[0].t->dtype));
    return fftn(a, na, o, c, op, U_IHFFT);
}
static int k_fft_ihfft2(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return ihfft_nd(a, na, o, c, "fft_ihfft2"); }
static int k_fft_ihfftn(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return ihfft_nd(a, na, o, c, "fft_ihfftn"); }

/* ======================================================================
 * fftshift / ifftshift: a roll by n/2 (fftshift) or (n+1)/2 along each dim
 * ====================================================================== */

static int shift_impl(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx, const char *op, bool inverse) {
    if (na < 1 || a[0].kind != EIR_KA_TENSOR || no < 1) return eir_kerr(ctx, "%s: expected a tensor argument", op);
    const eir_tview *x = a[0].t;
    int32_t r = x->rank;
    bool ok = out->rank == r && out->dtype == x->dtype;
    for (int32_t d = 0; ok && d < r; d++) ok = out->sizes[d] == x->sizes[d];
    if (!ok) return eir_kerr(ctx, "%s: the output's recorded shape or dtype does not match the input", op);
    int64_t shift[EIR_MAX_RANK] = {0};
    bool all = na < 2 || (a[1].kind != EIR_KA_INTS && a[1].kind != EIR_KA_INT);
    uint32_t nd = all ? 0 : a[1].kind == EIR_KA_INT ? 1 : a[1].n;
    for (int32_t d = 0; all && d < r; d++) shift[d] = inverse ? (x->sizes[d] + 1) / 2 : x->sizes[d] / 2;
    for (uint32_t i = 0; i < nd; i++) {
        int64_t v = a[1].kind == EIR_KA_INT ? a[1].i : a[1].ints[i];
        int32_t d = eir_wrap_dim(v, r);
        if (d < 0 || r == 0)
            return eir_kerr(ctx, "Dimension out of range (expected to be in range of [%d, %d], but got %lld)", -r, r - 1, (long long)v);
        shift[d] += inverse ? (x->sizes[d] + 1) / 2 : x->sizes[d] / 2; /* a dim listed twice rolls twice, as torch.roll */
    }
    int64_t n = eir_tview_numel(x), idx[EIR_MAX_RANK] = {0};
    size_t es = eir_elsize(x->dtype);
    for (int64_t k = 0; k < n; k++) {
        int64_t so = 0, oo = 0;
        for (int32_t d = 0; d < r; d++) {
            int64_t src = (idx[d] - shift[d] % x->sizes[d] + x->sizes[d]) % x->sizes[d];
            so += src * x->strides[d];
            oo += idx[d] * out->strides[d];
        }
        memcpy((char *)out->data + oo * (int64_t)es, (const char *)x->data + so * (int64_t)es, es);
        next_index(idx, x->sizes, r);
    }
    return 0;
}
/* fft_fftshift(self, int[1]? dim=None), fft_ifftshift(self, int[1]? dim=None) */
static int k_fft_fftshift(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return shift_impl(a, na, o, no, c, "fft_fftshift", false); }
static int k_fft_ifftshift(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return shift_impl(a, na, o, no, c, "fft_ifftshift", true); }

/* ======================================================================
 * stft / istft (torch's SpectralOps: frames by hop, the window centered in
 * n_fft, one FFT per frame; istft overlap-adds and divides by the summed
 * squared window)
 * ====================================================================== */

/* pocketfft's c2r of one line: the half spectrum h[0..H) extended to its
 * Hermitian full spectrum, inverse-transformed (unnormalized); real part */
static void line_c2r(const fft_plan *p, const cpx *h, int64_t H, int64_t N, cpx *line, cpx *res, double *y) {
    for (int64_t q = 0; q < N; q++) line[q] = (cpx){0, 0};
    for (int64_t q = 0; q < H && q < N; q++) line[q] = h[q];
    for (int64_t q = 1; q < N - q; q++) line[N - q] = (cpx){line[q].re, -line[q].im};
    for (int64_t q = 0; q < N; q++) line[q].im = -line[q].im;
    fft_exec(p, line, 1, res);
    for (int64_t q = 0; q < N; q++) y[q] = res[q].re;
}

static int64_t opt_int(const eir_karg *a, uint32_t na, uint32_t i, int64_t def) {
    return i < na && a[i].kind == EIR_KA_INT ? a[i].i : def;
}
static int opt_bool(const eir_karg *a, uint32_t na, uint32_t i) { /* -1: None */
    return i < na && (a[i].kind == EIR_KA_BOOL || a[i].kind == EIR_KA_INT) ? a[i].i != 0 : -1;
}

/* stft(self, n_fft, hop_length=None, win_length=None, window=None, normalized=False, onesided=None,
 *      return_complex=None, align_to_window=None)
 * stft.center(self, n_fft, hop_length, win_length, window, center=True, pad_mode="reflect", normalized, ...) */
static int stft_impl(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx, bool center_form) {
    if (na < 2 || a[0].kind != EIR_KA_TENSOR || no < 1) return eir_kerr(ctx, "stft: expected a tensor and n_fft");
    const eir_tview *x = a[0].t, *w = na > 4 && a[4].kind == EIR_KA_TENSOR ? a[4].t : NULL;
    uint32_t o = center_form ? 2 : 0; /* center and pad_mode shift the later arguments */
    bool center = center_form && opt_bool(a, na, 5) != 0;
    const char *pad_mode = center_form && na > 6 && a[6].kind == EIR_KA_STRING ? a[6].str : "reflect";
    bool normalized = opt_bool(a, na, 5 + o) == 1;
    int onesided_opt = opt_bool(a, na, 6 + o), rc_opt = opt_bool(a, na, 7 + o), align = opt_bool(a, na, 8 + o) == 1;
    int64_t n_fft = a[1].i, hop = opt_int(a, na, 2, n_fft >> 2), win = opt_int(a, na, 3, n_fft);
    if (x->rank != 1 && x->rank != 2) return eir_kerr(ctx, "stft: expected a 1D or 2D tensor");
    bool cx = eir_is_complex(x->dtype) || (w && eir_is_complex(w->dtype));
    if (!eir_is_floating(x->dtype) && !eir_is_complex(x->dtype))
        return eir_kerr(ctx, "stft: expected a tensor of floating point or complex values");
    if (rc_opt < 0 && !cx)
        return eir_kerr(ctx, "stft requires the return_complex parameter be given for real inputs, and will further require that return_complex=True in a future PyTorch release.");
    bool ret_complex = rc_opt < 0 ? cx : rc_opt == 1;
    bool onesided = onesided_opt < 0 ? !cx : onesided_opt == 1;
    if (onesided && cx) return eir_kerr(ctx, "Cannot have onesided output if window or input is complex");
    int64_t len = x->sizes[x->rank - 1], pad = center ? n_fft / 2 : 0, plen = len + 2 * pad;
    if (n_fft <= 0 || n_fft > plen) return eir_kerr(ctx, "stft: expected 0 < n_fft < %lld, but got n_fft=%lld", (long long)plen, (long long)n_fft);
    if (hop <= 0) return eir_kerr(ctx, "stft: expected hop_length > 0, but got hop_length=%lld", (long long)hop);
    if (win <= 0 || win > n_fft) return eir_kerr(ctx, "stft: expected 0 < win_length <= n_fft, but got win_length=%lld", (long long)win);
    if (w && (w->rank != 1 || w->sizes[0] != win))
        return eir_kerr(ctx, "stft: expected a 1D window tensor of size equal to win_length=%lld", (long long)win);
    if (center && strcmp(pad_mode, "reflect") && strcmp(pad_mode, "constant") && strcmp(pad_mode, "replicate") && strcmp(pad_mode, "circular"))
        return eir_kerr(ctx, "stft: unsupported pad_mode '%s'", pad_mode);
    if (center && !strcmp(pad_mode, "reflect") && pad >= len)
        return eir_kerr(ctx, "Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (%lld, %lld) at dimension %d of input %d",
                        (long long)pad, (long long)pad, x->rank - 1, x->rank);
    int64_t left = (n_fft - win) / 2, span = align ? win : n_fft;
    int64_t frames = 1 + (plen - span) / hop, nfreq = onesided ? n_fft / 2 + 1 : n_fft, batch = x->rank == 2 ? x->sizes[0] : 1;
    /* output: [batch,] freq, frames [, 2] */
    int32_t orank = x->rank + 1 + (ret_complex ? 0 : 1);
    int64_t want[4], k0 = 0;
    if (x->rank == 2) want[k0++] = batch;
    want[k0++] = nfreq;
    want[k0++] = frames;
    if (!ret_complex) want[k0++] = 2;
    bool ok = out->rank == orank && (eir_is_complex(out->dtype) == ret_complex);
    for (int32_t d = 0; ok && d < orank; d++) ok = out->sizes[d] == want[d];
    if (!ok) return eir_kerr(ctx, "stft: the output's recorded shape or dtype does not match");
    fft_plan *p = plan_make(n_fft);
    cpx *line = malloc((size_t)n_fft * sizeof *line), *res = malloc((size_t)n_fft * sizeof *res);
    if (!p || !line || !res) { plan_free(p); free(line); free(res); return eir_kerr(ctx, "stft: out of memory"); }
    double scale = normalized ? 1.0 / sqrt((double)n_fft) : 1.0;
    size_t xs = eir_elsize(x->dtype), os = eir_elsize(out->dtype);
    int32_t fd = x->rank == 2 ? 1 : 0; /* out's freq dim */
    for (int64_t b = 0; b < batch; b++) {
        const char *xb = (const char *)x->data + (x->rank == 2 ? b * x->strides[0] : 0) * (int64_t)xs;
        int64_t xst = x->strides[x->rank - 1];
        for (int64_t t = 0; t < frames; t++) {
            for (int64_t k = 0; k < n_fft; k++) {
                line[k] = (cpx){0, 0};
                if (k < left || k >= left + win) continue;
                int64_t s = t * hop + k - (align ? left : 0) - pad; /* index into the unpadded signal */
                if (s < 0 || s >= len) {
                    if (!center || !strcmp(pad_mode, "constant")) continue;
                    if (!strcmp(pad_mode, "reflect")) s = s < 0 ? -s : 2 * (len - 1) - s;
                    else if (!strcmp(pad_mode, "replicate")) s = s < 0 ? 0 : len - 1;
                    else s = ((s % len) + len) % len;
                    if (s < 0 || s >= len) continue;
                }
                double re, im, wr = 1, wi = 0;
                eir_load_c128(xb + s * xst * (int64_t)xs, x->dtype, &re, &im);
                if (w) eir_load_c128((const char *)w->data + (k - left) * w->strides[0] * (int64_t)eir_elsize(w->dtype), w->dtype, &wr, &wi);
                line[k] = cmul((cpx){re, im}, (cpx){wr, wi});
            }
            fft_exec(p, line, 1, res);
            for (int64_t f = 0; f < nfreq; f++) {
                int64_t off = (x->rank == 2 ? b * out->strides[0] : 0) + f * out->strides[fd] + t * out->strides[fd + 1];
                char *dst = (char *)out->data + off * (int64_t)os;
                if (ret_complex) eir_store_c128(dst, out->dtype, res[f].re * scale, res[f].im * scale);
                else {
                    eir_store_f64(dst, out->dtype, res[f].re * scale);
                    eir_store_f64(dst + out->strides[orank - 1] * (int64_t)os, out->dtype, res[f].im * scale);
                }
            }
        }
    }
    plan_free(p);
    free(line);
    free(res);
    return 0;
}
static int k_stft(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return stft_impl(a, na, o, no, c, false); }
static int k_stft_center(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return stft_impl(a, na, o, no, c, true); }

static const char *cpu_type(eir_dtype d) {
    switch (d) {
    case EIR_F32: return "Float"; case EIR_F64: return "Double"; case EIR_C64: return "ComplexFloat"; case EIR_C128: return "ComplexDouble";
    default: return dname(d);
    }
}

/* istft(self, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
 *       onesided=None, length=None, return_complex=False) */
static int k_istft(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 2 || a[0].kind != EIR_KA_TENSOR || no < 1) return eir_kerr(ctx, "istft: expected a tensor and n_fft");
    const eir_tview *x = a[0].t, *w = na > 4 && a[4].kind == EIR_KA_TENSOR ? a[4].t : NULL;
    int64_t n_fft = a[1].i, hop = opt_int(a, na, 2, n_fft >> 2), win = opt_int(a, na, 3, n_fft);
    bool center = opt_bool(a, na, 5) != 0, normalized = opt_bool(a, na, 6) == 1, ret_complex = opt_bool(a, na, 9) == 1;
    int onesided_opt = opt_bool(a, na, 7);
    bool has_len = na > 8 && a[8].kind == EIR_KA_INT;
    int64_t length = has_len ? a[8].i : 0;
    if (!eir_is_complex(x->dtype))
        return eir_kerr(ctx, "istft requires a complex-valued input tensor matching the output from stft with return_complex=True.");
    if (x->rank != 2 && x->rank != 3) return eir_kerr(ctx, "istft: expected a tensor with 2 or 3 dimensions of complex values");
    int64_t nfr = x->sizes[x->rank - 1], fsz = x->sizes[x->rank - 2], batch = x->rank == 3 ? x->sizes[0] : 1;
    bool onesided = onesided_opt < 0 ? fsz != n_fft : onesided_opt == 1;
    if (eir_tview_numel(x) == 0) return eir_kerr(ctx, "istft: input tensor cannot be empty.");
    if (onesided ? n_fft / 2 + 1 != fsz : n_fft != fsz)
        return eir_kerr(ctx, "istft: expected the frequency dimension (%lld) to be %s", (long long)fsz, onesided ? "n_fft / 2 + 1" : "n_fft");
    if (!(0 < hop && hop <= win)) return eir_kerr(ctx, "istft: expected 0 < hop_length <= win_length");
    if (!(0 < win && win <= n_fft)) return eir_kerr(ctx, "istft: expected 0 < win_length <= n_fft");
    if (w && (w->rank != 1 || w->sizes[0] != win)) return eir_kerr(ctx, "istft: expected a 1D window tensor of size equal to win_length=%lld", (long long)win);
    if (ret_complex && onesided) return eir_kerr(ctx, "Cannot have onesided output if window or input is complex");
    if (!ret_complex && w && eir_is_complex(w->dtype)) return eir_kerr(ctx, "Complex windows are incompatible with return_complex=False");
    int64_t explen = n_fft + hop * (nfr - 1), start = center ? n_fft / 2 : 0;
    int64_t end = has_len ? start + length : center ? explen - n_fft / 2 : explen;
    int64_t olen = end - start, vend = end < explen ? end : explen;
    if (olen < 0) return eir_kerr(ctx, "istft: the requested length is negative");
    bool ok = out->rank == x->rank - 1 && out->sizes[out->rank - 1] == olen && (x->rank == 2 || out->sizes[0] == batch) &&
              eir_is_complex(out->dtype) == ret_complex;
    if (!ok) return eir_kerr(ctx, "istft: the output's recorded shape or dtype does not match");
    int64_t left = (n_fft - win) / 2;
    double scale = normalized ? 1.0 / sqrt((double)n_fft) : 1.0 / (double)n_fft;
    fft_plan *p = plan_make(n_fft);
    cpx *wv = malloc((size_t)n_fft * sizeof *wv), *spec = malloc((size_t)n_fft * sizeof *spec), *line = malloc((size_t)n_fft * sizeof *line);
    cpx *res = malloc((size_t)n_fft * sizeof *res), *y = calloc((size_t)explen, sizeof *y);
    cpx *env = calloc((size_t)explen, sizeof *env);
    double *ry = malloc((size_t)n_fft * sizeof *ry);
    int rc = 0;
    if (!p || !wv || !spec || !line || !res || !y || !env || !ry) { rc = eir_kerr(ctx, "istft: out of memory"); goto done; }
    for (int64_t k = 0; k < n_fft; k++) {
        wv[k] = (cpx){0, 0};
        if (k < left || k >= left + win) continue;
        double wr = 1, wi = 0;
        if (w) eir_load_c128((const char *)w->data + (k - left) * w->strides[0] * (int64_t)eir_elsize(w->dtype), w->dtype, &wr, &wi);
        wv[k] = (cpx){wr, wi};
    }
    /* the envelope: the overlap-added window.pow(2), complex for a complex window (torch squares it,
     * not |w|^2); its smallest magnitude must not vanish */
    for (int64_t t = 0; t < nfr; t++)
        for (int64_t k = 0; k < n_fft; k++) env[t * hop + k] = cadd(env[t * hop + k], cmul(wv[k], wv[k]));
    double emin = INFINITY;
    for (int64_t i = start; i < vend; i++) emin = fmin(emin, hypot(env[i].re, env[i].im));
    if (vend > start && emin < 1e-11) {
        char win_s[64], ones[16], len_s[32];
        if (w) snprintf(win_s, sizeof win_s, "torch.%sTensor{[%lld]}", cpu_type(w->dtype), (long long)win);
        else snprintf(win_s, sizeof win_s, "None");
        if (onesided_opt < 0) snprintf(ones, sizeof ones, "None"); else snprintf(ones, sizeof ones, "%d", onesided_opt);
        if (has_len) snprintf(len_s, sizeof len_s, "%lld", (long long)length); else snprintf(len_s, sizeof len_s, "None");
        char shape[64];
        if (x->rank == 3) snprintf(shape, sizeof shape, "%lld, %lld, %lld", (long long)batch, (long long)fsz, (long long)nfr);
        else snprintf(shape, sizeof shape, "%lld, %lld", (long long)fsz, (long long)nfr);
        rc = eir_kerr(ctx, "istft(CPU%sType[%s], n_fft=%lld, hop_length=%lld, win_length=%lld, window=%s, center=%d, normalized=%d, onesided=%s, length=%s, return_complex=%d) window overlap add min: %g",
                      cpu_type(x->dtype), shape,
                      (long long)n_fft, (long long)hop, (long long)win, win_s, center, normalized, ones, len_s, ret_complex, emin);
        goto done;
    }
    size_t xs = eir_elsize(x->dtype), os = eir_elsize(out->dtype);
    int64_t H = n_fft / 2 + 1;
    for (int64_t b = 0; b < batch; b++) {
        memset(y, 0, (size_t)explen * sizeof *y);
        int64_t xb = x->rank == 3 ? b * x->strides[0] : 0, fs = x->strides[x->rank - 2], ts = x->strides[x->rank - 1];
        for (int64_t t = 0; t < nfr; t++) {
            for (int64_t f = 0; f < fsz; f++) {
                double re, im;
                eir_load_c128((const char *)x->data + (xb + f * fs + t * ts) * (int64_t)xs, x->dtype, &re, &im);
                spec[f] = (cpx){re, im};
            }
            if (ret_complex) { /* inverse c2c via conjugation */
                for (int64_t k = 0; k < n_fft; k++) line[k] = (cpx){spec[k].re, -spec[k].im};
                fft_exec(p, line, 1, res);
                for (int64_t k = 0; k < n_fft; k++) res[k] = (cpx){res[k].re * scale, -res[k].im * scale};
            } else {
                line_c2r(p, spec, H, n_fft, line, res, ry);
                for (int64_t k = 0; k < n_fft; k++) res[k] = (cpx){ry[k] * scale, 0};
            }
            for (int64_t k = 0; k < n_fft; k++) {
                cpx v = cmul(res[k], wv[k]);
                y[t * hop + k] = cadd(y[t * hop + k], v);
            }
        }
        int64_t ob = out->rank == 2 ? b * out->strides[0] : 0, ost = out->strides[out->rank - 1];
        for (int64_t i = 0; i < olen; i++) {
            int64_t s = start + i;
            cpx v = {0, 0};
            if (s < vend && env[s].im == 0) v = (cpx){y[s].re / env[s].re, y[s].im / env[s].re};
            else if (s < vend) { /* y / env, complex */
                double d = env[s].re * env[s].re + env[s].im * env[s].im;
                v = (cpx){(y[s].re * env[s].re + y[s].im * env[s].im) / d, (y[s].im * env[s].re - y[s].re * env[s].im) / d};
            }
            char *dst = (char *)out->data + (ob + i * ost) * (int64_t)os;
            if (ret_complex) eir_store_c128(dst, out->dtype, v.re, v.im);
            else eir_store_f64(dst, out->dtype, v.re);
        }
    }
done:
    plan_free(p);
    free(wv); free(spec); free(line); free(res); free(y); free(env); free(ry);
    return rc;
}

const eir_kernel_entry eir_kernels_fft[] = {
    {"aten._fft_r2c.default", k_fft_r2c},
    {"aten._fft_c2r.default", k_fft_c2r},
    {"aten._fft_c2c.default", k_fft_c2c},
    {"aten.fft_fft.default", k_fft_fft},
    {"aten.fft_ifft.default", k_fft_ifft},
    {"aten.fft_rfft.default", k_fft_rfft},
    {"aten.fft_irfft.default", k_fft_irfft},
    {"aten.fft_hfft.default", k_fft_hfft},
    {"aten.fft_ihfft.default", k_fft_ihfft},
    {"aten.fft_fft2.default", k_fft_fft2},
    {"aten.fft_ifft2.default", k_fft_ifft2},
    {"aten.fft_rfft2.default", k_fft_rfft2},
    {"aten.fft_irfft2.default", k_fft_irfft2},
    {"aten.fft_fftn.default", k_fft_fftn},
    {"aten.fft_ifftn.default", k_fft_ifftn},
    {"aten.fft_rfftn.default", k_fft_rfftn},
    {"aten.fft_irfftn.default", k_fft_irfftn},
    {"aten.fft_hfft2.default", k_fft_hfft2},
    {"aten.fft_hfftn.default", k_fft_hfftn},
    {"aten.fft_ihfft2.default", k_fft_ihfft2},
    {"aten.fft_ihfftn.default", k_fft_ihfftn},
    {"aten.fft_fftshift.default", k_fft_fftshift},
    {"aten.fft_ifftshift.default", k_fft_ifftshift},
    {"aten.stft.default", k_stft},
    {"aten.stft.center", k_stft_center},
    {"aten.istft.default", k_istft},
    {NULL, NULL},
};
