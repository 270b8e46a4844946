/* The standard-library pieces the sandbox reshapes so that a script sees stock Lua 5.4 apart
 * from what SPEC §4 removes: text-only `load` that streams its reader, `require` confined to the
 * script folder (and returning the standard libraries), file loading that skips a `#!` line,
 * `warn` as lua.c has it, `debug.traceback` alone, and the reflective base functions that keep
 * the responder module's lazily created names invisible.
 *
 * Everything here is plain C called from Lua: errors are raised with luaL_error/lua_error and
 * never cross a Swift frame. */
#include "luashim.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const SCRIPT_DIR_KEY = "responder.scriptDirectory";
static const char *const CHUNK_LOADED_KEY = "responder.chunkLoaded";  /* set while coverage runs */
static const char REVEAL_KEY = 0;   /* its address keys the reveal function in a lazy metatable */

/* ---------------- loading files ---------------- */

typedef struct {
    int fd;
    int error;            /* errno of a read that failed (the load then fails), else 0 */
    size_t off, len;      /* bytes buff[off..<len] are not yet handed to the parser */
    char buff[4096];
} file_reader;

/* Reads the next block into the buffer; false at end of file or on a read error (kept in
   r->error: a file that fails part-way must not run as a shorter script). */
static int fill(file_reader *r) {
    ssize_t n;
    do { n = read(r->fd, r->buff, sizeof r->buff); } while (n < 0 && errno == EINTR);
    if (n < 0) r->error = errno;
    r->off = 0;
    r->len = n > 0 ? (size_t)n : 0;
    return n > 0;
}

/* [-0, +0, -] */
static const char *read_file_piece(lua_State *L, void *ud, size_t *size) {
    (void)L;
    file_reader *r = (file_reader *)ud;
    if (r->off >= r->len && !fill(r)) { *size = 0; return NULL; }
    *size = r->len - r->off;
    const char *p = r->buff + r->off;
    r->off = r->len;
    return p;
}

/* [-0, +1, -]: the chunk, or the error message */
int luashim_load_file(lua_State *L, const char *path, const char *chunkname) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        lua_pushfstring(L, "cannot open %s: %s", path, strerror(errno));
        return LUA_ERRFILE;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        lua_pushfstring(L, "cannot open %s: not a regular file", path);
        return LUA_ERRFILE;
    }
    file_reader r;
    r.fd = fd;
    r.error = 0;
    fill(&r);
    /* as lua.c: skip a UTF-8 byte-order mark, then a first line starting with '#' (its newline
     * is kept, so line numbers stay right) */
    if (r.len >= 3 && memcmp(r.buff, "\xEF\xBB\xBF", 3) == 0) r.off = 3;
    if (r.off < r.len && r.buff[r.off] == '#') {
        for (;;) {
            char *nl = memchr(r.buff + r.off, '\n', r.len - r.off);
            if (nl) { r.off = (size_t)(nl - r.buff); break; }
            if (!fill(&r)) break;
        }
    }
    luashim_control *ctl = luashim_control_of(L);
    int saved = ctl->hostDepth;
    ctl->hostDepth = 0;
    int status = lua_load(L, read_file_piece, &r, chunkname, "t");
    ctl->hostDepth = saved;
    close(fd);
    if (r.error != 0) {
        /* as luaL_loadfilex: what was read is not the script */
        lua_pop(L, 1);
        lua_pushfstring(L, "cannot read %s: %s", path, strerror(r.error));
        return LUA_ERRFILE;
    }
    return status;
}

/* ---------------- load ---------------- */

/* Stack slot that anchors the reader's latest piece (as lbaselib does). */
#define PIECE_SLOT 5

#define BINARY_REFUSED "attempt to load a binary chunk (binary chunks are not allowed)"

typedef struct { int first; } reader_state;

