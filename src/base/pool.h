/* pool.h — the thread pool a runtime runs its kernels on: T - 1 worker
 * threads plus the thread that calls eir_parallel_for, created once (per
 * runtime) and reused by every parallel loop of every run.
 *
 * eir_parallel_for(pool, n, grain, fn, ctx) calls fn(ctx, begin, end) over
 * [0, n) cut into c contiguous chunks, chunk k = [n k / c, n (k+1) / c), with
 * c = min(4 T, ceil(n / grain)): the cut depends on n, grain and T only. The
 * calling thread runs chunk 0, then, like the workers, claims the chunks no
 * thread has taken yet, and returns when every chunk is done: a worker that
 * is slow to start (asleep, or its core busy with other work) leaves its
 * chunks to the others. Which thread runs a chunk varies from loop to loop;
 * what a chunk computes does not. It runs fn(ctx, 0, n) inline, on the
 * calling thread, when the pool is NULL or has one thread, when n <= grain,
 * and when called from inside a parallel loop (from a worker, or from the
 * caller's own chunk): nested loops never deadlock and never oversubscribe.
 *
 * Idle workers spin for a while (consecutive kernels of a run follow each
 * other closely; longer while a pool is entered, eir_pool_enter) and then
 * sleep on a condition variable, so a pool between runs costs no CPU; a
 * worker that finds itself on the caller's CPU moves to another one it may
 * run on (eir_pool_leave_cpu); a loop wakes only the sleeping workers it has chunks
 * for. After a loop whose caller waited longer for a worker's chunk than it
 * worked itself (the worker had no core: the machine is oversubscribed), the
 * next loops run inline for a while (pool.c, BACKOFF_LOOPS).
 *
 * A pool belongs to one thread at a time, like the runtime that owns it.
 *
 * Kernels that get no context (the fast paths in src/kernels/fast.c) reach
 * the pool of the run in progress on their thread with eir_pool_current():
 * the runtime installs its pool around a run with eir_pool_enter/leave. */
#ifndef EIR_BASE_POOL_H
#define EIR_BASE_POOL_H

#include <stdint.h>

typedef struct eir_pool eir_pool;

/* fn(ctx, begin, end): one chunk of a parallel loop. */
typedef void (*eir_pool_fn)(void *ctx, int64_t begin, int64_t end);

/* A pool of nthreads threads in all (the caller and nthreads - 1 workers).
 * nthreads <= 1 returns NULL, which eir_parallel_for accepts (everything runs
 * inline). NULL also when threads cannot be created (then everything runs
 * inline too, the same results). */
eir_pool *eir_pool_create(int nthreads);
void eir_pool_free(eir_pool *pool);

/* Threads in the pool (1 for NULL). */
int eir_pool_threads(const eir_pool *pool);

/* The chunks a loop of n items with this grain is cut into (1: inline). */
int eir_pool_chunks(const eir_pool *pool, int64_t n, int64_t grain);

void eir_parallel_for(eir_pool *pool, int64_t n, int64_t grain, eir_pool_fn fn, void *ctx);

/* eir_parallel_for of n coarse items of like work (grain 1): up to 4 items a thread, each item a
 * chunk of its own, so that no chunk holds twice another's work. */
void eir_parallel_items(eir_pool *pool, int64_t n, eir_pool_fn fn, void *ctx);

/* The pool installed on this thread (NULL outside a run, and on workers). */
eir_pool *eir_pool_current(void);
/* Install pool on this thread; returns the one installed before, which
 * eir_pool_leave puts back (runs nest: a higher-order op's subgraph). */
eir_pool *eir_pool_enter(eir_pool *pool);
void eir_pool_leave(eir_pool *prev);

/* Tests: 1 cuts every parallel loop into as many chunks as it may have
 * (min(4 T, n)), whatever its grain, and large-product thresholds drop too
 * (nn.c), so small programs exercise the threaded paths. Set it before
 * runs, not during one. */
extern int eir_pool_split_all;

/* Tests: 1 keeps every loop cut as eir_pool_chunks' formula says even after
 * a loop found its workers without a core (pool.c runs the loops after such
 * a loop inline for a while; eir_pool_split_all does the same). */
extern int eir_pool_no_backoff;

/* Called by a worker after a wake-up: when the calling thread runs on cpu
 * (the waker's) and may run elsewhere, it moves to another CPU of its
 * affinity mask, which is left as it was (pool.c says why). */
void eir_pool_leave_cpu(int cpu);

/* Tests: the workers asleep now (waiting to be woken for a loop). */
int eir_pool_sleeping(const eir_pool *pool);

/* The number of CPUs this process may run on (sched_getaffinity), >= 1. */
int eir_cpu_count(void);

#endif
