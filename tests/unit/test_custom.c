/* test_custom.c — custom operators through the C API: schemas in torch's
 * syntax are parsed and malformed ones refused naming the place; programs
 * calling mylib ops are refused at runtime creation without them (listing the
 * nodes) and checked against the schema with them; mylib::sin and the
 * data-dependent mylib::custom_nonzero (kernels and a shape function defined
 * here) and the example library's ops (arguments of every kind, a Tensor(a!)
 * argument through auto_functionalized_v2, with_effects) run on the committed
 * fixtures and match torch's recorded outputs. */
#include <time.h>

#include "check.h"
#include "fixture.h"
#include "../../examples/custom_ops.c" /* eir_ops_init: the example library's kernels */

/* ---- kernels of this test ---- */

static int t_sin_calls;

/* mylib::sin(Tensor x) -> Tensor, float32, any strides */
static int t_sin(const eir_op_call *c) {
    t_sin_calls++;
    if (c->num_args != 1 || c->args[0].kind != EIR_OP_TENSOR || c->num_outputs != 1)
        return snprintf(c->err, c->errlen, "unexpected call"), 1;
    const eir_tensor_view *x = c->args[0].tensor, *y = &c->outputs[0];
    if (x->dtype != EIR_F32) return snprintf(c->err, c->errlen, "mylib::sin wants float32"), 1;
    for (int64_t k = 0, n = eir_tensor_numel(x); k < n; k++)
        ((float *)y->data)[offset_of(y, k)] = sinf(((const float *)x->data)[offset_of(x, k)]);
    return 0;
}

/* mylib::sin, 4 ms slower: the profile must put the time on its node; refuses an input
 * whose first element is negative (a failed run) */
static int t_slow_sin(const eir_op_call *c) {
    if (c->num_args == 1 && c->args[0].kind == EIR_OP_TENSOR && c->args[0].tensor->dtype == EIR_F32 &&
        *(const float *)c->args[0].tensor->data < 0)
        return snprintf(c->err, c->errlen, "negative on purpose"), 1;
    struct timespec ts = {0, 4000000};
    while (nanosleep(&ts, &ts) != 0) {}
    return t_sin(c);
}

static int t_fail(const eir_op_call *c) { return snprintf(c->err, c->errlen, "refusing on purpose"), 1; }

/* mylib::custom_nonzero: the shape function counts, the kernel writes the indices */
static int t_nonzero_shape(const eir_op_call *c, eir_op_shape *out) {
    const eir_tensor_view *x = c->args[0].tensor;
    if (out[0].rank != 2 || out[0].sizes[0] != -1 || out[0].sizes[1] != 2 || out[0].dtype != EIR_I64)
        return snprintf(c->err, c->errlen, "unexpected recorded shape"), 1;
    int64_t n = 0;
    for (int64_t k = 0, e = eir_tensor_numel(x); k < e; k++) n += ((const float *)x->data)[offset_of(x, k)] != 0;
    out[0].sizes[0] = n;
    return 0;
}

static int t_nonzero_wrong_shape(const eir_op_call *c, eir_op_shape *out) {
    int rc = t_nonzero_shape(c, out);
    out[0].sizes[1] = 3; /* the program says 2 */
    return rc;
}

static int t_shape_fails(const eir_op_call *c, eir_op_shape *out) {
    (void)out;
    return snprintf(c->err, c->errlen, "no shape today"), 1;
}

static int t_nonzero(const eir_op_call *c) {
    const eir_tensor_view *x = c->args[0].tensor, *y = &c->outputs[0];
    int64_t row = 0;
    for (int64_t k = 0, n = eir_tensor_numel(x); k < n; k++) {
        if (((const float *)x->data)[offset_of(x, k)] == 0) continue;
        if (row >= y->sizes[0]) return snprintf(c->err, c->errlen, "more rows than the shape function said"), 1;
        int64_t *r = (int64_t *)y->data + row * y->strides[0];
        r[0] = k / x->sizes[1];
        r[y->strides[1]] = k % x->sizes[1];
        row++;
    }
    return 0;
}

