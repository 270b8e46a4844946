#include "luashim.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#define HOOK_COUNT 1000
#define HOST_SLACK ((size_t)64 << 20)  /* host allocations may exceed the cap by this much */
#define SOFT_SLACK ((size_t)4 << 20)   /* Lua may exceed it by this much until the hook raises */
static const char *TRACEBACK_KEY = "responder.lastTraceback";

/* ---------------- allocator ---------------- */

static void *capped_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    luashim_control *c = (luashim_control *)ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        c->used -= old;
        return NULL;
    }
    if (nsize > old && c->limit > 0) {
        size_t grow = nsize - old;
        if (c->used + grow > c->limit) {
            /* Over the cap. Inside host (Swift) code never fail: an allocation failure
             * would longjmp through Swift frames. Record it; C raises once Swift returns. */
            if (c->hostDepth > 0 && c->used + grow <= c->limit + HOST_SLACK) {
                c->memoryExceeded = 1;
            } else if (c->used + grow <= c->limit + SOFT_SLACK && !c->memoryExceeded) {
                /* a little over: let the count hook raise it as an ordinary error, within
                 * 1000 instructions, so the message gets a location and a traceback */
                c->memoryExceeded = 1;
            } else {
                c->memoryExceeded = 1;
                c->limitRaised = 1;
                return NULL;
            }
        }
    }
    if (c->failAfter > 0 && c->hostDepth > 0 && nsize > old) {
        /* testing aid: simulate a failing allocation in host-driven API calls */
        if (--c->failAfter == 0) { c->memoryExceeded = 1; }
    }
    void *p = realloc(ptr, nsize);
    if (p == NULL) return NULL;
    c->used = c->used - old + nsize;
    if (c->used > c->peak) c->peak = c->used;
    return p;
}

luashim_control *luashim_control_of(lua_State *L) {
    void *ud = NULL;
    lua_getallocf(L, &ud);
    return (luashim_control *)ud;
}

/* ---------------- limits ---------------- */

static void count_hook(lua_State *L, lua_Debug *ar);

/* The hook mask: the count hook always; line events too while coverage records lines. */
#define HOOK_MASK(c) (LUA_MASKCOUNT | ((c)->coverage ? LUA_MASKLINE : 0))

static const char *ABORT_KEY = "responder.abortMessage";

static void raise_limit(lua_State *L, luashim_control *c) {
    if (c->abortPending) {
        lua_sethook(L, count_hook, HOOK_MASK(c), 1);
        lua_getfield(L, LUA_REGISTRYINDEX, ABORT_KEY);
        lua_error(L);
    }
    c->limitRaised = 1;
    if (c->interrupt) {
        c->interrupt = 0;
        lua_pushliteral(L, "interrupted!");
        lua_error(L);
    }
    /* from now on check at every instruction, so a pcall cannot swallow the limit for long */
    lua_sethook(L, count_hook, HOOK_MASK(c), 1);
    if (c->memoryExceeded) {
        /* allow the message itself to be built */
        c->hostDepth++;
        lua_pushliteral(L, "not enough memory");
        c->hostDepth--;
        lua_error(L);
    }
    luaL_where(L, 0);
    lua_pushliteral(L, "instruction limit exceeded");
    lua_concat(L, 2);
    lua_error(L);
}

static void count_hook(lua_State *L, lua_Debug *ar) {
    luashim_control *c = luashim_control_of(L);
    if (ar->event == LUA_HOOKLINE) {
        luashim_cov_line(L, c->coverage, ar);
        return;
    }
    c->hookTicks++;
    if (c->budget >= 0) {
        c->executed += HOOK_COUNT;
        c->budget -= HOOK_COUNT;
        if (c->budget < 0) c->budgetExceeded = 1;
    } else {
        c->executed += HOOK_COUNT;
    }
    if (c->budgetExceeded || c->memoryExceeded || c->interrupt || c->abortPending) raise_limit(L, c);
}

