/* torchsave.h — tensors from a torch.save ZIP (data.pkl + data/<key>
 * storages), read through the restricted pickle reader. Accepts only the
 * globals torch's serializer writes for tensors, parameters and the known
 * tensor subclasses; any other global is refused by name. */
#ifndef EIR_TORCHSAVE_H
#define EIR_TORCHSAVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"
#include "eir.h"

typedef struct eir_ts_tensor eir_ts_tensor;
struct eir_ts_tensor {
    const char *subclass;        /* "torch.testing._internal.two_tensor.TwoTensor", or NULL */
    bool is_param, requires_grad;
    eir_dtype dtype;
    uint32_t rank;
    int64_t *sizes, *strides;
    int64_t storage_offset;      /* elements */
    const uint8_t *data;         /* storage bytes; NULL for a wrapper subclass (no storage) */
    uint64_t nbytes;
    const char *storage_key;     /* "0": record data/<key> of the torch.save archive */
    uint32_t num_inner;          /* wrapper subclasses: the tensors in its state (TwoTensor: a, b) */
    const char **inner_names;
    eir_ts_tensor *inner;
};

typedef struct eir_ts_entry {
    const char *key;             /* dict key, or NULL when the pickle holds one tensor */
    eir_ts_tensor t;
} eir_ts_entry;

/* Reads the torch.save archive data[0..len). Its top-level value must be a
 * tensor (one entry, key NULL) or a dict from str to tensors. Stored storages
 * point into data (borrowed: keep it alive); everything else, and copies of
 * compressed storages, is allocated in arena. On failure returns false with a
 * message in err naming the record (data.pkl, data/<key>) and the problem. */
bool eir_torchsave_read(const uint8_t *data, size_t len, eir_arena *arena, eir_ts_entry **out, uint32_t *n,
                        char *err, size_t errlen);

/* The pickle policy of eir_torchsave_read, for other readers of torch pickles. */
bool eir_torchsave_global_ok(void *ctx, const char *module, const char *name);

#endif
