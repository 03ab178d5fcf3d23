/* guards.h — the checks torch's ep.module() runs on its inputs before the
 * graph, rebuilt from the archive and run by the runtime before each plan.
 *
 * torch 2.13 generates a _guards_fn for the unlifted module
 * (torch/export/_unlift.py): per user input, in order, each static dim
 * must equal its size ("x.size()[2] == 8"), a symbolic dim must repeat an
 * earlier input's dim with the same expression ("y.size()[0] ==
 * x.size()[0]") or else satisfy the expression's range (">= min" only when
 * min > 2 — torch lets dims be 0 or 1 — and "<= max"), a derived dim whose
 * symbol appears nowhere plain is solved from the first input and checked
 * on the others ("-2 + 2 * w.size()[0] == z.size()[0]"); then the program's
 * own guards_code. A failure raises "Guard failed: <the guard>" with
 * L['x'] written as x. eir builds the same list with the same texts, so its
 * refusals name the same violation. */
#ifndef EIR_GUARDS_H
#define EIR_GUARDS_H

#include "../ir/program.h"

typedef struct eir_guards eir_guards;

/* One user input as given to the runtime: a tensor's geometry, or a
 * symbolic int's value. */
typedef struct eir_guard_input {
    bool is_tensor, is_set;
    uint32_t rank;
    const int64_t *sizes;
    const int64_t *strides;      /* NULL: contiguous */
    int64_t value;               /* symbolic int inputs */
} eir_guard_input;

/* Build the guards of p's user inputs (USER_INPUT and CONSTANT_INPUT specs,
 * in order). NULL with a message in err when a guard cannot be parsed or
 * names an input the program does not have. */
eir_guards *eir_guards_build(const eir_program *p, char *err, size_t errlen);
void eir_guards_free(eir_guards *g);

/* torch's name of user input i in messages ("x", "p.x", "xs[1]['a']"). */
const char *eir_guards_path(const eir_guards *g, uint32_t i);
uint32_t eir_guards_count(const eir_guards *g);
/* Guard k's text as torch prints it in "Guard failed: ..." */
const char *eir_guards_text(const eir_guards *g, uint32_t k);

/* Run every guard in torch's order on the given inputs (one per user input).
 * false at the first failure, with a message naming the input (index, graph
 * name, torch's path), torch's "Guard failed: ..." text and the values. */
bool eir_guards_check(const eir_guards *g, const eir_guard_input *inputs, char *err, size_t errlen);

#endif
