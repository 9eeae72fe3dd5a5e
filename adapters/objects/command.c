/* Commands in: the apiVersion/kind check, metadata (generateName resolved as the API server does),
 * the action and its target, each problem a field cause. */
#include "adapters/objects/command.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/fields.h"
#include "adapters/objects/object_meta.h"
#include "common/uuid.h"

static const struct object_type command_type = {COMMAND_API_VERSION, "Command", "commands", "bus.volcano.sh"};
static const char *const top_fields[] = {"apiVersion", "kind",   "metadata", "action",
                                         "target",     "reason", "message",  NULL};

/* metadata.generateName + 5 random characters when there is no name, as the API server does. */
static void resolve_generate_name(json_t *root)
{
    json_t *meta = json_object_get(root, "metadata");
    const char *name = json_string_value(json_object_get(meta, "name"));
    const char *gen = json_string_value(json_object_get(meta, "generateName"));
    if ((name && *name) || !gen || !*gen)
        return;
    char uid[UUID_STR_LEN], generated[80];
    uuid_v4(uid);
    snprintf(generated, sizeof generated, "%.57s%.5s", gen, uid);
    json_object_set_new(meta, "name", json_string(generated));
}

static void parse_action(struct fields *f, json_t *root, struct command *c)
{
    const char *action = NULL;
    if (!field_string(f, root, "action", "action", true, &action) || !action)
        return;
    int a = job_action_parse(action);
    bool fits = a >= 0 && (c->target_is_queue ? a == ACT_OPEN_QUEUE || a == ACT_CLOSE_QUEUE
                                              : job_action_for_jobs((enum job_action)a));
    if (!fits) {
        field_error(f, root, "action", "action", "FieldValueNotSupported",
                    c->target_is_queue ? "Unsupported value: \"%s\": supported values for a Queue: \"OpenQueue\", "
                                         "\"CloseQueue\""
                                       : "Unsupported value: \"%s\": supported values for a Job: \"AbortJob\", "
                                         "\"RestartJob\", \"RestartTask\", \"RestartPod\", \"TerminateJob\", "
                                         "\"CompleteJob\", \"ResumeJob\"",
                    action);
        return;
    }
    c->action = (enum job_action)a;
}

static void parse_target(struct fields *f, json_t *root, struct command *c)
{
    json_t *target;
    if (!field_object(f, root, "target", "target", true, &target) || !target)
        return;
    const char *kind = NULL;
    if (field_string(f, target, "kind", "target.kind", true, &kind) && kind) {
        if (strcmp(kind, "Queue") == 0)
            c->target_is_queue = true;
        else if (strcmp(kind, "Job") != 0)
            field_error(f, target, "kind", "target.kind", "FieldValueNotSupported",
                        "Unsupported value: \"%s\": supported values: \"Job\", \"Queue\"", kind);
    }
    field_string(f, target, "name", "target.name", true, &c->target_name);
    if (c->target_name && !*c->target_name)
        field_required(f, target, "name", "target.name");
    const char *api_version = NULL;
    field_string(f, target, "apiVersion", "target.apiVersion", false, &api_version);
}

int command_from_doc(const struct intake_doc *doc, const char *url_ns, struct command **out, struct api_status *st)
{
    json_t *root = doc->root;
    *out = NULL;
    if (!json_is_object(root))
        return api_fail(st, 400, "BadRequest", "the body must be a Command object");
    if (object_check_type(root, &command_type, st) != 0)
        return -1;
    struct command *c = calloc(1, sizeof *c);
    if (!c)
        return api_fail(st, 500, "InternalError", "out of memory");
    struct fields f = {doc, st};
    uint64_t rv;
    resolve_generate_name(root);
    object_meta_parse(&f, root, url_ns, &c->meta, &rv);
    field_check_known(&f, root, "", top_fields);
    parse_target(&f, root, c);
    parse_action(&f, root, c);
    field_string(&f, root, "reason", "reason", false, &c->reason);
    field_string(&f, root, "message", "message", false, &c->message);
    if (st->code != 0 || st->ncauses > 0) {
        command_free(c);
        return object_fail_invalid(st, &command_type, root);
    }
    c->doc = json_incref(root);
    *out = c;
    return 0;
}

json_t *command_render(const struct command *c, const char *uid, int64_t created_ms)
{
    json_t *obj = json_deep_copy(c->doc);
    json_object_set_new(obj, "apiVersion", json_string(COMMAND_API_VERSION));
    json_object_set_new(obj, "kind", json_string("Command"));
    json_object_set_new(obj, "metadata", object_meta_render(c->meta, uid, created_ms, 0));
    return obj;
}

json_t *command_render_job_action(const char *ns, const char *job_name, enum job_action action, const char *reason)
{
    return json_pack("{s:s, s:s, s:{s:s}, s:s, s:{s:s, s:s, s:s}, s:s}", "apiVersion", COMMAND_API_VERSION, "kind",
                     "Command", "metadata", "namespace", ns, "action", job_action_name(action), "target", "apiVersion",
                     "batch.volcano.sh/v1alpha1", "kind", "Job", "name", job_name, "reason", reason ? reason : "");
}

void command_free(struct command *c)
{
    if (!c)
        return;
    json_decref(c->meta);
    json_decref(c->doc);
    free(c);
}

void command_stamp_record(json_t *cmd, uint64_t seq)
{
    json_t *meta = json_object_get(cmd, "metadata");
    if (!json_is_object(meta))
        return;
    char rv[24], name[400];
    snprintf(rv, sizeof rv, "%llu", (unsigned long long)seq);
    json_object_set_new(meta, "resourceVersion", json_string(rv));
    if (json_is_string(json_object_get(meta, "name")))
        return;
    const char *target = json_string_value(json_object_get(json_object_get(cmd, "target"), "name"));
    snprintf(name, sizeof name, "%s-%llx", target ? target : "command", (unsigned long long)seq);
    json_object_set_new(meta, "name", json_string(name));
}
