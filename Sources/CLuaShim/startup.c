/*
 * The entry point of the static executable scripts/setup links (`-e luashim_entry`, x86-64 Linux).
 *
 * A static position-independent executable relocates itself at start: glibc's
 * _dl_relocate_static_pie writes the load address into every pointer the packed relocation
 * table (DT_RELR) names, about 41,000 pointers on some 130 pages of .data.rel.ro and .data. Each
 * of those pages is a private copy of the file's page made on its first write, one page fault
 * each: on the development VM about 2.6 us a fault, a third of an empty run. Before jumping to
 * the C library's _start, this entry asks the kernel for those pages in one call
 * (madvise MADV_POPULATE_WRITE, Linux 5.14): the same copies, without a fault each (measured: 134
 * pages 350 -> 180 us). On an older kernel the call fails and nothing changes.
 *
 * It runs before the C library is set up and before any relocation: it uses no C library
 * function (errno and the stack protector's canary live in thread-local storage, not set up
 * yet), no global whose address needs a relocation (the two linker-defined symbols below are
 * hidden, so they are addressed relative to the instruction pointer), and no sanitizer
 * instrumentation. Builds that do not pass `-e luashim_entry` never run it.
 */
#include "luashim.h"
#if defined(__linux__)
#include <sys/auxv.h>
int luashim_is_static_executable(void) { return getauxval(AT_BASE) == 0; }
#else
int luashim_is_static_executable(void) { return 0; }
#endif

#if defined(__x86_64__) && defined(__linux__)
#include <elf.h>
#include <link.h>
#include <stdint.h>

extern const ElfW(Ehdr) __ehdr_start __attribute__((visibility("hidden")));
/* weak: a static executable that is not position-independent has no dynamic section (and
   nothing to relocate). The null test reads the symbol's GOT slot before it is relocated: it
   then holds the link-time address, which is not 0 exactly when the symbol is defined. */
extern ElfW(Dyn) _DYNAMIC[] __attribute__((visibility("hidden"), weak));

#ifndef DT_RELR
#define DT_RELRSZ 35
#define DT_RELR 36
#endif
#define LUASHIM_MADV_POPULATE_WRITE 23
#define LUASHIM_SYS_MADVISE 28
#define LUASHIM_PAGE 4096u

__attribute__((no_stack_protector, no_sanitize("address", "undefined"))) static void
populate(uintptr_t start, uintptr_t end) {
    long ret;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "0"((long)LUASHIM_SYS_MADVISE), "D"(start), "S"(end - start),
                       "d"((long)LUASHIM_MADV_POPULATE_WRITE)
                     : "rcx", "r11", "memory");
    (void)ret;
}

/* Prefaults, for writing, the runs of pages that hold a pointer DT_RELR relocates. */
__attribute__((used, no_stack_protector, no_sanitize("address", "undefined"))) void
luashim_prefault_relocations(void) {
    if (_DYNAMIC == 0) return;
    uintptr_t base = (uintptr_t)&__ehdr_start; /* the load address: a PIE's ELF header is at 0 */
    const uint64_t *relr = 0;
    uint64_t size = 0;
    for (const ElfW(Dyn) *d = _DYNAMIC; d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_RELR) relr = (const uint64_t *)(base + d->d_un.d_ptr);
        else if (d->d_tag == DT_RELRSZ) size = d->d_un.d_val;
    }
    if (!relr) return;
    uintptr_t runStart = 0, runEnd = 0, where = 0;
    for (uint64_t i = 0; i < size / sizeof(uint64_t); i++) {
        uint64_t entry = relr[i];
        uintptr_t lo, hi;
        if ((entry & 1) == 0) {
            /* an address: the pointer there, and the next 63 words are the bitmap's */
            lo = base + entry;
            hi = lo + 8;
            where = hi;
        } else {
            /* a bitmap: bit k (from 1) names the word at where + (k - 1) * 8 */
            uint64_t bits = entry >> 1;
            uintptr_t from = where;
            where += 63 * 8;
            if (bits == 0) continue;
            lo = from + (uintptr_t)__builtin_ctzll(bits) * 8;
            hi = from + (uintptr_t)(63 - __builtin_clzll(bits)) * 8 + 8;
        }
        lo &= ~(uintptr_t)(LUASHIM_PAGE - 1);
        hi = (hi + LUASHIM_PAGE - 1) & ~(uintptr_t)(LUASHIM_PAGE - 1);
        if (runEnd != 0 && lo <= runEnd && hi >= runStart) {
            if (lo < runStart) runStart = lo;
            if (hi > runEnd) runEnd = hi;
        } else {
            if (runEnd != 0) populate(runStart, runEnd);
            runStart = lo;
            runEnd = hi;
        }
    }
    if (runEnd != 0) populate(runStart, runEnd);
}

/* The process's first instruction: prefault, then the C library's _start with the registers
   and stack the kernel gave (rdx, the function to register with atexit, kept in r12, which
   the call preserves; the stack pointer is untouched, argc at its top). */
__attribute__((naked, noreturn)) void luashim_entry(void) {
    __asm__ volatile("mov %rdx, %r12\n\t"
                     "call luashim_prefault_relocations\n\t"
                     "mov %r12, %rdx\n\t"
                     "jmp _start\n\t");
}
#endif
