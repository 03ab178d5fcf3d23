/* check.h — a minimal test harness for the C unit tests: CHECK records a
 * failure with file:line and keeps going; main() ends with check_summary(),
 * which prints 'N passed, M failed' and returns the exit code. */
#ifndef EIR_CHECK_H
#define EIR_CHECK_H
#include <stdio.h>
#include <string.h>

static int check_passed, check_failed;

#define CHECK(cond)                                                                    \
    do {                                                                               \
        if (cond) check_passed++;                                                      \
        else { check_failed++; fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); } \
    } while (0)

#define CHECK_STR(got, want)                                                           \
    do {                                                                               \
        const char *g_ = (got), *w_ = (want);                                          \
        if (g_ && w_ && strcmp(g_, w_) == 0) check_passed++;                           \
        else { check_failed++; fprintf(stderr, "%s:%d: got '%s', want '%s'\n", __FILE__, __LINE__, g_ ? g_ : "(null)", w_ ? w_ : "(null)"); } \
    } while (0)

static int check_summary(const char *name) {
    printf("%s: %d passed, %d failed\n", name, check_passed, check_failed);
    return check_failed ? 1 : 0;
}
#endif