static int panic_handler(lua_State *L) {
    (void)L;
    return 0; /* unreachable in practice: every call is protected */
}

lua_State *luashim_newstate(size_t memoryLimit, int64_t instructionBudget) {
    luashim_control *c = (luashim_control *)calloc(1, sizeof(luashim_control));
    if (!c) return NULL;
    c->limit = memoryLimit;
    c->budget = instructionBudget;
    c->hostDepth = 1;
    lua_State *L = lua_newstate(capped_alloc, c);
    if (!L) { free(c); return NULL; }
    lua_atpanic(L, panic_handler);
    lua_sethook(L, count_hook, HOOK_MASK(c), HOOK_COUNT);
    return L;
}

static void stop_watchdog(luashim_control *c);

void luashim_close(lua_State *L) {
    luashim_control *c = luashim_control_of(L);
    stop_watchdog(c);
    c->hostDepth++;
    c->limit = 0;
    lua_close(L);
    luashim_cov_free(c->coverage);
    free(c);
}

void luashim_reset_limits(lua_State *L, int64_t instructionBudget) {
    luashim_control *c = luashim_control_of(L);
    c->budget = instructionBudget;
    c->executed = 0;
    c->budgetExceeded = 0;
    c->memoryExceeded = c->used > c->limit && c->limit > 0;
    c->limitRaised = 0;
    c->interrupt = 0;
    lua_sethook(L, count_hook, HOOK_MASK(c), HOOK_COUNT);
}

/* ---------------- trampoline ---------------- */

int luashim_run_swift(lua_State *L, luashim_swift_fn fn) {
    luashim_control *c = luashim_control_of(L);
    c->hostDepth++;
    int n = fn(L);
    c->hostDepth--;
    if (c->memoryExceeded && c->limit > 0) raise_limit(L, c);
    if (n < 0) return lua_error(L);
    return n;
}

/* Registered Swift functions, each with its own light C trampoline (trampolines.c). */
#define MAX_LIGHT 512
luashim_swift_fn luashim_fn_table[MAX_LIGHT];
extern const lua_CFunction luashim_light_trampolines[MAX_LIGHT];
static luashim_swift_fn light_keys[2 * MAX_LIGHT];
static int light_values[2 * MAX_LIGHT];
static int light_count;
static pthread_mutex_t light_lock = PTHREAD_MUTEX_INITIALIZER;

/* The light trampoline of `fn`, registering it on first use; NULL when the table is full. */
static lua_CFunction light_trampoline(luashim_swift_fn fn) {
    uintptr_t h = ((uintptr_t)fn >> 4) * 2654435761u;
    lua_CFunction result = NULL;
    pthread_mutex_lock(&light_lock);
    for (unsigned i = 0; i < 2 * MAX_LIGHT; i++) {
        unsigned slot = (unsigned)((h + i) % (2 * MAX_LIGHT));
        if (light_keys[slot] == fn) { result = luashim_light_trampolines[light_values[slot]]; break; }
        if (light_keys[slot] == NULL) {
            if (light_count < MAX_LIGHT) {
                luashim_fn_table[light_count] = fn;
                light_keys[slot] = fn;
                light_values[slot] = light_count;
                result = luashim_light_trampolines[light_count];
                light_count++;
            }
            break;
        }
    }
    pthread_mutex_unlock(&light_lock);
    return result;
}

static int trampoline(lua_State *L) {
    return luashim_run_swift(L, (luashim_swift_fn)(uintptr_t)lua_touserdata(L, lua_upvalueindex(1)));
}

void luashim_push_swift_function(lua_State *L, luashim_swift_fn fn) {
    lua_CFunction light = light_trampoline(fn);
    if (light) { lua_pushcfunction(L, light); return; }
    lua_pushlightuserdata(L, (void *)(uintptr_t)fn);
    lua_pushcclosure(L, trampoline, 1);
}

