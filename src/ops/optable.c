/* optable.c — lookup in the generated ATen schema table. */
#include "optable.h"

#include <stdlib.h>
#include <string.h>

#include "schemas.inc"

static int cmp(const void *key, const void *row) {
    return strcmp((const char *)key, ((const eir_op_schema *)row)->name);
}

const eir_op_schema *eir_op_find(const char *name) {
    if (!name) return NULL;
    if (!strncmp(name, "torch.ops.", 10)) name += 10;
    return bsearch(name, EIR_OP_SCHEMAS, sizeof EIR_OP_SCHEMAS / sizeof EIR_OP_SCHEMAS[0], sizeof EIR_OP_SCHEMAS[0],
                   cmp);
}

uint32_t eir_op_count(void) { return (uint32_t)(sizeof EIR_OP_SCHEMAS / sizeof EIR_OP_SCHEMAS[0]); }
