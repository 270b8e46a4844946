#include "luashim.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#define SOFT_SLACK ((size_t)4 << 20)   /* Lua may exceed the cap by this much until the hook raises */
static const char *TRACEBACK_KEY = "responder.lastTraceback";

/* ---------------- allocator ---------------- */

/* What glibc's malloc takes for a request of n bytes: an 8-byte header, 16-byte granules,
 * 32 bytes at least. Counting chunks, not requests, keeps the count of a heap of many small
 * objects (Lua's strings and tables) close to the memory it really takes. */
static inline size_t chunk_size(size_t n) {
    size_t c = (n + 8 + 15) & ~(size_t)15;
    return c < 32 ? 32 : c;
}

void luashim_memory_crossing(luashim_control *c);
void luashim_memory_refused(luashim_control *c);

static inline size_t total_used(const luashim_control *c) { return c->used + c->hostUsed; }

/* Small-block cache. A Lua heap is mostly small objects made and dropped at a high rate
 * (tables, closures, strings, userdata of 32- to 288-byte chunks), and a test worker makes and
 * closes one state per spec file. glibc's malloc keeps only 7 freed chunks per size in its
 * per-thread cache and sends the rest to bins that cost a consolidation pass later. So blocks Lua
 * frees are kept per size class (a singly linked list through their first word) in a cache of
 * the calling thread, and handed out again to any state that allocates on that thread, up to
 * BLOCK_CACHE_BYTES; the rest goes to free(). Every block of a class is malloc'd at the class's
 * largest request, so any request of the class fits any block of it. The kept bytes are not in
 * a state's `used` (what its Lua heap holds): like malloc's own free lists they are memory the
 * process keeps for reuse, at most 4 MB per thread, given back when a cap is crossed and when
 * the thread ends. A block is plain malloc memory: which state or thread frees it later does
 * not matter. Under AddressSanitizer every block goes straight back to free(), so that a use
 * after free in the Lua heap is still found. */
#if defined(__SANITIZE_ADDRESS__)
#define BLOCK_CACHE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BLOCK_CACHE 0
#endif
#endif
#ifndef BLOCK_CACHE
#define BLOCK_CACHE 1
#endif
#define BLOCK_CLASSES 17                              /* chunks of 32, 48, ..., 288 bytes */
#define SMALL_CHUNK (32 + 16 * (BLOCK_CLASSES - 1))    /* 288: requests of up to 280 bytes */
#define BLOCK_CACHE_BYTES ((size_t)4 << 20)

typedef struct block_cache {
    void *heads[BLOCK_CLASSES];
    size_t bytes;
    int registered;   /* the thread's end gives the blocks back (blocks_key) */
} block_cache;

static _Thread_local block_cache blocks;
static pthread_key_t blocks_key;
static pthread_once_t blocks_once = PTHREAD_ONCE_INIT;

/* Gives every kept block of this thread back to malloc. */
static void blocks_release(void) {
    for (unsigned k = 0; k < BLOCK_CLASSES; k++) {
        void *p = blocks.heads[k];
        while (p) {
            void *next = *(void **)p;
            free(p);
            p = next;
        }
        blocks.heads[k] = NULL;
    }
    blocks.bytes = 0;
}

static void blocks_thread_end(void *unused) {
    (void)unused;
    blocks_release();
}

static void blocks_make_key(void) { (void)pthread_key_create(&blocks_key, blocks_thread_end); }

/* The class of a chunk size of at most SMALL_CHUNK. */
static inline unsigned block_class(size_t chunk) { return (unsigned)((chunk - 32) >> 4); }

static void *block_get(size_t chunk) {
#if BLOCK_CACHE
    unsigned k = block_class(chunk);
    void *p = blocks.heads[k];
    if (p) {
        blocks.heads[k] = *(void **)p;
        blocks.bytes -= chunk;
        return p;
    }
#endif
    return malloc(chunk - 8);
}

