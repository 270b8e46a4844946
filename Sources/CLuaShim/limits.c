/* The limit machinery: see luashim_limits.h for the design. */
#define _GNU_SOURCE
#include "luashim.h"
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SIG_ARM SIGURG   /* ignored by default: a stray delivery does nothing */

enum { WHY_TIMEOUT = 1, WHY_INTERRUPT = 2 };

/** Per-state limit state. Fields marked (L) are only touched on the thread running Lua (the
 *  hook, resumes, host calls, the signal handler that interrupts that thread); fields marked (T)
 *  are shared with the timer thread through atomics. Nothing here is a Swift object. */
struct luashim_limits {
    luashim_control *c;
    lua_State *main;                 /* the main thread of the state */
    lua_State *volatile running;     /* (L) the thread running Lua now */
    int mode;                        /* (L) LUASHIM_BUDGET_* */
    int64_t maxBudget;               /* (L) the budget the last reset gave */
    luashim_line_fn lineFn;          /* (L) coverage line callback */
    void *lineData;
    volatile sig_atomic_t armed;     /* (L) the signal handler armed a one-shot hook */
    int sampling;                    /* (L) a counting window is open */
    int windowDone;                  /* (L) instructions counted in the open window */
    int64_t windowStart;             /* (L) CPU ns of the Lua thread (so are the times below) */
    int64_t pendingNs;               /* (L) time to extrapolate when the window closes */
    int64_t lastMark;                /* (L) ns: end of the last window (or start of the call) */
    int64_t charged;                 /* (L) instructions charged since the last reset */
    _Atomic int64_t deadline;        /* (T) monotonic ns; 0 = no wall-clock limit */
    _Atomic int64_t timeoutMs;       /* (T) */
    _Atomic int timeUp;              /* (T) the deadline passed: the hook raises */
    _Atomic int64_t armTime;         /* (L) when the signal handler armed the hook (CPU ns) */
    _Atomic int64_t armCost;         /* (L) CPU ns the last arming took (see tick) */
    int64_t lastArmSent;             /* the timer thread's: when it last asked for an arming */
    _Atomic int armRequest;          /* (T) */
    _Atomic int active;              /* (T) the Lua thread is inside a host call or closing */
    _Atomic int closing;             /* (T) lua_close runs (finalizers) */
    _Atomic int64_t interruptSeen;   /* (T) when the timer first saw a pending interrupt */
    pthread_t thread;                /* the thread running Lua (valid while active) */
    _Atomic int describeRequest;     /* (T) the timer asks the Lua thread what it runs */
    _Atomic int describeDone;
    char what[200];                  /* filled by the signal handler */
    char where[220];
    char message[400];               /* (L) the last time-limit message raised */
    char refusedWhere[220];          /* (L) `file:line: ` where the allocator refused Lua code */
    char refusedTraceback[4096];     /* (L) the traceback then, as luaL_traceback writes one */
    struct luashim_limits *prevTls;  /* (L) the tls value to restore when the call ends */
    struct luashim_limits *next;     /* registry list (under reg_lock) */
};

static void limit_hook(lua_State *L, lua_Debug *ar);
void luashim_memory_refused(luashim_control *c);

/* ---------------- time ---------------- */

static int64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* CPU time of the calling thread: the sampled budget measures work, not waiting (a process
 * that is descheduled on a busy machine must not be charged for it). */
static int64_t thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---------------- hookcount read-back ---------------- */

/* Lua keeps the countdown of a count hook in a private lua_State field that the API does not
 * expose. It sits right after the base count (which lua_sethook writes too), so it is found once
 * per process by setting distinctive counts on a probe thread and looking for them inside that
 * thread's own allocation, then checked to count down as code runs. If the probe fails the
 * partial counts are estimated (see settle). */
static int hookcount_offset = -1;
static size_t probe_thread_size;
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;

/* The probe's blocks start zeroed: the probe reads every byte of the thread object, padding
 * included, so none of them may be left undefined (memcheck would rightly flag the reads). */
static void *probe_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    (void)ud;
    if (nsize == 0) { free(ptr); return NULL; }
    if (ptr == NULL) {
        if (osize == LUA_TTHREAD) probe_thread_size = nsize;
        return calloc(1, nsize);
    }
    char *p = (char *)realloc(ptr, nsize);
    if (p != NULL && nsize > osize) memset(p + osize, 0, nsize - osize);
    return p;
}

/* [-0, +0, -] */
static void probe_hook(lua_State *L, lua_Debug *ar) { (void)L; (void)ar; }

/* [-0, +0, -] */
static int find_count_pair(lua_State *T, int value) {
    char *base = (char *)T;
    char *end = (char *)lua_getextraspace(T) + probe_thread_size;
    lua_sethook(T, probe_hook, LUA_MASKCOUNT, value);
    for (char *p = base; p + 2 * sizeof(int) <= end; p += sizeof(int)) {
        int a, b;
        memcpy(&a, p, sizeof a);
        memcpy(&b, p + sizeof(int), sizeof b);
        if (a == value && b == value) return (int)(p - base) + (int)sizeof(int);
    }
    return -1;
}

/* Lua's count of nested C calls (nCcalls, whose low 16 bits Lua checks against its limit of 200,
 * "C stack overflow") sits three ints before the countdown in the same private layout. The probe
 * checks that a C function called from a C function reads it one higher. */
static int ccalls_offset = -1;
static unsigned probe_ccalls[2];

/* [-0, +0, -] */
static int probe_ccalls_inner(lua_State *L) {
    memcpy(&probe_ccalls[1], (char *)L + hookcount_offset - 3 * (int)sizeof(int), sizeof(unsigned));
    return 0;
}

/* [-0, +0, e] */
static int probe_ccalls_outer(lua_State *L) {
    memcpy(&probe_ccalls[0], (char *)L + hookcount_offset - 3 * (int)sizeof(int), sizeof(unsigned));
    lua_pushcfunction(L, probe_ccalls_inner);
    lua_call(L, 0, 0);
    return 0;
}

