/* main.c — the `eir` command line: info, print, verify, run, convert, dot, ops. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "eir.h"
#include "npy.h"
#include "progress.h"
#include "../../src/base/base.h" /* eir_snprintf: numbers in the C locale */
#include "../../src/kernels/kutil.h"
#include "../../src/ops/optable.h"
#include "../../src/ops/meta.h"
#include "../../src/passes/decomp.h"

static const char USAGE[] =
    "usage: eir <command> [options] MODEL.pt2\n"
    "\n"
    "Read a torch.export program (.pt2 written by torch.export.save) without Python.\n"
    "\n"
    "commands:\n"
    "  info [--json] MODEL.pt2     summary: versions, user inputs/outputs with symbolic\n"
    "                              dims and ranges, stored state, op histogram, dialect,\n"
    "                              control flow, custom ops, runtime assertions, and\n"
    "                              whether eir can run it (with --ops LIB.so, see run)\n"
    "  print [FORM] MODEL.pt2      print the program exactly as torch 2.13 does:\n"
    "      (default)               like print(ep.graph)\n"
    "      --code                  like print(ep.graph_module.code)\n"
    "      --program               like print(ep), nested graphs included\n"
    "  verify [--dialect D] [--json] MODEL.pt2\n"
    "                              check the program against the Export IR's rules and\n"
    "                              those of dialect D: aten (default; as torch.export\n"
    "                              returns it), core (after run_decompositions(): Core\n"
    "                              ATen, functional), edge (ExecuTorch's to_edge()) or\n"
    "                              backend (Core ATen plus eir_cpu fused operators);\n"
    "                              prints every violation with its node, target, argument\n"
    "                              and source line (docs/IR.md lists the rules); --json:\n"
    "                              {\"violations\": [...]}. Exit status 0 when it holds,\n"
    "                              3 when it breaks rules, 1 when it cannot be read.\n"
    "                              Recorded dtypes, sizes and strides are checked against\n"
    "                              eir's shape inference (rules meta.*; docs/META.md)\n"
    "  verify --meta-report MODEL.pt2\n"
    "                              one JSON line per node: its outputs' recorded metadata\n"
    "                              against the inferred (agree, differ or unknown)\n"
    "  run MODEL.pt2 [IN.npy ...]  run the program on NumPy inputs given in the order of\n"
    "                              its flattened user inputs (a symbolic int input as a\n"
    "                              0-d integer .npy; Python values burned into the program\n"
    "                              may be given as 0-d .npy, and must then match, or be\n"
    "                              left out); with no inputs, on deterministic random\n"
    "                              inputs of the declared shapes. NumPy has no bfloat16 or\n"
    "                              complex32: give float32 / complex64 (rounded on input);\n"
    "                              outputs of those dtypes are written widened the same way\n"
    "      --out DIR               write outputs as DIR/output_0.npy, output_1.npy, ...,\n"
    "                              and the new value of each input and buffer the program\n"
    "                              mutates as DIR/input_<i>.npy and DIR/state.<fqn>.npy\n"
    "                              (otherwise print their shapes and first values)\n"
    "      --runs N                run N times in a row; state the program mutates (buffers,\n"
    "                              inputs) carries over, as with the torch module; each run's\n"
    "                              results are printed, or written to DIR/run_<r>/ (r = 1..N)\n"
    "      --repeat N              run N times and report the median time per run (state\n"
    "                              advances N times; the results shown are the last run's)\n"
    "      --seed S                seed of the random inputs and of random ops (default 0)\n"
    "      --threads N             run on N threads (default 1; 0: the machine's cores);\n"
    "                              outputs are the same, bit for bit, at any count\n"
    "      --profile               time every node: print the time per run by operator and\n"
    "                              the slowest nodes (the nodes the runtime runs, fused\n"
    "                              eir_cpu operators included); with more than one run\n"
    "                              (--repeat, --runs) the first is left out as warm-up\n"
    "      --trace FILE            write the last run's nodes as a Chrome trace (JSON; open\n"
    "                              it in https://ui.perfetto.dev or chrome://tracing)\n"
    "      --ops LIB.so            custom operators: a shared library whose function\n"
    "                              eir_ops_init(eir_library *) defines their kernels\n"
    "                              (include/eir.h; example: examples/custom_ops.c)\n"
    "      --inner NAME            run on inner tensor NAME of each wrapper tensor subclass\n"
    "                              (TwoTensor parameters: a, then b, give each TwoTensor\n"
    "                              output's .a and .b)\n"
    "  convert IN.pt2 OUT.pt2      write the program again, as torch.export.save does (a\n"
    "                              lossless copy; passes such as --dce, --cse: see\n"
    "                              `eir convert --help`)\n"
    "  dot MODEL.pt2 [-o OUT.dot] [--svg OUT.svg] [--collapse DEPTH]\n"
    "                              the graph as a Graphviz picture: module clusters,\n"
    "                              nested graphs, op families (see `eir dot --help`)\n"
    "  ops [--list KIND] [--missing]\n"
    "                              the ATen overloads of torch 2.13 and how many eir runs,\n"
    "                              by kind (all, core, inplace, out, view); --list prints\n"
    "                              the overloads of KIND eir runs (with --missing: lacks)\n"
    "\n"
    "options:\n"
    "  -h, --help                  show this help\n"
    "  --version                   show the eir version\n"
    "\n"
    "On a terminal, long operations (writing or inflating large archives, run --repeat)\n"
    "show a progress line on stderr; EIR_NO_PROGRESS=1 turns it off.\n"
    "\n"
    "exit status: 0 on success, 1 when the model cannot be read or run (the message\n"
    "names the record, JSON path, node or input at fault), 2 on a usage error,\n"
    "3 when verify finds violations.\n";

int eir_cli_dot(int argc, char **argv); /* tools/eir/dot.c */

#define THREADS_STR_(x) #x
#define THREADS_STR(x) THREADS_STR_(x)
#define THREADS_MAX_STR THREADS_STR(EIR_MAX_THREADS)

static int usage_error(const char *fmt, const char *arg) {
    fprintf(stderr, "eir: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'eir --help'.\n");
    return 2;
}

/* ---- eir ops: operator coverage ---- */

static const char *const OP_KINDS[] = {"all", "core", "inplace", "out", "view"};

static bool op_of_kind(const eir_op_schema *s, int kind) {
    switch (kind) {
    case 1: return s->flags & EIR_OPF_CORE;
    case 2: return s->flags & EIR_OPF_INPLACE;
    case 3: return s->flags & EIR_OPF_OUT;
    case 4: return s->flags & EIR_OPF_VIEW;
    default: return true;
    }
}

