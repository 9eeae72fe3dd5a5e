/* Discovery's resources read from the route table: which resource each route's path names, and
 * which verb its method is there. Pure: the same rows give the same resources, in their order. */
#include "gateway/openapi/discovery_resources.h"

#include <stdio.h>
#include <string.h>

#include "adapters/dialects/dialect.h"
#include "gateway/router/router.h"

#define MAX_SEGMENTS 16

static const char *const verb_words[API_VERB_COUNT] = {"create", "delete", "get", "list", "watch", "update", "patch"};

const char *api_verb_word(unsigned verb)
{
    for (int i = 0; i < API_VERB_COUNT; i++)
        if (verb == 1u << i)
            return verb_words[i];
    return NULL;
}

/* A path read as Kubernetes reads it. */
struct resource_path {
    const char *group, *version, *resource, *subresource; /* subresource NULL: none */
    bool namespaced;
    bool item; /* names one object: /{name} follows the resource */
};

static bool placeholder(const char *seg) { return seg[0] == '{'; }

/* The segment as a dialect's route means it: {group}, {version} and {plural} as d's own. */
static const char *own(const char *seg, const struct dialect *d)
{
    if (!d)
        return seg;
    if (strcmp(seg, "{group}") == 0)
        return d->group;
    if (strcmp(seg, "{version}") == 0)
        return d->version;
    if (strcmp(seg, "{plural}") == 0)
        return d->plural;
    return seg;
}

/* Reads pattern (copied into buf) into p; false when it names no resource (discovery itself,
 * /healthz, the UI...) or something below a subresource. */
static bool read_path(const char *pattern, const struct dialect *d, char *buf, size_t len, struct resource_path *p)
{
    const char *seg[MAX_SEGMENTS];
    int n = 0, first;
    snprintf(buf, len, "%s", pattern);
    for (char *save = NULL, *s = strtok_r(buf, "/", &save); s; s = strtok_r(NULL, "/", &save)) {
        if (n == MAX_SEGMENTS)
            return false;
        seg[n++] = own(s, d);
    }
    *p = (struct resource_path){0};
    if (n >= 3 && strcmp(seg[0], "api") == 0) {
        p->group = "";
        p->version = seg[1];
        first = 2;
    } else if (n >= 4 && strcmp(seg[0], "apis") == 0) {
        p->group = seg[1];
        p->version = seg[2];
        first = 3;
    } else {
        return false;
    }
    const char **rest = seg + first;
    int m = n - first;
    if (m >= 3 && strcmp(rest[0], "namespaces") == 0) {
        p->namespaced = true;
        rest += 2;
        m -= 2;
    }
    if (placeholder(p->group) || placeholder(p->version) || placeholder(rest[0]) || m > 3)
        return false;
    p->resource = rest[0];
    p->item = m >= 2;
    if (p->item && !placeholder(rest[1]))
        return false;
    if (m == 3) {
        if (placeholder(rest[2]))
            return false; /* an action named by the request ({action}) */
        p->subresource = rest[2];
    }
    return true;
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

/* The verb method is at p (0: none discovery shows). */
static unsigned verb_of(const struct route *r, const struct resource_path *p)
{
    if (p->subresource)
        return strcmp(r->method, "GET") == 0 ? VERB_GET : 0;
    if (p->item) {
        if (strcmp(r->method, "GET") == 0)
            return VERB_GET;
        if (strcmp(r->method, "PUT") == 0)
            return VERB_UPDATE;
        if (strcmp(r->method, "PATCH") == 0)
            return VERB_PATCH;
        return strcmp(r->method, "DELETE") == 0 ? VERB_DELETE : 0;
    }
    if (strcmp(r->method, "POST") == 0)
        return VERB_CREATE;
    if (strcmp(r->method, "GET") != 0 || !r->doc.answer || !ends_with(r->doc.answer, "List"))
        return 0; /* a GET that lists no objects (caldera.io's stream) */
    return VERB_LIST | (r->doc.query & OQ_WATCH ? VERB_WATCH : 0);
}

/* The kind route r answers with at p ("" when it tells none): its answer, "{kind}" as d's, a list's
 * without "List". */
static void kind_of(const struct route *r, const struct dialect *d, const struct resource_path *p, char *out,
                    size_t len)
{
    const char *answer = r->doc.answer;
    out[0] = '\0';
    if (!answer || strcmp(answer, "Status") == 0)
        return;
    if (d && strncmp(answer, "{kind}", 6) == 0)
        snprintf(out, len, "%s%s", d->kind, answer + 6);
    else
        snprintf(out, len, "%s", answer);
    if (!p->item && ends_with(out, "List"))
        out[strlen(out) - 4] = '\0';
}

static struct api_resource *find(struct api_resource *out, int n, const char *group, const char *version,
                                 const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(out[i].group, group) == 0 && strcmp(out[i].version, version) == 0 && strcmp(out[i].name, name) == 0)
            return &out[i];
    return NULL;
}