/* ---- helpers ---- */

static eir_library *lib_with(const char *name, const char *schema, eir_op_shape_fn shape, eir_op_kernel kernel) {
    eir_library *lib = NULL;
    CHECK(eir_library_create(&lib) == EIR_OK);
    eir_status st = eir_library_define(lib, name, schema, shape, kernel, NULL);
    CHECK(st == EIR_OK);
    if (st) fprintf(stderr, "  %s\n", eir_library_errmsg(lib));
    return lib;
}

/* creating a runtime for fixture `name` with lib fails, and the message has `want` */
static void check_create_fails(const char *name, const eir_library *lib, const char *want) {
    eir_program *p = load_fixture(name);
    if (!p) { CHECK(false); return; }
    eir_runtime *rt = NULL;
    /* a missing operator has its own status; a malformed call is a graph error */
    CHECK(eir_runtime_create_with(p, lib, &rt) == (strstr(want, "mylib.") == want ? EIR_ERR_UNSUPPORTED : EIR_ERR_GRAPH));
    bool has = strstr(eir_runtime_errmsg(rt), want) != NULL;
    CHECK(has);
    if (!has) fprintf(stderr, "  message: %s\n  wanted:  %s\n", eir_runtime_errmsg(rt), want);
    eir_runtime_free(rt);
    eir_program_free(p);
}

/* creation fails with EIR_ERR_UNSUPPORTED and exactly the message `want` */
static void check_missing(const char *name, const eir_library *lib, const char *want) {
    eir_program *p = load_fixture(name);
    if (!p) { CHECK(false); return; }
    eir_runtime *rt = NULL;
    CHECK(eir_runtime_create_with(p, lib, &rt) == EIR_ERR_UNSUPPORTED);
    bool same = !strcmp(eir_runtime_errmsg(rt), want);
    CHECK(same);
    if (!same) fprintf(stderr, "  message: %s\n  wanted:  %s\n", eir_runtime_errmsg(rt), want);
    eir_runtime_free(rt);
    eir_program_free(p);
}

/* run fixture `name` on its recorded inputs with lib; its outputs match torch's */
static void check_fixture_runs(const char *name, const eir_library *lib, double rtol, double atol) {
    eir_program *p = load_fixture(name);
    if (!p) { CHECK(false); return; }
    npy_array in[8];
    eir_runtime *rt = fixture_runtime(p, lib, name, in, 8);
    CHECK(rt != NULL);
    if (!rt) { eir_program_free(p); return; }
    char key[256];
    eir_status st = eir_runtime_run(rt);
    CHECK(st == EIR_OK);
    if (st) fprintf(stderr, "  %s: %s\n", name, eir_runtime_errmsg(rt));
    for (uint32_t i = 0; !st && i < eir_runtime_num_outputs(rt); i++) {
        npy_array want;
        snprintf(key, sizeof key, "%s.out_%u", name, i);
        if (!load_npy(key, &want)) { CHECK(false); continue; }
        eir_tensor_view got;
        CHECK(eir_runtime_output(rt, i, &got) == EIR_OK);
        CHECK(view_close(&got, &want, want.dtype == EIR_F32 && got.dtype == EIR_BF16 ? 2e-2 : rtol, atol, key));
        free(want.data);
    }
    for (uint32_t i = 0; i < 8; i++) free(in[i].data);
    eir_runtime_free(rt);
    eir_program_free(p);
}

/* ---- tests ---- */

static void define_fails(const char *qualname, const char *schema, const char *want) {
    eir_library *lib = NULL;
    CHECK(eir_library_create(&lib) == EIR_OK);
    CHECK(eir_library_define(lib, qualname, schema, NULL, t_sin, NULL) == EIR_ERR_ARG);
    bool has = strstr(eir_library_errmsg(lib), want) != NULL;
    CHECK(has);
    if (!has) fprintf(stderr, "  schema %s\n  message: %s\n  wanted:  %s\n", schema ? schema : "(null)", eir_library_errmsg(lib), want);
    eir_library_free(lib);
}

