/* gemm.c — the float32 matrix product behind the kernels' GEMM calls
 * (matrix products, im2col convolutions, attention, recurrent layers).
 *
 * On this project's shapes (ResNet-18 and MobileNetV2 im2col GEMMs, BERT and
 * GPT-2 linear layers and attention) oneDNN's dnnl_sgemm is 12-34% faster
 * than OpenBLAS's cblas_sgemm on one core (docs/GEMM.md), so eir uses it when
 * Debian's libdnnl.so.2 is installed. It is loaded at the first product with
 * dlopen rather than linked, so that eir builds, links and runs without it
 * (OpenBLAS stays the fallback and the only BLAS for every other dtype and for
 * LAPACK).
 *
 * oneDNN runs its products on OpenMP threads. Their number follows
 * OpenBLAS's (openblas_get_num_threads: OPENBLAS_NUM_THREADS, all cores by
 * default, 1 once the runtime runs products on its own threads), set in each
 * calling thread when it changes, so the one setting governs both libraries
 * as it governed OpenBLAS alone.
 *
 * Products with a constant operand (a linear layer's weight: a parameter,
 * buffer or constant the program never writes) pack that operand once. A
 * runtime declares its constant storages (eir_sgemm_const_add); the first
 * product whose right-hand operand lies in one packs it with oneDNN's
 * sgemm_pack and keeps the copy, keyed by its address and the product's
 * shape, until the runtime drops its storages (eir_sgemm_const_drop); later
 * products with that operand and shape run sgemm_compute on the copy and
 * skip the packing dnnl_sgemm does on every call. On M = 64-128 transformer
 * shapes that is 1.06-1.25x dnnl_sgemm (docs/GEMM.md, "Packed weights").
 * sgemm_pack / sgemm_compute are oneDNN 2.x's own packed GEMM (its RNN
 * primitives use them), exported by libdnnl.so.2 as C++ functions but absent
 * from its public C API: they are looked up by their mangled names in 2.x
 * only, and without them (or with EIR_GEMM_PACK=0) every product takes the
 * plain path. A packed product is one call like any other, so the thread
 * pool's blocks stay the same calls at any thread count. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"

typedef int (*dnnl_sgemm_fn)(char, char, int64_t, int64_t, int64_t, float, const float *, int64_t, const float *, int64_t,
                             float, float *, int64_t);
typedef struct {
    int major, minor, patch;
    const char *hash;
    unsigned cpu_runtime, gpu_runtime;
} dnnl_version_rec;

/* Sanitizer builds keep to OpenBLAS unless EIR_GEMM=dnnl asks: LeakSanitizer
 * (gcc 12) crashes at exit scanning the dynamic TLS of the OpenMP threads that a
 * dlopen'ed oneDNN starts, and ThreadSanitizer does not see OpenMP's barriers. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define GEMM_DNNL_BY_DEFAULT 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define GEMM_DNNL_BY_DEFAULT 0
#endif
#endif
#ifndef GEMM_DNNL_BY_DEFAULT
#define GEMM_DNNL_BY_DEFAULT 1
#endif

/* oneDNN 2.x's packed sgemm, Fortran conventions (column-major, arguments by address; 'P' marks the
 * packed operand in sgemm_compute; alpha is 1) */
typedef int (*pack_size_fn)(const char *, const char *, const char *, const int64_t *, const int64_t *, const int64_t *,
                            const int64_t *, const int64_t *, size_t *, bool *);
typedef int (*pack_fn)(const char *, const char *, const char *, const int64_t *, const int64_t *, const int64_t *,
                       const int64_t *, const int64_t *, const float *, float *);
typedef int (*compute_fn)(const char *, const char *, const int64_t *, const int64_t *, const int64_t *, const float *,
                          const int64_t *, const float *, const int64_t *, const float *, float *, const int64_t *);

static pthread_once_t gemm_once = PTHREAD_ONCE_INIT;
static pack_size_fn pack_size_p;
static pack_fn pack_p;
static compute_fn compute_p;
static dnnl_sgemm_fn dnnl_sgemm_p;
static void (*omp_set_num_threads_p)(int);
static char gemm_lib_name[48] = "OpenBLAS";
static _Thread_local int gemm_omp_threads; /* the count last given to OpenMP in this thread; 0: none */