/* Its own state P: [-0, +0, -] (P is closed). */
static void probe_hookcount(void) {
    lua_State *P = lua_newstate(probe_alloc, NULL);
    if (!P) return;
    lua_State *T = lua_newthread(P);
    int off = probe_thread_size ? find_count_pair(T, 0x2F1B3C4D) : -1;
    if (off > 0 && find_count_pair(T, 0x1A2B3C4D) == off) {
        const int start = 1000000;
        lua_sethook(T, probe_hook, LUA_MASKCOUNT, start);
        if (luaL_loadstring(T, "local x = 0 for i = 1, 10 do x = x + i end return x") == LUA_OK
            && lua_pcall(T, 0, 1, 0) == LUA_OK) {
            int left;
            memcpy(&left, (char *)T + off, sizeof left);
            if (left < start - 10 && left > start - 500) hookcount_offset = off;
        }
        lua_sethook(T, NULL, 0, 0);
        lua_settop(T, 0);
        if (hookcount_offset >= 3 * (int)sizeof(int) && lua_checkstack(T, 2)) {
            lua_pushcfunction(T, probe_ccalls_outer);
            unsigned outer = probe_ccalls[0], inner = probe_ccalls[1];
            if (lua_pcall(T, 0, 0, 0) == LUA_OK) {
                outer = probe_ccalls[0] & 0xffff;
                inner = probe_ccalls[1] & 0xffff;
                if (outer >= 1 && outer < 16 && inner == outer + 1) ccalls_offset = hookcount_offset - 3 * (int)sizeof(int);
            }
        }
    }
    lua_close(P);
}

/* Instructions left before the count hook of T fires, or -1 when unknown. The layout is probed
   on first need (a state of its own, about 75,000 instructions): a run that never stops a
   counted period (an empty script, a short one under the sampled budget) never pays for it. */
static int hookcount_left(lua_State *T) {
    pthread_once(&probe_once, probe_hookcount);
    if (hookcount_offset < 0) return -1;
    int v;
    memcpy(&v, (char *)T + hookcount_offset, sizeof v);
    return v;
}

/* Lua's count of nested C calls of thread L (it raises "C stack overflow" at 200), or -1 when
 * the layout is unknown. Probes the layout on first use. */
/* [-0, +0, -] */
int luashim_c_calls(lua_State *L) {
    pthread_once(&probe_once, probe_hookcount);
    if (ccalls_offset < 0) return -1;
    unsigned v;
    memcpy(&v, (char *)L + ccalls_offset, sizeof v);
    return (int)(v & 0xffff);
}

/* lua_sethook walks every frame of the thread to mark it (settraps), so that frames below the
 * running one notice a hook that was off: at the depth of a runaway recursion (hundreds of
 * thousands of frames) a call costs milliseconds, and one per count period or sampling tick
 * kept such a script from ever reaching Lua's "stack overflow". While a hook is on, every frame
 * is already marked (frames made since are marked as they start, and Lua clears a mark only when
 * no count or line hook is set), so when only the count changes it is written directly (the base
 * count sits right before the countdown the probe found). With `may_probe` 0 (the arming
 * signal handler, the allocator) the probe's result is only read, never made: until a probe has
 * run there, lua_sethook does it. [-0, +0, -] */
static void sethook_fast(lua_State *T, lua_Hook f, int mask, int count, int may_probe) {
    if (mask != 0 && count > 0 && lua_gethook(T) == f && lua_gethookmask(T) == mask) {
        if (may_probe) pthread_once(&probe_once, probe_hookcount);
        int off = __atomic_load_n(&hookcount_offset, __ATOMIC_RELAXED);
        if (off > (int)sizeof(int)) {
            memcpy((char *)T + off - sizeof(int), &count, sizeof count);
            memcpy((char *)T + off, &count, sizeof count);
            return;
        }
    }
    lua_sethook(T, f, mask, count);
}

/* ---------------- hook configuration ---------------- */

int luashim_memory_stands(lua_State *L, luashim_control *c);
void luashim_memory_restart(lua_State *L, luashim_control *c);

/* The memory cap was crossed (the allocator or a host charge) and was not found to be garbage by
 * a collection (luashim_memory_stands decides a crossing: it stays pending while the collection
 * that decides it runs finalizers). */
static inline __attribute__((always_inline)) int memory_pending(const luashim_control *c) {
    return c->limit > 0 && (c->memoryExceeded == LUASHIM_MEMORY_REFUSED
                            || (c->memoryExceeded == LUASHIM_MEMORY_CROSSED && !c->collecting));
}

static inline __attribute__((always_inline)) int is_sticky(const luashim_control *c) {
    return c->budgetExceeded || c->timedOut || c->abortPending || memory_pending(c) || c->interrupt;
}

/* Nothing set that a limit, an interrupt or an abort could raise from: the common case, decided
 * without a call (the coroutine functions ask it twice per switch). */
static inline __attribute__((always_inline)) int nothing_due(const luashim_control *c) {
    return !(c->budgetExceeded | c->timedOut | c->abortPending | c->memoryExceeded | c->interrupt)
           && !atomic_load_explicit(&c->lim->timeUp, memory_order_relaxed);
}

static int is_pending(const luashim_control *c, luashim_limits *lim) {
    return is_sticky(c) || c->interrupt || atomic_load_explicit(&lim->timeUp, memory_order_relaxed);
}

/* Whether host work must stop: a limit is pending. A crossed memory cap is decided when the host
 * function returns (a collection now could run finalizers under the host's feet): only a refused
 * allocation stops host work. */
static int host_must_stop(const luashim_control *c) {
    return c->budgetExceeded || c->timedOut || c->abortPending || c->interrupt
        || atomic_load_explicit(&c->lim->timeUp, memory_order_relaxed)
        || (c->limit > 0 && c->memoryExceeded == LUASHIM_MEMORY_REFUSED);
}

/* Whether a limit must be raised now, on the Lua thread at a point where Lua may run: a crossed
 * memory cap is decided first (a full collection may show the excess was garbage, clearing it). */
/* [-0, +0, -]: may run a full collection (finalizers) */
static int raise_due(lua_State *L, luashim_control *c) {
    if (c->memoryExceeded == LUASHIM_MEMORY_CROSSED && c->limit > 0) (void)luashim_memory_stands(L, c);
    return is_pending(c, c->lim);
}

/* The count period of exact counting: stop exactly at the first instruction past the budget. */
static int exact_period(const luashim_control *c) {
    if (c->budget < 0) return LUASHIM_EXACT_PERIOD;
    return c->budget + 1 < LUASHIM_EXACT_PERIOD ? (int)c->budget + 1 : LUASHIM_EXACT_PERIOD;
}

/* Sets the hook of thread T to what the limits need now (the single place that calls
 * lua_sethook for a running state, so the line callback is always kept). */
/* [-0, +0, -] */
static void set_hook(lua_State *T, luashim_limits *lim) {
    luashim_control *c = lim->c;
    int mask = lim->lineFn ? LUA_MASKLINE : 0;
    int count = 0;
    if (is_sticky(c)) count = 1;
    else if (lim->mode == LUASHIM_BUDGET_EXACT) count = exact_period(c);
    else if (lim->sampling) count = LUASHIM_SAMPLE_WINDOW - lim->windowDone;
    else if (lim->armed) count = 1;
    if (count > 0) mask |= LUA_MASKCOUNT;
    if (mask) sethook_fast(T, limit_hook, mask, count, 1);
    else lua_sethook(T, NULL, 0, 0);
}

