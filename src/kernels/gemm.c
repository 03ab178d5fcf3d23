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
 * buffer or constant the program never writes) read it from a copy laid out
 * for oneDNN. A runtime declares its constant storages
 * (eir_sgemm_const_add); a product whose right-hand operand lies in one and
 * is transposed (row-major C = A B^T with B N x K, as linear layers store
 * their weights) runs dnnl_sgemm on B^T (K x N) with B not transposed. The
 * first such product on an operand reads B^T from a scratch transpose; the
 * second copies B^T and keeps the copy, keyed by the operand's address and
 * extent, until the runtime drops its storages (eir_sgemm_const_drop), and
 * later products run from the copy: a program run once never pays for copies
 * (the scratch section below). On this CPU's AVX2 kernels that layout is what counts: on
 * the M = 64 and 128 transformer shapes, dnnl_sgemm from B^T is 1.05-1.23x
 * dnnl_sgemm from B (per model), as fast as oneDNN's packed sgemm on the
 * same weights and its matmul primitive with the weights in the format it
 * picks (docs/GEMM.md, "Constant weights"). The copy is one call like any
 * other product, so the thread pool's blocks stay the same calls at any
 * thread count. An operand copied out of a read-only file mapping gives its
 * pages back, so the copy replaces it in memory. EIR_GEMM_PACK=0 turns it
 * off; with OpenBLAS it is off.
 *
 * The same ranges serve eir's own kernel for linear layers (nngemm.c,
 * eir_nngemm_linear_f32): eir_sgemm_const_packed gives it a copy of the
 * weight packed in its strips, made at the second use like the transposed
 * copies (at the first, wgemm.c reads the weight as stored, in the same
 * bits); kept and released with them, and there without oneDNN too. */
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"
#include "nngemm.h"

typedef int (*dnnl_sgemm_fn)(char, char, int64_t, int64_t, int64_t, float, const float *, int64_t, const float *, int64_t,
                             float, float *, int64_t);
typedef int (*dnnl_gemm_bf16_fn)(char, char, int64_t, int64_t, int64_t, float, const uint16_t *, int64_t,
                                 const uint16_t *, int64_t, float, float *, int64_t);
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
static bool const_copies; /* constant transposed operands copied (oneDNN, EIR_GEMM_PACK not 0) */
static bool pack_allowed; /* EIR_GEMM_PACK not 0: constant operands may be copied (for oneDNN or nngemm) */
static dnnl_sgemm_fn dnnl_sgemm_p;
static dnnl_gemm_bf16_fn dnnl_gemm_bf16_p;
static void (*omp_set_num_threads_p)(int);
static char gemm_lib_name[48] = "OpenBLAS";
static _Thread_local int gemm_omp_threads; /* the count last given to OpenMP in this thread; 0: none */

static void gemm_choose(void) {
    const char *pk = getenv("EIR_GEMM_PACK");
    pack_allowed = !(pk && !strcmp(pk, "0"));
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
    dnnl_gemm_bf16_p = (dnnl_gemm_bf16_fn)dlsym(h, "dnnl_gemm_bf16bf16f32");
    const_copies = pack_allowed;
}

const char *eir_sgemm_library(void) {
    pthread_once(&gemm_once, gemm_choose);
    return gemm_lib_name;
}

static char trans_char(CBLAS_TRANSPOSE t) { return t == CblasNoTrans ? 'N' : 'T'; }

/* ---- constant operands, copied once ---- */

typedef struct const_range {
    const char *lo, *hi;
    const void *owner;
    bool mapped; /* in a read-only private file mapping: copied operands' pages can be released */
} const_range;

/* The copy of one constant operand: Fortran A, op T, stored k x m (column-major, leading dimension
 * ld) at src, copied as op(A) itself, m x k with leading dimension m; data NULL when the copy could
 * not be made (the product takes the plain path). */