static void block_put(void *p, size_t chunk) {
#if BLOCK_CACHE
    if (blocks.bytes + chunk <= BLOCK_CACHE_BYTES) {
        if (!blocks.registered) {
            /* the thread's first kept block: its end gives the cache back */
            pthread_once(&blocks_once, blocks_make_key);
            blocks.registered = pthread_setspecific(blocks_key, &blocks) == 0;
        }
        unsigned k = block_class(chunk);
        *(void **)p = blocks.heads[k];
        blocks.heads[k] = p;
        blocks.bytes += chunk;
        return;
    }
#else
    (void)chunk;
#endif
    free(p);
}

/* Frees `ptr`, a block of `old` chunk bytes. */
static inline void block_free(void *ptr, size_t old) {
    if (old <= SMALL_CHUNK) block_put(ptr, old);
    else free(ptr);
}

/* A block of `new` chunk bytes for `nsize` bytes holding the first bytes of `ptr` (a block of
 * `old` chunk bytes and `osize` bytes, or NULL): the same block when both are in one class. */
static void *block_resize(void *ptr, size_t osize, size_t old, size_t nsize, size_t new) {
    if (new <= SMALL_CHUNK) {
        if (ptr && old == new) return ptr;
        void *p = block_get(new);
        if (p && ptr) {
            memcpy(p, ptr, osize < nsize ? osize : nsize);
            block_free(ptr, old);
        }
        return p;
    }
    if (ptr == NULL || old > SMALL_CHUNK) return realloc(ptr, nsize);
    void *p = malloc(nsize);
    if (p) {
        memcpy(p, ptr, osize);   /* osize < nsize: a small block grows into a large one */
        block_put(ptr, old);
    }
    return p;
}

static void *capped_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    luashim_control *c = (luashim_control *)ud;
    size_t old = ptr ? chunk_size(osize) : 0;
    if (nsize == 0) {
        if (ptr) block_free(ptr, old);
        c->used -= old;
        return NULL;
    }
    size_t new = chunk_size(nsize);
    if (new > old && c->limit > 0) {
        size_t total = total_used(c) + (new - old);
        if (total > c->limit) {
            /* Over the cap. Kept blocks go back to malloc first. Inside host (Swift) code never
             * fail: an allocation failure would longjmp through Swift frames. Record it; C raises
             * once Swift returns. Lua code may go SOFT_SLACK over until the limit hook raises
             * (with a location and a traceback) or a collection shows the excess was garbage;
             * beyond that the allocation fails. */
            if (blocks.bytes) blocks_release();
            if (!c->memoryExceeded) {
                luashim_memory_crossing(c);
                c->memoryExceeded = LUASHIM_MEMORY_CROSSED;
            }
            if (c->hostDepth == 0 && total > c->limit + SOFT_SLACK + c->restartExcess) {
                c->memoryExceeded = LUASHIM_MEMORY_REFUSED;
                c->limitRaised = 1;
#if LUA_VERSION_RELEASE_NUM <= 50404
                /* Up to Lua 5.4.4 the call stack is consistent whenever Lua allocates (a stack
                 * being reallocated is copied only once the new block exists). From 5.4.5 on,
                 * luaD_reallocstack turns the frames' pointers into offsets around this call, so
                 * the stack is not read here: such a refusal has no line. (Headers and library come
                 * from the same Debian package.) */
                luashim_memory_refused(c);
#endif
                return NULL;
            }
        }
    }
    if (c->failAfter > 0 && c->hostDepth > 0 && new > old) {
        /* testing aid: simulate a failing allocation in host-driven API calls */
        if (--c->failAfter == 0) { c->memoryExceeded = LUASHIM_MEMORY_REFUSED; }
    }
    void *p = block_resize(ptr, osize, old, nsize, new);
    if (p == NULL) return NULL;
    c->used = c->used - old + new;
    if (total_used(c) > c->peak) c->peak = total_used(c);
    return p;
}

