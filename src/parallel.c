/* A small persistent thread pool for ccgym_parallel_for. Between calls the
 * workers spin briefly on the job generation (a step loop calls again within
 * microseconds, and waking a sleeping thread costs tens of microseconds on a
 * virtual machine), then sleep on a condition variable. After fork() the
 * child has none of the parent's workers: a pthread_atfork handler forgets
 * them and the child starts its own when it first needs them (SB3's
 * SubprocVecEnv and multiprocessing's fork start method fork after threaded
 * steps). Windows has no fork. The threads, locks and clocks are
 * src/threads.h's (Win32 or pthreads), the atomics ccgym/portable.h's. */
#include <stdlib.h>

#include "ccgym/driver.h"
#include "ccgym/portable.h"
#include "threads.h"

#define CCGYM_MAX_THREADS 64
#define SPIN_NS 200000L /* how long an idle worker spins before it sleeps */

#define CPU_RELAX() CCGYM_CPU_RELAX()

typedef struct pool {
    ccgym_mutex mu;
    ccgym_cond work;          /* a new generation of chunks is ready */
    int n_workers;
    int sleepers;             /* workers waiting on `work` (under mu) */
    unsigned long generation; /* atomic: bumped once the job below is set */
    /* the current job, written before the generation is bumped */
    void (*fn)(void *ctx, size_t begin, size_t end);
    void *ctx;
    size_t n;
    int n_chunks;
    int remaining; /* atomic: worker chunks not yet finished */
} pool;

static pool g_pool = {CCGYM_MUTEX_INIT, CCGYM_COND_INIT, 0, 0, 0,
                      NULL, NULL, 0, 0, 0};
/* The generation current when worker k was started: it must not take that one
 * for new work (the caller is about to publish the next). */
static unsigned long g_start_generation[CCGYM_MAX_THREADS];
/* One parallel_for at a time; a concurrent caller runs its loop serially. */
static ccgym_mutex g_call = CCGYM_MUTEX_INIT;

static long long now_ns(void) { return ccgym_monotonic_ns(); }

static void chunk_bounds(size_t n, int n_chunks, int k, size_t *begin, size_t *end)
{
    *begin = n * (size_t)k / (size_t)n_chunks;
    *end = n * (size_t)(k + 1) / (size_t)n_chunks;
}

static unsigned long load_generation(void)
{
    return ccgym_atomic_load_acquire_ulong(&g_pool.generation);
}

/* Waits until the generation differs from `seen` and returns it. */
static unsigned long wait_for_work(unsigned long seen)
{
    unsigned long g;
    long long deadline = now_ns() + SPIN_NS;
    for (unsigned spins = 0; (g = load_generation()) == seen; spins++) {
        if ((spins & 255u) != 255u || now_ns() < deadline) {
            CPU_RELAX();
            continue;
        }
        ccgym_mutex_lock(&g_pool.mu);
        g_pool.sleepers++;
        while (g_pool.generation == seen)
            ccgym_cond_wait(&g_pool.work, &g_pool.mu);
        g_pool.sleepers--;
        ccgym_mutex_unlock(&g_pool.mu);
        deadline = now_ns() + SPIN_NS;
    }
    return g;
}

static void *worker_main(void *arg)
{
    const int id = (int)(size_t)arg; /* runs chunk id; chunk 0 is the caller's */
    unsigned long seen = g_start_generation[id];
    for (;;) {
        seen = wait_for_work(seen);
        if (id >= g_pool.n_chunks)
            continue;
        size_t begin, end;
        chunk_bounds(g_pool.n, g_pool.n_chunks, id, &begin, &end);
        g_pool.fn(g_pool.ctx, begin, end);
        ccgym_atomic_decrement_int(&g_pool.remaining);
    }
    return NULL;
}

static void forget_workers_in_child(void)
{
    ccgym_mutex_init(&g_pool.mu);
    ccgym_cond_init(&g_pool.work);
    ccgym_mutex_init(&g_call);
    g_pool.n_workers = 0;
    g_pool.sleepers = 0;
    g_pool.remaining = 0;
}

/* Starts workers 1..want-1 (caller holds g_call). Returns how many chunks can
 * run: 1 + the number of workers. */
static int ensure_workers(int want)
{
    while (g_pool.n_workers + 1 < want) {
        g_start_generation[g_pool.n_workers + 1] = load_generation();
        if (ccgym_thread_start(worker_main, (void *)(size_t)(g_pool.n_workers + 1)) != 0)
            break;
        g_pool.n_workers++;
    }
    return g_pool.n_workers + 1;
}

int ccgym_parallel_for(void (*fn)(void *ctx, size_t begin, size_t end), void *ctx,
                       size_t n, int n_threads)
{
    if (n_threads > CCGYM_MAX_THREADS)
        n_threads = CCGYM_MAX_THREADS;
    if ((size_t)n_threads > n)
        n_threads = (int)n;
    if (n_threads <= 1) {
        fn(ctx, 0, n);
        return 0;
    }
    if (!ccgym_mutex_trylock(&g_call)) {
        fn(ctx, 0, n);
        return 0;
    }
    ccgym_after_fork_in_child(forget_workers_in_child);
    int chunks = ensure_workers(n_threads);
    int status = chunks < n_threads ? -1 : 0;
    g_pool.fn = fn;
    g_pool.ctx = ctx;
    g_pool.n = n;
    g_pool.n_chunks = chunks;
    ccgym_atomic_store_relaxed_int(&g_pool.remaining, chunks - 1);
    ccgym_mutex_lock(&g_pool.mu);
    ccgym_atomic_store_release_ulong(&g_pool.generation, g_pool.generation + 1);
    if (g_pool.sleepers)
        ccgym_cond_broadcast(&g_pool.work);
    ccgym_mutex_unlock(&g_pool.mu);

    size_t begin, end;
    chunk_bounds(n, chunks, 0, &begin, &end);
    fn(ctx, begin, end);

    for (unsigned spins = 0; ccgym_atomic_load_acquire_int(&g_pool.remaining) > 0; spins++) {
        if ((spins & 1023u) == 1023u)
            ccgym_thread_yield(); /* a worker may have been preempted */
        else
            CPU_RELAX();
    }
    ccgym_mutex_unlock(&g_call);
    return status;
}
