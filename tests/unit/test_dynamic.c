/* test_dynamic.c — dynamic shapes in the runtime on committed fixtures:
 * memory is planned again only when input shapes change, and a run with
 * the same shapes as the one before allocates nothing (counted by the
 * runtime, and by interposing malloc in the non-sanitized build); derived
 * and shared dims bind and refuse with torch's guard texts; data-dependent
 * sizes grow their memory only when they grow. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "eir.h"
#include "fixture.h"

/* ---- counting heap allocations (glibc; ASan brings its own malloc) ---- */
#if defined(__SANITIZE_ADDRESS__)
#define COUNT_MALLOC 0
static long heap_calls(void) { return 0; }
static void heap_count(int on) { (void)on; }
#else
#define COUNT_MALLOC 1
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);
static int counting;
static long ncalls;
void *malloc(size_t n) { if (counting) ncalls++; return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { if (counting) ncalls++; return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { if (counting) ncalls++; return __libc_realloc(p, n); }
void free(void *p) { __libc_free(p); }
void *aligned_alloc(size_t al, size_t n) { if (counting) ncalls++; return __libc_memalign(al, n); }
void *memalign(size_t al, size_t n) { if (counting) ncalls++; return __libc_memalign(al, n); }
int posix_memalign(void **out, size_t al, size_t n) {
    if (counting) ncalls++;
    *out = __libc_memalign(al, n);
    return *out ? 0 : 12;
}
static long heap_calls(void) { return ncalls; }
static void heap_count(int on) { counting = on; }
#endif

/* run and report what the run added: plans, runtime allocations, heap calls */
typedef struct delta { uint64_t plans, allocs; long heap; eir_status st; } delta;

static delta run_counted(eir_runtime *rt) {
    eir_run_stats a, b;
    eir_runtime_stats(rt, &a);
    long h0 = heap_calls();
    heap_count(1);
    eir_status st = eir_runtime_run(rt);
    heap_count(0);
    long h1 = heap_calls();
    eir_runtime_stats(rt, &b);
    return (delta){b.plans - a.plans, b.allocations - a.allocations, h1 - h0, st};
}

static float *filled(int64_t n, float v) {
    float *f = malloc((size_t)(n ? n : 1) * sizeof *f);
    for (int64_t i = 0; i < n; i++) f[i] = v * (float)((i % 7) - 3);
    return f;
}

/* dynamic_shapes: x [B, L, 8], y [B, L] */
static void set_xy(eir_runtime *rt, float *buf, int64_t b, int64_t l, int64_t *xs, int64_t *ys) {
    xs[0] = b; xs[1] = l; xs[2] = 8;
    ys[0] = b; ys[1] = l;
    eir_tensor_view x = {buf, EIR_F32, 3, xs, NULL}, y = {buf, EIR_F32, 2, ys, NULL};
    CHECK(eir_runtime_set_input(rt, 0, &x) == EIR_OK && eir_runtime_set_input(rt, 1, &y) == EIR_OK);
}

static void test_replan(void) {
    eir_program *p = load_fixture("dynamic_shapes");
    if (!p) { CHECK(false); return; }
    eir_runtime *rt = NULL;
    CHECK(eir_runtime_create(p, &rt) == EIR_OK);
    float *buf = filled(64 * 128 * 8, 0.01f);
    int64_t xs[3], ys[2];
    set_xy(rt, buf, 4, 6, xs, ys);
    delta d = run_counted(rt);
    CHECK(d.st == EIR_OK && d.plans == 1 && d.allocs > 0);
    /* the same shapes again: no plan, no allocation at all (OpenBLAS's own
     * buffers are set up by the first call) */
    for (int r = 0; r < 3; r++) {
        d = run_counted(rt);
        CHECK(d.st == EIR_OK && d.plans == 0 && d.allocs == 0);
        CHECK(!COUNT_MALLOC || d.heap == 0);
        if (COUNT_MALLOC && d.heap) fprintf(stderr, "  run %d made %ld heap calls\n", r, d.heap);
    }
    /* new shapes: one plan; the arena grows only when it must */
    set_xy(rt, buf, 32, 100, xs, ys);
    d = run_counted(rt);
    CHECK(d.st == EIR_OK && d.plans == 1);
    d = run_counted(rt);
    CHECK(d.st == EIR_OK && d.plans == 0 && d.allocs == 0 && (!COUNT_MALLOC || d.heap == 0));
    uint64_t arena_big, sum;
    eir_runtime_memory(rt, &arena_big, &sum);
    set_xy(rt, buf, 2, 3, xs, ys);
    d = run_counted(rt);
    CHECK(d.st == EIR_OK && d.plans == 1);
    uint64_t arena_small;
    eir_runtime_memory(rt, &arena_small, &sum);
    CHECK(arena_small < arena_big);
    /* a refused input plans nothing, and the next good run plans again */
    int64_t bad_y[2] = {3, 3};
    eir_tensor_view y = {buf, EIR_F32, 2, bad_y, NULL};
    CHECK(eir_runtime_set_input(rt, 1, &y) == EIR_OK);
    d = run_counted(rt);
    CHECK(d.st == EIR_ERR_ARG && d.plans == 0);
    CHECK(strstr(eir_runtime_errmsg(rt), "Guard failed: y.size()[0] == x.size()[0] (y.size()[0] = 3, x.size()[0] = 2)"));
    d = run_counted(rt);
    CHECK(d.st == EIR_ERR_ARG);  /* still refused: the check is not skipped on a second try */
    set_xy(rt, buf, 2, 3, xs, ys);
    d = run_counted(rt);
    CHECK(d.st == EIR_OK && d.plans == 1);
    eir_runtime_free(rt);
    free(buf);
    eir_program_free(p);
}

/* control flow: subgraph runtimes plan once too */
static void test_replan_control_flow(const char *name) {
    eir_program *p = load_fixture(name);
    if (!p) { CHECK(false); return; }
    eir_runtime *rt = NULL;
    CHECK(eir_runtime_create(p, &rt) == EIR_OK);
    npy_array in[4];
    uint32_t n = eir_runtime_num_inputs(rt);
    for (uint32_t i = 0; i < n && i < 4; i++) {
        char nm[256];
        snprintf(nm, sizeof nm, "%s.in_%u", name, i);
        if (!load_npy(nm, &in[i])) { CHECK(false); return; }
        eir_tensor_view v = view_of(&in[i]);
        CHECK(eir_runtime_set_input(rt, i, &v) == EIR_OK);
    }
    delta d = run_counted(rt);
    CHECK(d.st == EIR_OK && d.plans >= 1);
    for (int r = 0; r < 2; r++) {
        d = run_counted(rt);
        CHECK(d.st == EIR_OK && d.plans == 0 && d.allocs == 0);
        CHECK(!COUNT_MALLOC || d.heap == 0);
        if (d.plans || d.allocs || (COUNT_MALLOC && d.heap))
            fprintf(stderr, "  %s: rerun made %llu plans, %llu allocations, %ld heap calls\n", name,
                    (unsigned long long)d.plans, (unsigned long long)d.allocs, d.heap);
    }
    eir_run_stats s;
    eir_runtime_stats(rt, &s);
    CHECK(s.runs == 3);
    eir_runtime_free(rt);
    for (uint32_t i = 0; i < n && i < 4; i++) free(in[i].data);
    eir_program_free(p);
}

/* nonzero: memory for the data-dependent output grows only when the count does */
static void test_data_dependent_memory(void) {
    eir_program *p = load_fixture("nonzero_check");
    if (!p) { CHECK(false); return; }
    eir_runtime *rt = NULL;
    CHECK(eir_runtime_create(p, &rt) == EIR_OK);
    float x[20];
    int64_t sizes[2] = {4, 5};
    eir_tensor_view v = {x, EIR_F32, 2, sizes, NULL};
    for (int i = 0; i < 20; i++) x[i] = i < 10 ? 1.0f : -1.0f;  /* 10 positives */
    CHECK(eir_runtime_set_input(rt, 0, &v) == EIR_OK);
    delta d = run_counted(rt);
    CHECK(d.st == EIR_OK);
    eir_tensor_view idx;
    CHECK(eir_runtime_output(rt, 1, &idx) == EIR_OK && idx.sizes[0] == 10);
    for (int i = 0; i < 20; i++) x[i] = i < 4 ? 1.0f : -1.0f;  /* fewer: fits */
    d = run_counted(rt);
    CHECK(d.st == EIR_OK && d.plans == 0 && d.allocs == 0 && (!COUNT_MALLOC || d.heap == 0));
    CHECK(eir_runtime_output(rt, 1, &idx) == EIR_OK && idx.sizes[0] == 4);
    for (int i = 0; i < 20; i++) x[i] = 1.0f;  /* more: grows */
    d = run_counted(rt);
    CHECK(d.st == EIR_OK && d.plans == 0 && d.allocs > 0);
    CHECK(eir_runtime_output(rt, 1, &idx) == EIR_OK && idx.sizes[0] == 20);
    int64_t last[2] = {((int64_t *)idx.data)[19 * idx.strides[0]], ((int64_t *)idx.data)[19 * idx.strides[0] + idx.strides[1]]};
    CHECK(last[0] == 3 && last[1] == 4);
    eir_runtime_free(rt);
    eir_program_free(p);
}

/* derived dims: the symbol binds from the input that has it plain; the
 * others are checked with torch's texts */
static void test_derived(void) {
    eir_program *p = load_fixture("derived_only");
    if (!p) { CHECK(false); return; }
    eir_runtime *rt = NULL;
    CHECK(eir_runtime_create(p, &rt) == EIR_OK);
    float buf[64] = {0};
    for (int i = 0; i < 64; i++) buf[i] = (float)i;
    int64_t w[1], z[1], v[1];
    eir_tensor_view wv = {buf, EIR_F32, 1, w, NULL}, zv = {buf, EIR_F32, 1, z, NULL}, vv = {buf, EIR_F32, 1, v, NULL};
    struct { int64_t w, z, v; const char *err; } cases[] = {
        {5, 8, 13, NULL}, {4, 6, 10, NULL}, {11, 20, 31, NULL},
        {5, 9, 13, "input 1 'z': Guard failed: -2 + 2 * w.size()[0] == z.size()[0] (w.size()[0] = 5, z.size()[0] = 9)"},
        {5, 8, 14, "input 2 'v': Guard failed: -2 + 3 * w.size()[0] == v.size()[0] (w.size()[0] = 5, v.size()[0] = 14)"},
        {3, 4, 7, "input 0 'w': Guard failed: w.size()[0] >= 4 (w.size()[0] = 3)"},
        {12, 22, 34, "input 0 'w': Guard failed: w.size()[0] <= 11 (w.size()[0] = 12)"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        w[0] = cases[k].w; z[0] = cases[k].z; v[0] = cases[k].v;
        CHECK(eir_runtime_set_input(rt, 0, &wv) == EIR_OK && eir_runtime_set_input(rt, 1, &zv) == EIR_OK &&
              eir_runtime_set_input(rt, 2, &vv) == EIR_OK);
        eir_status st = eir_runtime_run(rt);
        if (!cases[k].err) {
            CHECK(st == EIR_OK);
            /* outputs: w[1:] * 2, z.view(-1, 2).sum(1) + w[1:], v[1:].view(-1, 3).mean(1); B = w - 1 */
            eir_tensor_view o;
            int64_t B = cases[k].w - 1;
            CHECK(eir_runtime_output(rt, 0, &o) == EIR_OK && o.sizes[0] == B && ((float *)o.data)[0] == 2.0f);
            CHECK(eir_runtime_output(rt, 1, &o) == EIR_OK && o.sizes[0] == B && ((float *)o.data)[B - 1] ==
                  (float)(2 * B - 2 + 2 * B - 1 + B));
            CHECK(eir_runtime_output(rt, 2, &o) == EIR_OK && o.sizes[0] == B && ((float *)o.data)[0] == 2.0f);
        } else {
            CHECK(st == EIR_ERR_ARG && strstr(eir_runtime_errmsg(rt), cases[k].err));
            if (st != EIR_ERR_ARG || !strstr(eir_runtime_errmsg(rt), cases[k].err))
                fprintf(stderr, "  case %zu: %s\n", k, eir_runtime_errmsg(rt));
        }
    }
    eir_runtime_free(rt);
    eir_program_free(p);
}

/* Every runnable fixture, on its recorded inputs: the second run with the
 * same inputs makes no plan, no runtime allocation and no heap call. */
static void test_rerun_all_fixtures(void) {
    DIR *d = opendir(fixture_dir);
    if (!d) { CHECK(false); return; }
    struct dirent *e;
    int checked = 0;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".pt2")) continue;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(n - 4), e->d_name);
        char first[300];
        snprintf(first, sizeof first, "%s/%s.in_0.npy", fixture_dir, name);
        FILE *f = fopen(first, "rb");
        if (!f) continue;
        fclose(f);
        eir_program *p = load_fixture(name);
        if (!p) { CHECK(false); continue; }
        eir_runtime *rt = NULL;
        if (eir_runtime_create(p, &rt) != EIR_OK) {  /* needs a custom kernel */
            eir_runtime_free(rt);
            eir_program_free(p);
            continue;
        }
        npy_array in[8];
        uint32_t ni = 0;
        bool ok = true;
        for (uint32_t i = 0; ok && i < eir_runtime_num_inputs(rt) && ni < 8; i++) {
            eir_io_info info;
            eir_runtime_input_info(rt, i, &info);
            if (info.is_constant) continue;
            char nm[300];
            snprintf(nm, sizeof nm, "%s.in_%u", name, ni);
            if (!load_npy(nm, &in[ni])) { ok = false; break; }
            eir_tensor_view v = view_of(&in[ni]);
            if (info.dtype == EIR_BF16 && v.dtype == EIR_F32) {
                /* bfloat16 inputs are stored as float32: round them, as eir run does */
                int64_t cnt = 1;
                for (uint32_t q = 0; q < v.rank; q++) cnt *= v.sizes[q];
                for (int64_t q = 0; q < cnt; q++) {
                    float x = ((float *)v.data)[q];
                    uint32_t u;
                    memcpy(&u, &x, 4);
                    u += 0x7fffu + ((u >> 16) & 1u);
                    ((uint16_t *)v.data)[q] = (uint16_t)(u >> 16);
                }
                v.dtype = EIR_BF16;
            }
            ni++;
            ok = eir_runtime_set_input(rt, i, &v) == EIR_OK;
        }
        if (ok && eir_runtime_run(rt) == EIR_OK) {
            delta dl = run_counted(rt);
            CHECK(dl.st == EIR_OK && dl.plans == 0 && dl.allocs == 0 && (!COUNT_MALLOC || dl.heap == 0));
            if (dl.st != EIR_OK || dl.plans || dl.allocs || (COUNT_MALLOC && dl.heap))
                fprintf(stderr, "  %s: rerun: %s, %llu plans, %llu allocations, %ld heap calls\n", name,
                        dl.st ? eir_runtime_errmsg(rt) : "ok", (unsigned long long)dl.plans,
                        (unsigned long long)dl.allocs, dl.heap);
            checked++;
        } else {
            CHECK(false);
            fprintf(stderr, "  %s: %s\n", name, eir_runtime_errmsg(rt));
        }
        for (uint32_t i = 0; i < ni; i++) free(in[i].data);
        eir_runtime_free(rt);
        eir_program_free(p);
    }
    closedir(d);
    CHECK(checked >= 40);
    if (checked < 40) fprintf(stderr, "  only %d fixtures ran\n", checked);
}

int main(void) {
    if (getenv("EIR_FIXTURES")) fixture_dir = getenv("EIR_FIXTURES");
    /* eir's own promise is checked: oneDNN's dnnl_sgemm (the default float32 GEMM when it
     * loads) allocates its packing buffers on every call, OpenBLAS only once */
    setenv("EIR_GEMM", "openblas", 1);
    test_replan();
    test_replan_control_flow("cond");
    test_replan_control_flow("while_loop");
    test_replan_control_flow("map");
    test_replan_control_flow("scan");
    test_replan_control_flow("nested_cond");
    test_data_dependent_memory();
    test_derived();
    test_rerun_all_fixtures();
    return check_summary("test_dynamic");
}
