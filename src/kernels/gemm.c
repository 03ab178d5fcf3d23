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
 * as it governed OpenBLAS alone. */
#include <dlfcn.h>
#include <pthread.h>
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

static pthread_once_t gemm_once = PTHREAD_ONCE_INIT;
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
    } else snprintf(gemm_lib_name, sizeof gemm_lib_name, "oneDNN");
    dnnl_sgemm_p = f;
}

const char *eir_sgemm_library(void) {
    pthread_once(&gemm_once, gemm_choose);
    return gemm_lib_name;
}

static char trans_char(CBLAS_TRANSPOSE t) { return t == CblasNoTrans ? 'N' : 'T'; }

void eir_sgemm(CBLAS_ORDER order, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int M, int N, int K, float alpha, const float *A,
               int lda, const float *B, int ldb, float beta, float *C, int ldc) {
    pthread_once(&gemm_once, gemm_choose);
    if (dnnl_sgemm_p && M > 0 && N > 0 && K > 0) {
        int nt = openblas_get_num_threads();
        if (nt != gemm_omp_threads && omp_set_num_threads_p) {
            omp_set_num_threads_p(nt > 0 ? nt : 1);
            gemm_omp_threads = nt;
        }
        /* dnnl_sgemm is row-major; a column-major C = op(A) op(B) is the row-major C^T = op(B)^T op(A)^T */
        int rc = order == CblasRowMajor
                     ? dnnl_sgemm_p(trans_char(ta), trans_char(tb), M, N, K, alpha, A, lda, B, ldb, beta, C, ldc)
                     : dnnl_sgemm_p(trans_char(tb), trans_char(ta), N, M, K, alpha, B, ldb, A, lda, beta, C, ldc);
        if (rc == 0) return; /* dnnl_success; anything else (arguments it rejects): OpenBLAS */
    }
    cblas_sgemm(order, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}