static int cmd_ops(int argc, char **argv) {
    int list = -1;
    bool missing = false;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--missing")) missing = true;
        else if (!strcmp(argv[i], "--list")) {
            if (i + 1 >= argc) return usage_error("%s needs a kind: all, core, inplace, out or view", argv[i]);
            for (int k = 0; k < (int)(sizeof OP_KINDS / sizeof *OP_KINDS); k++)
                if (!strcmp(argv[i + 1], OP_KINDS[k])) list = k;
            if (list < 0) return usage_error("unknown kind '%s' (all, core, inplace, out or view)", argv[i + 1]);
            i++;
        } else return usage_error("ops: unknown option '%s'", argv[i]);
    }
    if (missing && list < 0) list = 0;
    uint32_t n = eir_op_count();
    if (list >= 0) {
        for (uint32_t i = 0; i < n; i++) {
            const eir_op_schema *s = eir_op_at(i);
            if (op_of_kind(s, list) && (eir_op_runnable(s->name) != 0) != missing) puts(s->name);
        }
        return 0;
    }
    static const char *const label[] = {"every overload", "Core ATen", "in-place (`op_`)", "`out=`",
                                        "returns an alias of an input (view)"};
    printf("| ATen overloads of torch 2.13 | exist | eir runs |\n|---|---:|---:|\n");
    for (int k = 0; k < (int)(sizeof OP_KINDS / sizeof *OP_KINDS); k++) {
        uint32_t total = 0, runs = 0;
        for (uint32_t i = 0; i < n; i++) {
            const eir_op_schema *s = eir_op_at(i);
            if (!op_of_kind(s, k)) continue;
            total++;
            runs += eir_op_runnable(s->name) != 0;
        }
        printf("| %s | %u | %u |\n", label[k], total, runs);
    }
    return 0;
}

/* A file whose first non-blank text is "ExportedProgram:" or "class " is the
 * text form (docs/TEXT-FORM.md); anything else is read as a .pt2 archive. */
static int load_text(const char *path, eir_program **p, bool *is_text) {
    *is_text = false;
    FILE *f = fopen(path, "rb");
    if (!f) return 0;                    /* eir_program_load reports it */
    char head[64];
    size_t n = fread(head, 1, sizeof head, f);
    size_t k = 0;
    while (k < n && (head[k] == ' ' || head[k] == '\n' || head[k] == '\r' || head[k] == '\t')) k++;
    if (!((n - k >= 16 && !memcmp(head + k, "ExportedProgram:", 16)) || (n - k >= 6 && !memcmp(head + k, "class ", 6)))) {
        fclose(f);
        return 0;
    }
    *is_text = true;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    rewind(f);
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 65536;
            char *nb = realloc(buf, cap);
            if (!nb) { free(buf); fclose(f); fprintf(stderr, "eir: %s: out of memory\n", path); return 1; }
            buf = nb;
        }
        size_t r = fread(buf + len, 1, cap - len, f);
        len += r;
        if (r == 0) break;
    }
    bool err = ferror(f);
    fclose(f);
    if (err) { free(buf); fprintf(stderr, "eir: %s: read error\n", path); return 1; }
    eir_status st = eir_program_parse(buf, len, p);
    free(buf);
    if (st != EIR_OK) {
        fprintf(stderr, "eir: %s:%s\n", path, eir_errmsg(*p));
        eir_program_free(*p);
        *p = NULL;
        return 1;
    }
    return 0;
}

static int load(const char *path, eir_program **p) {
    bool is_text;
    int rc = load_text(path, p, &is_text);
    if (is_text) return rc;
    if (eir_program_load(path, p) != EIR_OK) {
        fprintf(stderr, "eir: %s\n", eir_errmsg(*p));
        eir_program_free(*p);
        *p = NULL;
        return 1;
    }
    return 0;
}

int eir_cli_load(const char *path, eir_program **p);
int eir_cli_load(const char *path, eir_program **p) { return load(path, p); }

static int emit(eir_program *p, eir_status st, char *text) {
    if (st != EIR_OK) {
        fprintf(stderr, "eir: %s\n", eir_errmsg(p));
        return 1;
    }
    fputs(text, stdout);
    eir_free(text);
    if (fflush(stdout) != 0) {
        perror("eir: writing output");
        return 1;
    }
    return 0;
}


/* ---- run ---- */

