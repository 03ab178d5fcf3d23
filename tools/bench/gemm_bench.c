/* gemm_bench.c — float32 GEMM and convolution libraries compared on the shapes
 * eir runs (docs/GEMM.md). Not part of `make`: `make gemm-bench` builds it
 * (it links oneDNN and XNNPACK, optional Debian packages).
 *
 *   gemm_bench peak
 *       this core's float32 FMA throughput (12 independent AVX2 FMA chains,
 *       and 512-bit ones where the CPU has AVX-512F) and its clock (a chain
 *       of dependent 1-cycle register adds), thread CPU time, so time slices
 *       lost to other jobs do not count
 *   gemm_bench gemm [--threads T] [--reps R] [--set resnet18|winograd|mobilenet_v2|mobilenet_v3|bert|gpt2|llama|all] [--epi 1] LIB...
 *       sgemm on the GEMMs of the benchmark models, the libraries taking turns
 *       call by call (a busy machine slows them alike); per shape the median
 *       GFLOP/s, then per model the sum of the median times weighted by how
 *       often each GEMM runs. --epi 1: linear layers add their bias and
 *       activation (GELU, SiLU), as post-ops for dnnl-mm, in a separate pass
 *       over C for the others
 *   gemm_bench bf16 [--threads T] [--reps R]
 *       bfloat16 linear layers (C = A W^T, W stored N x K) of the transformer
 *       benchmarks: oneDNN's dnnl_gemm_bf16bf16f32 against dnnl_sgemm on the
 *       same values in float32, taking turns; median ms and GFLOP/s per shape
 *   gemm_bench conv [--threads T] [--reps R] LIB...
 *       the 3x3 convolutions of ResNet-18 end to end: im2col + sgemm with each
 *       BLAS LIB, and the pseudo-libraries dnnl-conv (oneDNN's convolution on
 *       its blocked layouts, reorders outside the timing), dnnl-conv-nchw
 *       (reorder NCHW in, convolve, reorder out, all timed) and xnn-conv
 *       (XNNPACK's NHWC convolution)
 *
 * LIB: openblas (the system's libopenblas.so.0), openblas-pthread,
 * openblas-openmp, blis-pthread, blis-openmp (loaded with dlopen, so several
 * cblas_sgemm live in one process), dnnl (dnnl_sgemm), xnn (XNNPACK's fully
 * connected operator: C^T = B^T A^T as an NHWC 1x1 convolution computes it),
 * and with the weight prepared once, outside the timing: dnnl-mm (oneDNN's
 * matmul primitive, weights in the format it picks), dnnl-pack (oneDNN 2.x's
 * internal sgemm_pack / sgemm_compute, B packed), wgemm (eir's kernel for
 * linear layers of few rows, src/kernels/wgemm.c, B as stored), nngemm (eir's kernel for the
 * Winograd convolution's products, src/kernels/nngemm.c, B packed in strips), dnnl-bt (dnnl_sgemm on a
 * B^T copy). NAME-blk runs NAME in the blocks eir's thread pool cuts a large
 * product into (src/kernels/nn.c, gemm_split), each prepared on its own.
 * OPENBLAS_CORETYPE and the like are read from the environment as usual;
 * NAME:CORE (openblas-openmp:Haswell) sets OPENBLAS_CORETYPE=CORE for that
 * library alone, so two OpenBLAS core types can take turns in one process.
 * --threads sets OPENBLAS_NUM_THREADS, BLIS_NUM_THREADS and OMP_NUM_THREADS
 * and runs the program again, so every library starts with that count. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <oneapi/dnnl/dnnl.h>
#include <pthreadpool.h>
#include <xnnpack.h>
#include "kernels/nngemm.h"
#include "kernels/wgemm.h"


static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static double cpu_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* one thread: the calling thread's CPU time (every library computes in the calling thread then),
 * so time slices lost to other jobs do not count; more threads: wall-clock time */
static int nthreads = 1;
static double timer_s(void) { return nthreads == 1 ? cpu_s() : now_s(); }

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void die(const char *m1, const char *m2) {
    fprintf(stderr, "gemm_bench: %s%s\n", m1, m2 ? m2 : "");
    exit(1);
}

static float *falloc(size_t n) {
    float *p = aligned_alloc(64, ((n ? n : 1) * sizeof(float) + 63) / 64 * 64);
    if (!p) die("out of memory", NULL);
    return p;
}

static void frand(float *p, size_t n, uint64_t seed) {
    for (size_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        p[i] = (float)((seed >> 40) & 0xffff) / 32768.f - 1.f;
    }
}

/* ---------------------------------------------------------------- peak */

/* 12 independent chains of 512-bit FMAs, n rounds: thread CPU seconds */
__attribute__((target("avx512f"))) static double fma512_s(long n) {
    double t0 = cpu_s();
    __asm__ volatile("vxorps %%zmm0,%%zmm0,%%zmm0\n\tvxorps %%zmm1,%%zmm1,%%zmm1\n\tvxorps %%zmm2,%%zmm2,%%zmm2\n\t"
                     "vxorps %%zmm3,%%zmm3,%%zmm3\n\tvxorps %%zmm4,%%zmm4,%%zmm4\n\tvxorps %%zmm5,%%zmm5,%%zmm5\n\t"
                     "vxorps %%zmm6,%%zmm6,%%zmm6\n\tvxorps %%zmm7,%%zmm7,%%zmm7\n\tvxorps %%zmm8,%%zmm8,%%zmm8\n\t"
                     "vxorps %%zmm9,%%zmm9,%%zmm9\n\tvxorps %%zmm10,%%zmm10,%%zmm10\n\tvxorps %%zmm11,%%zmm11,%%zmm11\n\t"
                     "vxorps %%zmm14,%%zmm14,%%zmm14\n\tvxorps %%zmm15,%%zmm15,%%zmm15\n"
                     "1:\n\t"
                     "vfmadd231ps %%zmm14,%%zmm15,%%zmm0\n\tvfmadd231ps %%zmm14,%%zmm15,%%zmm1\n\t"
                     "vfmadd231ps %%zmm14,%%zmm15,%%zmm2\n\tvfmadd231ps %%zmm14,%%zmm15,%%zmm3\n\t"
                     "vfmadd231ps %%zmm14,%%zmm15,%%zmm4\n\tvfmadd231ps %%zmm14,%%zmm15,%%zmm5\n\t"
                     "vfmadd231ps %%zmm14,%%zmm15,%%zmm6\n\tvfmadd231ps %%zmm14,%%zmm15,%%zmm7\n\t"
                     "vfmadd231ps %%zmm14,%%zmm15,%%zmm8\n\tvfmadd231ps %%zmm14,%%zmm15,%%zmm9\n\t"
                     "vfmadd231ps %%zmm14,%%zmm15,%%zmm10\n\tvfmadd231ps %%zmm14,%%zmm15,%%zmm11\n\t"
                     "dec %0\n\tjnz 1b\n\tvzeroupper\n"
                     : "+r"(n)
                     :
                     : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
                       "xmm14", "xmm15", "cc");
    return cpu_s() - t0;
}

