#ifndef LUASHIM_H
#define LUASHIM_H

#include <stddef.h>
#include <stdint.h>
#include <lua.h>
#include <lualib.h>
#include <lauxlib.h>
#include "luashim_limits.h"

/* ---------------------------------------------------------------------------
 * The only C in ResponderSandbox. Swift never calls anything that can raise a
 * Lua error: Swift functions exposed to Lua return a status and the trampoline
 * below raises; limits (instructions, memory) are enforced here.
 * ------------------------------------------------------------------------- */

/** A Swift function callable from Lua. Returns the number of results (>= 0),
 *  or LUASHIM_RAISE to raise the value on top of the stack as a Lua error. */
typedef int (*luashim_swift_fn)(lua_State *L);
#define LUASHIM_RAISE (-1)

/** Limits and accounting shared by the allocator and the limit hook (limits.c). */
typedef struct luashim_limits luashim_limits;
typedef struct luashim_control {
    size_t used;            /* bytes the Lua heap takes (malloc chunks) */
    size_t hostUsed;        /* bytes the host (engine, bridge) charged for the script */
    size_t peak;            /* peak of used + hostUsed */
    size_t limit;           /* memory cap in bytes (0 = none) */
    int64_t budget;         /* instructions left (<0 = unlimited) */
    int64_t executed;       /* instructions counted so far */
    int hostDepth;          /* > 0 while host (Swift) code runs: allocations never fail then */
    int memoryExceeded;     /* the cap was crossed (LUASHIM_MEMORY_CROSSED: a collection may
                               still clear it) or an allocation refused (..._REFUSED: sticky) */
    int collecting;         /* a collection to check the cap is running */
    size_t restartExcess;   /* bytes over the cap at the last start (limits reset): allowed on top
                               of the soft slack before allocations fail */
    int budgetExceeded;     /* sticky: the instruction budget ran out */
    volatile int interrupt; /* set asynchronously (Ctrl-C): raise "interrupted!" at next hook */
    int limitRaised;        /* the last error came from a limit */
    size_t failAfter;       /* testing: fail host-side allocations after this many (0 = off) */
    int abortPending;       /* a strict violation is unwinding: raise it again at every instruction */
    int timedOut;           /* sticky: the wall-clock limit (--timeout) was raised */
    int hostStopped;        /* luashim_charge told host work to stop: the trampoline raises */
    volatile int pcallDepth;     /* > 0 while a protected call from the host is running */
    struct luashim_coverage *coverage;  /* line counts while coverage records (else NULL) */
    struct luashim_limits *lim;  /* timer/hook state (limits.c, luashim_limits.h) */
    void *host;             /* the owning Swift bridge (luashim_set_host) */
} luashim_control;

/* ---------------- line coverage (coverage.c) ---------------- */
typedef struct luashim_coverage luashim_coverage;
/** Turns line recording on for the state (call right after creating it, before any coroutine
 *  exists: threads copy their creator's hook). Line events then go to the count hook too. */
void luashim_coverage_enable(lua_State *L);
/** Registers the chunk whose main function is at `functionIndex` (lines 1...nlines) and returns
 *  its counts array (index = line), owned by the state; the same array for a chunk registered
 *  twice. The caller must keep the function alive as long as the state (the source string's
 *  address is the key). NULL when coverage is off or memory ran out. */
uint32_t *luashim_coverage_register(lua_State *L, int functionIndex, int nlines);
/** The binary chunk of the Lua function at `functionIndex` with debug info (malloc'd; the caller
 *  frees it), or NULL. For reading line information, never for loading. */
unsigned char *luashim_dump_function(lua_State *L, int functionIndex, size_t *size);
luashim_coverage *luashim_cov_new(void);
void luashim_cov_free(luashim_coverage *cv);
void luashim_cov_line(lua_State *L, luashim_coverage *cv, lua_Debug *ar);

#define LUASHIM_MEMORY_CROSSED 1
#define LUASHIM_MEMORY_REFUSED 2

/** Charges (bytes > 0) or releases (bytes < 0) host memory to the control block `control`
 *  (a `luashim_control *`): it counts against the same cap as the Lua heap. Never fails and
 *  never raises: crossing the cap sets `memoryExceeded`, raised once Swift returns to C. */
void luashim_charge_memory(void *control, ptrdiff_t bytes);
/** When the cap was crossed, collects garbage (finalizers release host objects) and checks
 *  again; returns whether the memory limit still stands (clearing the flag when it does not). */
int luashim_memory_limit_stands(lua_State *L);

/** Creates a state with the capped allocator and the count hook. NULL on failure. */
lua_State *luashim_newstate(size_t memoryLimit, int64_t instructionBudget);
/** Closes the state and frees its control block. */
void luashim_close(lua_State *L);
/** The control block of a state: the pointer in the extra space of every thread of a state made
 *  by luashim_newstate (threads copy their creator's extra space), so coroutine resumes, host
 *  calls and trampolines read it with one load instead of a call to lua_getallocf. */
