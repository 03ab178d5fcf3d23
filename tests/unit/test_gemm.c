/* test_gemm.c — eir_sgemm (src/kernels/gemm.c) against a float64 reference
 * product on random operands: both storage orders, all transpose pairs,
 * leading dimensions wider than the matrix, alpha and beta, vectors (M = 1,
 * N = 1) and the model shapes' corner cases; the library it picks (oneDNN
 * when libdnnl.so.2 loads, OpenBLAS when EIR_GEMM=openblas); products whose
 * operands are declared constant (eir_sgemm_const_add: with oneDNN the
 * right-hand operand transposed into scratch at its first use, copied at its
 * second), run twice, the second bit-identical to the first, also when more
 * threads make first uses at once than the scratch buffers kept; the bfloat16 GEMM (eir_gemm_bf16) where oneDNN has one. */
#include <dlfcn.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "kernels/gemm.h"

static uint64_t rng = 12345;
static float frand(void) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((rng >> 40) & 0xffff) / 32768.f - 1.f;
}

/* element (i, j) of a rows x cols view stored in `order` with leading dimension ld */
static size_t at(CBLAS_ORDER order, int i, int j, int ld) { return order == CblasRowMajor ? (size_t)i * ld + j : (size_t)j * ld + i; }

static bool konst; /* gemm_case declares its operands constant and runs the product twice (with oneDNN:
                      * from a scratch transpose, then from the copy the second use makes) */
static int owner; /* their owner */

/* One product checked against float64: every element within K ulps of the sum of |terms|. */
static int gemm_case(CBLAS_ORDER order, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int M, int N, int K, float alpha, float beta,
                     int pad) {
    int ar = ta == CblasNoTrans ? M : K, ac = ta == CblasNoTrans ? K : M; /* A as stored: ar x ac */
    int br = tb == CblasNoTrans ? K : N, bc = tb == CblasNoTrans ? N : K;
    int lda = (order == CblasRowMajor ? ac : ar) + pad, ldb = (order == CblasRowMajor ? bc : br) + pad;
    int ldc = (order == CblasRowMajor ? N : M) + pad;
    size_t na = (size_t)lda * (order == CblasRowMajor ? ar : ac), nb = (size_t)ldb * (order == CblasRowMajor ? br : bc);
    size_t nc = (size_t)ldc * (order == CblasRowMajor ? M : N);
    float *A = malloc(na * sizeof *A), *B = malloc(nb * sizeof *B), *C = malloc(nc * sizeof *C), *C0 = malloc(nc * sizeof *C);
    for (size_t i = 0; i < na; i++) A[i] = frand();
    for (size_t i = 0; i < nb; i++) B[i] = frand();
    for (size_t i = 0; i < nc; i++) C0[i] = C[i] = frand();
    int bad = 0;
    if (konst) {
        CHECK(eir_sgemm_const_add(&owner, A, na * sizeof *A, false) == 0);
        CHECK(eir_sgemm_const_add(&owner, B, nb * sizeof *B, false) == 0);
        eir_sgemm(order, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc); /* B transposed in scratch */
        float *C1 = malloc(nc * sizeof *C);
        memcpy(C1, C, nc * sizeof *C);
        memcpy(C, C0, nc * sizeof *C);
        eir_sgemm(order, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc); /* copies B, runs from it */
        if (memcmp(C1, C, nc * sizeof *C)) bad++;
        free(C1);
    } else eir_sgemm(order, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 0, mag = 0;
            for (int k = 0; k < K; k++) {
                double a = ta == CblasNoTrans ? A[at(order, i, k, lda)] : A[at(order, k, i, lda)];
                double b = tb == CblasNoTrans ? B[at(order, k, j, ldb)] : B[at(order, j, k, ldb)];
                s += a * b;
                mag += fabs(a * b);
            }
            size_t o = at(order, i, j, ldc);
            double want = alpha * s + (beta != 0 ? beta * C0[o] : 0);
            double tol = (K + 2) * FLT_EPSILON * (fabs(alpha) * mag + fabs(beta * C0[o])) + 1e-30;
            if (!(fabs(C[o] - want) <= tol)) bad++;
        }
    /* padding between rows (columns) of C is not written */
    for (int r = 0; r < (order == CblasRowMajor ? M : N); r++)
        for (int q = order == CblasRowMajor ? N : M; q < ldc; q++)
            if (C[(size_t)r * ldc + q] != C0[(size_t)r * ldc + q]) bad++;
    if (bad)
        fprintf(stderr, "gemm %s %c%c M=%d N=%d K=%d alpha=%g beta=%g pad=%d: %d elements wrong\n",
                order == CblasRowMajor ? "row" : "col", ta == CblasNoTrans ? 'N' : 'T', tb == CblasNoTrans ? 'N' : 'T', M, N,
                K, alpha, beta, pad, bad);
    if (konst) eir_sgemm_const_drop(&owner); /* before free: another operand may reuse the address */
    free(A);
    free(B);
    free(C);
    free(C0);
    return bad;
}

