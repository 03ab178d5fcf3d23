/* test_api.c — the public API on committed fixtures: load from a path and
 * from memory, walk graph/signature/tensors, weights used in place (never
 * copied), shared storage stays shared, printing equals torch's text, and
 * bad input comes back as a status with a message, never a crash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "eir.h"

static const char *dir;

static char *slurp(const char *name, size_t *len) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "cannot open %s\n", path); return NULL; }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); buf = NULL; }
    if (buf) buf[n] = 0;
    fclose(f);
    if (len) *len = (size_t)n;
    return buf;
}

static void test_mlp(void) {
    size_t len;
    char *data = slurp("mlp.pt2", &len);
    CHECK(data != NULL);
    if (!data) return;
    eir_program *p = NULL;
    CHECK(eir_program_load_buffer(data, len, &p) == EIR_OK);
    const eir_graph *g = eir_program_graph(p);
    CHECK(g->num_inputs == 7);
    CHECK(g->num_nodes == 5);
    CHECK_STR(g->nodes[0].target, "torch.ops.aten.linear.default");
    CHECK_STR(g->nodes[0].name, "linear");
    CHECK(g->nodes[0].num_inputs == 3 && g->nodes[0].inputs[0].arg.kind == EIR_ARG_TENSOR);
    CHECK_STR(g->values[g->nodes[0].inputs[0].arg.value].name, "x");
    CHECK(eir_program_num_input_specs(p) == 7);
    CHECK(eir_program_input_spec(p, 0)->kind == EIR_IN_PARAMETER);
    CHECK_STR(eir_program_input_spec(p, 0)->target, "fc1.weight");
    CHECK(eir_program_input_spec(p, 6)->kind == EIR_IN_USER_INPUT);
    CHECK(eir_program_output_spec(p, 0)->kind == EIR_OUT_USER_OUTPUT);
    CHECK(eir_program_input_spec(p, 7) == NULL);
    /* weights point into the caller's buffer: used in place, not copied */
    const eir_tensor *w = eir_program_find_tensor(p, "fc1.weight");
    CHECK(w != NULL);
    if (w) {
        CHECK(w->dtype == EIR_F32 && w->rank == 2);
        CHECK((const char *)w->data >= data && (const char *)w->data + w->storage_nbytes <= data + len);
        CHECK(((const char *)w->data - data) % 64 == 0); /* PT2 aligns payload offsets to 64 bytes */
        CHECK(w->storage_nbytes == (uint64_t)w->sizes[0] * (uint64_t)w->sizes[1] * 4);
    }
    CHECK(eir_program_find_tensor(p, "nope") == NULL);
    int64_t major = 0, minor = 0;
    eir_program_schema_version(p, &major, &minor);
    CHECK(major == 8);
    CHECK(strncmp(eir_program_torch_version(p), "2.13", 4) == 0);
    /* printing matches torch's committed text */
    char *text = NULL;
    CHECK(eir_program_print(p, EIR_PRINT_GRAPH, &text) == EIR_OK);
    char *want = slurp("mlp.graph.txt", NULL);
    CHECK_STR(text, want);
    free(want);
    eir_free(text);
    CHECK(eir_program_print(p, EIR_PRINT_PROGRAM, &text) == EIR_OK);
    want = slurp("mlp.program.txt", NULL);
    CHECK_STR(text, want);
    free(want);
    eir_free(text);
    eir_program_free(p);
    free(data);
}

static void test_shared_storage(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/tied_weights.pt2", dir);
    eir_program *p = NULL;
    CHECK(eir_program_load(path, &p) == EIR_OK);
    const eir_tensor *a = eir_program_find_tensor(p, "a.weight"), *b = eir_program_find_tensor(p, "b.weight");
    CHECK(a && b);
    if (a && b) {
        CHECK(a->data == b->data);
        CHECK_STR(a->record, b->record);
    }
    eir_program_free(p);
}

/* Buffers of every dtype, views sharing one storage, a zero-size tensor:
 * metadata as torch wrote it, values read through strides and offsets. */