static uint64_t rng_state;
static uint64_t rng_next(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static double now_sec(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* a graph value's recorded sizes, using hints for symbolic dims */
static const eir_value *find_value(const eir_program *p, const char *name) {
    const eir_graph *g = eir_program_graph(p);
    for (uint32_t i = 0; i < g->num_values; i++)
        if (!strcmp(g->values[i].name, name)) return &g->values[i];
    return NULL;
}

static void print_output(const char *what, const char *name, uint32_t idx, const eir_tensor_view *v) {
    printf("%s %u '%s': %s[", what, idx, name, eir_dtype_abbr(v->dtype));
    int64_t n = 1;
    for (uint32_t d = 0; d < v->rank; d++) {
        printf(d ? ", %lld" : "%lld", (long long)v->sizes[d]);
        n *= v->sizes[d];
    }
    printf("] =");
    int64_t idx_[8] = {0};
    for (int64_t k = 0; k < n && k < 6; k++) {
        int64_t off = 0;
        for (uint32_t d = 0; d < v->rank; d++) {
            int64_t st = 1;
            if (v->strides) st = v->strides[d];
            else for (uint32_t q = d + 1; q < v->rank; q++) st *= v->sizes[q];
            off += idx_[d] * st;
        }
        const char *p = (const char *)v->data + off * (int64_t)eir_dtype_size(v->dtype);
        char num[64];
        if (eir_is_floating(v->dtype) || eir_is_complex(v->dtype)) { eir_snprintf(num, sizeof num, " %.6g", eir_load_f64(p, v->dtype)); fputs(num, stdout); }
        else printf(" %lld", (long long)eir_load_i64(p, v->dtype));
        for (int32_t d = (int32_t)v->rank - 1; d >= 0; d--) { if (++idx_[d] < v->sizes[d]) break; idx_[d] = 0; }
    }
    printf(n > 6 ? " ...\n" : "\n");
}

/* ---- custom operators from a shared library (--ops) ---- */

typedef struct ops_lib {
    void *handle;
    eir_library *lib;
} ops_lib;

/* dlopen LIB.so and let its eir_ops_init define its operators */
static int ops_load(const char *path, ops_lib *o) {
    memset(o, 0, sizeof *o);
    if (!path) return 0;
    /* a bare file name would make dlopen search the library path, not the current directory */
    char buf[4096];
    if (!strchr(path, '/')) {
        snprintf(buf, sizeof buf, "./%s", path);
        path = buf;
    }
    o->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!o->handle) {
        fprintf(stderr, "eir: --ops %s: %s\n", path, dlerror());
        return 1;
    }
    eir_ops_init_fn init;
    void *sym = dlsym(o->handle, EIR_OPS_INIT_SYMBOL);
    memcpy(&init, &sym, sizeof init);
    if (!sym) {
        fprintf(stderr, "eir: --ops %s: no function %s (a library of custom operators defines them there; "
                "see include/eir.h)\n", path, EIR_OPS_INIT_SYMBOL);
        return 1;
    }
    if (eir_library_create(&o->lib) != EIR_OK) {
        fprintf(stderr, "eir: out of memory\n");
        return 1;
    }
    eir_status st = init(o->lib);
    if (st != EIR_OK) {
        const char *m = eir_library_errmsg(o->lib);
        fprintf(stderr, "eir: --ops %s: %s failed: %s\n", path, EIR_OPS_INIT_SYMBOL, m[0] ? m : "(no message)");
        return 1;
    }
    return 0;
}

static void ops_unload(ops_lib *o) {
    eir_library_free(o->lib);
    if (o->handle) dlclose(o->handle);
    memset(o, 0, sizeof *o);
}

/* a custom operator is among those the runtime lacks */
static bool lacks_custom_op(const eir_runtime *rt) {
    for (uint32_t i = 0; i < eir_runtime_num_missing_ops(rt); i++)
        if (eir_runtime_missing_op(rt, i)->custom) return true;
    return false;
}

/* runtime creation failed: the message, and a hint when custom operators are missing */
static void report_create_error(const char *path, const eir_runtime *rt, const ops_lib *o) {
    const char *m = eir_runtime_errmsg(rt);
    fprintf(stderr, "eir: %s: %s\n", path, m);
    if (!o->lib && lacks_custom_op(rt))
        fprintf(stderr, "(custom operators run with --ops LIB.so, a library of their kernels: see eir --help)\n");
}

/* ---- run ---- */

/* `eir info`'s verdict on a program eir cannot run: the operators it lacks,
 * each with its node count and first node, or the runtime's message. */
static void runnable_no(char *out, size_t cap, const eir_runtime *rt, eir_status cs, bool json, bool custom_hint) {
    static const char *const decomp[] = {"null", "\"torch\"", "\"functional\""};
    uint32_t n = eir_runtime_num_missing_ops(rt);
    size_t k = 0;
#define PUT(...) do { if (k < cap) k += (size_t)snprintf(out + k, cap - k, __VA_ARGS__); } while (0)
    if (json) {
        PUT(", \"runnable\": false");
        if (cs == EIR_ERR_UNSUPPORTED) PUT(", \"missing_ops\": [");
        /* operator and node names are identifiers; one that is not is left out rather than mis-escaped */
        for (uint32_t i = 0, w = 0; i < n; i++) {
            const eir_missing_op *e = eir_runtime_missing_op(rt, i);
            if (strpbrk(e->op, "\"\\") || strpbrk(e->first_node, "\"\\")) continue;
            PUT("%s{\"operator\": \"%s\", \"count\": %u, \"first_node\": \"%s\", \"custom\": %s, \"decomposition\": %s",
                w++ ? ", " : "", e->op, e->count, e->first_node, e->custom ? "true" : "false",
                decomp[e->decomp <= EIR_DECOMP_FUNCTIONAL ? e->decomp : 0]);
            if (e->functional)
                PUT(", \"functional\": \"%s\", \"functional_runs\": %s", e->functional, e->functional_runs ? "true" : "false");
            PUT("}");
        }
        if (cs == EIR_ERR_UNSUPPORTED) PUT("]");
        PUT("}\n");
    } else if (cs == EIR_ERR_UNSUPPORTED) {
        uint32_t nodes = 0;
        for (uint32_t i = 0; i < n; i++) nodes += eir_runtime_missing_op(rt, i)->count;
        PUT("runnable: no (%u node%s %u operator%s eir cannot run yet: ", nodes, nodes == 1 ? " uses" : "s use", n,
            n == 1 ? "" : "s");
        for (uint32_t i = 0; i < n; i++) {
            const eir_missing_op *e = eir_runtime_missing_op(rt, i);
            if (e->count == 1) PUT("%s%s (node %%%s)", i ? ", " : "", e->op, e->first_node);
            else PUT("%s%s (%u nodes, first %%%s)", i ? ", " : "", e->op, e->count, e->first_node);
        }
        PUT(")%s\n", custom_hint ? "; custom operators run with --ops LIB.so" : "");
    } else {
        const char *m = eir_runtime_errmsg(rt);
        const char *nl = strchr(m, '\n');
        PUT("runnable: no (%.*s)\n", nl ? (int)(nl - m) : (int)strlen(m), m);
    }
#undef PUT
    if (k >= cap && cap > 2) { out[cap - 3] = json ? '}' : ')'; out[cap - 2] = '\n'; }
}

/* one result: written as dir/FILE.npy, or printed as `what idx 'name': ...` */
static int emit_view(const char *dir, const char *file, const char *what, const char *name, uint32_t idx,
                     const eir_tensor_view *v) {
    char fn[4096], err[512];
    if (!dir) {
        print_output(what, name, idx, v);
        return 0;
    }
    snprintf(fn, sizeof fn, "%s/%s.npy", dir, file);
    if (!npy_write(fn, v, err, sizeof err)) {
        fprintf(stderr, "eir: %s\n", err);
        return 1;
    }
    return 0;
}

/* After a run: the user outputs, then the inputs and the state the program
 * mutated; printed, or written into dir. */
static int report_run(eir_runtime *rt, const eir_tensor_view *given, const char *dir) {
    char file[1024];
    if (dir && mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "eir: cannot create %s: %s\n", dir, strerror(errno));
        return 1;
    }
    for (uint32_t i = 0; i < eir_runtime_num_outputs(rt); i++) {
        eir_tensor_view v;
        eir_io_info info;
        eir_runtime_output_info(rt, i, &info);
        if (info.is_none) {  /* torch returns None there: nothing to write */
            if (!dir) printf("output %u: None\n", i);
            continue;
        }
        if (eir_runtime_output(rt, i, &v) != EIR_OK) {
            fprintf(stderr, "eir: %s\n", eir_runtime_errmsg(rt));
            return 1;
        }
        snprintf(file, sizeof file, "output_%u", i);
        if (emit_view(dir, file, "output", info.name, i, &v)) return 1;
    }
    for (uint32_t i = 0; i < eir_runtime_num_inputs(rt); i++) {
        eir_io_info info;
        eir_runtime_input_info(rt, i, &info);
        if (!info.mutated || !given[i].data) continue;
        snprintf(file, sizeof file, "input_%u", i);
        if (emit_view(dir, file, "input (mutated)", info.name, i, &given[i])) return 1;
    }
    const char *fqn;
    for (uint32_t k = 0; (fqn = eir_runtime_mutated_state(rt, k)); k++) {
        eir_tensor_view v;
        if (eir_runtime_state(rt, fqn, &v) != EIR_OK) {
            fprintf(stderr, "eir: %s\n", eir_runtime_errmsg(rt));
            return 1;
        }
        snprintf(file, sizeof file, "state.%s", fqn);
        if (emit_view(dir, file, "state", fqn, k, &v)) return 1;
    }
    return 0;
}

typedef struct run_opts {
    const char *out_dir, *ops, *inner;
    int repeat, runs;
    uint64_t seed;
    int threads;
    bool profile;            /* --profile: time per operator and per node */
    const char *trace;       /* --trace FILE: the last run's steps as a Chrome trace */
} run_opts;

/* ---- run --profile / --trace ---- */

typedef struct op_total {
    const char *target;
    double us;
    uint32_t nodes;
    uint64_t calls;
} op_total;

static int cmp_op_total(const void *a, const void *b) {
    double x = ((const op_total *)a)->us, y = ((const op_total *)b)->us;
    return x < y ? 1 : x > y ? -1 : strcmp(((const op_total *)a)->target, ((const op_total *)b)->target);
}

