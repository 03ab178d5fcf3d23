/* fuzz_parse.c — libFuzzer target: the text form (eir_program_parse). The
 * input is parsed as program text; whatever parses is printed in all three
 * forms, must print the same program text again when its own program text
 * is parsed (a fixed point), is verified, and is saved to an archive that
 * must load. Seeds: the fixtures' printed programs (*.program.txt) and the
 * committed corpus. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    eir_program *p = NULL;
    if (eir_program_parse((const char *)data, size, &p) != EIR_OK) {
        const char *m = p ? eir_errmsg(p) : "";
        /* every failure names a place */
        if (p && !(m[0] >= '1' && m[0] <= '9') && strncmp(m, "out of memory", 13) != 0) {
            fprintf(stderr, "message without LINE:COLUMN: %s\n", m);
            abort();
        }
        eir_program_free(p);
        return 0;
    }
    char *text = NULL;
    for (int f = 0; f < 3; f++) {
        char *s = NULL;
        if (eir_program_print(p, (eir_print_form)f, &s) == EIR_OK && f == EIR_PRINT_PROGRAM) text = s;
        else eir_free(s);
    }
    if (text) {
        eir_program *q = NULL;
        if (eir_program_parse(text, strlen(text), &q) == EIR_OK) {
            char *again = NULL;
            if (eir_program_print(q, EIR_PRINT_PROGRAM, &again) == EIR_OK && strcmp(again, text) != 0) {
                fprintf(stderr, "printed text is not a fixed point:\n%s\n----\n%s\n", text, again);
                abort();
            }
            eir_free(again);
        }
        eir_program_free(q);
    }
    eir_free(text);
    eir_verify_report *r = NULL;
    (void)eir_program_verify(p, EIR_DIALECT_ATEN, &r);
    eir_verify_report_free(r);
    void *buf = NULL;
    size_t n = 0;
    if (eir_program_save_buffer(p, &buf, &n) == EIR_OK) {
        eir_program *c = NULL;
        if (eir_program_load_buffer(buf, n, &c) != EIR_OK) {
            fprintf(stderr, "a saved parsed program does not load: %s\n", eir_errmsg(c));
            abort();
        }
        eir_program_free(c);
    }
    eir_free(buf);
    eir_program_free(p);
    return 0;
}