/* ---------------- charging ---------------- */

static void charge(luashim_control *c, int64_t n) {
    luashim_limits *lim = c->lim;
    lim->charged += n;
    c->executed += n;
    if (c->budget >= 0) {
        c->budget -= n;
        if (c->budget < 0) c->budgetExceeded = 1;
    }
}

/* Accounts the part of T's current count period that already ran (T stops running now). */
/* [-0, +0, -] */
static void settle(lua_State *T, luashim_limits *lim) {
    if (!(lua_gethookmask(T) & LUA_MASKCOUNT) || is_sticky(lim->c)) return;
    int base = lua_gethookcount(T);
    int left = hookcount_left(T);
    int ran = left >= 0 && left <= base ? base - left : base / 2;
    if (lim->mode == LUASHIM_BUDGET_EXACT) charge(lim->c, ran);
    else if (lim->sampling) lim->windowDone += ran;
}

/* A counting window of the sampled budget opens (the first hook after the timer armed it). */
static void open_window(luashim_limits *lim) {
    /* the layout probe (once per process, ~50 us) must not run inside a window: a window is a
       few microseconds, whose rate would then be far too low */
    pthread_once(&probe_once, probe_hookcount);
    int64_t at = atomic_load_explicit(&lim->armTime, memory_order_relaxed);
    if (at < lim->lastMark) at = lim->lastMark;
    lim->pendingNs = at - lim->lastMark;
    lim->windowStart = mono_ns();   /* the window is a few microseconds: the cheap clock */
    lim->windowDone = 0;
    lim->sampling = 1;
}

/* The window has counted its instructions: extrapolate over the time since the last mark. */
static void close_window(luashim_limits *lim) {
    int64_t dt = mono_ns() - lim->windowStart;
    if (dt < 1) dt = 1;
    double rate = (double)lim->windowDone / (double)dt;
    charge(lim->c, lim->windowDone + (int64_t)(rate * (double)lim->pendingNs));
    lim->lastMark = thread_cpu_ns();   /* outside the window: this clock is a system call */
    lim->sampling = 0;
}

/* ---------------- raising ---------------- */

static const char *ABORT_KEY = "responder.abortMessage";

/* "function 'name'", "main chunk", "function <file:line>" or "C function 'name'" for the
 * function at `level` of T (as luaL_traceback names them, without the global lookup). */
/* [-0, +0, -] */
static void frame_name(lua_State *T, int level, char *buf, size_t size) {
    lua_Debug ar;
    buf[0] = 0;
    if (!lua_getstack(T, level, &ar) || !lua_getinfo(T, "Sn", &ar)) return;
    int isC = ar.what && strcmp(ar.what, "C") == 0;
    if (ar.namewhat && strcmp(ar.namewhat, "metamethod") == 0 && ar.name)
        snprintf(buf, size, "a %s metamethod", ar.name);
    else if (ar.what && strcmp(ar.what, "main") == 0)
        snprintf(buf, size, "main chunk");
    else if (ar.name && ar.namewhat && *ar.namewhat)
        snprintf(buf, size, "%s%s '%s'", isC ? "C " : "", strcmp(ar.namewhat, "method") == 0 ? "method" : "function", ar.name);
    else if (isC)
        snprintf(buf, size, "a C function");
    else
        snprintf(buf, size, "function <%s:%d>", ar.short_src, ar.linedefined);
}

/* Pushes luaL_where of the running function or, when C functions run (a host function that
 * stopped for a limit, a metamethod calling it), of the nearest Lua function under them: the
 * script line that called them. Stack: [] -> [where]. */
/* [-0, +1, m] */
static void where_of_script(lua_State *L) {
    lua_Debug ar;
    int level = 0;
    while (level < 8 && lua_getstack(L, level, &ar) && lua_getinfo(L, "S", &ar) && ar.what
           && strcmp(ar.what, "C") == 0)
        level++;
    /* past the host's own chunks (the kit's scheduler, the test framework) to the script line
     * that called into them, when there is one */
    for (int up = level; up < level + 64 && lua_getstack(L, up, &ar) && lua_getinfo(L, "S", &ar); up++) {
        if (ar.what && strcmp(ar.what, "C") == 0) continue;
        if (ar.source && strncmp(ar.source, "=Sources/", 9) == 0) continue;
        level = up;
        break;
    }
    luaL_where(L, level);
}

static void format_seconds(char *buf, size_t size, int64_t ms) {
    if (ms % 1000 == 0) snprintf(buf, size, "%lld s", (long long)(ms / 1000));
    else snprintf(buf, size, "%.3g s", (double)ms / 1000.0);
}

/* Raises the pending limit in L. Stack: [] -> raises (never returns). */
/* [-0, +1, v]: raises the limit's message (never returns) */
static void raise_limit(lua_State *L, luashim_control *c) {
    luashim_limits *lim = c->lim;
    if (c->abortPending) {
        /* 2: a violation a finalizer met, raised once where the script is now (no outer call
         * of the script is there to end it) */
        int once = c->abortPending == 2;
        if (once) c->abortPending = 0;
        set_hook(L, lim);
        lua_getfield(L, LUA_REGISTRYINDEX, ABORT_KEY);
        if (once) {
            lua_pushnil(L);
            lua_setfield(L, LUA_REGISTRYINDEX, ABORT_KEY);
        }
        lua_error(L);
    }
    c->limitRaised = 1;
    if (c->interrupt) {
        /* kept until the entry ends (luashim_limits_reset), as a limit is: raised again at the
         * next instruction, so a pcall in the running code cannot swallow Ctrl-C (it did, and
         * the entry ran on to its timeout: found by an adversary probe) */
        set_hook(L, lim);
        lua_pushliteral(L, "interrupted!");
        lua_error(L);
    }
    /* the message itself may be built over the memory cap */
    c->hostDepth++;
    if (c->memoryExceeded == LUASHIM_MEMORY_REFUSED && c->limit > 0) {
        /* Lua raises this message as a memory error, without the message handler: the line
         * is recorded here instead of by a traceback */
        luashim_memory_refused(c);
        set_hook(L, lim);
        lua_pushliteral(L, "not enough memory");
        c->hostDepth--;
        lua_error(L);
    }
    if (lim->message[0] && (c->timedOut || c->budgetExceeded)) {
        /* raised before (a pcall caught it): the same message again, so it keeps naming the
         * place where the limit struck, not the handler that tried to go on */
        set_hook(L, lim);
        lua_pushstring(L, lim->message);
        c->hostDepth--;
        lua_error(L);
    }
    if (atomic_load(&lim->timeUp) || c->timedOut) {
        c->timedOut = 1;
        set_hook(L, lim);
        char fn[160], secs[32];
        frame_name(L, 0, fn, sizeof fn);
        format_seconds(secs, sizeof secs, atomic_load(&lim->timeoutMs));
        where_of_script(L);
        const char *where = lua_tostring(L, -1);
        snprintf(lim->message, sizeof lim->message,
                 "%stime limit exceeded (%s)%s%s; raise it with --timeout SECONDS",
                 where ? where : "", secs, fn[0] ? " in " : "", fn);
        lua_pop(L, 1);
        lua_pushstring(L, lim->message);
        c->hostDepth--;
        lua_error(L);
    }
    set_hook(L, lim);
    where_of_script(L);
    const char *where = lua_tostring(L, -1);
    snprintf(lim->message, sizeof lim->message, "%sinstruction limit exceeded", where ? where : "");
    lua_pop(L, 1);
    lua_pushstring(L, lim->message);
    c->hostDepth--;
    lua_error(L);
}

