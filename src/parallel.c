#include <pthread.h>
#include <stdlib.h>

#include "ccgym/driver.h"

#define CCGYM_MAX_THREADS 256

typedef struct chunk {
    void (*fn)(void *ctx, size_t begin, size_t end);
    void *ctx;
    size_t begin, end;
} chunk;

static void *run_chunk(void *arg)
{
    chunk *c = (chunk *)arg;
    c->fn(c->ctx, c->begin, c->end);
    return NULL;
}

int ccgym_parallel_for(void (*fn)(void *ctx, size_t begin, size_t end), void *ctx,
                       size_t n, int n_threads)
{
    if (n_threads > CCGYM_MAX_THREADS)
        n_threads = CCGYM_MAX_THREADS;
    if (n_threads <= 1 || n < 2) {
        fn(ctx, 0, n);
        return 0;
    }
    if ((size_t)n_threads > n)
        n_threads = (int)n;
    chunk chunks[CCGYM_MAX_THREADS];
    pthread_t threads[CCGYM_MAX_THREADS];
    int started[CCGYM_MAX_THREADS];
    int status = 0;
    for (int t = 0; t < n_threads; t++) {
        chunks[t].fn = fn;
        chunks[t].ctx = ctx;
        chunks[t].begin = n * (size_t)t / (size_t)n_threads;
        chunks[t].end = n * (size_t)(t + 1) / (size_t)n_threads;
    }
    /* Chunk 0 runs on the calling thread. */
    for (int t = 1; t < n_threads; t++) {
        started[t] = pthread_create(&threads[t], NULL, run_chunk, &chunks[t]) == 0;
        if (!started[t])
            status = -1;
    }
    run_chunk(&chunks[0]);
    for (int t = 1; t < n_threads; t++) {
        if (started[t])
            pthread_join(threads[t], NULL);
        else
            run_chunk(&chunks[t]);
    }
    return status;
}