typedef struct const_copy {
    const float *src;
    int64_t m, k, ld;
    const void *owner;
    float *data;
    size_t bytes;
    bool seen; /* used once, from a scratch transpose; the copy comes with the next use */
    bool packed; /* laid out for nngemm (eir_sgemm_const_packed), not transposed for oneDNN */
    struct const_copy *next;
} const_copy;

enum { COPY_BUCKETS = 256 };
static pthread_mutex_t copy_mu = PTHREAD_MUTEX_INITIALIZER;
static const_range *ranges;
static uint32_t nranges, capranges;
static const_copy *copies[COPY_BUCKETS];
static size_t copied_total; /* bytes of copies held */

static void scratch_release_idle(void);

static uint32_t copy_bucket(const float *p) { return (uint32_t)(((uintptr_t)p >> 6) * 0x9E3779B1u >> 24) % COPY_BUCKETS; }

bool eir_sgemm_const_copies(void) {
    pthread_once(&gemm_once, gemm_choose);
    return dnnl_sgemm_p && const_copies;
}

size_t eir_sgemm_const_bytes(void) {
    pthread_mutex_lock(&copy_mu);
    size_t n = copied_total;
    pthread_mutex_unlock(&copy_mu);
    return n;
}

/* Constant ranges are kept where a product may copy from them: for oneDNN's transposed copies or
 * nngemm's packed ones */
static bool ranges_on(void) {
    pthread_once(&gemm_once, gemm_choose);
    return pack_allowed && (dnnl_sgemm_p || eir_nngemm_enabled());
}

int eir_sgemm_const_add(const void *owner, const void *p, size_t nbytes, bool mapped) {
    if (!ranges_on() || !p || !nbytes) return 0;
    pthread_mutex_lock(&copy_mu);
    if (nranges == capranges) {
        uint32_t cap = capranges ? capranges * 2 : 64;
        const_range *r = realloc(ranges, cap * sizeof *r);
        if (!r) {
            pthread_mutex_unlock(&copy_mu);
            return -1;
        }
        ranges = r;
        capranges = cap;
    }
    ranges[nranges++] = (const_range){(const char *)p, (const char *)p + nbytes, owner, mapped};
    pthread_mutex_unlock(&copy_mu);
    return 0;
}

/* The owner of a declared range holding [lo, hi), and whether that range is mapped; NULL: none.
 * Called with copy_mu held. */
static const void *range_owner(const char *lo, const char *hi, bool *mapped) {
    for (uint32_t i = 0; i < nranges; i++)
        if (lo >= ranges[i].lo && hi <= ranges[i].hi) {
            if (mapped) *mapped = ranges[i].mapped;
            return ranges[i].owner;
        }
    return NULL;
}

/* the bytes a copy was made from: Fortran A, k x m with leading dimension ld */
static const char *copy_end(const const_copy *e) { return (const char *)(e->src + (e->m - 1) * e->ld + e->k); }

/* Runtimes on one program declare the same bytes, and a copy is shared by all of them: a product
 * may still be reading it on another runtime's thread when the runtime that made it is freed. So a
 * copy lives while any declared range holds its source, passing to the owner of one that does. */
void eir_sgemm_const_drop(const void *owner) {
    pthread_mutex_lock(&copy_mu);
    uint32_t w = 0;
    for (uint32_t i = 0; i < nranges; i++)
        if (ranges[i].owner != owner) ranges[w++] = ranges[i];
    nranges = w;
    if (!nranges) scratch_release_idle();
    for (int b = 0; b < COPY_BUCKETS; b++)
        for (const_copy **pp = &copies[b]; *pp;) {
            const_copy *e = *pp;
            const void *heir = e->owner == owner ? range_owner((const char *)e->src, copy_end(e), NULL) : e->owner;
            if (heir) {
                e->owner = heir;
                pp = &e->next;
                continue;
            }
            *pp = e->next;
            copied_total -= e->bytes;
            free(e->data);
            free(e);
        }
    pthread_mutex_unlock(&copy_mu);
}

