/* progress.h — the progress line `eir` draws on a terminal (stderr, TTY only). */
#ifndef EIR_CLI_PROGRESS_H
#define EIR_CLI_PROGRESS_H

#include <stdint.h>

/* Draw the library's progress (eir_set_progress) when stderr is a terminal
 * and the environment does not say otherwise (TERM=dumb, EIR_NO_PROGRESS). */
void cli_progress_install(void);
/* A step of a loop the CLI runs itself (`run --repeat`): step done of total. */
void cli_progress_steps(const char *what, uint64_t done, uint64_t total);

#endif