static void test_products(void) {
    static const int shapes[][3] = {
        {1, 1, 1},   {1, 1000, 512}, {1000, 1, 64}, {7, 13, 5},  {64, 3136, 27}, {128, 64, 128},
        {16, 16, 16}, {33, 65, 129}, {3, 2304, 24}, {512, 49, 300},
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int o = 0; o < 2; o++)
            for (int t = 0; t < 4; t++) {
                CBLAS_ORDER order = o ? CblasColMajor : CblasRowMajor;
                CBLAS_TRANSPOSE ta = t & 1 ? CblasTrans : CblasNoTrans, tb = t & 2 ? CblasTrans : CblasNoTrans;
                CHECK(gemm_case(order, ta, tb, shapes[s][0], shapes[s][1], shapes[s][2], 1.f, 0.f, 0) == 0);
                CHECK(gemm_case(order, ta, tb, shapes[s][0], shapes[s][1], shapes[s][2], 0.5f, 1.f, 3) == 0);
            }
    CHECK(gemm_case(CblasRowMajor, CblasNoTrans, CblasTrans, 20, 30, 40, -2.f, 0.25f, 1) == 0);
    CHECK(gemm_case(CblasColMajor, CblasTrans, CblasNoTrans, 20, 30, 40, 1.f, -1.f, 0) == 0);
}

/* K = 0: C = beta C, as cblas_sgemm does */
static void test_empty_k(void) {
    float C[6] = {1, 2, 3, 4, 5, 6}, A[1] = {7}, B[1] = {9};
    eir_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 3, 0, 1.f, A, 1, B, 3, 0.5f, C, 3);
    CHECK(C[0] == 0.5f && C[5] == 3.f);
}

/* Special values as OpenBLAS treats them: beta = 0 never reads C (NaN there is
 * overwritten), NaN and infinity in A reach C even through zeros of B, and
 * subnormal products are kept (no flush to zero). */
static void test_special_values(void) {
    enum { M = 5, N = 17, K = 9 };
    float A[M * K], B[K * N], C[M * N], R[M * N];
    for (int i = 0; i < M * K; i++) A[i] = frand();
    for (int i = 0; i < K * N; i++) B[i] = i % 3 ? frand() : 0.f;
    A[0] = NAN;
    A[K + 1] = INFINITY;
    for (int k = 0; k < K; k++) B[k * N + 4] = 0.f; /* column 4 of B all zeros: NaN * 0, inf * 0 */
    for (int i = 0; i < M * N; i++) C[i] = R[i] = NAN;
    eir_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.f, A, K, B, N, 0.f, C, N);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.f, A, K, B, N, 0.f, R, N);
    int same = 0;
    for (int i = 0; i < M * N; i++)
        same += (isnan(C[i]) && isnan(R[i])) || (isinf(C[i]) && C[i] == R[i]) ||
                (isfinite(C[i]) && isfinite(R[i]) && fabsf(C[i] - R[i]) <= 1e-5f);
    CHECK(same == M * N);
    CHECK(isnan(C[4]) && isnan(C[N + 4]) && isfinite(C[2 * N + 4]) && C[2 * N + 4] == 0.f);
    /* subnormals: 2^-140 * 1 summed 8 times is 2^-137, subnormal in float */
    float a[8], b[8 * 3], c[3] = {1, 1, 1};
    for (int k = 0; k < 8; k++) a[k] = ldexpf(1.f, -140);
    for (int i = 0; i < 8 * 3; i++) b[i] = 1.f;
    eir_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1, 3, 8, 1.f, a, 8, b, 3, 0.f, c, 3);
    CHECK(c[0] == ldexpf(1.f, -137) && c[2] == ldexpf(1.f, -137));
}