/* dst (m x k, leading dimension m) = src^T, src k x m with leading dimension ld; in tiles that stay
 * in L1 on both sides. The first product on a constant weight pays for this copy (GPT-2's 50257 x 768
 * LM head is 154 MB), so start-up depends on it: with AVX2 the tiles are cut into 8 x 8 blocks
 * transposed in registers (about 4x the scalar loop's rate), the edges element by element. */
static void transpose_tile(float *dst, const float *src, int64_t m, int64_t ld, int64_t i0, int64_t i1, int64_t q0,
                           int64_t q1) {
    for (int64_t q = q0; q < q1; q++)
        for (int64_t i = i0; i < i1; i++) dst[q * m + i] = src[i * ld + q];
}

/* tiles of the AVX2 path: 16 source rows by 256 columns, so that each row of the copy receives whole
 * 64-byte lines (measured best on the LM head's 50257 x 768 and the Llama block's 2048 x 5632) */
enum { TRANSPOSE_TILE = 64, TRANSPOSE_ROWS = 16, TRANSPOSE_COLS = 256 };

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include "transpose8.h"
#define GEMM_TRANSPOSE_AVX2 1

__attribute__((target("avx2"))) static void transpose_avx2(float *dst, const float *src, int64_t m, int64_t k,
                                                          int64_t ld) {
    for (int64_t i0 = 0; i0 < m; i0 += TRANSPOSE_ROWS)
        for (int64_t q0 = 0; q0 < k; q0 += TRANSPOSE_COLS) {
            int64_t i1 = i0 + TRANSPOSE_ROWS < m ? i0 + TRANSPOSE_ROWS : m,
                    q1 = q0 + TRANSPOSE_COLS < k ? q0 + TRANSPOSE_COLS : k;
            int64_t i8 = i0 + (i1 - i0) / 8 * 8, q8 = q0 + (q1 - q0) / 8 * 8;
            for (int64_t i = i0; i < i8; i += 8)
                for (int64_t q = q0; q < q8; q += 8) eir_transpose8(dst + q * m + i, m, src + i * ld + q, ld);
            transpose_tile(dst, src, m, ld, i0, i8, q8, q1); /* the columns past the last block */
            transpose_tile(dst, src, m, ld, i8, i1, q0, q1); /* the rows past the last block */
        }
}
#endif

static bool transpose_portable; /* eir_sgemm_transpose_portable: the scalar tiles even with AVX2 */

void eir_sgemm_transpose_portable(bool on) { transpose_portable = on; }

static void transpose_copy(float *dst, const float *src, int64_t m, int64_t k, int64_t ld) {
#ifdef GEMM_TRANSPOSE_AVX2
    if (!transpose_portable && __builtin_cpu_supports("avx2")) {
        transpose_avx2(dst, src, m, k, ld);
        return;
    }
#endif
    for (int64_t q0 = 0; q0 < k; q0 += TRANSPOSE_TILE)
        for (int64_t i0 = 0; i0 < m; i0 += TRANSPOSE_TILE)
            transpose_tile(dst, src, m, ld, i0, i0 + TRANSPOSE_TILE < m ? i0 + TRANSPOSE_TILE : m, q0,
                           q0 + TRANSPOSE_TILE < k ? q0 + TRANSPOSE_TILE : k);
}

/* Give back the pages wholly inside [lo, hi) of a read-only private file mapping: they hold the
 * file's bytes and nothing else, so dropping them loses nothing (a later read maps them again);
 * the copy then takes their place in the resident set instead of adding to it. */
static void release_pages(const char *lo, const char *hi) {
    static size_t page;
    if (!page) {
        long ps = sysconf(_SC_PAGESIZE);
        page = ps > 0 ? (size_t)ps : 4096;
    }
    uintptr_t a = ((uintptr_t)lo + page - 1) / page * page, b = (uintptr_t)hi / page * page;
    if (b > a) (void)madvise((void *)a, b - a, MADV_DONTNEED);
}

