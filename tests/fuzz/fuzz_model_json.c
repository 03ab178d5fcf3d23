/* fuzz_model_json.c — libFuzzer target: the text of models/model.json
 * alone (JSON reader, schema decoding, symbolic expressions), then every
 * printer, info and the verifier in every dialect. Seeds: the fixtures' model.json records. */
#include <stdint.h>
#include <stdlib.h>

#include "ir/program.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    eir_program *p = eir_program_new_empty();
    if (!p) return 0;
    if (eir_serde_decode_model_json(p, (const char *)data, size) == EIR_OK) {
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
