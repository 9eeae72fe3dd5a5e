/* JSON merge patch (RFC 7386) and JSON patch (RFC 6902) over Jansson trees, with errors worded for
 * a Kubernetes Status: which operation (by index), which op and path, and why. */
#include "common/json_patch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *json_merge_patch(const json_t *target, const json_t *patch)
{
    if (!json_is_object(patch))
        return json_deep_copy(patch);
    json_t *out = json_is_object(target) ? json_deep_copy(target) : json_object();
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)patch, key, v)
    {
        if (json_is_null(v)) {
            json_object_del(out, key);
            continue;
        }
        json_t *merged = json_merge_patch(json_object_get(out, key), v);
        if (!merged || json_object_set_new(out, key, merged) != 0) {
            json_decref(out);
            return NULL;
        }
    }
    return out;
}

/* One reference token of a pointer, unescaped (~1 is '/', ~0 is '~'); *rest moves past it.
 * Returns -1 for a bad escape. */
static int next_token(const char **rest, char *out, size_t len)
{
    const char *p = *rest + 1; /* past the '/' */
    size_t n = 0;
    for (; *p && *p != '/'; p++) {
        char c = *p;
        if (c == '~') {
            if (p[1] != '0' && p[1] != '1')
                return -1;
            c = p[1] == '0' ? '~' : '/';
            p++;
        }
        if (n + 1 >= len)
            return -1;
        out[n++] = c;
    }
    out[n] = '\0';
    *rest = p;
    return 0;
}

/* An array index token: digits only, no leading zero; -1 when it is not one. */
static long array_index(const char *token)
{
    if (!*token || (token[0] == '0' && token[1]) || strspn(token, "0123456789") != strlen(token))
        return -1;
    errno = 0;
    long i = strtol(token, NULL, 10);
    return errno ? -1 : i;
}

/* Walks to the parent of what pointer names: *parent is the container, token its last token.
 * Returns -1 when a step is missing or the pointer is malformed. */
static int resolve_parent(json_t *root, const char *pointer, json_t **parent, char *token, size_t len)
{
    if (pointer[0] != '/')
        return -1;
    json_t *cur = root;
    const char *rest = pointer;
    for (;;) {
        if (next_token(&rest, token, len) != 0)
            return -1;
        if (!*rest) {
            *parent = cur;
            return 0;
        }
        if (json_is_object(cur)) {
            cur = json_object_get(cur, token);
        } else if (json_is_array(cur)) {
            long i = array_index(token);
            cur = i < 0 ? NULL : json_array_get(cur, (size_t)i);
        } else {
            cur = NULL;
        }
        if (!cur)
            return -1;
    }
}

json_t *json_pointer_get(const json_t *doc, const char *pointer)
{
    if (!pointer[0])
        return (json_t *)doc;
    json_t *parent;
    char token[512];
    if (resolve_parent((json_t *)doc, pointer, &parent, token, sizeof token) != 0)
        return NULL;
    if (json_is_object(parent))
        return json_object_get(parent, token);
    long i = json_is_array(parent) ? array_index(token) : -1;
    return i < 0 ? NULL : json_array_get(parent, (size_t)i);
}

/* The state of one application: the document (replaced whole by a pointer ""), and where to say
 * what failed. */
struct patching {
    json_t *root;
    size_t index;
    const char *op, *path;
    struct api_status *st;
};

static int fail(struct patching *p, int code, const char *why)
{
    return api_fail(p->st, code, code == 400 ? "BadRequest" : "Invalid", "the JSON patch's operation %zu (%s %s) %s",
                    p->index, p->op ? p->op : "?", p->path ? p->path : "?", why);
}

/* Adds value (taken) at pointer: into an object as a member, into an array before the index (or at
 * its end for "-"). */
static int add_at(struct patching *p, const char *pointer, json_t *value)
{
    if (!pointer[0]) {
        json_decref(p->root);
        p->root = value;
        return 0;
    }
    json_t *parent;
    char token[512];
    if (resolve_parent(p->root, pointer, &parent, token, sizeof token) != 0) {
        json_decref(value);
        return fail(p, 422, "fails: the path's parent does not exist");
    }
    if (json_is_object(parent))
        return json_object_set_new(parent, token, value) == 0 ? 0 : fail(p, 500, "fails: out of memory");
    if (json_is_array(parent)) {
        size_t n = json_array_size(parent);
        long i = strcmp(token, "-") == 0 ? (long)n : array_index(token);
        if (i < 0 || (size_t)i > n) {
            json_decref(value);
            return fail(p, 422, "fails: the array index is out of range");
        }
        return json_array_insert_new(parent, (size_t)i, value) == 0 ? 0 : fail(p, 500, "fails: out of memory");
    }
    json_decref(value);
    return fail(p, 422, "fails: the path's parent is neither an object nor an array");
}