static void peak(void) {
    bool z = __builtin_cpu_supports("avx512f");
    printf("rep  fma_GFLOPs  clock_GHz  FLOP/cycle%s\n", z ? "  fma512_GFLOPs  FLOP/cycle" : "");
    double g[9], c[9], g5[9];
    for (int rep = 0; rep < 9; rep++) {
        long n = 100000000, m = 500000000;
        double t0 = cpu_s();
        __asm__ volatile("vxorps %%ymm0,%%ymm0,%%ymm0\n\tvxorps %%ymm1,%%ymm1,%%ymm1\n\tvxorps %%ymm2,%%ymm2,%%ymm2\n\t"
                         "vxorps %%ymm3,%%ymm3,%%ymm3\n\tvxorps %%ymm4,%%ymm4,%%ymm4\n\tvxorps %%ymm5,%%ymm5,%%ymm5\n\t"
                         "vxorps %%ymm6,%%ymm6,%%ymm6\n\tvxorps %%ymm7,%%ymm7,%%ymm7\n\tvxorps %%ymm8,%%ymm8,%%ymm8\n\t"
                         "vxorps %%ymm9,%%ymm9,%%ymm9\n\tvxorps %%ymm10,%%ymm10,%%ymm10\n\tvxorps %%ymm11,%%ymm11,%%ymm11\n\t"
                         "vxorps %%ymm14,%%ymm14,%%ymm14\n\tvxorps %%ymm15,%%ymm15,%%ymm15\n"
                         "1:\n\t"
                         "vfmadd231ps %%ymm14,%%ymm15,%%ymm0\n\tvfmadd231ps %%ymm14,%%ymm15,%%ymm1\n\t"
                         "vfmadd231ps %%ymm14,%%ymm15,%%ymm2\n\tvfmadd231ps %%ymm14,%%ymm15,%%ymm3\n\t"
                         "vfmadd231ps %%ymm14,%%ymm15,%%ymm4\n\tvfmadd231ps %%ymm14,%%ymm15,%%ymm5\n\t"
                         "vfmadd231ps %%ymm14,%%ymm15,%%ymm6\n\tvfmadd231ps %%ymm14,%%ymm15,%%ymm7\n\t"
                         "vfmadd231ps %%ymm14,%%ymm15,%%ymm8\n\tvfmadd231ps %%ymm14,%%ymm15,%%ymm9\n\t"
                         "vfmadd231ps %%ymm14,%%ymm15,%%ymm10\n\tvfmadd231ps %%ymm14,%%ymm15,%%ymm11\n\t"
                         "dec %0\n\tjnz 1b\n\tvzeroupper\n"
                         : "+r"(n)
                         :
                         : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
                           "xmm14", "xmm15", "cc");
        double tf = cpu_s() - t0;
        long x = 0;
        t0 = cpu_s();
        long one = 1; /* a register operand: Intel cores since Alder Lake fold chains of add-immediate at rename */
        __asm__ volatile("1:\n\tadd %2,%0\n\tadd %2,%0\n\tadd %2,%0\n\tadd %2,%0\n\tdec %1\n\tjnz 1b"
                         : "+r"(x), "+r"(m)
                         : "r"(one)
                         : "cc");
        double tc = cpu_s() - t0;
        g[rep] = 1e8 * 12 * 16 / tf / 1e9;
        c[rep] = 4.0 * 5e8 / tc / 1e9;
        g5[rep] = z ? 1e8 * 12 * 32 / fma512_s(100000000) / 1e9 : 0;
        printf("%3d  %10.1f  %9.2f  %10.1f", rep, g[rep], c[rep], g[rep] / c[rep]);
        if (z) printf("  %13.1f  %10.1f", g5[rep], g5[rep] / c[rep]);
        printf("\n");
    }
    double gm = median(g, 9), cm = median(c, 9);
    printf("median  %.1f GFLOP/s  %.2f GHz  %.1f FLOP/cycle\n", gm, cm, gm / cm);
    if (z) {
        double g5m = median(g5, 9);
        printf("median AVX-512  %.1f GFLOP/s  %.1f FLOP/cycle\n", g5m, g5m / cm);
    }
}

/* ---------------------------------------------------------------- libraries */

typedef void (*cblas_sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *, int);
enum { ROW = 101, NOTRANS = 111, TRANS = 112 };

typedef struct lib {
    const char *name;
    int kind; /* 0 cblas, 1 dnnl, 2 xnn, 3 dnnl-mm, 4 dnnl-pack, 5 dnnl-bt */
    bool blk; /* NAME-blk: in the column (or row) blocks eir's thread pool cuts a large product into */
    cblas_sgemm_fn sgemm;
    char info[160];
} lib;

static const struct { const char *name, *path; } BLAS[] = {
    {"openblas", "libopenblas.so.0"},
    {"openblas-pthread", "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0"},
    {"openblas-openmp", "/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0"},
    {"blis-pthread", "/usr/lib/x86_64-linux-gnu/blis-pthread/libblis.so.4"},
    {"blis-openmp", "/usr/lib/x86_64-linux-gnu/blis-openmp/libblis.so.4"},
};

static pthreadpool_t xpool;

static dnnl_engine_t eng;
static dnnl_stream_t strm;