/* [-0, +1, v] */
void luashim_raise_limit(lua_State *L, luashim_control *c) { raise_limit(L, c); }

/* The allocator saw Lua code cross the memory cap (called before it sets the flag): arm the hook
 * on the running thread, as the timer's signal does, so the crossing is decided (a collection,
 * then "memory limit exceeded" or nothing) at the next instruction rather than at the next tick.
 * The part of the count period already run is charged first. */
/* [-0, +0, -]: sets the hook only */
void luashim_memory_crossing(luashim_control *c) {
    luashim_limits *lim = c->lim;
    if (!lim || c->pcallDepth <= 0 || c->hostDepth > 0 || c->collecting || is_sticky(c)) return;
    lua_State *T = lim->running;
    settle(T, lim);
    sethook_fast(T, limit_hook, (lim->lineFn ? LUA_MASKLINE : 0) | LUA_MASKCOUNT, 1, 0);
}

/* The allocator refuses an allocation of Lua code (over the cap by more than the slack): Lua
 * raises "not enough memory" without calling the message handler, so no traceback names the
 * line. Records the innermost script line now: reads the call stack only, as `describe` does
 * from a signal handler (lua_getstack/lua_getinfo "Sl" allocate nothing, and the VM saved the
 * pc before the allocating instruction). Frames of the host's own chunks are skipped. */
static void copy_text(char *dst, size_t size, const char *src);
static void append_text(char *dst, size_t size, const char *src);
static void append_int(char *dst, size_t size, int v);

/* Writes `file:line: ` of the innermost frame of T with a current line (past the host's own
 * chunks when `skipHost`) into buf, or leaves it as it is. Reads the call stack only
 * (lua_getstack/lua_getinfo "Sl" push and allocate nothing). */
/* [-0, +0, -] */
static void innermost_line(lua_State *T, char *buf, size_t size, int skipHost) {
    lua_Debug ar;
    for (int level = 0; level < 64 && lua_getstack(T, level, &ar); level++) {
        if (!lua_getinfo(T, "Sl", &ar) || ar.currentline <= 0) continue;
        if (skipHost && ar.source && strncmp(ar.source, "=Sources/", 9) == 0) continue;
        copy_text(buf, size, ar.short_src);
        append_text(buf, size, ":");
        append_int(buf, size, ar.currentline);
        append_text(buf, size, ": ");
        return;
    }
}

/* The level past the last of T's stack (found as lauxlib's lastlevel finds it). */
/* [-0, +0, -] */
static int stack_levels(lua_State *T) {
    lua_Debug ar;
    int li = 1, le = 1;
    while (lua_getstack(T, le, &ar)) { li = le; le *= 2; }
    while (li < le) {
        int m = (li + le) / 2;
        if (lua_getstack(T, m, &ar)) li = m + 1;
        else le = m;
    }
    return le;
}

/* Writes T's traceback into buf as luaL_traceback writes one ("stack traceback:", then a
 * `\n\tfile:line: in local 'f'` line per level, the first 10 and the last 11 when there are more),
 * without the global-name lookup (which allocates): a global function is named `global 'f'`.
 * Reads the call stack only (lua_getinfo "Slnt" pushes and allocates nothing). */
/* [-0, +0, -] */
static void traceback_into(lua_State *T, char *buf, size_t size) {
    enum { FIRST = 10, LAST = 11 };
    lua_Debug ar;
    int last = stack_levels(T) - 1;   /* the last level there is */
    int level = 0;
    int show = last - level > FIRST + LAST ? FIRST : -1;
    copy_text(buf, size, "stack traceback:");
    while (lua_getstack(T, level++, &ar)) {
        if (show-- == 0) {
            /* (the count luaL_traceback prints, which leaves out the level it stopped at) */
            int n = last - level - LAST + 1;
            append_text(buf, size, "\n\t...\t(skipping ");
            append_int(buf, size, n);
            append_text(buf, size, " levels)");
            level += n;
            continue;
        }
        if (!lua_getinfo(T, "Slnt", &ar)) continue;
        append_text(buf, size, "\n\t");
        append_text(buf, size, ar.short_src);
        append_text(buf, size, ":");
        if (ar.currentline > 0) {
            append_int(buf, size, ar.currentline);
            append_text(buf, size, ":");
        }
        append_text(buf, size, " in ");
        if (ar.namewhat && *ar.namewhat && ar.name) {
            append_text(buf, size, ar.namewhat);
            append_text(buf, size, " '");
            append_text(buf, size, ar.name);
            append_text(buf, size, "'");
        } else if (ar.what && *ar.what == 'm') {
            append_text(buf, size, "main chunk");
        } else if (ar.what && *ar.what != 'C') {
            append_text(buf, size, "function <");
            append_text(buf, size, ar.short_src);
            append_text(buf, size, ":");
            append_int(buf, size, ar.linedefined);
            append_text(buf, size, ">");
        } else {
            append_text(buf, size, "?");
        }
        if (ar.istailcall) append_text(buf, size, "\n\t(...tail calls...)");
    }
}

/* [-0, +0, -] */
void luashim_memory_refused(luashim_control *c) {
    luashim_limits *lim = c->lim;
    if (!lim || lim->refusedWhere[0]) return;
    lua_State *T = atomic_load(&lim->closing) ? lim->main : lim->running;
    if (!T) return;
    innermost_line(T, lim->refusedWhere, sizeof lim->refusedWhere, 1);
    traceback_into(T, lim->refusedTraceback, sizeof lim->refusedTraceback);
}

const char *luashim_memory_refused_where(lua_State *L) {
    luashim_limits *lim = luashim_control_of(L)->lim;
    return lim && lim->refusedWhere[0] ? lim->refusedWhere : NULL;
}

