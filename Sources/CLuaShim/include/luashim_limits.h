#ifndef LUASHIM_LIMITS_H
#define LUASHIM_LIMITS_H

#include <stdint.h>
#include <lua.h>

/* ---------------------------------------------------------------------------
 * The limit machinery (limits.c): instruction budget, wall-clock limit (--timeout), Ctrl-C and
 * the uncatchable re-raise of limits and strict aborts, at no cost to pure-Lua speed.
 *
 * Design
 * - Lua 5.4 calls the hook machinery on EVERY instruction while any count or line hook is set
 *   (luaG_traceexec), whatever the count, so a permanent count hook costs pure Lua 1.5-2.5x.
 *   The hook is therefore OFF by default. One timer thread per process (plain C, pthreads and
 *   C11 atomics only: it shares nothing reference-counted with Swift) ticks every
 *   LUASHIM_TICK_MS while a state runs Lua and sends SIGURG to the thread running it; the
 *   signal handler arms a one-shot hook with lua_sethook (which Lua allows asynchronously,
 *   like lua.c's Ctrl-C) on the Lua thread that is running at that moment (the main thread or
 *   a coroutine: resumes are tracked). The hook checks the budget, the clock flag and pending
 *   interrupts, then turns itself off again.
 * - Instruction budget, exactness (documented in the README):
 *     exact   (`--max-instructions N` given): a permanent count hook with a period of
 *             min(1000, remaining) instructions; at every coroutine switch and at the end of
 *             each host call the part of the period already run is read back, so work split
 *             into short coroutines counts instruction for instruction. Costs the hook tax.
 *     sampled (the default budget): at each tick the one-shot hook counts the next
 *             LUASHIM_SAMPLE_WINDOW instructions exactly and extrapolates that rate over the
 *             time since the previous sample (time spent waiting for the hook to fire, i.e.
 *             inside one long C call, is not counted). Estimates err low for pure Lua (the
 *             counting window itself runs slower), so a script is never stopped much before
 *             the exact count would stop it.
 * - Wall clock (`--timeout`): the timer sets the time-up flag at the deadline and arms the
 *   hook, which raises "time limit exceeded" naming the function (re-raised at every
 *   instruction afterwards, so a script's pcall cannot swallow it). Code the hook cannot reach
 *   (a long C function such as a backtracking string.find, a __gc finalizer (Lua runs them with
 *   hooks off), the engine's own work, the state closing) is ended by the timer itself
 *   LUASHIM_GRACE_MS after the deadline: it asks the Lua thread (by signal) to describe what
 *   runs, prints `error: FILE:LINE: time limit exceeded (S s) in ...` and exits the process
 *   with the hard-exit status (3; the REPL's session process uses its own status to be
 *   restarted). A Ctrl-C the hook cannot deliver within the grace time is handled the same way.
 *
 * Hook composition point (coverage): luashim_set_line_hook installs a line callback that the
 * same C hook calls on LUA_HOOKLINE events; every lua_sethook made by this file (arming,
 * exact counting, coroutine switches) keeps LUA_MASKLINE while a callback is set, and the limit
 * checks still run on line events when something is pending. Never call lua_sethook on a
 * sandboxed state directly: use luashim_set_line_hook.
 * ------------------------------------------------------------------------- */

#define LUASHIM_TICK_MS 5
#define LUASHIM_GRACE_MS 1000
#define LUASHIM_SAMPLE_WINDOW 1000
#define LUASHIM_EXACT_PERIOD 1000

/** Budget modes. */
enum { LUASHIM_BUDGET_NONE = 0, LUASHIM_BUDGET_EXACT = 1, LUASHIM_BUDGET_SAMPLED = 2 };

/** A line-event callback (coverage). Called on the Lua thread inside the hook; it must not raise
 *  a Lua error (no longjmp through Swift). `ar` is the hook's lua_Debug (event LUA_HOOKLINE,
 *  `currentline` set); call lua_getinfo(L, "S", ar) for the source. */
typedef void (*luashim_line_fn)(lua_State *L, lua_Debug *ar, void *ud);

/** Installs (fn != NULL) or removes the line callback of the state of L. */
void luashim_set_line_hook(lua_State *L, luashim_line_fn fn, void *ud);

/** Sets the budget mode and remaining budget (<0 = unlimited) and clears sticky limit flags. */
void luashim_limits_reset(lua_State *L, int64_t budget, int exact);

/** Starts the wall-clock limit: `ms` milliseconds from now (0 = no limit). The deadline also
 *  covers host work outside Lua (graph rendering, output) and closing the state, until it is
 *  cleared with ms = 0. */
void luashim_set_timeout(lua_State *L, int64_t ms);

/** Charges `units` of host work (nodes visited, bytes formatted, ...) to the instruction
 *  budget. Returns nonzero when a limit now stops the script (budget spent, time up, interrupt,
 *  abort, a refused allocation): the host function should stop and return; the trampoline
 *  raises the limit once it has returned (even one that only the hook raises otherwise, such as
 *  the time limit, so that a partial result is never used). Never raises. */
int luashim_charge(lua_State *L, int64_t units);


/** Resumes `co` from `from` like lua_resume, keeping the running-thread bookkeeping (timer
 *  arming, exact counting across coroutines). Use it for every resume done by the host. */
int luashim_resume(lua_State *co, lua_State *from, int nargs, int *nres);

/** Process-wide: the status the timer exits with when it must end code it cannot interrupt
 *  (default 3). */
void luashim_set_hard_exit_status(int status);
/** Ends the process at once with the hard exit's status (async-signal-safe: for a signal
 *  handler when running code ignores every way to stop it). */
void luashim_exit_hard(void);
/* The child process the host waits for now (0: none): a hard exit kills it first. */
void luashim_set_hard_exit_child(int pid);

/** Process-wide: on a hard exit, also write `prefix` + the message (without "error: ", with
 *  backslash and tab escaped) + newline to `fd` (a test worker's result pipe). */
void luashim_set_hard_exit_report(int fd, const char *prefix);

/** A test worker's pending result lines (results.c): appended (0 when memory ran out: nothing
 *  was added), sent to `fd` in one write and cleared (0 when the write failed). A hard
 *  exit that reports to a file descriptor sends them first, and the timer sends those waiting
 *  longer than 20 ms. */
int luashim_results_append(const void *bytes, size_t n);
int luashim_results_send(int fd);
/* The hard exit's send, from the timer thread: skipped when the lock is held. */
void luashim_results_send_at_exit(int fd);
/* The timer's send of lines pending for more than 20 ms (`now`: CLOCK_MONOTONIC ns); never
 * blocks. */
void luashim_results_send_due(int fd, int64_t now);

/** Instructions charged so far (exact or estimated) since the last luashim_limits_reset. */
int64_t luashim_instructions_charged(lua_State *L);

#endif
