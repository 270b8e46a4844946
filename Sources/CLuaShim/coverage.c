#include "luashim.h"
#include <stdlib.h>
#include <string.h>

/* Line coverage. The count hook forwards line events here (see luashim_coverage_enable); each
 * one costs a lua_getinfo("S") and a pointer compare against the last chunk seen: all functions
 * of a chunk share one source string, whose address identifies the chunk. Only chunks the host
 * registered are counted; the host anchors each registered chunk's main function, so its source
 * string (and address) lives as long as the state. */

typedef struct cov_file {
    const char *source;  /* the chunk's source string (its address is the key) */
    uint32_t *counts;    /* counts[line], line 1...nlines */
    int nlines;
} cov_file;

struct luashim_coverage {
    cov_file *files;
    int count, cap;
    const char *lastSource;  /* one-entry cache: the last source pointer seen... */
    int lastIndex;           /* ...and its file index (-1: not a registered chunk) */
};

luashim_coverage *luashim_cov_new(void) {
    luashim_coverage *cv = (luashim_coverage *)calloc(1, sizeof(luashim_coverage));
    if (cv) cv->lastIndex = -1;
    return cv;
}

void luashim_cov_free(luashim_coverage *cv) {
    if (!cv) return;
    for (int i = 0; i < cv->count; i++) free(cv->files[i].counts);
    free(cv->files);
    free(cv);
}

/* [-0, +0, -] */
void luashim_cov_line(lua_State *L, luashim_coverage *cv, lua_Debug *ar) {
    if (!cv || !lua_getinfo(L, "S", ar)) return;
    const char *src = ar->source;
    int index;
    if (src == cv->lastSource) {
        index = cv->lastIndex;
    } else {
        index = -1;
        for (int i = 0; i < cv->count; i++) {
            if (cv->files[i].source == src) { index = i; break; }
        }
        cv->lastSource = src;
        cv->lastIndex = index;
    }
    if (index < 0) return;
    cov_file *f = &cv->files[index];
    int line = ar->currentline;
    if (line > 0 && line <= f->nlines) f->counts[line]++;
}

/* [-0, +0, -] */
uint32_t *luashim_coverage_register(lua_State *L, int functionIndex, int nlines) {
    luashim_control *c = luashim_control_of(L);
    luashim_coverage *cv = c->coverage;
    if (!cv || nlines < 0 || !lua_isfunction(L, functionIndex)) return NULL;
    lua_Debug ar;
    lua_pushvalue(L, functionIndex);
    if (!lua_getinfo(L, ">S", &ar) || ar.source == NULL) return NULL;
    for (int i = 0; i < cv->count; i++) {
        if (cv->files[i].source == ar.source) return cv->files[i].counts;
    }
    if (cv->count == cv->cap) {
        int cap = cv->cap ? cv->cap * 2 : 8;
        cov_file *files = (cov_file *)realloc(cv->files, sizeof(cov_file) * (size_t)cap);
        if (!files) return NULL;
        cv->files = files;
        cv->cap = cap;
    }
    uint32_t *counts = (uint32_t *)calloc((size_t)nlines + 1, sizeof(uint32_t));
    if (!counts) return NULL;
    cv->files[cv->count++] = (cov_file){ ar.source, counts, nlines };
    cv->lastSource = NULL;
    cv->lastIndex = -1;
    return counts;
}

typedef struct dump_buffer { unsigned char *data; size_t size, cap; int failed; } dump_buffer;

/* [-0, +0, -] */
static int dump_writer(lua_State *L, const void *p, size_t size, void *ud) {
    (void)L;
    dump_buffer *b = (dump_buffer *)ud;
    if (b->failed) return 1;
    if (b->size + size > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->size + size) cap *= 2;
        unsigned char *data = (unsigned char *)realloc(b->data, cap);
        if (!data) { b->failed = 1; return 1; }
        b->data = data;
        b->cap = cap;
    }
    memcpy(b->data + b->size, p, size);
    b->size += size;
    return 0;
}

/* [-0, +0, -] */
unsigned char *luashim_dump_function(lua_State *L, int functionIndex, size_t *size) {
    dump_buffer b = { NULL, 0, 0, 0 };
    *size = 0;
    if (!lua_isfunction(L, functionIndex) || lua_iscfunction(L, functionIndex)) return NULL;
    luashim_control *c = luashim_control_of(L);
    c->hostDepth++;  /* lua_dump allocates nothing in Lua, but never let it fail there */
    lua_pushvalue(L, functionIndex);
    int status = lua_dump(L, dump_writer, &b, 0);
    lua_pop(L, 1);
    c->hostDepth--;
    if (status != 0 || b.failed) { free(b.data); return NULL; }
    *size = b.size;
    return b.data;
}
