/* A measuring aid for scripts/dispatch-floor, not part of responder: about the least a host
 * engine written in C must do per dispatch from Lua. An event value is an immutable copy of its
 * fields (one userdata whose user values hold the type and the key/value pairs); a trigger walks
 * the nodes (userdata: user value 1 the responder list, 2 the parent) through the Lua API,
 * snapshots nothing (no list changes here), records each step into a reused buffer, calls the
 * matching handler through a protected call and returns an outcome userdata without finalizer.
 * The module is `floor`, loaded by plain lua5.4 from the folder the script builds it in. */
#include <lua.h>
#include <lauxlib.h>
#include <string.h>

typedef struct { int node, entry, decision; } Step;
static Step steps[1024]; static int nsteps;

static int value_new(lua_State *L) {           /* T(fields) */
  int n = 0;
  if (lua_istable(L, 2)) { lua_pushnil(L); while (lua_next(L, 2)) { lua_pop(L, 1); n++; } }
  lua_newuserdatauv(L, 8, 1 + 2 * n);
  lua_pushvalue(L, 1); lua_setiuservalue(L, -2, 1);
  int i = 2;
  if (n) { lua_pushnil(L); while (lua_next(L, 2)) { lua_pushvalue(L, -2); lua_setiuservalue(L, -4, i++); lua_setiuservalue(L, -3, i++); } }
  luaL_setmetatable(L, "floor.value");
  return 1;
}
static int node_new(lua_State *L) {            /* node(parent or nil) */
  lua_newuserdatauv(L, 8, 2);
  lua_newtable(L); lua_setiuservalue(L, -2, 1);  /* responders: { {type, fn}, ... } */
  lua_pushvalue(L, 1); lua_setiuservalue(L, -2, 2);  /* parent */
  return 1;
}
static int handle(lua_State *L) {              /* handle(node, T, fn) */
  lua_getiuservalue(L, 1, 1);
  lua_createtable(L, 2, 0); lua_pushvalue(L, 2); lua_rawseti(L, -2, 1); lua_pushvalue(L, 3); lua_rawseti(L, -2, 2);
  lua_rawseti(L, -2, luaL_len(L, -2) + 1);
  return 0;
}
static int trigger(lua_State *L) {             /* trigger(node, value) */
  lua_getiuservalue(L, 2, 1);                  /* the value's type: 3 */
  lua_pushvalue(L, 1);                         /* current node: 4 */
  nsteps = 0;
  for (int depth = 0; lua_type(L, 4) == LUA_TUSERDATA; depth++) {
    lua_getiuservalue(L, 4, 1);                /* list: 5 */
    lua_Integer m = luaL_len(L, 5);
    for (lua_Integer j = 1; j <= m; j++) {
      lua_rawgeti(L, 5, j); lua_rawgeti(L, -1, 1);
      int match = lua_rawequal(L, -1, 3);
      lua_pop(L, 1);
      if (nsteps < 1024) { steps[nsteps].node = depth; steps[nsteps].entry = (int)j; steps[nsteps].decision = match; nsteps++; }
      if (match) {
        lua_rawgeti(L, -1, 2); lua_pushvalue(L, 2);
        if (lua_pcall(L, 1, 0, 0) != LUA_OK) return lua_error(L);
        lua_newuserdatauv(L, 8, 2); lua_pushvalue(L, 4); lua_setiuservalue(L, -2, 1);
        lua_pushvalue(L, 2); lua_setiuservalue(L, -2, 2);
        return 1;
      }
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    lua_getiuservalue(L, 4, 2); lua_replace(L, 4);
  }
  lua_newuserdatauv(L, 8, 2);
  return 1;
}
int luaopen_floor(lua_State *L) {
  luaL_newmetatable(L, "floor.value"); lua_pop(L, 1);
  luaL_Reg f[] = { {"value", value_new}, {"node", node_new}, {"handle", handle}, {"trigger", trigger}, {NULL, NULL} };
  luaL_newlib(L, f);
  return 1;
}
