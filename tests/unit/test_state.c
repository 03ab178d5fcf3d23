/* test_state.c — module state through the C API, against the torch module's
 * recorded runs (V.run_<r>.* fixtures from python/tools/make_fixtures.py):
 * buffers mutated in place, by reassignment and through copy_, non-persistent
 * buffers, user inputs mutated in place and through a view, and a custom op's
 * Tensor(a!) argument. Three runs in a row give torch's outputs; after each,
 * the caller's input tensors hold torch's mutated inputs (also when they are
 * strided and eir works on a private copy) and eir_runtime_state gives torch's
 * buffers. The runtime reports exactly what the program mutates. */
#include "check.h"
#include "fixture.h"
#include "../../examples/custom_ops.c" /* mylib::scale_ for custom_mutation */

#define RUNS 3

static eir_library *lib;

static void test_sequence(const char *name) {
    eir_program *p = load_fixture(name);
    if (!p) { CHECK(false); return; }
    npy_array in[8];
    eir_runtime *rt = fixture_runtime(p, lib, name, in, 8);
    CHECK(rt != NULL);
    if (!rt) { eir_program_free(p); return; }
    char key[512];
    eir_status st;
    uint32_t ni = eir_runtime_num_inputs(rt);
    for (uint32_t i = 0; i < ni; i++) {
        /* the runtime says which inputs the program writes: exactly those torch mutated */
        eir_io_info info;
        npy_array probe;
        snprintf(key, sizeof key, "%s.run_1.input_%u", name, i);
        bool torch_mutates = load_npy_q(key, &probe, true);
        if (torch_mutates) free(probe.data);
        CHECK(eir_runtime_input_info(rt, i, &info) == EIR_OK && info.mutated == torch_mutates);
    }
    /* and which buffers: exactly those torch mutated */
    const char *fqn;
    uint32_t nmut = 0;
    for (uint32_t k = 0; (fqn = eir_runtime_mutated_state(rt, k)); k++, nmut++) {
        npy_array probe;
        snprintf(key, sizeof key, "%s.run_1.state.%s", name, fqn);
        bool has = load_npy_q(key, &probe, true);
        CHECK(has);
        if (has) free(probe.data);
        else fprintf(stderr, "  %s: eir says '%s' is mutated, torch did not change it\n", name, fqn);
    }
    for (uint32_t k = 0; k < eir_program_num_input_specs(p); k++) {
        const eir_input_spec *s = eir_program_input_spec(p, k);
        if (s->kind != EIR_IN_BUFFER) continue;
        npy_array probe;
        snprintf(key, sizeof key, "%s.run_1.state.%s", name, s->target);
        if (!load_npy_q(key, &probe, true)) continue;
        free(probe.data);
        bool listed = false;
        for (uint32_t q = 0; (fqn = eir_runtime_mutated_state(rt, q)); q++) listed |= !strcmp(fqn, s->target);
        CHECK(listed);
        if (!listed) fprintf(stderr, "  %s: torch mutates '%s', eir does not list it\n", name, s->target);
    }
    CHECK(nmut > 0 || ni > 0);
    for (int r = 1; r <= RUNS; r++) {
        st = eir_runtime_run(rt);
        CHECK(st == EIR_OK);
        if (st) { fprintf(stderr, "  %s run %d: %s\n", name, r, eir_runtime_errmsg(rt)); break; }
        for (uint32_t i = 0; i < eir_runtime_num_outputs(rt); i++) {
            npy_array want;
            snprintf(key, sizeof key, "%s.run_%d.out_%u", name, r, i);
            if (!load_npy(key, &want)) { CHECK(false); continue; }
            eir_tensor_view got;
            CHECK(eir_runtime_output(rt, i, &got) == EIR_OK && view_close(&got, &want, 1e-5, 1e-6, key));
            free(want.data);
        }
        for (uint32_t i = 0; i < ni && i < 8; i++) {
            npy_array want;
            snprintf(key, sizeof key, "%s.run_%d.input_%u", name, r, i);
            if (!load_npy_q(key, &want, true)) continue;
            /* the caller's own tensor holds the new value */
            eir_tensor_view caller = view_of(&in[i]);
            CHECK(view_close(&caller, &want, 1e-5, 1e-6, key));
            free(want.data);
        }
        for (uint32_t k = 0; (fqn = eir_runtime_mutated_state(rt, k)); k++) {
            npy_array want;
            snprintf(key, sizeof key, "%s.run_%d.state.%s", name, r, fqn);
            if (!load_npy(key, &want)) { CHECK(false); continue; }
            eir_tensor_view got;
            CHECK(eir_runtime_state(rt, fqn, &got) == EIR_OK && view_close(&got, &want, 1e-5, 1e-6, key));
            free(want.data);
        }
    }
    for (uint32_t i = 0; i < 8; i++) free(in[i].data);
    eir_runtime_free(rt);
    eir_program_free(p);
}

