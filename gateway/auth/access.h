/* Authorization: what a request is (Kubernetes' RequestInfo: verb, group, resource, namespace, name,
 * read from its path), which rule it falls under, and whether a principal passes. Decided once per
 * request from its path alone, so routes added later are covered as they come: a namespaced path
 * needs rights in that namespace, a cluster-scoped change needs an admin. Pure. */
#ifndef CALDERA_ACCESS_H
#define CALDERA_ACCESS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/api_status.h"
#include "gateway/auth/auth.h"

#define ACCESS_FIELD_MAX 256

struct access_request {
    const char *method;
    const char *path;
    bool is_resource;                   /* false: /healthz, /metrics, discovery, /openapi/v3... */
    char verb[16];                      /* get, list, create, update, delete, deletecollection, patch */
    char group[ACCESS_FIELD_MAX];       /* "" for the core group */
    char resource[ACCESS_FIELD_MAX];    /* "jobs" */
    char subresource[ACCESS_FIELD_MAX]; /* "log", "history", "suspend"...: the segment after the name */
    char ns[ACCESS_FIELD_MAX];          /* "": cluster-scoped */
    char name[ACCESS_FIELD_MAX];        /* "": a collection */
};

/* The rule a request falls under (public paths, /healthz and the UI's files, are never asked). */
enum access_rule {
    ACCESS_ANY,            /* any principal: discovery, /openapi/v3, reads of cluster-scoped objects and
                              lists across namespaces (their handlers show only the caller's namespaces) */
    ACCESS_ALL_NAMESPACES, /* /metrics: it names every namespace's jobs */
    ACCESS_NS_READ,        /* a read in the request's namespace: any role there */
    ACCESS_NS_WRITE,       /* a change in the request's namespace: user or admin there */
    ACCESS_ADMIN,          /* cluster-scoped changes (queues, classes, tokens), and resourcequotas */
};

/* Reads method and path (no query) into r. */
void access_describe(const char *method, const char *path, struct access_request *r);
/* Whether a route pattern ("/ui/{file}") is public: no token needed, even with --auth. */
bool access_public_pattern(const char *pattern);
/* The rule of a described request. */
enum access_rule access_rule_of(const struct access_request *r);
/* Whether p passes rule; when it does not, why (a clause for the Status) goes into why. */
bool access_allowed(const struct principal *p, const struct access_request *r, enum access_rule rule, char *why,
                    size_t why_len);
/* The 403 Forbidden Status, worded as Kubernetes' RBAC words it (`jobs.batch.volcano.sh "x" is
 * forbidden: User "alice" cannot get resource "jobs" in API group "batch.volcano.sh" in the namespace
 * "team-b"`), then why; details name the object, its group and resource. */
void access_forbidden(const struct principal *p, const struct access_request *r, const char *why,
                      struct api_status *st);

#endif
