/* Posting a job in another dialect: translate, validate the Volcano Job it became with the Volcano
 * rules, and say every problem in the words of the user's own document (registry.c finds the dialect). */
#include "adapters/dialects/dialect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/volcano/job.h"

void dialect_map_path(struct dialect_translation *t, const char *volcano, const char *source)
{
    if (t->nmaps >= DIALECT_MAX_PATH_MAPS)
        return;
    snprintf(t->maps[t->nmaps].volcano, sizeof t->maps[t->nmaps].volcano, "%s", volcano);
    snprintf(t->maps[t->nmaps].source, sizeof t->maps[t->nmaps].source, "%s", source);
    t->nmaps++;
}

/* The longest map whose Volcano path is a whole-segment prefix of field, or NULL. */
static const struct dialect_path_map *map_for(const struct dialect_translation *t, const char *field)
{
    const struct dialect_path_map *best = NULL;
    size_t best_len = 0;
    for (int i = 0; i < t->nmaps; i++) {
        size_t n = strlen(t->maps[i].volcano);
        char next = field[n];
        if (n > best_len && strncmp(field, t->maps[i].volcano, n) == 0 && (next == 0 || next == '.' || next == '['))
            best = &t->maps[i], best_len = n;
    }
    return best;
}

/* Where the value at a field path ("spec.a[2].b") of the source is in the user's YAML; false when
 * the path does not lead to a value (or the input was JSON). */
static bool locate(const struct intake_doc *doc, const char *path, struct intake_pos *pos)
{
    const json_t *node = doc->root;
    bool found = false;
    const char *p = path;
    while (*p && node) {
        if (*p == '[') {
            char *end;
            long index = strtol(p + 1, &end, 10);
            if (*end != ']' || index < 0 || !json_is_array(node))
                return false;
            found = intake_index_pos(doc, node, (size_t)index, pos);
            node = json_array_get(node, (size_t)index);
            p = end + 1;
        } else {
            if (*p == '.')
                p++;
            size_t n = strcspn(p, ".[");
            char key[FIELD_PATH_MAX];
            if (n == 0 || n >= sizeof key || !json_is_object(node))
                return false;
            memcpy(key, p, n);
            key[n] = 0;
            found = intake_member_pos(doc, node, key, pos);
            node = json_object_get(node, key);
            p += n;
        }
    }
    return found && node != NULL && *p == 0;
}

static void rewrite_causes(const struct intake_doc *doc, const struct dialect_translation *t, struct api_status *st)
{
    int shown = st->ncauses < API_MAX_CAUSES ? st->ncauses : API_MAX_CAUSES;
    for (int i = 0; i < shown; i++) {
        struct api_cause *c = &st->causes[i];
        const struct dialect_path_map *m = map_for(t, c->field);
        if (!m)
            continue;
        char field[sizeof c->field];
        snprintf(field, sizeof field, "%s%s", m->source, c->field + strlen(m->volcano));
        memcpy(c->field, field, sizeof field);
        struct intake_pos pos;
        if (c->line == 0 && locate(doc, c->field, &pos)) {
            c->line = pos.line;
            c->column = pos.column;
        }
    }
}

static const char *source_name(const json_t *source)
{
    return json_string_value(json_object_get(json_object_get(source, "metadata"), "name"));
}

/* 422 naming the dialect's kind and group, from the causes collected. */
static int fail_invalid(const struct dialect *d, const json_t *source, struct api_status *st)
{
    char kind_group[128];
    snprintf(kind_group, sizeof kind_group, "%s.%s", d->kind, d->group);
    const char *name = source_name(source);
    st->code = 0;
    api_fail_invalid(st, kind_group, name);
    api_set_details(st, d->kind, d->group, name ? name : "");
    return -1;
}

static int check_type(const struct dialect *d, const json_t *root, struct api_status *st)
{
    const json_t *av = json_object_get(root, "apiVersion"), *kind = json_object_get(root, "kind");
    char want[128];
    snprintf(want, sizeof want, "%s/%s", d->group, d->version);
    if (av && (!json_is_string(av) || strcmp(json_string_value(av), want) != 0))
        return api_fail(st, 400, "BadRequest",
                        "the API version in the data (%s) does not match the expected API version (%s)",
                        json_is_string(av) ? json_string_value(av) : "?", want);
    if (kind && (!json_is_string(kind) || strcmp(json_string_value(kind), d->kind) != 0))
        return api_fail(st, 400, "BadRequest", "the kind in the data (%s) does not match the expected kind (%s)",
                        json_is_string(kind) ? json_string_value(kind) : "?", d->kind);
    return 0;
}

