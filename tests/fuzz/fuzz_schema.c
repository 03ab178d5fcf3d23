/* fuzz_schema.c — libFuzzer target: custom-operator schema strings as
 * eir_library_define takes them (torch's schema syntax), with the qualified
 * name in front or given apart. Seeds: tests/fuzz/schemas.txt, one a line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "eir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int kernel(const eir_op_call *c) { (void)c; return 0; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *s = malloc(size + 1);
    if (!s) return 0;
    memcpy(s, data, size);
    s[size] = 0;
    eir_library *lib = NULL;
    if (eir_library_create(&lib) == EIR_OK) {
        eir_library_define(lib, NULL, s, NULL, kernel, NULL);
        eir_library_define(lib, "fuzz::op", s, NULL, kernel, NULL);
        (void)eir_library_errmsg(lib);
    }
    eir_library_free(lib);
    free(s);
    return 0;
}