const char *luashim_memory_refused_traceback(lua_State *L) {
    luashim_limits *lim = luashim_control_of(L)->lim;
    return lim && lim->refusedTraceback[0] ? lim->refusedTraceback : NULL;
}

/* After a host (Swift) function returned: raise what it left (memory, budget, time). */
/* [-0, +0, -]: may run a full collection (finalizers) */
int luashim_must_raise(lua_State *L, luashim_control *c) {
    if (c->budgetExceeded || c->timedOut) return 1;
    /* the host stopped its work for a limit (and may have returned a partial result): raise it */
    if (c->hostStopped) {
        c->hostStopped = 0;
        if (host_must_stop(c)) return 1;
    }
    if (c->memoryExceeded == LUASHIM_MEMORY_CROSSED && c->limit > 0) (void)luashim_memory_stands(L, c);
    return memory_pending(c);
}

/* ---------------- the hook ---------------- */

/* The single hook of every sandboxed thread. Stack: unchanged, or raises a limit. */
/* [-0, +0, v]: raises a pending limit */
static void limit_hook(lua_State *L, lua_Debug *ar) {
    luashim_control *c = luashim_control_of(L);
    luashim_limits *lim = c->lim;
    if (ar->event == LUA_HOOKLINE) {
        if (lim->lineFn) lim->lineFn(L, ar, lim->lineData);
        if (!is_pending(c, lim)) return;
    } else if (ar->event == LUA_HOOKCOUNT && lim->mode == LUASHIM_BUDGET_EXACT) {
        /* The period ran: charged unless a stop is already decided. A memory crossing still
         * being decided is not one (its count-1 period, armed by luashim_memory_crossing, would
         * otherwise lose an instruction at every crossing). */
        if (!c->budgetExceeded && !c->timedOut && !c->abortPending) charge(c, lua_gethookcount(L));
    } else if (ar->event == LUA_HOOKCOUNT && !is_sticky(c)) {
        int base = lua_gethookcount(L);
        if (lim->sampling) {
            lim->windowDone += base;
            if (lim->windowDone >= LUASHIM_SAMPLE_WINDOW) close_window(lim);
        } else if (lim->armed) {
            lim->armed = 0;
            if (lim->mode == LUASHIM_BUDGET_SAMPLED) open_window(lim);
        }
    }
    if (raise_due(L, c)) raise_limit(L, c);
    set_hook(L, lim);
}

/* ---------------- the timer thread ---------------- */

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static luashim_limits *registry;
static int timer_started;
static int hard_exit_status = 3;
static int hard_exit_fd = -1;
static char hard_exit_prefix[16];
static __thread luashim_limits *tls_lim;
static __thread int tls_unblocked;

/* A process may start with signals blocked (a parent's thread mask is inherited through exec,
 * and thread pools block most signals): the thread that runs Lua must receive SIG_ARM. */
static void unblock_arm_signal(void) {
    if (tls_unblocked) return;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIG_ARM);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    tls_unblocked = 1;
}

void luashim_set_hard_exit_status(int status) { hard_exit_status = status; }
void luashim_exit_hard(void) { _exit(hard_exit_status); }

/* A child process the host waits for (graphviz): killed with the process by a hard exit, so it
 * does not run on, orphaned, past the time limit. */
static _Atomic int hard_exit_child;
void luashim_set_hard_exit_child(int pid) { atomic_store(&hard_exit_child, pid); }

void luashim_set_hard_exit_report(int fd, const char *prefix) {
    hard_exit_fd = fd;
    copy_text(hard_exit_prefix, sizeof hard_exit_prefix, prefix);
}

/* Copies at most size-1 bytes without stdio (signal handler). */
static void copy_text(char *dst, size_t size, const char *src) {
    size_t i = 0;
    if (src) for (; src[i] && i + 1 < size; i++) dst[i] = src[i];
    dst[i] = 0;
}

static void append_text(char *dst, size_t size, const char *src) {
    size_t n = strlen(dst);
    copy_text(dst + n, size - n, src);
}

static void append_int(char *dst, size_t size, int v) {
    char tmp[16];
    int i = 0;
    if (v < 0) v = 0;
    do { tmp[i++] = (char)('0' + v % 10); v /= 10; } while (v && i < 15);
    char out[16];
    for (int k = 0; k < i; k++) out[k] = tmp[i - 1 - k];
    out[i] = 0;
    append_text(dst, size, out);
}

/* Runs on the Lua thread (signal handler): names the running function and the first script
 * position. Reads the call stack only (lua_getstack/lua_getinfo without 'f'/'L' push nothing). */
/* [-0, +0, -] */
static void describe(luashim_limits *lim) {
    lua_State *T = atomic_load(&lim->closing) ? lim->main : lim->running;
    lua_Debug ar;
    lim->what[0] = 0;
    lim->where[0] = 0;
    if (lua_getstack(T, 0, &ar) && lua_getinfo(T, "Sn", &ar)) {
        int isC = ar.what && ar.what[0] == 'C';
        if (ar.namewhat && strcmp(ar.namewhat, "metamethod") == 0 && ar.name && strcmp(ar.name, "__gc") == 0) {
            copy_text(lim->what, sizeof lim->what, "a __gc metamethod (finalizers run with hooks off)");
        } else if (isC && lim->c->hostDepth > 0) {
            copy_text(lim->what, sizeof lim->what, "host function '");
            append_text(lim->what, sizeof lim->what, ar.name ? ar.name : "?");
            append_text(lim->what, sizeof lim->what, "' (the engine's own work)");
        } else if (isC) {
            copy_text(lim->what, sizeof lim->what, "C function '");
            append_text(lim->what, sizeof lim->what, ar.name ? ar.name : "?");
            append_text(lim->what, sizeof lim->what, "' (C code cannot be interrupted)");
        } else {
            copy_text(lim->what, sizeof lim->what, "Lua code that never reached a hook");
        }
    }
    innermost_line(T, lim->where, sizeof lim->where, 0);
}

/* SIG_ARM: arm the one-shot hook on the running thread and/or describe it. */
/* [-0, +0, -]: sets the hook only */
static void on_arm_signal(int sig) {
    (void)sig;
    int saved = errno;
    luashim_limits *lim = tls_lim;
    if (lim) {
        if (atomic_exchange(&lim->armRequest, 0) && lim->mode != LUASHIM_BUDGET_EXACT) {
            /* the window's start is taken here, on the Lua thread (clock_gettime is
             * async-signal-safe): the timer may be descheduled before its signal arrives */
            int64_t before = thread_cpu_ns();
            if (lim->mode == LUASHIM_BUDGET_SAMPLED) atomic_store(&lim->armTime, before);
            lim->armed = 1;
            sethook_fast(lim->running, limit_hook, (lim->lineFn ? LUA_MASKLINE : 0) | LUA_MASKCOUNT, 1, 0);
            atomic_store_explicit(&lim->armCost, thread_cpu_ns() - before, memory_order_relaxed);
        }
        if (atomic_load(&lim->describeRequest)) {
            describe(lim);
            atomic_store(&lim->describeDone, 1);
        }
    }
    errno = saved;
}

