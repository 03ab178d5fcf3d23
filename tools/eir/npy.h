/* npy.h — NumPy .npy files for `eir run`: read into a malloc'd buffer with
 * shape and strides (C or Fortran order), write C-order arrays. */
#ifndef EIR_NPY_H
#define EIR_NPY_H

#include <stdbool.h>
#include <stdint.h>

#include "eir.h"

typedef struct npy_array {
    void *data;                 /* malloc'd, caller frees */
    eir_dtype dtype;            /* EIR_DTYPE_UNKNOWN for raw 2-byte void ('<V2') */
    bool raw16;                 /* '<V2' or '<u2' (bit patterns, e.g. bfloat16) */
    uint32_t rank;
    int64_t sizes[8];
    int64_t strides[8];         /* elements */
} npy_array;

/* false with a message in err on any problem (names the file and the field). */
bool npy_read(const char *path, npy_array *a, char *err, size_t errlen);
/* Write a C-order array of the given dtype; bfloat16 is written as float32
 * (exact), since NumPy has no bfloat16. false with a message on failure. */
bool npy_write(const char *path, const eir_tensor_view *v, char *err, size_t errlen);

#endif
