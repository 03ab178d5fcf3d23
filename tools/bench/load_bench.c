/* load_bench.c — time eir_program_load (map + parse + build + free) on one
 * file: `load_bench MODEL.pt2 [REPEAT]` prints the median and minimum in
 * microseconds. Used by python/bench/load_time.py. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "eir.h"

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: load_bench MODEL.pt2 [REPEAT]\n"); return 2; }
    int n = argc > 2 ? atoi(argv[2]) : 20;
    if (n < 1 || n > 100000) { fprintf(stderr, "load_bench: REPEAT must be 1..100000\n"); return 2; }
    double *t = malloc((size_t)n * sizeof *t);
    if (!t) return 1;
    for (int i = 0; i < n; i++) {
        double t0 = now_us();
        eir_program *p;
        eir_status st = eir_program_load(argv[1], &p);
        if (st != EIR_OK) { fprintf(stderr, "load_bench: %s\n", eir_errmsg(p)); eir_program_free(p); return 1; }
        eir_program_free(p);
        t[i] = now_us() - t0;
    }
    qsort(t, (size_t)n, sizeof *t, cmp);
    printf("median_us %.1f min_us %.1f runs %d\n", t[n / 2], t[0], n);
    free(t);
    return 0;
}
