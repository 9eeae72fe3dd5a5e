/* The WatchDog file read field by field: webhooks first (routes name them), then routes, queues and
 * the thresholds; every mistake a cause with its path and line. */
#include "adapters/objects/watchdog_conf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/fields.h"
#include "adapters/intake/intake.h"
#include "common/duration.h"

#define DEFAULT_ATTEMPTS 4
#define DEFAULT_BACKOFF_MS 1000
#define DEFAULT_TIMEOUT_MS 5000
#define DEFAULT_QUEUE_SIZE 1024

static bool oom(struct fields *f)
{
    api_fail(f->st, 500, "InternalError", "out of memory");
    return false;
}

static bool read_webhook(struct fields *f, const json_t *obj, const char *path, struct watchdog_conf *c)
{
    static const char *const keys[] = {"name", "url", "format", NULL};
    const char *name = NULL, *url = NULL, *format = NULL;
    char p[FIELD_PATH_MAX];
    bool ok = field_check_known(f, obj, path, keys);
    field_path(p, path, "name");
    if (field_string(f, obj, "name", p, true, &name) && name) {
        if (!dns1123_label(name) || strcmp(name, "none") == 0) {
            field_invalid(f, obj, "name", p, "a webhook's name is a DNS-1123 label other than \"none\"");
            ok = false;
        } else if (watchdog_webhook_index(c, name) >= 0) {
            field_error(f, obj, "name", p, "FieldValueDuplicate", "Duplicate value: \"%s\"", name);
            ok = false;
        }
    } else {
        ok = false;
    }
    field_path(p, path, "url");
    if (field_string(f, obj, "url", p, true, &url) && url) {
        if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0) {
            field_invalid(f, obj, "url", p, "a webhook's URL starts with http:// or https://");
            ok = false;
        }
    } else {
        ok = false;
    }
    enum notify_format fmt = NOTIFY_JSON;
    field_path(p, path, "format");
    if (field_string(f, obj, "format", p, false, &format) && format) {
        if (strcmp(format, "slack") == 0)
            fmt = NOTIFY_SLACK;
        else if (strcmp(format, "lark") == 0 || strcmp(format, "feishu") == 0)
            fmt = NOTIFY_LARK;
        else if (strcmp(format, "json") != 0) {
            field_unsupported(f, obj, "format", p, "supported values: \"json\", \"slack\", \"lark\", \"feishu\"");
            ok = false;
        }
    }
    if (!ok || !api_ok(f->st))
        return false;
    struct watchdog_webhook *w = &c->webhooks[c->nwebhooks];
    *w = (struct watchdog_webhook){strdup(name), strdup(url), fmt};
    if (!w->name || !w->url) {
        free(w->name);
        free(w->url);
        return oom(f);
    }
    c->nwebhooks++;
    return true;
}