/* Ends the process: code the hook cannot reach ran past the deadline (or ignored Ctrl-C). */
static void exit_with(const char *msg);

static void hard_exit(luashim_limits *lim, int why) {
    int described = 0;
    if (atomic_load(&lim->active)) {
        atomic_store(&lim->describeDone, 0);
        atomic_store(&lim->describeRequest, 1);
        pthread_kill(lim->thread, SIG_ARM);
        for (int i = 0; i < 200 && !atomic_load(&lim->describeDone); i++) {
            struct timespec ts = { 0, 5 * 1000 * 1000 };
            nanosleep(&ts, NULL);
        }
        described = atomic_load(&lim->describeDone);
    }
    char msg[700], secs[32];
    const char *what = described && lim->what[0] ? lim->what
        : atomic_load(&lim->active) ? "code that cannot be interrupted"
        : "host work after the script (output, rendering)";
    const char *where = described ? lim->where : "";
    const char *when = atomic_load(&lim->closing) ? " while the Lua state was closing" : "";
    format_seconds(secs, sizeof secs, atomic_load(&lim->timeoutMs));
    if (why == WHY_TIMEOUT)
        snprintf(msg, sizeof msg, "error: %stime limit exceeded (%s) in %s%s; raise it with --timeout SECONDS\n",
                 where, secs, what, when);
    else
        snprintf(msg, sizeof msg, "error: %sinterrupted! %s ran on and could not be stopped%s\n", where, what, when);
    exit_with(msg);
}

/* Ends the process with the hard exit's status, `msg` ("error: …\n") on stderr, or, in a test
 * worker, the records of the tests before and the message as its last line. */
static void exit_with(const char *msg) {
    /* keep what the script printed, unless stdout is held by the stuck thread */
    if (ftrylockfile(stdout) == 0) {
        fflush_unlocked(stdout);
        funlockfile(stdout);
    }
    ssize_t w = 0;
    if (hard_exit_fd < 0) w = write(2, msg, strlen(msg));
    else {
        /* the records of the tests that ended before, then the same message for a parent
         * process: prefix, text without "error: ", escaped */
        luashim_results_send_at_exit(hard_exit_fd);
        char line[1500];
        size_t n = 0;
        for (const char *p = hard_exit_prefix; *p && n < sizeof line - 4; p++) line[n++] = *p;
        for (const char *p = msg + 7; *p && *p != '\n' && n < sizeof line - 4; p++) {
            if (*p == '\\' || *p == '\t') { line[n++] = '\\'; line[n++] = *p == '\t' ? 't' : '\\'; }
            else line[n++] = *p;
        }
        line[n++] = '\n';
        w = write(hard_exit_fd, line, n);
    }
    (void)w;
    int child = atomic_load(&hard_exit_child);
    if (child > 0) kill(child, SIGKILL);
    _exit(hard_exit_status);
}

static void tick(luashim_limits *lim, int64_t now) {
    luashim_control *c = lim->c;
    int64_t deadline = atomic_load(&lim->deadline);
    if (deadline && now >= deadline && !atomic_load(&lim->timeUp)) atomic_store(&lim->timeUp, 1);
    int interrupt = c->interrupt;
    if (!interrupt) atomic_store(&lim->interruptSeen, 0);
    else if (!atomic_load(&lim->interruptSeen)) atomic_store(&lim->interruptSeen, now);
    int active = atomic_load(&lim->active);
    if (active && !atomic_load(&lim->closing)) {
        int wants = lim->mode == LUASHIM_BUDGET_SAMPLED
            || (lim->mode != LUASHIM_BUDGET_EXACT && (interrupt || atomic_load(&lim->timeUp)));
        /* An arming walks every frame of the running thread (lua_sethook, see sethook_fast):
         * deep in a recursion that takes milliseconds, so arming is spaced to cost at most about
         * 5 % of the thread's time (a time limit or an interrupt then waits that much longer). */
        int64_t cost = atomic_load_explicit(&lim->armCost, memory_order_relaxed);
        if (wants && now - lim->lastArmSent >= 20 * cost) {
            lim->lastArmSent = now;
            atomic_store(&lim->armRequest, 1);
            pthread_kill(lim->thread, SIG_ARM);
        }
    }
    const int64_t grace = (int64_t)LUASHIM_GRACE_MS * 1000000;
    if (deadline && now >= deadline + grace) hard_exit(lim, WHY_TIMEOUT);
    int64_t seen = atomic_load(&lim->interruptSeen);
    if (active && seen && now - seen >= grace) hard_exit(lim, WHY_INTERRUPT);
}

static void *timer_main(void *arg) {
    (void)arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    for (;;) {
        int busy = 0;
        pthread_mutex_lock(&reg_lock);
        int64_t now = mono_ns();
        for (luashim_limits *lim = registry; lim; lim = lim->next) {
            tick(lim, now);
            if (atomic_load(&lim->active) || atomic_load(&lim->deadline)) busy = 1;
        }
        pthread_mutex_unlock(&reg_lock);
        /* a test worker's results that wait in its buffer go out on time (results.c) */
        if (busy && hard_exit_fd >= 0) luashim_results_send_due(hard_exit_fd, now);
        struct timespec ts = { 0, (busy ? LUASHIM_TICK_MS : 50) * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    return NULL;
}

/* Starts the timer thread and installs the arming signal handler (once per process). */
static void ensure_timer(void) {
    if (__atomic_load_n(&timer_started, __ATOMIC_ACQUIRE)) return;
    pthread_mutex_lock(&reg_lock);
    if (!timer_started) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_arm_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        sigaction(SIG_ARM, &sa, NULL);
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&t, &attr, timer_main, NULL) == 0) __atomic_store_n(&timer_started, 1, __ATOMIC_RELEASE);
        pthread_attr_destroy(&attr);
    }
    pthread_mutex_unlock(&reg_lock);
}

/* ---------------- life cycle ---------------- */