static int cmp_step_time(const void *a, const void *b) {
    double x = (*(const eir_step_profile *const *)a)->total_us, y = (*(const eir_step_profile *const *)b)->total_us;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* the profile as two tables: time per run by operator, then the slowest nodes */
static int print_profile(const eir_profile *pr, bool skipped_first) {
    enum { TOP_OPS = 20, TOP_NODES = 15 };
    if (!pr->runs) return 0;
    double per = 1.0 / (double)pr->runs, steps_us = 0;
    op_total *ops = calloc(pr->num_steps + 1, sizeof *ops);
    const eir_step_profile **order = calloc(pr->num_steps + 1, sizeof *order);
    if (!ops || !order) {
        free(ops);
        free(order);
        fprintf(stderr, "eir: out of memory\n");
        return 1;
    }
    uint32_t nops = 0, nran = 0;
    for (uint32_t i = 0; i < pr->num_steps; i++) {
        const eir_step_profile *s = &pr->steps[i];
        if (!s->calls) continue;
        order[nran++] = s;
        steps_us += s->total_us;
        uint32_t k = 0;
        while (k < nops && strcmp(ops[k].target, s->target)) k++;
        if (k == nops) ops[nops++] = (op_total){s->target, 0, 0, 0};
        ops[k].us += s->total_us;
        ops[k].nodes++;
        ops[k].calls += s->calls;
    }
    qsort(ops, nops, sizeof *ops, cmp_op_total);
    qsort(order, nran, sizeof *order, cmp_step_time);
    double run = pr->run_us * per;
    char line[512];
    eir_snprintf(line, sizeof line,
                 "profile: %llu run%s%s, %.3f ms per run: %.3f ms in %u step%s, %.3f ms in the runtime around them\n",
                 (unsigned long long)pr->runs, pr->runs == 1 ? "" : "s", skipped_first ? " (the first left out: warm-up)" : "",
                 run * 1e-3, steps_us * per * 1e-3, nran, nran == 1 ? "" : "s", (pr->run_us - steps_us) * per * 1e-3);
    fputs(line, stdout);
    fputs("by operator (per run):\n        ms       %   nodes   calls  operator\n", stdout);
    double rest = 0;
    uint32_t nrest = 0;
    for (uint32_t k = 0; k < nops; k++) {
        if (k >= TOP_OPS) {
            rest += ops[k].us;
            nrest++;
            continue;
        }
        eir_snprintf(line, sizeof line, "  %8.3f  %6.1f  %6u  %6.0f  %s\n", ops[k].us * per * 1e-3,
                     pr->run_us > 0 ? 100.0 * ops[k].us / pr->run_us : 0.0, ops[k].nodes, (double)ops[k].calls * per,
                     ops[k].target);
        fputs(line, stdout);
    }
    if (nrest) {
        eir_snprintf(line, sizeof line, "  %8.3f  %6.1f  (%u more operators)\n", rest * per * 1e-3,
                     pr->run_us > 0 ? 100.0 * rest / pr->run_us : 0.0, nrest);
        fputs(line, stdout);
    }
    fputs("slowest nodes (per run):\n        ms       %  node (operator)\n", stdout);
    for (uint32_t k = 0; k < nran && k < TOP_NODES; k++) {
        eir_snprintf(line, sizeof line, "  %8.3f  %6.1f  %s (%s)\n", order[k]->total_us * per * 1e-3,
                     pr->run_us > 0 ? 100.0 * order[k]->total_us / pr->run_us : 0.0, order[k]->node, order[k]->target);
        fputs(line, stdout);
    }
    free(ops);
    free(order);
    return 0;
}

static void json_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
        else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
        else fputc(ch, f);
    }
    fputc('"', f);
}

/* the last run's steps in Chrome's trace event format (chrome://tracing, Perfetto): one
 * complete event per step that ran, microseconds from the start of the run's steps */
