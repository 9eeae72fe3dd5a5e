/* A job and its companions as a v1 List for a real cluster (companion_manifest.h): which companions
 * the job asks for, and each one's Service and Ingress beside its Pod (companion_pod.c). */
#include "adapters/dialects/volcano/companion_manifest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/volcano/job.h"
#include "adapters/dialects/volcano/manifest.h"

/* Long-lived WebSockets (a notebook's kernel, a terminal) through ingress-nginx, the most common
 * controller; every other controller ignores annotations that are not its own. */
static const char *const ingress_annotations[][2] = {
    {"nginx.ingress.kubernetes.io/proxy-read-timeout", "3600"},
    {"nginx.ingress.kubernetes.io/proxy-send-timeout", "3600"},
};
/* A type whose proxy strips the base URL (code-server): what serves it in the cluster must too. */
#define STRIP_PREFIX_ANNOTATION "caldera.io/strip-prefix"

int companion_manifest_add(struct companion_manifest_set *set, const char *name, const struct companion_type *type,
                           int32_t task, int32_t index)
{
    for (int i = 0; i < set->n; i++)
        if (strcmp(set->items[i].name, name) == 0)
            return 0;
    struct companion_manifest_item *grown = realloc(set->items, (size_t)(set->n + 1) * sizeof *grown);
    if (!grown)
        return -1;
    set->items = grown;
    struct companion_manifest_item *it = &set->items[set->n++];
    snprintf(it->name, sizeof it->name, "%s", name);
    it->type = type;
    it->task = task;
    it->index = index;
    return 0;
}

static const char *annotation(const struct job *job, const char *key)
{
    const json_t *ann = job_annotations(job);
    return json_string_value(json_object_get(ann, key));
}

static int32_t task_named(const struct job *job, const char *name)
{
    for (int32_t t = 0; name && t < job->ntasks; t++)
        if (job->tasks[t].name && strcmp(job->tasks[t].name, name) == 0)
            return t;
    return 0;
}

int companion_manifest_requested(const struct job *job, const struct companion_types *types,
                                 struct companion_manifest_set *set)
{
    const char *list = annotation(job, MANIFEST_COMPANIONS_ANNOTATION);
    int32_t task = task_named(job, annotation(job, MANIFEST_COMPANION_TASK_ANNOTATION));
    for (const char *p = list; p && *p && job->ntasks > 0;) {
        size_t len = strcspn(p, ",");
        const char *start = p;
        p += len + (p[len] == ',');
        while (len && (*start == ' ' || *start == '\t'))
            start++, len--;
        while (len && (start[len - 1] == ' ' || start[len - 1] == '\t'))
            len--;
        char type_name[COMPANION_NAME_MAX], name[COMPANION_MANIFEST_NAME_MAX];
        if (len == 0 || len >= sizeof type_name)
            continue;
        snprintf(type_name, sizeof type_name, "%.*s", (int)len, start);
        const struct companion_type *type = companion_types_find(types, type_name);
        if (!type)
            continue;
        snprintf(name, sizeof name, "%s-%s", job->name, type_name);
        if (companion_manifest_add(set, name, type, task, 0) != 0)
            return -1;
    }
    return 0;
}

void companion_manifest_set_free(struct companion_manifest_set *set)
{
    free(set->items);
    set->items = NULL;
    set->n = 0;
}

json_t *companion_manifest_owner(const struct job *job, const char *owner_uid)
{
    return json_pack("[{s:s, s:s, s:s, s:s, s:b, s:b}]", "apiVersion", VOLCANO_JOB_API_VERSION, "kind", "Job", "name",
                     job->name, "uid", owner_uid ? owner_uid : job->uid, "controller", 1, "blockOwnerDeletion", 1);
}

