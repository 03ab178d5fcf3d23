/* run_bench.c — time eir_runtime_run on one program through the public C API.
 *
 *   run_bench MODEL.pt2 [options] IN0.npy IN1.npy ...
 *     --warmup W     untimed runs after the first (default 3)
 *     --runs N       timed runs (default 15); prints one "run_us T" line each
 *     --out DIR      write user output i to DIR/out<i>.npy after the last run
 *     --threads T    threads the runtime runs on (eir_runtime_set_threads;
 *                    default 1, 0 for the machine's cores)
 *     --serve        after loading, read commands from stdin, one a line:
 *                    "run K" (K timed runs, one "run_us T" line each, then "ok"),
 *                    "out DIR" (write the outputs, then "ok"), "profile on"
 *                    (time each step of the runs from now on), "profile FILE"
 *                    (write the steps' times so far to FILE, one tab-separated
 *                    line a step: node, operator, calls, total us), "quit"
 *
 * Inputs are C-order .npy files of float32, float64, int64, int32 or bool;
 * a bfloat16 or float16 input of the program is read from float32 (rounded
 * to nearest even; exact for values of that type). A bfloat16 output is
 * written as float32 (exact), as `eir run` writes it.
 * Besides the run times it prints "load_us" (eir_program_load +
 * eir_runtime_create + reading the inputs), "first_us" (the first run), and
 * "first_result_epoch_us", the wall-clock time (CLOCK_REALTIME) at which the
 * first run returned, so a parent can measure process start to first result.
 * Used by python/bench/bench.py. */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eir.h"