void luashim_push_swift_closure(lua_State *L, luashim_swift_fn fn, int nup) {
    lua_pushlightuserdata(L, (void *)(uintptr_t)fn);
    if (nup > 0) lua_insert(L, -(nup + 1));
    lua_pushcclosure(L, trampoline, 1 + nup);
}

static int c_add(lua_State *L) {
    int ok1 = 0, ok2 = 0;
    lua_Integer a = lua_tointegerx(L, 1, &ok1), b = lua_tointegerx(L, 2, &ok2);
    if (!ok1 || !ok2) return luaL_error(L, "cAdd: expected two integers");
    lua_pushinteger(L, a + b);
    return 1;
}

void luashim_push_c_add(lua_State *L) { lua_pushcfunction(L, c_add); }

/* ---------------- protected calls ---------------- */

int luashim_msgh(lua_State *L) {
    const char *msg = NULL;
    if (lua_type(L, 1) == LUA_TSTRING) msg = lua_tostring(L, 1);
    luaL_traceback(L, L, msg ? NULL : NULL, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, TRACEBACK_KEY);
    lua_settop(L, 1);
    return 1;
}

int luashim_pcall(lua_State *L, int nargs, int nresults) {
    luashim_control *c = luashim_control_of(L);
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, luashim_msgh);
    lua_insert(L, base);
    int saved = c->hostDepth;
    c->hostDepth = 0;
    c->pcallDepth++;
    int status = lua_pcall(L, nargs, nresults, base);
    c->pcallDepth--;
    c->hostDepth = saved;
    lua_remove(L, base);
    return status;
}

void luashim_push_last_traceback(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, TRACEBACK_KEY);
}

int luashim_load_text(lua_State *L, const char *buff, size_t size, const char *chunkname) {
    luashim_control *c = luashim_control_of(L);
    int saved = c->hostDepth;
    c->hostDepth = 0;
    int status = luaL_loadbufferx(L, buff, size, chunkname, "t");
    c->hostDepth = saved;
    return status;
}

/* ---------------- tostring in protected mode ---------------- */

static int tostring_k(lua_State *L) {
    luaL_tolstring(L, 1, NULL);
    return 1;
}

void luashim_tostring(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    lua_pushcfunction(L, tostring_k);
    lua_pushvalue(L, idx);
    luashim_control *c = luashim_control_of(L);
    int saved = c->hostDepth;
    c->hostDepth = 0;
    int st = lua_pcall(L, 1, 1, 0);
    c->hostDepth = saved;
    if (st != LUA_OK) {
        lua_pop(L, 1);
        lua_pushfstring(L, "%s: %p", luaL_typename(L, idx), lua_topointer(L, idx));
    }
}

/* ---------------- where ---------------- */

void luashim_where(lua_State *L, int level) {
    luaL_where(L, level);
}

/* ---------------- sandbox ---------------- */

static const char *const removed_base[] = { "dofile", "loadfile", NULL };
static const char *const kept_os[] = { "time", "clock", "date", "difftime", NULL };

/* coroutine.resume / coroutine.wrap that let a limit or a strict abort raised inside the
 * coroutine go on at once in the resumer (the count hook is per thread). */
static void check_after_resume(lua_State *L) {
    luashim_control *c = luashim_control_of(L);
    if (c->budgetExceeded || c->abortPending || (c->memoryExceeded && c->limit > 0) || c->interrupt)
        raise_limit(L, c);
}

static int guarded_resume(lua_State *L) {
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    check_after_resume(L);
    return lua_gettop(L);
}

static int guarded_wrapped(lua_State *L) {
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    int status = lua_pcall(L, n, LUA_MULTRET, 0);
    check_after_resume(L);
    if (status != LUA_OK) return lua_error(L);
    return lua_gettop(L);
}

static int guarded_wrap(lua_State *L) {
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    lua_pushcclosure(L, guarded_wrapped, 1);
    return 1;
}

