/* Server-side apply (PATCH with application/apply-patch+yaml): the applied configuration merged
 * into the stored object, the fields it sets recorded in metadata.managedFields under its
 * fieldManager (FieldsV1: "f:<member>", "k:{<merge key>}" for keyed list items), and a field another
 * manager applied with a different value answered 409 Conflict unless ?force=true, which takes it
 * over. An object that does not exist is created. Updates by other verbs are not recorded. */
#include <stdio.h>
#include <string.h>

#include "adapters/intake/intake.h"
#include "adapters/objects/strategic_merge.h"
#include "common/clock.h"
#include "gateway/resources/answer.h"
#include "gateway/resources/handlers.h"
#include "gateway/resources/patch.h"

int patch_apply_check(struct http_req *req, struct api_status *st)
{
    const char *manager = http_query(req, "fieldManager");
    if (!manager || !*manager)
        return api_fail(st, 400, "BadRequest", "fieldManager is required for apply requests");
    const char *force = http_query(req, "force");
    if (force && strcmp(force, "true") != 0 && strcmp(force, "false") != 0)
        return api_fail(st, 400, "BadRequest", "force must be true or false, not \"%s\"", force);
    return 0;
}

/* The applied configuration (a new reference), or NULL with the Status in st. */
static json_t *applied_config(struct http_req *req, struct api_status *st)
{
    struct intake in;
    if (intake_parse(req->body.data ? req->body.data : "", req->body.len, INTAKE_SNIFF, &in, st) != 0)
        return NULL;
    json_t *root = in.ndocs == 1 && json_is_object(in.docs[0].root) ? json_incref(in.docs[0].root) : NULL;
    intake_free(&in);
    if (!root)
        api_fail(st, 400, "BadRequest", "an apply patch is one YAML or JSON object");
    return root;
}

/* The FieldsV1 set of what v sets: "f:<member>" per member, "k:<key>" per item of a keyed list,
 * {} for a leaf (a scalar, a list replaced whole). */
static json_t *fields_of(const json_t *v, const char *field)
{
    json_t *set = json_object();
    const char *key = field ? strategic_merge_key(field) : NULL;
    if (json_is_object(v)) {
        const char *k;
        json_t *m;
        json_object_foreach((json_t *)v, k, m)
        {
            char name[256];
            snprintf(name, sizeof name, "f:%s", k);
            json_object_set_new(set, name, fields_of(m, k));
        }
    } else if (json_is_array(v) && key) {
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e)
        {
            json_t *kv = json_object_get(e, key);
            if (!kv)
                continue;
            json_t *id = json_pack("{s:O}", key, kv);
            char *text = json_dumps(id, JSON_COMPACT);
            char name[512];
            snprintf(name, sizeof name, "k:%s", text ? text : "");
            free(text);
            json_decref(id);
            json_object_set_new(set, name, fields_of(e, NULL));
        }
    }
    return set;
}

/* The member or keyed item a FieldsV1 name designates in v, or NULL. */
static const json_t *step(const json_t *v, const char *name)
{
    if (strncmp(name, "f:", 2) == 0)
        return json_object_get(v, name + 2);
    json_t *id = strncmp(name, "k:", 2) == 0 ? json_loads(name + 2, 0, NULL) : NULL;
    const json_t *found = NULL;
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e)
    {
        const char *k;
        json_t *kv;
        bool all = json_is_object(id);
        json_object_foreach(id, k, kv) all = all && json_equal(json_object_get(e, k), kv);
        if (all) {
            found = e;
            break;
        }
    }
    json_decref(id);
    return found;
}

/* Adds to conflicts the paths applied (mine) also owned by another (theirs) whose applied value
 * differs from the stored one; with force, takes them out of theirs. */
static void find_conflicts(const json_t *mine, json_t *theirs, const json_t *applied, const json_t *stored,
                           const char *path, const char *who, bool force, json_t *conflicts)
{
    const char *name;
    json_t *sub;
    void *tmp;
    json_object_foreach_safe((json_t *)mine, tmp, name, sub)
    {
        json_t *their = json_object_get(theirs, name);
        if (!their)
            continue;
        char here[512];
        snprintf(here, sizeof here, "%s.%s", path, name + 2);
        const json_t *a = step(applied, name), *s = step(stored, name);
        /* a map is never a leaf: its members are (an empty one owns nothing to conflict on) */
        bool leaf = !json_is_object(a) && (json_object_size(sub) == 0 || json_object_size(their) == 0);
        if (!leaf) {
            find_conflicts(sub, their, a, s, here, who, force, conflicts);
            continue;
        }
        if (a && s && json_equal(a, s))
            continue; /* the same value: both own it */
        if (force)
            json_object_del(theirs, name);
        else
            json_array_append_new(conflicts, json_pack("{s:s, s:s}", "manager", who, "field", here));
    }
}

/* Takes out of v the member or keyed item a FieldsV1 name designates. */
static void remove_step(json_t *v, const char *name)
{
    if (strncmp(name, "f:", 2) == 0) {
        json_object_del(v, name + 2);
        return;
    }
    const json_t *item = step(v, name);
    for (size_t i = 0; item && i < json_array_size(v); i++)
        if (json_array_get(v, i) == item) {
            json_array_remove(v, i);
            return;
        }
}

/* What a manager applied before and no longer applies (in before, not in now) is removed from v,
 * as server-side apply does, unless another manager (others: their sets at this level) has it. */