/* [-0, +0, e]: the piece replaces stack slot PIECE_SLOT */
static const char *call_reader(lua_State *L, void *ud, size_t *size) {
    reader_state *rs = (reader_state *)ud;
    luaL_checkstack(L, 2, "too many nested functions");
    lua_pushvalue(L, 1);
    lua_call(L, 0, 1);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        *size = 0;
        return NULL;
    }
    if (!lua_isstring(L, -1)) luaL_error(L, "reader function must return a string");
    lua_replace(L, PIECE_SLOT);
    const char *p = lua_tolstring(L, PIECE_SLOT, size);
    if (rs->first && *size > 0) {
        rs->first = 0;
        if (p[0] == LUA_SIGNATURE[0]) {
            lua_pushliteral(L, BINARY_REFUSED);
            lua_error(L);
        }
    }
    return p;
}

/* load(chunk [, chunkname [, mode [, env]]]) as lbaselib's, refusing binary chunks. */
/* [-0, +(1|2), e]: the chunk, or fail and the message */
static int compat_load(lua_State *L) {
    size_t len;
    const char *s = lua_tolstring(L, 1, &len);
    const char *mode = luaL_optstring(L, 3, "bt");
    int env = !lua_isnone(L, 4) ? 4 : 0;
    int status;
    if (s != NULL) {
        const char *chunkname = luaL_optstring(L, 2, s);
        if (len > 0 && s[0] == LUA_SIGNATURE[0]) {
            luaL_pushfail(L);
            lua_pushliteral(L, BINARY_REFUSED);
            return 2;
        }
        status = luaL_loadbufferx(L, s, len, chunkname, mode);
    } else {
        const char *chunkname = luaL_optstring(L, 2, "=(load)");
        luaL_checktype(L, 1, LUA_TFUNCTION);
        reader_state rs = { 1 };
        lua_settop(L, PIECE_SLOT);
        status = lua_load(L, call_reader, &rs, chunkname, mode);
    }
    if (status != LUA_OK) {
        luaL_pushfail(L);
        lua_insert(L, -2);
        return 2;
    }
    if (env != 0) {
        lua_pushvalue(L, env);
        if (!lua_setupvalue(L, -2, 1)) lua_pop(L, 1);
    }
    return 1;
}

/* ---------------- require ---------------- */

static const char *const MODULE_PATHS_KEY = "responder.modulePaths";
static const char *const PRELOAD_KEY = "responder.preload";

/* [-0, +0, m] */
void luashim_set_script_directory(lua_State *L, const char *dir) {
    lua_pushstring(L, dir);
    lua_setfield(L, LUA_REGISTRYINDEX, SCRIPT_DIR_KEY);
}

/* [-0, +0, m] */
void luashim_set_module_paths(lua_State *L, const char *templates) {
    lua_pushstring(L, templates);
    lua_setfield(L, LUA_REGISTRYINDEX, MODULE_PATHS_KEY);
}

/* [-0, +1, m] */
void luashim_push_preload_table(lua_State *L) {
    if (lua_getfield(L, LUA_REGISTRYINDEX, PRELOAD_KEY) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, PRELOAD_KEY);
    }
}

typedef enum { FOUND, MISSING } candidate_result;

/* Whether the real path `realFile` lies inside the folder `dir` (resolved here). */
static int inside_folder(const char *dir, const char *realFile) {
    char realDir[PATH_MAX];
    if (realpath(dir, realDir) == NULL) return 0;
    size_t dl = strlen(realDir);
    return strncmp(realFile, realDir, dl) == 0 && (realFile[dl] == '/' || (dl == 1 && realDir[0] == '/'));
}

/* The folder of a module path template: its part before the first '?' up to the last '/'
 * ("." when there is none), written to `out` (PATH_MAX bytes). False when too long. */
static int template_folder(const char *template, size_t tlen, char out[PATH_MAX]) {
    const char *q = memchr(template, '?', tlen);
    size_t slash = q ? (size_t)(q - template) : tlen;
    while (slash > 0 && template[slash - 1] != '/') slash--;
    size_t n = slash == 0 ? 0 : (slash == 1 ? 1 : slash - 1);
    if (n >= PATH_MAX) return 0;
    if (n == 0) { strcpy(out, "."); return 1; }
    memcpy(out, template, n);
    out[n] = '\0';
    return 1;
}

