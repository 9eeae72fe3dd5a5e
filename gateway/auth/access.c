/* Authorization from the path: /api/v1/... and /apis/{group}/{version}/... read as Kubernetes reads
 * them (namespaces/{ns}/{resource}/{name}/{subresource}), the rule each kind of request falls under,
 * and the role rules: viewers read their namespaces, users also write there, admins do everything. */
#include "gateway/auth/access.h"

#include <stdio.h>
#include <string.h>

#define MAX_SEGMENTS 16

/* Namespaced resources only admins change (seed 001: a tenant's quota is the platform's to set). */
static const char *const admin_managed[] = {"resourcequotas", NULL};
static const char *const public_patterns[] = {"/healthz", "/", "/ui", "/ui/{file}", NULL};

static void copy_segment(char *out, const char *seg, size_t len)
{
    snprintf(out, ACCESS_FIELD_MAX, "%.*s", (int)(len < ACCESS_FIELD_MAX ? len : ACCESS_FIELD_MAX - 1), seg);
}

/* Splits path into segments (pointers and lengths), dropping empty ones; returns how many. */
static int split(const char *path, const char **seg, size_t *len)
{
    int n = 0;
    for (const char *p = path; *p && n < MAX_SEGMENTS;) {
        p += strspn(p, "/");
        size_t l = strcspn(p, "/");
        if (l > 0) {
            seg[n] = p;
            len[n++] = l;
        }
        p += l;
    }
    return n;
}

static bool is(const char *seg, size_t len, const char *word)
{
    return strlen(word) == len && strncmp(seg, word, len) == 0;
}

static const char *verb_of(const char *method, bool named)
{
    if (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0)
        return named ? "get" : "list";
    if (strcmp(method, "POST") == 0)
        return "create";
    if (strcmp(method, "PUT") == 0)
        return "update";
    if (strcmp(method, "PATCH") == 0)
        return "patch";
    if (strcmp(method, "DELETE") == 0)
        return named ? "delete" : "deletecollection";
    return "";
}

void access_describe(const char *method, const char *path, struct access_request *r)
{
    *r = (struct access_request){.method = method, .path = path};
    const char *seg[MAX_SEGMENTS];
    size_t len[MAX_SEGMENTS];
    int n = split(path, seg, len), first;
    snprintf(r->verb, sizeof r->verb, "%s", strcmp(method, "HEAD") == 0 ? "get" : method);
    for (char *v = r->verb; *v; v++)
        *v = (char)(*v >= 'A' && *v <= 'Z' ? *v + 32 : *v); /* a non-resource path's verb: the method */
    if (n >= 3 && is(seg[0], len[0], "api"))
        first = 2; /* /api/v1/... */
    else if (n >= 4 && is(seg[0], len[0], "apis"))
        first = 3; /* /apis/{group}/{version}/... */
    else
        return;
    if (first == 3)
        copy_segment(r->group, seg[1], len[1]);
    const char **rest = seg + first;
    size_t *rlen = len + first;
    int m = n - first;
    if (m >= 3 && is(rest[0], rlen[0], "namespaces")) {
        copy_segment(r->ns, rest[1], rlen[1]);
        rest += 2;
        rlen += 2;
        m -= 2;
    }
    r->is_resource = true;
    copy_segment(r->resource, rest[0], rlen[0]);
    if (m >= 2)
        copy_segment(r->name, rest[1], rlen[1]);
    if (m >= 3)
        copy_segment(r->subresource, rest[2], rlen[2]);
    snprintf(r->verb, sizeof r->verb, "%s", verb_of(method, m >= 2));
}

bool access_public_pattern(const char *pattern)
{
    for (const char *const *p = public_patterns; pattern && *p; p++)
        if (strcmp(*p, pattern) == 0)
            return true;
    return false;
}

static bool is_read(const struct access_request *r)
{
    return strcmp(r->verb, "get") == 0 || strcmp(r->verb, "list") == 0 || strcmp(r->verb, "watch") == 0;
}