void luashim_charge_memory(void *control, ptrdiff_t bytes) {
    luashim_control *c = (luashim_control *)control;
    if (bytes < 0) {
        size_t released = (size_t)-bytes;
        c->hostUsed = released > c->hostUsed ? 0 : c->hostUsed - released;
        return;
    }
    c->hostUsed += (size_t)bytes;
    size_t total = total_used(c);
    if (total > c->peak) c->peak = total;
    if (c->limit > 0 && total > c->limit && !c->memoryExceeded) c->memoryExceeded = LUASHIM_MEMORY_CROSSED;
}

/* The cap was crossed: when nothing was refused, a full collection may show that the excess was
 * garbage (finalizers release the host objects behind userdata, which Lua's own pacing cannot
 * see). Clears the flag then. Returns whether the limit still stands. Called by limits.c before
 * it raises a memory limit. */
/* [-0, +0, -]: may run a full collection (finalizers) */
int luashim_memory_stands(lua_State *L, luashim_control *c) {
    if (c->limit == 0) return 0;
    if (c->memoryExceeded != LUASHIM_MEMORY_CROSSED) return c->memoryExceeded != 0;
    /* finalizers run by that collection leave the decision to it */
    if (c->collecting) return 0;
    if (total_used(c) > c->limit) {
        int saved = c->hostDepth;
        c->collecting = 1;
        c->hostDepth = 0;   /* finalizers are Lua code: their allocations obey the cap */
        lua_gc(L, LUA_GCCOLLECT);
        c->hostDepth = saved;
        c->collecting = 0;
    }
    /* Less than an eighth of the cap left after a full collection counts as over the cap:
     * going on would collect again after every few allocations (each time over the whole heap). */
    if (c->memoryExceeded == LUASHIM_MEMORY_REFUSED || total_used(c) > c->limit - c->limit / 8) {
        c->memoryExceeded = LUASHIM_MEMORY_REFUSED;  /* it stands: no second collection for it */
        return 1;
    }
    c->memoryExceeded = 0;
    return 0;
}

/* [-0, +0, -]: as luashim_memory_stands */
int luashim_memory_limit_stands(lua_State *L) {
    return luashim_memory_stands(L, luashim_control_of(L));
}

/* A new start (a test file, a REPL entry): what an earlier part left over the cap can still be
 * freed by this one, so no flag is carried over (the next allocation over the cap sets it). */
/* [-0, +0, -]: may run a full collection (finalizers) */
void luashim_memory_restart(lua_State *L, luashim_control *c) {
    c->memoryExceeded = 0;
    c->restartExcess = 0;
    if (c->limit > 0 && total_used(c) > c->limit) {
        c->memoryExceeded = LUASHIM_MEMORY_CROSSED;
        (void)luashim_memory_stands(L, c);
        c->memoryExceeded = 0;
        /* still over (a global holds it): the new start may need a little memory to let it go
         * (`t = nil` compiles to a new function), so the hard refusal moves up by the excess */
        if (total_used(c) > c->limit) c->restartExcess = total_used(c) - c->limit;
    }
}

/* ---------------- limits (limits.c) ---------------- */

void luashim_limits_attach(lua_State *L, luashim_control *c, int64_t budget);
void luashim_limits_closing(lua_State *L, luashim_control *c);
void luashim_limits_closed_over_cap(luashim_control *c);
void luashim_limits_detach(luashim_control *c);
void luashim_limits_enter(lua_State *L, luashim_control *c);
void luashim_limits_leave(lua_State *L, luashim_control *c);
void luashim_raise_limit(lua_State *L, luashim_control *c);
int luashim_must_raise(lua_State *L, luashim_control *c);
void luashim_install_coroutines(lua_State *L);

/* [-0, +0, -] */
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
    *(luashim_control **)lua_getextraspace(L) = c;   /* before any thread exists: all copy it */
    lua_atpanic(L, panic_handler);
    luashim_limits_attach(L, c, instructionBudget);
    if (!c->lim) { lua_close(L); free(c); return NULL; }
    return L;
}