json_t *companion_manifest_labels(const struct job *job, const struct companion_manifest_item *item)
{
    return json_pack("{s:s, s:s, s:s}", "volcano.sh/job-name", job->name, COMPANION_MANIFEST_LABEL, item->name,
                     COMPANION_MANIFEST_TYPE_LABEL, item->type->name);
}

int companion_manifest_port(const struct companion_type *type)
{
    return type->port > 0 ? type->port : COMPANION_DEFAULT_PORT;
}

static json_t *object_meta(const struct job *job, const struct companion_manifest_item *item, const char *owner_uid)
{
    return json_pack("{s:s, s:s, s:o, s:o}", "name", item->name, "namespace", job->ns, "labels",
                     companion_manifest_labels(job, item), "ownerReferences", companion_manifest_owner(job, owner_uid));
}

/* ClusterIP, selecting the Pod by its caldera.io/companion label. */
static json_t *service(const struct job *job, const struct companion_manifest_item *item, const char *owner_uid)
{
    json_t *port = json_pack("{s:s, s:i, s:s, s:s}", "name", "http", "port", companion_manifest_port(item->type),
                             "protocol", "TCP", "targetPort", "http");
    return json_pack("{s:s, s:s, s:o, s:{s:s, s:{s:s}, s:[o]}}", "apiVersion", "v1", "kind", "Service", "metadata",
                     object_meta(job, item, owner_uid), "spec", "type", "ClusterIP", "selector",
                     COMPANION_MANIFEST_LABEL, item->name, "ports", port);
}

/* Prefix on the proxy path to the Service's port; no ingressClassName (the cluster's default class). */
static json_t *ingress(const struct job *job, const struct companion_manifest_item *item, const char *owner_uid)
{
    char path[COMPANION_MANIFEST_NAME_MAX + 300];
    snprintf(path, sizeof path, "/proxy/%s/%s/", job->ns, item->name);
    json_t *meta = object_meta(job, item, owner_uid), *annotations = json_object();
    for (size_t i = 0; annotations && i < sizeof ingress_annotations / sizeof *ingress_annotations; i++)
        json_object_set_new(annotations, ingress_annotations[i][0], json_string(ingress_annotations[i][1]));
    if (annotations && item->type->strip_prefix)
        json_object_set_new(annotations, STRIP_PREFIX_ANNOTATION, json_string("true"));
    if (meta && annotations)
        json_object_set_new(meta, "annotations", annotations);
    else
        json_decref(annotations);
    json_t *backend = json_pack("{s:{s:s, s:{s:s}}}", "service", "name", item->name, "port", "name", "http");
    return json_pack("{s:s, s:s, s:o, s:{s:[{s:{s:[{s:s, s:s, s:o}]}}]}}", "apiVersion", "networking.k8s.io/v1", "kind",
                     "Ingress", "metadata", meta, "spec", "rules", "http", "paths", "path", path, "pathType", "Prefix",
                     "backend", backend);
}

json_t *manifest_job_with_companions(const struct job *job, const struct companion_manifest_set *set,
                                     const char *owner_uid)
{
    json_t *job_manifest = manifest_job(job);
    if (!job_manifest || !set || set->n == 0)
        return job_manifest;
    json_t *items = json_array();
    if (!items || json_array_append_new(items, job_manifest) != 0) {
        json_decref(items);
        return NULL;
    }
    for (int i = 0; i < set->n; i++) {
        const struct companion_manifest_item *it = &set->items[i];
        json_t *objs[3] = {companion_manifest_pod(job, it, owner_uid), service(job, it, owner_uid),
                           ingress(job, it, owner_uid)};
        for (int k = 0; k < 3; k++) {
            if (!objs[k] || json_array_append_new(items, objs[k]) != 0) {
                for (int j = k + 1; j < 3; j++)
                    json_decref(objs[j]);
                json_decref(items);
                return NULL;
            }
        }
    }
    return json_pack("{s:s, s:s, s:{}, s:o}", "apiVersion", "v1", "kind", "List", "metadata", "items", items);
}
