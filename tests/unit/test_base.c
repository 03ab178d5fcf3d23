/* test_base.c — arena, buffers, Python-compatible reprs, string map. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/base.h"
#include "check.h"

static void float_repr(double v, const char *want) {
    eir_buf b;
    eir_buf_init(&b);
    eir_buf_put_pyfloat(&b, v);
    CHECK_STR(b.data, want);
    eir_buf_free(&b);
}

static void str_repr(const char *s, const char *want) {
    eir_buf b;
    eir_buf_init(&b);
    eir_buf_put_pyrepr_str(&b, s);
    CHECK_STR(b.data, want);
    eir_buf_free(&b);
}

int main(void) {
    /* arena: zeroed, 16-byte aligned, survives many chunks */
    eir_arena a;
    eir_arena_init(&a);
    for (int i = 0; i < 10000; i++) {
        unsigned char *p = eir_arena_alloc(&a, (size_t)(i % 300) + 1);
        if (i < 50 || i % 1000 == 0) {
            CHECK(p != NULL);
            CHECK(((uintptr_t)p & 15) == 0);
            CHECK(p[0] == 0 && p[i % 300] == 0);
        }
    }
    CHECK(eir_arena_alloc(&a, SIZE_MAX) == NULL);
    CHECK(eir_arena_array(&a, SIZE_MAX / 2, 8) == NULL);
    CHECK_STR(eir_arena_strdup(&a, "hello"), "hello");
    eir_arena_release(&a);

    /* large allocations (a chunk of their own) mixed with small ones, the large first on an empty
     * arena: every block zeroed, aligned and apart from the others (each filled with its own byte
     * and read back after all are made) */
    eir_arena_init(&a);
    enum { NB = 40 };
    unsigned char *blk[NB];
    size_t len[NB];
    for (int i = 0; i < NB; i++) {
        len[i] = i % 4 == 0 ? (size_t)(256 * 1024 + 4096 * i + 3) : (size_t)(17 * i + 1);
        blk[i] = eir_arena_alloc(&a, len[i]);
        CHECK(blk[i] != NULL);
        if (!blk[i]) continue;
        CHECK(((uintptr_t)blk[i] & 15) == 0);
        size_t nz = 0;
        for (size_t k = 0; k < len[i]; k++) nz += blk[i][k] != 0;
        CHECK(nz == 0);
        memset(blk[i], i + 1, len[i]);
    }
    for (int i = 0; i < NB; i++) {
        size_t bad = 0;
        for (size_t k = 0; blk[i] && k < len[i]; k++) bad += blk[i][k] != (unsigned char)(i + 1);
        CHECK(bad == 0);
    }
    eir_arena_release(&a);

    /* Python repr() of floats (values checked against CPython) */
    float_repr(1.0, "1.0");
    float_repr(0.5, "0.5");
    float_repr(1e-05, "1e-05");
    float_repr(0.0001, "0.0001");
    float_repr(1e16, "1e+16");
    float_repr(1234567890123456.0, "1234567890123456.0");
    float_repr(12345678901234567.0, "1.2345678901234568e+16");
    float_repr(0.1, "0.1");
    float_repr(-0.0, "-0.0");
    float_repr(3.5, "3.5");
    float_repr(1.0 / 3, "0.3333333333333333");
    float_repr(INFINITY, "inf");
    float_repr(-INFINITY, "-inf");
    float_repr(NAN, "nan");
    float_repr(1.7976931348623157e308, "1.7976931348623157e+308");
    float_repr(5e-324, "5e-324");
    float_repr(100.0, "100.0");
    float_repr(-2.5e-7, "-2.5e-07");

    /* Python repr() of str */
    str_repr("floor", "'floor'");
    str_repr("it's", "\"it's\"");
    str_repr("a'b\"c", "'a\\'b\"c'");
    str_repr("tab\there\n", "'tab\\there\\n'");

    /* buffer formatting */
    eir_buf b;
    eir_buf_init(&b);
    eir_buf_printf(&b, "%d-%s", 42, "x");
    eir_buf_putc(&b, '!');
    CHECK_STR(b.data, "42-x!");
    char *t = eir_buf_take(&b);
    CHECK_STR(t, "42-x!");
    free(t);

    /* string map: many keys, overwrite, misses */
    eir_strmap m;
    eir_strmap_init(&m);
    static char keys[5000][16];
    for (int i = 0; i < 5000; i++) {
        snprintf(keys[i], sizeof keys[i], "k%d", i);
        CHECK(eir_strmap_put(&m, keys[i], (uint32_t)i));
    }
    uint32_t v = 0;
    CHECK(eir_strmap_get(&m, "k4321", &v) && v == 4321);
    CHECK(!eir_strmap_get(&m, "k5000", &v));
    CHECK(eir_strmap_put(&m, keys[7], 99) && eir_strmap_get(&m, "k7", &v) && v == 99);
    CHECK(m.count == 5000);
    eir_strmap_free(&m);

    /* mapping a missing file reports the path */
    eir_mapped mf;
    char err[256];
    CHECK(!eir_map_file("/nonexistent/eir.pt2", &mf, err, sizeof err));
    CHECK(strstr(err, "/nonexistent/eir.pt2") != NULL);
    return check_summary("test_base");
}