static int write_trace(const char *path, const eir_profile *pr, const char *model) {
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "eir: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    char num[128];
    fputs("{\"displayTimeUnit\": \"ms\", \"otherData\": {\"model\": ", f);
    json_str(f, model);
    eir_snprintf(num, sizeof num, ", \"run_us\": %.3f}, \"traceEvents\": [\n", pr->last_run_us);
    fputs(num, f);
    bool first = true;
    for (uint32_t i = 0; i < pr->num_steps; i++) {
        const eir_step_profile *s = &pr->steps[i];
        if (s->last_us <= 0 && s->last_start_us <= 0) continue;
        fputs(first ? "  {\"name\": " : ",\n  {\"name\": ", f);
        first = false;
        json_str(f, s->node);
        fputs(", \"cat\": ", f);
        json_str(f, s->target);
        eir_snprintf(num, sizeof num, ", \"ph\": \"X\", \"ts\": %.3f, \"dur\": %.3f, \"pid\": 1, \"tid\": 1", s->last_start_us,
                     s->last_us);
        fputs(num, f);
        fputs(", \"args\": {\"operator\": ", f);
        json_str(f, s->target);
        fputs("}}", f);
    }
    fputs("\n]}\n", f);
    if (fclose(f) != 0) {
        fprintf(stderr, "eir: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    return 0;
}

static int cmd_run(const char *path, const char **in_paths, int nin, const run_opts *o) {
    eir_program *p;
    if (load(path, &p)) return 1;
    if (o->inner && eir_program_use_inner(p, o->inner) != EIR_OK) {
        fprintf(stderr, "eir: %s: %s\n", path, eir_errmsg(p));
        eir_program_free(p);
        return 1;
    }
    eir_runtime *rt = NULL;
    ops_lib lib = {0};
    int rc = 1;
    npy_array *arrays = calloc((size_t)nin + 64, sizeof *arrays);
    void **randbufs = calloc(256, sizeof *randbufs);
    int64_t (*randsizes)[8] = calloc(256, sizeof *randsizes);
    eir_tensor_view *given = NULL;
    double *times = NULL;
    if (!arrays || !randbufs || !randsizes) { fprintf(stderr, "eir: out of memory\n"); goto out; }
    if (ops_load(o->ops, &lib)) goto out;
    if (eir_runtime_create_with(p, lib.lib, &rt) != EIR_OK) {
        report_create_error(path, rt, &lib);
        goto out;
    }
    uint32_t ni = eir_runtime_num_inputs(rt), need = 0;
    given = calloc((size_t)ni + 1, sizeof *given);
    if (!given) { fprintf(stderr, "eir: out of memory\n"); goto out; }
    for (uint32_t i = 0; i < ni; i++) {
        eir_io_info info;
        eir_runtime_input_info(rt, i, &info);
        if (!info.is_constant) need++;
    }
    /* all flattened user inputs may be given, constants included (checked
     * against the values burned into the program), or only the non-constant ones */
    bool with_constants = nin && (uint32_t)nin == ni && ni != need;
    if (nin && (uint32_t)nin != need && !with_constants) {
        fprintf(stderr, "eir: %s takes %u input%s, got %d:", path, need, need == 1 ? "" : "s", nin);
        for (uint32_t i = 0; i < ni; i++) {
            eir_io_info info;
            eir_runtime_input_info(rt, i, &info);
            if (info.is_constant) continue;
            fprintf(stderr, "\n  %s: %s[", info.name, info.is_tensor ? eir_dtype_name(info.dtype) : "int64 (0-d)");
            for (uint32_t d = 0; d < info.rank; d++) {
                if (info.sizes[d] < 0) fprintf(stderr, d ? ", ?" : "?");
                else fprintf(stderr, d ? ", %lld" : "%lld", (long long)info.sizes[d]);
            }
            fprintf(stderr, "]");
        }
        fprintf(stderr, "\n");
        goto out;
    }
    rng_state = o->seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    if (eir_runtime_set_threads(rt, o->threads) != EIR_OK) {
        fprintf(stderr, "eir: %s\n", eir_runtime_errmsg(rt));
        goto out;
    }
    eir_runtime_seed(rt, o->seed);
    uint32_t k = 0;
    for (uint32_t i = 0; i < ni; i++) {
        eir_io_info info;
        eir_runtime_input_info(rt, i, &info);
        if (info.is_constant && with_constants) {
            /* a number burned in (int, float, bool) is checked as torch's guard checks it, by
             * eir_runtime_set_input; other constants (None, strings) are not looked at */
            const eir_input_spec *cs = NULL;
            for (uint32_t q = 0; q < eir_program_num_input_specs(p); q++) {
                const eir_input_spec *sp = eir_program_input_spec(p, q);
                if (sp->kind == EIR_IN_CONSTANT_INPUT && !strcmp(sp->target, info.name)) cs = sp;
            }
            bool numeric = cs && (cs->arg.kind == EIR_ARG_INT || cs->arg.kind == EIR_ARG_FLOAT || cs->arg.kind == EIR_ARG_BOOL);
            if (numeric) {
                npy_array a;
                char err[512];
                if (!npy_read(in_paths[k], &a, err, sizeof err)) { fprintf(stderr, "eir: %s\n", err); goto out; }
                eir_tensor_view cv = {a.data, a.dtype, a.rank, a.sizes, a.strides};
                eir_status st = eir_runtime_set_input(rt, i, &cv);
                free(a.data);
                if (st != EIR_OK) { fprintf(stderr, "eir: %s\n", eir_runtime_errmsg(rt)); goto out; }
            }
            k++;
            continue;
        }
        if (info.is_constant) continue;
        eir_tensor_view v = {0};
        char err[512];
        if (nin) {
            npy_array *a = &arrays[k];
            if (!npy_read(in_paths[k], a, err, sizeof err)) { fprintf(stderr, "eir: %s\n", err); goto out; }
            v.data = a->data;
            v.rank = a->rank;
            v.sizes = a->sizes;
            v.strides = a->strides;
            v.dtype = a->dtype;
            if (info.dtype == EIR_BF16 && (a->raw16 || a->dtype == EIR_F32)) {
                if (a->dtype == EIR_F32) { /* round float32 to bfloat16 in place */
                    int64_t n = 1;
                    for (uint32_t d = 0; d < a->rank; d++) n *= a->sizes[d];
                    for (int64_t q = 0; q < n; q++) ((uint16_t *)a->data)[q] = eir_f32_to_bf16(((float *)a->data)[q]);
                }
                v.dtype = EIR_BF16;
            } else if (info.dtype == EIR_C32 && a->dtype == EIR_C64) {
                /* NumPy has no complex32: round complex64 parts to float16 in place */
                int64_t n = 1;
                for (uint32_t d = 0; d < a->rank; d++) n *= a->sizes[d];
                for (int64_t q = 0; q < 2 * n; q++) ((uint16_t *)a->data)[q] = eir_f32_to_f16(((float *)a->data)[q]);
                v.dtype = EIR_C32;
            } else if (a->dtype == EIR_DTYPE_UNKNOWN) {
                fprintf(stderr, "eir: %s: raw 2-byte data is only accepted for a bfloat16 input\n", in_paths[k]);
                goto out;
            }
            if (info.is_symbolic_int && a->rank == 0) v.dtype = a->dtype;
        } else {
            /* deterministic random input of the recorded shape (hints for symbolic dims) */
            const eir_value *gv = find_value(p, info.name);
            int64_t n = 1;
            v.rank = info.rank;
            for (uint32_t d = 0; d < info.rank; d++) {
                int64_t s = info.sizes[d];
                if (s < 0) s = gv && gv->meta.sizes[d].has_hint ? gv->meta.sizes[d].value : 2;
                randsizes[k][d] = s;
                n *= s;
            }
            v.sizes = randsizes[k];
            v.dtype = info.is_tensor ? info.dtype : EIR_I64;
            size_t es = eir_dtype_size(v.dtype);
            randbufs[k] = malloc((size_t)n * es + 16);
            if (!randbufs[k]) { fprintf(stderr, "eir: out of memory\n"); goto out; }
            v.data = randbufs[k];
            for (int64_t q = 0; q < n; q++) {
                char *e = (char *)v.data + q * (int64_t)es;
                uint64_t r = rng_next();
                if (eir_is_floating(v.dtype) || eir_is_complex(v.dtype))
                    eir_store_f64(e, v.dtype, (double)(r >> 11) / 9007199254740992.0 * 2 - 1);
                else if (v.dtype == EIR_BOOL) *(uint8_t *)e = r & 1;
                else eir_store_i64(e, v.dtype, (int64_t)(r % 10));
            }
            if (!info.is_tensor) *(int64_t *)v.data = gv && gv->sym.has_hint ? gv->sym.value : 2;
        }
        if (eir_runtime_set_input(rt, i, &v) != EIR_OK) {
            fprintf(stderr, "eir: %s\n", eir_runtime_errmsg(rt));
            goto out;
        }
        given[i] = v;
        k++;
    }
    int nrep = o->repeat > 0 ? o->repeat : 1;
    times = calloc((size_t)nrep, sizeof *times);
    if (!times) goto out;
    bool profiling = o->profile || o->trace, skipped_first = false;
    if (profiling && eir_runtime_set_profiling(rt, 1) != EIR_OK) {
        fprintf(stderr, "eir: %s\n", eir_runtime_errmsg(rt));
        goto out;
    }
    for (int run = 1; run <= o->runs; run++) {
        for (int r = 0; r < nrep; r++) {
            double t0 = now_sec();
            if (eir_runtime_run(rt) != EIR_OK) {
                fprintf(stderr, "eir: %s\n", eir_runtime_errmsg(rt));
                goto out;
            }
            times[r] = now_sec() - t0;
            /* more than one run: the first (memory plan, weights laid out for the kernels) is
             * left out of the profile */
            if (profiling && run == 1 && r == 0 && (nrep > 1 || o->runs > 1)) {
                eir_runtime_profile_reset(rt);
                skipped_first = true;
            }
            if (nrep > 1) cli_progress_steps("running", (uint64_t)r + 1, (uint64_t)nrep);
        }
        char dir[4096];
        const char *where = o->out_dir;
        if (o->runs > 1 && o->out_dir) {
            if (mkdir(o->out_dir, 0777) != 0 && errno != EEXIST) {
                fprintf(stderr, "eir: cannot create %s: %s\n", o->out_dir, strerror(errno));
                goto out;
            }
            snprintf(dir, sizeof dir, "%s/run_%d", o->out_dir, run);
            where = dir;
        } else if (o->runs > 1) {
            printf("run %d:\n", run);
        }
        if (report_run(rt, given, where)) goto out;
    }
    if (nrep > 1) {
        qsort(times, (size_t)nrep, sizeof *times, cmp_double);
        char line[160];
        eir_snprintf(line, sizeof line, "median %.3f ms per run over %d runs (min %.3f ms)\n", times[nrep / 2] * 1e3, nrep, times[0] * 1e3);
        fputs(line, stdout);
        if (eir_runtime_mutated_state(rt, 0))
            printf("note: the program mutates its state ('%s'), so each of the %d runs saw the state the one before "
                   "left; the results shown are the last run's\n", eir_runtime_mutated_state(rt, 0), nrep);
    }
    if (profiling) {
        eir_profile pr;
        eir_runtime_profile(rt, &pr);
        if (o->profile && print_profile(&pr, skipped_first)) goto out;
        if (o->trace && write_trace(o->trace, &pr, path)) goto out;
    }
    uint64_t arena, sum;
    eir_runtime_memory(rt, &arena, &sum);
    if (!o->out_dir)
        printf("activation arena: %llu bytes for %llu bytes of intermediates (at most %llu bytes alive at once)\n",
               (unsigned long long)arena, (unsigned long long)sum, (unsigned long long)eir_runtime_peak_live_bytes(rt));
    rc = 0;
out:
    for (int i = 0; i < nin + 64 && arrays; i++) free(arrays[i].data);
    for (int i = 0; i < 256 && randbufs; i++) free(randbufs[i]);
    free(arrays);
    free(randbufs);
    free(randsizes);
    free(given);
    free(times);
    eir_runtime_free(rt);
    ops_unload(&lib);
    eir_program_free(p);
    return rc;
}

/* ---- verify ---- */

/* `eir verify --meta-report`: one JSON line per node, its outputs' recorded
 * metadata against eir's inference (python/tools/meta_agreement.py reads them) */
static void meta_json_str(const char *s) {
    putchar('"');
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') printf("\\%c", ch);
        else if (ch < 0x20) printf("\\u%04x", ch);
        else putchar(ch);
    }
    putchar('"');
}

static void meta_visit(void *ctx, const char *graph, const eir_node *nd, bool has_meta, const eir_meta_outcome *o,
                       int n, const char *err) {
    static const char *const cmp[] = {"agree", "differ", "unknown"};
    printf("{\"graph\": ");
    if (graph) meta_json_str(graph); else fputs("null", stdout);
    printf(", \"node\": ");
    meta_json_str(nd->name ? nd->name : "?");
    printf(", \"target\": ");
    meta_json_str(nd->target);
    printf(", \"has_meta\": %s, \"error\": ", has_meta ? "true" : "false");
    if (err) meta_json_str(err); else fputs("null", stdout);
    printf(", \"outputs\": [");
    for (int i = 0; i < n; i++) {
        printf("%s{\"output\": %u, \"value\": ", i ? ", " : "", o[i].output);
        meta_json_str(o[i].value);
        printf(", \"dtype\": \"%s\", \"sizes\": \"%s\", \"strides\": \"%s\", \"offset\": \"%s\", \"recorded\": ",
               cmp[o[i].dtype], cmp[o[i].sizes], cmp[o[i].strides], cmp[o[i].offset]);
        meta_json_str(o[i].recorded);
        printf(", \"inferred\": ");
        meta_json_str(o[i].inferred);
        putchar('}');
    }
    printf("]}\n");
}

static int cmd_verify(int argc, char **argv) {
    const char *path = NULL;
    bool json = false, meta_report = false;
    eir_dialect dialect = EIR_DIALECT_ATEN;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { fputs(USAGE, stdout); return 0; }
        if (!strcmp(a, "--json")) json = true;
        else if (!strcmp(a, "--meta-report")) meta_report = true;
        else if (!strcmp(a, "--dialect") || !strncmp(a, "--dialect=", 10)) {
            const char *val = a[9] == '=' ? a + 10 : i + 1 < argc ? argv[++i] : NULL;
            if (!val) return usage_error("%s needs a value: aten, core, edge or backend", a);
            if (!eir_dialect_parse(val, &dialect))
                return usage_error("unknown dialect '%s' (aten, core, edge or backend)", val);
        } else if (a[0] == '-' && a[1]) return usage_error("unknown option '%s'", a);
        else if (path) return usage_error("more than one model given ('%s')", a);
        else path = a;
    }
    if (!path) return usage_error("%s: no model given", "verify");
    eir_program *p;
    if (load(path, &p)) return 1;
    if (meta_report) {
        eir_meta_check_program(p, meta_visit, NULL);
        eir_program_free(p);
        return fflush(stdout) == 0 ? 0 : 1;
    }
    eir_verify_report *r = NULL;
    eir_status st = eir_program_verify(p, dialect, &r);
    char *text = NULL;
    if (!r || eir_verify_report_format(r, json, &text) != EIR_OK) {
        fprintf(stderr, "eir: %s\n", st == EIR_OK || st == EIR_ERR_INVALID ? "out of memory" : eir_errmsg(p));
        eir_verify_report_free(r);
        eir_program_free(p);
        return 1;
    }
    static const char *const names[] = {"ATen", "Core ATen", "Edge", "Backend"};
    uint32_t n = eir_verify_num_violations(r);
    fputs(text, stdout);
    if (!json) {
        if (n) printf("%s: %u violation%s of the %s dialect\n", path, n, n == 1 ? "" : "s", names[dialect]);
        else printf("%s: valid %s program\n", path, names[dialect]);
    }
    eir_free(text);
    eir_verify_report_free(r);
    eir_program_free(p);
    if (fflush(stdout) != 0) {
        perror("eir: writing output");
        return 1;
    }
    return n ? 3 : 0;
}

