/* fixture.h — loading the committed fixtures (tests/e2e/fixtures, or
 * $EIR_FIXTURES) in the C tests: programs and .npy arrays by name. */
#ifndef EIR_TEST_FIXTURE_H
#define EIR_TEST_FIXTURE_H
#include <stdio.h>

#include "eir.h"
#include "../../tools/eir/npy.c"

static const char *fixture_dir = "tests/e2e/fixtures";

/* NAME.pt2, or NULL after printing why */
static eir_program *load_fixture(const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.pt2", fixture_dir, name);
    eir_program *p = NULL;
    if (eir_program_load(path, &p) != EIR_OK) {
        fprintf(stderr, "cannot load %s: %s\n", path, eir_errmsg(p));
        eir_program_free(p);
        return NULL;
    }
    return p;
}

/* NAME.npy into a (caller frees a->data) */
static bool load_npy(const char *name, npy_array *a) {
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/%s.npy", fixture_dir, name);
    if (!npy_read(path, a, err, sizeof err)) { fprintf(stderr, "%s\n", err); return false; }
    return true;
}

static eir_tensor_view view_of(const npy_array *a) {
    return (eir_tensor_view){a->data, a->dtype, a->rank, a->sizes, a->strides};
}
#endif