int dialect_job_from_doc(const struct dialect *d, const struct intake_doc *doc, const char *url_ns, struct job **out,
                         struct api_status *st)
{
    return dialect_job_from_doc_keep(d, doc, url_ns, out, st, NULL);
}

void dialect_restate_status(const struct dialect *d, const struct intake_doc *doc,
                            const struct dialect_translation *keep, struct api_status *st)
{
    if (!d)
        return;
    const char *name = source_name(doc->root);
    if (st->code == 422 && st->ncauses > 0) {
        rewrite_causes(doc, keep, st);
        fail_invalid(d, doc->root, st);
    } else if (st->code == 403 && st->ncauses > 0) { /* run_as_enforce's: fields asking for another user */
        char resource_group[128];
        snprintf(resource_group, sizeof resource_group, "%s.%s", d->plural, d->group);
        rewrite_causes(doc, keep, st);
        api_fail_causes(st, 403, "Forbidden", resource_group, name, "is forbidden");
        api_set_details(st, d->plural, d->group, name ? name : "");
    } else if (st->code == 409 && strcmp(st->reason, "AlreadyExists") == 0) {
        api_fail(st, 409, "AlreadyExists",
                 "%s.%s \"%s\" already exists (a %s is the Volcano Job of its name, and "
                 "that job exists)",
                 d->plural, d->group, name ? name : "", d->kind);
        api_set_details(st, d->plural, d->group, name ? name : "");
    }
}

int dialect_job_from_doc_keep(const struct dialect *d, const struct intake_doc *doc, const char *url_ns,
                              struct job **out, struct api_status *st, struct dialect_translation *keep)
{
    *out = NULL;
    if (!d)
        return volcano_job_from_doc(doc, url_ns, out, st);
    json_t *source = doc->root;
    if (!json_is_object(source))
        return api_fail(st, 400, "BadRequest", "the body must be a %s object", d->kind);
    if (check_type(d, source, st) != 0)
        return -1;
    char api_version[128];
    snprintf(api_version, sizeof api_version, "%s/%s", d->group, d->version);
    json_object_set_new(source, "apiVersion", json_string(api_version));
    json_object_set_new(source, "kind", json_string(d->kind));
    json_object_del(source, "status"); /* the server's to write */

    struct dialect_translation t = {0};
    struct fields f = {doc, st};
    if (d->translate(&f, source, url_ns, &t) != 0 || st->code != 0 || st->ncauses > 0) {
        json_decref(t.volcano);
        return st->code != 0 && st->ncauses == 0 ? -1 : fail_invalid(d, source, st);
    }
    /* The object as its dialect admitted it, before the Volcano Job's admission writes its own
     * defaults into the templates the two share (a pod's restartPolicy): GET shows what the user's
     * format says, not what Volcano added. */
    json_t *admitted = json_deep_copy(source);
    struct intake_doc vdoc = *doc; /* the same positions, keyed on the shared subtrees */
    vdoc.root = t.volcano;
    int rc = admitted ? volcano_job_from_doc(&vdoc, url_ns, out, st)
                      : api_fail(st, 500, "InternalError", "out of memory");
    json_decref(t.volcano);
    if (rc != 0) {
        json_decref(admitted);
        if (st->ncauses > 0) {
            rewrite_causes(doc, &t, st);
            return fail_invalid(d, source, st);
        }
        return -1;
    }
    json_t *meta = json_object_get(admitted, "metadata");
    if (json_is_object(meta) && !json_object_get(meta, "name")) /* generateName: the name given */
        json_object_set_new(meta, "name", json_string((*out)->name));
    (*out)->source = admitted;
    if (keep) {
        *keep = t;
        keep->volcano = NULL;
    }
    return 0;
}

json_t *dialect_render(const struct dialect *d, const json_t *source, const json_t *volcano_job)
{
    json_t *obj = json_copy((json_t *)source);
    const json_t *vmeta = json_object_get(volcano_job, "metadata");
    json_t *meta = json_deep_copy(json_object_get(source, "metadata"));
    if (!obj || !meta) {
        json_decref(obj);
        json_decref(meta);
        return NULL;
    }
    static const char *const server_fields[] = {
        "name", "uid", "namespace", "resourceVersion", "creationTimestamp", "generation", "deletionTimestamp"};
    for (size_t i = 0; i < sizeof server_fields / sizeof *server_fields; i++) {
        json_t *v = json_object_get(vmeta, server_fields[i]);
        if (v)
            json_object_set(meta, server_fields[i], v);
    }
    json_object_set_new(obj, "metadata", meta);
    json_t *status = d->render_status ? d->render_status(source, volcano_job) : NULL;
    if (status)
        json_object_set_new(obj, "status", status);
    return obj;
}