static void gemm_choose(void) {
    const char *want = getenv("EIR_GEMM");
    if (want ? strcmp(want, "dnnl") != 0 : !GEMM_DNNL_BY_DEFAULT) return; /* EIR_GEMM=openblas (or anything but dnnl) */
    void *h = dlopen("libdnnl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!h) return;
    dnnl_sgemm_fn f = (dnnl_sgemm_fn)dlsym(h, "dnnl_sgemm");
    const dnnl_version_rec *(*ver)(void) = (const dnnl_version_rec *(*)(void))dlsym(h, "dnnl_version");
    if (!f) {
        dlclose(h);
        return;
    }
    omp_set_num_threads_p = (void (*)(int))dlsym(h, "omp_set_num_threads");
    if (ver) {
        const dnnl_version_rec *v = ver();
        snprintf(gemm_lib_name, sizeof gemm_lib_name, "oneDNN %d.%d.%d", v->major, v->minor, v->patch);
        const char *pk = getenv("EIR_GEMM_PACK");
        if (v->major == 2 && !(pk && !strcmp(pk, "0"))) { /* the packed GEMM's signatures are 2.x's */
            pack_size_p = (pack_size_fn)dlsym(h, "_ZN4dnnl4impl3cpu19sgemm_pack_get_sizeEPKcS3_S3_PKlS5_S5_S5_S5_PmPb");
            pack_p = (pack_fn)dlsym(h, "_ZN4dnnl4impl3cpu10sgemm_packEPKcS3_S3_PKlS5_S5_S5_S5_PKfPf");
            compute_p = (compute_fn)dlsym(h, "_ZN4dnnl4impl3cpu13sgemm_computeEPKcS3_PKlS5_S5_PKfS5_S7_S5_S7_PfS5_");
            if (!pack_size_p || !pack_p || !compute_p) pack_size_p = NULL, pack_p = NULL, compute_p = NULL;
        }
    } else snprintf(gemm_lib_name, sizeof gemm_lib_name, "oneDNN");
    dnnl_sgemm_p = f;
}

const char *eir_sgemm_library(void) {
    pthread_once(&gemm_once, gemm_choose);
    return gemm_lib_name;
}

static char trans_char(CBLAS_TRANSPOSE t) { return t == CblasNoTrans ? 'N' : 'T'; }

/* ---- constant operands, packed once ---- */

typedef struct const_range {
    const char *lo, *hi;
    const void *owner;
} const_range;

/* One packed operand: Fortran A (m x k, op ta, leading dimension ld) at `src`, packed for products
 * with n columns; data NULL when packing failed (the product takes the plain path). */
typedef struct packed_op {
    const float *src;
    int64_t m, n, k, ld;
    char ta, tb;  /* the product's op of Fortran B too: packing is asked for the whole product */
    const void *owner;
    float *data;
    size_t bytes;
    struct packed_op *next;
} packed_op;

enum { PACK_BUCKETS = 256 };
static pthread_mutex_t pack_mu = PTHREAD_MUTEX_INITIALIZER;
static const_range *ranges;
static uint32_t nranges, capranges;
static packed_op *packs[PACK_BUCKETS];

static size_t packed_total; /* bytes of packed copies held */

size_t eir_sgemm_packed_bytes(void) {
    pthread_mutex_lock(&pack_mu);
    size_t n = packed_total;
    pthread_mutex_unlock(&pack_mu);
    return n;
}

static uint32_t pack_bucket(const float *p) { return (uint32_t)(((uintptr_t)p >> 6) * 0x9E3779B1u >> 24) % PACK_BUCKETS; }

bool eir_sgemm_packing(void) {
    pthread_once(&gemm_once, gemm_choose);
    return compute_p != NULL;
}

int eir_sgemm_const_add(const void *owner, const void *p, size_t nbytes) {
    pthread_once(&gemm_once, gemm_choose);
    if (!compute_p || !p || !nbytes) return 0;
    pthread_mutex_lock(&pack_mu);
    if (nranges == capranges) {
        uint32_t cap = capranges ? capranges * 2 : 64;
        const_range *r = realloc(ranges, cap * sizeof *r);
        if (!r) {
            pthread_mutex_unlock(&pack_mu);
            return -1;
        }
        ranges = r;
        capranges = cap;
    }
    ranges[nranges++] = (const_range){(const char *)p, (const char *)p + nbytes, owner};
    pthread_mutex_unlock(&pack_mu);
    return 0;
}

void eir_sgemm_const_drop(const void *owner) {
    pthread_mutex_lock(&pack_mu);
    uint32_t w = 0;
    for (uint32_t i = 0; i < nranges; i++)
        if (ranges[i].owner != owner) ranges[w++] = ranges[i];
    nranges = w;
    for (int b = 0; b < PACK_BUCKETS; b++)
        for (packed_op **pp = &packs[b]; *pp;) {
            packed_op *e = *pp;
            if (e->owner != owner) {
                pp = &e->next;
                continue;
            }
            *pp = e->next;
            if (e->data) packed_total -= e->bytes;
            free(e->data);
            free(e);
        }
    pthread_mutex_unlock(&pack_mu);
}

/* The packed copy of Fortran operand A for this product, packing it on first use when it lies in a
 * constant range; NULL: take the plain path. One packed shape per operand: a second product shape
 * (another n, as dynamic shapes give) keeps to the plain path rather than packing again. */
static const float *packed_a(char ta, char tb, int64_t m, int64_t n, int64_t k, const float *A, int64_t lda, int64_t ldb) {
    const char *lo = (const char *)A;
    const char *hi = lo + ((ta == 'N' ? (k - 1) * lda + m : (m - 1) * lda + k) * (int64_t)sizeof(float));
    pthread_mutex_lock(&pack_mu);
    const float *out = NULL;
    if (!nranges) goto done;
    uint32_t b = pack_bucket(A);
    for (packed_op *e = packs[b]; e; e = e->next)
        if (e->src == A) {
            if (e->m == m && e->n == n && e->k == k && e->ld == lda && e->ta == ta && e->tb == tb) out = e->data;
            goto done; /* another shape of a packed operand: plain */
        }
    const void *owner = NULL;
    for (uint32_t i = 0; i < nranges && !owner; i++)
        if (lo >= ranges[i].lo && hi <= ranges[i].hi) owner = ranges[i].owner;
    if (!owner) goto done;
    packed_op *e = calloc(1, sizeof *e);
    if (!e) goto done;
    *e = (packed_op){A, m, n, k, lda, ta, tb, owner, NULL, 0, packs[b]};
    packs[b] = e;
    char tas[2] = {ta, 0}, tbs[2] = {tb, 0};
    size_t bytes = 0;
    bool pack = false;
    if (pack_size_p("A", tas, tbs, &m, &n, &k, &lda, &ldb, &bytes, &pack) == 0 && bytes) {
        e->data = aligned_alloc(64, (bytes + 63) / 64 * 64);
        if (e->data && pack_p("A", tas, tbs, &m, &n, &k, &lda, &ldb, A, e->data) != 0) {
            free(e->data);
            e->data = NULL;
        }
        if (e->data) {
            e->bytes = bytes;
            packed_total += bytes;
        }
    }
    out = e->data;
done:
    pthread_mutex_unlock(&pack_mu);
    return out;
}

void eir_sgemm(CBLAS_ORDER order, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int M, int N, int K, float alpha, const float *A,
               int lda, const float *B, int ldb, float beta, float *C, int ldc) {
    pthread_once(&gemm_once, gemm_choose);
    if (dnnl_sgemm_p && M > 0 && N > 0 && K > 0) {
        int nt = openblas_get_num_threads();
        if (nt != gemm_omp_threads && omp_set_num_threads_p) {
            omp_set_num_threads_p(nt > 0 ? nt : 1);
            gemm_omp_threads = nt;
        }
        if (compute_p && alpha == 1.f) {
            /* as Fortran's sgemm sees it: column-major C = op(FA) op(FB); a row-major C = op(A) op(B)
             * is the column-major C^T = op(B)^T op(A)^T. FA, the right-hand operand of the row-major
             * product (a linear layer's weight), is the one that may be constant. */
            bool row = order == CblasRowMajor;
            char fta = trans_char(row ? tb : ta), ftb = trans_char(row ? ta : tb);
            int64_t m = row ? N : M, n = row ? M : N, k = K, flda = row ? ldb : lda, fldb = row ? lda : ldb, fldc = ldc;
            const float *FA = row ? B : A, *FB = row ? A : B;
            const float *pk = packed_a(fta, ftb, m, n, k, FA, flda, fldb);
            char tbs[2] = {ftb, 0};
            if (pk && compute_p("P", tbs, &m, &n, &k, pk, &flda, FB, &fldb, &beta, C, &fldc) == 0) return;
        }
        /* dnnl_sgemm is row-major; a column-major C = op(A) op(B) is the row-major C^T = op(B)^T op(A)^T */
        int rc = order == CblasRowMajor
                     ? dnnl_sgemm_p(trans_char(ta), trans_char(tb), M, N, K, alpha, A, lda, B, ldb, beta, C, ldc)
                     : dnnl_sgemm_p(trans_char(tb), trans_char(ta), N, M, K, alpha, B, ldb, A, lda, beta, C, ldc);
        if (rc == 0) return; /* dnnl_success; anything else (arguments it rejects): OpenBLAS */
    }
    cblas_sgemm(order, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}
