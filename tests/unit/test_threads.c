/* test_threads.c — what include/eir.h promises about threads: one program
 * (and one library of custom operators) shared read-only by runtimes on
 * several threads, one runtime per thread, gives every thread the results of
 * a single thread, run after run (state carried over), while the program
 * is also printed and saved on each thread; half the runtimes run on two
 * threads of their own (a pool inside each run). Run under
 * ThreadSanitizer by `make test` (build/tsan/tests/test_threads); also in the
 * normal and ASan builds. */
#include <dirent.h>
#include <pthread.h>
#include <stdlib.h>

#include "base/pool.h"
#include "check.h"
#include "fixture.h"
#include "../../examples/custom_ops.c" /* eir_ops_init: kernels for the mylib fixtures */

#define NTHREADS 4
#define NRUNS 3
#define MAXIO 8

/* the outputs of NRUNS runs, each flattened in logical order */
typedef struct result {
    bool ok;
    uint32_t nout;
    size_t bytes[NRUNS][MAXIO];
    unsigned char *data[NRUNS][MAXIO];
} result;

typedef struct job {
    const eir_program *p;        /* shared */
    const eir_library *lib;      /* shared */
    const char *name;
    const char *text;            /* the program printed on the main thread */
    int threads;                 /* the runtime's own (eir_runtime_set_threads) */
    bool text_same;
    result res;
    pthread_t tid;
} job;

/* one runtime on the shared program: its own inputs, NRUNS runs, on `threads` threads of its own */
static void run_fixture(const eir_program *p, const eir_library *lib, const char *name, int threads, result *r) {
    memset(r, 0, sizeof *r);
    npy_array in[MAXIO];
    /* the runtime only reads the program: eir_runtime_create_with takes it non-const for history's sake */
    eir_runtime *rt = fixture_runtime((eir_program *)p, lib, name, in, MAXIO);
    if (!rt) return;
    r->ok = eir_runtime_set_threads(rt, threads) == EIR_OK;
    r->nout = eir_runtime_num_outputs(rt);
    if (r->nout > MAXIO) r->nout = MAXIO;
    for (int run = 0; run < NRUNS && r->ok; run++) {
        if (eir_runtime_run(rt) != EIR_OK) {
            fprintf(stderr, "  %s: run %d: %s\n", name, run, eir_runtime_errmsg(rt));
            r->ok = false;
            break;
        }
        for (uint32_t i = 0; i < r->nout; i++) {
            eir_tensor_view y;
            if (eir_runtime_output(rt, i, &y) != EIR_OK || !(r->data[run][i] = view_bytes(&y, &r->bytes[run][i])))
                r->ok = false;
        }
    }
    for (uint32_t k = 0; k < MAXIO; k++) free(in[k].data);
    eir_runtime_free(rt);
}

static void result_free(result *r) {
    for (int run = 0; run < NRUNS; run++)
        for (uint32_t i = 0; i < MAXIO; i++) free(r->data[run][i]);
}

static bool same(const result *a, const result *b) {
    if (!a->ok || !b->ok || a->nout != b->nout) return false;
    for (int run = 0; run < NRUNS; run++)
        for (uint32_t i = 0; i < a->nout; i++)
            if (a->bytes[run][i] != b->bytes[run][i] || memcmp(a->data[run][i], b->data[run][i], a->bytes[run][i]))
                return false;
    return true;
}

static void *thread_main(void *arg) {
    job *j = arg;
    run_fixture(j->p, j->lib, j->name, j->threads, &j->res);
    /* printing and eir_program_info read the program too */
    char *text = NULL;
    j->text_same = eir_program_print((eir_program *)j->p, EIR_PRINT_PROGRAM, &text) == EIR_OK && text &&
                   !strcmp(text, j->text);
    eir_free(text);
    text = NULL;
    j->text_same &= eir_program_info((eir_program *)j->p, true, &text) == EIR_OK && text != NULL;
    eir_free(text);
    /* and so does the writer: the copy loads as the same program */
    void *buf = NULL;
    size_t len = 0;
    eir_program *copy = NULL;
    j->text_same &= eir_program_save_buffer((eir_program *)j->p, &buf, &len) == EIR_OK &&
                    eir_program_load_buffer(buf, len, &copy) == EIR_OK;
    text = NULL;
    j->text_same &= copy && eir_program_print(copy, EIR_PRINT_PROGRAM, &text) == EIR_OK && text && !strcmp(text, j->text);
    eir_free(text);
    eir_program_free(copy);
    eir_free(buf);
    /* messages are per handle: reading the shared ones is fine */
    (void)eir_errmsg(j->p);
    (void)eir_library_errmsg(j->lib);
    return NULL;
}