/* Calls `each(template, length, ud)` for every usable module path template (ending in ".lua",
 * holding a '?'), in order, until it returns nonzero; returns that value (0 when none did). */
static int each_template(const char *templates, size_t tlen,
                         int (*each)(const char *, size_t, void *), void *ud) {
    const char *end = templates + tlen;
    for (const char *t = templates; t < end; ) {
        const char *semi = memchr(t, ';', (size_t)(end - t));
        size_t one = semi ? (size_t)(semi - t) : (size_t)(end - t);
        if (one > 4 && memcmp(t + one - 4, ".lua", 4) == 0 && memchr(t, '?', one)) {
            int r = each(t, one, ud);
            if (r) return r;
        }
        t += one + 1;
    }
    return 0;
}

static int inside_template_folder(const char *template, size_t tlen, void *realFile) {
    char folder[PATH_MAX];
    return template_folder(template, tlen, folder) && inside_folder(folder, (const char *)realFile);
}

/* Whether `file` (a path made from `name`) exists; when it does, its real path is written to
 * `realFile`. It must lie inside the folder `dir` or, when `templates` is given, inside the
 * folder of one of those module path templates (Debian's /usr/share/lua/5.4 links into 5.1:
 * naming both folders lets those files load). A file that exists but leads outside, or is not
 * a regular file, is an error (raised), not a miss: the script meant that file. */
/* [-0, +0, v]: raises when the file leads outside */
static candidate_result try_candidate(lua_State *L, const char *name, const char *dir, const char *file,
                                      const char *templates, size_t tlen, char realFile[PATH_MAX]) {
    if (realpath(file, realFile) == NULL) return MISSING;
    if (templates == NULL) {
        char realDir[PATH_MAX];
        if (realpath(dir, realDir) == NULL)
            luaL_error(L, "module '%s' not found: the script folder '%s' cannot be read", name, dir);
        if (!inside_folder(dir, realFile))
            luaL_error(L, "module '%s' not found: '%s' leads outside the script folder", name, file);
    } else if (!each_template(templates, tlen, inside_template_folder, realFile)) {
        luaL_error(L, "module '%s' not found: '%s' leads to '%s', outside the --lpath folders "
                      "(add that file's folder to --lpath to allow it)", name, file, realFile);
    }
    struct stat st;
    if (stat(realFile, &st) != 0 || !S_ISREG(st.st_mode))
        luaL_error(L, "module '%s' not found: '%s' is not a regular file", name, file);
    return FOUND;
}

/* Pushes `template` with each '?' replaced by `name` (dots made slashes). */
/* [-0, +1, m] */
static void expand_template(lua_State *L, const char *template, size_t tlen, const char *name) {
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (size_t i = 0; i < tlen; i++) {
        if (template[i] != '?') { luaL_addchar(&b, template[i]); continue; }
        for (const char *p = name; *p; p++) luaL_addchar(&b, *p == '.' ? '/' : *p);
    }
    luaL_pushresult(&b);
}

typedef struct {
    lua_State *L;
    const char *name, *templates;
    size_t tlen;
    char *realFile;
} template_search;

/* One template: FOUND leaves the file's path in slot 4; a miss adds it to the message in 5. */
/* [-0, +0, e]: slot 4 (found) or 5 (the miss message) replaced */
static int try_template(const char *template, size_t tlen, void *ud) {
    template_search *s = (template_search *)ud;
    lua_State *L = s->L;
    expand_template(L, template, tlen, s->name);                    /* 6: the file */
    if (try_candidate(L, s->name, NULL, lua_tostring(L, 6), s->templates, s->tlen, s->realFile) == FOUND) {
        lua_replace(L, 4);
        return 1;
    }
    lua_pushfstring(L, "%s\n\tno file '%s'", lua_tostring(L, 5), lua_tostring(L, 6));
    lua_replace(L, 5);
    lua_pop(L, 1);
    return 0;
}

