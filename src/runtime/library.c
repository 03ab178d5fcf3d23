/* library.c — eir_library: a set of custom operators (qualified name, parsed
 * schema, shape function, kernel) that runtimes bind custom-op nodes to. */
#include "library.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct eir_library {
    eir_arena arena;             /* schemas and names */
    eir_custom_op *ops;
    uint32_t nops, cap;
    char errmsg[1024];
};

eir_status eir_library_create(eir_library **out) {
    if (!out) return EIR_ERR_ARG;
    eir_library *lib = *out = calloc(1, sizeof *lib);
    if (!lib) return EIR_ERR_NOMEM;
    eir_arena_init(&lib->arena);
    return EIR_OK;
}

void eir_library_free(eir_library *lib) {
    if (!lib) return;
    free(lib->ops);
    eir_arena_release(&lib->arena);
    free(lib);
}

const char *eir_library_errmsg(const eir_library *lib) { return lib ? lib->errmsg : "out of memory"; }

eir_status eir_library_define(eir_library *lib, const char *qualname, const char *schema, eir_op_shape_fn shape,
                              eir_op_kernel kernel, void *user) {
    if (!lib) return EIR_ERR_ARG;
    lib->errmsg[0] = 0;
    if (!kernel) {
        snprintf(lib->errmsg, sizeof lib->errmsg, "%s: no kernel given", qualname ? qualname : "custom operator");
        return EIR_ERR_ARG;
    }
    eir_parsed_schema ps;
    if (!eir_schema_parse(qualname, schema, &lib->arena, &ps, lib->errmsg, sizeof lib->errmsg)) return EIR_ERR_ARG;
    for (uint32_t i = 0; i < lib->nops; i++)
        if (!strcmp(lib->ops[i].schema.target, ps.target)) {
            snprintf(lib->errmsg, sizeof lib->errmsg, "%s is already defined in this library (as %s)", ps.qualname,
                     lib->ops[i].schema.text);
            return EIR_ERR_ARG;
        }
    if (lib->nops == lib->cap) {
        uint32_t cap = lib->cap ? lib->cap * 2 : 8;
        eir_custom_op *ops = realloc(lib->ops, cap * sizeof *ops);
        if (!ops) { snprintf(lib->errmsg, sizeof lib->errmsg, "out of memory"); return EIR_ERR_NOMEM; }
        lib->ops = ops;
        lib->cap = cap;
    }
    lib->ops[lib->nops++] = (eir_custom_op){ps, shape, kernel, user};
    return EIR_OK;
}

const eir_custom_op *eir_library_find(const eir_library *lib, const char *target) {
    if (!lib || !target) return NULL;
    if (!strncmp(target, "torch.ops.", 10)) target += 10;
    for (uint32_t i = 0; i < lib->nops; i++)
        if (!strcmp(lib->ops[i].schema.target, target)) return &lib->ops[i];
    return NULL;
}