static double now_us(clockid_t c) {
    struct timespec ts;
    clock_gettime(c, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void die(const char *what, const char *msg) {
    fprintf(stderr, "run_bench: %s: %s\n", what, msg ? msg : "(no message)");
    exit(1);
}

typedef struct arr {
    void *data;
    eir_dtype dtype;
    uint32_t rank;
    int64_t sizes[8];
} arr;

static const struct { const char *descr; eir_dtype dt; } DESCRS[] = {
    {"<f4", EIR_F32}, {"<f8", EIR_F64}, {"<i8", EIR_I64}, {"<i4", EIR_I32}, {"|b1", EIR_BOOL}, {"<f2", EIR_F16},
};

static uint16_t f32_to_bf16(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/* float32 to IEEE half, round to nearest even (the caller's values are halves already) */
static uint16_t f32_to_f16(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    uint32_t sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
    if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);
    if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* overflow to infinity */
    if (a < 0x38800000u) {                                    /* subnormal half */
        float v;
        memcpy(&v, &a, 4);
        return (uint16_t)(sign | (uint32_t)__builtin_roundevenf(v * 16777216.0f));
    }
    uint32_t r = a - 0x38000000u;
    r = (r + 0xfffu + ((r >> 13) & 1u)) >> 13;
    return (uint16_t)(sign | r);
}

/* An input read from float32 for a bfloat16 / float16 input of the program: converted in place. */
static void narrow_input(arr *a, eir_dtype want) {
    if (a->dtype != EIR_F32 || (want != EIR_BF16 && want != EIR_F16)) return;
    size_t n = 1;
    for (uint32_t d = 0; d < a->rank; d++) n *= (size_t)a->sizes[d];
    const float *f = a->data;
    uint16_t *h = a->data;
    for (size_t i = 0; i < n; i++) h[i] = want == EIR_BF16 ? f32_to_bf16(f[i]) : f32_to_f16(f[i]);
    a->dtype = want;
}

/* A C-order .npy file (format 1.0 or 2.0) into a; exits on anything else. */
static void npy_load(const char *path, arr *a) {
    FILE *f = fopen(path, "rb");
    if (!f) die(path, "cannot open");
    unsigned char pre[10];
    if (fread(pre, 1, 8, f) != 8 || memcmp(pre, "\x93NUMPY", 6) != 0) die(path, "not a .npy file");
    size_t hlen;
    if (pre[6] == 1) {
        if (fread(pre + 8, 1, 2, f) != 2) die(path, "truncated");
        hlen = pre[8] | (size_t)pre[9] << 8;
    } else {
        unsigned char l[4];
        if (fread(l, 1, 4, f) != 4) die(path, "truncated");
        hlen = l[0] | (size_t)l[1] << 8 | (size_t)l[2] << 16 | (size_t)l[3] << 24;
    }
    char *h = calloc(hlen + 1, 1);
    if (!h || fread(h, 1, hlen, f) != hlen) die(path, "truncated header");
    if (strstr(h, "'fortran_order': True")) die(path, "Fortran order is not supported");
    char *d = strstr(h, "'descr': '");
    if (!d) die(path, "no descr");
    d += 10;
    bool found = false;
    for (size_t i = 0; i < sizeof DESCRS / sizeof DESCRS[0]; i++)
        if (strncmp(d, DESCRS[i].descr, 3) == 0) { a->dtype = DESCRS[i].dt; found = true; }
    if (!found) die(path, "unsupported dtype");
    char *s = strstr(h, "'shape': (");
    if (!s) die(path, "no shape");
    s += 10;
    a->rank = 0;
    size_t n = 1;
    while (*s && *s != ')') {
        char *end;
        long long v = strtoll(s, &end, 10);
        if (end == s) { s++; continue; }
        if (a->rank == 8) die(path, "rank above 8");
        a->sizes[a->rank++] = v;
        n *= (size_t)v;
        s = end;
    }
    free(h);
    size_t bytes = n * eir_dtype_size(a->dtype);
    a->data = malloc(bytes ? bytes : 1);
    if (!a->data || fread(a->data, 1, bytes, f) != bytes) die(path, "truncated data");
    fclose(f);
}

static void npy_save(const char *path, const eir_tensor_view *v) {
    const char *descr = NULL;
    bool bf16 = v->dtype == EIR_BF16; /* written as float32 */
    for (size_t i = 0; i < sizeof DESCRS / sizeof DESCRS[0]; i++)
        if (DESCRS[i].dt == (bf16 ? EIR_F32 : v->dtype)) descr = DESCRS[i].descr;
    if (!descr) die(path, "unsupported output dtype");
    char h[256];
    int k = snprintf(h, sizeof h, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
    size_t n = 1;
    for (uint32_t i = 0; i < v->rank; i++) {
        k += snprintf(h + k, sizeof h - (size_t)k, "%lld,%s", (long long)v->sizes[i], i + 1 < v->rank ? " " : "");
        n *= (size_t)v->sizes[i];
    }
    k += snprintf(h + k, sizeof h - (size_t)k, "), }");
    int total = 10 + k + 1;
    int pad = (64 - total % 64) % 64;
    FILE *f = fopen(path, "wb");
    if (!f) die(path, "cannot create");
    unsigned short hl = (unsigned short)(k + pad + 1);
    fwrite("\x93NUMPY\x01\x00", 1, 8, f);
    fputc(hl & 0xff, f);
    fputc(hl >> 8, f);
    fwrite(h, 1, (size_t)k, f);
    for (int i = 0; i < pad; i++) fputc(' ', f);
    fputc('\n', f);
    /* outputs may be strided views: write element by element in C order */
    size_t es = eir_dtype_size(v->dtype);
    int64_t idx[8] = {0};
    for (size_t e = 0; e < n; e++) {
        int64_t off = 0, st = 1;
        for (int d = (int)v->rank - 1; d >= 0; d--) {
            off += idx[d] * (v->strides ? v->strides[d] : st);
            st *= v->sizes[d];
        }
        const char *src = (const char *)v->data + off * (int64_t)es;
        if (bf16) {
            uint32_t u = (uint32_t)(*(const uint16_t *)src) << 16;
            fwrite(&u, 1, 4, f);
        } else
            fwrite(src, 1, es, f);
        for (int d = (int)v->rank - 1; d >= 0; d--) {
            if (++idx[d] < v->sizes[d]) break;
            idx[d] = 0;
        }
    }
    if (fclose(f) != 0) die(path, "write failed");
}

static void run_once(eir_runtime *rt, bool print) {
    double t0 = now_us(CLOCK_MONOTONIC);
    if (eir_runtime_run(rt) != EIR_OK) die("run", eir_runtime_errmsg(rt));
    double dt = now_us(CLOCK_MONOTONIC) - t0;
    if (print) printf("run_us %.1f\n", dt);
}

static void write_outputs(eir_runtime *rt, const char *dir) {
    for (uint32_t i = 0; i < eir_runtime_num_outputs(rt); i++) {
        eir_tensor_view v;
        if (eir_runtime_output(rt, i, &v) != EIR_OK) die("output", eir_runtime_errmsg(rt));
        char path[4096];
        snprintf(path, sizeof path, "%s/out%u.npy", dir, i);
        npy_save(path, &v);
    }
}

static void write_profile(eir_runtime *rt, const char *path) {
    eir_profile pr;
    if (eir_runtime_profile(rt, &pr) != EIR_OK) die("profile", eir_runtime_errmsg(rt));
    FILE *f = fopen(path, "w");
    if (!f) die(path, "cannot create");
    fprintf(f, "runs\t%llu\t%.1f\n", (unsigned long long)pr.runs, pr.run_us);
    for (uint32_t i = 0; i < pr.num_steps; i++)
        fprintf(f, "%s\t%s\t%llu\t%.1f\n", pr.steps[i].node, pr.steps[i].target,
                (unsigned long long)pr.steps[i].calls, pr.steps[i].total_us);
    if (fclose(f) != 0) die(path, "write failed");
}

int main(int argc, char **argv) {
    const char *model = NULL, *out = NULL;
    int warmup = 3, runs = 15, threads = 1;
    bool serve = false;
    const char *inputs[64];
    int nin = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--warmup") && i + 1 < argc) warmup = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--serve")) serve = true;
        else if (!model) model = argv[i];
        else if (nin < 64) inputs[nin++] = argv[i];
        else die("arguments", "more than 64 inputs");
    }
    if (!model) {
        fprintf(stderr, "usage: run_bench MODEL.pt2 [--warmup W] [--runs N] [--out DIR] [--threads T] [--serve] IN.npy...\n");
        return 2;
    }
    if (warmup < 0 || runs < 0) die("arguments", "--warmup and --runs must be >= 0");

    double t0 = now_us(CLOCK_MONOTONIC);
    eir_program *p;
    if (eir_program_load(model, &p) != EIR_OK) die(model, eir_errmsg(p));
    eir_runtime *rt;
    if (eir_runtime_create(p, &rt) != EIR_OK) die("runtime", rt ? eir_runtime_errmsg(rt) : "out of memory");
    if (eir_runtime_set_threads(rt, threads) != EIR_OK) die("--threads", eir_runtime_errmsg(rt));
    if ((uint32_t)nin != eir_runtime_num_inputs(rt)) {
        fprintf(stderr, "run_bench: the program takes %u inputs, %d given\n", eir_runtime_num_inputs(rt), nin);
        return 1;
    }
    arr *a = calloc((size_t)nin + 1, sizeof *a);
    if (!a) die("inputs", "out of memory");
    for (int i = 0; i < nin; i++) {
        npy_load(inputs[i], &a[i]);
        eir_io_info info;
        if (eir_runtime_input_info(rt, (uint32_t)i, &info) == EIR_OK && info.is_tensor) narrow_input(&a[i], info.dtype);
        eir_tensor_view v = {a[i].data, a[i].dtype, a[i].rank, a[i].sizes, NULL};
        if (eir_runtime_set_input(rt, (uint32_t)i, &v) != EIR_OK) die(inputs[i], eir_runtime_errmsg(rt));
    }
    double t1 = now_us(CLOCK_MONOTONIC);
    run_once(rt, false);
    double t2 = now_us(CLOCK_MONOTONIC);
    printf("load_us %.1f\nfirst_us %.1f\nfirst_result_epoch_us %.0f\n", t1 - t0, t2 - t1, now_us(CLOCK_REALTIME));
    fflush(stdout);

    if (serve) {
        char line[4200];
        printf("ready\n");
        fflush(stdout);
        while (fgets(line, sizeof line, stdin)) {
            line[strcspn(line, "\n")] = 0;
            if (!strncmp(line, "run ", 4)) {
                int k = atoi(line + 4);
                for (int i = 0; i < k; i++) run_once(rt, true);
            } else if (!strncmp(line, "out ", 4)) {
                write_outputs(rt, line + 4);
            } else if (!strcmp(line, "profile on")) {
                if (eir_runtime_set_profiling(rt, 1) != EIR_OK) die("profile", eir_runtime_errmsg(rt));
            } else if (!strncmp(line, "profile ", 8)) {
                write_profile(rt, line + 8);
            } else if (!strcmp(line, "quit")) {
                break;
            } else {
                printf("error unknown command\n");
            }
            printf("ok\n");
            fflush(stdout);
        }
    } else {
        for (int i = 0; i < warmup; i++) run_once(rt, false);
        for (int i = 0; i < runs; i++) run_once(rt, true);
        if (out) write_outputs(rt, out);
    }
    eir_runtime_free(rt);
    eir_program_free(p);
    for (int i = 0; i < nin; i++) free(a[i].data);
    free(a);
    return 0;
}
