/* pool.c — the thread pool of a runtime (see pool.h): workers that wait for
 * a loop to be published, claim its chunks one at a time, run them, and
 * count them down.
 *
 * A loop is published in one 64-bit word, `claim`: its generation (32 bits),
 * its number of chunks (16 bits) and the next chunk not yet claimed (16
 * bits). The caller writes the loop's description (fn, ctx, n), sets `left`
 * to the number of chunks and stores the word with chunk 0 already claimed
 * (it runs chunk 0 itself). Every thread, the caller included once chunk 0
 * is done, then claims the next chunk with a compare-and-swap on the word;
 * a claim fails once the generation has moved on, so a worker that comes
 * late never touches the next loop's chunks, and the loop's description is
 * read only by a thread holding one of its chunks (the caller writes the
 * next only after `left` reached 0). A chunk's bounds depend on n and the
 * chunk count only, never on which thread claims it, so results do not
 * either. A worker the scheduler has not run yet costs the caller nothing:
 * it runs the unclaimed chunks itself.
 *
 * Waiting: workers spin on the word for a while (the loops of one run follow
 * each other within microseconds; longer while a run is in progress, see
 * SPIN_ACTIVE_US), then sleep on `wake`; the caller takes
 * the mutex to wake them only when some are asleep, and wakes only as many
 * as the loop has chunks for. The caller spins on `left` for a while after
 * its own chunks, then sleeps on `done`, which the thread finishing the last
 * chunk signals when the caller said it sleeps. Both sleep/wake pairs order
 * their flag and their condition with sequentially consistent atomics (each
 * side writes its own, then reads the other's), so no wake-up is lost.
 * Spinning is bounded (tens of microseconds between runs, about 2 ms during
 * one, see below): cores are often shared with other work, and an idle thread
 * that kept spinning would take a core from whoever needs it. */
#include "pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define cpu_relax() _mm_pause()
#else
#define cpu_relax() ((void)0)
#endif

/* How long a thread spins before it sleeps, in microseconds of the clock (the
 * clock is read every 16 pauses: a pause takes ~10 ns on one x86 core and ~50 on
 * another, so counts of pauses made these spans 5x shorter on the first): a worker
 * between loops (SPIN_WORKER_US: a loop it misses costs nothing but its help,
 * the caller runs the chunks) and the caller waiting for the chunks others hold
 * (SPIN_CALLER_US: shorter than most chunks). Measured on MobileNetV2 on 2
 * threads of a loaded 2-core machine, 200 us for workers was 1.3x slower than
 * 20: a spinning worker takes its time slice from the threads that have work,
 * the caller's included. A loop is cut into at most CHUNKS_PER_THREAD chunks
 * per thread, so that a thread slowed down by other work on its core holds up
 * a small piece of the loop only. */
enum { SPIN_WORKER_US = 25, SPIN_CALLER_US = 100, CHUNKS_PER_THREAD = 4 };
/* While a run is in progress (eir_pool_enter .. eir_pool_leave), workers spin up to 2 ms for
 * the next loop instead of 25 us: the loops of a run are often further apart than 25 us (a
 * kernel that runs on one thread between them), and a worker woken from sleep for each loop
 * pays the wake-up and, after an idle spell, is placed on its waker's CPU. With 0.4 ms (the
 * span when it was counted in pauses, on a core whose pause takes 10 ns) ResNet-18 on two
 * threads, each run after 50 ms of idleness, ran a third of its runs at one thread's speed:
 * a worker whose virtual CPU the host held up past its spin went to sleep mid-run, and each
 * wake-up from then on put it on the caller's CPU. */
enum { SPIN_ACTIVE_US = 2000 };

/* Starved workers. A loop in which the caller, done with every chunk it could
 * claim, then slept waiting for a worker's chunk for longer than it spent on
 * its own (and longer than STARVED_US), found the worker without a core (other processes on the machine,
 * more runnable threads than cores): handing work over then costs more than
 * it saves, so the next BACKOFF_LOOPS loops run inline on the caller, and
 * then the pool tries again; each time in a row that the next try starves
 * too, twice as many loops (up to BACKOFF_MAX), so that a machine that stays
 * oversubscribed costs one bad loop in thousands. On a machine with a core
 * free for the worker this does not happen (the caller waits for at most one
 * chunk, never longer than it worked). A loop that had to wake sleeping workers
 * counts neither way: its wait may be the wake-up itself, and an idle virtual CPU
 * was measured to take over a millisecond to come back (each such loop then
 * sent the next 64, 128, ... 4096 loops inline: a two-thread run after a
 * pause as slow as one thread). And it takes STARVED_LOOPS starved loops in a
 * row: on an idle machine a single one happens too (one in ~150 loops of
 * ResNet-18 here: the worker's virtual CPU held up by the host), and cost
 * the next 64 loops at one thread's speed. Results are the same bits either
 * way. */