/* ---- scratch transposes for first uses ----
 * A process that runs a program once would pay for copies it never reads again (GPT-2's LM head:
 * 154 MB of fresh pages to fault in, clear and fill, more than the product itself). So the first
 * product on a constant operand transposes it into a scratch buffer that is reused from one product
 * to the next (warm in cache, its pages faulted in once) and runs the same dnnl_sgemm call on it as
 * later products run on the copy, so the bits are the same; the second product makes the copy. At
 * most SCRATCH_KEEP buffers are kept between products; all go once a copy is made (later first
 * uses allocate again) or the last range is dropped. A mapped operand keeps its pages after a
 * scratch transpose: giving them back cost the GPT-2 decoder's and the Llama block's first runs 3-6%
 * (madvise and the later copy mapping them again), for a resident set that only looked smaller (the
 * file's pages stay in the page cache either way); the copy gives them back. */
enum { SCRATCH_KEEP = 4 };
typedef struct {
    float *p;
    size_t cap; /* floats */
    bool busy;
} scratch_buf;
static scratch_buf scratch_pool[SCRATCH_KEEP];

/* Called with copy_mu held: the idle buffers freed. */
static void scratch_release_idle(void) {
    for (int i = 0; i < SCRATCH_KEEP; i++)
        if (!scratch_pool[i].busy) {
            free(scratch_pool[i].p);
            scratch_pool[i] = (scratch_buf){0};
        }
}

/* A buffer of at least n floats (64-byte aligned) for this thread's product, or NULL when out of
 * memory; *slot: its place in the pool, -1 when it is the caller's to free. Called with copy_mu held. */
static float *scratch_get(size_t n, int *slot) {
    int pick = -1;
    for (int i = 0; i < SCRATCH_KEEP; i++)
        if (!scratch_pool[i].busy && (pick < 0 || scratch_pool[i].cap > scratch_pool[pick].cap)) pick = i;
    *slot = pick;
    if (pick < 0) return aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64);
    scratch_buf *b = &scratch_pool[pick];
    if (b->cap < n) {
        /* a quarter more than asked: the column blocks of one product differ a little in width, and
         * a buffer that grows at each of them would be fresh pages every time */
        size_t want = n + n / 4;
        free(b->p);
        b->p = aligned_alloc(64, (want * sizeof(float) + 63) / 64 * 64);
        b->cap = b->p ? want : 0;
        if (!b->p) return NULL;
    }
    b->busy = true;
    return b->p;
}

static void scratch_put(float *p, int slot) {
    if (slot < 0) {
        free(p);
        return;
    }
    pthread_mutex_lock(&copy_mu);
    scratch_pool[slot].busy = false;
    pthread_mutex_unlock(&copy_mu);
}

/* The entry of bucket b for this operand and layout (transposed or packed), or NULL. Called with
 * copy_mu held. */
static const_copy *copy_find(uint32_t b, const float *src, int64_t m, int64_t k, int64_t ld, bool packed) {
    for (const_copy *c = copies[b]; c; c = c->next)
        if (c->src == src && c->m == m && c->k == k && c->ld == ld && c->packed == packed) return c;
    return NULL;
}

/* The copy of Fortran operand A (op T: stored k x m, leading dimension lda) as op(A) when A lies in a
 * constant range: the kept copy, made at A's second use; at the first, a scratch transpose (*slot
 * says where to give it back, scratch_put). NULL: take the plain path. */