static void test_schemas(void) {
    eir_library *lib = NULL;
    CHECK(eir_library_create(&lib) == EIR_OK);
    /* torch's syntax, as torch.library.define takes it */
    CHECK(eir_library_define(lib, "mylib::a", "(Tensor x) -> Tensor", NULL, t_sin, NULL) == EIR_OK);
    CHECK(eir_library_define(lib, "mylib::a.out", "(Tensor x, *, Tensor(a!) out) -> ()", NULL, t_sin, NULL) == EIR_OK);
    CHECK(eir_library_define(lib, NULL,
                             "mylib::every(Tensor? x=None, Tensor[] xs, Tensor?[] ys, int n=-1, int[2] k=1, SymInt m=0, "
                             "SymInt[] ms=[], float f=1e-5, float[] fs=[1.0, 2.5], bool b=True, bool[] bs=[True, False], "
                             "str s='mean', str? t=None, Scalar sc=2, ScalarType dt=float32, ScalarType? dt2=None, "
                             "int[]? opt=None) -> (Tensor a, Tensor b)", NULL, t_sin, NULL) == EIR_OK);
    CHECK(eir_library_define(lib, "mylib::lst", "  ( Tensor x , int[ ] d ) -> Tensor[]  ", NULL, t_sin, NULL) == EIR_OK);
    /* the same name twice */
    CHECK(eir_library_define(lib, "mylib::a", "(Tensor y) -> Tensor", NULL, t_sin, NULL) == EIR_ERR_ARG);
    CHECK(strstr(eir_library_errmsg(lib), "mylib::a is already defined") != NULL);
    CHECK(eir_library_define(lib, "mylib::b", "(Tensor x) -> Tensor", NULL, NULL, NULL) == EIR_ERR_ARG);
    CHECK(strstr(eir_library_errmsg(lib), "no kernel") != NULL);
    eir_library_free(lib);
    CHECK(eir_library_define(NULL, "mylib::a", "(Tensor x) -> Tensor", NULL, t_sin, NULL) == EIR_ERR_ARG);
    CHECK(eir_library_create(NULL) == EIR_ERR_ARG);
    eir_library_free(NULL);

    /* malformed schemas: refused, naming the operator, the offset and what was expected */
    define_fails("sin", "(Tensor x) -> Tensor", "'sin' is not a qualified operator name");
    define_fails("mylib::", "(Tensor x) -> Tensor", "is not a qualified operator name");
    define_fails("my lib::x", "(Tensor x) -> Tensor", "is not a qualified operator name");
    define_fails("mylib::x", NULL, "mylib::x: no schema given");
    define_fails("mylib::x", "", "expected '(' or \"namespace::name(\"");
    define_fails("mylib::x", "(Tensor x -> Tensor", "mylib::x: schema \"(Tensor x -> Tensor\", at offset 10: expected ',' or ')'");
    define_fails("mylib::x", "(Tensor x) Tensor", "expected '->'");
    define_fails("mylib::x", "(Tensor x) ->", "expected a type");
    define_fails("mylib::x", "(Tensor x) -> Tensor y z", "unexpected text after the returns");
    define_fails("mylib::x", "(Foo x) -> Tensor", "unknown type 'Foo'");
    define_fails("mylib::x", "(Generator? g) -> Tensor", "type Generator is not supported");
    define_fails("mylib::x", "(__torch__.torch.classes.m.Foo f) -> Tensor", "custom classes");
    define_fails("mylib::x", "(Tensor x) -> int", "return Tensor, Tensor[] or a tuple of Tensors, not int");
    define_fails("mylib::x", "(Tensor(a!) x) -> Tensor(a!)", "returns that alias an input");
    define_fails("mylib::x", "(Tensor(a -> *) x) -> Tensor", "alias annotations of the forms (a) and (a!)");
    define_fails("mylib::x", "(int(a) n) -> Tensor", "only Tensor arguments take an alias annotation");
    define_fails("mylib::x", "(Tensor x, Tensor x) -> Tensor", "argument 'x' is named twice");
    define_fails("mylib::x", "(Tensor) -> Tensor", "expected the name of the Tensor argument");
    define_fails("mylib::x", "(int n=None) -> Tensor", "default None for int, which is not optional");
    define_fails("mylib::x", "(int n=1.5) -> Tensor", "default '1.5' of int is not an integer");
    define_fails("mylib::x", "(int[2] k=[1]) -> Tensor", "default of int[2] has 1 elements");
    define_fails("mylib::x", "(int[] k=1) -> Tensor", "expected a list");
    define_fails("mylib::x", "(str s=mean) -> Tensor", "default mean of str is not a quoted string");
    define_fails("mylib::x", "(str s='mean) -> Tensor", "unterminated default value");
    define_fails("mylib::x", "(bool b=1) -> Tensor", "is not True or False");
    define_fails("mylib::x", "(ScalarType d=floaty) -> Tensor", "is not a dtype name");
    define_fails("mylib::x", "(Tensor t=0) -> Tensor", "a Tensor argument's only default is None");
    define_fails("mylib::x", "(int?[] k) -> Tensor", "only Tensor lists may hold None");
    define_fails("mylib::x", "(str[] k) -> Tensor", "lists of str are not supported");
    define_fails("mylib::x", "(int[0] k) -> Tensor", "list size 0 out of range");
    define_fails("mylib::x", "(int[3 k) -> Tensor", "expected ']'");
    define_fails("mylib::x", "(Tensor a, *, *, Tensor b) -> Tensor", "a second '*'");
    define_fails("mylib::x", "(Tensor a) -> (Tensor[], Tensor)", "a Tensor[] return must be the only return");
    define_fails("mylib::x", "mylib::y(Tensor a) -> Tensor", "the schema names mylib::y, but the operator is mylib::x");
    define_fails(NULL, "(Tensor a) -> Tensor", "no operator name");
}