static bool admin_managed_resource(const char *resource)
{
    for (const char *const *a = admin_managed; *a; a++)
        if (strcmp(*a, resource) == 0)
            return true;
    return false;
}

enum access_rule access_rule_of(const struct access_request *r)
{
    if (!r->is_resource)
        return strcmp(r->path, "/metrics") == 0 ? ACCESS_ALL_NAMESPACES : ACCESS_ANY;
    if (!r->ns[0])
        return is_read(r) ? ACCESS_ANY : ACCESS_ADMIN;
    if (is_read(r))
        return ACCESS_NS_READ;
    return admin_managed_resource(r->resource) ? ACCESS_ADMIN : ACCESS_NS_WRITE;
}

/* "team-a, team-b" (cut when long). */
static void namespace_list(const struct principal *p, char *out, size_t len)
{
    size_t at = 0;
    out[0] = '\0';
    for (int i = 0; i < p->namespaces.n && at < len; i++)
        at += (size_t)snprintf(out + at, len - at, "%s%s", i ? ", " : "", p->namespaces.names[i]);
    if (p->namespaces.n == 0)
        snprintf(out, len, "none");
}

bool access_allowed(const struct principal *p, const struct access_request *r, enum access_rule rule, char *why,
                    size_t why_len)
{
    char namespaces[200];
    why[0] = '\0';
    switch (rule) {
    case ACCESS_ANY: return p != NULL;
    case ACCESS_ALL_NAMESPACES:
        if (principal_all_namespaces(p))
            return true;
        snprintf(why, why_len, "it shows every namespace's jobs, so it needs a token of every namespace");
        return false;
    case ACCESS_NS_READ:
    case ACCESS_NS_WRITE:
        if (!p)
            return false;
        if (!principal_reads_namespace(p, r->ns)) {
            namespace_list(p, namespaces, sizeof namespaces);
            snprintf(why, why_len, "the token's namespaces are %s", namespaces);
            return false;
        }
        if (rule == ACCESS_NS_WRITE && !principal_writes_namespace(p, r->ns)) {
            snprintf(why, why_len, "the token's role is %s, which only reads", token_role_name(p->role));
            return false;
        }
        return true;
    case ACCESS_ADMIN:
        if (principal_is_admin(p))
            return true;
        snprintf(why, why_len, "only admins change %s", r->resource);
        return false;
    }
    return false;
}

void access_forbidden(const struct principal *p, const struct access_request *r, const char *why, struct api_status *st)
{
    const char *user = principal_user(p), *tail_sep = why && *why ? ": " : "", *tail = why ? why : "";
    if (!r->is_resource) {
        api_fail(st, 403, "Forbidden", "forbidden: User \"%s\" cannot %s path \"%s\"%s%s", user, r->verb, r->path,
                 tail_sep, tail);
        return;
    }
    char object[2 * ACCESS_FIELD_MAX + 8], resource[2 * ACCESS_FIELD_MAX + 2], scope[ACCESS_FIELD_MAX + 32];
    snprintf(object, sizeof object, "%s%s%s", r->resource, r->group[0] ? "." : "", r->group);
    snprintf(resource, sizeof resource, "%s%s%s", r->resource, r->subresource[0] ? "/" : "", r->subresource);
    if (r->ns[0])
        snprintf(scope, sizeof scope, "in the namespace \"%s\"", r->ns);
    else
        snprintf(scope, sizeof scope, "at the cluster scope");
    if (r->name[0])
        api_fail(st, 403, "Forbidden",
                 "%s \"%s\" is forbidden: User \"%s\" cannot %s resource \"%s\" in API group "
                 "\"%s\" %s%s%s",
                 object, r->name, user, r->verb, resource, r->group, scope, tail_sep, tail);
    else
        api_fail(st, 403, "Forbidden",
                 "%s is forbidden: User \"%s\" cannot %s resource \"%s\" in API group \"%s\" "
                 "%s%s%s",
                 object, user, r->verb, resource, r->group, scope, tail_sep, tail);
    api_set_details(st, r->resource, r->group, r->name);
}