/* [-(all), +0, -]: the state is gone */
void luashim_close(lua_State *L) {
    luashim_control *c = luashim_control_of(L);
    /* Finalizers run now, as Lua code: the wall-clock limit still watches them, and the memory
     * cap still holds (Lua collects nothing while it closes, so without it a finalizer could
     * allocate without bound; found by an adversarial probe). Over the cap and its slack their
     * allocations fail inside Lua's protected finalizer calls ("not enough memory", the next
     * finalizer runs); Swift code they call allocates freely, as always (hostDepth). Closing
     * itself only frees. */
    int refusedBefore = c->memoryExceeded == LUASHIM_MEMORY_REFUSED;
    /* a state already over the cap (a script the limit stopped) may still run its finalizers
     * within the slack above what it holds */
    if (c->limit > 0 && total_used(c) > c->limit && total_used(c) - c->limit > c->restartExcess)
        c->restartExcess = total_used(c) - c->limit;
    c->hostDepth = 0;
    luashim_limits_closing(L, c);
    lua_close(L);
    c->hostDepth = 1;
    luashim_cov_free(c->coverage);
    if (!refusedBefore && c->memoryExceeded == LUASHIM_MEMORY_REFUSED) luashim_limits_closed_over_cap(c);
    luashim_limits_detach(c);
    free(c);
}

/* ---------------- trampoline ---------------- */

/* [-0, +n, e]: fn's n results; raises fn's error value (LUASHIM_RAISE) or a pending limit */
int luashim_run_swift(lua_State *L, luashim_swift_fn fn) {
    luashim_control *c = luashim_control_of(L);
    c->hostDepth++;
    int n = fn(L);
    c->hostDepth--;
    if (luashim_must_raise(L, c)) luashim_raise_limit(L, c);
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

/* [-0, +n, e]: as luashim_run_swift */
static int trampoline(lua_State *L) {
    return luashim_run_swift(L, (luashim_swift_fn)(uintptr_t)lua_touserdata(L, lua_upvalueindex(1)));
}

/* [-0, +1, m] */
void luashim_push_swift_function(lua_State *L, luashim_swift_fn fn) {
    lua_CFunction light = light_trampoline(fn);
    if (light) { lua_pushcfunction(L, light); return; }
    lua_pushlightuserdata(L, (void *)(uintptr_t)fn);
    lua_pushcclosure(L, trampoline, 1);
}

/* [-nup, +1, m] */
void luashim_push_swift_closure(lua_State *L, luashim_swift_fn fn, int nup) {
    lua_pushlightuserdata(L, (void *)(uintptr_t)fn);
    if (nup > 0) lua_insert(L, -(nup + 1));
    lua_pushcclosure(L, trampoline, 1 + nup);
}

/* [-0, +1, v] */
static int c_add(lua_State *L) {
    int ok1 = 0, ok2 = 0;
    lua_Integer a = lua_tointegerx(L, 1, &ok1), b = lua_tointegerx(L, 2, &ok2);
    if (!ok1 || !ok2) return luaL_error(L, "cAdd: expected two integers");
    lua_pushinteger(L, a + b);
    return 1;
}

/* [-0, +1, -] */
void luashim_push_c_add(lua_State *L) { lua_pushcfunction(L, c_add); }

/* ---------------- protected calls ---------------- */

/* [-(top-1), +0, m]: keeps only the error object; the traceback goes to the registry */
int luashim_msgh(lua_State *L) {
    /* The traceback is the host's record of the error, made like host allocations, which never
     * fail: an error raised over the memory cap still gets its own traceback (a failing one
     * would leave the previous error's in the registry, naming the wrong line). */
    luashim_control *c = luashim_control_of(L);
    c->hostDepth++;
    luaL_traceback(L, L, NULL, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, TRACEBACK_KEY);
    c->hostDepth--;
    lua_settop(L, 1);
    return 1;
}

/* [-(nargs+1), +(nresults|1), -]: as lua_pcall (results, or the error object) */
int luashim_pcall(lua_State *L, int nargs, int nresults) {
    luashim_control *c = luashim_control_of(L);
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, luashim_msgh);
    lua_insert(L, base);
    int saved = c->hostDepth;
    c->hostDepth = 0;
    luashim_limits_enter(L, c);
    int status = lua_pcall(L, nargs, nresults, base);
    luashim_limits_leave(L, c);
    c->hostDepth = saved;
    lua_remove(L, base);
    return status;
}