static const float *const_a(int64_t m, int64_t k, const float *A, int64_t lda, bool *scratch, int *slot) {
    const char *lo = (const char *)A, *hi = lo + ((m - 1) * lda + k) * (int64_t)sizeof(float);
    const float *out = NULL;
    float *tmp = NULL;
    *scratch = false;
    pthread_mutex_lock(&copy_mu);
    if (!nranges) goto done;
    uint32_t b = copy_bucket(A);
    const_copy *e = copy_find(b, A, m, k, lda, false);
    if (e && !e->seen) {
        out = e->data;
        goto done;
    }
    bool mapped = false;
    const void *owner = range_owner(lo, hi, &mapped);
    if (!owner) goto done;
    size_t n = (size_t)m * (size_t)k;
    if (!e) {
        e = calloc(1, sizeof *e);
        if (!e) goto done;
        *e = (const_copy){A, m, k, lda, owner, NULL, 0, true, false, copies[b]};
        copies[b] = e;
        tmp = scratch_get(n, slot);
        goto done;
    }
    e->seen = false;
    e->data = aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64);
    if (e->data) {
        transpose_copy(e->data, A, m, k, lda);
        e->bytes = n * sizeof(float);
        copied_total += e->bytes;
        if (mapped) release_pages(lo, hi);
    }
    scratch_release_idle();
    out = e->data;
done:
    pthread_mutex_unlock(&copy_mu);
    if (tmp) {
        transpose_copy(tmp, A, m, k, lda);
        *scratch = true;
        return tmp;
    }
    return out;
}

/* W (n x k, rows ld apart) as eir_nngemm_pack lays out W^T (k x n): strips of 64 of W's rows, each
 * k rows of 64 floats; a whole strip is one transpose, the last partial strip element by element
 * (zeros past n) */
static void pack_transposed(float *dst, const float *W, int64_t n, int64_t k, int64_t ld) {
    for (int64_t j0 = 0; j0 < n; j0 += 64) {
        float *s = dst + j0 * k;
        int64_t w = n - j0 < 64 ? n - j0 : 64;
        if (w == 64) {
            transpose_copy(s, W + j0 * ld, 64, k, ld);
            continue;
        }
        for (int64_t q = 0; q < k; q++) {
            for (int64_t i = 0; i < w; i++) s[q * 64 + i] = W[(j0 + i) * ld + q];
            memset(s + q * 64 + w, 0, (size_t)(64 - w) * sizeof *s);
        }
    }
}

bool eir_sgemm_is_const(const float *W, int64_t n, int64_t k, int64_t ld) {
    if (n <= 0 || k <= 0 || !ranges_on()) return false;
    const char *lo = (const char *)W, *hi = lo + ((n - 1) * ld + k) * (int64_t)sizeof(float);
    pthread_mutex_lock(&copy_mu);
    bool in = range_owner(lo, hi, NULL) != NULL;
    pthread_mutex_unlock(&copy_mu);
    return in;
}

eir_const_use eir_sgemm_const_packed(const float *W, int64_t n, int64_t k, int64_t ld, const float **P) {
    *P = NULL;
    if (n <= 0 || k <= 0 || !ranges_on()) return EIR_CONST_NONE;
    const char *lo = (const char *)W, *hi = lo + ((n - 1) * ld + k) * (int64_t)sizeof(float);
    eir_const_use use = EIR_CONST_NONE;
    pthread_mutex_lock(&copy_mu);
    if (!nranges) goto done;
    uint32_t b = copy_bucket(W);
    const_copy *e = copy_find(b, W, n, k, ld, true);
    if (e && !e->seen) { /* the copy, or NULL when it could not be made */
        *P = e->data;
        use = e->data ? EIR_CONST_PACKED : EIR_CONST_NONE;
        goto done;
    }
    bool mapped = false;
    const void *owner = range_owner(lo, hi, &mapped);
    if (!owner) goto done;
    if (!e) { /* the first use: nothing kept */
        e = calloc(1, sizeof *e);
        if (!e) goto done;
        *e = (const_copy){W, n, k, ld, owner, NULL, 0, true, true, copies[b]};
        copies[b] = e;
        use = EIR_CONST_FIRST;
        goto done;
    }
    e->seen = false;
    size_t floats = (size_t)eir_nngemm_packed_floats(k, n);
    e->data = aligned_alloc(64, (floats * sizeof(float) + 63) / 64 * 64);
    if (e->data) {
        pack_transposed(e->data, W, n, k, ld);
        e->bytes = floats * sizeof(float);
        copied_total += e->bytes;
        if (mapped) release_pages(lo, hi);
        *P = e->data;
        use = EIR_CONST_PACKED;
    }
done:
    pthread_mutex_unlock(&copy_mu);
    return use;
}