/* The route's webhooks by name, each known. */
static bool route_webhooks(struct fields *f, const json_t *obj, const char *path, const struct watchdog_conf *c,
                           struct watchdog_route *r)
{
    char **names = NULL;
    if (!field_string_list_in(f, obj, "webhooks", path, &names))
        return false;
    char p[FIELD_PATH_MAX];
    field_path(p, path, "webhooks");
    if (!names || !names[0]) {
        if (names)
            field_invalid(f, obj, "webhooks", p, "names at least one webhook");
        else
            field_required(f, obj, "webhooks", p);
        free(names);
        return false;
    }
    size_t n = 0;
    while (names[n])
        n++;
    bool ok = (r->webhooks = calloc(n, sizeof *r->webhooks)) != NULL || oom(f);
    json_t *arr = json_object_get(obj, "webhooks");
    for (size_t i = 0; ok && i < n; i++) {
        int w = watchdog_webhook_index(c, names[i]);
        if (w < 0) {
            char item[FIELD_PATH_MAX];
            field_path_index(item, p, i);
            field_error_at_index(f, arr, i, item, "FieldValueNotFound", "Not found: \"%s\": no such webhook", names[i]);
            ok = false;
        }
        r->webhooks[r->nwebhooks++] = w;
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return ok;
}

static bool route_kinds(struct fields *f, const json_t *obj, const char *path, struct watchdog_route *r)
{
    char **kinds = NULL;
    r->kinds = NOTICE_ALL;
    if (!field_string_list_in(f, obj, "notify", path, &kinds))
        return false;
    if (!kinds)
        return true;
    bool ok = true;
    r->kinds = 0;
    char p[FIELD_PATH_MAX];
    field_path(p, path, "notify");
    json_t *arr = json_object_get(obj, "notify");
    for (size_t i = 0; kinds[i]; i++) {
        int k = notice_kind_from_name(kinds[i]);
        if (k < 0) {
            char item[FIELD_PATH_MAX];
            field_path_index(item, p, i);
            field_error_at_index(f, arr, i, item, "FieldValueNotSupported",
                                 "Unsupported value: \"%s\": supported values: \"Completed\", \"Failed\", "
                                 "\"MemoryScaled\", \"Evicted\", \"PendingTooLong\", \"Waste\"",
                                 kinds[i]);
            ok = false;
        } else {
            r->kinds |= 1u << k;
        }
        free(kinds[i]);
    }
    free(kinds);
    return ok;
}

static bool read_route(struct fields *f, const json_t *obj, const char *path, struct watchdog_conf *c)
{
    static const char *const keys[] = {"namespace", "user", "webhooks", "notify", NULL};
    struct watchdog_route r = {0};
    const char *ns = NULL, *user = NULL;
    bool ok = field_check_known(f, obj, path, keys);
    ok = field_string_in(f, obj, "namespace", path, false, &ns) && ok;
    ok = field_string_in(f, obj, "user", path, false, &user) && ok;
    ok = route_webhooks(f, obj, path, c, &r) && ok;
    ok = route_kinds(f, obj, path, &r) && ok;
    if (ok && ((ns && !(r.ns = strdup(ns))) || (user && !(r.user = strdup(user)))))
        ok = oom(f);
    if (!ok || !api_ok(f->st)) {
        free(r.ns);
        free(r.user);
        free(r.webhooks);
        return false;
    }
    c->routes[c->nroutes++] = r;
    return true;
}

static bool read_percents(struct fields *f, const json_t *obj, const char *path, struct watchdog_queue *q)
{
    json_t *map;
    char p[FIELD_PATH_MAX];
    field_path(p, path, "capabilityPercent");
    if (!field_object(f, obj, "capabilityPercent", p, true, &map) || !map)
        return false;
    bool ok = true;
    const char *name;
    json_t *v;
    json_object_foreach(map, name, v)
    {
        char item[FIELD_PATH_MAX];
        field_path(item, p, name);
        int r = resource_index(name);
        if (r < 0 || r == RES_PODS) {
            field_error(f, map, name, item, "FieldValueNotSupported",
                        "Unsupported value: \"%s\": not a resource the nodes make allocatable", name);
            ok = false;
        } else if (!json_is_number(v) || json_number_value(v) <= 0 || json_number_value(v) > 100) {
            field_invalid(f, map, name, item, "a percentage is a number above 0 and at most 100");
            ok = false;
        } else {
            q->has[r] = true;
            q->percent[r] = json_number_value(v);
        }
    }
    if (ok && json_object_size(map) == 0) {
        field_invalid(f, obj, "capabilityPercent", p, "names at least one resource");
        ok = false;
    }
    return ok;
}

static bool read_queue(struct fields *f, const json_t *obj, const char *path, struct watchdog_conf *c)
{
    static const char *const keys[] = {"name", "capabilityPercent", NULL};
    struct watchdog_queue q = {0};
    const char *name = NULL;
    char p[FIELD_PATH_MAX];
    bool ok = field_check_known(f, obj, path, keys);
    field_path(p, path, "name");
    if (!field_string(f, obj, "name", p, true, &name) || !name) {
        ok = false;
    } else {
        for (int i = 0; i < c->nqueues; i++)
            if (strcmp(c->queues[i].name, name) == 0) {
                field_error(f, obj, "name", p, "FieldValueDuplicate", "Duplicate value: \"%s\"", name);
                ok = false;
            }
    }
    ok = read_percents(f, obj, path, &q) && ok;
    if (!ok || !api_ok(f->st))
        return false;
    if (!(q.name = strdup(name)))
        return oom(f);
    c->queues[c->nqueues++] = q;
    return true;
}

/* A list of objects, each read by `read` into c; the array of n items is allocated first. */
static void read_list(struct fields *f, const json_t *root, const char *key, void **items, size_t size,
                      bool (*read)(struct fields *, const json_t *, const char *, struct watchdog_conf *),
                      struct watchdog_conf *c)
{
    json_t *list = NULL;
    if (!field_array(f, root, key, key, false, &list) || !list || json_array_size(list) == 0)
        return;
    if (!(*items = calloc(json_array_size(list), size))) {
        oom(f);
        return;
    }
    for (size_t i = 0; i < json_array_size(list); i++) {
        char path[FIELD_PATH_MAX];
        json_t *obj = field_each_object(f, list, i, key, path, "must be an object");
        if (obj)
            read(f, obj, path, c);
    }
}

static bool read_duration(struct fields *f, const json_t *obj, const char *key, const char *path, int64_t min_ms,
                          int64_t *out)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return true;
    const char *why = NULL;
    char p[FIELD_PATH_MAX];
    field_path(p, path, key);
    if (duration_from_json(v, out, &why) != 0 || *out < min_ms) {
        field_invalid(f, obj, key, p, why ? why : "too short");
        return false;
    }
    return true;
}