#define DN(call)                                                                                                       \
    do {                                                                                                               \
        if ((call) != dnnl_success) die("oneDNN call failed: ", #call);                                                \
    } while (0)

/* oneDNN 2.x's packed sgemm (the one its RNN primitives use): exported from libdnnl.so.2 as C++
 * functions, absent from its public headers. Fortran conventions: column-major, arguments by address;
 * sgemm_compute takes 'P' for the operand sgemm_pack packed. */
typedef dnnl_status_t (*pack_size_fn)(const char *, const char *, const char *, const int64_t *, const int64_t *,
                                      const int64_t *, const int64_t *, const int64_t *, size_t *, bool *);
typedef dnnl_status_t (*pack_fn)(const char *, const char *, const char *, const int64_t *, const int64_t *, const int64_t *,
                                 const int64_t *, const int64_t *, const float *, float *);
typedef dnnl_status_t (*compute_fn)(const char *, const char *, const int64_t *, const int64_t *, const int64_t *,
                                    const float *, const int64_t *, const float *, const int64_t *, const float *, float *,
                                    const int64_t *);
static pack_size_fn pack_size_p;
static pack_fn pack_p;
static compute_fn compute_p;

static void lib_open(lib *l, const char *name) {
    memset(l, 0, sizeof *l);
    l->name = name;
    size_t len = strlen(name);
    if (len > 4 && !strcmp(name + len - 4, "-blk")) {
        static char base[16][64];
        static int nbase;
        if (nbase == 16 || len - 4 >= sizeof base[0]) die("too many -blk libraries", NULL);
        memcpy(base[nbase], name, len - 4);
        lib_open(l, base[nbase++]);
        l->name = name;
        l->blk = true;
        return;
    }
    if (!strcmp(name, "wgemm")) {
        l->kind = 6;
        eir_wgemm_set(1);
        if (!eir_wgemm_enabled()) die("wgemm needs AVX-512F", NULL);
        snprintf(l->info, sizeof l->info, "eir's kernel for linear layers of few rows (src/kernels/wgemm.c), B^T as stored");
        return;
    }
    if (!strcmp(name, "nngemm")) {
        l->kind = 7;
        eir_nngemm_set(1);
        if (!eir_nngemm_enabled()) die("nngemm needs AVX-512F", NULL);
        snprintf(l->info, sizeof l->info, "eir's kernel for the Winograd products (src/kernels/nngemm.c), B packed once");
        return;
    }
    if (!strcmp(name, "dnnl-bt")) {
        l->kind = 5;
        snprintf(l->info, sizeof l->info, "dnnl_sgemm on a K x N copy of a transposed B made once");
        return;
    }
    if (!strcmp(name, "dnnl-mm") || !strcmp(name, "dnnl-pack")) {
        l->kind = name[5] == 'm' ? 3 : 4;
        if (!eng) {
            DN(dnnl_engine_create(&eng, dnnl_cpu, 0));
            DN(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
        }
        if (l->kind == 4) {
            pack_size_p = (pack_size_fn)dlsym(RTLD_DEFAULT, "_ZN4dnnl4impl3cpu19sgemm_pack_get_sizeEPKcS3_S3_PKlS5_S5_S5_S5_PmPb");
            pack_p = (pack_fn)dlsym(RTLD_DEFAULT, "_ZN4dnnl4impl3cpu10sgemm_packEPKcS3_S3_PKlS5_S5_S5_S5_PKfPf");
            compute_p = (compute_fn)dlsym(RTLD_DEFAULT, "_ZN4dnnl4impl3cpu13sgemm_computeEPKcS3_PKlS5_S5_PKfS5_S7_S5_S7_PfS5_");
            if (!pack_size_p || !pack_p || !compute_p) die("this libdnnl has no sgemm_pack / sgemm_compute", NULL);
            snprintf(l->info, sizeof l->info, "oneDNN's internal sgemm_pack (B packed once) + sgemm_compute");
        } else snprintf(l->info, sizeof l->info, "oneDNN matmul primitive, weights in the format it picks, reordered once");
        return;
    }
    if (!strcmp(name, "dnnl")) {
        l->kind = 1;
        const dnnl_version_t *v = dnnl_version();
        snprintf(l->info, sizeof l->info, "oneDNN %d.%d.%d (cpu runtime %u, isa %d)", v->major, v->minor, v->patch,
                 v->cpu_runtime, (int)dnnl_get_effective_cpu_isa());
        return;
    }
    if (!strcmp(name, "xnn")) {
        l->kind = 2;
        if (xnn_initialize(NULL) != xnn_status_success) die("xnn_initialize failed", NULL);
        if (nthreads > 1 && !xpool) xpool = pthreadpool_create((size_t)nthreads);
        snprintf(l->info, sizeof l->info, "XNNPACK (Debian 0.0~git20220216)");
        return;
    }
    const char *colon = strchr(name, ':'); /* openblas-openmp:Haswell: that OPENBLAS_CORETYPE */
    size_t nlen = colon ? (size_t)(colon - name) : strlen(name);
    for (size_t i = 0; i < sizeof BLAS / sizeof BLAS[0]; i++) {
        if (strlen(BLAS[i].name) != nlen || strncmp(name, BLAS[i].name, nlen)) continue;
        if (colon) setenv("OPENBLAS_CORETYPE", colon + 1, 1); /* read when the library loads */
        void *h = dlopen(BLAS[i].path, RTLD_NOW | RTLD_LOCAL);
        if (!h) die("cannot load ", dlerror());
        l->sgemm = (cblas_sgemm_fn)dlsym(h, "cblas_sgemm");
        if (!l->sgemm) die("no cblas_sgemm in ", BLAS[i].path);
        void (*set_obl)(int) = (void (*)(int))dlsym(h, "openblas_set_num_threads");
        void (*set_bli)(long) = (void (*)(long))dlsym(h, "bli_thread_set_num_threads");
        if (set_obl) set_obl(nthreads);
        if (set_bli) set_bli(nthreads);
        char *(*cfg)(void) = (char *(*)(void))dlsym(h, "openblas_get_config");
        char *(*core)(void) = (char *(*)(void))dlsym(h, "openblas_get_corename");
        const char *(*bver)(void) = (const char *(*)(void))dlsym(h, "bli_info_get_version_str");
        const char *(*barch)(int) = (const char *(*)(int))dlsym(h, "bli_arch_string");
        int (*barchid)(void) = (int (*)(void))dlsym(h, "bli_arch_query_id");
        if (cfg && core) snprintf(l->info, sizeof l->info, "%s [core %s]", cfg(), core());
        else if (bver && barch && barchid) snprintf(l->info, sizeof l->info, "BLIS %s [arch %s]", bver(), barch(barchid()));
        return;
    }
    die("unknown library ", name);
}

/* C (M x N) = A (M x K) B, row-major; B is K x N, or N x K when tb (a linear layer's weight). */
typedef struct shape {
    const char *model, *what;
    int M, N, K;
    bool tb;
    int count; /* times per forward pass */
    int epi;   /* a linear layer's epilogue (--epi): 0 none, 1 bias, 2 bias + GELU (erf), 3 bias + GELU (tanh), 4 SiLU */
} shape;

static const shape SHAPES[] = {
    /* ResNet-18, 224x224: im2col GEMMs, M = Cout, N = OH*OW, K = Cin*kh*kw */
    {"resnet18", "conv1 7x7/2", 64, 12544, 147, false, 1, 0},
    {"resnet18", "layer1 3x3", 64, 3136, 576, false, 4, 0},
    {"resnet18", "layer2.0 3x3/2", 128, 784, 576, false, 1, 0},
    {"resnet18", "layer2 3x3", 128, 784, 1152, false, 3, 0},
    {"resnet18", "layer2 down 1x1/2", 128, 784, 64, false, 1, 0},
    {"resnet18", "layer3.0 3x3/2", 256, 196, 1152, false, 1, 0},
    {"resnet18", "layer3 3x3", 256, 196, 2304, false, 3, 0},
    {"resnet18", "layer3 down 1x1/2", 256, 196, 128, false, 1, 0},
    {"resnet18", "layer4.0 3x3/2", 512, 49, 2304, false, 1, 0},
    {"resnet18", "layer4 3x3", 512, 49, 4608, false, 3, 0},
    {"resnet18", "layer4 down 1x1/2", 512, 49, 256, false, 1, 0},
    {"resnet18", "fc", 1, 1000, 512, true, 1, 0},
    /* ResNet-18's Winograd F(2x2, 3x3) convolutions (src/kernels/dnnl_conv.c): per block of tile rows,
     * 16 products tiles x C times C x O (M = tiles, N = O or half of it, K = C) */
    {"winograd", "layer1 3x3 (4 blocks)", 196, 64, 64, false, 16 * 4 * 4, 0},
    {"winograd", "layer2 3x3 (2 blocks)", 98, 128, 128, false, 16 * 2 * 3, 0},
    {"winograd", "layer3 3x3 (halves of O)", 49, 128, 256, false, 16 * 2 * 3, 0},
    /* MobileNetV2, 224x224: the first conv and the 1x1 convs (expand / project); depthwise is not a GEMM */
    {"mobilenet_v2", "conv 3x3/2", 32, 12544, 27, false, 1, 0},
    {"mobilenet_v2", "b1 project", 16, 12544, 32, false, 1, 0},
    {"mobilenet_v2", "b2 expand 112", 96, 12544, 16, false, 1, 0},
    {"mobilenet_v2", "b2 project", 24, 3136, 96, false, 1, 0},
    {"mobilenet_v2", "b2 expand 56", 144, 3136, 24, false, 2, 0},
    {"mobilenet_v2", "b2 project", 24, 3136, 144, false, 1, 0},
    {"mobilenet_v2", "b3 project", 32, 784, 144, false, 1, 0},
    {"mobilenet_v2", "b3 expand 28", 192, 784, 32, false, 3, 0},
    {"mobilenet_v2", "b3 project", 32, 784, 192, false, 2, 0},
    {"mobilenet_v2", "b4 project", 64, 196, 192, false, 1, 0},
    {"mobilenet_v2", "b4 expand 14", 384, 196, 64, false, 4, 0},
    {"mobilenet_v2", "b4 project", 64, 196, 384, false, 3, 0},
    {"mobilenet_v2", "b5 project", 96, 196, 384, false, 1, 0},
    {"mobilenet_v2", "b5 expand 14", 576, 196, 96, false, 3, 0},
    {"mobilenet_v2", "b5 project", 96, 196, 576, false, 2, 0},
    {"mobilenet_v2", "b6 project", 160, 49, 576, false, 1, 0},
    {"mobilenet_v2", "b6 expand 7", 960, 49, 160, false, 3, 0},
    {"mobilenet_v2", "b6 project", 160, 49, 960, false, 2, 0},
    {"mobilenet_v2", "b7 project", 320, 49, 960, false, 1, 0},
    {"mobilenet_v2", "last 1x1", 1280, 49, 320, false, 1, 0},
    {"mobilenet_v2", "classifier", 1, 1000, 1280, true, 1, 0},
    /* MobileNetV3-Large, 224x224: its 1x1 convolutions at 14 x 14 and 7 x 7 as the chains' channels-last
     * layout computes them (src/kernels/fused.c, conv_1x1_gemm): pixels x C times the O x C weight as stored */
    {"mobilenet_v3", "expand 14 (80 -> 480)", 196, 480, 80, true, 1, 0},
    {"mobilenet_v3", "expand 14 (112 -> 672)", 196, 672, 112, true, 2, 0},
    {"mobilenet_v3", "project 14 (672 -> 112)", 196, 112, 672, true, 1, 0},
    {"mobilenet_v3", "project 7 (672 -> 160)", 49, 160, 672, true, 1, 0},
    {"mobilenet_v3", "expand 7 (160 -> 960)", 49, 960, 160, true, 3, 0},
    {"mobilenet_v3", "project 7 (960 -> 160)", 49, 160, 960, true, 2, 0},
    /* nn.TransformerEncoder 768 wide, 12 heads, FF 3072, seq 128 (per layer) */
    {"bert", "in_proj", 128, 2304, 768, true, 1, 1},
    {"bert", "attn q k^T", 128, 128, 64, true, 12, 0},
    {"bert", "attn p v", 128, 64, 128, false, 12, 0},
    {"bert", "out_proj", 128, 768, 768, true, 1, 1},
    {"bert", "linear1", 128, 3072, 768, true, 1, 2},
    {"bert", "linear2", 128, 768, 3072, true, 1, 1},
    /* GPT-2-small-shaped decoder, prefill 64 (per layer, then the head) */
    {"gpt2", "qkv", 64, 2304, 768, true, 1, 1},
    {"gpt2", "attn q k^T", 64, 64, 64, true, 12, 0},
    {"gpt2", "attn p v", 64, 64, 64, false, 12, 0},
    {"gpt2", "proj", 64, 768, 768, true, 1, 1},
    {"gpt2", "fc", 64, 3072, 768, true, 1, 3},
    {"gpt2", "out", 64, 768, 3072, true, 1, 1},
    {"gpt2", "lm head (once)", 64, 50257, 768, true, 0, 0},
    /* Llama block (python/bench/models.py): 2048 wide, 32 query heads over 8 key/value heads (GQA),
     * SwiGLU 5632, sequence 64, no biases */
    {"llama", "wq", 64, 2048, 2048, true, 1, 0},
    {"llama", "wk / wv", 64, 512, 2048, true, 2, 0},
    {"llama", "attn q k^T", 64, 64, 64, true, 32, 0},
    {"llama", "attn p v", 64, 64, 64, false, 32, 0},
    {"llama", "wo", 64, 2048, 2048, true, 1, 0},
    {"llama", "w1 (SiLU)", 64, 5632, 2048, true, 1, 4},
    {"llama", "w3", 64, 5632, 2048, true, 1, 0},
    {"llama", "w2", 64, 2048, 5632, true, 1, 0},
};
#define NSHAPES ((int)(sizeof SHAPES / sizeof SHAPES[0]))

/* per library and shape: what is made once, as binding would (XNNPACK's operator, oneDNN's
 * matmul primitives with their reordered weights, packed B) */
enum { MAXBLK = 12 };
typedef struct xfc {
    xnn_operator_t op;
    int nb;
    dnnl_primitive_t mm[MAXBLK];
    dnnl_memory_t msrc[MAXBLK], mwei[MAXBLK], mdst[MAXBLK], mbias[MAXBLK];
    float *packed[MAXBLK];
} xfc;

static bool epi_mode;  /* --epi: linear layers add their bias and activation */
static float *epi_bias; /* N entries, set per shape */

/* eir's cut of a large product into blocks (src/kernels/nn.c, gemm_split), at one thread */
static int eir_blocks(const shape *s, bool *bycol) {
    double flops = 2.0 * s->M * s->N * s->K, least = 1 << 21;
    *bycol = s->N >= s->M;
    if (flops < least) return 1;
    int64_t nb = *bycol ? s->N / 128 : s->M / 64, most = *bycol ? 12 : 4;
    if (nb > most) nb = most;
    if ((double)nb > flops / least) nb = (int64_t)(flops / least);
    return nb < 2 ? 1 : (int)nb;
}
static int64_t blk_start(int64_t n, int64_t nb, int64_t b) { return b >= nb ? n : (n * b / nb) & ~(int64_t)15; }

static dnnl_alg_kind_t epi_alg(int epi) {
    return epi == 2 ? dnnl_eltwise_gelu_erf : epi == 3 ? dnnl_eltwise_gelu_tanh : dnnl_eltwise_swish;
}

static float act(float v, int epi) {
    if (epi == 2) return 0.5f * v * (1.f + erff(v * 0.70710678f));
    if (epi == 3) return 0.5f * v * (1.f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
    if (epi == 4) return v / (1.f + expf(-v));
    return v;
}

/* the matmul primitive for C (M x N, ldc) = A (M x K, lda) B (K x N, or N x K when tb, ldb) [+ bias, act] */
static void mm_make(xfc *x, int bi, const shape *s, int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                    float *C, int ldc, const float *bias) {
    dnnl_dims_t sd = {M, K}, wd = {K, N}, dd = {M, N}, bd = {1, N};
    dnnl_dims_t ss = {lda, 1}, ws = {s->tb ? 1 : ldb, s->tb ? ldb : 1}, ds = {ldc, 1}, bs = {N, 1};
    dnnl_memory_desc_t smd, wmd, uwmd, dmd, bmd;
    DN(dnnl_memory_desc_init_by_strides(&smd, 2, sd, dnnl_f32, ss));
    DN(dnnl_memory_desc_init_by_strides(&uwmd, 2, wd, dnnl_f32, ws));
    DN(dnnl_memory_desc_init_by_tag(&wmd, 2, wd, dnnl_f32, dnnl_format_tag_any));
    DN(dnnl_memory_desc_init_by_strides(&dmd, 2, dd, dnnl_f32, ds));
    DN(dnnl_memory_desc_init_by_strides(&bmd, 2, bd, dnnl_f32, bs));
    bool epi = epi_mode && s->epi;
    dnnl_matmul_desc_t md;
    DN(dnnl_matmul_desc_init(&md, &smd, &wmd, epi && s->epi != 4 ? &bmd : NULL, &dmd));
    dnnl_primitive_attr_t attr;
    DN(dnnl_primitive_attr_create(&attr));
    if (epi && s->epi >= 2) {
        dnnl_post_ops_t po;
        DN(dnnl_post_ops_create(&po));
        DN(dnnl_post_ops_append_eltwise(po, 1.f, epi_alg(s->epi), 1.f, 0.f));
        DN(dnnl_primitive_attr_set_post_ops(attr, po));
        dnnl_post_ops_destroy(po);
    }
    dnnl_primitive_desc_t pd;
    DN(dnnl_primitive_desc_create(&pd, &md, attr, eng, NULL));
    dnnl_primitive_attr_destroy(attr);
    if (bi == 0) {
        const char *impl = NULL;
        dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
        const dnnl_memory_desc_t *qw = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
        fprintf(stderr, "  matmul %s %s: impl %s, weights %s strides %lld,%lld inner blocks %d\n", s->model, s->what,
                impl ? impl : "?", qw->format_kind == dnnl_blocked ? "blocked" : "other",
                (long long)qw->format_desc.blocking.strides[0], (long long)qw->format_desc.blocking.strides[1],
                qw->format_desc.blocking.inner_nblks);
    }
    const dnnl_memory_desc_t *qw = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    DN(dnnl_primitive_create(&x->mm[bi], pd));
    DN(dnnl_memory_create(&x->msrc[bi], &smd, eng, (void *)A));
    DN(dnnl_memory_create(&x->mdst[bi], &dmd, eng, C));
    DN(dnnl_memory_create(&x->mbias[bi], &bmd, eng, (void *)bias));
    DN(dnnl_memory_create(&x->mwei[bi], qw, eng, DNNL_MEMORY_ALLOCATE));
    dnnl_memory_t uw;
    DN(dnnl_memory_create(&uw, &uwmd, eng, (void *)B));
    dnnl_primitive_desc_t rpd;
    dnnl_primitive_t rw;
    DN(dnnl_reorder_primitive_desc_create(&rpd, &uwmd, eng, qw, eng, NULL));
    DN(dnnl_primitive_create(&rw, rpd));
    dnnl_exec_arg_t ra[2] = {{DNNL_ARG_FROM, uw}, {DNNL_ARG_TO, x->mwei[bi]}};
    DN(dnnl_primitive_execute(rw, strm, 2, ra));
    DN(dnnl_stream_wait(strm));
    dnnl_primitive_destroy(rw);
    dnnl_primitive_desc_destroy(rpd);
    dnnl_memory_destroy(uw);
    dnnl_primitive_desc_destroy(pd);
}

/* one product (or block) C (M x N, ldc) = A (M x K, lda) B */
static void gemm_one(const lib *l, const shape *s, xfc *x, int bi, int M, int N, int K, const float *A, int lda,
                     const float *B, int ldb, float *C, int ldc, const float *bias) {
    if (l->kind == 0) {
        l->sgemm(ROW, NOTRANS, s->tb ? TRANS : NOTRANS, M, N, K, 1.f, A, lda, B, ldb, 0.f, C, ldc);
    } else if (l->kind == 1) {
        if (dnnl_sgemm('N', s->tb ? 'T' : 'N', M, N, K, 1.f, A, lda, B, ldb, 0.f, C, ldc) != dnnl_success)
            die("dnnl_sgemm failed", NULL);
    } else if (l->kind == 6) {
        /* B transposed: W (N x K) as stored; a plain B (K x N): an N x K copy made once */
        if (!s->tb && !x->packed[bi]) {
            x->packed[bi] = falloc((size_t)K * N);
            for (int q = 0; q < K; q++)
                for (int j = 0; j < N; j++) x->packed[bi][(size_t)j * K + q] = B[(size_t)q * ldb + j];
        }
        int rc = s->tb ? eir_wgemm_f32(M, N, K, A, lda, B, ldb, NULL, 0, C, ldc)
                       : eir_wgemm_f32(M, N, K, A, lda, x->packed[bi], K, NULL, 0, C, ldc);
        if (rc) die("eir_wgemm_f32 failed", NULL);
    } else if (l->kind == 7) {
        /* B (K x N; a transposed B copied to K x N first) packed into strips once */
        if (!x->packed[bi]) {
            float *kn = falloc((size_t)K * N);
            for (int q = 0; q < K; q++)
                for (int j = 0; j < N; j++) kn[(size_t)q * N + j] = s->tb ? B[(size_t)j * ldb + q] : B[(size_t)q * ldb + j];
            x->packed[bi] = falloc((size_t)eir_nngemm_packed_floats(K, N));
            eir_nngemm_pack(K, N, kn, N, x->packed[bi]);
            free(kn);
        }
        if (eir_nngemm_f32(M, N, K, A, lda, x->packed[bi], C, ldc, NULL)) die("eir_nngemm_f32 failed", NULL);
    } else if (l->kind == 5) {
        if (s->tb && !x->packed[bi]) { /* B^T (K x N) once */
            x->packed[bi] = falloc((size_t)K * N);
            for (int j = 0; j < N; j++)
                for (int q = 0; q < K; q++) x->packed[bi][(size_t)q * N + j] = B[(size_t)j * ldb + q];
        }
        int rc = s->tb ? dnnl_sgemm('N', 'N', M, N, K, 1.f, A, lda, x->packed[bi], N, 0.f, C, ldc)
                       : dnnl_sgemm('N', 'N', M, N, K, 1.f, A, lda, B, ldb, 0.f, C, ldc);
        if (rc != dnnl_success) die("dnnl_sgemm failed", NULL);
    } else if (l->kind == 3) {
        if (!x->mm[bi]) mm_make(x, bi, s, M, N, K, A, lda, B, ldb, C, ldc, bias);
        dnnl_exec_arg_t a[4] = {{DNNL_ARG_SRC, x->msrc[bi]}, {DNNL_ARG_WEIGHTS, x->mwei[bi]}, {DNNL_ARG_DST, x->mdst[bi]},
                                {DNNL_ARG_BIAS, x->mbias[bi]}};
        DN(dnnl_primitive_execute(x->mm[bi], strm, epi_mode && s->epi && s->epi != 4 ? 4 : 3, a));
        DN(dnnl_stream_wait(strm));
    } else if (l->kind == 4) {
        /* column-major: C^T (N x M) = op(B^T) A^T, B the packed operand */
        int64_t m = N, n = M, k = K, la = ldb, lb = lda, lc = ldc;
        const char *ta = s->tb ? "T" : "N";
        if (!x->packed[bi]) {
            size_t sz = 0;
            bool pk = false;
            if (pack_size_p("A", ta, "N", &m, &n, &k, &la, &lb, &sz, &pk) != dnnl_success) die("sgemm_pack_get_size failed", NULL);
            x->packed[bi] = falloc(sz / sizeof(float) + 16);
            if (pack_p("A", ta, "N", &m, &n, &k, &la, &lb, B, x->packed[bi]) != dnnl_success) die("sgemm_pack failed", NULL);
        }
        float beta = 0.f;
        if (compute_p("P", "N", &m, &n, &k, x->packed[bi], &la, A, &lb, &beta, C, &lc) != dnnl_success)
            die("sgemm_compute failed", NULL);
    } else {
        /* fully connected: out[M][N] = in[M][K] W[N][K]^T; a non-transposed B is fed as the weight of
         * the transposed problem (out^T = B^T A^T), which is what an NHWC 1x1 convolution computes */
        if (!x->op) {
            size_t ic = (size_t)K, oc = s->tb ? (size_t)N : (size_t)M;
            float *w = falloc(ic * oc);
            if (s->tb) memcpy(w, B, ic * oc * sizeof(float));
            else memcpy(w, A, ic * oc * sizeof(float)); /* A is Cout x Cin: the conv weight */
            if (xnn_create_fully_connected_nc_f32(ic, oc, ic, oc, w, NULL, -INFINITY, INFINITY, 0, &x->op) != xnn_status_success)
                die("xnn_create_fully_connected_nc_f32 failed", NULL);
            free(w);
        }
        size_t batch = s->tb ? (size_t)M : (size_t)N;
        const float *in = s->tb ? A : B; /* B (K x N) stands in for the N x K NHWC input: same size */
        if (xnn_setup_fully_connected_nc_f32(x->op, batch, in, C, xpool) != xnn_status_success ||
            xnn_run_operator(x->op, xpool) != xnn_status_success)
            die("XNNPACK fully connected failed", NULL);
    }
}

/* one call of library l on shape s (in eir's blocks for NAME-blk), then with --epi the linear layer's
 * bias and activation: oneDNN's matmul as post-ops, the others in a separate pass over C */
static void run_gemm(const lib *l, const shape *s, const float *A, const float *B, float *C, xfc *x) {
    int M = s->M, N = s->N, K = s->K, lda = K, ldb = s->tb ? K : N, ldc = N;
    bool bycol = true;
    int nb = l->blk && l->kind != 2 ? eir_blocks(s, &bycol) : 1;
    bool epi = epi_mode && s->epi;
    for (int b = 0; b < nb; b++) {
        int64_t lo = blk_start(bycol ? N : M, nb, b), hi = blk_start(bycol ? N : M, nb, b + 1);
        if (nb == 1) lo = 0, hi = bycol ? N : M;
        if (bycol)
            gemm_one(l, s, x, b, M, (int)(hi - lo), K, A, lda, B + (s->tb ? lo * ldb : lo), ldb, C + lo, ldc, epi_bias ? epi_bias + lo : NULL);
        else gemm_one(l, s, x, b, (int)(hi - lo), N, K, A + lo * lda, lda, B, ldb, C + lo * ldc, ldc, epi_bias);
    }
    if (epi && l->kind != 3)
        for (int i = 0; i < M; i++) {
            float *c = C + (size_t)i * ldc;
            if (s->epi != 4)
                for (int j = 0; j < N; j++) c[j] += epi_bias[j];
            if (s->epi >= 2)
                for (int j = 0; j < N; j++) c[j] = act(c[j], s->epi);
        }
}

static void bench_gemm(lib *libs, int nl, const char *set, int reps) {
    printf("threads %d, median of %d calls per shape (libraries alternating)%s\n", nthreads, reps,
           epi_mode ? "; linear layers with their bias and activation" : "");
    for (int i = 0; i < nl; i++) printf("  %-18s %s\n", libs[i].name, libs[i].info);
    printf("\n| model | GEMM | M | N | K | B | count |");
    for (int i = 0; i < nl; i++) printf(" %s |", libs[i].name);
    printf("\n|---|---|--:|--:|--:|---|--:|");
    for (int i = 0; i < nl; i++) printf("--:|");
    printf("\n");
    double tot[8][16] = {{0}};
    const char *models[] = {"resnet18", "winograd", "mobilenet_v2", "bert", "gpt2", "llama"};
    enum { NMODELS = 6 };
    double *t = malloc(sizeof(double) * (size_t)reps);
    double *med = malloc(sizeof(double) * (size_t)nl);
    for (int si = 0; si < NSHAPES; si++) {
        const shape *s = &SHAPES[si];
        if (strcmp(set, "all") && strcmp(set, s->model)) continue;
        size_t na = (size_t)s->M * s->K, nb = (size_t)s->K * s->N, nc = (size_t)s->M * s->N;
        float *A = falloc(na), *B = falloc(nb), *C = falloc(nc > na ? (nc > nb ? nc : nb) : (na > nb ? na : nb));
        frand(A, na, 1 + si);
        frand(B, nb, 100 + si);
        epi_bias = falloc((size_t)s->N);
        frand(epi_bias, (size_t)s->N, 200 + si);
        double flop = 2.0 * s->M * s->N * s->K;
        int r = reps;
        if (flop < 2e7) r = reps * 4; /* small GEMMs: more calls, same noise */
        double *tt = malloc(sizeof(double) * (size_t)r * nl);
        xfc *xs = calloc((size_t)nl, sizeof *xs);
        for (int i = 0; i < nl; i++) run_gemm(&libs[i], s, A, B, C, &xs[i]); /* warm up, pack */
        for (int k = 0; k < r; k++)
            for (int i = 0; i < nl; i++) {
                double t0 = timer_s();
                run_gemm(&libs[i], s, A, B, C, &xs[i]);
                tt[i * r + k] = timer_s() - t0;
            }
        printf("| %s | %s | %d | %d | %d | %s | %d |", s->model, s->what, s->M, s->N, s->K, s->tb ? "T" : "N", s->count);
        for (int i = 0; i < nl; i++) {
            med[i] = median(tt + i * r, r);
            printf(" %.1f |", flop / med[i] / 1e9);
            for (int m = 0; m < NMODELS; m++)
                if (!strcmp(models[m], s->model)) tot[m][i] += s->count * med[i];
            if (xs[i].op) xnn_delete_operator(xs[i].op);
            for (int b = 0; b < MAXBLK; b++) {
                free(xs[i].packed[b]);
                if (!xs[i].mm[b]) continue;
                dnnl_primitive_destroy(xs[i].mm[b]);
                dnnl_memory_destroy(xs[i].msrc[b]);
                dnnl_memory_destroy(xs[i].mwei[b]);
                dnnl_memory_destroy(xs[i].mdst[b]);
                dnnl_memory_destroy(xs[i].mbias[b]);
            }
        }
        printf("\n");
        fflush(stdout);
        free(tt);
        free(xs);
        free(A);
        free(B);
        free(C);
        free(epi_bias);
    }
    printf("\nGEMM time per forward pass (sum of medians x count, ms; gpt2: per layer, head excluded):\n\n| model |");
    for (int i = 0; i < nl; i++) printf(" %s |", libs[i].name);
    printf("\n|---|");
    for (int i = 0; i < nl; i++) printf("--:|");
    printf("\n");
    for (int m = 0; m < NMODELS; m++) {
        if (tot[m][0] == 0) continue;
        printf("| %s |", models[m]);
        for (int i = 0; i < nl; i++) printf(" %.2f |", tot[m][i] * 1e3);
        printf("\n");
    }
    free(t);
    free(med);
}

/* ---------------------------------------------------------------- convolution */

typedef struct convs {
    const char *what;
    int C, H, W, O, stride, count;
} convs;

static const convs CONVS[] = {
    {"layer1 64->64 56x56", 64, 56, 56, 64, 1, 4},      {"layer2.0 64->128 /2", 64, 56, 56, 128, 2, 1},
    {"layer2 128->128 28x28", 128, 28, 28, 128, 1, 3},  {"layer3.0 128->256 /2", 128, 28, 28, 256, 2, 1},
    {"layer3 256->256 14x14", 256, 14, 14, 256, 1, 3},  {"layer4.0 256->512 /2", 256, 14, 14, 512, 2, 1},
    {"layer4 512->512 7x7", 512, 7, 7, 512, 1, 3},
};
#define NCONVS ((int)(sizeof CONVS / sizeof CONVS[0]))

/* 3x3, padding 1: col (C*9, OH*OW) from x (C, H, W) */
static void im2col3(const float *x, float *col, int C, int H, int W, int OH, int OW, int st) {
    for (int c = 0; c < C; c++)
        for (int ky = 0; ky < 3; ky++)
            for (int kx = 0; kx < 3; kx++) {
                float *o = col + ((size_t)(c * 9 + ky * 3 + kx)) * OH * OW;
                for (int oy = 0; oy < OH; oy++) {
                    int iy = oy * st - 1 + ky;
                    if (iy < 0 || iy >= H) {
                        memset(o + oy * OW, 0, sizeof(float) * OW);
                        continue;
                    }
                    const float *row = x + ((size_t)c * H + iy) * W;
                    for (int ox = 0; ox < OW; ox++) {
                        int ix = ox * st - 1 + kx;
                        o[oy * OW + ox] = ix >= 0 && ix < W ? row[ix] : 0.f;
                    }
                }
            }
}

typedef struct dconv {
    dnnl_primitive_t conv, rin, rout;
    dnnl_memory_t src, wei, dst, usrc, udst;
} dconv;

static void dconv_make(dconv *d, const convs *c, const float *x, const float *w, float *y) {
    int OH = (c->H + 2 - 3) / c->stride + 1, OW = (c->W + 2 - 3) / c->stride + 1;
    dnnl_dims_t sd = {1, c->C, c->H, c->W}, wd = {c->O, c->C, 3, 3}, dd = {1, c->O, OH, OW};
    dnnl_dims_t st = {c->stride, c->stride}, pl = {1, 1}, pr = {1, 1};
    dnnl_memory_desc_t smd, wmd, dmd, usmd, uwmd, udmd;
    DN(dnnl_memory_desc_init_by_tag(&smd, 4, sd, dnnl_f32, dnnl_format_tag_any));
    DN(dnnl_memory_desc_init_by_tag(&wmd, 4, wd, dnnl_f32, dnnl_format_tag_any));
    DN(dnnl_memory_desc_init_by_tag(&dmd, 4, dd, dnnl_f32, dnnl_format_tag_any));
    DN(dnnl_memory_desc_init_by_tag(&usmd, 4, sd, dnnl_f32, dnnl_nchw));
    DN(dnnl_memory_desc_init_by_tag(&uwmd, 4, wd, dnnl_f32, dnnl_oihw));
    DN(dnnl_memory_desc_init_by_tag(&udmd, 4, dd, dnnl_f32, dnnl_nchw));
    dnnl_convolution_desc_t cd;
    DN(dnnl_convolution_forward_desc_init(&cd, dnnl_forward_inference, dnnl_convolution_direct, &smd, &wmd, NULL, &dmd, st,
                                          pl, pr));
    dnnl_primitive_desc_t pd;
    DN(dnnl_primitive_desc_create(&pd, &cd, NULL, eng, NULL));
    const char *impl = NULL;
    dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
    printf("  oneDNN conv %s: %s\n", c->what, impl ? impl : "?");
    const dnnl_memory_desc_t *qs = dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
    const dnnl_memory_desc_t *qw = dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    const dnnl_memory_desc_t *qd = dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    DN(dnnl_primitive_create(&d->conv, pd));
    DN(dnnl_memory_create(&d->src, qs, eng, DNNL_MEMORY_ALLOCATE));
    DN(dnnl_memory_create(&d->wei, qw, eng, DNNL_MEMORY_ALLOCATE));
    DN(dnnl_memory_create(&d->dst, qd, eng, DNNL_MEMORY_ALLOCATE));
    DN(dnnl_memory_create(&d->usrc, &usmd, eng, (void *)x));
    DN(dnnl_memory_create(&d->udst, &udmd, eng, y));
    dnnl_memory_t uw;
    DN(dnnl_memory_create(&uw, &uwmd, eng, (void *)w));
    dnnl_primitive_desc_t rpd;
    dnnl_primitive_t rw;
    DN(dnnl_reorder_primitive_desc_create(&rpd, &uwmd, eng, qw, eng, NULL));
    DN(dnnl_primitive_create(&rw, rpd));
    dnnl_exec_arg_t ra[2] = {{DNNL_ARG_FROM, uw}, {DNNL_ARG_TO, d->wei}};
    DN(dnnl_primitive_execute(rw, strm, 2, ra));
    DN(dnnl_reorder_primitive_desc_create(&rpd, &usmd, eng, qs, eng, NULL));
    DN(dnnl_primitive_create(&d->rin, rpd));
    DN(dnnl_reorder_primitive_desc_create(&rpd, qd, eng, &udmd, eng, NULL));
    DN(dnnl_primitive_create(&d->rout, rpd));
    DN(dnnl_stream_wait(strm));
}

static void dconv_run(dconv *d, bool nchw) {
    if (nchw) {
        dnnl_exec_arg_t a[2] = {{DNNL_ARG_FROM, d->usrc}, {DNNL_ARG_TO, d->src}};
        DN(dnnl_primitive_execute(d->rin, strm, 2, a));
    }
    dnnl_exec_arg_t a[3] = {{DNNL_ARG_SRC, d->src}, {DNNL_ARG_WEIGHTS, d->wei}, {DNNL_ARG_DST, d->dst}};
    DN(dnnl_primitive_execute(d->conv, strm, 3, a));
    if (nchw) {
        dnnl_exec_arg_t b[2] = {{DNNL_ARG_FROM, d->dst}, {DNNL_ARG_TO, d->udst}};
        DN(dnnl_primitive_execute(d->rout, strm, 2, b));
    }
    DN(dnnl_stream_wait(strm));
}

static void bench_conv(char **names, int nl, int reps) {
    if (!eng) {
        DN(dnnl_engine_create(&eng, dnnl_cpu, 0));
        DN(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    }
    lib *libs = calloc((size_t)nl, sizeof *libs);
    for (int i = 0; i < nl; i++) {
        if (!strcmp(names[i], "dnnl-conv") || !strcmp(names[i], "dnnl-conv-nchw") || !strcmp(names[i], "xnn-conv")) {
            libs[i].name = names[i];
            libs[i].kind = names[i][0] == 'x' ? 4 : names[i][10] ? 3 : 2;
            if (libs[i].kind == 4) {
                if (xnn_initialize(NULL) != xnn_status_success) die("xnn_initialize failed", NULL);
                if (nthreads > 1 && !xpool) xpool = pthreadpool_create((size_t)nthreads);
            }
        } else {
            lib_open(&libs[i], names[i]);
            if (libs[i].kind != 0 && libs[i].kind != 1) die("conv: im2col needs a BLAS or dnnl: ", names[i]);
            libs[i].kind = libs[i].kind == 1 ? 5 : 0;
        }
    }
    printf("threads %d, ResNet-18 3x3 convolutions (padding 1, batch 1), median of %d calls; "
           "im2col+LIB: im2col into a buffer then sgemm, both timed\n",
           nthreads, reps);
    printf("\n| conv | count | GFLOP |");
    for (int i = 0; i < nl; i++) printf(" %s%s |", libs[i].kind == 0 || libs[i].kind == 5 ? "im2col+" : "", libs[i].name);
    printf("\n|---|--:|--:|");
    for (int i = 0; i < nl; i++) printf("--:|");
    printf("\n");
    double *tot = calloc((size_t)nl, sizeof(double));
    for (int ci = 0; ci < NCONVS; ci++) {
        const convs *c = &CONVS[ci];
        int OH = (c->H - 1) / c->stride + 1, OW = (c->W - 1) / c->stride + 1;
        size_t nx = (size_t)c->C * c->H * c->W, nw = (size_t)c->O * c->C * 9, ny = (size_t)c->O * OH * OW;
        size_t ncol = (size_t)c->C * 9 * OH * OW;
        float *x = falloc(nx), *w = falloc(nw), *y = falloc(ny), *col = falloc(ncol), *xh = falloc(nx), *wh = falloc(nw);
        frand(x, nx, 7 + ci);
        frand(w, nw, 70 + ci);
        for (int ch = 0; ch < c->C; ch++) /* NHWC / OHWI copies for XNNPACK */
            for (int p = 0; p < c->H * c->W; p++) xh[(size_t)p * c->C + ch] = x[(size_t)ch * c->H * c->W + p];
        for (int o = 0; o < c->O; o++)
            for (int ch = 0; ch < c->C; ch++)
                for (int k = 0; k < 9; k++) wh[((size_t)o * 9 + k) * c->C + ch] = w[((size_t)o * c->C + ch) * 9 + k];
        double flop = 2.0 * c->O * OH * OW * c->C * 9;
        dconv *dc = calloc((size_t)nl, sizeof *dc);
        xnn_operator_t *xo = calloc((size_t)nl, sizeof *xo);
        for (int i = 0; i < nl; i++) {
            if (libs[i].kind == 2 || libs[i].kind == 3) dconv_make(&dc[i], c, x, w, y);
            if (libs[i].kind == 4) {
                if (xnn_create_convolution2d_nhwc_f32(1, 1, 1, 1, 3, 3, c->stride, c->stride, 1, 1, 1, c->C, c->O, c->C, c->O,
                                                      wh, NULL, -INFINITY, INFINITY, 0, &xo[i]) != xnn_status_success ||
                    xnn_setup_convolution2d_nhwc_f32(xo[i], 1, c->H, c->W, xh, y, xpool) != xnn_status_success)
                    die("XNNPACK convolution setup failed", NULL);
            }
        }
        double *tt = malloc(sizeof(double) * (size_t)reps * nl);
        for (int k = -2; k < reps; k++)
            for (int i = 0; i < nl; i++) {
                double t0 = timer_s();
                if (libs[i].kind == 0 || libs[i].kind == 5) {
                    im2col3(x, col, c->C, c->H, c->W, OH, OW, c->stride);
                    lib tmp = libs[i];
                    tmp.kind = libs[i].kind == 5 ? 1 : 0;
                    shape s = {"", "", c->O, OH * OW, c->C * 9, false, 1, 0};
                    run_gemm(&tmp, &s, w, col, y, NULL);
                } else if (libs[i].kind == 4) {
                    if (xnn_run_operator(xo[i], xpool) != xnn_status_success) die("XNNPACK convolution failed", NULL);
                } else dconv_run(&dc[i], libs[i].kind == 3);
                if (k >= 0) tt[i * reps + k] = timer_s() - t0;
            }
        printf("| %s | %d | %.3f |", c->what, c->count, flop / 1e9);
        for (int i = 0; i < nl; i++) {
            double m = median(tt + i * reps, reps);
            tot[i] += m * c->count;
            printf(" %.1f |", flop / m / 1e9);
            if (xo[i]) xnn_delete_operator(xo[i]);
        }
        printf("\n");
        fflush(stdout);
        free(tt);
        free(dc);
        free(xo);
        free(x);
        free(w);
        free(y);
        free(col);
        free(xh);
        free(wh);
    }
    printf("\n3x3 convolution time per forward pass (ms): ");
    for (int i = 0; i < nl; i++) printf("%s %.2f%s", libs[i].name, tot[i] * 1e3, i + 1 < nl ? ", " : "\n");
    free(tot);
    free(libs);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* bfloat16 products against float32 ones on the linear layers of BERT (seq 128), GPT-2 (64
 * tokens, its LM head) and the Llama block (64 tokens), the weight transposed as linear stores it */
static void bench_bf16(int reps) {
    /* exported by libdnnl 2.6, not declared in its header */
    typedef int (*gemm_bf16_fn)(char, char, int64_t, int64_t, int64_t, float, const uint16_t *, int64_t, const uint16_t *,
                                int64_t, float, float *, int64_t);
    gemm_bf16_fn gemm_bf16 = (gemm_bf16_fn)dlsym(RTLD_DEFAULT, "dnnl_gemm_bf16bf16f32");
    if (!gemm_bf16) die("bf16: libdnnl has no dnnl_gemm_bf16bf16f32", NULL);
    static const struct { const char *what; int64_t M, N, K; } S[] = {
        {"bert qkv", 128, 2304, 768}, {"bert ff1", 128, 3072, 768}, {"bert ff2", 128, 768, 3072},
        {"gpt2 ff1", 64, 3072, 768}, {"gpt2 lm head", 64, 50257, 768}, {"llama gate", 64, 5632, 2048},
        {"llama down", 64, 2048, 5632}, {"one row", 1, 3072, 768},
    };
    printf("| shape | M x N x K | bf16 ms | bf16 GFLOP/s | f32 ms | f32 GFLOP/s | f32 / bf16 |\n|---|---|---:|---:|---:|---:|---:|\n");
    for (size_t s = 0; s < sizeof S / sizeof S[0]; s++) {
        int64_t M = S[s].M, N = S[s].N, K = S[s].K;
        uint16_t *Ah = malloc((size_t)(M * K) * 2), *Wh = malloc((size_t)(N * K) * 2);
        float *Af = malloc((size_t)(M * K) * 4), *Wf = malloc((size_t)(N * K) * 4), *C = malloc((size_t)(M * N) * 4);
        double *tb = malloc((size_t)reps * sizeof *tb), *tf = malloc((size_t)reps * sizeof *tf);
        if (!Ah || !Wh || !Af || !Wf || !C || !tb || !tf) die("bf16: out of memory", NULL);
        uint32_t seed = 12345;
        for (int64_t i = 0; i < M * K + N * K; i++) {
            seed = seed * 1664525u + 1013904223u;
            float v = ((float)(seed >> 8) / 16777216.0f - 0.5f);
            uint32_t u;
            memcpy(&u, &v, 4);
            u &= 0xffff0000u; /* a bfloat16 value, exact in both */
            memcpy(&v, &u, 4);
            if (i < M * K) { Af[i] = v; Ah[i] = (uint16_t)(u >> 16); }
            else { Wf[i - M * K] = v; Wh[i - M * K] = (uint16_t)(u >> 16); }
        }
        for (int r = -2; r < reps; r++) {
            double t0 = now_s();
            if (gemm_bf16('N', 'T', M, N, K, 1.f, Ah, K, Wh, K, 0.f, C, N) != dnnl_success)
                die("dnnl_gemm_bf16bf16f32 failed", NULL);
            double t1 = now_s();
            if (dnnl_sgemm('N', 'T', M, N, K, 1.f, Af, K, Wf, K, 0.f, C, N) != dnnl_success) die("dnnl_sgemm failed", NULL);
            double t2 = now_s();
            if (r >= 0) { tb[r] = t1 - t0; tf[r] = t2 - t1; }
        }
        qsort(tb, (size_t)reps, sizeof *tb, cmp_double);
        qsort(tf, (size_t)reps, sizeof *tf, cmp_double);
        double b = tb[reps / 2], f = tf[reps / 2], fl = 2.0 * (double)M * (double)N * (double)K;
        printf("| %s | %lld x %lld x %lld | %.3f | %.0f | %.3f | %.0f | %.2fx |\n", S[s].what, (long long)M, (long long)N,
               (long long)K, b * 1e3, fl / b / 1e9, f * 1e3, fl / f / 1e9, f / b);
        free(Ah); free(Wh); free(Af); free(Wf); free(C); free(tb); free(tf);
    }
}

int main(int argc, char **argv) {
    if (argc < 2) die("usage: gemm_bench peak | gemm [--threads T] [--reps R] [--set S] LIB... | bf16 [...] | conv [...] LIB...", NULL);
    const char *set = "all";
    int reps = 15, a = 2;
    for (; a < argc && argv[a][0] == '-'; a += 2) {
        if (a + 1 >= argc) die("missing value after ", argv[a]);
        if (!strcmp(argv[a], "--threads")) nthreads = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "--reps")) reps = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "--set")) set = argv[a + 1];
        else if (!strcmp(argv[a], "--epi")) epi_mode = atoi(argv[a + 1]) != 0;
        else die("unknown option ", argv[a]);
    }
    if (nthreads < 1 || reps < 1) die("--threads and --reps take positive counts", NULL);
    const char *ot = getenv("OMP_NUM_THREADS");
    if (strcmp(argv[1], "peak") && (!ot || atoi(ot) != nthreads)) {
        char n[16];
        snprintf(n, sizeof n, "%d", nthreads);
        setenv("OMP_NUM_THREADS", n, 1);
        setenv("OPENBLAS_NUM_THREADS", n, 1);
        setenv("BLIS_NUM_THREADS", n, 1);
        execv("/proc/self/exe", argv);
        die("cannot run again with the thread count set", NULL);
    }
    if (!strcmp(argv[1], "peak")) peak();
    else if (!strcmp(argv[1], "gemm")) {
        int nl = argc - a;
        if (nl < 1 || nl > 16) die("gemm: name 1 to 16 libraries", NULL);
        lib *libs = calloc((size_t)nl, sizeof *libs);
        for (int i = 0; i < nl; i++) lib_open(&libs[i], argv[a + i]);
        bench_gemm(libs, nl, set, reps);
        free(libs);
    } else if (!strcmp(argv[1], "bf16")) {
        bench_bf16(reps);
    } else if (!strcmp(argv[1], "conv")) {
        if (argc - a < 1 || argc - a > 16) die("conv: name 1 to 16 libraries", NULL);
        bench_conv(argv + a, argc - a, reps);
    } else die("unknown command ", argv[1]);
    return 0;
}
