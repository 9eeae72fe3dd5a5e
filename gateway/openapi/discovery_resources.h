/* Discovery's resources (which groups, versions and resources this server has, and which verbs each
 * resource takes) as read from the route table; discovery.c shows them to kubectl and clients. */
#ifndef CALDERA_DISCOVERY_RESOURCES_H
#define CALDERA_DISCOVERY_RESOURCES_H

#include <stdbool.h>

#define DISCOVERY_FIELD_MAX 64
#define DISCOVERY_MAX_RESOURCES 64

/* Kubernetes' verbs, in the order discovery lists them. */
enum api_verb {
    VERB_CREATE = 1 << 0,
    VERB_DELETE = 1 << 1,
    VERB_GET = 1 << 2,
    VERB_LIST = 1 << 3,
    VERB_WATCH = 1 << 4,
    VERB_UPDATE = 1 << 5,
    VERB_PATCH = 1 << 6,
};
#define API_VERB_COUNT 7

struct api_resource {
    char group[DISCOVERY_FIELD_MAX]; /* "" for the core group */
    char version[DISCOVERY_FIELD_MAX];
    char name[2 * DISCOVERY_FIELD_MAX]; /* plural, or "pods/log" for a subresource */
    char singular[DISCOVERY_FIELD_MAX]; /* the kind in lower case for a listed object, else "" */
    char kind[DISCOVERY_FIELD_MAX];
    bool namespaced;
    unsigned verbs;          /* enum api_verb */
    const char *short_names; /* space-separated; NULL: none */
};

/* Pure: the resources the rows of gateway_routes[] serve, the dialects' routes
 * once per dialect, in the order they first appear there. A route's path read as Kubernetes reads it
 * (/api/v1 or /apis/{group}/{version}, then [namespaces/{ns}/]{resource}[/{name}[/{subresource}]])
 * gives the resource and whether it is namespaced; its method the verb: on the collection, POST is
 * create and GET list when it answers a "<Kind>List" (watch too when it takes ?watch); on one object,
 * GET is get, PUT update, DELETE delete; a subresource is discovered by its GET. The kind is the
 * resource's answer (a list's without "List"), or for a subresource that answers text its
 * resource's. Fills out (max entries); returns how many, or -1 when more than max. */
struct route;
int discovery_resources(const struct route *routes, struct api_resource *out, int max);

/* The word of one verb ("create"), or NULL when verb is not one. */
const char *api_verb_word(unsigned verb);

#endif
