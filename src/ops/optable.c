/* optable.c — lookup in the generated ATen schema table. */
#include "optable.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schemas.inc"

static int cmp(const void *key, const void *row) {
    return strcmp((const char *)key, ((const eir_op_schema *)row)->name);
}

const eir_op_schema *eir_op_find(const char *name) {
    if (!name) return NULL;
    if (!strncmp(name, "torch.ops.", 10)) name += 10;
    const eir_op_schema *s = bsearch(name, EIR_OP_SCHEMAS, sizeof EIR_OP_SCHEMAS / sizeof EIR_OP_SCHEMAS[0],
                                     sizeof EIR_OP_SCHEMAS[0], cmp);
    return s ? s : eir_backend_op_find(name);
}

static int cmp_mut(const void *key, const void *row) {
    return strcmp((const char *)key, ((const eir_op_mutates *)row)->name);
}

uint64_t eir_op_mutates_args(const eir_op_schema *op) {
    if (!op) return 0;
    const eir_op_mutates *m = bsearch(op->name, EIR_OP_MUTATES, sizeof EIR_OP_MUTATES / sizeof EIR_OP_MUTATES[0],
                                      sizeof EIR_OP_MUTATES[0], cmp_mut);
    return m ? m->args : 0;
}

const eir_op_schema *eir_op_functional(const eir_op_schema *o, uint32_t *nouts) {
    if (!o || !(o->flags & EIR_OPF_OUT)) return NULL;
    uint32_t k = 0;
    while (k < o->nargs && o->args[o->nargs - 1 - k].kwarg_only && o->args[o->nargs - 1 - k].type == EIR_ST_TENSOR) k++;
    if (k == 0 || k != o->nreturns) return NULL;
    /* siblings share the "aten.name." prefix and sit next to each other in the sorted table */
    const char *dot = strrchr(o->name, '.');
    size_t plen = (size_t)(dot - o->name) + 1;
    size_t n = sizeof EIR_OP_SCHEMAS / sizeof EIR_OP_SCHEMAS[0];
    size_t i = (size_t)(o - EIR_OP_SCHEMAS);
    while (i > 0 && !strncmp(EIR_OP_SCHEMAS[i - 1].name, o->name, plen)) i--;
    for (; i < n && !strncmp(EIR_OP_SCHEMAS[i].name, o->name, plen); i++) {
        const eir_op_schema *f = &EIR_OP_SCHEMAS[i];
        if (f->flags & (EIR_OPF_OUT | EIR_OPF_INPLACE | EIR_OPF_VIEW) || eir_op_mutates_args(f) || f->nargs != o->nargs - k ||
            f->nreturns != k || strchr(f->name + plen, '.'))
            continue;
        bool same = true;
        for (uint32_t a = 0; a < f->nargs && same; a++)
            same = !strcmp(f->args[a].name, o->args[a].name) && f->args[a].type == o->args[a].type &&
                   f->args[a].kwarg_only == o->args[a].kwarg_only;
        if (same) {
            if (nouts) *nouts = k;
            return f;
        }
    }
    return NULL;
}

const eir_op_schema *eir_op_inplace_functional(const eir_op_schema *o) {
    if (!o || !(o->flags & EIR_OPF_FUNCTIONAL)) return NULL;
    const char *dot = strrchr(o->name, '.');
    char name[160];
    size_t base = (size_t)(dot - o->name);
    if (base < 2 || base >= sizeof name || o->name[base - 1] != '_') return NULL;
    snprintf(name, sizeof name, "%.*s%s", (int)(base - 1), o->name, dot);
    return eir_op_find(name);
}

const eir_op_schema *eir_op_at(uint32_t i) { return i < eir_op_count() ? &EIR_OP_SCHEMAS[i] : NULL; }

uint32_t eir_op_count(void) { return (uint32_t)(sizeof EIR_OP_SCHEMAS / sizeof EIR_OP_SCHEMAS[0]); }