/* [-0, +1, -] */
void luashim_push_last_traceback(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, TRACEBACK_KEY);
}

/* [-0, +1, -]: the chunk, or the error message */
int luashim_load_text(lua_State *L, const char *buff, size_t size, const char *chunkname) {
    luashim_control *c = luashim_control_of(L);
    int saved = c->hostDepth;
    c->hostDepth = 0;
    int status = luaL_loadbufferx(L, buff, size, chunkname, "t");
    c->hostDepth = saved;
    return status;
}

/* ---------------- dump ---------------- */

typedef struct { char *data; size_t size, capacity; } dump_buffer;

/* lua_dump's writer: appends to the buffer (lua_dump calls it once per small piece) */
static int dump_writer(lua_State *L, const void *p, size_t size, void *ud) {
    (void)L;
    dump_buffer *b = (dump_buffer *)ud;
    if (size > SIZE_MAX / 2 - b->size) return 1;
    if (b->size + size > b->capacity) {
        size_t capacity = b->capacity ? b->capacity : 16384;
        while (capacity < b->size + size) capacity *= 2;
        char *grown = realloc(b->data, capacity);
        if (!grown) return 1;
        b->data = grown;
        b->capacity = capacity;
    }
    memcpy(b->data + b->size, p, size);
    b->size += size;
    return 0;
}

/* [-0, +0, -]: lua_dump neither allocates in the state nor raises */
char *luashim_dump(lua_State *L, size_t *size) {
    dump_buffer b = { NULL, 0, 0 };
    if (lua_dump(L, dump_writer, &b, 0) != 0 || b.size == 0) {
        free(b.data);
        return NULL;
    }
    *size = b.size;
    return b.data;
}

/* ---------------- tostring in protected mode ---------------- */

/* [-0, +1, e] */
static int tostring_k(lua_State *L) {
    luaL_tolstring(L, 1, NULL);
    return 1;
}

/* [-0, +1, -]: protected; a failing __tostring gives "type: address" */
void luashim_tostring(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    lua_pushcfunction(L, tostring_k);
    lua_pushvalue(L, idx);
    luashim_control *c = luashim_control_of(L);
    int saved = c->hostDepth;
    c->hostDepth = 0;
    luashim_limits_enter(L, c);
    int st = lua_pcall(L, 1, 1, 0);
    luashim_limits_leave(L, c);
    c->hostDepth = saved;
    if (st != LUA_OK) {
        lua_pop(L, 1);
        lua_pushfstring(L, "%s: %p", luaL_typename(L, idx), lua_topointer(L, idx));
    }
}

/* ---------------- where ---------------- */

/* [-0, +1, m] */
void luashim_where(lua_State *L, int level) {
    luaL_where(L, level);
}

/* ---------------- sandbox ---------------- */

static const char *const removed_base[] = { "dofile", "loadfile", NULL };
static const char *const kept_os[] = { "time", "clock", "date", "difftime", NULL };

/* [-0, +0, m] */
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
    luashim_install_coroutines(L);
    lua_pop(L, 1);
}

#include <errno.h>
#include <stdio.h>
#include <unistd.h>
void luashim_write_stderr(const char *s, size_t n) { fflush(stdout); fwrite(s, 1, n, stderr); fflush(stderr); }
void luashim_write_stdout(const char *s, size_t n) { fwrite(s, 1, n, stdout); }
void luashim_flush_stdout(void) { fflush(stdout); }
int luashim_stdout_failed(void) {
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) return errno != 0 ? errno : -1;
    return 0;
}
int luashim_isatty(int fd) { return isatty(fd); }

