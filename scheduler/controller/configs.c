/* ConfigMaps and Secrets in the cluster: found by kind, namespace and name; created, replaced and
 * deleted with the checks that need the stored object; recorded as objects rows. The events say what
 * happened to the object, never what it holds. */
#include "scheduler/controller/configs.h"

#include <stdlib.h>
#include <string.h>

#include "adapters/objects/config_object.h"
#include "common/log.h"
#include "scheduler/controller/internal.h"

#define ACTIVE "Active"

static int config_index(const struct cluster *c, enum config_kind kind, const char *ns, const char *name)
{
    for (int i = 0; i < c->nconfigs; i++) {
        const struct config_object *o = c->configs[i];
        if (o->kind == kind && strcmp(o->ns, ns) == 0 && strcmp(o->name, name) == 0)
            return i;
    }
    return -1;
}

struct config_object *controller_find_config(const struct cluster *c, enum config_kind kind, const char *ns,
                                             const char *name)
{
    int i = config_index(c, kind, ns, name);
    return i < 0 ? NULL : c->configs[i];
}

static int add_config(struct cluster *c, struct config_object *o)
{
    struct config_object **all = realloc(c->configs, (size_t)(c->nconfigs + 1) * sizeof *all);
    if (!all)
        return -1;
    all[c->nconfigs++] = o;
    c->configs = all;
    return 0;
}

/* One event and the objects row; the message names the object only. */
static void record_config(struct controller *ctl, struct config_object *o, enum journal_op op, const char *reason)
{
    bool put = op == JOURNAL_OBJECT_PUT;
    const char *kind = config_kind_name(o->kind);
    const char *from = strcmp(reason, "Created") == 0 ? "" : ACTIVE;
    struct journal_entry *e = record_object_event(ctl, op, kind, o->ns, o->name, &o->resource_version, from,
                                                  put ? ACTIVE : "", reason, "%s %s", kind, reason);
    record_object_row(e, kind, o->ns, o->name, put ? config_object_to_store_json(o) : NULL);
}

static void *fail_not_found(struct api_status *st, enum config_kind kind, const char *name)
{
    api_set_details(st, config_resource_name(kind), "", name);
    api_fail(st, 404, "NotFound", "%s \"%s\" not found", config_resource_name(kind), name);
    return NULL;
}

struct config_object *controller_create_config(struct controller *ctl, struct config_object *o, struct api_status *st)
{
    cluster_assert_owner(ctl->cluster);
    if (config_index(ctl->cluster, o->kind, o->ns, o->name) >= 0) {
        api_set_details(st, config_resource_name(o->kind), "", o->name);
        api_fail(st, 409, "AlreadyExists", "%s \"%s\" already exists", config_resource_name(o->kind), o->name);
        return NULL;
    }
    uuid_v4(o->uid);
    o->created_ms = ctl->now_ms;
    if (add_config(ctl->cluster, o) != 0) {
        api_fail(st, 500, "InternalError", "out of memory");
        return NULL;
    }
    record_config(ctl, o, JOURNAL_OBJECT_PUT, "Created");
    return o;
}

struct config_object *controller_update_config(struct controller *ctl, struct config_object *o, struct api_status *st)
{
    cluster_assert_owner(ctl->cluster);
    int i = config_index(ctl->cluster, o->kind, o->ns, o->name);
    if (i < 0)
        return fail_not_found(st, o->kind, o->name);
    struct config_object *old = ctl->cluster->configs[i];
    if (o->resource_version && o->resource_version != old->resource_version) {
        api_set_details(st, config_resource_name(o->kind), "", o->name);
        api_fail(st, 409, "Conflict",
                 "Operation cannot be fulfilled on %s \"%s\": the object has been modified; please apply your "
                 "changes to the latest version and try again",
                 config_resource_name(o->kind), o->name);
        return NULL;
    }
    if (config_object_check_update(old, o, st) != 0)
        return NULL;
    memcpy(o->uid, old->uid, sizeof o->uid);
    o->created_ms = old->created_ms;
    if (json_equal(old->manifest, o->manifest)) {
        config_object_free(o); /* nothing changes, so no new version either, as in Kubernetes */
        return old;
    }
    ctl->cluster->configs[i] = o;
    config_object_free(old);
    record_config(ctl, o, JOURNAL_OBJECT_PUT, "Updated");
    return o;
}

int controller_delete_config(struct controller *ctl, enum config_kind kind, const char *ns, const char *name,
                             uint64_t *seq, struct api_status *st)
{
    cluster_assert_owner(ctl->cluster);
    struct cluster *c = ctl->cluster;
    int i = config_index(c, kind, ns, name);
    if (i < 0) {
        fail_not_found(st, kind, name);
        return -1;
    }
    struct config_object *o = c->configs[i];
    memmove(&c->configs[i], &c->configs[i + 1], (size_t)(c->nconfigs - i - 1) * sizeof c->configs[0]);
    c->nconfigs--;
    record_config(ctl, o, JOURNAL_OBJECT_DELETE, "Deleted");
    *seq = o->resource_version;
    config_object_free(o);
    return 0;
}

int controller_restore_config(struct controller *ctl, enum config_kind kind, const char *json, const char *ns,
                              const char *name)
{
    struct config_object *o = config_object_from_store_json(json, kind);
    if (o && config_index(ctl->cluster, kind, o->ns, o->name) < 0 && add_config(ctl->cluster, o) == 0)
        return 0;
    log_error("cannot restore %s %s/%s from the database: its stored object is not valid", config_kind_name(kind), ns,
              name);
    config_object_free(o);
    return -1;
}