void luashim_open_sandbox(lua_State *L) {
    luaL_requiref(L, LUA_GNAME, luaopen_base, 1); lua_pop(L, 1);
    luaL_requiref(L, LUA_STRLIBNAME, luaopen_string, 1); lua_pop(L, 1);
    luaL_requiref(L, LUA_TABLIBNAME, luaopen_table, 1); lua_pop(L, 1);
    luaL_requiref(L, LUA_MATHLIBNAME, luaopen_math, 1); lua_pop(L, 1);
    luaL_requiref(L, LUA_UTF8LIBNAME, luaopen_utf8, 1); lua_pop(L, 1);
    luaL_requiref(L, LUA_COLIBNAME, luaopen_coroutine, 1); lua_pop(L, 1);
    luaL_requiref(L, LUA_OSLIBNAME, luaopen_os, 1);
    /* keep only os.time/clock/date */
    lua_newtable(L);
    for (const char *const *k = kept_os; *k; k++) {
        lua_getfield(L, -2, *k);
        lua_setfield(L, -2, *k);
    }
    lua_setglobal(L, LUA_OSLIBNAME);
    lua_pop(L, 1);
    /* string.dump removed from the real string table (reachable via the string metatable) */
    lua_getglobal(L, LUA_STRLIBNAME);
    lua_pushnil(L);
    lua_setfield(L, -2, "dump");
    lua_pop(L, 1);
    /* package.loaded must not expose the full os */
    lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_getglobal(L, LUA_OSLIBNAME);
    lua_setfield(L, -2, LUA_OSLIBNAME);
    lua_pop(L, 1);
    for (const char *const *k = removed_base; *k; k++) {
        lua_pushnil(L);
        lua_setglobal(L, *k);
    }
    lua_getglobal(L, LUA_COLIBNAME);
    lua_getfield(L, -1, "resume");
    lua_pushcclosure(L, guarded_resume, 1);
    lua_setfield(L, -2, "resume");
    lua_getfield(L, -1, "wrap");
    lua_pushcclosure(L, guarded_wrap, 1);
    lua_setfield(L, -2, "wrap");
    lua_pop(L, 1);
}

#include <stdio.h>
#include <unistd.h>
void luashim_write_stderr(const char *s, size_t n) { fflush(stdout); fwrite(s, 1, n, stderr); fflush(stderr); }
void luashim_write_stdout(const char *s, size_t n) { fwrite(s, 1, n, stdout); }
void luashim_flush_stdout(void) { fflush(stdout); }
int luashim_isatty(int fd) { return isatty(fd); }

/* ---------------- objects ---------------- */

static int index_with_methods(lua_State *L) {
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) return 1;
    lua_pop(L, 1);
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 2);
    lua_call(L, 2, 1);
    return 1;
}

void luashim_push_index(lua_State *L) {
    lua_pushcclosure(L, index_with_methods, 2);
}

void luashim_push_object(lua_State *L, void *ptr, int mtref, int nuv) {
    void **p = (void **)lua_newuserdatauv(L, sizeof(void *), nuv);
    *p = ptr;
    lua_rawgeti(L, LUA_REGISTRYINDEX, mtref);
    lua_setmetatable(L, -2);
}

void *luashim_to_object(lua_State *L, int idx, int mtref) {
    void **p = (void **)lua_touserdata(L, idx);
    if (p == NULL || !lua_getmetatable(L, idx)) return NULL;
    lua_rawgeti(L, LUA_REGISTRYINDEX, mtref);
    int same = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return same ? *p : NULL;
}

void luashim_set_abort(lua_State *L, int on) {
    luashim_control *c = luashim_control_of(L);
    if (on) {
        lua_setfield(L, LUA_REGISTRYINDEX, ABORT_KEY);
        c->abortPending = 1;
        lua_sethook(L, count_hook, HOOK_MASK(c), 1);
    } else {
        c->abortPending = 0;
        if (!c->budgetExceeded && !c->memoryExceeded) lua_sethook(L, count_hook, HOOK_MASK(c), HOOK_COUNT);
        lua_pushnil(L);
        lua_setfield(L, LUA_REGISTRYINDEX, ABORT_KEY);
    }
}