enum { BACKOFF_LOOPS = 64, BACKOFF_MAX = 4096, STARVED_LOOPS = 2 };
/* A wait counts as starved only from this long on: a preempted worker holds
 * the caller for a scheduler time slice (2.5-4.7 ms measured at load average
 * 4), while waking a sleeping thread costs tens of microseconds, which a
 * short loop's own work can be shorter than on an idle machine. */
#define STARVED_US 1000.0

int eir_pool_split_all;
int eir_pool_no_backoff;

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

typedef struct worker {
    eir_pool *pool;
    pthread_t tid;
} worker;

/* A worker woken onto the CPU of the caller that woke it. After an idle spell the kernel tends to
 * wake a sleeping thread on its waker's CPU (measured here: after 0.3 s of idleness both threads
 * of a two-thread run on CPU 0, the other CPU idle); since the worker sleeps again between loops,
 * each wake-up puts it back beside the caller and the two share one core for the whole run (BERT
 * encoder on 2 threads as slow as on 1). So a worker that finds itself there takes the caller's
 * CPU out of its affinity mask for a moment, which moves it to another allowed CPU, and then
 * restores the mask: the scheduler stays free to place it later, nothing is pinned. Workers check
 * when they take a loop and every ~50 us while spinning (sched_getcpu, a few nanoseconds); the two
 * system calls only when they share the caller's CPU. */
void eir_pool_leave_cpu(int caller_cpu) {
#ifdef CPU_COUNT
    if (caller_cpu < 0 || caller_cpu >= CPU_SETSIZE || sched_getcpu() != caller_cpu) return;
    cpu_set_t mask, other;
    if (sched_getaffinity(0, sizeof mask, &mask) != 0 || !CPU_ISSET(caller_cpu, &mask) || CPU_COUNT(&mask) < 2) return;
    other = mask;
    CPU_CLR(caller_cpu, &other);
    if (sched_setaffinity(0, sizeof other, &other) == 0) (void)sched_setaffinity(0, sizeof mask, &mask);
#else
    (void)caller_cpu;
#endif
}

#define CLAIM(gen, chunks, next) ((uint64_t)(gen) << 32 | (uint64_t)(chunks) << 16 | (uint64_t)(next))
#define CLAIM_GEN(w) ((uint32_t)((w) >> 32))
#define CLAIM_CHUNKS(w) ((int)(((w) >> 16) & 0xffff))
#define CLAIM_NEXT(w) ((int)((w) & 0xffff))

struct eir_pool {
    int nthreads;
    int nworkers;               /* started */
    worker *workers;
    pthread_mutex_t mu;
    pthread_cond_t wake, done;
    uint32_t gen;               /* the caller's: the generation of the last loop */
    int backoff;                /* the caller's: loops left to run inline (starved workers) */
    int backoff_next;           /* the caller's: loops inline after the next starved loop */
    int starved;                /* the caller's: starved loops in a row */
    /* the loop in progress: written by the caller before `claim` moves */
    eir_pool_fn fn;
    void *ctx;
    int64_t n;
    _Alignas(64) _Atomic uint64_t claim; /* CLAIM(gen, chunks, next chunk) */
    _Alignas(64) atomic_int left;        /* chunks of the loop not finished */
    atomic_int sleepers;                 /* workers asleep on `wake` */
    atomic_int caller_cpu;               /* the CPU the caller woke them from (-1: unknown) */
    atomic_bool waiting;                 /* the caller asleep on `done` */
    atomic_bool stop;
    atomic_bool active;                  /* a run is in progress on the caller (eir_pool_enter) */
};

/* set on workers for their lifetime, and on a caller while it runs a loop:
 * a parallel loop started there runs inline */
static _Thread_local bool in_parallel;
static _Thread_local eir_pool *current;