/* every fixture with recorded inputs: NTHREADS runtimes at once on one program */
static void test_shared_program(const eir_library *lib) {
    DIR *d = opendir(fixture_dir);
    if (!d) { CHECK(false); return; }
    struct dirent *e;
    int checked = 0;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".pt2")) continue;
        char name[256], first[512];
        snprintf(name, sizeof name, "%.*s", (int)(n - 4), e->d_name);
        snprintf(first, sizeof first, "%s/%s.in_0.npy", fixture_dir, name);
        FILE *f = fopen(first, "rb");
        if (!f) continue;
        fclose(f);
        eir_program *p = load_fixture(name);
        if (!p) { CHECK(false); continue; }
        result ref;
        run_fixture(p, lib, name, 1, &ref);
        if (!ref.ok) {              /* inputs this test cannot give (bfloat16 stored as float32) */
            result_free(&ref);
            eir_program_free(p);
            continue;
        }
        char *text = NULL;
        CHECK(eir_program_print(p, EIR_PRINT_PROGRAM, &text) == EIR_OK && text);
        job jobs[NTHREADS];
        for (int t = 0; t < NTHREADS; t++) {
            jobs[t] = (job){p, lib, name, text ? text : "", 1 + t % 2, false, {0}, 0};
            CHECK(pthread_create(&jobs[t].tid, NULL, thread_main, &jobs[t]) == 0);
        }
        for (int t = 0; t < NTHREADS; t++) {
            pthread_join(jobs[t].tid, NULL);
            bool ok = same(&jobs[t].res, &ref);
            CHECK(ok);
            CHECK(jobs[t].text_same);
            if (!ok) fprintf(stderr, "  %s: thread %d differs from one thread\n", name, t);
            result_free(&jobs[t].res);
        }
        result_free(&ref);
        eir_free(text);
        eir_program_free(p);
        checked++;
    }
    closedir(d);
    CHECK(checked >= 40);
    printf("  %d fixtures, %d threads each\n", checked, NTHREADS);
}

/* runtime creation that fails (a missing operator) on several threads at once:
 * each handle has its own message and list */
static void *create_fails(void *arg) {
    const eir_program *p = arg;
    eir_runtime *rt = NULL;
    eir_status st = eir_runtime_create((eir_program *)p, &rt);
    bool ok = st == EIR_ERR_UNSUPPORTED && eir_runtime_num_missing_ops(rt) == 1 &&
              strstr(eir_runtime_errmsg(rt), "mylib.sin.default (node %sin)");
    eir_runtime_free(rt);
    return ok ? arg : NULL;
}

static void test_concurrent_failures(void) {
    eir_program *p = load_fixture("custom_op");
    if (!p) { CHECK(false); return; }
    pthread_t tid[NTHREADS];
    for (int t = 0; t < NTHREADS; t++) CHECK(pthread_create(&tid[t], NULL, create_fails, p) == 0);
    for (int t = 0; t < NTHREADS; t++) {
        void *ret = NULL;
        pthread_join(tid[t], &ret);
        CHECK(ret == p);
    }
    eir_program_free(p);
}

int main(void) {
    const char *dir = getenv("EIR_FIXTURES");
    if (dir) fixture_dir = dir;
    /* half the runtimes run on 2 threads of their own, every parallel loop split
     * even on these small programs: the pool's hand-offs under ThreadSanitizer */
    eir_pool_split_all = 1;
    eir_library *lib = NULL;
    if (eir_library_create(&lib) != EIR_OK || eir_ops_init(lib) != EIR_OK) { CHECK(false); return check_summary("test_threads"); }
    test_shared_program(lib);
    test_concurrent_failures();
    eir_library_free(lib);
    return check_summary("test_threads");
}