static inline luashim_control *luashim_control_of(lua_State *L) {
    return *(luashim_control **)lua_getextraspace(L);
}

/** Starts (message on top of the stack, popped) or ends (on = 0) an uncatchable abort: while it
 *  is on, the count hook raises the message at every instruction of any Lua code. With on = 2
 *  the hook raises it once, at the next instruction (a violation met inside a finalizer). */
void luashim_set_abort(lua_State *L, int on);
/* Lua's count of nested C calls of thread L (Lua raises "C stack overflow" at 200), or -1 when
 * the private layout it is read from is unknown. [-0, +0, -] */
int luashim_c_calls(lua_State *L);

/** The message of the last time limit raised in the state, or NULL. */
const char *luashim_timeout_message(lua_State *L);
/* `file:line: ` of the script line whose allocation the cap refused (Lua's own "not enough
 * memory" carries no traceback), or NULL. Cleared by luashim_limits_reset. */
const char *luashim_memory_refused_where(lua_State *L);
/* The traceback of that moment, as luaL_traceback writes one (without global names), or NULL.
 * Cleared by luashim_limits_reset. */
const char *luashim_memory_refused_traceback(lua_State *L);

/** Pushes a Swift function as a Lua C closure going through the trampoline. */
void luashim_push_swift_function(lua_State *L, luashim_swift_fn fn);
/** Same with `nup` extra upvalues popped from the stack (reachable as upvalues 2...). */
void luashim_push_swift_closure(lua_State *L, luashim_swift_fn fn, int nup);
/** Pushes the plain C addition function used by the benchmark as the Lua→C reference. */
void luashim_push_c_add(lua_State *L);

/** The message handler: records a traceback in the registry and returns the
 *  error object unchanged (tables keep their identity). */
int luashim_msgh(lua_State *L);
/** Protected call with the traceback handler. Host depth is dropped while Lua runs. */
int luashim_pcall(lua_State *L, int nargs, int nresults);
/** Pushes the traceback recorded by the last failing luashim_pcall (or nil). */
void luashim_push_last_traceback(lua_State *L);

/** Loads a text-only chunk (binary refused). Returns a status like luaL_loadbufferx. */
int luashim_load_text(lua_State *L, const char *buff, size_t size, const char *chunkname);

/** The bytecode (with debug information) of the Lua function on top of the stack, in a buffer
 *  from malloc the caller frees; NULL when it cannot be dumped or memory runs out. */
char *luashim_dump(lua_State *L, size_t *size);

/** Opens the sandboxed standard library set in the global table (SPEC §4). */
void luashim_open_sandbox(lua_State *L);

/* --- compat.c: what keeps the sandbox stock Lua 5.4 ----------------------- */
/** After luashim_open_sandbox: text-only streaming `load`, `require` confined to the script
 *  folder (standard library names give the libraries), `debug.traceback` alone, `warn` as lua.c
 *  (off until "@on"), and reflective base functions that reveal lazily created names. */
void luashim_open_compat(lua_State *L);
/** Loads the regular file `path` as a text chunk the way lua.c does (a byte-order mark and a
 *  first line starting with '#' are skipped), streaming it. Returns a lua_load status; on
 *  failure the message is on the stack (LUA_ERRFILE when the file cannot be opened or is not
 *  a regular file). */
int luashim_load_file(lua_State *L, const char *path, const char *chunkname);
/** Pushes a new environment table for host Lua code (the kit) holding pristine standard
 *  functions, made now, so that nothing a script replaced reaches them. Protected: returns a
 *  lua_pcall status (on failure the error value is pushed instead). */
int luashim_push_pristine_env(lua_State *L);
/** Sets the folder `require` loads from (and never leaves). */
void luashim_set_script_directory(lua_State *L, const char *dir);
/** Sets more places `require` looks for `.lua` files after the script folder: `;`-separated
 *  templates such as `src/?.lua` (`?` is the module name, dots made slashes). A file found
 *  through a template must really lie (links resolved) inside the folder of one of the
 *  templates (its part before the first `?`); templates not ending in `.lua` are ignored, so C
 *  modules are never loaded. */
void luashim_set_module_paths(lua_State *L, const char *templates);
/** Pushes the preload table `require` consults after the loaded modules and before files
 *  (`name -> loader`, called as loader(name, ":preload:") like Lua's package.preload), making
 *  it on first use. */
void luashim_push_preload_table(lua_State *L);
/** Pops a function and makes it the reveal function of the metatable at `mtIndex`: the first
 *  reflective look at a table with that metatable (getmetatable, setmetatable, next, pairs,
 *  rawget) calls it, and it must create every lazy name and remove the metatable. */