/* require's rule for package.loaded[name] (as Lua's ll_require): the loader's result when it is
 * not nil, else whatever the loader stored there, else true. Slot 2 holds package.loaded.
 * [-1, +1, e]: pops the loader's result, pushes the value stored */
static void store_loaded(lua_State *L, const char *name) {
    if (!lua_isnil(L, -1)) lua_setfield(L, 2, name);
    else lua_pop(L, 1);
    if (lua_getfield(L, 2, name) == LUA_TNIL) {
        lua_pop(L, 1);
        lua_pushboolean(L, 1);
        lua_pushvalue(L, -1);
        lua_setfield(L, 2, name);
    }
}

/* Pushes `dir/NAME` + `suffix`, NAME being `name` with its dots made slashes. */
/* [-0, +1, m] */
static void push_module_file(lua_State *L, const char *dir, const char *name, const char *suffix) {
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addstring(&b, dir);
    luaL_addchar(&b, '/');
    for (const char *p = name; *p; p++) luaL_addchar(&b, *p == '.' ? '/' : *p);
    luaL_addstring(&b, suffix);
    luaL_pushresult(&b);
}

/* require(name): a loaded module (the standard libraries are), else a preloaded one (the
 * embedding's built-in modules), else `name.lua` (dots become slashes) inside the script
 * folder, else through the module path templates (each confined to its folder). Returns the
 * module and the loader data (the file, or ":preload:"), like Lua 5.4. */
/* [-0, +2, e]: the module and its file */
static int compat_require(lua_State *L) {
    size_t len;
    const char *name = luaL_checklstring(L, 1, &len);
    if (strlen(name) != len) return luaL_argerror(L, 1, "module name contains a NUL byte");
    lua_settop(L, 1);
    lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);           /* 2 */
    if (lua_getfield(L, 2, name) != LUA_TNIL && lua_toboolean(L, -1)) return 1;
    lua_pop(L, 1);
    if (lua_getfield(L, LUA_REGISTRYINDEX, PRELOAD_KEY) == LUA_TTABLE   /* 3 */
        && lua_getfield(L, 3, name) != LUA_TNIL) {                   /* 4: the loader */
        lua_pushvalue(L, 1);
        lua_pushliteral(L, ":preload:");
        lua_call(L, 2, 1);
        store_loaded(L, name);
        lua_pushliteral(L, ":preload:");
        return 2;
    }
    lua_settop(L, 2);
    if (strcmp(name, "responder") == 0)
        return luaL_error(L, "module 'responder' not found: this runtime has no responder module");
    if (name[0] == '/')
        return luaL_error(L, "module '%s' not found: require only loads files inside the script folder "
                             "(absolute paths are refused)", name);
    lua_getfield(L, LUA_REGISTRYINDEX, SCRIPT_DIR_KEY);            /* 3 */
    const char *dir = lua_isstring(L, 3) ? lua_tostring(L, 3) : ".";
    push_module_file(L, dir, name, ".lua");                         /* 4: the file */
    char realFile[PATH_MAX];
    candidate_result found = try_candidate(L, name, dir, lua_tostring(L, 4), NULL, 0, realFile);
    if (found == MISSING) {
        /* then `name/init.lua`, as Lua's default path `./?.lua;./?/init.lua` */
        lua_pushfstring(L, "module '%s' not found: no file '%s'", name, lua_tostring(L, 4));  /* 5 */
        push_module_file(L, dir, name, "/init.lua");                /* 6 */
        found = try_candidate(L, name, dir, lua_tostring(L, 6), NULL, 0, realFile);
        if (found == FOUND) {
            lua_replace(L, 4);
            lua_settop(L, 4);
        } else {
            lua_pushfstring(L, "%s\n\tno file '%s'", lua_tostring(L, 5), lua_tostring(L, 6));
            lua_replace(L, 5);
            lua_settop(L, 5);
        }
    }
    if (found == MISSING) {
        size_t tlen = 0;
        const char *templates = NULL;
        if (lua_getfield(L, LUA_REGISTRYINDEX, MODULE_PATHS_KEY) == LUA_TSTRING)
            templates = lua_tolstring(L, -1, &tlen);
        lua_replace(L, 3);   /* the templates string stays anchored in slot 3 */
        template_search search = { L, name, templates, tlen, realFile };
        if (templates == NULL || !each_template(templates, tlen, try_template, &search)) {
            luaL_where(L, 1);
            lua_pushvalue(L, 5);
            lua_concat(L, 2);
            return lua_error(L);
        }
        lua_settop(L, 4);
    }
    const char *file = lua_tostring(L, 4);
    lua_pushfstring(L, "@%s", file);                                /* 5 */
    int status = luashim_load_file(L, realFile, lua_tostring(L, 5));
    if (status != LUA_OK)
        return luaL_error(L, "error loading module '%s' from file '%s':\n\t%s", name, file, lua_tostring(L, -1));
    if (lua_getfield(L, LUA_REGISTRYINDEX, CHUNK_LOADED_KEY) == LUA_TFUNCTION) {  /* coverage */
        lua_pushvalue(L, -2);
        lua_pushvalue(L, 5);
        lua_pushstring(L, realFile);
        lua_call(L, 3, 0);
    } else {
        lua_pop(L, 1);
    }
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 4);
    lua_call(L, 2, 1);                                              /* 6: the module's result */
    store_loaded(L, name);
    lua_pushvalue(L, 4);
    return 2;
}