/* schema strings are input: random edits of valid ones never crash (the
 * sanitizer build runs this), and every refusal comes with a message */
static void test_schema_mutations(void) {
    static const char *const seeds[] = {
        "(Tensor x) -> Tensor",
        "mylib::every(Tensor? x=None, Tensor[] xs, Tensor?[] ys, int n=-1, int[2] k=1, SymInt[] ms=[], float f=1e-5, "
        "float[] fs=[1.0, 2.5], bool[] bs=[True, False], str s='me\\'an', Scalar sc=2, ScalarType dt=float32, "
        "int[]? opt=None) -> (Tensor a, Tensor b)",
        "(Tensor(a!) x, *, float f=0.5, str mode=\"sum\") -> ()",
        "(Tensor x, int[] d) -> Tensor[]",
    };
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    char buf[512];
    int ok = 0, refused = 0, silent = 0;
    eir_library *lib = NULL;
    CHECK(eir_library_create(&lib) == EIR_OK);
    for (int it = 0; it < 20000; it++) {
        const char *seed = seeds[it % 4];
        size_t n = strlen(seed);
        memcpy(buf, seed, n + 1);
        for (int e = 0; e < 1 + it % 3; e++) {
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            size_t at = (size_t)(rng >> 8) % (n ? n : 1);
            static const char alphabet[] = "()[]?!*,=-> \"'.:0123456789aTensorintSymfloatboolstrScalarType_N";
            char c = alphabet[(rng >> 40) % (sizeof alphabet - 1)];
            switch ((rng >> 32) % 4) {
            case 0: buf[at] = c; break;                                          /* replace */
            case 1: n = at; buf[n] = 0; break;                                   /* truncate */
            case 2: if (n) { memmove(buf + at, buf + at + 1, n - at); n--; } break; /* delete */
            default:                                                             /* insert */
                if (n + 2 < sizeof buf) { memmove(buf + at + 1, buf + at, n - at + 1); buf[at] = c; n++; }
            }
        }
        char name[32];
        snprintf(name, sizeof name, "mut::op%d", it);
        eir_status st = eir_library_define(lib, strncmp(buf, "mylib::", 7) ? name : NULL, buf, NULL, t_sin, NULL);
        if (st == EIR_OK) ok++;
        else if (st == EIR_ERR_ARG && eir_library_errmsg(lib)[0]) refused++;
        else silent++;
    }
    CHECK(silent == 0);
    CHECK(ok > 100 && refused > 1000); /* both paths were exercised */
    eir_library_free(lib);
}

