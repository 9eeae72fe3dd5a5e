/* Kubernetes' Table view of an answer: which view the request asks for (Accept, ?includeObject)
 * and the Table itself, built from the objects the core rendered (their metadata shared, not
 * copied), so what goes on the wire is a few cells per object instead of its spec. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gateway/table/table.h"

#define TABLE_GROUP "meta.k8s.io"

/* The value of parameter name in a media range's parameters ("as=Table;v=v1"), into out. */
static bool media_param(const char *params, size_t len, const char *name, char *out, size_t out_len)
{
    size_t name_len = strlen(name);
    for (size_t i = 0; i < len;) {
        while (i < len && (params[i] == ';' || params[i] == ' ' || params[i] == '\t'))
            i++;
        size_t end = i;
        while (end < len && params[end] != ';')
            end++;
        if (end - i > name_len && strncasecmp(params + i, name, name_len) == 0 && params[i + name_len] == '=') {
            size_t v = i + name_len + 1, n = end - v;
            while (n > 0 && (params[v + n - 1] == ' ' || params[v + n - 1] == '\t'))
                n--;
            snprintf(out, out_len, "%.*s", (int)n, params + v);
            return true;
        }
        i = end;
    }
    return false;
}

/* One media range: 1 a Table it names (version in *version), 0 plain JSON, -1 neither. */
static int media_range(const char *range, size_t len, const char **version)
{
    while (len > 0 && (*range == ' ' || *range == '\t'))
        range++, len--;
    size_t type_len = 0;
    while (type_len < len && range[type_len] != ';')
        type_len++;
    size_t t = type_len;
    while (t > 0 && (range[t - 1] == ' ' || range[t - 1] == '\t'))
        t--;
    bool json = t == 16 && strncasecmp(range, "application/json", 16) == 0;
    bool any = (t == 3 && strncmp(range, "*/*", 3) == 0) || (t == 13 && strncasecmp(range, "application/*", 13) == 0);
    if (!json)
        return any ? 0 : -1;
    char as[16] = "", group[32] = "", v[16] = "";
    const char *params = range + type_len;
    size_t params_len = len - type_len;
    if (!media_param(params, params_len, "as", as, sizeof as))
        return 0;
    if (strcmp(as, "Table") != 0 || !media_param(params, params_len, "g", group, sizeof group) ||
        strcmp(group, TABLE_GROUP) != 0 || !media_param(params, params_len, "v", v, sizeof v))
        return -1;
    if (strcmp(v, "v1") == 0)
        *version = TABLE_GROUP "/v1";
    else if (strcmp(v, "v1beta1") == 0)
        *version = TABLE_GROUP "/v1beta1";
    else
        return -1;
    return 1;
}

int table_view_read(const char *accept, const char *include_object, struct table_view *view, struct api_status *st)
{
    *view = (struct table_view){.include = TABLE_INCLUDE_METADATA};
    for (const char *p = accept; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        int r = media_range(p, len, &view->api_version);
        if (r >= 0) {
            view->wanted = r == 1;
            break;
        }
        p = comma ? comma + 1 : NULL;
    }
    if (!include_object || !*include_object || strcmp(include_object, "Metadata") == 0)
        return 0;
    if (strcmp(include_object, "Object") == 0) {
        view->include = TABLE_INCLUDE_OBJECT;
        return 0;
    }
    if (strcmp(include_object, "None") == 0) {
        view->include = TABLE_INCLUDE_NONE;
        return 0;
    }
    api_add_cause(st, "includeObject", "FieldValueNotSupported", 0, 0,
                  "Unsupported value: \"%.64s\": supported values: \"None\", \"Metadata\", \"Object\"", include_object);
    return api_fail_causes(st, 400, "BadRequest", "TableOptions.meta.k8s.io", "", "is invalid");
}

static json_t *column_definitions(const struct table_kind *k)
{
    json_t *defs = json_array();
    for (size_t i = 0; i < k->ncolumns; i++) {
        const struct table_column *c = &k->columns[i];
        json_array_append_new(defs, json_pack("{s:s, s:s, s:s, s:s, s:i}", "name", c->name, "type", c->type, "format",
                                              c->format ? c->format : "", "description", c->description, "priority",
                                              c->priority));
    }
    return defs;
}