/* ---------------- warn (as lua.c: off until "@on") ---------------- */

static void warn_off(void *ud, const char *message, int tocont);
static void warn_on(void *ud, const char *message, int tocont);
static void warn_more(void *ud, const char *message, int tocont);

/* Control messages ("@on", "@off"); true when `message` was one. */
/* [-0, +0, -]: switches the warning function only */
static int warn_control(lua_State *L, const char *message, int tocont) {
    if (tocont || message[0] != '@') return 0;
    if (strcmp(message + 1, "off") == 0) lua_setwarnf(L, warn_off, L);
    else if (strcmp(message + 1, "on") == 0) lua_setwarnf(L, warn_on, L);
    return 1;
}

/* [-0, +0, -] */
static void warn_off(void *ud, const char *message, int tocont) {
    warn_control((lua_State *)ud, message, tocont);
}

/* [-0, +0, -] */
static void warn_piece(lua_State *L, const char *message, int tocont) {
    fflush(stdout);
    fputs(message, stderr);
    if (tocont) {
        lua_setwarnf(L, warn_more, L);
    } else {
        fputs("\n", stderr);
        lua_setwarnf(L, warn_on, L);
    }
    fflush(stderr);
}

/* [-0, +0, -] */
static void warn_on(void *ud, const char *message, int tocont) {
    lua_State *L = (lua_State *)ud;
    if (warn_control(L, message, tocont)) return;
    fflush(stdout);
    fputs("Lua warning: ", stderr);
    warn_piece(L, message, tocont);
}

/* [-0, +0, -] */
static void warn_more(void *ud, const char *message, int tocont) {
    warn_piece((lua_State *)ud, message, tocont);
}

/* ---------------- debug.traceback ---------------- */

/* debug.traceback([thread,] [message [, level]]) as ldblib's: a message that is neither a
 * string nor nil is returned untouched. */
/* [-0, +1, m] */
static int compat_traceback(lua_State *L) {
    int arg = 0;
    lua_State *L1 = L;
    if (lua_type(L, 1) == LUA_TTHREAD) { arg = 1; L1 = lua_tothread(L, 1); }
    const char *msg = lua_tostring(L, arg + 1);
    if (msg == NULL && !lua_isnoneornil(L, arg + 1)) {
        lua_pushvalue(L, arg + 1);
        return 1;
    }
    int level = (int)luaL_optinteger(L, arg + 2, (L == L1) ? 1 : 0);
    luaL_traceback(L, L1, msg, level);
    return 1;
}