void luashim_set_lazy_reveal(lua_State *L, int mtIndex);
/** Removes the metatable of the table at `idx` when it is a lazy one; returns whether it was. */
int luashim_drop_lazy_metatable(lua_State *L, int idx);

/** Safe tostring (uses __tostring/__name) in protected mode; pushes a string. Never raises. */
void luashim_tostring(lua_State *L, int idx);

/** The owning Swift bridge (kept in the control block). */
static inline void *luashim_get_host(lua_State *L) { return luashim_control_of(L)->host; }
static inline void luashim_set_host(lua_State *L, void *p) { luashim_control_of(L)->host = p; }

/* Traceback of the current call stack of L (for locations). Pushes a string. */
void luashim_where(lua_State *L, int level);

/* --- static inline wrappers for macros -------------------------------- */
/* Each C function that touches a Lua stack is marked with its stack effect as in Lua's manual:
 * [-o, +p, x] pops o values, pushes p, and x says whether it may raise ('-' never, 'm' only a
 * memory error, 'e' any error, 'v' raises on purpose). Allocations made while host (Swift) code
 * runs never fail (see capped_alloc), so 'm' functions called from Swift do not raise. */
static inline int luashim_registryindex(void) { return LUA_REGISTRYINDEX; }
static inline int luashim_upvalueindex(int i) { return lua_upvalueindex(i); }
/* [-n, +0, -] */
static inline void luashim_pop(lua_State *L, int n) { lua_pop(L, n); }
/* [-0, +1, m] */
static inline void luashim_newtable(lua_State *L) { lua_newtable(L); }
/* [-0, +0, m] */
static inline const char *luashim_tolstring(lua_State *L, int i, size_t *len) { return lua_tolstring(L, i, len); }
/* [-0, +0, -] */
static inline _Bool luashim_isnoneornil(lua_State *L, int i) { return lua_type(L, i) <= 0; }
/* [-0, +0, -] */
static inline lua_Integer luashim_tointeger(lua_State *L, int i, int *isnum) { return lua_tointegerx(L, i, isnum); }
/* [-0, +0, -] */
static inline lua_Number luashim_tonumber(lua_State *L, int i, int *isnum) { return lua_tonumberx(L, i, isnum); }
/* [-0, +1, -] */
static inline void luashim_pushglobaltable(lua_State *L) { lua_pushglobaltable(L); }
/* Pushes t[k] without metamethods (an option or spec table given by a script): a metamethod
   could raise, and an error must never unwind Swift frames. Returns the value's type. */
/* [-0, +1, m] */
static inline int luashim_rawgetfield(lua_State *L, int idx, const char *k) {
    idx = lua_absindex(L, idx);
    lua_pushstring(L, k);
    return lua_rawget(L, idx);
}
/* [-1, +1, -] */
static inline void luashim_insert(lua_State *L, int i) { lua_insert(L, i); }
/* [-1, +0, -] */
static inline void luashim_remove(lua_State *L, int i) { lua_remove(L, i); }
/* [-1, +0, -] */
static inline void luashim_replace(lua_State *L, int i) { lua_replace(L, i); }
/* [-0, +0, -] */
static inline const char *luashim_typename_at(lua_State *L, int i) { return luaL_typename(L, i); }
/* [-0, +1, m] */
static inline void luashim_pushlstring(lua_State *L, const char *s, size_t n) { (void)lua_pushlstring(L, s, n); }
/* [-0, +1, m] */
static inline void *luashim_newuserdata(lua_State *L, size_t sz, int nuv) { return lua_newuserdatauv(L, sz, nuv); }
/* [-0, +0, -] */
static inline void luashim_gc_collect(lua_State *L) { lua_gc(L, LUA_GCCOLLECT, 0); }
/** Switches the collector to generational mode (far cheaper for short-lived dispatch garbage). */
/* [-0, +0, -] */
static inline void luashim_gc_generational(lua_State *L) { lua_gc(L, LUA_GCGEN, 0, 0); }

/** Pushes an __index function for userdata: looks the key up in the methods table (popped
 *  from -2) first, then calls the getter (popped from -1) as getter(self, key). */
void luashim_push_index(lua_State *L);

/** Pushes a userdata holding a pointer, with the metatable found in the registry at integer
 *  key `mtref` and `nuv` user values. Never raises in host code (allocations there cannot fail). */
void luashim_push_object(lua_State *L, void *ptr, int mtref, int nuv);
/** Like luashim_push_object, with `key` stored after the pointer (a node's slot in the
 *  identity cache, read back by luashim_object_key). */