#include <malloc.h>
size_t luashim_heap_in_use(void) { struct mallinfo2 mi = mallinfo2(); return mi.uordblks; }

/* ---------------- watchdog ---------------- */

#include <pthread.h>
#include <time.h>

/* One thread per process watches every state that asked for it (test workers create a state
 * per file: starting and joining a thread each time would cost more than the tests). */
#define MAX_WATCHED 64
typedef struct { luashim_control *c; int64_t lastTicks; int stalled; int limit; } watched_t;
static watched_t watched[MAX_WATCHED];
static int watched_count;
static int watchdog_started;
static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;

static void *watchdog_main(void *arg) {
    (void)arg;
    for (;;) {
        struct timespec ts = { 0, 100 * 1000 * 1000 };
        nanosleep(&ts, NULL);
        pthread_mutex_lock(&watch_lock);
        for (int i = 0; i < watched_count; i++) {
            watched_t *w = &watched[i];
            int64_t ticks = w->c->hookTicks;
            if (w->c->pcallDepth > 0 && ticks == w->lastTicks) {
                if (++w->stalled >= w->limit) {
                    static const char msg[] =
                        "error: a __gc metamethod (or other code Lua runs with hooks off) ran for too long; "
                        "the instruction limit cannot stop it there\n";
                    fflush(stdout);
                    (void)!write(2, msg, sizeof msg - 1);
                    _exit(3);
                }
            } else {
                w->stalled = 0;
            }
            w->lastTicks = ticks;
        }
        pthread_mutex_unlock(&watch_lock);
    }
    return NULL;
}

void luashim_start_watchdog(lua_State *L, int seconds) {
    luashim_control *c = luashim_control_of(L);
    if (c->watchdog) return;
    pthread_mutex_lock(&watch_lock);
    if (watched_count < MAX_WATCHED) {
        watched[watched_count++] = (watched_t){ c, c->hookTicks, 0, seconds * 10 };
        c->watchdog = c;
        if (!watchdog_started) {
            pthread_t thread;
            if (pthread_create(&thread, NULL, watchdog_main, NULL) == 0) {
                pthread_detach(thread);
                watchdog_started = 1;
            }
        }
    }
    pthread_mutex_unlock(&watch_lock);
}

static void stop_watchdog(luashim_control *c) {
    if (!c->watchdog) return;
    pthread_mutex_lock(&watch_lock);
    for (int i = 0; i < watched_count; i++) {
        if (watched[i].c == c) {
            watched[i] = watched[--watched_count];
            break;
        }
    }
    pthread_mutex_unlock(&watch_lock);
    c->watchdog = NULL;
}

/* ---------------- values ---------------- */

luashim_value_cell *luashim_new_value(lua_State *L, void *typeBlock, int mtref) {
    luashim_value_cell *cell = (luashim_value_cell *)lua_newuserdatauv(L, sizeof(luashim_value_cell), 3);
    cell->typeBlock = (void **)typeBlock;
    cell->live = NULL;
    lua_rawgeti(L, LUA_REGISTRYINDEX, mtref);
    lua_setmetatable(L, -2);
    return cell;
}

luashim_value_cell *luashim_to_value(lua_State *L, int idx, int mtref) {
    void *p = lua_touserdata(L, idx);
    if (p == NULL || !lua_getmetatable(L, idx)) return NULL;
    lua_rawgeti(L, LUA_REGISTRYINDEX, mtref);
    int same = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    if (!same) return NULL;
    luashim_value_cell *cell = (luashim_value_cell *)p;
    return *cell->typeBlock != NULL ? cell : NULL;
}

/* ---------------- coverage (line hook) ---------------- */

void luashim_coverage_enable(lua_State *L) {
    luashim_control *c = luashim_control_of(L);
    if (c->coverage) return;
    c->coverage = luashim_cov_new();
    if (c->coverage) lua_sethook(L, count_hook, HOOK_MASK(c), HOOK_COUNT);
}
