/* fixture.h — committed fixtures for the C tests: load V.pt2 and the .npy
 * files next to it (python/tools/make_fixtures.py), and compare a runtime's
 * tensor with torch's recorded one in any dtype the fixtures use. */
#ifndef EIR_FIXTURE_H
#define EIR_FIXTURE_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eir.h"
#include "../../tools/eir/npy.c"

static const char *fixture_dir = "tests/e2e/fixtures";

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

/* NAME.npy in the fixture directory; false (quietly when `quiet`) if absent */
static bool load_npy_q(const char *name, npy_array *a, bool quiet) {
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/%s.npy", fixture_dir, name);
    if (!npy_read(path, a, err, sizeof err)) {
        if (!quiet) fprintf(stderr, "%s\n", err);
        return false;
    }
    return true;
}

static bool load_npy(const char *name, npy_array *a) { return load_npy_q(name, a, false); }

static eir_tensor_view view_of(const npy_array *a) {
    return (eir_tensor_view){a->data, a->dtype, a->rank, a->sizes, a->strides};
}

/* A runtime for program p (custom operators from lib) with fixture `name`'s
 * recorded inputs V.in_<i>.npy set; they are loaded into in[0..max) (caller
 * frees their data; the runtime writes back the ones the program mutates).
 * NULL after a message when something fails. */
static inline eir_runtime *fixture_runtime(eir_program *p, const eir_library *lib, const char *name, npy_array *in,
                                    uint32_t max) {
    eir_runtime *rt = NULL;
    if (eir_runtime_create_with(p, lib, &rt) != EIR_OK) {
        fprintf(stderr, "  %s: %s\n", name, eir_runtime_errmsg(rt));
        eir_runtime_free(rt);
        return NULL;
    }
    uint32_t ni = eir_runtime_num_inputs(rt);
    memset(in, 0, max * sizeof *in);
    for (uint32_t i = 0; i < ni; i++) {
        char key[512];
        snprintf(key, sizeof key, "%s.in_%u", name, i);
        eir_tensor_view v;
        if (i >= max || !load_npy(key, &in[i]) || (v = view_of(&in[i]), eir_runtime_set_input(rt, i, &v)) != EIR_OK) {
            fprintf(stderr, "  %s: cannot set input %u: %s\n", name, i, eir_runtime_errmsg(rt));
            for (uint32_t k = 0; k < max; k++) free(in[k].data);
            eir_runtime_free(rt);
            return NULL;
        }
    }
    return rt;
}

static inline double fixture_load(const void *base, eir_dtype dt, int64_t off) {
    switch (dt) {
    case EIR_F32: return ((const float *)base)[off];
    case EIR_F64: return ((const double *)base)[off];
    case EIR_I64: return (double)((const int64_t *)base)[off];
    case EIR_I32: return ((const int32_t *)base)[off];
    case EIR_BF16: {
        uint32_t u = (uint32_t)((const uint16_t *)base)[off] << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    case EIR_BOOL: case EIR_U8: return ((const uint8_t *)base)[off];
    default: return NAN;
    }
}

/* got (any strides) equals want (C order) within rtol/atol; prints the first difference */
static inline bool view_close(const eir_tensor_view *got, const npy_array *want, double rtol, double atol, const char *what) {
    if (got->rank != want->rank) {
        fprintf(stderr, "%s: rank %u, torch %u\n", what, got->rank, want->rank);
        return false;
    }
    int64_t n = 1;
    for (uint32_t d = 0; d < want->rank; d++) {
        if (got->sizes[d] != want->sizes[d]) {
            fprintf(stderr, "%s: size %lld in dim %u, torch %lld\n", what, (long long)got->sizes[d], d,
                    (long long)want->sizes[d]);
            return false;
        }
        n *= want->sizes[d];
    }
    for (int64_t k = 0; k < n; k++) {
        int64_t off = 0, rem = k;
        for (uint32_t d = got->rank; d-- > 0;) {
            int64_t st = 1;
            if (got->strides) st = got->strides[d];
            else for (uint32_t q = d + 1; q < got->rank; q++) st *= got->sizes[q];
            off += (rem % got->sizes[d]) * st;
            rem /= got->sizes[d];
        }
        double g = fixture_load(got->data, got->dtype, off), w = fixture_load(want->data, want->dtype, k);
        if (!(fabs(g - w) <= atol + rtol * fabs(w))) {
            fprintf(stderr, "%s: element %lld is %.9g, torch %.9g\n", what, (long long)k, g, w);
            return false;
        }
    }
    return true;
}

/* A view's elements in logical order (any strides), copied into a new buffer
 * (free it); NULL when out of memory. */
static inline unsigned char *view_bytes(const eir_tensor_view *v, size_t *bytes) {
    size_t es = eir_dtype_size(v->dtype);
    int64_t n = eir_tensor_numel(v);
    unsigned char *out = malloc((size_t)n * es + 1);
    if (!out) return NULL;
    int64_t idx[EIR_MAX_RANK] = {0};
    for (int64_t k = 0; k < n; k++) {
        int64_t off = 0, stride = 1;
        for (uint32_t d = v->rank; d-- > 0;) {
            off += idx[d] * (v->strides ? v->strides[d] : stride);
            stride *= v->sizes[d];
        }
        memcpy(out + (size_t)k * es, (const unsigned char *)v->data + off * (int64_t)es, es);
        for (uint32_t d = v->rank; d-- > 0;) {
            if (++idx[d] < v->sizes[d]) break;
            idx[d] = 0;
        }
    }
    *bytes = (size_t)n * es;
    return out;
}

#endif