static json_t *row(const struct table_kind *k, const json_t *obj, const struct table_view *view, int64_t now_ms)
{
    json_t *cells = json_array();
    for (size_t i = 0; i < k->ncolumns; i++)
        json_array_append_new(cells, k->columns[i].cell(obj, now_ms));
    json_t *r = json_pack("{s:o}", "cells", cells);
    if (view->include == TABLE_INCLUDE_OBJECT)
        json_object_set(r, "object", (json_t *)obj);
    else if (view->include == TABLE_INCLUDE_METADATA)
        json_object_set_new(r, "object",
                            json_pack("{s:s, s:s, s:O}", "kind", "PartialObjectMetadata", "apiVersion",
                                      view->api_version, "metadata", json_object_get(obj, "metadata")));
    return r;
}

/* The Table's kind, apiVersion and metadata (the list's resourceVersion and continue). */
static json_t *table_head(const json_t *body, const struct table_view *view, const struct table_kind *k, bool list)
{
    json_t *list_meta = json_object_get(body, "metadata");
    json_t *meta = json_object();
    json_t *rv = json_object_get(list_meta, "resourceVersion"), *cont = json_object_get(list_meta, "continue");
    if (rv)
        json_object_set(meta, "resourceVersion", rv);
    if (cont && list)
        json_object_set(meta, "continue", cont);
    return json_pack("{s:s, s:s, s:o, s:o}", "kind", "Table", "apiVersion", view->api_version, "metadata", meta,
                     "columnDefinitions", column_definitions(k));
}

/* The columns of a list's items ("JobList" of "batch.volcano.sh/v1alpha1": Job's), or of an
 * object's kind; NULL when none. */
static const struct table_kind *kind_of(const json_t *body)
{
    const json_t *items = json_object_get(body, "items");
    const char *kind = json_string_value(json_object_get(body, "kind"));
    const char *api_version = json_string_value(json_object_get(body, "apiVersion"));
    size_t kind_len = kind ? strlen(kind) : 0;
    char item_kind[96];
    if (json_is_array(items) && kind_len > 4 && strcmp(kind + kind_len - 4, "List") == 0)
        snprintf(item_kind, sizeof item_kind, "%.*s", (int)(kind_len - 4), kind);
    else if (kind && !items)
        snprintf(item_kind, sizeof item_kind, "%s", kind);
    else
        return NULL;
    return table_kind_find(api_version, item_kind);
}

char *table_text_with_rows(const json_t *list, const struct table_view *view, const char *rows)
{
    const struct table_kind *k = kind_of(list);
    json_t *head = k ? table_head(list, view, k, true) : NULL;
    char *text = head ? json_dumps(head, JSON_COMPACT) : NULL;
    json_decref(head);
    size_t len = text ? strlen(text) : 0, rows_len = strlen(rows);
    char *out = len > 1 ? malloc(len + rows_len + 16) : NULL;
    if (out) /* {...,"columnDefinitions":[...]} -> {...,"columnDefinitions":[...],"rows":ROWS} */
        snprintf(out, len + rows_len + 16, "%.*s,\"rows\":%s}", (int)(len - 1), text, rows);
    free(text);
    return out;
}

json_t *table_from_objects(const json_t *body, const struct table_view *view, int64_t now_ms)
{
    const json_t *items = json_object_get(body, "items");
    const struct table_kind *k = kind_of(body);
    if (!k)
        return NULL;
    json_t *rows = json_array();
    if (items) {
        size_t i;
        const json_t *obj;
        json_array_foreach(items, i, obj) { json_array_append_new(rows, row(k, obj, view, now_ms)); }
    } else {
        json_array_append_new(rows, row(k, body, view, now_ms));
    }
    json_t *table = table_head(body, view, k, items != NULL);
    json_object_set_new(table, "rows", rows);
    return table;
}