/* ---------------- lazily created names, kept invisible ---------------- */

/* When the table at `idx` still carries a lazy metatable (one holding a reveal function),
 * calls it: every lazy name is created and the metatable removed, so what follows sees the
 * table as if everything had been there from the start. */
/* [-0, +0, e]: runs the reveal function */
static void reveal(lua_State *L, int idx) {
    if (lua_type(L, idx) != LUA_TTABLE || !lua_getmetatable(L, idx)) return;
    if (lua_rawgetp(L, -1, &REVEAL_KEY) == LUA_TFUNCTION) {
        lua_call(L, 0, 0);
        lua_pop(L, 1);
    } else {
        lua_pop(L, 2);
    }
}

/* [-0, +0, -] */
int luashim_drop_lazy_metatable(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    if (!lua_getmetatable(L, idx)) return 0;
    int lazy = lua_rawgetp(L, -1, &REVEAL_KEY) != LUA_TNIL;
    lua_pop(L, 2);
    if (lazy) {
        lua_pushnil(L);
        lua_setmetatable(L, idx);
    }
    return lazy;
}

/* [-1, +0, m] */
void luashim_set_lazy_reveal(lua_State *L, int mtIndex) {
    /* the function on top of the stack becomes the reveal function of the metatable */
    mtIndex = lua_absindex(L, mtIndex);
    lua_rawsetp(L, mtIndex, &REVEAL_KEY);
}

/* [-0, +1, e] */
static int compat_getmetatable(lua_State *L) {
    luaL_checkany(L, 1);
    reveal(L, 1);
    if (!lua_getmetatable(L, 1)) {
        lua_pushnil(L);
        return 1;
    }
    luaL_getmetafield(L, 1, "__metatable");
    return 1;
}

/* [-0, +1, e] */
static int compat_setmetatable(lua_State *L) {
    int t = lua_type(L, 2);
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
    reveal(L, 1);
    if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL)
        return luaL_error(L, "cannot change a protected metatable");
    lua_settop(L, 2);
    lua_setmetatable(L, 1);
    return 1;
}

/* [-0, +(1|2), e] */
static int compat_next(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    reveal(L, 1);
    lua_settop(L, 2);
    if (lua_next(L, 1)) return 2;
    lua_pushnil(L);
    return 1;
}

/* __pairs may yield (as in stock pairs): the call continues here. */
/* [-0, +0, -]: __pairs's three results are already on top */
static int pairs_continue(lua_State *L, int status, lua_KContext ctx) {
    (void)L; (void)status; (void)ctx;
    return 3;
}

/* [-0, +3, e] */
static int compat_pairs(lua_State *L) {
    luaL_checkany(L, 1);
    reveal(L, 1);
    if (luaL_getmetafield(L, 1, "__pairs") == LUA_TNIL) {
        lua_pushcfunction(L, compat_next);
        lua_pushvalue(L, 1);
        lua_pushnil(L);
    } else {
        lua_pushvalue(L, 1);
        lua_callk(L, 1, 3, 0, pairs_continue);
    }
    return 3;
}

/* [-0, +1, e] */
static int compat_rawget(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checkany(L, 2);
    reveal(L, 1);
    lua_settop(L, 2);
    lua_rawget(L, 1);
    return 1;
}

/* ---------------- pristine library functions for host Lua code ---------------- */

void luashim_install_coroutines(lua_State *L);   /* limits.c */

/* Pushes a fresh library table made by `open` (no global side effects for these). */
/* [-0, +1, m] */
static void fresh_library(lua_State *L, lua_CFunction open) {
    lua_pushcfunction(L, open);
    lua_call(L, 0, 1);
}