static void finish_chunk(eir_pool *p) {
    if (atomic_fetch_sub(&p->left, 1) == 1 && atomic_load(&p->waiting)) {
        pthread_mutex_lock(&p->mu);
        pthread_cond_signal(&p->done);
        pthread_mutex_unlock(&p->mu);
    }
}

/* Claim and run chunks of loop `gen` (w: the claim word last read) until none
 * is left. */
static void run_claimed(eir_pool *p, uint32_t gen, uint64_t w) {
    for (;;) {
        if (CLAIM_GEN(w) != gen || CLAIM_NEXT(w) >= CLAIM_CHUNKS(w)) return;
        if (!atomic_compare_exchange_weak_explicit(&p->claim, &w, w + 1, memory_order_acq_rel, memory_order_acquire))
            continue; /* w now holds the word another thread left */
        int64_t c = CLAIM_CHUNKS(w), k = CLAIM_NEXT(w);
        int64_t b = p->n * k / c, e = p->n * (k + 1) / c;
        if (e > b) p->fn(p->ctx, b, e);
        finish_chunk(p);
        w = atomic_load_explicit(&p->claim, memory_order_acquire);
    }
}

static void *worker_main(void *arg) {
    worker *w = arg;
    eir_pool *p = w->pool;
    in_parallel = true;
    uint32_t seen = 0;
    for (;;) {
        uint64_t c = atomic_load_explicit(&p->claim, memory_order_acquire);
        double until = now_us() + (atomic_load_explicit(&p->active, memory_order_relaxed) ? SPIN_ACTIVE_US : SPIN_WORKER_US);
        for (int i = 0; CLAIM_GEN(c) == seen && !atomic_load_explicit(&p->stop, memory_order_relaxed); i++) {
            cpu_relax();
            c = atomic_load_explicit(&p->claim, memory_order_acquire);
            if ((i & 15) == 15 && now_us() > until) break;
            if ((i & 1023) == 1023) eir_pool_leave_cpu(atomic_load_explicit(&p->caller_cpu, memory_order_relaxed));
        }
        if (CLAIM_GEN(c) == seen && !atomic_load(&p->stop)) {
            pthread_mutex_lock(&p->mu);
            atomic_fetch_add(&p->sleepers, 1);
            while (CLAIM_GEN(c = atomic_load(&p->claim)) == seen && !atomic_load(&p->stop))
                pthread_cond_wait(&p->wake, &p->mu);
            atomic_fetch_sub(&p->sleepers, 1);
            pthread_mutex_unlock(&p->mu);
        }
        if (!atomic_load(&p->stop)) eir_pool_leave_cpu(atomic_load_explicit(&p->caller_cpu, memory_order_relaxed));
        if (atomic_load(&p->stop)) break;
        seen = CLAIM_GEN(c);
        run_claimed(p, seen, c);
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
    atomic_init(&p->claim, CLAIM(0, 0, 0));
    atomic_init(&p->left, 0);
    atomic_init(&p->sleepers, 0);
    atomic_init(&p->caller_cpu, -1);
    atomic_init(&p->waiting, false);
    atomic_init(&p->stop, false);
    atomic_init(&p->active, false);
    for (int i = 0; i < nthreads - 1; i++) {
        worker *w = &p->workers[i];
        w->pool = p;
        if (pthread_create(&w->tid, NULL, worker_main, w) != 0) break;
        p->nworkers++;
    }
    if (p->nworkers < nthreads - 1) {  /* could not start them all: no pool */
        eir_pool_free(p);
        return NULL;
    }
    p->nthreads = nthreads;
    p->backoff_next = BACKOFF_LOOPS;
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

int eir_pool_sleeping(const eir_pool *p) { return p ? atomic_load((atomic_int *)&p->sleepers) : 0; }

int eir_pool_chunks(const eir_pool *p, int64_t n, int64_t grain) {
    if (!p || in_parallel || n <= 0) return 1;
    if (p->backoff > 0 && !eir_pool_split_all && !eir_pool_no_backoff) return 1;
    if (grain < 1 || eir_pool_split_all) grain = 1;
    int64_t c = (n + grain - 1) / grain, most = (int64_t)p->nthreads * CHUNKS_PER_THREAD;
    return c < most ? (int)c : (int)most;
}

static void parallel_run(eir_pool *p, int64_t n, int chunks, eir_pool_fn fn, void *ctx);

void eir_parallel_for(eir_pool *p, int64_t n, int64_t grain, eir_pool_fn fn, void *ctx) {
    if (n <= 0) return;
    parallel_run(p, n, eir_pool_chunks(p, n, grain), fn, ctx);
}

/* Coarse items (a product's column blocks, a millisecond each): cut into at most
 * CHUNKS_PER_THREAD chunks a thread they would make chunks of unequal work (12 blocks in 8
 * chunks: 1, 2, 1, 2, ... blocks; the two threads of a linear layer ended with 5 and 7 of them,
 * the caller idle for two blocks' time). Up to CHUNKS_PER_THREAD items a chunk, each item is a
 * chunk of its own. Not for fine items: kernels that set something up per call (a weight tile
 * packed, a row's borders) would pay for it per chunk (every loop cut this way measured
 * ResNet-18 7-9% slower on two threads in two runs, within this machine's noise; not pursued). */
void eir_parallel_items(eir_pool *p, int64_t n, eir_pool_fn fn, void *ctx) {
    if (n <= 0) return;
    int chunks = eir_pool_chunks(p, n, 1);
    int64_t most = p ? (int64_t)p->nthreads * CHUNKS_PER_THREAD : 1;
    if (p && chunks == most && n > most && n <= most * CHUNKS_PER_THREAD) chunks = (int)n;
    parallel_run(p, n, chunks, fn, ctx);
}

static void parallel_run(eir_pool *p, int64_t n, int chunks, eir_pool_fn fn, void *ctx) {
    if (chunks <= 1) {
        if (p && p->backoff > 0 && !in_parallel) p->backoff--;
        fn(ctx, 0, n);
        return;
    }
    p->fn = fn;
    p->ctx = ctx;
    p->n = n;
    uint32_t gen = ++p->gen;
    atomic_store_explicit(&p->left, chunks, memory_order_relaxed);
    atomic_store_explicit(&p->caller_cpu, sched_getcpu(), memory_order_relaxed);
    atomic_store(&p->claim, CLAIM(gen, chunks, 1)); /* chunk 0 is the caller's */
    int sleeping = atomic_load(&p->sleepers);
    if (sleeping > 0) {
        pthread_mutex_lock(&p->mu);
        for (int i = 0; i < chunks - 1 && i < sleeping; i++) pthread_cond_signal(&p->wake);
        pthread_mutex_unlock(&p->mu);
    }
    in_parallel = true;
    double t0 = now_us();
    int64_t e0 = n / chunks;
    if (e0 > 0) fn(ctx, 0, e0);
    finish_chunk(p);
    run_claimed(p, gen, atomic_load_explicit(&p->claim, memory_order_acquire));
    in_parallel = false;
    double until = now_us() + SPIN_CALLER_US;
    for (int i = 0; atomic_load_explicit(&p->left, memory_order_acquire) > 0; i++) {
        cpu_relax();
        if ((i & 15) == 15 && now_us() > until) break;
    }
    if (atomic_load_explicit(&p->left, memory_order_acquire) > 0) {
        double t1 = now_us();
        pthread_mutex_lock(&p->mu);
        atomic_store(&p->waiting, true);
        while (atomic_load(&p->left) > 0) pthread_cond_wait(&p->done, &p->mu);
        atomic_store(&p->waiting, false);
        pthread_mutex_unlock(&p->mu);
        double waited = now_us() - t1;
        if (waited > t1 - t0 && waited > STARVED_US) {
            if (sleeping > 0) return; /* perhaps only the wake-up: tells nothing */
            if (++p->starved < STARVED_LOOPS) return;
            p->starved = 0;
            p->backoff = p->backoff_next;
            p->backoff_next = p->backoff_next < BACKOFF_MAX / 2 ? 2 * p->backoff_next : BACKOFF_MAX;
            return;
        }
    }
    if (sleeping == 0) {
        p->backoff_next = BACKOFF_LOOPS;
        p->starved = 0;
    }
}

eir_pool *eir_pool_current(void) { return in_parallel ? NULL : current; }

eir_pool *eir_pool_enter(eir_pool *pool) {
    eir_pool *prev = current;
    current = pool;
    if (pool && pool != prev) atomic_store_explicit(&pool->active, true, memory_order_relaxed);
    return prev;
}

void eir_pool_leave(eir_pool *prev) {
    if (current && current != prev) atomic_store_explicit(&current->active, false, memory_order_relaxed);
    current = prev;
}

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