/* Resident kB of the mapping that starts at p (/proc/self/smaps: mincore would count the page cache). */
static long mapping_rss_kb(const void *p) {
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    char line[512];
    bool in = false;
    long rss = -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) in = lo == (uintptr_t)p;
        else if (in && sscanf(line, "Rss: %ld kB", &rss) == 1) break;
    }
    fclose(f);
    return rss;
}

/* The products again with constant operands: with oneDNN, a transposed right-hand operand read from a
 * scratch transpose at its first use and copied at its second (eir_sgemm_const_bytes counts the
 * copies), the same bits both times, the copy dropped with its owner. */
static void test_constant_operands(void) {
    konst = true;
    test_products();
    konst = false;
    enum { M = 64, N = 300, K = 200 };
    float *A = malloc(sizeof(float) * M * K), *B = malloc(sizeof(float) * N * K), *C = malloc(sizeof(float) * M * N);
    for (int i = 0; i < M * K; i++) A[i] = frand();
    for (int i = 0; i < N * K; i++) B[i] = frand();
    size_t before = eir_sgemm_const_bytes();
    CHECK(eir_sgemm_const_add(&owner, B, sizeof(float) * N * K, false) == 0);
    eir_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 1.f, A, K, B, K, 0.f, C, N);
    CHECK(eir_sgemm_const_bytes() == before); /* the first use keeps nothing */
    /* the second use, with another alpha, copies */
    eir_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 2.f, A, K, B, K, 0.f, C, N);
    size_t copied = eir_sgemm_const_bytes() - before;
    if (eir_sgemm_const_copies()) CHECK(copied == sizeof(float) * N * K);
    else CHECK(copied == 0);
    /* later ones reuse the copy; a constant left-hand operand is not copied */
    eir_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 3.f, A, K, B, K, 0.f, C, N);
    eir_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, M, K, 1.f, B, K, A, M, 0.f, C, M);
    eir_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, M, K, 1.f, B, K, A, M, 0.f, C, M);
    CHECK(eir_sgemm_const_bytes() - before == copied);
    /* runtimes on one program declare the same bytes and share the copy: it outlives the owner
     * that made it while another still declares it (a product may be reading it on that
     * runtime's thread), and goes with the last of them */
    float *S1 = malloc(sizeof(float) * M * N), *S2 = malloc(sizeof(float) * M * N);
    eir_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 1.f, A, K, B, K, 0.f, S1, N);
    static int other;
    CHECK(eir_sgemm_const_add(&other, B, sizeof(float) * N * K, false) == 0);
    eir_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 1.f, A, K, B, K, 0.f, S2, N);
    CHECK(eir_sgemm_const_bytes() - before == copied);
    eir_sgemm_const_drop(&owner);
    CHECK(eir_sgemm_const_bytes() - before == copied);
    memset(S2, 0, sizeof(float) * M * N);
    eir_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 1.f, A, K, B, K, 0.f, S2, N);
    CHECK(memcmp(S1, S2, sizeof(float) * M * N) == 0);
    CHECK(eir_sgemm_const_bytes() - before == copied);
    eir_sgemm_const_drop(&other);
    CHECK(eir_sgemm_const_bytes() == before);
    free(S1);
    free(S2);

    /* B read from a private read-only file mapping, declared mapped: read for the scratch transpose,
     * its pages stay resident; once copied, its whole pages are no longer resident; the products from
     * the scratch, from the copy and from the file's bytes mapped again give what the plain product
     * gave */
    char path[] = "/tmp/eir_test_gemm_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    size_t nb = sizeof(float) * N * K;
    CHECK(fd >= 0 && write(fd, B, nb) == (ssize_t)nb);
    const float *Bm = fd >= 0 ? mmap(NULL, nb, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    if (fd >= 0) {
        close(fd);
        unlink(path);
    }
    CHECK(Bm != MAP_FAILED);
    if (Bm != MAP_FAILED) {
        float *C0 = malloc(sizeof(float) * M * N), *C1 = malloc(sizeof(float) * M * N);
        eir_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 1.f, A, K, Bm, K, 0.f, C0, N); /* plain */
        CHECK(eir_sgemm_const_add(&owner, Bm, nb, true) == 0);
        size_t held = eir_sgemm_const_bytes();
        eir_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 1.f, A, K, Bm, K, 0.f, C1, N); /* scratch */
        CHECK(eir_sgemm_const_bytes() == held);
        long rss = mapping_rss_kb(Bm);
        CHECK(rss >= (long)(nb / 1024) - 8);
        float *C2 = malloc(sizeof(float) * M * N);
        eir_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 1.f, A, K, Bm, K, 0.f, C2, N); /* copies */
        CHECK(memcmp(C1, C2, sizeof(float) * M * N) == 0);
        if (eir_sgemm_const_copies()) CHECK(eir_sgemm_const_bytes() - held == nb);
        rss = mapping_rss_kb(Bm);
        if (eir_sgemm_const_copies()) CHECK(rss >= 0 && rss <= sysconf(_SC_PAGESIZE) / 1024); /* the last page is partial */
        else CHECK(rss >= (long)(nb / 1024) - 8);
        memset(C2, 0, sizeof(float) * M * N);
        eir_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 1.f, A, K, Bm, K, 0.f, C2, N); /* the copy */
        CHECK(memcmp(C1, C2, sizeof(float) * M * N) == 0);
        eir_sgemm_const_drop(&owner);
        eir_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 1.f, A, K, Bm, K, 0.f, C2, N); /* the file again */
        CHECK(memcmp(C0, C2, sizeof(float) * M * N) == 0);
        for (int i = 0; i < M * N; i++) CHECK(fabsf(C0[i] - C1[i]) <= 1e-4f * (1.f + fabsf(C0[i])));
        munmap((void *)Bm, nb);
        free(C0);
        free(C1);
        free(C2);
    }
    free(A);
    free(B);
    free(C);
}

