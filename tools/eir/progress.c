/* progress.c — a one-line progress display on stderr for long operations
 * (loading an archive that must be inflated or unpickled, writing one, a
 * `run --repeat`). It is drawn only when stderr is a terminal, only once an
 * operation has lasted 0.3 s (EIR_PROGRESS_DELAY) (quick ones print nothing), at most ten times a
 * second, and erased when the operation ends, so that what the command prints
 * stays as it is. */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "eir.h"
#include "../../src/base/base.h" /* eir_snprintf: numbers in the C locale */

static struct {
    bool enabled, shown;
    const char *what;
    double start, last, delay;
} pg = {.delay = 0.3};

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void human(char *buf, size_t n, uint64_t bytes) {
    static const char *const unit[] = {"B", "kB", "MB", "GB", "TB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1000.0 && u < 4) { v /= 1000.0; u++; }
    if (u == 0) eir_snprintf(buf, n, "%llu B", (unsigned long long)bytes);
    else eir_snprintf(buf, n, "%.1f %s", v, unit[u]);
}

static void draw(const char *what, uint64_t done, uint64_t total, bool bytes) {
    if (!pg.enabled) return;
    double t = now();
    if (!pg.what || strcmp(pg.what, what) != 0 || done == 0) {
        if (pg.shown) fputs("\r\033[K", stderr);
        pg.what = what;
        pg.start = t;
        pg.last = 0;
        pg.shown = false;
    }
    if (done >= total) {
        if (pg.shown) fputs("\r\033[K", stderr);
        pg.shown = false;
        pg.what = NULL;
        fflush(stderr);
        return;
    }
    if (t - pg.start < pg.delay || t - pg.last < 0.1) return;
    pg.last = t;
    pg.shown = true;
    char line[160], a[32], b[32];
    int pct = total ? (int)((double)done * 100.0 / (double)total) : 0;
    if (bytes) {
        human(a, sizeof a, done);
        human(b, sizeof b, total);
        eir_snprintf(line, sizeof line, "\r%s: %3d%% (%s of %s)\033[K", what, pct, a, b);
    } else {
        eir_snprintf(line, sizeof line, "\r%s: %llu of %llu\033[K", what, (unsigned long long)done,
                     (unsigned long long)total);
    }
    fputs(line, stderr);
    fflush(stderr);
}

static void on_progress(void *user, const char *what, uint64_t done, uint64_t total) {
    (void)user;
    draw(what, done, total, true);
}

void cli_progress_install(void) {
    const char *term = getenv("TERM");
    const char *off = getenv("EIR_NO_PROGRESS");
    pg.enabled = isatty(STDERR_FILENO) && !(term && !strcmp(term, "dumb")) && !(off && *off);
    /* EIR_PROGRESS_DELAY: seconds before the line appears (0.3; tests use 0) */
    const char *delay = getenv("EIR_PROGRESS_DELAY");
    if (delay && *delay) {
        char *end;
        double v = strtod(delay, &end);
        if (*end == 0 && v >= 0 && v < 3600) pg.delay = v;
    }
    if (pg.enabled) eir_set_progress(on_progress, NULL);
}

void cli_progress_steps(const char *what, uint64_t done, uint64_t total) { draw(what, done, total, false); }
