/* library.h — the runtime's view of an eir_library: custom operators by the
 * target name graph nodes use. */
#ifndef EIR_LIBRARY_H
#define EIR_LIBRARY_H

#include "eir.h"
#include "../ops/schema.h"

typedef struct eir_custom_op {
    eir_parsed_schema schema;
    eir_op_shape_fn shape;       /* NULL: recorded shapes */
    eir_op_kernel kernel;
    void *user;
} eir_custom_op;

/* The operator a node target names ("torch.ops.mylib.sin.default" or
 * "mylib.sin.default"), or NULL. lib may be NULL. */
const eir_custom_op *eir_library_find(const eir_library *lib, const char *target);

#endif
