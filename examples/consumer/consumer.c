/* consumer.c — a C program using the installed eir library: load a .pt2,
 * run it on float32 inputs filled with a fixed pattern, print every output.
 *
 *     cc consumer.c $(pkg-config --cflags --libs eir) -o consumer
 *     ./consumer model.pt2
 *
 * Input element q holds ((q * 37) % 17) / 8 - 1 (exact in float32), so a
 * NumPy array built the same way gives `eir run` the same inputs
 * (tests/install/test_install.sh compares the two). */
#include <eir.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s MODEL.pt2\n", argv[0]);
        return 2;
    }
    int rc = 1;
    eir_program *p = NULL;
    eir_runtime *rt = NULL;
    float **bufs = NULL;
    uint32_t ni = 0;
    if (eir_program_load(argv[1], &p) != EIR_OK) {
        fprintf(stderr, "consumer: %s\n", eir_errmsg(p));
        goto out;
    }
    if (eir_runtime_create(p, &rt) != EIR_OK) {
        fprintf(stderr, "consumer: %s\n", rt ? eir_runtime_errmsg(rt) : "out of memory");
        goto out;
    }
    printf("eir %s\n", eir_version());
    ni = eir_runtime_num_inputs(rt);
    bufs = calloc(ni ? ni : 1, sizeof *bufs);
    if (!bufs) goto out;
    for (uint32_t i = 0; i < ni; i++) {
        eir_io_info info;
        eir_runtime_input_info(rt, i, &info);
        if (!info.is_tensor || info.dtype != EIR_F32) {
            fprintf(stderr, "consumer: input %u '%s' is not a float32 tensor\n", i, info.name);
            goto out;
        }
        int64_t n = 1;
        printf("input %u '%s': f32[", i, info.name);
        for (uint32_t d = 0; d < info.rank; d++) {
            if (info.sizes[d] < 0) {
                fprintf(stderr, "consumer: input %u '%s' has a symbolic size\n", i, info.name);
                goto out;
            }
            printf("%s%lld", d ? ", " : "", (long long)info.sizes[d]);
            n *= info.sizes[d];
        }
        printf("]\n");
        bufs[i] = malloc((size_t)(n ? n : 1) * sizeof(float));
        if (!bufs[i]) goto out;
        for (int64_t q = 0; q < n; q++) bufs[i][q] = (float)((q * 37) % 17) / 8.0f - 1.0f;
        eir_tensor_view v = {bufs[i], EIR_F32, info.rank, info.sizes, NULL};
        if (eir_runtime_set_input(rt, i, &v) != EIR_OK) {
            fprintf(stderr, "consumer: %s\n", eir_runtime_errmsg(rt));
            goto out;
        }
    }
    if (eir_runtime_run(rt) != EIR_OK) {
        fprintf(stderr, "consumer: %s\n", eir_runtime_errmsg(rt));
        goto out;
    }
    for (uint32_t i = 0; i < eir_runtime_num_outputs(rt); i++) {
        eir_io_info info;
        eir_tensor_view y;
        eir_runtime_output_info(rt, i, &info);
        if (eir_runtime_output(rt, i, &y) != EIR_OK) {
            fprintf(stderr, "consumer: %s\n", eir_runtime_errmsg(rt));
            goto out;
        }
        if (y.dtype != EIR_F32 || !eir_tensor_is_contiguous(&y)) {
            fprintf(stderr, "consumer: output %u is not a contiguous float32 tensor\n", i);
            goto out;
        }
        printf("output %u '%s': %s[", i, info.name, eir_dtype_abbr(y.dtype));
        for (uint32_t d = 0; d < y.rank; d++) printf("%s%lld", d ? ", " : "", (long long)y.sizes[d]);
        printf("] =");
        const float *f = (const float *)y.data;
        for (int64_t q = 0; q < eir_tensor_numel(&y); q++) printf(" %.6g", f[q]);
        printf("\n");
    }
    rc = 0;
out:
    for (uint32_t i = 0; bufs && i < ni; i++) free(bufs[i]);
    free(bufs);
    eir_runtime_free(rt);
    eir_program_free(p);
    return rc;
}
