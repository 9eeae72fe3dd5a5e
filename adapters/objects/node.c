/* Nodes in and out, pure: the machine runtime/host.c read, or a nodes file. Virtual nodes all run their
 * tasks on this machine; what they declare is what the scheduler believes, which is how one machine
 * stands for a cluster. */
#include "adapters/objects/node.h"
#include "adapters/objects/numatopology.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/fields.h"
#include "adapters/intake/intake.h"
#include "adapters/objects/pod_template.h"
#include "adapters/objects/render.h"
#include "adapters/objects/version_info.h"
#include "common/system_info.h"

#define DEFAULT_MAX_PODS 110
/* A node's GPU devices, as a nodes file declares them and a Node shows them. */
#define GPUS_ANNOTATION "caldera.io/gpus"

/* The device list "INDEX[:UUID[:NUMA[:MEMORY_MIB]]],..." (empty parts allowed, "3::1"). Returns 0,
 * or -1 with why. */
static int parse_gpu_list(const char *text, struct gpu_set *out, char *why, size_t whylen)
{
    const char *p = text;
    while (*p) {
        size_t len = strcspn(p, ",");
        char entry[256], *parts[4] = {NULL, NULL, NULL, NULL};
        if (len == 0 || len >= sizeof entry) {
            snprintf(why, whylen, "device %d: must be INDEX[:UUID[:NUMA[:MEMORY_MIB]]]", out->count + 1);
            return -1;
        }
        memcpy(entry, p, len);
        entry[len] = '\0';
        char *rest = entry;
        int nparts = 0;
        while (rest && nparts < 4) {
            parts[nparts++] = rest;
            rest = strchr(rest, ':');
            if (rest)
                *rest++ = '\0';
        }
        struct gpu_device d = {.numa = -1};
        char *end;
        long v = strtol(parts[0], &end, 10);
        bool ok = !rest && end != parts[0] && !*end && v >= 0 && v <= INT32_MAX;
        d.index = (int32_t)v;
        if (ok && parts[1])
            ok = strlen(parts[1]) < sizeof d.uuid && snprintf(d.uuid, sizeof d.uuid, "%s", parts[1]) >= 0;
        if (ok && parts[2] && *parts[2]) {
            v = strtol(parts[2], &end, 10);
            ok = end != parts[2] && !*end && v >= 0 && v < 1024;
            d.numa = (int32_t)v;
        }
        if (ok && parts[3] && *parts[3]) {
            long long mib = strtoll(parts[3], &end, 10);
            ok = end != parts[3] && !*end && mib >= 0;
            d.memory_mib = mib;
        }
        if (!ok) {
            snprintf(why, whylen, "device %d (\"%.*s\"): must be INDEX[:UUID[:NUMA[:MEMORY_MIB]]]", out->count + 1,
                     (int)len, p);
            return -1;
        }
        if (gpu_set_find_index(out, d.index) >= 0) {
            snprintf(why, whylen, "device index %d is listed twice", (int)d.index);
            return -1;
        }
        if (gpu_set_add(out, &d) != 0) {
            snprintf(why, whylen, "a node has at most %d devices", GPU_DEVICES_MAX);
            return -1;
        }
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

static json_t *render_gpu_list(const struct gpu_set *s)
{
    char buf[GPU_DEVICES_MAX * (GPU_UUID_MAX + 40)];
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < s->count && used < sizeof buf; i++) {
        const struct gpu_device *d = &s->devices[i];
        char numa[16] = "", mem[24] = "";
        if (d->numa >= 0)
            snprintf(numa, sizeof numa, ":%d", (int)d->numa);
        if (d->memory_mib > 0)
            snprintf(mem, sizeof mem, ":%lld", (long long)d->memory_mib);
        if (mem[0] && !numa[0])
            numa[0] = ':';
        bool uuid = d->uuid[0] || numa[0]; /* empty parts at the end are left out: "0", "0:GPU-x", "0::1" */
        int n = snprintf(buf + used, sizeof buf - used, "%s%d%s%s%s%s", i ? "," : "", (int)d->index, uuid ? ":" : "",
                         d->uuid, numa, mem);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    return json_string(buf);
}

/* GPU feature discovery's labels for the machine's GPUs: the product (spaces as dashes, as GFD
 * writes it; "<model>-MIG-<profile>" for MIG devices), one device's memory in MiB, and the count;
 * MIG devices add the device plugin's strategy, `single` (each MIG device one nvidia.com/gpu). */
static void add_gpu_labels(json_t *labels, const struct machine *m)
{
    char product[sizeof m->gpu_product], num[32];
    snprintf(product, sizeof product, "%s", m->gpu_product[0] ? m->gpu_product : "NVIDIA-GPU");
    for (char *p = product; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.' ||
              *p == '_'))
            *p = '-';
    json_object_set_new(labels, "nvidia.com/gpu.product", json_string(product));
    snprintf(num, sizeof num, "%d", m->gpus.count);
    json_object_set_new(labels, "nvidia.com/gpu.count", json_string(num));
    if (m->gpus.devices[0].memory_mib > 0) {
        snprintf(num, sizeof num, "%lld", (long long)m->gpus.devices[0].memory_mib);
        json_object_set_new(labels, "nvidia.com/gpu.memory", json_string(num));
    }
    if (gpu_set_needs_uuids(&m->gpus))
        json_object_set_new(labels, "nvidia.com/mig.strategy", json_string("single"));
}

/* The labels every node gets: its name, and this machine's OS and architecture, since every node's
 * tasks run here. */
static json_t *default_labels(const char *name, const char *arch)
{
    return json_pack("{s:s, s:s, s:s}", "kubernetes.io/hostname", name, "kubernetes.io/os", "linux",
                     "kubernetes.io/arch", arch);
}

void node_from_machine(struct node *out, const struct machine *m, int64_t now_ms)
{
    memset(out, 0, sizeof *out);
    out->allocatable.v[RES_EPHEMERAL] = m->storage;
    out->allocatable.v[RES_CPU] = (int64_t)m->cpus * 1000;
    out->allocatable.v[RES_MEMORY] = m->memory;
    out->allocatable.v[RES_PODS] = DEFAULT_MAX_PODS;
    out->capacity = out->allocatable;
    out->name = strdup(m->name);
    out->address = strdup("127.0.0.1");
    out->labels = default_labels(m->name, m->arch);
    if (m->gpus.count > 0 && gpu_set_copy(&out->gpus, &m->gpus) == 0) {
        out->allocatable.v[RES_GPU] = out->gpus.count;
        add_gpu_labels(out->labels, m);
    }
    out->capacity = out->allocatable;
    if (m->numa.ncells > 0 && (out->numa = malloc(sizeof *out->numa)))
        *out->numa = m->numa;
    out->taints = json_array();
    out->manifest = json_pack("{s:{s:s, s:O}, s:{}}", "metadata", "name", m->name, "labels", out->labels, "spec");
    out->created_ms = now_ms;
}

/* Registers extended resource names of an allocatable/capacity map before parsing it. */
static void register_names(const json_t *map)
{
    const char *name;
    json_t *v;
    json_object_foreach((json_t *)map, name, v)
    {
        (void)v;
        if (resource_index(name) < 0)
            resource_register(name); /* invalid names stay unknown and are reported by the parser */
    }
}

static bool parse_taints(struct fields *f, json_t *spec, const char *path, struct node *n)
{
    json_t *taints;
    if (!field_array(f, spec, "taints", path, false, &taints))
        return false;
    n->taints = taints ? json_incref(taints) : json_array();
    size_t i;
    json_t *t;
    bool ok = true;
    json_array_foreach(n->taints, i, t)
    {
        char p[FIELD_PATH_MAX], kp[FIELD_PATH_MAX], ep[FIELD_PATH_MAX];
        field_path_index(p, path, i);
        field_path(kp, p, "key");
        field_path(ep, p, "effect");
        const char *key, *effect, *value;
        if (!json_is_object(t) || !field_string(f, t, "key", kp, true, &key) ||
            !field_string(f, t, "effect", ep, true, &effect)) {
            ok = false;
            continue;
        }
        field_path(kp, p, "value");
        ok = field_string(f, t, "value", kp, false, &value) && ok;
        if (strcmp(effect, "NoSchedule") != 0 && strcmp(effect, "PreferNoSchedule") != 0 &&
            strcmp(effect, "NoExecute") != 0) {
            field_error(
                f, t, "effect", ep, "FieldValueNotSupported",
                "Unsupported value: \"%s\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
                effect);
            ok = false;
        }
    }
    return ok;
}

/* The node's devices: metadata.annotations["caldera.io/gpus"], else devices 0..N-1 for a bare
 * allocatable nvidia.com/gpu: N. A listed node's allocatable (and capacity) is its device count,
 * which a declared count must match. */
static int parse_gpus(struct fields *f, json_t *meta, const char *ann_path, const char *status_path, struct node *n)
{
    json_t *annotations;
    const char *list = NULL;
    char p[FIELD_PATH_MAX], why[256];
    if (!field_string_map(f, meta, "annotations", ann_path, &annotations))
        return -1;
    snprintf(p, sizeof p, "%s[%s]", ann_path, GPUS_ANNOTATION);
    if (annotations)
        list = json_string_value(json_object_get(annotations, GPUS_ANNOTATION));
    if (list) {
        if (parse_gpu_list(list, &n->gpus, why, sizeof why) != 0) {
            field_invalid(f, annotations, GPUS_ANNOTATION, p, why);
            return -1;
        }
        int64_t declared = n->allocatable.v[RES_GPU];
        if (declared != 0 && declared != n->gpus.count) {
            char ap[FIELD_PATH_MAX];
            snprintf(ap, sizeof ap, "%s.allocatable[nvidia.com/gpu]", status_path);
            snprintf(why, sizeof why, "lists %d devices but %s says %lld", n->gpus.count, ap, (long long)declared);
            field_invalid(f, annotations, GPUS_ANNOTATION, p, why);
            return -1;
        }
        n->allocatable.v[RES_GPU] = n->gpus.count;
        n->capacity.v[RES_GPU] = n->gpus.count;
        return 0;
    }
    int64_t count = n->allocatable.v[RES_GPU];
    if (count > GPU_DEVICES_MAX) {
        snprintf(p, sizeof p, "%s.allocatable[nvidia.com/gpu]", status_path);
        snprintf(why, sizeof why, "a node has at most %d GPU devices", GPU_DEVICES_MAX);
        field_invalid(f, meta, "name", p, why);
        return -1;
    }
    for (int32_t i = 0; i < count; i++) {
        struct gpu_device d = {.index = i, .numa = -1};
        gpu_set_add(&n->gpus, &d);
    }
    return n->gpus.count == count ? 0 : api_fail(f->st, 500, "InternalError", "out of memory");
}

static int parse_node(struct fields *f, json_t *obj, const char *path, const char *arch, int64_t now_ms, struct node *n)
{
    char p[FIELD_PATH_MAX];
    const char *av = NULL, *kind = NULL, *name = NULL;
    json_t *meta, *spec = NULL, *status, *alloc = NULL, *cap = NULL, *labels;
    memset(n, 0, sizeof *n);
    field_path(p, path, "apiVersion");
    field_string(f, obj, "apiVersion", p, false, &av);
    field_path(p, path, "kind");
    field_string(f, obj, "kind", p, false, &kind);
    if ((av && strcmp(av, "v1") != 0) || (kind && strcmp(kind, "Node") != 0)) {
        field_error(f, obj, "kind", p, "FieldValueNotSupported",
                    "Unsupported value: a nodes file holds v1 Node objects, not %s %s", av ? av : "?",
                    kind ? kind : "?");
        return -1;
    }
    field_path(p, path, "metadata");
    if (!field_object(f, obj, "metadata", p, true, &meta))
        return -1;
    char mp[FIELD_PATH_MAX];
    snprintf(mp, sizeof mp, "%s", p);
    field_path(p, mp, "name");
    if (!field_string(f, meta, "name", p, true, &name))
        return -1;
    if (!dns1123_subdomain(name)) {
        field_invalid(f, meta, "name", p, "must be a lowercase RFC 1123 subdomain");
        return -1;
    }
    field_path(p, mp, "labels");
    if (!field_string_map(f, meta, "labels", p, &labels))
        return -1;
    field_path(p, path, "spec");
    field_object(f, obj, "spec", p, false, &spec);
    char sp[FIELD_PATH_MAX];
    snprintf(sp, sizeof sp, "%s", p);
    field_path(p, sp, "taints");
    if (!parse_taints(f, spec, p, n))
        return -1;
    field_path(p, sp, "unschedulable");
    field_bool(f, spec, "unschedulable", p, &n->unschedulable);
    field_path(p, path, "status");
    if (!field_object(f, obj, "status", p, true, &status))
        return -1;
    char stp[FIELD_PATH_MAX];
    snprintf(stp, sizeof stp, "%s", p);
    field_path(p, stp, "allocatable");
    if (!field_object(f, status, "allocatable", p, true, &alloc))
        return -1;
    register_names(alloc);
    if (!resource_map_parse(f, status, "allocatable", p, true, &n->allocatable))
        return -1;
    if (!json_object_get(alloc, "pods"))
        n->allocatable.v[RES_PODS] = DEFAULT_MAX_PODS;
    field_path(p, stp, "capacity");
    if (field_object(f, status, "capacity", p, false, &cap) && cap) {
        register_names(cap);
        if (!resource_map_parse(f, status, "capacity", p, true, &n->capacity))
            return -1;
    } else {
        n->capacity = n->allocatable;
    }
    field_path(p, mp, "annotations");
    if (parse_gpus(f, meta, p, stp, n) != 0)
        return -1;
    n->name = strdup(name);
    n->address = strdup("127.0.0.1");
    n->labels = labels ? json_deep_copy(labels) : json_object();
    json_t *defaults = default_labels(name, arch);
    json_object_update_missing(n->labels, defaults);
    json_decref(defaults);
    json_t *manifest_spec = spec ? json_deep_copy(spec) : json_object();
    n->manifest = json_pack("{s:{s:s, s:O}, s:o}", "metadata", "name", name, "labels", n->labels, "spec",
                            manifest_spec);
    n->created_ms = now_ms;
    return 0;
}

/* Numatopology documents read so far, given to their nodes once every document is read. */
struct topologies {
    int n;
    char *names[64];
    struct numa_topology *t[64];
};

static int collect_topology(struct fields *f, json_t *obj, const char *path, struct topologies *tops)
{
    if (tops->n == 64)
        return api_fail(f->st, 422, "Invalid", "the nodes file declares more than 64 Numatopology objects");
    if (numatopology_parse(f, obj, path, &tops->names[tops->n], &tops->t[tops->n]) != 0)
        return -1;
    tops->n++;
    return 0;
}

/* Each Numatopology to the node of its name (the node keeps it). */
static int attach_topologies(struct topologies *tops, struct node *nodes, int count, struct api_status *st)
{
    for (int i = 0; i < tops->n; i++) {
        int j = 0;
        while (j < count && strcmp(nodes[j].name, tops->names[i]) != 0)
            j++;
        if (j == count)
            return api_fail(st, 422, "Invalid", "Numatopology %s names no Node of the nodes file", tops->names[i]);
        free(nodes[j].numa);
        nodes[j].numa = tops->t[i];
        tops->t[i] = NULL;
    }
    return 0;
}

static void topologies_free(struct topologies *tops)
{
    for (int i = 0; i < tops->n; i++) {
        free(tops->names[i]);
        free(tops->t[i]);
    }
}

/* Every Node of every document, flattening v1 Lists; Numatopology documents go to tops. */
static int collect_nodes(struct fields *f, json_t *obj, const char *path, const char *arch, int64_t now_ms,
                         struct node **nodes, int *count, struct topologies *tops)
{
    const char *kind = json_string_value(json_object_get(obj, "kind"));
    if (kind && strcmp(kind, NUMATOPOLOGY_KIND) == 0)
        return collect_topology(f, obj, path, tops);
    if (kind && strcmp(kind, "List") == 0) {
        json_t *items;
        char p[FIELD_PATH_MAX];
        field_path(p, path, "items");
        if (!field_array(f, obj, "items", p, true, &items))
            return -1;
        size_t i;
        json_t *item;
        json_array_foreach(items, i, item)
        {
            char ip[FIELD_PATH_MAX];
            field_path_index(ip, p, i);
            if (collect_nodes(f, item, ip, arch, now_ms, nodes, count, tops) != 0)
                return -1;
        }
        return 0;
    }
    struct node *grown = realloc(*nodes, (size_t)(*count + 1) * sizeof **nodes);
    if (!grown)
        return api_fail(f->st, 500, "InternalError", "out of memory");
    *nodes = grown;
    if (parse_node(f, obj, path, arch, now_ms, &grown[*count]) != 0) {
        node_clear(&grown[*count]);
        return -1;
    }
    for (int i = 0; i < *count; i++) {
        if (strcmp(grown[i].name, grown[*count].name) == 0) {
            field_error(f, json_object_get(obj, "metadata"), "name", "metadata.name", "FieldValueDuplicate",
                        "Duplicate value: \"%s\": another node has this name", grown[i].name);
            node_clear(&grown[*count]);
            return -1;
        }
    }
    (*count)++;
    return 0;
}

int nodes_from_yaml(const char *data, size_t len, const char *arch, int64_t now_ms, struct node **nodes, int *count,
                    struct api_status *st)
{
    struct intake in;
    *nodes = NULL;
    *count = 0;
    if (intake_parse(data, len, INTAKE_YAML, &in, st) != 0)
        return -1;
    int rc = 0;
    struct topologies tops = {0};
    for (int d = 0; d < in.ndocs && rc == 0; d++) {
        struct fields f = {&in.docs[d], st};
        char path[32];
        snprintf(path, sizeof path, "document %d", d + 1);
        rc = collect_nodes(&f, in.docs[d].root, "", arch, now_ms, nodes, count, &tops);
        if (rc != 0 && st->code == 0)
            api_fail_invalid(st, "nodes file", path);
    }
    intake_free(&in);
    if (rc == 0 && *count == 0)
        rc = api_fail(st, 422, "Invalid", "the nodes file declares no Node");
    if (rc == 0)
        rc = attach_topologies(&tops, *nodes, *count, st);
    topologies_free(&tops);
    if (rc != 0) {
        for (int i = 0; i < *count; i++)
            node_clear(&(*nodes)[i]);
        free(*nodes);
        *nodes = NULL;
        *count = 0;
    }
    return rc;
}

json_t *node_render(const struct node *n)
{
    json_t *meta = json_pack("{s:s, s:O, s:o}", "name", n->name, "labels", n->labels, "creationTimestamp",
                             render_time(n->created_ms));
    if (n->gpus.count > 0) {
        char held[GPU_DEVICES_MAX * 12];
        gpu_format(&n->gpus, n->gpus.busy, false, held, sizeof held);
        json_t *ann = json_pack("{s:o, s:s}", GPUS_ANNOTATION, render_gpu_list(&n->gpus), "caldera.io/gpus-allocated",
                                held);
        if (ann && n->gpus.unhealthy) { /* out of allocatable: a critical Xid, or gone from the driver */
            gpu_format(&n->gpus, n->gpus.unhealthy, false, held, sizeof held);
            json_object_set_new(ann, "caldera.io/gpus-unhealthy", json_string(held));
        }
        json_object_set_new(meta, "annotations", ann);
    }
    if (n->numa) {
        if (!json_object_get(meta, "annotations"))
            json_object_set_new(meta, "annotations", json_object());
        numatopology_render(n, json_object_get(meta, "annotations"));
    }
    json_t *spec = json_deep_copy(json_object_get(n->manifest, "spec"));
    if (!json_is_object(spec)) {
        json_decref(spec);
        spec = json_object();
    }
    json_object_set_new(spec, "taints", json_deep_copy(n->taints));
    if (n->unschedulable)
        json_object_set_new(spec, "unschedulable", json_true());
    const struct system_info *sys = system_info_get();
    const char *arch = json_string_value(json_object_get(n->labels, "kubernetes.io/arch"));
    json_t *info = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "architecture",
                             arch ? arch : "amd64", "bootID", sys->boot_id, "containerRuntimeVersion",
                             CONTAINER_RUNTIME_VERSION, "kernelVersion", sys->kernel_version, "kubeProxyVersion",
                             KUBE_GIT_VERSION, "kubeletVersion", KUBE_GIT_VERSION, "machineID", sys->machine_id,
                             "operatingSystem", "linux", "osImage", sys->os_image, "systemUUID", sys->system_uuid);
    json_t *status = json_pack(
        "{s:o, s:o, s:[{s:s, s:s, s:s, s:s, s:o, s:o}], s:[{s:s, s:s}, {s:s, s:s}], s:o}", "capacity",
        render_resources(&n->capacity, false), "allocatable", render_resources(&n->allocatable, false), "conditions",
        "type", "Ready", "status", "True", "reason", "KubeletReady", "message", "caldera process runtime is ready",
        "lastHeartbeatTime", render_time(n->created_ms), "lastTransitionTime", render_time(n->created_ms), "addresses",
        "type", "InternalIP", "address", n->address, "type", "Hostname", "address", n->name, "nodeInfo", info);
    json_t *allocated = render_resources(&n->used, false);
    json_object_set_new(status, "allocated", allocated); /* Caldera's addition: requests bound here */
    return json_pack("{s:s, s:s, s:o, s:o, s:o}", "apiVersion", "v1", "kind", "Node", "metadata", meta, "spec", spec,
                     "status", status);
}