void luashim_limits_attach(lua_State *L, luashim_control *c, int64_t budget) {
    luashim_limits *lim = (luashim_limits *)calloc(1, sizeof(luashim_limits));
    if (!lim) return;
    lim->c = c;
    lim->main = L;
    lim->running = L;
    c->lim = lim;
    c->budget = budget;
    lim->maxBudget = budget;
    lim->mode = budget < 0 ? LUASHIM_BUDGET_NONE : LUASHIM_BUDGET_SAMPLED;
    pthread_mutex_lock(&reg_lock);
    lim->next = registry;
    registry = lim;
    pthread_mutex_unlock(&reg_lock);
}

/* [-0, +0, -] */
void luashim_limits_closing(lua_State *L, luashim_control *c) {
    luashim_limits *lim = c->lim;
    if (!lim) return;
    lim->running = L;
    lim->thread = pthread_self();
    lim->prevTls = tls_lim;
    tls_lim = lim;
    unblock_arm_signal();
    atomic_store(&lim->closing, 1);
    atomic_store(&lim->active, 1);
}

/* [-0, +0, -] After lua_close: finalizers it ran needed more memory than the cap (their
 * allocations were refused, and each such finalizer stopped with "not enough memory"). Where a
 * wall-clock limit watches the state (the command line), that ends the process as a limit does:
 * status 3 and the message; a host without one only gets the flag. */
void luashim_limits_closed_over_cap(luashim_control *c) {
    luashim_limits *lim = c->lim;
    if (!lim || atomic_load(&lim->timeoutMs) <= 0) return;
    char msg[200];
    snprintf(msg, sizeof msg,
             "error: memory limit exceeded (%zu MiB) in a finalizer while the Lua state was closing; "
             "raise it with --max-memory MiB\n", c->limit >> 20);
    exit_with(msg);
}

void luashim_limits_detach(luashim_control *c) {
    luashim_limits *lim = c->lim;
    if (!lim) return;
    pthread_mutex_lock(&reg_lock);
    for (luashim_limits **p = &registry; *p; p = &(*p)->next) {
        if (*p == lim) { *p = lim->next; break; }
    }
    pthread_mutex_unlock(&reg_lock);
    if (tls_lim == lim) tls_lim = lim->prevTls;
    c->lim = NULL;
    free(lim);
}

/* [-0, +0, -]: sets the hook only */
void luashim_limits_reset(lua_State *L, int64_t budget, int exact) {
    luashim_control *c = luashim_control_of(L);
    luashim_limits *lim = c->lim;
    c->budget = budget;
    c->executed = 0;
    c->budgetExceeded = 0;
    c->timedOut = 0;
    c->hostStopped = 0;
    luashim_memory_restart(L, c);
    c->limitRaised = 0;
    c->interrupt = 0;
    lim->maxBudget = budget;
    lim->mode = budget < 0 ? LUASHIM_BUDGET_NONE : exact ? LUASHIM_BUDGET_EXACT : LUASHIM_BUDGET_SAMPLED;
    lim->charged = 0;
    lim->message[0] = 0;
    lim->refusedWhere[0] = 0;
    lim->refusedTraceback[0] = 0;
    lim->sampling = 0;
    lim->armed = 0;
    lim->lastMark = thread_cpu_ns();
    atomic_store(&lim->timeUp, 0);
    set_hook(L, lim);
}

void luashim_set_timeout(lua_State *L, int64_t ms) {
    luashim_limits *lim = luashim_control_of(L)->lim;
    atomic_store(&lim->timeUp, 0);
    atomic_store(&lim->timeoutMs, ms);
    atomic_store(&lim->deadline, ms > 0 ? mono_ns() + ms * 1000000 : 0);
    if (ms > 0) ensure_timer();
}

const char *luashim_timeout_message(lua_State *L) {
    luashim_control *c = luashim_control_of(L);
    return c->timedOut && c->lim->message[0] ? c->lim->message : NULL;
}

int64_t luashim_instructions_charged(lua_State *L) {
    return luashim_control_of(L)->lim->charged;
}

/* [-0, +0, -]: sets the hook only */
void luashim_set_line_hook(lua_State *L, luashim_line_fn fn, void *ud) {
    luashim_limits *lim = luashim_control_of(L)->lim;
    lim->lineFn = fn;
    lim->lineData = ud;
    set_hook(L, lim);
}

int luashim_charge(lua_State *L, int64_t units) {
    luashim_control *c = luashim_control_of(L);
    if (units > 0) charge(c, units);
    if (!host_must_stop(c)) return 0;
    c->hostStopped = 1;
    return 1;
}

/* A host call into Lua starts (luashim_pcall and friends). */
/* [-0, +0, -]: sets the hook only */
void luashim_limits_enter(lua_State *L, luashim_control *c) {
    if (c->pcallDepth++ > 0) return;
    luashim_limits *lim = c->lim;
    lim->prevTls = tls_lim;
    tls_lim = lim;
    unblock_arm_signal();
    lim->thread = pthread_self();
    lim->running = L;
    lim->sampling = 0;
    lim->armed = 0;
    if (lim->mode == LUASHIM_BUDGET_SAMPLED) lim->lastMark = thread_cpu_ns();
    set_hook(L, lim);
    atomic_store(&lim->active, 1);
    if (lim->mode == LUASHIM_BUDGET_SAMPLED || atomic_load(&lim->deadline)) ensure_timer();
}

/* The host call into Lua ends. */
/* [-0, +0, -] */
void luashim_limits_leave(lua_State *L, luashim_control *c) {
    if (--c->pcallDepth > 0) return;
    luashim_limits *lim = c->lim;
    atomic_store(&lim->active, 0);
    settle(L, lim);
    lim->sampling = 0;
    lim->armed = 0;
    tls_lim = lim->prevTls;
}

/* ---------------- coroutines ---------------- */

/* Inlined into coroutine.resume and the coroutine.wrap function: a yield returns into
 * lua_resume by longjmp, after which every return up the C stack is mispredicted, so each C
 * frame between lua_resume and the VM costs ~10 ns per resume (measured: three frames made a
 * resume 50 % slower than lua5.4's). */
/* [-0, +0, -] on from; co: [-nargs, +(nres|1), -] as lua_resume */
static inline __attribute__((always_inline)) int resume_inline(lua_State *co, lua_State *from, int nargs, int *nres) {
    luashim_control *c = luashim_control_of(from);
    luashim_limits *lim = c->lim;
    /* Fast path (sampled or no budget, nothing armed, no window, no line hook, nothing sticky):
     * every thread runs without a hook, so only the running thread changes. */
    if (lim->mode != LUASHIM_BUDGET_EXACT && !lim->sampling && !lim->armed && !lim->lineFn && !is_sticky(c)) {
        lim->running = co;
        int status = lua_resume(co, from, nargs, nres);
        lim->running = from;
        if (lim->armed || lim->sampling || is_sticky(c)) {   /* armed meanwhile */
            settle(co, lim);
            set_hook(from, lim);
        }
        return status;
    }
    settle(from, lim);
    lim->running = co;
    set_hook(co, lim);
    int status = lua_resume(co, from, nargs, nres);
    settle(co, lim);
    lim->running = from;
    set_hook(from, lim);
    return status;
}

