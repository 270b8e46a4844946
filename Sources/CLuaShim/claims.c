#define _GNU_SOURCE
#include "luashim.h"
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Claims of a `responder test` run, in a memfd the parent maps and passes to each worker (as fd
 * 4): an 8-byte mark, then one 32-bit slot per file holding the process id of the worker that
 * claimed it (0: not claimed). A worker claims a file just before it runs it; the parent may hand
 * a file waiting in one worker's input to an idle worker as well, and whichever claims it first
 * runs it (the other skips it). When a worker dies, the slot says whether the file it held ran
 * there. Nothing here is a Lua or Swift object. */

static const char claims_mark[8] = { 'R', 'S', 'P', 'C', 'L', 'M', '0', '1' };

#define SLOTS(p) ((uint32_t *)((unsigned char *)(p) + sizeof claims_mark))

#if defined(__linux__)
unsigned char *luashim_claims_create(size_t count, int *fd) {
    if (count == 0) count = 1;
    if (count > (SIZE_MAX - sizeof claims_mark) / 4) return NULL;
    size_t size = sizeof claims_mark + 4 * count;
    int made = memfd_create("responder-test-claims", MFD_CLOEXEC);
    if (made < 0) return NULL;
    /* above the descriptors a worker's are made at (0-4), so that giving a worker its own ones
     * first cannot replace this one before it is passed on as 4 */
    int f = fcntl(made, F_DUPFD_CLOEXEC, 10);
    close(made);
    if (f < 0) return NULL;
    if (ftruncate(f, (off_t)size) != 0) { close(f); return NULL; }
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
    if (p == MAP_FAILED) { close(f); return NULL; }
    memcpy(p, claims_mark, sizeof claims_mark);
    *fd = f;
    return (unsigned char *)p;
}

unsigned char *luashim_claims_attach(int fd, size_t *count) {
    /* only the parent's claims: a descriptor 4 left open by whoever started the worker is read
     * (its first 8 bytes) but never written to */
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)(sizeof claims_mark + 4)
        || (st.st_size - (off_t)sizeof claims_mark) % 4 != 0)
        return NULL;
    size_t size = (size_t)st.st_size;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) return NULL;
    if (memcmp(p, claims_mark, sizeof claims_mark) != 0) { munmap(p, size); return NULL; }
    *count = (size - sizeof claims_mark) / 4;
    return (unsigned char *)p;
}
#else
/* no memfd: no claims (a file waiting in a worker's input then stays with that worker) */
unsigned char *luashim_claims_create(size_t count, int *fd) { (void)count; (void)fd; return NULL; }
unsigned char *luashim_claims_attach(int fd, size_t *count) { (void)fd; (void)count; return NULL; }
#endif

void luashim_claims_release(unsigned char *claims, size_t count) {
    if (claims) munmap(claims, sizeof claims_mark + 4 * (count ? count : 1));
}

int luashim_claim(unsigned char *claims, size_t index, uint32_t owner) {
    uint32_t expected = 0;
    return __atomic_compare_exchange_n(&SLOTS(claims)[index], &expected, owner, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE);
}

uint32_t luashim_claim_owner(const unsigned char *claims, size_t index) {
    return __atomic_load_n(&SLOTS(claims)[index], __ATOMIC_ACQUIRE);
}