/* The scratch transposes and the copies made by the AVX2 transpose and by the portable one give the
 * same products bit for bit:
 * shapes with partial 8 x 8 blocks and partial tiles (16 rows by 256 columns), a leading dimension
 * past the row, and an operand of more than 2 MiB. */
static void test_transposes(void) {
    static const int shapes[][4] = {{64, 300, 200, 0}, {7, 13, 5, 0},  {33, 49, 300, 3},
                                    {16, 256, 256, 0}, {5, 517, 9, 1}, {64, 1100, 600, 0}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        int M = shapes[s][0], N = shapes[s][1], K = shapes[s][2], ldb = K + shapes[s][3];
        float *A = malloc(sizeof(float) * M * K), *B = malloc(sizeof(float) * N * ldb);
        float *C[4] = {malloc(sizeof(float) * M * N), malloc(sizeof(float) * M * N), malloc(sizeof(float) * M * N),
                       malloc(sizeof(float) * M * N)},
              *R = malloc(sizeof(float) * M * N);
        for (int i = 0; i < M * K; i++) A[i] = frand();
        for (int i = 0; i < N * ldb; i++) B[i] = frand();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 1.f, A, K, B, ldb, 0.f, R, N);
        for (int v = 0; v < 2; v++) {
            eir_sgemm_transpose_portable(v == 1);
            size_t before = eir_sgemm_const_bytes();
            CHECK(eir_sgemm_const_add(&owner, B, sizeof(float) * N * ldb, false) == 0);
            eir_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 1.f, A, K, B, ldb, 0.f, C[v], N); /* scratch */
            eir_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 1.f, A, K, B, ldb, 0.f, C[2 + v], N); /* copy */
            if (eir_sgemm_const_copies()) CHECK(eir_sgemm_const_bytes() - before == sizeof(float) * N * K);
            eir_sgemm_const_drop(&owner);
        }
        eir_sgemm_transpose_portable(false);
        for (int v = 1; v < 4; v++)
            if (memcmp(C[0], C[v], sizeof(float) * M * N)) {
                fprintf(stderr, "transposes differ (%d): M=%d N=%d K=%d ldb=%d\n", v, M, N, K, ldb);
                CHECK(0);
            }
        int far = 0;
        for (int i = 0; i < M * N; i++) far += !(fabsf(C[0][i] - R[i]) <= 1e-4f * (1.f + fabsf(R[i])));
        CHECK(far == 0);
        free(A);
        free(B);
        for (int v = 0; v < 4; v++) free(C[v]);
        free(R);
    }
}

/* First uses on several threads at once, more of them than the scratch buffers kept between
 * products, each on its own constant operand of its own size: each thread's products from scratch
 * and then from the copy give the same bits as a product of the same operands made on this thread
 * after the others finished (from the copy). */
enum { FIRST_THREADS = 6, FIRST_M = 24, FIRST_K = 80 };
typedef struct {
    const float *A, *B;
    int N;
    float *C[2];
} first_use;