/* as resume_inline */
int luashim_resume(lua_State *co, lua_State *from, int nargs, int *nres) {
    return resume_inline(co, from, nargs, nres);
}

/* Resumes co with narg values from L's top. Results (or the error) are moved to L.
 * Stack: L [args] -> [results] (returns their count) | [error] (returns -1). */
/* [-narg, +(r|1), -] */
static inline __attribute__((always_inline)) int resume_values(lua_State *L, lua_State *co, int narg) {
    if (!lua_checkstack(co, narg)) {
        lua_pushliteral(L, "too many arguments to resume");
        return -1;
    }
    lua_xmove(L, co, narg);
    int nres = 0;
    int status = resume_inline(co, L, narg, &nres);
    if (status == LUA_OK || status == LUA_YIELD) {
        if (!lua_checkstack(L, nres + 1)) {
            lua_pop(co, nres);
            lua_pushliteral(L, "too many results to resume");
            return -1;
        }
        lua_xmove(co, L, nres);
        return nres;
    }
    lua_xmove(co, L, 1);
    return -1;
}

/* A limit, interrupt or strict abort raised inside a coroutine goes on in the resumer at once.
 * Stack: [..., error?] -> unchanged, or raises (the coroutine's own error when it failed, so the
 * message keeps its position). */
/* [-0, +0, v] */
static void rethrow_limit_due(lua_State *L, int failed);

static inline __attribute__((always_inline)) void rethrow_limit(lua_State *L, int failed) {
    if (!nothing_due(luashim_control_of(L))) rethrow_limit_due(L, failed);
}

static void rethrow_limit_due(lua_State *L, int failed) {
    luashim_control *c = luashim_control_of(L);
    if (!raise_due(L, c)) return;
    if (failed) {
        set_hook(L, c->lim);
        lua_error(L);
    }
    raise_limit(L, c);
}

/* coroutine.resume(co, ...). Stack: [co, args...] -> [true, results...] | [false, error]. */
/* [-0, +(r+1|2), e] */
static int co_resume(lua_State *L) {
    lua_State *co = lua_tothread(L, 1);
    luaL_argexpected(L, co, 1, "thread");
    int r = resume_values(L, co, lua_gettop(L) - 1);
    rethrow_limit(L, r < 0);
    if (r < 0) {
        lua_pushboolean(L, 0);
        lua_insert(L, -2);
        return 2;
    }
    lua_pushboolean(L, 1);
    lua_insert(L, -(r + 1));
    return r + 1;
}

/* coroutine.close(co), as Lua's own, with the closing methods run under the limits: they run on
 * co's stack, so co is the running thread meanwhile (else a closing method that never returns
 * met the time limit as "C code cannot be interrupted", and the count hook was not on it).
 * Stack: [co] -> [true] | [false, error]. */
/* [-0, +(1|2), e] */
static int co_close(lua_State *L) {
    lua_State *co = lua_tothread(L, 1);
    luaL_argexpected(L, co, 1, "thread");
    lua_Debug ar;
    int status = lua_status(co);
    const char *cannot = NULL;
    if (co == L) cannot = "running";
    else if (status == LUA_OK && lua_getstack(co, 0, &ar)) cannot = "normal";
    if (cannot) return luaL_error(L, "cannot close a %s coroutine", cannot);
    luashim_control *c = luashim_control_of(L);
    luashim_limits *lim = c->lim;
    settle(L, lim);
    lim->running = co;
    set_hook(co, lim);
#if LUA_VERSION_RELEASE_NUM >= 50406
    status = lua_closethread(co, L);
#else
    status = lua_resetthread(co);
#endif
    settle(co, lim);
    lim->running = L;
    set_hook(L, lim);
    if (status == LUA_OK) {
        rethrow_limit(L, 0);
        lua_pushboolean(L, 1);
        return 1;
    }
    lua_xmove(co, L, 1);
    rethrow_limit(L, 1);
    lua_pushboolean(L, 0);
    lua_insert(L, -2);
    return 2;
}

/* The function coroutine.wrap returns (upvalue 1: the coroutine).
 * Stack: [args...] -> [results...] or raises the coroutine's error with the caller's position. */
/* [-0, +r, e] */
static int co_wrapped(lua_State *L) {
    lua_State *co = lua_tothread(L, lua_upvalueindex(1));
    int r = resume_values(L, co, lua_gettop(L));
    if (r >= 0) {
        rethrow_limit(L, 0);
        return r;
    }
    rethrow_limit(L, 1);
    int status = lua_status(co);
    if (status != LUA_OK && status != LUA_YIELD) {
        status = lua_resetthread(co);   /* runs its pending to-be-closed variables */
        lua_xmove(co, L, 1);
    }
    if (status != LUA_ERRMEM && lua_type(L, -1) == LUA_TSTRING) {
        luaL_where(L, 1);
        lua_insert(L, -2);
        lua_concat(L, 2);
    }
    return lua_error(L);
}

/* coroutine.wrap(f). Stack: [f] -> [wrapper]. */
/* [-0, +1, m] */
static int co_wrap(lua_State *L) {
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_State *co = lua_newthread(L);
    lua_pushvalue(L, 1);
    lua_xmove(L, co, 1);
    lua_pushcclosure(L, co_wrapped, 1);
    return 1;
}

/* Replaces coroutine.resume, coroutine.wrap and coroutine.close in the coroutine table at the top.
 * Stack: [coroutine] -> [coroutine]. */
/* [-0, +0, m] */
void luashim_install_coroutines(lua_State *L) {
    lua_pushcfunction(L, co_resume);
    lua_setfield(L, -2, "resume");
    lua_pushcfunction(L, co_wrap);
    lua_setfield(L, -2, "wrap");
    lua_pushcfunction(L, co_close);
    lua_setfield(L, -2, "close");
}

/* ---------------- strict aborts ---------------- */

/* [-(on ? 1 : 0), +0, m] */
void luashim_set_abort(lua_State *L, int on) {
    luashim_control *c = luashim_control_of(L);
    if (on) {
        lua_setfield(L, LUA_REGISTRYINDEX, ABORT_KEY);   /* [msg] -> [] */
        c->abortPending = on == 2 ? 2 : 1;
    } else {
        c->abortPending = 0;
        lua_pushnil(L);
        lua_setfield(L, LUA_REGISTRYINDEX, ABORT_KEY);   /* [] -> [] */
    }
    set_hook(L, c->lim);
}