/* a non-negative count option */
static bool parse_count(const char *val, long long lo, long long hi, long long *x) {
    char *end;
    errno = 0;
    *x = strtoll(val, &end, 10);
    return *val && !*end && !errno && *x >= lo && *x <= hi;
}

/* ---- eir convert: load, apply passes, write ---- */

static const char CONVERT_USAGE[] =
    "usage: eir convert [options] IN.pt2 OUT.pt2\n"
    "\n"
    "Load IN.pt2, apply the passes asked for (in the order given), and write the\n"
    "program to OUT.pt2 as torch.export.save of torch 2.13 writes it. Without passes\n"
    "the copy is lossless: torch.export.load reads back the same program (same print,\n"
    "same outputs) and shared weights stay shared. OUT is written atomically (a\n"
    "temporary file renamed into place); IN is never overwritten.\n"
    "\n"
    "options:\n";

/* The passes are the library's table (eir_num_passes / eir_pass_at): each is
 * an option `--NAME`, listed in --help with its one line of doc. */
static void convert_help(void) {
    fputs(CONVERT_USAGE, stdout);
    for (uint32_t i = 0; i < eir_num_passes(); i++) {
        const eir_pass *ps = eir_pass_at(i);
        char opt[64];
        snprintf(opt, sizeof opt, "--%s", ps->name);
        printf("  %-22s  %s\n", opt, ps->doc);
    }
    fputs("  --to core               to-core, then dce; fails, writing nothing, when a node is left\n"
          "                          that torch's run_decompositions() would rewrite\n"
          "  --to edge               to-edge: ExecuTorch's to_edge() (after to-core when needed)\n"
          "  --to backend            keep-lstm, to-core, dce, then to-backend: Core ATen with fused eir_cpu operators\n", stdout);
    fputs("  --verify-each           run the verifier (ATen dialect) before the first pass and after\n"
          "                          each; stop at the first pass that leaves a violation\n"
          "  --print-after PASS      print the program (as `eir print --program`) after PASS\n"
          "  --time                  report on stderr the time of loading, of each pass and of writing\n"
          "  -h, --help              show this help\n",
          stdout);
}