/* Takes out what pointer names; *out (when not NULL) gets it (a reference the caller owns). */
static int remove_at(struct patching *p, const char *pointer, json_t **out)
{
    json_t *parent;
    char token[512];
    if (!pointer[0] || resolve_parent(p->root, pointer, &parent, token, sizeof token) != 0)
        return fail(p, 422, "fails: the path does not exist");
    json_t *v = NULL;
    if (json_is_object(parent)) {
        v = json_object_get(parent, token);
        if (v) {
            json_incref(v);
            json_object_del(parent, token);
        }
    } else if (json_is_array(parent)) {
        long i = array_index(token);
        v = i < 0 ? NULL : json_array_get(parent, (size_t)i);
        if (v) {
            json_incref(v);
            json_array_remove(parent, (size_t)i);
        }
    }
    if (!v)
        return fail(p, 422, "fails: the path does not exist");
    if (out)
        *out = v;
    else
        json_decref(v);
    return 0;
}

static int apply_one(struct patching *p, const json_t *op)
{
    json_t *value = json_object_get(op, "value");
    const char *from = json_string_value(json_object_get(op, "from"));
    const char *path = p->path;
    if (strcmp(p->op, "add") == 0 || strcmp(p->op, "replace") == 0 || strcmp(p->op, "test") == 0) {
        if (!value)
            return fail(p, 400, "has no \"value\"");
    }
    if ((strcmp(p->op, "move") == 0 || strcmp(p->op, "copy") == 0) && !from)
        return fail(p, 400, "has no \"from\"");
    if (strcmp(p->op, "add") == 0)
        return add_at(p, path, json_deep_copy(value));
    if (strcmp(p->op, "remove") == 0)
        return remove_at(p, path, NULL);
    if (strcmp(p->op, "replace") == 0) {
        if (!json_pointer_get(p->root, path))
            return fail(p, 422, "fails: the path does not exist");
        if (path[0] && remove_at(p, path, NULL) != 0)
            return -1;
        return add_at(p, path, json_deep_copy(value));
    }
    if (strcmp(p->op, "test") == 0) {
        json_t *have = json_pointer_get(p->root, path);
        if (!have)
            return fail(p, 422, "fails: the path does not exist");
        return json_equal(have, value) ? 0 : fail(p, 422, "fails: the value there differs from the test's");
    }
    if (strcmp(p->op, "copy") == 0) {
        json_t *have = json_pointer_get(p->root, from);
        if (!have)
            return fail(p, 422, "fails: its \"from\" does not exist");
        return add_at(p, path, json_deep_copy(have));
    }
    if (strcmp(p->op, "move") == 0) {
        size_t flen = strlen(from);
        if (strncmp(path, from, flen) == 0 && path[flen] == '/')
            return fail(p, 422, "fails: a value cannot move into one of its own members");
        if (strcmp(path, from) == 0)
            return json_pointer_get(p->root, from) ? 0 : fail(p, 422, "fails: its \"from\" does not exist");
        json_t *moved = NULL;
        if (!json_pointer_get(p->root, from))
            return fail(p, 422, "fails: its \"from\" does not exist");
        if (remove_at(p, from, &moved) != 0)
            return -1;
        return add_at(p, path, moved);
    }
    return fail(p, 400, "is not an operation: op must be add, remove, replace, move, copy or test");
}

json_t *json_patch_apply(const json_t *doc, const json_t *ops, struct api_status *st)
{
    if (!json_is_array(ops)) {
        api_fail(st, 400, "BadRequest", "a JSON patch is a list of operations");
        return NULL;
    }
    struct patching p = {.root = json_deep_copy(doc), .st = st};
    size_t i;
    const json_t *op;
    json_array_foreach(ops, i, op)
    {
        p.index = i;
        p.op = json_string_value(json_object_get(op, "op"));
        p.path = json_string_value(json_object_get(op, "path"));
        int rc;
        if (!json_is_object(op))
            rc = fail(&p, 400, "is not an object");
        else if (!p.op || !p.path)
            rc = fail(&p, 400, "needs \"op\" and \"path\" strings");
        else if (p.path[0] && p.path[0] != '/')
            rc = fail(&p, 400, "has a path that is not a JSON pointer (it must start with /)");
        else
            rc = apply_one(&p, op);
        if (rc != 0) {
            json_decref(p.root);
            return NULL;
        }
    }
    return p.root;
}