void luashim_push_keyed_object(lua_State *L, void *ptr, int mtref, int nuv, lua_Integer key);
/** The key stored by luashim_push_keyed_object in the userdata at `idx` (0 for other userdata). */
lua_Integer luashim_object_key(lua_State *L, int idx);
/** The pointer held by the userdata at `idx` when its metatable is the registry's `mtref`, else NULL. */
void *luashim_to_object(lua_State *L, int idx, int mtref);

/** An event or error value in Lua: a userdata with this memory and three user values
 *  (1 the fields table, 2 the type's userdata, 3 the cause's userdata), then, for a value made
 *  by `luashim_new_value_copy` with few fields, the fields themselves as key and value in user
 *  values 4, 5, 6, … (`inlineFields` pairs; user value 1 is nil until a fields table is made of
 *  them, `luashim_value_fields`). `typeBlock` is the memory block of the type's userdata (user
 *  value 2 keeps that block alive, even when a finalizer resurrects the value), which holds the
 *  retained Swift type, or NULL once the type's finalizer released it; `live` is the Swift value
 *  wrapping it, if one exists now. */
typedef struct luashim_value_cell { void **typeBlock; void *live; int inlineFields; } luashim_value_cell;
/** Values with at most this many fields keep them in user values (one allocation, no table). */
#define LUASHIM_INLINE_FIELDS 8
/** Pushes a new value userdata with the metatable at registry key `mtref`; `typeBlock` is the
 *  block of the type's userdata (set it as user value 2 right away). */
luashim_value_cell *luashim_new_value(lua_State *L, void *typeBlock, int mtref);
/** Pushes a new value userdata of the type whose userdata is at `typeIdx` (user value 2), with
 *  the metatable at registry key `mtref` and a raw copy of the fields of the table at
 *  `fieldsIdx` (none when `fieldsIdx` is 0): in user values when they are few, else in a new
 *  fields table. [-0, +1, m] */
luashim_value_cell *luashim_new_value_copy(lua_State *L, int fieldsIdx, int typeIdx, int mtref);
/** Pushes the field `key` (the value at `keyIdx`) of the value userdata at `idx`, read raw;
 *  returns its type (LUA_TNIL when absent). [-0, +1, -] */
int luashim_value_field(lua_State *L, int idx, int keyIdx);
/** Pushes the fields table of the value userdata at `idx` (for a value with its fields in user
 *  values, a table made of them on first need and kept as user value 1). [-0, +1, m] */
void luashim_value_fields(lua_State *L, int idx);
/** The iterator `pairs(value)` returns (a C function whose upvalue 1 is the values' metatable):
 *  `next` over the fields of the value given as its state, never the fields table itself, so
 *  a script cannot reach the table that stores an immutable value's fields. */
int luashim_value_next(lua_State *L);
/** The cell of the value userdata at `idx`, or NULL when it is not one (or when its type was
 *  already finalized: a value resurrected by a `__gc` metamethod). */
luashim_value_cell *luashim_to_value(lua_State *L, int idx, int mtref);
/** The Swift type of a cell returned by `luashim_to_value` (never NULL for those). */
static inline void *luashim_value_type(const luashim_value_cell *cell) { return *cell->typeBlock; }

/* Claims of a `responder test` run (claims.c): one slot per file in shared memory. */
/** A memfd for `count` files, mapped; its descriptor (close-on-exec, at least 10) in *fd. NULL on
 *  failure. */
unsigned char *luashim_claims_create(size_t count, int *fd);
/** Maps the parent's claims at `fd` (recognised by their mark; nothing else is written to); the
 *  number of files in *count. NULL if absent. */
unsigned char *luashim_claims_attach(int fd, size_t *count);
void luashim_claims_release(unsigned char *claims, size_t count);
/** 1 when this call claimed file `index` for `owner` (a process id; it was unclaimed), else 0. */
int luashim_claim(unsigned char *claims, size_t index, uint32_t owner);
/** The process id that claimed file `index`, 0 when none has. */
uint32_t luashim_claim_owner(const unsigned char *claims, size_t index);

/* stdio helpers (Swift 6 cannot touch the global FILE pointers) */
void luashim_write_stderr(const char *s, size_t n);
void luashim_write_stdout(const char *s, size_t n);
void luashim_flush_stdout(void);
/** Flushes stdout: 0 when everything written to it reached it, else the errno of the failure
 *  (-1 when it is no longer known: an earlier write failed). */
int luashim_stdout_failed(void);
int luashim_isatty(int fd);
/** Bytes allocated on the C heap (glibc's mallinfo2: arena chunks plus mmapped blocks, which
 *  large arrays and tables get), for memory measurements; 0 where the C
 *  library has no mallinfo2 (macOS, musl). */
size_t luashim_heap_in_use(void);
/* 1 when the process is a static executable (it has no program interpreter: the kernel's
   AT_BASE is 0), else 0 (startup.c). */
int luashim_is_static_executable(void);

#endif
