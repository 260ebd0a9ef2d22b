/* The threads layer of src/parallel.c (and the clocks of src/ceiling.c):
 * one small interface over Win32 (SRW locks, condition variables,
 * _beginthreadex) on Windows, MSVC and MinGW-w64 alike, and over POSIX
 * threads everywhere else. Internal: not installed, not part of the API.
 *
 *   ccgym_mutex / ccgym_cond    statically initialised (CCGYM_MUTEX_INIT,
 *                               CCGYM_COND_INIT), never destroyed
 *   ccgym_thread_start          a detached thread running fn(arg); 0 on success
 *   ccgym_thread_yield          give up the CPU (sched_yield / SwitchToThread)
 *   ccgym_monotonic_ns          a monotonic clock in nanoseconds
 *   ccgym_thread_cpu_seconds    the calling thread's CPU time
 *   ccgym_after_fork_in_child   registers a handler run in a fork()ed child
 *                               (no-op on Windows, which has no fork) */
#ifndef CCGYM_THREADS_H_
#define CCGYM_THREADS_H_

#include <stdint.h>

#if defined(_WIN32)

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <process.h>
#include <windows.h>

typedef SRWLOCK ccgym_mutex;
typedef CONDITION_VARIABLE ccgym_cond;
#define CCGYM_MUTEX_INIT SRWLOCK_INIT
#define CCGYM_COND_INIT CONDITION_VARIABLE_INIT

static inline void ccgym_mutex_init(ccgym_mutex *m) { InitializeSRWLock(m); }
static inline void ccgym_mutex_lock(ccgym_mutex *m) { AcquireSRWLockExclusive(m); }
static inline void ccgym_mutex_unlock(ccgym_mutex *m) { ReleaseSRWLockExclusive(m); }
/* 1 if the lock was taken, 0 if it is held. */
static inline int ccgym_mutex_trylock(ccgym_mutex *m) { return TryAcquireSRWLockExclusive(m) != 0; }
static inline void ccgym_cond_init(ccgym_cond *c) { InitializeConditionVariable(c); }
static inline void ccgym_cond_wait(ccgym_cond *c, ccgym_mutex *m)
{
    SleepConditionVariableSRW(c, m, INFINITE, 0);
}
static inline void ccgym_cond_broadcast(ccgym_cond *c) { WakeAllConditionVariable(c); }

typedef struct ccgym_thread_start_ {
    void *(*fn)(void *);
    void *arg;
} ccgym_thread_start_;

static inline unsigned __stdcall ccgym_thread_trampoline_(void *p)
{
    ccgym_thread_start_ s = *(ccgym_thread_start_ *)p;
    HeapFree(GetProcessHeap(), 0, p);
    (void)s.fn(s.arg);
    return 0;
}

static inline int ccgym_thread_start(void *(*fn)(void *), void *arg)
{
    ccgym_thread_start_ *s =
        (ccgym_thread_start_ *)HeapAlloc(GetProcessHeap(), 0, sizeof(ccgym_thread_start_));
    if (!s)
        return -1;
    s->fn = fn;
    s->arg = arg;
    uintptr_t h = _beginthreadex(NULL, 0, ccgym_thread_trampoline_, s, 0, NULL);
    if (h == 0) {
        HeapFree(GetProcessHeap(), 0, s);
        return -1;
    }
    CloseHandle((HANDLE)h); /* detached: nobody joins it */
    return 0;
}

static inline void ccgym_thread_yield(void) { (void)SwitchToThread(); }

static inline long long ccgym_monotonic_ns(void)
{
    static LARGE_INTEGER freq; /* a racing first call stores the same value */
    LARGE_INTEGER t;
    if (freq.QuadPart == 0)
        QueryPerformanceFrequency(&freq);
    QueryPerformanceCounter(&t);
    /* Split so that t * 1e9 cannot overflow. */
    const long long s = t.QuadPart / freq.QuadPart, r = t.QuadPart % freq.QuadPart;
    return s * 1000000000LL + r * 1000000000LL / freq.QuadPart;
}

/* GetThreadTimes counts in 100 ns units, updated at the scheduler's tick. */
static inline double ccgym_thread_cpu_seconds(void)
{
    FILETIME created, exited, kernel, user;
    if (!GetThreadTimes(GetCurrentThread(), &created, &exited, &kernel, &user))
        return 0.0;
    const unsigned long long k = ((unsigned long long)kernel.dwHighDateTime << 32) | kernel.dwLowDateTime;
    const unsigned long long u = ((unsigned long long)user.dwHighDateTime << 32) | user.dwLowDateTime;
    return (double)(k + u) * 1e-7;
}

static inline void ccgym_after_fork_in_child(void (*handler)(void)) { (void)handler; }

#else /* POSIX */

#include <pthread.h>
#include <sched.h>
#include <time.h>

typedef pthread_mutex_t ccgym_mutex;
typedef pthread_cond_t ccgym_cond;
#define CCGYM_MUTEX_INIT PTHREAD_MUTEX_INITIALIZER
#define CCGYM_COND_INIT PTHREAD_COND_INITIALIZER

static inline void ccgym_mutex_init(ccgym_mutex *m) { pthread_mutex_init(m, NULL); }
static inline void ccgym_mutex_lock(ccgym_mutex *m) { pthread_mutex_lock(m); }
static inline void ccgym_mutex_unlock(ccgym_mutex *m) { pthread_mutex_unlock(m); }
static inline int ccgym_mutex_trylock(ccgym_mutex *m) { return pthread_mutex_trylock(m) == 0; }
static inline void ccgym_cond_init(ccgym_cond *c) { pthread_cond_init(c, NULL); }
static inline void ccgym_cond_wait(ccgym_cond *c, ccgym_mutex *m) { pthread_cond_wait(c, m); }
static inline void ccgym_cond_broadcast(ccgym_cond *c) { pthread_cond_broadcast(c); }

static inline int ccgym_thread_start(void *(*fn)(void *), void *arg)
{
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&t, &attr, fn, arg);
    pthread_attr_destroy(&attr);
    return rc == 0 ? 0 : -1;
}

static inline void ccgym_thread_yield(void) { sched_yield(); }

static inline long long ccgym_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline double ccgym_thread_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static pthread_once_t ccgym_atfork_once_ = PTHREAD_ONCE_INIT;
static void (*ccgym_atfork_handler_)(void);
static inline void ccgym_atfork_register_(void) { pthread_atfork(NULL, NULL, ccgym_atfork_handler_); }

/* Registers handler once per process (one handler per including file). */
static inline void ccgym_after_fork_in_child(void (*handler)(void))
{
    ccgym_atfork_handler_ = handler;
    pthread_once(&ccgym_atfork_once_, ccgym_atfork_register_);
}

#endif

#endif /* CCGYM_THREADS_H_ */