/* The verifier's report on p; 0 when clean, else prints it and returns 1. */
static int convert_verify(eir_program *p, const char *when, eir_dialect d) {
    eir_verify_report *r = NULL;
    eir_status st = eir_program_verify(p, d, &r);
    if (st != EIR_OK && st != EIR_ERR_INVALID) {
        fprintf(stderr, "eir: verify %s: %s\n", when, eir_errmsg(p));
        eir_verify_report_free(r);
        return 1;
    }
    int rc = 0;
    if (r && eir_verify_num_violations(r)) {
        char *t = NULL;
        fprintf(stderr, "eir: the program is not valid %s:\n", when);
        if (eir_verify_report_format(r, false, &t) == EIR_OK) fputs(t, stderr);
        eir_free(t);
        rc = 1;
    }
    eir_verify_report_free(r);
    return rc;
}

/* After --to core: the nodes whose operator torch's run_decompositions()
 * would still rewrite (no rule of to-core covers them); 1 when there are
 * some (listed on stderr). Non-core operators torch keeps as well are
 * listed as a note. */
static void core_left_graph(const eir_graph *g, bool rewrite, uint32_t *n, bool count) {
    for (uint32_t i = 0; i < g->num_nodes; i++) {
        const eir_node *nd = &g->nodes[i];
        for (uint32_t j = 0; j < nd->num_inputs; j++)
            if (nd->inputs[j].arg.kind == EIR_ARG_GRAPH && nd->inputs[j].arg.u.graph.graph)
                core_left_graph(nd->inputs[j].arg.u.graph.graph, rewrite, n, count);
        const eir_op_schema *s = eir_op_find(nd->target);
        /* functionalization rewrites what writes its arguments (core ops
         * such as _native_batch_norm_legit too), and CompositeImplicitAutograd
         * kernels decompose as they trace */
        if (!s || ((s->flags & EIR_OPF_CORE) && !eir_op_mutates_args(s))) continue;
        bool rw = (s->flags & (EIR_OPF_DECOMP | EIR_OPF_FUNCTIONAL | EIR_OPF_INPLACE)) != 0 ||
                  eir_op_mutates_args(s) || eir_decomp_torch_rewrites(s->name);
        if (rw != rewrite) continue;
        if (count) (*n)++;
        else fprintf(stderr, "  %%%s (%s)\n", nd->name ? nd->name : "?", s->name);
    }
}

static int convert_core_left(eir_program *p) {
    uint32_t n = 0, k = 0;
    core_left_graph(eir_program_graph(p), true, &n, true);
    if (n) {
        fprintf(stderr, "eir: convert --to core: %u node(s) left that torch's run_decompositions() would rewrite "
                        "(no decomposition yet); nothing written:\n", n);
        core_left_graph(eir_program_graph(p), true, &n, false);
        return 1;
    }
    core_left_graph(eir_program_graph(p), false, &k, true);
    if (k) {
        fprintf(stderr, "eir: note: %u node(s) keep non-core operators, as torch's run_decompositions() does:\n", k);
        core_left_graph(eir_program_graph(p), false, &k, false);
    }
    return 0;
}

