#define _GNU_SOURCE
#include "luashim.h"
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The lines a test worker has not yet sent its parent (the records of the file it runs): sent
 * together, in one write, when the file ends (or sooner, see TestWorker), so that the parent wakes
 * once per file instead of once per record. Kept here, in C, because a hard exit (code the time
 * limit could not interrupt) runs on the timer thread: it sends what is pending before its own
 * last line, so the records of the tests that ran before the stuck one are not lost. The lock
 * only orders the two threads; the timer never waits for it. Nothing here is a Lua or Swift
 * object. */

static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;
static char *pending;
static size_t pending_count, pending_capacity;
static int64_t pending_since;   /* CLOCK_MONOTONIC ns when the oldest pending line was added */

static int64_t monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Writes all `n` bytes to fd (retrying after EINTR and short writes); 0 when it could not. */
static int write_all(int fd, const char *bytes, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, bytes, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return 0;
        }
        bytes += w;
        n -= (size_t)w;
    }
    return 1;
}

int luashim_results_append(const void *bytes, size_t n) {
    pthread_mutex_lock(&pending_lock);
    int ok = 1;
    if (pending_count + n > pending_capacity) {
        size_t capacity = pending_capacity ? pending_capacity : 4096;
        while (capacity < pending_count + n) capacity *= 2;
        char *grown = realloc(pending, capacity);
        if (grown) {
            pending = grown;
            pending_capacity = capacity;
        } else {
            ok = 0;
        }
    }
    if (ok) {
        if (pending_count == 0) pending_since = monotonic_ns();
        memcpy(pending + pending_count, bytes, n);
        pending_count += n;
    }
    pthread_mutex_unlock(&pending_lock);
    return ok;
}

int luashim_results_send(int fd) {
    pthread_mutex_lock(&pending_lock);
    int ok = write_all(fd, pending, pending_count);
    pending_count = 0;
    pthread_mutex_unlock(&pending_lock);
    return ok;
}

void luashim_results_send_at_exit(int fd) {
    /* the Lua thread is stuck elsewhere (it cannot be inside an append for long): when it holds
     * the lock after all, what it was adding is not sent */
    if (pthread_mutex_trylock(&pending_lock) != 0) return;
    (void)write_all(fd, pending, pending_count);
    pending_count = 0;
    pthread_mutex_unlock(&pending_lock);
}

void luashim_results_send_due(int fd, int64_t now) {
    /* From the timer thread, every tick while a worker runs Lua: lines pending for more than
     * 20 ms go out, so a worker killed in a long test (SIGKILL, a crash) loses at most the last
     * few. Never blocks the timer: the lock is only tried, and at most PIPE_BUF bytes are written,
     * and only when poll says the pipe has room for them (a write of that size then does not
     * wait); the rest goes at the next tick or with the file's end. */
    if (pthread_mutex_trylock(&pending_lock) != 0) return;
    if (pending_count > 0 && now - pending_since >= 20 * 1000000) {
        struct pollfd p = { .fd = fd, .events = POLLOUT, .revents = 0 };
        if (poll(&p, 1, 0) == 1 && (p.revents & POLLOUT)) {
            size_t n = pending_count < PIPE_BUF ? pending_count : PIPE_BUF;
            ssize_t w = write(fd, pending, n);
            if (w > 0) {
                memmove(pending, pending + w, pending_count - (size_t)w);
                pending_count -= (size_t)w;
            }
        }
    }
    pthread_mutex_unlock(&pending_lock);
}