/* ---------------- objects ---------------- */

/* [-0, +1, e]: __index(self, key); upvalues: methods, getter */
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

/* [-2, +1, m] */
void luashim_push_index(lua_State *L) {
    lua_pushcclosure(L, index_with_methods, 2);
}

/* [-0, +1, m] */
void luashim_push_object(lua_State *L, void *ptr, int mtref, int nuv) {
    void **p = (void **)lua_newuserdatauv(L, sizeof(void *), nuv);
    *p = ptr;
    lua_rawgeti(L, LUA_REGISTRYINDEX, mtref);
    lua_setmetatable(L, -2);
}

/* [-0, +1, m] */
void luashim_push_keyed_object(lua_State *L, void *ptr, int mtref, int nuv, lua_Integer key) {
    void **p = (void **)lua_newuserdatauv(L, sizeof(void *) + sizeof(lua_Integer), nuv);
    p[0] = ptr;
    memcpy(p + 1, &key, sizeof key);
    lua_rawgeti(L, LUA_REGISTRYINDEX, mtref);
    lua_setmetatable(L, -2);
}

/* [-0, +0, -] */
lua_Integer luashim_object_key(lua_State *L, int idx) {
    void **p = (void **)lua_touserdata(L, idx);
    lua_Integer key = 0;
    if (p != NULL && lua_rawlen(L, idx) == sizeof(void *) + sizeof(lua_Integer)) memcpy(&key, p + 1, sizeof key);
    return key;
}

/* [-0, +0, -] */
void *luashim_to_object(lua_State *L, int idx, int mtref) {
    void **p = (void **)lua_touserdata(L, idx);
    if (p == NULL || !lua_getmetatable(L, idx)) return NULL;
    lua_rawgeti(L, LUA_REGISTRYINDEX, mtref);
    int same = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return same ? *p : NULL;
}

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>
size_t luashim_heap_in_use(void) { struct mallinfo2 mi = mallinfo2(); return mi.uordblks + mi.hblkhd; }
#else
size_t luashim_heap_in_use(void) { return 0; }
#endif

/* ---------------- values ---------------- */

/* [-0, +1, m]: a value userdata with `nuv` user values, its metatable set, no field yet */
static luashim_value_cell *new_cell(lua_State *L, int nuv, void *typeBlock, int mtref) {
    luashim_value_cell *cell = (luashim_value_cell *)lua_newuserdatauv(L, sizeof(luashim_value_cell), nuv);
    cell->typeBlock = (void **)typeBlock;
    cell->live = NULL;
    cell->inlineFields = 0;
    lua_rawgeti(L, LUA_REGISTRYINDEX, mtref);
    lua_setmetatable(L, -2);
    return cell;
}

/* [-0, +1, m] */
luashim_value_cell *luashim_new_value(lua_State *L, void *typeBlock, int mtref) {
    return new_cell(L, 3, typeBlock, mtref);
}