/* without the operator the program still loads, and creation lists what is missing */
static void test_missing(void) {
    check_create_fails("custom_op", NULL, "mylib.sin.default (node %sin), a custom operator");
    check_missing("custom_op", NULL, "1 node uses 1 operator eir cannot run yet:\n  mylib.sin.default (node %sin), a custom operator");
    eir_library *empty = NULL;
    CHECK(eir_library_create(&empty) == EIR_OK);
    check_create_fails("custom_op", empty, "mylib.sin.default (node %sin), a custom operator");
    /* one line per operator, with its node count and first node */
    check_missing("custom_args", empty, "2 nodes use 1 operator eir cannot run yet:\n"
                  "  mylib.combine.default (2 nodes, first %combine), a custom operator");
    eir_program *pa = load_fixture("custom_args");
    eir_runtime *rt = NULL;
    CHECK(pa && eir_runtime_create_with(pa, empty, &rt) == EIR_ERR_UNSUPPORTED);
    CHECK(eir_runtime_num_missing_ops(rt) == 1 && eir_runtime_missing_op(rt, 1) == NULL);
    const eir_missing_op *m = eir_runtime_missing_op(rt, 0);
    CHECK(m && !strcmp(m->op, "mylib.combine.default") && m->count == 2 && !strcmp(m->first_node, "combine") &&
          m->custom && m->decomp == EIR_DECOMP_NONE && !m->subgraph && !m->context && !m->functional);
    CHECK(!strstr(eir_runtime_errmsg(rt), "hint:"));
    eir_runtime_free(rt);
    eir_program_free(pa);
    CHECK(eir_runtime_num_missing_ops(NULL) == 0 && eir_runtime_missing_op(NULL, 0) == NULL);
    check_create_fails("effects.decomp", empty, "mylib.log_sum.default (node %with_effects_1), a custom operator");
    check_create_fails("custom_mutation.decomp", empty,
                       "mylib.scale_.default (2 nodes, first %auto_functionalized_v2, in auto_functionalized_v2), a custom operator");
    /* an overload other than the one the program calls does not match */
    CHECK(eir_library_define(empty, "mylib::sin.out", "(Tensor x, *, Tensor(a!) out) -> ()", NULL, t_sin, NULL) == EIR_OK);
    check_create_fails("custom_op", empty, "mylib.sin.default (node %sin)");
    eir_library_free(empty);
    /* printing and info do not need the operator */
    eir_program *p = load_fixture("custom_op");
    if (!p) { CHECK(false); return; }
    char *text = NULL;
    CHECK(eir_program_print(p, EIR_PRINT_GRAPH, &text) == EIR_OK && strstr(text, "torch.ops.mylib.sin.default"));
    eir_free(text);
    CHECK(eir_program_info(p, false, &text) == EIR_OK && text != NULL);
    eir_free(text);
    eir_program_free(p);
}

