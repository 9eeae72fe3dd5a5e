/* The core's answers about ConfigMaps and Secrets: get, list (by the caller's namespaces and the
 * labelSelector's key=value terms), create, update and delete. The controller changes them. */
#include <stdio.h>
#include <string.h>

#include "adapters/objects/config_object.h"
#include "scheduler/controller/configs.h"
#include "scheduler/core/internal.h"

static void answer_config(struct core_request *req, const struct config_object *o, int code)
{
    if (o)
        core_answer(req, code, config_object_render(o), o->resource_version);
}

static void config_list(struct core *c, struct core_request *req)
{
    enum config_kind kind = (enum config_kind)req->config_kind;
    json_t *items = json_array();
    for (int i = 0; i < c->cluster.nconfigs; i++) {
        const struct config_object *o = c->cluster.configs[i];
        if (o->kind == kind && (!req->ns || strcmp(req->ns, o->ns) == 0) && core_sees_namespace(req, o->ns) &&
            core_labels_match(json_object_get(json_object_get(o->manifest, "metadata"), "labels"), req))
            json_array_append_new(items, config_object_render(o));
    }
    char list_kind[32];
    snprintf(list_kind, sizeof list_kind, "%sList", config_kind_name(kind));
    core_answer_list(c, req, CONFIG_API_VERSION, list_kind, items);
}

static void config_get(struct core *c, struct core_request *req)
{
    enum config_kind kind = (enum config_kind)req->config_kind;
    const struct config_object *o = controller_find_config(&c->cluster, kind, req->ns, req->name);
    if (!o)
        return core_not_found(req, config_resource_name(kind), "", req->name);
    answer_config(req, o, 200);
}

void core_handle_config_request(struct core *c, struct core_request *req)
{
    uint64_t seq;
    const struct config_object *o;
    switch (req->op) {
    case CORE_CONFIG_GET: config_get(c, req); break;
    case CORE_CONFIG_LIST: config_list(c, req); break;
    case CORE_CONFIG_CREATE:
        if ((o = controller_create_config(&c->ctl, req->object, &req->status)))
            req->object = NULL;
        answer_config(req, o, 201);
        break;
    case CORE_CONFIG_UPDATE:
        if ((o = controller_update_config(&c->ctl, req->object, &req->status)))
            req->object = NULL;
        answer_config(req, o, 200);
        break;
    default:
        if (controller_delete_config(&c->ctl, (enum config_kind)req->config_kind, req->ns, req->name, &seq,
                                     &req->status) == 0)
            core_answer_deleted(req, config_resource_name((enum config_kind)req->config_kind), "", NULL, seq);
        break;
    }
}