static int cmd_convert(int argc, char **argv) {
    const char *in = NULL, *out = NULL, *print_after = NULL;
    const eir_pass *todo[64];
    int ntodo = 0;
    bool verify_each = false, to_core = false, timed = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { convert_help(); return 0; }
        if (!strcmp(a, "--verify-each")) { verify_each = true; continue; }
        if (!strcmp(a, "--time")) { timed = true; continue; }
        if (!strcmp(a, "--to")) {
            const char *d = i + 1 < argc ? argv[i + 1] : "";
            if (strcmp(d, "core") && strcmp(d, "edge") && strcmp(d, "backend"))
                return usage_error("%s", "convert: --to needs a dialect: core, edge or backend");
            i++;
            if (ntodo + 4 > (int)(sizeof todo / sizeof todo[0])) return usage_error("%s", "convert: too many passes");
            if (!strcmp(d, "backend")) {
                todo[ntodo++] = eir_pass_find("keep-lstm");
                todo[ntodo++] = eir_pass_find("to-core");
                todo[ntodo++] = eir_pass_find("dce");
                todo[ntodo++] = eir_pass_find("to-backend");
                continue;
            }
            if (!strcmp(d, "edge")) {
                /* to-edge runs to-core first when the program is not Core ATen */
                todo[ntodo++] = eir_pass_find("to-edge");
                continue;
            }
            todo[ntodo++] = eir_pass_find("to-core");
            todo[ntodo++] = eir_pass_find("dce");
            to_core = true;
            continue;
        }
        if (!strcmp(a, "--print-after")) {
            if (i + 1 >= argc) return usage_error("%s", "convert: --print-after needs a pass name");
            print_after = argv[++i];
            if (!eir_pass_find(print_after)) return usage_error("convert: --print-after: no pass named '%s'", print_after);
            continue;
        }
        if (!strncmp(a, "--", 2) && a[2]) {
            const eir_pass *ps = eir_pass_find(a + 2);
            if (!ps) return usage_error("convert: unknown option '%s' (see eir convert --help)", a);
            if (ntodo == (int)(sizeof todo / sizeof todo[0])) return usage_error("convert: too many passes at '%s'", a);
            todo[ntodo++] = ps;
        } else if (a[0] == '-' && a[1]) return usage_error("convert: unknown option '%s' (see eir convert --help)", a);
        else if (!in) in = a;
        else if (!out) out = a;
        else return usage_error("convert: unexpected argument '%s' (give IN.pt2 OUT.pt2)", a);
    }
    if (!in || !out) return usage_error("%s", "convert: give IN.pt2 and OUT.pt2");
    if (print_after) {
        bool asked = false;
        for (int k = 0; k < ntodo; k++) asked |= !strcmp(todo[k]->name, print_after);
        if (!asked) return usage_error("convert: --print-after %s: that pass is not among the options given", print_after);
    }
    struct stat si, so;
    if (!strcmp(in, out) ||
        (stat(in, &si) == 0 && stat(out, &so) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino)) {
        fprintf(stderr, "eir: convert: '%s' is the input; write the output to another file\n", out);
        return 2;
    }
    eir_program *p;
    double t0 = now_sec();
    if (load(in, &p)) return 1;
    if (timed) fprintf(stderr, "time: load %.3f ms\n", (now_sec() - t0) * 1e3);
    eir_dialect dialect = EIR_DIALECT_ATEN;
    if (verify_each && convert_verify(p, "as loaded", dialect)) { eir_program_free(p); return 1; }
    for (int k = 0; k < ntodo; k++) {
        uint32_t changed = 0;
        t0 = now_sec();
        if (eir_program_run_pass(p, todo[k]->name, &changed) != EIR_OK) {
            fprintf(stderr, "eir: --%s: %s\n", todo[k]->name, eir_errmsg(p));
            eir_program_free(p);
            return 1;
        }
        if (timed) fprintf(stderr, "time: --%s %.3f ms (%u changed)\n", todo[k]->name, (now_sec() - t0) * 1e3, changed);
        char when[96];
        snprintf(when, sizeof when, "after --%s", todo[k]->name);
        if (!strcmp(todo[k]->name, "to-edge")) dialect = EIR_DIALECT_EDGE;
        if (!strcmp(todo[k]->name, "to-backend")) dialect = EIR_DIALECT_BACKEND;
        if (verify_each && convert_verify(p, when, dialect)) { eir_program_free(p); return 1; }
        if (print_after && !strcmp(print_after, todo[k]->name)) {
            char *t = NULL;
            if (eir_program_print(p, EIR_PRINT_PROGRAM, &t) != EIR_OK) {
                fprintf(stderr, "eir: print %s: %s\n", when, eir_errmsg(p));
                eir_program_free(p);
                return 1;
            }
            printf("# %s (%u changed)\n%s", when, changed, t);
            eir_free(t);
        }
    }
    if (to_core && convert_core_left(p)) { eir_program_free(p); return 1; }
    int rc = 0;
    t0 = now_sec();
    if (eir_program_save(p, out) != EIR_OK) {
        fprintf(stderr, "eir: %s\n", eir_errmsg(p));
        rc = 1;
    }
    if (timed && !rc) fprintf(stderr, "time: save %.3f ms\n", (now_sec() - t0) * 1e3);
    eir_program_free(p);
    return rc;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fputs(USAGE, stderr);
        return 2;
    }
    const char *cmd = argv[1];
    cli_progress_install();
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        fputs(USAGE, stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("eir %s\n", eir_version());
        return 0;
    }
    if (!strcmp(cmd, "ops")) return cmd_ops(argc - 2, argv + 2);
    if (!strcmp(cmd, "verify")) return cmd_verify(argc - 2, argv + 2);
    if (!strcmp(cmd, "convert")) return cmd_convert(argc - 2, argv + 2);
    if (!strcmp(cmd, "dot")) return eir_cli_dot(argc - 2, argv + 2); /* tools/eir/dot.c */
    const char *path = NULL, *ops = NULL;
    bool json = false;
    eir_print_form form = EIR_PRINT_GRAPH;
    bool is_info = !strcmp(cmd, "info"), is_print = !strcmp(cmd, "print");
    if (!strcmp(cmd, "run")) {
        const char *model = NULL;
        const char **ins = calloc((size_t)argc, sizeof *ins);
        int nin = 0;
        run_opts o = {NULL, NULL, NULL, 1, 1, 0, 1, false, NULL};
        if (!ins) return 1;
        for (int i = 2; i < argc; i++) {
            const char *a = argv[i];
            if (!strcmp(a, "-h") || !strcmp(a, "--help")) { fputs(USAGE, stdout); free(ins); return 0; }
            if (!strcmp(a, "--profile")) o.profile = true;
            else if (!strcmp(a, "--out") || !strcmp(a, "--repeat") || !strcmp(a, "--seed") || !strcmp(a, "--runs") ||
                !strcmp(a, "--ops") || !strcmp(a, "--inner") || !strcmp(a, "--threads") || !strcmp(a, "--trace")) {
                if (i + 1 >= argc) { free(ins); return usage_error("%s needs a value", a); }
                const char *val = argv[++i];
                long long x;
                if (!strcmp(a, "--out")) o.out_dir = val;
                else if (!strcmp(a, "--trace")) o.trace = val;
                else if (!strcmp(a, "--threads")) {
                    if (!parse_count(val, 0, EIR_MAX_THREADS, &x)) {
                        free(ins);
                        return usage_error("--threads needs a count from 0 to " THREADS_MAX_STR ", got '%s'", val);
                    }
                    o.threads = (int)x;
                }
                else if (!strcmp(a, "--ops")) o.ops = val;
                else if (!strcmp(a, "--inner")) o.inner = val;
                else if (!strcmp(a, "--seed")) {
                    if (!parse_count(val, 0, INT64_MAX, &x)) { free(ins); return usage_error("--seed needs a non-negative integer, got '%s'", val); }
                    o.seed = (uint64_t)x;
                } else if (!parse_count(val, 1, 1000000, &x)) {
                    free(ins);
                    return usage_error(a[2] == 'r' && a[3] == 'e' ? "--repeat needs a count from 1 to 1000000, got '%s'"
                                                                   : "--runs needs a count from 1 to 1000000, got '%s'", val);
                } else if (a[3] == 'e') o.repeat = (int)x;
                else o.runs = (int)x;
            } else if (a[0] == '-' && a[1]) {
                free(ins);
                return usage_error("unknown option '%s'", a);
            } else if (!model) model = a;
            else ins[nin++] = a;
        }
        if (!model) { free(ins); return usage_error("%s: no model given", cmd); }
        int rc = cmd_run(model, ins, nin, &o);
        free(ins);
        return rc;
    }
    if (!is_info && !is_print) return usage_error("unknown command '%s'", cmd);
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { fputs(USAGE, stdout); return 0; }
        if (is_info && !strcmp(a, "--json")) json = true;
        else if (is_info && !strcmp(a, "--ops")) {
            if (i + 1 >= argc) return usage_error("%s needs a value", a);
            ops = argv[++i];
        } else if (is_print && !strcmp(a, "--code")) form = EIR_PRINT_CODE;
        else if (is_print && !strcmp(a, "--program")) form = EIR_PRINT_PROGRAM;
        else if (is_print && !strcmp(a, "--graph")) form = EIR_PRINT_GRAPH;
        else if (a[0] == '-' && a[1]) return usage_error("unknown option '%s'", a);
        else if (path) return usage_error("more than one model given ('%s')", a);
        else path = a;
    }
    if (!path) return usage_error("%s: no model given", cmd);
    eir_program *p;
    if (load(path, &p)) return 1;
    ops_lib lib = {0};
    if (ops_load(ops, &lib)) {
        eir_program_free(p);
        return 1;
    }
    char *text = NULL;
    eir_status st = is_info ? eir_program_info(p, json, &text) : eir_program_print(p, form, &text);
    if (is_info && st == EIR_OK && text) {
        /* the runtime's view: can it run, and how much activation memory */
        eir_runtime *rt = NULL;
        char extra[8192];
        eir_status cs = eir_runtime_create_with(p, lib.lib, &rt);
        if (cs == EIR_OK && eir_runtime_plan_example(rt) == EIR_OK) {
            uint64_t arena, sum;
            eir_runtime_memory(rt, &arena, &sum);
            if (json)
                snprintf(extra, sizeof extra, ", \"runnable\": true, \"arena_bytes\": %llu, \"intermediate_bytes\": %llu, "
                         "\"peak_live_bytes\": %llu}\n", (unsigned long long)arena, (unsigned long long)sum,
                         (unsigned long long)eir_runtime_peak_live_bytes(rt));
            else
                snprintf(extra, sizeof extra, "runnable: yes; activation arena %llu bytes for %llu bytes of "
                         "intermediates (%.0f%%; at most %llu bytes alive at once) at the exported shapes\n",
                         (unsigned long long)arena, (unsigned long long)sum,
                         sum ? 100.0 * (double)arena / (double)sum : 100.0,
                         (unsigned long long)eir_runtime_peak_live_bytes(rt));
        } else {
            runnable_no(extra, sizeof extra, rt, cs, json, !lib.lib && lacks_custom_op(rt));
        }
        eir_runtime_free(rt);
        size_t tl = strlen(text);
        if (json && tl >= 2 && text[tl - 2] == '}') text[tl - 2] = 0;  /* splice into the JSON object */
        char *joined = malloc(strlen(text) + strlen(extra) + 1);
        if (joined) {
            strcpy(joined, text);
            strcat(joined, extra);
            eir_free(text);
            text = joined;
        }
    }
    int rc = emit(p, st, text);
    ops_unload(&lib);
    eir_program_free(p);
    return rc;
}