/* a schema that does not fit the node is refused at creation, naming the argument */
static void test_schema_mismatch(void) {
    struct { const char *schema, *want; } cases[] = {
        {"(Tensor x, int n) -> Tensor", "node %sin (mylib.sin.default): required argument 'n' (int) is missing; the "
                                        "schema is mylib::sin(Tensor x, int n) -> Tensor"},
        {"(int x) -> Tensor", "node %sin (mylib.sin.default): argument 'x' is a Tensor, the schema mylib::sin(int x) -> "
                              "Tensor expects int"},
        {"(Tensor y) -> Tensor", "argument 'x' is not in the schema mylib::sin(Tensor y) -> Tensor"},
        {"(Tensor x) -> (Tensor, Tensor)", "1 outputs, the schema mylib::sin(Tensor x) -> (Tensor, Tensor) returns 2"},
        {"(Tensor x) -> ()", "the schema mylib::sin(Tensor x) -> () returns nothing, the node has outputs"},
        {"(Tensor x) -> Tensor[]", "output 0 is a Tensor, the schema mylib::sin(Tensor x) -> Tensor[] returns Tensor[]"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        eir_library *lib = lib_with("mylib::sin", cases[i].schema, NULL, t_sin);
        check_create_fails("custom_op", lib, cases[i].want);
        eir_library_free(lib);
    }
    /* extra arguments with defaults are fine: the kernel sees the defaults */
    eir_library *lib = lib_with("mylib::sin", "(Tensor x, float scale=2.5, *, str mode=\"a\") -> Tensor", NULL, t_sin);
    eir_program *p = load_fixture("custom_op");
    eir_runtime *rt = NULL;
    CHECK(p && eir_runtime_create_with(p, lib, &rt) == EIR_OK);
    eir_runtime_free(rt);
    eir_program_free(p);
    eir_library_free(lib);
}

static void test_sin(void) {
    eir_library *lib = lib_with("mylib::sin", "(Tensor x) -> Tensor", NULL, t_sin);
    t_sin_calls = 0;
    check_fixture_runs("custom_op", lib, 1e-5, 1e-6);
    check_fixture_runs("custom_op.decomp", lib, 1e-5, 1e-6);
    CHECK(t_sin_calls == 2);
    eir_library_free(lib);
    /* a kernel's failure names the node and carries its message */
    lib = lib_with("mylib::sin", "(Tensor x) -> Tensor", NULL, t_fail);
    eir_program *p = load_fixture("custom_op");
    eir_runtime *rt = NULL;
    CHECK(p && eir_runtime_create_with(p, lib, &rt) == EIR_OK);
    float x[9] = {0};
    int64_t sz[2] = {3, 3};
    eir_tensor_view xv = {x, EIR_F32, 2, sz, NULL};
    CHECK(eir_runtime_set_input(rt, 0, &xv) == EIR_OK);
    CHECK(eir_runtime_run(rt) == EIR_ERR_ARG);
    CHECK(strstr(eir_runtime_errmsg(rt), "node %sin (mylib.sin.default): refusing on purpose") != NULL);
    eir_runtime_free(rt);
    eir_program_free(p);
    eir_library_free(lib);
}

/* run custom_nonzero on x; the index output has `rows` rows */
static eir_status run_nonzero(eir_runtime *rt, float *x, int64_t *rows) {
    int64_t sz[2] = {4, 5};
    eir_tensor_view xv = {x, EIR_F32, 2, sz, NULL};
    if (eir_runtime_set_input(rt, 0, &xv) != EIR_OK) return EIR_ERR_ARG;
    eir_status st = eir_runtime_run(rt);
    eir_tensor_view idx;
    if (!st && eir_runtime_output(rt, 0, &idx) == EIR_OK) *rows = idx.sizes[0];
    return st;
}

static void test_custom_nonzero(void) {
    /* without a shape function the data-dependent size is refused at creation */
    eir_library *lib = lib_with("mylib::custom_nonzero", "(Tensor x) -> Tensor", NULL, t_nonzero);
    check_create_fails("custom_nonzero", lib, "node %custom_nonzero (mylib.custom_nonzero.default): output 0 has the "
                       "data-dependent size u0 in dim 0, so mylib::custom_nonzero needs a shape function");
    eir_library_free(lib);

    lib = lib_with("mylib::custom_nonzero", "(Tensor x) -> Tensor", t_nonzero_shape, t_nonzero);
    check_fixture_runs("custom_nonzero", lib, 0, 0);
    check_fixture_runs("custom_nonzero.decomp", lib, 0, 0);
    /* different data, different row counts, one runtime */
    eir_program *p = load_fixture("custom_nonzero");
    eir_runtime *rt = NULL;
    CHECK(p && eir_runtime_create_with(p, lib, &rt) == EIR_OK);
    float x[20] = {0};
    int64_t rows = -1;
    CHECK(run_nonzero(rt, x, &rows) == EIR_OK && rows == 0);
    x[3] = 1.5f;
    x[7] = -2.0f;
    x[19] = 4.0f;
    CHECK(run_nonzero(rt, x, &rows) == EIR_OK && rows == 3);
    eir_tensor_view idx, twice;
    CHECK(eir_runtime_output(rt, 0, &idx) == EIR_OK && eir_runtime_output(rt, 1, &twice) == EIR_OK);
    int64_t want[3][2] = {{0, 3}, {1, 2}, {3, 4}};
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 2; c++) CHECK(((int64_t *)idx.data)[r * idx.strides[0] + c * idx.strides[1]] == want[r][c]);
        /* the program's own computation on the data-dependent tensor: idx.sum(1) * 2 */
        CHECK(twice.sizes[0] == 3 && ((int64_t *)twice.data)[r * twice.strides[0]] == 2 * (want[r][0] + want[r][1]));
    }
    for (int i = 0; i < 20; i++) x[i] = 1.0f;
    CHECK(run_nonzero(rt, x, &rows) == EIR_OK && rows == 20);
    eir_runtime_free(rt);
    eir_library_free(lib);

    /* a shape function that contradicts the program, or fails */
    lib = lib_with("mylib::custom_nonzero", "(Tensor x) -> Tensor", t_nonzero_wrong_shape, t_nonzero);
    CHECK(eir_runtime_create_with(p, lib, &rt) == EIR_OK);
    CHECK(run_nonzero(rt, x, &rows) == EIR_ERR_ARG);
    CHECK(strstr(eir_runtime_errmsg(rt), "node %custom_nonzero (mylib.custom_nonzero.default): the shape function "
                                         "gives output 0 size 3 in dim 1, the program has 2") != NULL);
    eir_runtime_free(rt);
    eir_library_free(lib);
    lib = lib_with("mylib::custom_nonzero", "(Tensor x) -> Tensor", t_shape_fails, t_nonzero);
    CHECK(eir_runtime_create_with(p, lib, &rt) == EIR_OK);
    CHECK(run_nonzero(rt, x, &rows) == EIR_ERR_ARG);
    CHECK(strstr(eir_runtime_errmsg(rt), "shape function: no shape today") != NULL);
    eir_runtime_free(rt);
    eir_library_free(lib);
    eir_program_free(p);
}