static void drop_unapplied(json_t *v, const json_t *before, const json_t *now, const json_t *others)
{
    const char *name;
    json_t *sub;
    json_object_foreach((json_t *)before, name, sub)
    {
        json_t *theirs = json_array();
        size_t i;
        json_t *o;
        json_array_foreach(others, i, o) if (json_object_get(o, name))
            json_array_append(theirs, json_object_get(o, name));
        json_t *still = json_object_get(now, name);
        if (!still && json_array_size(theirs) == 0)
            remove_step(v, name);
        else if (still && json_object_size(sub) > 0)
            drop_unapplied((json_t *)step(v, name), sub, still, theirs);
        json_decref(theirs);
    }
}

static json_t *managed_entry(const char *manager, const char *api_version, json_t *fields)
{
    char now[RFC3339_LEN];
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:o}", "manager", manager, "operation", "Apply", "apiVersion",
                     api_version ? api_version : "", "time", rfc3339(clock_wall_ms(), now), "fieldsType", "FieldsV1",
                     "fieldsV1", fields);
}

/* The applied configuration's own fields, without what identifies the object. */
static json_t *owned_fields(const json_t *applied)
{
    json_t *fields = fields_of(applied, NULL);
    json_object_del(fields, "f:apiVersion");
    json_object_del(fields, "f:kind");
    json_t *meta = json_object_get(fields, "f:metadata");
    json_object_del(meta, "f:name");
    json_object_del(meta, "f:namespace");
    json_object_del(meta, "f:resourceVersion");
    if (meta && json_object_size(meta) == 0)
        json_object_del(fields, "f:metadata");
    return fields;
}

json_t *patch_apply_merge(struct http_req *req, const json_t *stored, struct api_status *st)
{
    const char *manager = http_query(req, "fieldManager");
    const char *force = http_query(req, "force");
    json_t *applied = applied_config(req, st);
    if (!applied)
        return NULL;
    json_t *mine = owned_fields(applied);
    json_t *managed = json_deep_copy(json_object_get(json_object_get(stored, "metadata"), "managedFields"));
    if (!json_is_array(managed)) {
        json_decref(managed);
        managed = json_array();
    }
    json_t *conflicts = json_array();
    size_t i;
    json_t *e;
    json_array_foreach(managed, i, e)
    {
        const char *who = json_string_value(json_object_get(e, "manager"));
        if (who && strcmp(who, manager) != 0)
            find_conflicts(mine, json_object_get(e, "fieldsV1"), applied, stored, "", who,
                           force && !strcmp(force, "true"), conflicts);
    }
    if (json_array_size(conflicts) > 0) {
        char list[1024] = "";
        json_array_foreach(conflicts, i, e)
        {
            size_t at = strlen(list);
            const char *who = json_string_value(json_object_get(e, "manager"));
            const char *field = json_string_value(json_object_get(e, "field"));
            snprintf(list + at, sizeof list - at, "%sconflict with \"%s\": %s", i ? "\n" : "", who, field);
            api_add_cause(st, field, "FieldManagerConflict", 0, 0, "conflict with \"%s\"", who);
        }
        api_fail(st, 409, "Conflict", "Apply failed with %zu conflict%s: %s", json_array_size(conflicts),
                 json_array_size(conflicts) == 1 ? "" : "s", list);
        json_decref(conflicts);
        json_decref(mine);
        json_decref(managed);
        json_decref(applied);
        return NULL;
    }
    json_decref(conflicts);
    json_t *before = NULL, *others = json_array(); /* this manager's last set; everyone else's */
    for (size_t j = json_array_size(managed); j-- > 0;) {
        json_t *entry = json_array_get(managed, j);
        const char *who = json_string_value(json_object_get(entry, "manager"));
        if (who && strcmp(who, manager) == 0) {
            json_decref(before);
            before = json_incref(json_object_get(entry, "fieldsV1"));
            json_array_remove(managed, j);
        } else {
            json_array_append(others, json_object_get(entry, "fieldsV1"));
        }
    }
    json_t *out = strategic_merge_patch(stored, applied, st);
    if (out && before)
        drop_unapplied(out, before, mine, others);
    json_array_append_new(managed,
                          managed_entry(manager, json_string_value(json_object_get(applied, "apiVersion")), mine));
    json_decref(applied);
    json_decref(before);
    json_decref(others);
    if (out) {
        json_t *meta = json_object_get(out, "metadata");
        json_object_set(meta, "managedFields", managed);
    }
    json_decref(managed);
    return out;
}

int patch_apply_body(struct http_req *req, const char *url_name, struct api_status *st)
{
    json_t *applied = applied_config(req, st);
    if (!applied)
        return -1;
    json_t *meta = json_object_get(applied, "metadata");
    const char *name = json_string_value(json_object_get(meta, "name"));
    if (!name || strcmp(name, url_name) != 0) {
        api_fail(st, 400, "BadRequest", "the name of the object (%s) does not match the name on the URL (%s)",
                 name ? name : "", url_name);
        json_decref(applied); /* after the message: name is its */
        return -1;
    }
    json_object_set_new(meta, "managedFields",
                        json_pack("[o]", managed_entry(http_query(req, "fieldManager"),
                                                       json_string_value(json_object_get(applied, "apiVersion")),
                                                       owned_fields(applied))));
    char *text = json_dumps(applied, JSON_COMPACT);
    json_decref(applied);
    if (!text)
        return api_fail(st, 500, "InternalError", "out of memory");
    sbuf_free(&req->body);
    sbuf_puts(&req->body, text);
    free(text);
    return 0;
}