static void *first_use_run(void *arg) {
    first_use *f = arg;
    for (int r = 0; r < 2; r++)
        eir_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, FIRST_M, f->N, FIRST_K, 1.f, f->A, FIRST_K, f->B, FIRST_K, 0.f,
                  f->C[r], f->N);
    return NULL;
}

static void test_first_uses_at_once(void) {
    first_use f[FIRST_THREADS];
    pthread_t th[FIRST_THREADS];
    float *A = malloc(sizeof(float) * FIRST_M * FIRST_K);
    for (int i = 0; i < FIRST_M * FIRST_K; i++) A[i] = frand();
    for (int t = 0; t < FIRST_THREADS; t++) {
        int N = 96 + 40 * t;
        float *B = malloc(sizeof(float) * N * FIRST_K);
        for (int i = 0; i < N * FIRST_K; i++) B[i] = frand();
        f[t] = (first_use){A, B, N, {malloc(sizeof(float) * FIRST_M * N), malloc(sizeof(float) * FIRST_M * N)}};
        CHECK(eir_sgemm_const_add(&owner, B, sizeof(float) * N * FIRST_K, false) == 0);
    }
    size_t before = eir_sgemm_const_bytes(), want = 0;
    int started = 0;
    for (int t = 0; t < FIRST_THREADS; t++) started += pthread_create(&th[t], NULL, first_use_run, &f[t]) == 0;
    CHECK(started == FIRST_THREADS);
    for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < FIRST_THREADS; t++) {
        int N = f[t].N;
        want += sizeof(float) * N * FIRST_K;
        float *R = malloc(sizeof(float) * FIRST_M * N);
        eir_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, FIRST_M, N, FIRST_K, 1.f, A, FIRST_K, f[t].B, FIRST_K, 0.f, R, N);
        CHECK(memcmp(R, f[t].C[0], sizeof(float) * FIRST_M * N) == 0);
        CHECK(memcmp(R, f[t].C[1], sizeof(float) * FIRST_M * N) == 0);
        int far = 0;
        for (int i = 0; i < FIRST_M; i++)
            for (int j = 0; j < N; j++) {
                double s = 0;
                for (int k = 0; k < FIRST_K; k++) s += (double)A[i * FIRST_K + k] * f[t].B[j * FIRST_K + k];
                far += !(fabs(R[i * N + j] - s) <= 1e-4 * (1 + fabs(s)));
            }
        CHECK(far == 0);
        free(R);
    }
    if (eir_sgemm_const_copies()) CHECK(eir_sgemm_const_bytes() - before == want);
    eir_sgemm_const_drop(&owner);
    CHECK(eir_sgemm_const_bytes() == before);
    for (int t = 0; t < FIRST_THREADS; t++) {
        free((void *)f[t].B);
        free(f[t].C[0]);
        free(f[t].C[1]);
    }
    free(A);
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define DNNL_BY_DEFAULT 0
#else
#define DNNL_BY_DEFAULT 1
#endif

/* In a child process with EIR_GEMM=want (the choice is made once per process):
 * the library it names, then every product. _exit: no leak check at exit (a
 * sanitizer build's LeakSanitizer cannot scan oneDNN's OpenMP threads). */
