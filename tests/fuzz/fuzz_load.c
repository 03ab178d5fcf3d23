/* fuzz_load.c — libFuzzer target: whole .pt2 archives from memory, then
 * every printer, info and the verifier (every dialect) on what loads. Seeds: tests/bad/corpus and the
 * fixtures. Build and run with `make fuzz` (needs clang). */
#include <stdint.h>
#include <stdlib.h>

#include "eir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    eir_program *p = NULL;
    if (eir_program_load_buffer(data, size, &p) == EIR_OK) {
        for (int f = EIR_PRINT_GRAPH; f <= EIR_PRINT_PROGRAM; f++) {
            char *t = NULL;
            if (eir_program_print(p, (eir_print_form)f, &t) == EIR_OK) eir_free(t);
        }
        char *t = NULL;
        if (eir_program_info(p, true, &t) == EIR_OK) eir_free(t);
        for (int d = EIR_DIALECT_ATEN; d <= EIR_DIALECT_EDGE; d++) {
            eir_verify_report *r = NULL;
            eir_program_verify(p, (eir_dialect)d, &r);
            if (r && eir_verify_report_format(r, d == EIR_DIALECT_EDGE, &t) == EIR_OK) eir_free(t);
            eir_verify_report_free(r);
        }
    }
    eir_program_free(p);
    return 0;
}
