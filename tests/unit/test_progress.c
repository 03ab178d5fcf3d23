/* test_progress.c — eir_set_progress through the public API: loading and
 * writing report their payload bytes, monotonically, ending with done ==
 * total; the total is the program's stored bytes; the callback is the calling
 * thread's only; NULL switches it off. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "eir.h"

typedef struct seen {
    int calls, regressions;
    char what[32];
    uint64_t last_done, last_total;
    int other_what;  /* calls whose `what` changed within one operation */
} seen;

static void on_progress(void *user, const char *what, uint64_t done, uint64_t total) {
    seen *s = user;
    if (s->calls && strcmp(s->what, what) != 0) s->other_what++;
    if (s->calls && !strcmp(s->what, what) && done < s->last_done) s->regressions++;
    if (done > total) s->regressions++;
    snprintf(s->what, sizeof s->what, "%s", what);
    s->calls++;
    s->last_done = done;
    s->last_total = total;
}

/* Bytes of the distinct payload records of a program. */
static uint64_t stored_bytes(const eir_program *p) {
    uint64_t sum = 0;
    uint32_t n = eir_program_num_tensors(p);
    for (uint32_t i = 0; i < n; i++) {
        const eir_tensor *t = eir_program_tensor(p, i);
        bool dup = false;
        for (uint32_t j = 0; j < i && t->record; j++) {
            const eir_tensor *u = eir_program_tensor(p, j);
            if (u->record && !strcmp(u->record, t->record)) dup = true;
        }
        if (!dup && t->data) sum += t->storage_nbytes;
    }
    return sum;
}

static void *save_elsewhere(void *arg) {
    eir_program *p = arg;
    void *data = NULL;
    size_t size = 0;
    eir_status st = eir_program_save_buffer(p, &data, &size);
    eir_free(data);
    return (void *)(intptr_t)st;
}

int main(void) {
    seen s = {0};
    eir_set_progress(on_progress, &s);
    eir_program *p = NULL;
    CHECK(eir_program_load("examples/mlp.pt2", &p) == EIR_OK);
    if (!p) return 1;
    uint64_t bytes = stored_bytes(p);
    CHECK(bytes > 0);
    CHECK(s.calls >= 1);
    CHECK_STR(s.what, "loading");
    CHECK(s.last_done == s.last_total);
    CHECK(s.last_total == bytes);
    CHECK(s.regressions == 0 && s.other_what == 0);

    memset(&s, 0, sizeof s);
    void *data = NULL;
    size_t size = 0;
    CHECK(eir_program_save_buffer(p, &data, &size) == EIR_OK);
    CHECK(s.calls >= 1);
    CHECK_STR(s.what, "writing");
    CHECK(s.last_done == s.last_total && s.last_total == bytes);
    CHECK(s.regressions == 0 && s.other_what == 0);

    /* the written archive loads back with the same report */
    memset(&s, 0, sizeof s);
    eir_program *q = NULL;
    CHECK(eir_program_load_buffer(data, size, &q) == EIR_OK);
    CHECK_STR(s.what, "loading");
    CHECK(s.last_total == bytes && s.last_done == bytes);
    eir_program_free(q);

    /* another thread has no callback: nothing reaches this one's */
    memset(&s, 0, sizeof s);
    pthread_t th;
    void *ret = NULL;
    CHECK(pthread_create(&th, NULL, save_elsewhere, p) == 0);
    CHECK(pthread_join(th, &ret) == 0);
    CHECK((intptr_t)ret == EIR_OK);
    CHECK(s.calls == 0);

    /* an archive of torch 2.8 (pickled weights): loading reports its pickle */
    memset(&s, 0, sizeof s);
    eir_program *old = NULL;
    CHECK(eir_program_load("tests/legacy/buffer_mutation.v28.pt2", &old) == EIR_OK);
    CHECK(s.calls >= 1);
    CHECK_STR(s.what, "loading");
    CHECK(s.last_done == s.last_total && s.last_total > 0);
    CHECK(s.regressions == 0);
    eir_program_free(old);

    /* switched off */
    eir_set_progress(NULL, NULL);
    memset(&s, 0, sizeof s);
    eir_free(data);
    data = NULL;
    CHECK(eir_program_save_buffer(p, &data, &size) == EIR_OK);
    CHECK(s.calls == 0);
    eir_free(data);
    eir_program_free(p);
    return check_summary("test_progress");
}