/* oneDNN's OpenMP threads in this thread follow OpenBLAS's count (the file comment). */
static void omp_follow_openblas(void) {
    int nt = openblas_get_num_threads();
    if (nt != gemm_omp_threads && omp_set_num_threads_p) {
        omp_set_num_threads_p(nt > 0 ? nt : 1);
        gemm_omp_threads = nt;
    }
}

bool eir_gemm_bf16_available(void) {
    pthread_once(&gemm_once, gemm_choose);
    return dnnl_gemm_bf16_p != NULL;
}

bool eir_gemm_bf16(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const uint16_t *A, int64_t lda,
                   const uint16_t *B, int64_t ldb, float beta, float *C, int64_t ldc) {
    if (!eir_gemm_bf16_available() || M <= 0 || N <= 0 || K <= 0) return false;
    omp_follow_openblas();
    return dnnl_gemm_bf16_p(ta ? 'T' : 'N', tb ? 'T' : 'N', M, N, K, alpha, A, lda, B, ldb, beta, C, ldc) == 0;
}

void eir_sgemm(CBLAS_ORDER order, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int M, int N, int K, float alpha, const float *A,
               int lda, const float *B, int ldb, float beta, float *C, int ldc) {
    pthread_once(&gemm_once, gemm_choose);
    if (dnnl_sgemm_p && M > 0 && N > 0 && K > 0) {
        omp_follow_openblas();
        /* as Fortran's sgemm sees it: column-major C = op(FA) op(FB); a row-major C = op(A) op(B) is
         * the column-major C^T = op(B)^T op(A)^T. FA, the right-hand operand of the row-major product
         * (a linear layer's weight), is the one that may be constant. */
        bool row = order == CblasRowMajor;
        CBLAS_TRANSPOSE fta = row ? tb : ta;
        if (const_copies && fta == CblasTrans && M > 1 && N > 1) {
            int64_t m = row ? N : M, n = row ? M : N;
            bool scratch = false;
            int slot = -1;
            const float *FA = row ? B : A, *FB = row ? A : B,
                        *At = const_a(m, K, FA, row ? ldb : lda, &scratch, &slot);
            /* the column-major product C = At op(FB), At m x K (leading dimension m), as dnnl_sgemm's
             * row-major C^T = op(FB)^T At^T */
            int rc = At ? dnnl_sgemm_p(trans_char(row ? ta : tb), 'N', n, m, K, alpha, FB, row ? lda : ldb, At, m, beta,
                                       C, ldc)
                        : -1;
            if (scratch) scratch_put((float *)At, slot);
            if (rc == 0) return;
        }
        /* dnnl_sgemm is row-major; a column-major C = op(A) op(B) is the row-major C^T = op(B)^T op(A)^T */
        int rc = order == CblasRowMajor
                     ? dnnl_sgemm_p(trans_char(ta), trans_char(tb), M, N, K, alpha, A, lda, B, ldb, beta, C, ldc)
                     : dnnl_sgemm_p(trans_char(tb), trans_char(ta), N, M, K, alpha, B, ldb, A, lda, beta, C, ldc);
        if (rc == 0) return; /* dnnl_success; anything else (arguments it rejects): OpenBLAS */
    }
    cblas_sgemm(order, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}
