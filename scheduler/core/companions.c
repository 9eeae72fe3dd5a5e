/* The core's answers about companions (CORE_COMPANION_*): lists, reads, creation and deletion for
 * the HTTP side, the proxy's target and its traffic. */
#include <stdio.h>
#include <string.h>

#include "scheduler/controller/companions.h"
#include "scheduler/core/internal.h"

static void companion_list(struct core *c, struct core_request *req)
{
    json_t *items = json_array();
    const struct companion_set *set = c->ctl.companions;
    for (int i = 0; set && i < set->n; i++) {
        const struct companion *comp = set->items[i];
        if (!core_sees_namespace(req, comp->ns) || (req->name_eq && strcmp(req->name_eq, comp->name) != 0))
            continue;
        json_t *obj = controller_companion_render(comp, false);
        if (!core_labels_match(json_object_get(json_object_get(obj, "metadata"), "labels"), req)) {
            json_decref(obj);
            continue;
        }
        json_array_append_new(items, obj);
    }
    core_answer_list(c, req, "caldera.io/v1", "CompanionList", items);
}

static struct companion *find(struct core *c, struct core_request *req)
{
    struct companion *comp = req->ns && req->name ? controller_companion_find(&c->ctl, req->ns, req->name) : NULL;
    if (!comp)
        core_not_found(req, "companions", "caldera.io", req->name ? req->name : "");
    return comp;
}

static void companion_target(struct core *c, struct core_request *req)
{
    struct companion *comp = find(c, req);
    if (!comp)
        return;
    struct core_companion_target *t = &req->companion_target;
    memset(t, 0, sizeof *t);
    t->port = comp->port;
    snprintf(t->phase, sizeof t->phase, "%s", companion_phase_name(comp->phase));
    const struct companion_type *type = c->ctl.companions ? companion_types_find(c->ctl.companions->types, comp->type)
                                                          : NULL;
    t->strip_prefix = type && type->strip_prefix;
    for (size_t i = 0; comp->headers && comp->headers[i] && t->nheaders < CORE_COMPANION_MAX_HEADERS; i++)
        snprintf(t->headers[t->nheaders++], CORE_COMPANION_HEADER_MAX, "%s", comp->headers[i]);
    core_answer(req, 200, json_object(), 0);
}

void core_handle_companion_request(struct core *c, struct core_request *req)
{
    struct companion *comp;
    switch (req->op) {
    case CORE_COMPANION_LIST: companion_list(c, req); break;
    case CORE_COMPANION_GET:
        if ((comp = find(c, req)))
            core_answer(req, 200, controller_companion_render(comp, false), controller_companions_seq(&c->ctl));
        break;
    case CORE_COMPANION_CREATE:
        comp = controller_companion_create(
            &c->ctl, req->ns ? req->ns : "default", req->companion.job ? req->companion.job : "",
            req->companion.type ? req->companion.type : "", req->companion.task, req->companion.index, &req->status);
        if (comp) {
            c->kick = true;
            core_answer(req, 201, controller_companion_render(comp, false), controller_companions_seq(&c->ctl));
        }
        break;
    case CORE_COMPANION_DELETE:
        if ((comp = find(c, req))) {
            char uid[UUID_STR_LEN];
            snprintf(uid, sizeof uid, "%s", comp->uid);
            uint64_t seq = controller_companion_delete(&c->ctl, comp);
            core_answer_deleted(req, "companions", "caldera.io", uid, seq);
        }
        break;
    case CORE_COMPANION_TARGET: companion_target(c, req); break;
    case CORE_COMPANION_TOUCH:
        if (req->ns && req->name)
            controller_companion_touch(&c->ctl, req->ns, req->name, req->companion.touch_ms);
        break;
    default: break;
    }
}
