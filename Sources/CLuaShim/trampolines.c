/* Light C trampolines: one plain lua_CFunction per registered Swift function (no upvalue, no
 * allocation per push). Trampoline number N calls luashim_fn_table[N], the Swift function that
 * luashim_push_swift_function registered in slot N (luashim.c). The preprocessor writes the 512
 * functions and the table of their addresses.
 *
 * Stack effect of every trampoline: that of the Swift function it runs ([-0, +n, e]: the
 * arguments stay, n results are pushed; or the error value on top is raised). */
#include "luashim.h"

int luashim_run_swift(lua_State *L, luashim_swift_fn fn);
extern luashim_swift_fn luashim_fn_table[];

/* T1(n) defines trampoline t<n>. The numbers are octal literals built digit by digit: T8(n)
 * appends one octal digit to n (eight trampolines), T64(n) two, T512 three after the leading 0,
 * so t0017 is trampoline 15 and the last one is t0777 (511). */
#define T1(n) static int t##n(lua_State *L) { return luashim_run_swift(L, luashim_fn_table[n]); }
#define T8(n) T1(n##0) T1(n##1) T1(n##2) T1(n##3) T1(n##4) T1(n##5) T1(n##6) T1(n##7)
#define T64(n) T8(n##0) T8(n##1) T8(n##2) T8(n##3) T8(n##4) T8(n##5) T8(n##6) T8(n##7)
#define T512 T64(00) T64(01) T64(02) T64(03) T64(04) T64(05) T64(06) T64(07)

/* The same enumeration, as the addresses of the trampolines. */
#define A1(n) t##n,
#define A8(n) A1(n##0) A1(n##1) A1(n##2) A1(n##3) A1(n##4) A1(n##5) A1(n##6) A1(n##7)
#define A64(n) A8(n##0) A8(n##1) A8(n##2) A8(n##3) A8(n##4) A8(n##5) A8(n##6) A8(n##7)
#define A512 A64(00) A64(01) A64(02) A64(03) A64(04) A64(05) A64(06) A64(07)

T512

const lua_CFunction luashim_light_trampolines[512] = { A512 };