static void read_waste(struct fields *f, const json_t *root, struct watchdog_conf *c)
{
    static const char *const keys[] = {"fraction", "period", NULL};
    json_t *w;
    if (!field_object(f, root, "waste", "waste", false, &w) || !w)
        return;
    field_check_known(f, w, "waste", keys);
    json_t *fr = json_object_get(w, "fraction");
    if (!json_is_number(fr) || json_number_value(fr) <= 0 || json_number_value(fr) >= 1) {
        if (!fr)
            field_required(f, w, "fraction", "waste.fraction");
        else
            field_invalid(f, w, "fraction", "waste.fraction", "a fraction of the request, above 0 and below 1");
        return;
    }
    c->waste_fraction = json_number_value(fr);
    c->waste_period_ms = 30 * 60 * 1000;
    read_duration(f, w, "period", "waste", 1000, &c->waste_period_ms);
}

static void delivery_defaults(struct watchdog_conf *c)
{
    c->retries = DEFAULT_ATTEMPTS - 1;
    c->backoff_ms = DEFAULT_BACKOFF_MS;
    c->timeout_ms = DEFAULT_TIMEOUT_MS;
    c->queue_size = DEFAULT_QUEUE_SIZE;
}

static void read_delivery(struct fields *f, const json_t *root, struct watchdog_conf *c)
{
    static const char *const keys[] = {"attempts", "backoff", "timeout", "queueSize", NULL};
    json_t *d;
    delivery_defaults(c);
    if (!field_object(f, root, "delivery", "delivery", false, &d) || !d)
        return;
    field_check_known(f, d, "delivery", keys);
    int64_t attempts = DEFAULT_ATTEMPTS, size = DEFAULT_QUEUE_SIZE;
    if (field_int(f, d, "attempts", "delivery.attempts", false, 1, 20, &attempts))
        c->retries = (int)(json_object_get(d, "attempts") ? attempts : DEFAULT_ATTEMPTS) - 1;
    if (field_int(f, d, "queueSize", "delivery.queueSize", false, 1, 1000000, &size))
        c->queue_size = (int)(json_object_get(d, "queueSize") ? size : DEFAULT_QUEUE_SIZE);
    read_duration(f, d, "backoff", "delivery", 1, &c->backoff_ms);
    read_duration(f, d, "timeout", "delivery", 100, &c->timeout_ms);
}

int watchdog_conf_parse(const char *data, size_t len, struct watchdog_conf *out, struct api_status *st)
{
    memset(out, 0, sizeof *out);
    struct intake in;
    int found = intake_parse_config(data, len, "a watchdog file is one YAML mapping", &in, st);
    if (found <= 0) {
        delivery_defaults(out);
        return found;
    }
    static const char *const root_keys[] = {"webhooks", "routes",   "queues", "pendingTimeout",
                                            "waste",    "delivery", NULL};
    struct fields f = {&in.docs[0], st, false};
    json_t *root = in.docs[0].root;
    field_check_known(&f, root, "", root_keys);
    read_list(&f, root, "webhooks", (void **)&out->webhooks, sizeof *out->webhooks, read_webhook, out);
    read_list(&f, root, "routes", (void **)&out->routes, sizeof *out->routes, read_route, out);
    read_list(&f, root, "queues", (void **)&out->queues, sizeof *out->queues, read_queue, out);
    read_duration(&f, root, "pendingTimeout", "", 1000, &out->pending_ms);
    read_waste(&f, root, out);
    read_delivery(&f, root, out);
    intake_free(&in);
    if (st->ncauses > 0 || !api_ok(st)) {
        watchdog_conf_free(out);
        return api_ok(st) ? api_fail_invalid(st, "watchdog file", "") : -1;
    }
    return 0;
}
