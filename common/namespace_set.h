/* A set of namespaces a request may see: every namespace, or a short list. The core's lists and the
 * history queries filter by it, so a tenant's cross-namespace list shows only its own namespaces. */
#ifndef CALDERA_NAMESPACE_SET_H
#define CALDERA_NAMESPACE_SET_H

#include <stdbool.h>
#include <string.h>

struct namespace_set {
    bool all; /* every namespace: names is not read */
    int n;
    const char *const *names; /* owned by whoever made the set */
};

/* Whether ns is in the set; a NULL set holds every namespace. A principal has a handful of
 * namespaces, so a scan beats any index here. */
static inline bool namespace_set_has(const struct namespace_set *s, const char *ns)
{
    if (!s || s->all)
        return true;
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->names[i], ns) == 0)
            return true;
    return false;
}

/* Whether the set holds every namespace (a NULL set does): who may see what belongs to none, such as
 * the events of cluster-scoped objects (queues, nodes, tokens, denials naming users). */
static inline bool namespace_set_all(const struct namespace_set *s) { return !s || s->all; }

/* Whether an event of namespace ns ("" for a cluster-scoped object) is for the set's eyes. */
static inline bool namespace_set_sees_event(const struct namespace_set *s, const char *ns)
{
    return ns && *ns ? namespace_set_has(s, ns) : namespace_set_all(s);
}

#endif
