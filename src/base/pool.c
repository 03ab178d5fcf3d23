/* pool.c — the thread pool of a runtime (see pool.h): workers that wait for
 * a generation counter to move, run their chunk of the loop, and count down
 * the workers still busy with it.
 *
 * Hand-off: the caller writes the loop (fn, ctx, n, chunks), then bumps the
 * generation under the mutex and broadcasts; a worker that sees a new
 * generation (spinning, or woken) reads the loop and runs its chunk. The
 * last worker to finish signals `done` under the mutex. The caller spins on
 * the pending count for a while before sleeping on `done`; workers spin on
 * the generation before sleeping on `wake`. Every worker counts down once per
 * loop, with or without a chunk of it, so no worker still reads a loop when
 * the caller writes the next. Spinning is bounded (SPIN_ITERS pauses, some
 * tens of microseconds): cores are often shared with other work, and an idle
 * thread that kept spinning would take a core from whoever needs it. */
#include "pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define cpu_relax() _mm_pause()
#else
#define cpu_relax() ((void)0)
#endif

enum { SPIN_ITERS = 4000 };

int eir_pool_split_all;

typedef struct worker {
    eir_pool *pool;
    int id;                     /* 1 .. T-1: the chunk this worker runs */
    pthread_t tid;
} worker;

struct eir_pool {
    int nthreads;
    int nworkers;               /* started */
    worker *workers;
    pthread_mutex_t mu;
    pthread_cond_t wake, done;
    atomic_uint_fast64_t gen;   /* bumped once per loop handed out */
    atomic_int pending;         /* workers not done with the current loop */
    atomic_bool stop;
    /* the loop in progress: written by the caller before gen moves */
    eir_pool_fn fn;
    void *ctx;
    int64_t n;
    int chunks;
};

/* set on workers for their lifetime, and on a caller while it runs a loop:
 * a parallel loop started there runs inline */
static _Thread_local bool in_parallel;
static _Thread_local eir_pool *current;

static void run_chunk(eir_pool *p, int k) {
    int64_t b = p->n * k / p->chunks, e = p->n * (k + 1) / p->chunks;
    if (e > b) p->fn(p->ctx, b, e);
}

static void *worker_main(void *arg) {
    worker *w = arg;
    eir_pool *p = w->pool;
    in_parallel = true;
    uint_fast64_t seen = 0;
    for (;;) {
        uint_fast64_t g = atomic_load_explicit(&p->gen, memory_order_acquire);
        for (int i = 0; i < SPIN_ITERS && g == seen && !atomic_load_explicit(&p->stop, memory_order_relaxed); i++) {
            cpu_relax();
            g = atomic_load_explicit(&p->gen, memory_order_acquire);
        }
        if (g == seen) {
            pthread_mutex_lock(&p->mu);
            while ((g = atomic_load_explicit(&p->gen, memory_order_acquire)) == seen && !atomic_load(&p->stop))
                pthread_cond_wait(&p->wake, &p->mu);
            pthread_mutex_unlock(&p->mu);
        }
        if (atomic_load(&p->stop)) break;
        seen = g;
        /* every worker acknowledges every loop, those without a chunk too: the
         * caller writes the next loop only after all have read this one */
        if (w->id < p->chunks) run_chunk(p, w->id);
        if (atomic_fetch_sub_explicit(&p->pending, 1, memory_order_acq_rel) == 1) {
            pthread_mutex_lock(&p->mu);
            pthread_cond_signal(&p->done);
            pthread_mutex_unlock(&p->mu);
        }
    }
    return NULL;
}

eir_pool *eir_pool_create(int nthreads) {
    if (nthreads <= 1) return NULL;
    eir_pool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->workers = calloc((size_t)nthreads - 1, sizeof *p->workers);
    if (!p->workers) { free(p); return NULL; }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    atomic_init(&p->gen, 0);
    atomic_init(&p->pending, 0);
    atomic_init(&p->stop, false);
    for (int i = 0; i < nthreads - 1; i++) {
        worker *w = &p->workers[i];
        w->pool = p;
        w->id = i + 1;
        if (pthread_create(&w->tid, NULL, worker_main, w) != 0) break;
        p->nworkers++;
    }
    if (p->nworkers < nthreads - 1) {  /* could not start them all: no pool */
        eir_pool_free(p);
        return NULL;
    }
    p->nthreads = nthreads;
    return p;
}

void eir_pool_free(eir_pool *p) {
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    atomic_store(&p->stop, true);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->nworkers; i++) pthread_join(p->workers[i].tid, NULL);
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->mu);
    free(p->workers);
    free(p);
}

int eir_pool_threads(const eir_pool *p) { return p ? p->nthreads : 1; }

int eir_pool_chunks(const eir_pool *p, int64_t n, int64_t grain) {
    if (!p || in_parallel || n <= 0) return 1;
    if (grain < 1 || eir_pool_split_all) grain = 1;
    int64_t c = (n + grain - 1) / grain;
    return c < p->nthreads ? (int)c : p->nthreads;
}

void eir_parallel_for(eir_pool *p, int64_t n, int64_t grain, eir_pool_fn fn, void *ctx) {
    if (n <= 0) return;
    int chunks = eir_pool_chunks(p, n, grain);
    if (chunks <= 1) {
        fn(ctx, 0, n);
        return;
    }
    p->fn = fn;
    p->ctx = ctx;
    p->n = n;
    p->chunks = chunks;
    atomic_store_explicit(&p->pending, p->nworkers, memory_order_relaxed);
    pthread_mutex_lock(&p->mu);
    atomic_fetch_add_explicit(&p->gen, 1, memory_order_release);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    in_parallel = true;
    run_chunk(p, 0);
    in_parallel = false;
    for (int i = 0; i < SPIN_ITERS && atomic_load_explicit(&p->pending, memory_order_acquire) > 0; i++) cpu_relax();
    if (atomic_load_explicit(&p->pending, memory_order_acquire) > 0) {
        pthread_mutex_lock(&p->mu);
        while (atomic_load_explicit(&p->pending, memory_order_acquire) > 0) pthread_cond_wait(&p->done, &p->mu);
        pthread_mutex_unlock(&p->mu);
    }
}

eir_pool *eir_pool_current(void) { return in_parallel ? NULL : current; }

eir_pool *eir_pool_enter(eir_pool *pool) {
    eir_pool *prev = current;
    current = pool;
    return prev;
}

void eir_pool_leave(eir_pool *prev) { current = prev; }

int eir_cpu_count(void) {
#ifdef CPU_COUNT
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int c = CPU_COUNT(&set);
        if (c >= 1) return c;
    }
#endif
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    return c >= 1 ? (int)c : 1;
}