/* non-persistent buffers and lifted constants are state the runtime can read;
 * before the first run they hold the archive's values */
static void test_initial_state(void) {
    eir_program *p = load_fixture("buffer_reassign");
    if (!p) { CHECK(false); return; }
    eir_runtime *rt = NULL;
    CHECK(eir_runtime_create(p, &rt) == EIR_OK);
    eir_tensor_view v;
    CHECK(eir_runtime_state(rt, "scale", &v) == EIR_OK && v.dtype == EIR_F32 && v.rank == 1 && v.sizes[0] == 4 &&
          ((float *)v.data)[3] == 0.5f); /* non-persistent */
    CHECK(eir_runtime_state(rt, "calls", &v) == EIR_OK && v.dtype == EIR_I64 && *(int64_t *)v.data == 0);
    CHECK(eir_runtime_state(rt, "total", &v) == EIR_OK && ((float *)v.data)[0] == 0.0f);
    CHECK(eir_runtime_state(rt, "nope", &v) == EIR_ERR_ARG && strstr(eir_runtime_errmsg(rt), "'nope'"));
    eir_runtime_free(rt);
    eir_program_free(p);

    p = load_fixture("lifted_constants");
    if (!p) { CHECK(false); return; }
    CHECK(eir_runtime_create(p, &rt) == EIR_OK);
    CHECK(eir_runtime_mutated_state(rt, 0) == NULL); /* constants are read, not written */
    CHECK(eir_runtime_state(rt, "idx", &v) == EIR_OK && v.dtype == EIR_I64 && v.rank == 1 && v.sizes[0] == 3 &&
          ((int64_t *)v.data)[0] == 2);
    eir_runtime_free(rt);
    eir_program_free(p);
}

/* input_mutation with x given as a transposed (strided) view of the caller's
 * memory: eir runs on a private contiguous copy and writes the result back
 * through the caller's strides */
static void test_strided_input(const char *name) {
    eir_program *p = load_fixture(name);
    if (!p) { CHECK(false); return; }
    eir_runtime *rt = NULL;
    CHECK(eir_runtime_create(p, &rt) == EIR_OK);
    char key[256];
    npy_array x, y, want_x, want_out;
    snprintf(key, sizeof key, "%s.in_0", name);
    bool ok = load_npy(key, &x);
    snprintf(key, sizeof key, "%s.in_1", name);
    ok = ok && load_npy(key, &y);
    snprintf(key, sizeof key, "%s.run_1.input_0", name);
    ok = ok && load_npy(key, &want_x);
    snprintf(key, sizeof key, "%s.run_1.out_0", name);
    ok = ok && load_npy(key, &want_out);
    if (!ok || x.rank != 2) { CHECK(false); return; }
    int64_t R = x.sizes[0], C = x.sizes[1];
    /* the caller stores x column-major, with a guard element after it */
    float *store = malloc((size_t)(R * C + 1) * sizeof *store);
    for (int64_t i = 0; i < R; i++)
        for (int64_t j = 0; j < C; j++) store[j * R + i] = ((float *)x.data)[i * C + j];
    store[R * C] = 12345.0f;
    int64_t sizes[2] = {R, C}, strides[2] = {1, R};
    eir_tensor_view xv = {store, EIR_F32, 2, sizes, strides}, yv = view_of(&y);
    CHECK(eir_runtime_set_input(rt, 0, &xv) == EIR_OK && eir_runtime_set_input(rt, 1, &yv) == EIR_OK);
    CHECK(eir_runtime_run(rt) == EIR_OK);
    eir_tensor_view out;
    CHECK(eir_runtime_output(rt, 0, &out) == EIR_OK && view_close(&out, &want_out, 1e-5, 1e-6, "strided run out"));
    CHECK(view_close(&xv, &want_x, 1e-5, 1e-6, "strided caller x"));
    CHECK(store[R * C] == 12345.0f);
    free(store);
    free(x.data);
    free(y.data);
    free(want_x.data);
    free(want_out.data);
    eir_runtime_free(rt);
    eir_program_free(p);
}

int main(void) {
    if (getenv("EIR_FIXTURES")) fixture_dir = getenv("EIR_FIXTURES");
    if (eir_library_create(&lib) != EIR_OK || eir_ops_init(lib) != EIR_OK) { CHECK(false); return check_summary("test_state"); }
    static const char *const names[] = {"buffer_mutation", "buffer_reassign", "input_mutation", "custom_mutation"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char dec[128];
        snprintf(dec, sizeof dec, "%s.decomp", names[i]);
        test_sequence(names[i]);
        test_sequence(dec);
    }
    test_initial_state();
    test_strided_input("input_mutation");
    test_strided_input("input_mutation.decomp");
    eir_library_free(lib);
    return check_summary("test_state");
}
