/* test_fuzz_regress.c — regression cases for defects the libFuzzer targets
 * (tests/fuzz/) found in the runtime; archives that must simply be refused
 * live in tests/bad/corpus instead. Run under ASan+UBSan by `make test`. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eir.h"
#include "check.h"

static void *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *b = n > 0 ? malloc((size_t)n) : NULL;
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); b = NULL; }
    fclose(f);
    *size = b ? (size_t)n : 0;
    return b;
}

/* Run the program in data[0..size) on inputs of ones (its recorded static
 * shapes); its first output's bytes go to out[0..*nout). */
static bool run_ones(const void *data, size_t size, unsigned char *out, size_t cap, size_t *nout) {
    eir_program *p = NULL;
    eir_runtime *rt = NULL;
    bool ok = false;
    float ones[64];
    for (int i = 0; i < 64; i++) ones[i] = 1.0f;
    if (eir_program_load_buffer(data, size, &p) != EIR_OK || eir_runtime_create(p, &rt) != EIR_OK) goto out;
    for (uint32_t i = 0; i < eir_runtime_num_inputs(rt); i++) {
        eir_io_info info;
        if (eir_runtime_input_info(rt, i, &info) != EIR_OK || info.dtype != EIR_F32) goto out;
        int64_t n = 1;
        for (uint32_t d = 0; d < info.rank; d++) n *= info.sizes[d];
        if (n > 64) goto out;
        eir_tensor_view v = {ones, EIR_F32, info.rank, info.sizes, NULL};
        if (eir_runtime_set_input(rt, i, &v) != EIR_OK) goto out;
    }
    eir_tensor_view y;
    if (eir_runtime_run(rt) != EIR_OK || eir_runtime_output(rt, 0, &y) != EIR_OK) goto out;
    size_t nb = (size_t)eir_tensor_numel(&y) * eir_dtype_size(y.dtype);
    if (nb > cap || !eir_tensor_is_contiguous(&y)) goto out;
    memcpy(out, y.data, nb);
    *nout = nb;
    ok = true;
out:
    if (!ok) fprintf(stderr, "  %s\n", rt ? eir_runtime_errmsg(rt) : eir_errmsg(p));
    eir_runtime_free(rt);
    eir_program_free(p);
    return ok;
}

/* Parameters are used in place from the archive. A program loaded from a
 * buffer at an odd address (or an archive whose record sits at an odd
 * offset) has misaligned payloads: the runtime reads those from an aligned
 * copy, with the same results. */
static void test_unaligned_payload(void) {
    size_t size;
    unsigned char *file = read_file("tests/bad/view_base.pt2", &size);
    CHECK(file != NULL);
    if (!file) return;
    unsigned char want[1024], got[1024];
    size_t nwant = 0, ngot = 0;
    CHECK(run_ones(file, size, want, sizeof want, &nwant));
    for (size_t off = 1; off < 8; off++) {
        unsigned char *buf = malloc(size + off);
        if (!buf) break;
        memcpy(buf + off, file, size);
        ngot = 0;
        CHECK(run_ones(buf + off, size, got, sizeof got, &ngot));
        CHECK(ngot == nwant && !memcmp(got, want, nwant));
        free(buf);
    }
    free(file);
}

int main(void) {
    test_unaligned_payload();
    return check_summary("test_fuzz_regress");
}
