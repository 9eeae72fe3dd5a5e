/* What the adapters of the scheduler's configuration objects (Queue, PriorityClass, ResourceQuota)
 * share: the apiVersion/kind check, metadata in and out, and refusing fields Caldera lacks. */
#ifndef CALDERA_OBJECT_META_H
#define CALDERA_OBJECT_META_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "adapters/intake/fields.h"
#include "common/api_status.h"
#include "common/uuid.h"

/* One kind of object as the API names it. */
struct object_type {
    const char *api_version; /* "scheduling.volcano.sh/v1beta1" */
    const char *kind;        /* "Queue" */
    const char *resource;    /* "queues": Status details and NotFound messages */
    const char *group;       /* "scheduling.volcano.sh", "" for the core group */
};

/* 400 when the document is not an object of this type; a missing apiVersion or kind takes the
 * path's, as the API server does. Returns 0 or -1. */
int object_check_type(const json_t *root, const struct object_type *t, struct api_status *st);

/* Reads root's metadata: name (a DNS-1123 subdomain, required), labels, annotations, and
 * resourceVersion (what an update expects to replace; 0 when absent). url_ns is the namespace of
 * the request path for namespaced kinds (metadata.namespace must then match it: 400 otherwise),
 * NULL for cluster-scoped ones (whose metadata.namespace is ignored, as the API server does).
 * *meta gets a new object with name, namespace (namespaced only), labels, annotations and
 * managedFields (what server-side apply recorded, kept as the client gave it): the
 * server's fields (uid, creationTimestamp, resourceVersion) are stamped at rendering. Returns false
 * when it added causes or failed the status. */
bool object_meta_parse(struct fields *f, json_t *root, const char *url_ns, json_t **meta, uint64_t *resource_version);

/* The object's name as the document gives it, for messages ("" when it has none). */
const char *object_doc_name(const json_t *root);
/* Turns collected causes into the 422 Invalid Status ("Queue.scheduling.volcano.sh \"q\" is
 * invalid: [...]") unless the status already failed; returns -1. */
int object_fail_invalid(struct api_status *st, const struct object_type *t, const json_t *root);

/* The metadata a client sees: a copy of meta with uid, creationTimestamp and resourceVersion. */
json_t *object_meta_render(const json_t *meta, const char *uid, int64_t created_ms, uint64_t resource_version);
/* An object as the objects table keeps it: obj as compact JSON text (malloc'd; NULL when obj is NULL
 * or memory ran out). Takes obj's reference. */
char *object_store_text(json_t *obj);
/* The whole manifest as a client sees it: a copy whose metadata is object_meta_render's. NULL when
 * memory ran out. */
json_t *object_manifest_render(const json_t *manifest, const char *uid, int64_t created_ms, uint64_t resource_version);
/* uid and creationTimestamp back from a stored object (left as they are when absent). */
void object_meta_restore(const json_t *root, char uid[UUID_STR_LEN], int64_t *created_ms);

#endif