/* A dialect's PUT and PATCH rows serve only a dialect with an update rule (a DebugSession's). */
static bool dialect_route_serves(const struct route *r, const struct dialect *d)
{
    return d->update || (strcmp(r->method, "PUT") != 0 && strcmp(r->method, "PATCH") != 0);
}

/* Adds what route r (for dialect d, or NULL) says of its resource; returns the new count, or -1
 * when out is full. */
static int add_route(const struct route *r, const struct dialect *d, struct api_resource *out, int n, int max)
{
    char buf[512], name[2 * DISCOVERY_FIELD_MAX], kind[DISCOVERY_FIELD_MAX];
    struct resource_path p;
    if ((d && !dialect_route_serves(r, d)) || !read_path(r->pattern, d, buf, sizeof buf, &p))
        return n;
    unsigned verb = verb_of(r, &p);
    if (p.subresource && !verb)
        return n; /* an action (POST .../open): not a resource discovery shows */
    snprintf(name, sizeof name, "%s%s%s", p.resource, p.subresource ? "/" : "", p.subresource ? p.subresource : "");
    struct api_resource *res = find(out, n, p.group, p.version, name);
    if (!res) {
        if (n == max)
            return -1;
        res = &out[n++];
        *res = (struct api_resource){0};
        snprintf(res->group, sizeof res->group, "%s", p.group);
        snprintf(res->version, sizeof res->version, "%s", p.version);
        snprintf(res->name, sizeof res->name, "%s", name);
    }
    res->namespaced = res->namespaced || p.namespaced;
    res->verbs |= verb;
    kind_of(r, d, &p, kind, sizeof kind);
    if (!res->kind[0])
        snprintf(res->kind, sizeof res->kind, "%s", kind);
    if (!res->short_names)
        res->short_names = d ? d->short_names : r->doc.short_names;
    return n;
}

/* What the rows leave open: a subresource answering text is of its resource's kind; a listed
 * object's singular name is its kind in lower case. */
static void complete(struct api_resource *out, int n)
{
    for (int i = 0; i < n; i++) {
        struct api_resource *res = &out[i];
        char *slash = strchr(res->name, '/');
        if (!res->kind[0] && slash) {
            *slash = '\0';
            const struct api_resource *of = find(out, n, res->group, res->version, res->name);
            *slash = '/';
            if (of)
                snprintf(res->kind, sizeof res->kind, "%s", of->kind);
        }
        for (size_t c = 0; res->verbs & VERB_LIST && c < sizeof res->singular && res->kind[c]; c++) {
            char k = res->kind[c];
            res->singular[c] = (char)(k >= 'A' && k <= 'Z' ? k + 32 : k);
        }
    }
}

int discovery_resources(const struct route *routes, struct api_resource *out, int max)
{
    int n = 0;
    for (const struct route *r = routes; r->pattern && n >= 0; r++) {
        if (!route_is_dialect(r->pattern)) {
            n = add_route(r, NULL, out, n, max);
            continue;
        }
        for (const struct dialect *const *d = dialects; *d && n >= 0; d++)
            n = add_route(r, *d, out, n, max);
    }
    if (n >= 0)
        complete(out, n);
    return n;
}