static void test_storage(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/storage.pt2", dir);
    eir_program *p = NULL;
    CHECK(eir_program_load(path, &p) == EIR_OK);
    const eir_tensor *base = eir_program_find_tensor(p, "base"), *bt = eir_program_find_tensor(p, "base_t"),
                     *win = eir_program_find_tensor(p, "window"), *empty = eir_program_find_tensor(p, "empty");
    CHECK(base && bt && win && empty);
    if (!(base && bt && win && empty)) { eir_program_free(p); return; }
    CHECK(base->data == bt->data && base->data == win->data);
    CHECK(bt->rank == 2 && bt->sizes[0] == 6 && bt->strides[0] == 1 && bt->strides[1] == 6);
    CHECK(win->storage_offset == 8 && win->strides[0] == 6 && win->sizes[1] == 3);
    const float *f = base->data;
    /* base_t[j][i] == base[i][j]; window[r][c] == base[1 + r][2 + c] */
    const float *tf = (const float *)bt->data + bt->storage_offset;
    CHECK(tf[5 * bt->strides[0] + 3 * bt->strides[1]] == f[3 * 6 + 5]);
    const float *wf = (const float *)win->data + win->storage_offset;
    CHECK(wf[1 * win->strides[0] + 2 * win->strides[1]] == f[2 * 6 + 4]);
    CHECK(empty->sizes[0] == 0 && empty->storage_nbytes == 0);
    static const struct { const char *fqn; eir_dtype dt; } dts[] = {
        {"d_f64", EIR_F64}, {"d_f16", EIR_F16}, {"d_bf16", EIR_BF16}, {"d_i8", EIR_I8}, {"d_i16", EIR_I16},
        {"d_i32", EIR_I32}, {"d_i64", EIR_I64}, {"d_u8", EIR_U8}, {"d_u16", EIR_U16}, {"d_b8", EIR_BOOL},
        {"d_c64", EIR_C64}, {"d_c128", EIR_C128}};
    for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++) {
        const eir_tensor *t = eir_program_find_tensor(p, dts[i].fqn);
        CHECK(t && t->dtype == dts[i].dt && t->rank == 1 && t->sizes[0] == 5);
        if (!t) continue;
        CHECK(t->storage_nbytes == 5 * eir_dtype_size(t->dtype));
        /* values are arange(5) % 3 = 0 1 2 0 1; check element 2 per dtype */
        const unsigned char *b = t->data;
        double v = -1;
        switch (t->dtype) {
        case EIR_F64: v = ((const double *)b)[2]; break;
        case EIR_I8: v = ((const int8_t *)b)[2]; break;
        case EIR_I16: v = ((const int16_t *)b)[2]; break;
        case EIR_I32: v = ((const int32_t *)b)[2]; break;
        case EIR_I64: v = (double)((const int64_t *)b)[2]; break;
        case EIR_U8: v = b[2]; break;
        case EIR_U16: v = ((const uint16_t *)b)[2]; break;
        case EIR_BOOL: v = b[2] ? 2 : 0; break;          /* bool(2) is True */
        case EIR_C64: v = ((const float *)b)[4]; break;   /* real part of element 2 */
        case EIR_C128: v = ((const double *)b)[4]; break;
        case EIR_F16: v = ((const uint16_t *)b)[2] == 0x4000 ? 2 : -1; break;  /* 2.0 in binary16 */
        case EIR_BF16: v = ((const uint16_t *)b)[2] == 0x4000 ? 2 : -1; break; /* 2.0 in bfloat16 */
        default: break;
        }
        CHECK(v == 2);
        if (v != 2) fprintf(stderr, "  %s: element 2 read as %g\n", dts[i].fqn, v);
    }
    eir_program_free(p);
}

static void test_symbolic(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/dynamic_shapes.pt2", dir);
    eir_program *p = NULL;
    CHECK(eir_program_load(path, &p) == EIR_OK);
    CHECK(eir_program_num_ranges(p) >= 1);
    const eir_range *r = eir_program_range(p, 0);
    CHECK(r && r->symbol[0] == 's' && r->has_min);
    /* some user input has a symbolic dim whose str() is a range symbol */
    bool found = false;
    const eir_graph *g = eir_program_graph(p);
    for (uint32_t i = 0; i < g->num_values; i++) {
        const eir_value *v = &g->values[i];
        if (v->producer != -1 || v->kind != EIR_VALUE_TENSOR) continue;
        for (uint32_t d = 0; d < v->meta.rank; d++)
            if (v->meta.sizes[d].is_expr && !strcmp(eir_expr_str(p, v->meta.sizes[d].expr), r->symbol)) found = true;
    }
    CHECK(found);
    eir_program_free(p);
}

static void test_nested_graph(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/cond.pt2", dir);
    eir_program *p = NULL;
    CHECK(eir_program_load(path, &p) == EIR_OK);
    const eir_graph *g = eir_program_graph(p);
    int graphs = 0;
    for (uint32_t i = 0; i < g->num_nodes; i++)
        for (uint32_t k = 0; k < g->nodes[i].num_inputs; k++)
            if (g->nodes[i].inputs[k].arg.kind == EIR_ARG_GRAPH) {
                graphs++;
                CHECK(g->nodes[i].inputs[k].arg.u.graph.graph->num_nodes > 0);
            }
    CHECK(graphs == 2);
    eir_program_free(p);
}

static void test_errors(void) {
    eir_program *p = NULL;
    CHECK(eir_program_load_buffer("not a zip at all, definitely not", 32, &p) == EIR_ERR_ARCHIVE);
    CHECK(strstr(eir_errmsg(p), "not a ZIP") != NULL);
    char *text = (char *)1;
    CHECK(eir_program_print(p, EIR_PRINT_GRAPH, &text) == EIR_ERR_ARG && text == NULL);
    eir_program_free(p);
    CHECK(eir_program_load("/nonexistent.pt2", &p) == EIR_ERR_IO);
    CHECK(strstr(eir_errmsg(p), "/nonexistent.pt2") != NULL);
    eir_program_free(p);
    CHECK(eir_program_load_buffer(NULL, 0, &p) == EIR_ERR_ARCHIVE);
    eir_program_free(p);
    CHECK(eir_program_load(NULL, NULL) == EIR_ERR_ARG);
    CHECK_STR(eir_errmsg(NULL), "out of memory");
    eir_program_free(NULL);
    /* every prefix of a valid archive fails cleanly */
    size_t len;
    char *data = slurp("mlp.pt2", &len);
    if (data) {
        for (size_t cut = 0; cut < len; cut += len / 97 + 1) {
            char *copy = malloc(cut + 1);
            memcpy(copy, data, cut);
            eir_status st = eir_program_load_buffer(copy, cut, &p);
            CHECK(st != EIR_OK && eir_errmsg(p)[0] != 0);
            eir_program_free(p);
            free(copy);
        }
        free(data);
    }
    CHECK(strcmp(eir_dtype_abbr(EIR_BF16), "bf16") == 0 && eir_dtype_size(EIR_C128) == 16);
    CHECK(eir_dtype_abbr((eir_dtype)99) == NULL && eir_dtype_size((eir_dtype)99) == 0);
}

int main(void) {
    dir = getenv("EIR_FIXTURES");
    if (!dir) dir = "tests/e2e/fixtures";
    test_mlp();
    test_shared_storage();
    test_storage();
    test_symbolic();
    test_nested_graph();
    test_errors();
    return check_summary("test_api");
}