/* [-0, +1, m] */
luashim_value_cell *luashim_new_value_copy(lua_State *L, int fieldsIdx, int typeIdx, int mtref) {
    typeIdx = lua_absindex(L, typeIdx);
    int n = 0;
    if (fieldsIdx != 0) {
        fieldsIdx = lua_absindex(L, fieldsIdx);
        lua_pushnil(L);
        while (lua_next(L, fieldsIdx) != 0) {
            lua_pop(L, 1);
            if (++n > LUASHIM_INLINE_FIELDS) {
                lua_pop(L, 1); /* the key: the walk stops here */
                break;
            }
        }
    }
    int inlined = n <= LUASHIM_INLINE_FIELDS ? n : 0;
    luashim_value_cell *cell = new_cell(L, 3 + 2 * inlined, lua_touserdata(L, typeIdx), mtref);
    lua_pushvalue(L, typeIdx);
    lua_setiuservalue(L, -2, 2);
    if (fieldsIdx == 0) return cell;
    if (n > LUASHIM_INLINE_FIELDS) {
        /* many fields: a table of them (room for all at once), user value 1 */
        lua_createtable(L, 0, n);
        lua_pushnil(L);
        while (lua_next(L, fieldsIdx) != 0) {
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, -4);
        }
        lua_setiuservalue(L, -2, 1);
        return cell;
    }
    /* key and value pairs in user values 4, 5, …; nothing runs between the two walks (both raw,
     * no metamethod), but the count bounds the copy all the same */
    int slot = 4, last = 3 + 2 * inlined;
    lua_pushnil(L);
    while (lua_next(L, fieldsIdx) != 0) {
        if (slot + 1 > last) {
            lua_pop(L, 2);
            break;
        }
        lua_setiuservalue(L, -3, slot + 1); /* the value */
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, -3, slot); /* the key (kept on the stack for lua_next) */
        slot += 2;
    }
    cell->inlineFields = (slot - 4) / 2;
    return cell;
}

/* [-0, +1, -] */
int luashim_value_field(lua_State *L, int idx, int keyIdx) {
    idx = lua_absindex(L, idx);
    keyIdx = lua_absindex(L, keyIdx);
    luashim_value_cell *cell = (luashim_value_cell *)lua_touserdata(L, idx);
    if (lua_getiuservalue(L, idx, 1) == LUA_TTABLE) {
        lua_pushvalue(L, keyIdx);
        int t = lua_rawget(L, -2);
        lua_remove(L, -2);
        return t;
    }
    lua_pop(L, 1);
    int n = cell->inlineFields;
    for (int i = 0; i < n; i++) {
        lua_getiuservalue(L, idx, 4 + 2 * i);
        int same = lua_rawequal(L, -1, keyIdx);
        lua_pop(L, 1);
        if (same) return lua_getiuservalue(L, idx, 5 + 2 * i);
    }
    lua_pushnil(L);
    return LUA_TNIL;
}

/* [-0, +(2|1), e]: a Lua function (it raises as `next` does, for a key that is not a field) */
int luashim_value_next(lua_State *L) {
    if (lua_type(L, 1) != LUA_TUSERDATA || !lua_getmetatable(L, 1) || !lua_rawequal(L, -1, lua_upvalueindex(1)))
        return luaL_error(L, "bad argument #1 to 'next' (event or error value expected)");
    lua_settop(L, 2);
    luashim_value_fields(L, 1);
    lua_pushvalue(L, 2);
    if (lua_next(L, -2)) return 2;
    lua_pushnil(L);
    return 1;
}

/* [-0, +1, m] */
void luashim_value_fields(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    if (lua_getiuservalue(L, idx, 1) == LUA_TTABLE) return;
    lua_pop(L, 1);
    luashim_value_cell *cell = (luashim_value_cell *)lua_touserdata(L, idx);
    int n = cell->inlineFields;
    lua_createtable(L, 0, n);
    for (int i = 0; i < n; i++) {
        lua_getiuservalue(L, idx, 4 + 2 * i);
        lua_getiuservalue(L, idx, 5 + 2 * i);
        lua_rawset(L, -3);
    }
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, idx, 1);
}

/* [-0, +0, -] */
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

/* Line events reach coverage through the limit hook's line callback (luashim_limits.h). */
/* [-0, +0, -] */
static void coverage_line(lua_State *L, lua_Debug *ar, void *ud) {
    luashim_cov_line(L, (luashim_coverage *)ud, ar);
}

/* [-0, +0, -]: sets the hook only */
void luashim_coverage_enable(lua_State *L) {
    luashim_control *c = luashim_control_of(L);
    if (c->coverage) return;
    c->coverage = luashim_cov_new();
    if (c->coverage) luashim_set_line_hook(L, coverage_line, c->coverage);
}
