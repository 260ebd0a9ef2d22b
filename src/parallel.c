/* A small persistent thread pool for ccgym_parallel_for. Workers sleep on a
 * condition variable between calls, so a call costs a wake-up, not a thread
 * creation. After fork() the child has none of the parent's workers: a
 * pthread_atfork handler forgets them and the child starts its own when it
 * first needs them (SB3's SubprocVecEnv and multiprocessing's fork start
 * method fork after threaded steps). */
#include <pthread.h>
#include <stdlib.h>

#include "ccgym/driver.h"

#define CCGYM_MAX_THREADS 64

typedef struct pool {
    pthread_mutex_t mu;
    pthread_cond_t work;      /* a new generation of chunks is ready */
    pthread_cond_t done;      /* the last chunk of a generation finished */
    int n_workers;
    unsigned long generation;
    /* the current job */
    void (*fn)(void *ctx, size_t begin, size_t end);
    void *ctx;
    size_t n;
    int n_chunks;
    int remaining;
} pool;

/* The generation current when worker k was started: it must not take that one
 * for new work (the caller is about to publish the next). */
static unsigned long g_start_generation[CCGYM_MAX_THREADS];

static pool g_pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
                      PTHREAD_COND_INITIALIZER, 0, 0, NULL, NULL, 0, 0, 0};
/* One parallel_for at a time; a concurrent caller runs its loop serially. */
static pthread_mutex_t g_call = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t g_atfork_once = PTHREAD_ONCE_INIT;

static void chunk_bounds(size_t n, int n_chunks, int k, size_t *begin, size_t *end)
{
    *begin = n * (size_t)k / (size_t)n_chunks;
    *end = n * (size_t)(k + 1) / (size_t)n_chunks;
}

static void *worker_main(void *arg)
{
    const int id = (int)(size_t)arg; /* runs chunk id; chunk 0 is the caller's */
    pthread_mutex_lock(&g_pool.mu);
    unsigned long seen = g_start_generation[id];
    for (;;) {
        while (g_pool.generation == seen)
            pthread_cond_wait(&g_pool.work, &g_pool.mu);
        seen = g_pool.generation;
        if (id >= g_pool.n_chunks)
            continue;
        void (*fn)(void *, size_t, size_t) = g_pool.fn;
        void *ctx = g_pool.ctx;
        size_t begin, end;
        chunk_bounds(g_pool.n, g_pool.n_chunks, id, &begin, &end);
        pthread_mutex_unlock(&g_pool.mu);
        fn(ctx, begin, end);
        pthread_mutex_lock(&g_pool.mu);
        if (--g_pool.remaining == 0)
            pthread_cond_signal(&g_pool.done);
    }
    return NULL;
}

static void forget_workers_in_child(void)
{
    pthread_mutex_init(&g_pool.mu, NULL);
    pthread_cond_init(&g_pool.work, NULL);
    pthread_cond_init(&g_pool.done, NULL);
    pthread_mutex_init(&g_call, NULL);
    g_pool.n_workers = 0;
    g_pool.generation = 0;
    g_pool.remaining = 0;
}

static void register_atfork(void) { pthread_atfork(NULL, NULL, forget_workers_in_child); }

/* Starts workers 1..want-1 (caller holds g_pool.mu). Returns how many chunks
 * can run: 1 + the number of workers. */
static int ensure_workers(int want)
{
    while (g_pool.n_workers + 1 < want) {
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        g_start_generation[g_pool.n_workers + 1] = g_pool.generation;
        int rc = pthread_create(&t, &attr, worker_main, (void *)(size_t)(g_pool.n_workers + 1));
        pthread_attr_destroy(&attr);
        if (rc != 0)
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
    if (pthread_mutex_trylock(&g_call) != 0) {
        fn(ctx, 0, n);
        return 0;
    }
    pthread_once(&g_atfork_once, register_atfork);
    pthread_mutex_lock(&g_pool.mu);
    int chunks = ensure_workers(n_threads);
    int status = chunks < n_threads ? -1 : 0;
    g_pool.fn = fn;
    g_pool.ctx = ctx;
    g_pool.n = n;
    g_pool.n_chunks = chunks;
    g_pool.remaining = chunks - 1;
    g_pool.generation++;
    pthread_cond_broadcast(&g_pool.work);
    pthread_mutex_unlock(&g_pool.mu);

    size_t begin, end;
    chunk_bounds(n, chunks, 0, &begin, &end);
    fn(ctx, begin, end);

    pthread_mutex_lock(&g_pool.mu);
    while (g_pool.remaining > 0)
        pthread_cond_wait(&g_pool.done, &g_pool.mu);
    pthread_mutex_unlock(&g_pool.mu);
    pthread_mutex_unlock(&g_call);
    return status;
}