/* the example library: arguments of every kind, a mutated argument, effects */
static void test_example_library(void) {
    eir_library *lib = NULL;
    CHECK(eir_library_create(&lib) == EIR_OK);
    CHECK(eir_ops_init(lib) == EIR_OK);
    CHECK(eir_ops_init(lib) == EIR_ERR_ARG); /* defined twice */
    check_fixture_runs("custom_args", lib, 1e-5, 1e-6);
    check_fixture_runs("custom_args.decomp", lib, 1e-5, 1e-6);
    check_fixture_runs("custom_mutation", lib, 1e-5, 1e-6);
    check_fixture_runs("custom_mutation.decomp", lib, 1e-5, 1e-6);
    check_fixture_runs("effects", lib, 1e-5, 1e-6);
    check_fixture_runs("effects.decomp", lib, 1e-5, 1e-6);
    check_fixture_runs("custom_nonzero", lib, 0, 0);
    check_fixture_runs("custom_op", lib, 1e-5, 1e-6);
    eir_library_free(lib);
}

/* eir_runtime_set_profiling / eir_runtime_profile: sin(x) * 2 + 1 with a custom sin that
 * sleeps 4 ms per call */
static void test_profile(void) {
    eir_program *p = load_fixture("custom_op");
    eir_library *lib = NULL;
    if (!p || eir_library_create(&lib) != EIR_OK) { CHECK(false); eir_program_free(p); return; }
    CHECK(eir_library_define(lib, "mylib::sin", "(Tensor x) -> Tensor", NULL, t_slow_sin, NULL) == EIR_OK);
    eir_runtime *rt = NULL;
    CHECK(eir_runtime_create_with(p, lib, &rt) == EIR_OK);
    if (!rt) { eir_library_free(lib); eir_program_free(p); return; }
    float xs[9];
    for (int i = 0; i < 9; i++) xs[i] = 0.25f * (float)i;
    int64_t sz[2] = {3, 3};
    eir_tensor_view x = {xs, EIR_F32, 2, sz, NULL};
    CHECK(eir_runtime_set_input(rt, 0, &x) == EIR_OK);
    eir_profile pr;
    /* off: nothing, and a run is not counted */
    CHECK(eir_runtime_run(rt) == EIR_OK);
    CHECK(eir_runtime_profile(rt, &pr) == EIR_OK && pr.runs == 0 && pr.steps == NULL && pr.num_steps == 0);
    CHECK(eir_runtime_profile(NULL, &pr) == EIR_ERR_ARG && eir_runtime_profile(rt, NULL) == EIR_ERR_ARG);
    CHECK(eir_runtime_set_profiling(NULL, 1) == EIR_ERR_ARG);
    CHECK(eir_runtime_set_profiling(rt, 1) == EIR_OK);
    for (int r = 0; r < 3; r++) CHECK(eir_runtime_run(rt) == EIR_OK);
    CHECK(eir_runtime_profile(rt, &pr) == EIR_OK && pr.runs == 3 && pr.num_steps >= 2 && pr.steps);
    const eir_step_profile *sin = NULL;
    double sum = 0, others = 0, prev_end = 0;
    bool ordered = true, every = true;
    for (uint32_t i = 0; pr.steps && i < pr.num_steps; i++) {
        const eir_step_profile *sp = &pr.steps[i];
        every = every && sp->calls == 3 && sp->node && sp->target;
        sum += sp->total_us;
        if (sp->node && !strcmp(sp->node, "sin")) sin = sp;
        else others += sp->total_us;
        /* the last run's calls, one after the other, inside the run */
        ordered = ordered && sp->last_start_us >= prev_end - 1e-3 && sp->last_us >= 0;
        prev_end = sp->last_start_us + sp->last_us;
    }
    CHECK(every && ordered);
    CHECK(prev_end <= pr.last_run_us + 1e-3);
    CHECK(sin && !strcmp(sin->target, "mylib.sin.default"));
    CHECK(sin && sin->total_us >= 3 * 4000 && sin->last_us >= 4000 && sin->total_us > others);
    CHECK(sum <= pr.run_us && pr.last_run_us >= 4000 && pr.last_run_us <= pr.run_us);
    /* on again: the counts kept; reset: zero; a failed run counts no run */
    CHECK(eir_runtime_set_profiling(rt, 1) == EIR_OK && eir_runtime_profile(rt, &pr) == EIR_OK && pr.runs == 3);
    eir_runtime_profile_reset(rt);
    CHECK(eir_runtime_profile(rt, &pr) == EIR_OK && pr.runs == 0 && pr.run_us == 0 && pr.steps &&
          pr.steps[0].calls == 0 && pr.steps[0].total_us == 0);
    CHECK(eir_runtime_run(rt) == EIR_OK);
    CHECK(eir_runtime_profile(rt, &pr) == EIR_OK && pr.runs == 1 && pr.steps && pr.steps[0].calls == 1);
    xs[0] = -1;
    CHECK(eir_runtime_run(rt) != EIR_OK && strstr(eir_runtime_errmsg(rt), "negative on purpose"));
    CHECK(eir_runtime_profile(rt, &pr) == EIR_OK && pr.runs == 1);
    /* off: dropped */
    CHECK(eir_runtime_set_profiling(rt, 0) == EIR_OK && eir_runtime_profile(rt, &pr) == EIR_OK && pr.steps == NULL);
    eir_runtime_free(rt);
    eir_library_free(lib);
    eir_program_free(p);
}

int main(void) {
    if (getenv("EIR_FIXTURES")) fixture_dir = getenv("EIR_FIXTURES");
    test_profile();
    test_schemas();
    test_schema_mutations();
    test_missing();
    test_schema_mismatch();
    test_sin();
    test_custom_nonzero();
    test_example_library();
    return check_summary("test_custom");
}
