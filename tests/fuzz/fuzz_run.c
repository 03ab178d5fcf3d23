/* fuzz_run.c — libFuzzer target: whole .pt2 archives from memory, loaded and
 * then run. A runtime is created (with the example library of custom
 * operators, examples/custom_ops.c), and the program runs twice on each of
 * two sets of small random inputs shaped from its input info: first with
 * the symbolic dims at their recorded hints, then with every symbol at a
 * small value in its range (and rank >= 2 inputs given with padded,
 * non-contiguous strides), so that binding, guards, re-planning, views and
 * geometry are all exercised. Every element of every output and of the
 * mutated state is read back, so a view reaching outside its memory shows.
 *
 * Programs that may legitimately be slow are skipped: any tensor of the graph
 * (or of a subgraph) whose recorded size, with hints for symbolic dims,
 * exceeds FUZZ_MAX_ELEMS elements, or all of them together above
 * FUZZ_MAX_TOTAL; inputs above FUZZ_MAX_ELEMS; and programs with a
 * while_loop, which may legitimately never end. Seeds: tests/bad/corpus
 * and the fixtures (`make fuzz`). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eir.h"
#include "ir/program.h"
#include "kernels/kutil.h"

#include "../../examples/custom_ops.c"

#define FUZZ_MAX_ELEMS (1 << 14)
#define FUZZ_MAX_TOTAL (1 << 18)
#define FUZZ_MAX_DIM 4096
#define FUZZ_MAX_INPUTS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t rng;
static bool verbose; /* FUZZ_RUN_VERBOSE=1: say what each input did */
static uint64_t rng_next(void) {
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t hash_bytes(const void *p, size_t n, uint64_t h) {
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* a recorded size, with the hint (or 2) for a symbolic one; -1 when unusable */
static int64_t recorded_size(const eir_symint *s) {
    int64_t v = s->is_expr ? (s->has_hint ? s->value : 2) : s->value;
    return v >= 0 && v <= (int64_t)1 << 40 ? v : -1;
}

/* whether every tensor of g and of its subgraphs is small, and no loop may run
 * forever (a while_loop's condition is the program's: a mutated one need not end,
 * in torch neither) */
static bool graph_small(const eir_graph *g, int depth, uint64_t *total) {
    if (depth > 8) return false;
    for (uint32_t i = 0; i < g->num_nodes; i++)
        if (g->nodes[i].target && strstr(g->nodes[i].target, "while_loop")) return false;
    for (uint32_t i = 0; i < g->num_values; i++) {
        const eir_value *v = &g->values[i];
        if (v->kind != EIR_VALUE_TENSOR) continue;
        uint64_t n = 1;
        for (uint32_t d = 0; d < v->meta.rank; d++) {
            int64_t s = recorded_size(&v->meta.sizes[d]);
            if (s < 0 || s > FUZZ_MAX_DIM) return false;
            n *= (uint64_t)s;
            if (n > FUZZ_MAX_ELEMS) return false;
        }
        if ((*total += n) > FUZZ_MAX_TOTAL) return false;
    }
    for (uint32_t i = 0; i < g->num_nodes; i++)
        for (uint32_t a = 0; a < g->nodes[i].num_inputs; a++) {
            const eir_arg *arg = &g->nodes[i].inputs[a].arg;
            if (arg->kind == EIR_ARG_GRAPH && arg->u.graph.graph && !graph_small(arg->u.graph.graph, depth + 1, total))
                return false;
        }
    return true;
}

static const eir_value *find_value(const eir_program *p, const char *name) {
    const eir_graph *g = eir_program_graph(p);
    for (uint32_t i = 0; name && i < g->num_values; i++)
        if (g->values[i].name && !strcmp(g->values[i].name, name)) return &g->values[i];
    return NULL;
}

/* symbols take small values in their ranges: lo + (hash of name and salt) % 3 */
typedef struct sym_ctx {
    const eir_program *p;
    uint64_t salt;
} sym_ctx;

static bool small_symbol(void *ctx, const char *name, eir_sym_value *v) {
    const sym_ctx *c = ctx;
    int64_t lo = 2, hi = 8;
    for (uint32_t i = 0; i < eir_program_num_ranges(c->p); i++) {
        const eir_range *r = eir_program_range(c->p, i);
        if (!r->symbol || strcmp(r->symbol, name)) continue;
        if (r->has_min) lo = r->min < 0 ? 0 : r->min > 64 ? 64 : r->min;
        if (r->has_max) hi = r->max;
        break;
    }
    int64_t x = lo + (int64_t)(hash_bytes(name, strlen(name), c->salt) % 3);
    if (x > hi && hi >= lo) x = hi;
    *v = (eir_sym_value){false, x, (double)x};
    return true;
}

/* a size under the second pass's symbol values; -1 when it has none */
static int64_t small_size(const eir_program *p, const eir_symint *s, sym_ctx *c) {
    if (!s->is_expr) return s->value;
    if (s->expr >= p->num_exprs || !p->exprs[s->expr].tree) return -1;
    int64_t v;
    char err[256];
    if (!eir_sym_eval(p->exprs[s->expr].tree, small_symbol, c, &v, err, sizeof err)) return -1;
    return v;
}

static void fill(void *buf, eir_dtype dt, int64_t n) {
    size_t es = eir_dtype_size(dt);
    for (int64_t q = 0; q < n; q++) {
        char *e = (char *)buf + q * (int64_t)es;
        uint64_t r = rng_next();
        if (eir_is_floating(dt) || eir_is_complex(dt))
            eir_store_f64(e, dt, (double)(int64_t)(r % 17) / 2 - 4);
        else if (dt == EIR_BOOL) *(uint8_t *)e = r & 1;
        else eir_store_i64(e, dt, (int64_t)(r % 13) - 3);
    }
}

/* read every element of a view through its strides */
static void touch(const eir_tensor_view *v) {
    size_t es = eir_dtype_size(v->dtype);
    int64_t n = eir_tensor_numel(v);
    if (n <= 0 || !es || v->rank > EIR_MAX_RANK) return;
    int64_t idx[EIR_MAX_RANK] = {0};
    volatile uint8_t sink = 0;
    for (int64_t k = 0; k < n && k < FUZZ_MAX_ELEMS; k++) {
        int64_t off = 0;
        for (uint32_t d = 0; d < v->rank; d++) {
            int64_t st = 1;
            if (v->strides) st = v->strides[d];
            else for (uint32_t q = d + 1; q < v->rank; q++) st *= v->sizes[q];
            off += idx[d] * st;
        }
        const uint8_t *e = (const uint8_t *)v->data + off * (int64_t)es;
        for (size_t b = 0; b < es; b++) sink ^= e[b];
        for (uint32_t d = v->rank; d-- > 0;) {
            if (++idx[d] < v->sizes[d]) break;
            idx[d] = 0;
        }
    }
    (void)sink;
}

/* bind one set of inputs (pass 0: hints, pass 1: small symbol values, padded
 * strides) and run twice; false when the program is too big to run */
static bool run_pass(eir_program *p, eir_runtime *rt, int pass, uint64_t salt) {
    uint32_t nin = eir_runtime_num_inputs(rt);
    if (nin > FUZZ_MAX_INPUTS) return false;
    void *bufs[FUZZ_MAX_INPUTS] = {0};
    int64_t sizes[FUZZ_MAX_INPUTS][EIR_MAX_RANK], strides[FUZZ_MAX_INPUTS][EIR_MAX_RANK];
    sym_ctx c = {p, salt};
    bool ok = true;
    for (uint32_t i = 0; i < nin && ok; i++) {
        eir_io_info info;
        if (eir_runtime_input_info(rt, i, &info) != EIR_OK || info.is_constant) continue;
        if (info.rank > EIR_MAX_RANK) { ok = false; break; }
        const eir_value *gv = find_value(p, info.name);
        eir_tensor_view v = {0};
        v.rank = info.rank;
        v.dtype = info.is_tensor ? info.dtype : EIR_I64;
        int64_t n = 1, span = 1;
        for (uint32_t d = 0; d < info.rank; d++) {
            int64_t s = info.sizes[d];
            if (s < 0 && gv && gv->kind == EIR_VALUE_TENSOR && d < gv->meta.rank)
                s = pass == 0 ? recorded_size(&gv->meta.sizes[d]) : small_size(p, &gv->meta.sizes[d], &c);
            if (s < 0) s = 2;
            if (s > FUZZ_MAX_DIM) { ok = false; break; }
            sizes[i][d] = s;
            n *= s;
            if (n > FUZZ_MAX_ELEMS) { ok = false; break; }
        }
        if (!ok) break;
        v.sizes = sizes[i];
        if (pass == 1 && info.rank >= 2) {
            /* row-major over sizes with the last dim padded by one */
            int64_t st = 1;
            for (uint32_t d = info.rank; d-- > 0;) {
                strides[i][d] = st;
                st *= sizes[i][d] + (d == info.rank - 1);
            }
            v.strides = strides[i];
            span = n ? st : 0;
        } else {
            span = n;
        }
        size_t es = eir_dtype_size(v.dtype);
        if (!es) continue;
        bufs[i] = malloc((size_t)(span ? span : 1) * es);
        if (!bufs[i]) { ok = false; break; }
        v.data = bufs[i];
        fill(v.data, v.dtype, span);
        if (!info.is_tensor) {
            int64_t x = 2;
            if (gv && gv->kind != EIR_VALUE_TENSOR) {
                if (pass == 0) x = gv->sym.has_hint || !gv->sym.is_expr ? gv->sym.value : 2;
                else if ((x = small_size(p, &gv->sym, &c)) < 0) x = 2;
            }
            *(int64_t *)v.data = x;
        }
        (void)eir_runtime_set_input(rt, i, &v);
    }
    for (int r = 0; ok && r < 2; r++) {
        if (eir_runtime_run(rt) != EIR_OK) {
            if (verbose) fprintf(stderr, "fuzz_run: pass %d run %d: %s\n", pass, r, eir_runtime_errmsg(rt));
            break;
        }
        if (verbose) fprintf(stderr, "fuzz_run: pass %d run %d: ok\n", pass, r);
        for (uint32_t o = 0; o < eir_runtime_num_outputs(rt); o++) {
            eir_tensor_view y;
            if (eir_runtime_output(rt, o, &y) == EIR_OK) touch(&y);
        }
        const char *fqn;
        for (uint32_t k = 0; (fqn = eir_runtime_mutated_state(rt, k)); k++) {
            eir_tensor_view s;
            if (eir_runtime_state(rt, fqn, &s) == EIR_OK) touch(&s);
        }
    }
    for (uint32_t i = 0; i < nin && i < FUZZ_MAX_INPUTS; i++) free(bufs[i]);
    return ok;
}

static eir_library *lib;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    verbose = getenv("FUZZ_RUN_VERBOSE") != NULL;
    if (eir_library_create(&lib) == EIR_OK && eir_ops_init(lib) != EIR_OK) {
        eir_library_free(lib);
        lib = NULL;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    eir_program *p = NULL;
    if (eir_program_load_buffer(data, size, &p) != EIR_OK) {
        eir_program_free(p);
        return 0;
    }
    uint64_t total = 0;
    eir_runtime *rt = NULL;
    bool small = graph_small(eir_program_graph(p), 0, &total);
    eir_status st = small ? eir_runtime_create_with(p, lib, &rt) : EIR_OK;
    if (verbose) fprintf(stderr, "fuzz_run: %s\n", !small ? "skipped (big, or a while_loop)" : st ? eir_runtime_errmsg(rt) : "runtime created");
    if (small && st == EIR_OK) {
        uint64_t h = hash_bytes(data, size, 0xcbf29ce484222325ull);
        rng = h;
        eir_runtime_seed(rt, h);
        if (run_pass(p, rt, 0, h)) run_pass(p, rt, 1, h);
    }
    eir_runtime_free(rt);
    eir_program_free(p);
    return 0;
}
