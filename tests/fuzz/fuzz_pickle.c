/* fuzz_pickle.c — libFuzzer target: a torch.save archive (data.pkl and its
 * storages) through the restricted pickle reader and the torch tensor reader,
 * and the same bytes as a bare pickle. Seeds: the data.pkl records and whole
 * payloads of pickled tensors (tests/bad/pickle_base.pt2, tests/legacy). */
#include <stdint.h>
#include <stdlib.h>

#include "serde/pickle.h"
#include "serde/torchsave.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[512];
    eir_pk_reader *r = NULL;
    eir_pk *v;
    eir_pk_read(data, size, eir_torchsave_global_ok, NULL, &r, &v, err, sizeof err);
    eir_pk_reader_free(r);
    eir_arena a;
    eir_arena_init(&a);
    eir_ts_entry *e;
    uint32_t n;
    eir_torchsave_read(data, size, &a, &e, &n, err, sizeof err);
    eir_arena_release(&a);
    return 0;
}