/* [-0, +1, e] */
static int make_pristine_env(lua_State *L) {
    lua_newtable(L);                                                   /* 1: env */
    /* the base functions, made by luaopen_base into env (it writes to the global table) */
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_GLOBALS);               /* 2: the globals */
    lua_pushvalue(L, 1);
    lua_rawseti(L, LUA_REGISTRYINDEX, LUA_RIDX_GLOBALS);
    lua_pushcfunction(L, luaopen_base);
    int status = lua_pcall(L, 0, 0, 0);
    lua_pushvalue(L, 2);
    lua_rawseti(L, LUA_REGISTRYINDEX, LUA_RIDX_GLOBALS);
    if (status != LUA_OK) return lua_error(L);
    lua_settop(L, 1);
    static const char *const unsafe[] = { "dofile", "loadfile", "load", NULL };
    for (const char *const *k = unsafe; *k; k++) { lua_pushnil(L); lua_setfield(L, 1, *k); }
    /* string: luaopen_string also installs a new string metatable; put the script's back */
    lua_pushliteral(L, "");
    if (!lua_getmetatable(L, 2)) lua_pushnil(L);                        /* 2: "", 3: its metatable */
    fresh_library(L, luaopen_string);
    lua_pushnil(L);
    lua_setfield(L, -2, "dump");
    lua_setfield(L, 1, LUA_STRLIBNAME);
    lua_setmetatable(L, 2);
    lua_settop(L, 1);
    fresh_library(L, luaopen_table);
    lua_setfield(L, 1, LUA_TABLIBNAME);
    fresh_library(L, luaopen_utf8);
    lua_setfield(L, 1, LUA_UTF8LIBNAME);
    fresh_library(L, luaopen_math);
    lua_setfield(L, 1, LUA_MATHLIBNAME);
    /* coroutine: reads give the pristine functions but resume and wrap (and close is the sandbox's,
     * which keeps the limits on the closing methods); writes go to the
     * script's coroutine library (the kit routes the script's coroutines through itself) */
    lua_newtable(L);                                                   /* proxy */
    lua_createtable(L, 0, 2);                                          /* its metatable */
    fresh_library(L, luaopen_coroutine);
    luashim_install_coroutines(L);   /* close runs its closing methods under the limits */
    lua_pushnil(L); lua_setfield(L, -2, "resume");
    lua_pushnil(L); lua_setfield(L, -2, "wrap");
    lua_setfield(L, -2, "__index");
    lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_getfield(L, -1, LUA_COLIBNAME);
    lua_remove(L, -2);
    lua_setfield(L, -2, "__newindex");
    lua_setmetatable(L, -2);
    lua_setfield(L, 1, LUA_COLIBNAME);
    return 1;
}

/* [-0, +1, -]: the environment, or the error object (protected) */
int luashim_push_pristine_env(lua_State *L) {
    luashim_control *c = luashim_control_of(L);
    int saved = c->hostDepth;
    c->hostDepth = 0;
    lua_pushcfunction(L, make_pristine_env);
    int status = lua_pcall(L, 0, 1, 0);
    c->hostDepth = saved;
    return status;
}

/* ---------------- opening ---------------- */

/* [-0, +0, m] */
void luashim_open_compat(lua_State *L) {
    static const luaL_Reg base[] = {
        { "load", compat_load }, { "require", compat_require },
        { "getmetatable", compat_getmetatable }, { "setmetatable", compat_setmetatable },
        { "next", compat_next }, { "pairs", compat_pairs }, { "rawget", compat_rawget },
        { NULL, NULL }
    };
    lua_pushglobaltable(L);
    luaL_setfuncs(L, base, 0);
    lua_pop(L, 1);
    /* debug: traceback only (also what require "debug" gives) */
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, compat_traceback);
    lua_setfield(L, -2, "traceback");
    lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, LUA_DBLIBNAME);
    lua_pop(L, 1);
    lua_setglobal(L, LUA_DBLIBNAME);
    lua_setwarnf(L, warn_off, L);
}