static int child_run(const char *want, const char *lib_prefix) {
    pid_t pid = fork();
    if (pid == 0) {
        setenv("EIR_GEMM", want, 1);
        if (strncmp(eir_sgemm_library(), lib_prefix, strlen(lib_prefix)) != 0) _exit(2);
        test_products();
        test_empty_k();
        test_special_values();
        test_constant_operands();
        test_transposes();
        test_first_uses_at_once();
        const char *pk = getenv("EIR_GEMM_PACK"); /* copies with oneDNN unless EIR_GEMM_PACK=0 */
        bool copies = strncmp(lib_prefix, "OpenBLAS", 8) != 0 && !(pk && !strcmp(pk, "0"));
        if (eir_sgemm_const_copies() != copies) _exit(3);
        _exit(check_failed ? 1 : 0);
    }
    int st = 0;
    return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The library: OpenBLAS with EIR_GEMM=openblas; oneDNN with EIR_GEMM=dnnl when
 * libdnnl.so.2 loads; by default oneDNN then, except in sanitizer builds. */
static void test_choice(void) {
    void *h = dlopen("libdnnl.so.2", RTLD_NOW | RTLD_LOCAL);
    CHECK(child_run("openblas", "OpenBLAS") == 0);
    if (h) CHECK(child_run("dnnl", "oneDNN ") == 0);
    else CHECK(child_run("dnnl", "OpenBLAS") == 0);
    const char *env = getenv("EIR_GEMM");
    const char *lib = eir_sgemm_library();
    bool dnnl = h && (env ? !strcmp(env, "dnnl") : DNNL_BY_DEFAULT);
    if (dnnl) CHECK(strncmp(lib, "oneDNN ", 7) == 0);
    else CHECK_STR(lib, "OpenBLAS");
    if (h) dlclose(h);
}

/* eir_gemm_bf16 (oneDNN's bfloat16 GEMM, where there is one) against float64 sums of the same
 * bfloat16 values: every transpose pair, leading dimensions wider than the matrix, alpha and beta,
 * a row and a column; each element within K float32 ulps of the sum of |terms| */
static void test_bf16(void) {
    if (!eir_gemm_bf16_available()) {
        printf("test_gemm: no bfloat16 GEMM here (%s): skipped\n", eir_sgemm_library());
        return;
    }
    static const int shapes[][3] = {{5, 7, 9}, {64, 200, 96}, {1, 300, 128}, {37, 1, 70}, {16, 16, 1}};
    int bad = 0;
    for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; c++)
        for (int t = 0; t < 4; t++) {
            int M = shapes[c][0], N = shapes[c][1], K = shapes[c][2];
            bool ta = t & 1, tb = t & 2;
            int lda = (ta ? M : K) + 3, ldb = (tb ? K : N) + 2, ldc = N + 1;
            size_t na = (size_t)lda * (ta ? K : M), nb = (size_t)ldb * (tb ? N : K), nc = (size_t)ldc * M;
            uint16_t *A = malloc(na * 2), *B = malloc(nb * 2);
            float *C = malloc(nc * 4), *C0 = malloc(nc * 4);
            for (size_t i = 0; i < na; i++) { float v = frand(); uint32_t u; memcpy(&u, &v, 4); A[i] = (uint16_t)(u >> 16); }
            for (size_t i = 0; i < nb; i++) { float v = frand(); uint32_t u; memcpy(&u, &v, 4); B[i] = (uint16_t)(u >> 16); }
            float alpha = t == 3 ? 0.5f : 1.f, beta = t >= 2 ? 1.f : 0.f;
            for (size_t i = 0; i < nc; i++) C0[i] = C[i] = beta != 0 || i % (size_t)ldc == (size_t)N ? frand() : NAN; /* beta 0: C not read */
            CHECK(eir_gemm_bf16(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc));
            for (int i = 0; i < M; i++)
                for (int j = 0; j < N; j++) {
                    double sum = 0, mag = 0;
                    for (int k = 0; k < K; k++) {
                        uint32_t ua = (uint32_t)A[ta ? (size_t)k * lda + i : (size_t)i * lda + k] << 16;
                        uint32_t ub = (uint32_t)B[tb ? (size_t)j * ldb + k : (size_t)k * ldb + j] << 16;
                        float a, b;
                        memcpy(&a, &ua, 4);
                        memcpy(&b, &ub, 4);
                        sum += (double)a * b;
                        mag += fabs((double)a * b);
                    }
                    double c0 = beta != 0 ? C0[(size_t)i * ldc + j] : 0;
                    double want = alpha * sum + beta * c0;
                    double tol = (K + 2) * FLT_EPSILON * (fabs(alpha) * mag + fabs(beta * c0)) + 1e-30;
                    if (!(fabs(C[(size_t)i * ldc + j] - want) <= tol)) bad++;
                }
            /* the padding between rows is not written */
            for (int i = 0; i < M; i++) bad += C[(size_t)i * ldc + N] != C0[(size_t)i * ldc + N];
            free(A); free(B); free(C); free(C0);
        }
    CHECK(bad == 0);
}

int main(void) {
    test_choice(); /* first: children must not inherit this process's choice */
    test_bf16();
    test_products();
    test_empty_k();
    test_special_values();
    test_constant_operands();
    test_transposes();
    test_first_uses_at_once();
    printf("sgemm library: %s%s\n", eir_sgemm_library(), eir_sgemm_const_copies() ? ", constant operands copied" : "");
    return check_summary("test_gemm");
}
