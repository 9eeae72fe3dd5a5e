/* Kubernetes API discovery: which groups, versions and resources this server has, and which verbs
 * each resource takes. kubectl and client libraries read these before anything else. */
#ifndef CALDERA_DISCOVERY_H
#define CALDERA_DISCOVERY_H

#include <stdbool.h>

struct api_resource {
    const char *group;      /* "" for the core group */
    const char *version;
    const char *name;       /* plural, or "pods/log" for a subresource */
    const char *singular;
    const char *kind;
    bool namespaced;
    const char *verbs;      /* space-separated: "create delete get list" */
    const char *short_names;/* space-separated, may be "" */
};

extern const struct api_resource api_resources[];
extern const int api_resources_count;

#endif
