#define _GNU_SOURCE
#include "luashim.h"
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Claims of a `responder test` run: one byte per file, in a memfd the parent maps and passes to
 * each worker (as fd 4). A worker claims a file just before it runs it; the parent may hand a file
 * waiting in one worker's input to an idle worker as well, and whichever claims it first runs it
 * (the other skips it). Nothing here is a Lua or Swift object. */

#define CLAIMS_NAME "responder-test-claims"

#if defined(__linux__)
unsigned char *luashim_claims_create(size_t count, int *fd) {
    if (count == 0) count = 1;
    int made = memfd_create(CLAIMS_NAME, MFD_CLOEXEC);
    if (made < 0) return NULL;
    /* above the descriptors a worker's are made at (0-4), so that giving a worker its own ones
     * first cannot replace this one before it is passed on as 4 */
    int f = fcntl(made, F_DUPFD_CLOEXEC, 10);
    close(made);
    if (f < 0) return NULL;
    if (ftruncate(f, (off_t)count) != 0) { close(f); return NULL; }
    void *p = mmap(NULL, count, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
    if (p == MAP_FAILED) { close(f); return NULL; }
    *fd = f;
    return (unsigned char *)p;
}

unsigned char *luashim_claims_attach(int fd, size_t *count) {
    /* only the parent's memfd: a descriptor 4 left open by whoever started the worker is not
     * written to */
    char link[64], target[128];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= 0) return NULL;
    target[n] = 0;
    if (strncmp(target, "/memfd:" CLAIMS_NAME, strlen("/memfd:" CLAIMS_NAME)) != 0) return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) return NULL;
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) return NULL;
    *count = (size_t)st.st_size;
    return (unsigned char *)p;
}

#else
/* no memfd: no claims (a file waiting in a worker's input then stays with that worker) */
unsigned char *luashim_claims_create(size_t count, int *fd) { (void)count; (void)fd; return NULL; }
unsigned char *luashim_claims_attach(int fd, size_t *count) { (void)fd; (void)count; return NULL; }
#endif

void luashim_claims_release(unsigned char *claims, size_t count) {
    if (claims) munmap(claims, count ? count : 1);
}

int luashim_claim(unsigned char *claims, size_t index) {
    unsigned char expected = 0;
    return __atomic_compare_exchange_n(&claims[index], &expected, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

int luashim_claimed(const unsigned char *claims, size_t index) {
    return __atomic_load_n(&claims[index], __ATOMIC_ACQUIRE) != 0;
}
