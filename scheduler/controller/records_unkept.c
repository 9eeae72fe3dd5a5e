/* Recording what the controller does not keep as live state: objects another part of the server owns
 * (the gateway's Tokens, kept in the objects table and read back by the gateway), events about
 * nothing it holds (audit: refused requests), queue Commands (a CommandIssued event carrying the
 * commands row, ahead of the change the command makes) and the nodes at start-up (a Node event and
 * its nodes row each, so history shows the cluster each job ran on). Same journal, same sequence,
 * same durability as the rest. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/node.h"
#include "adapters/objects/queue.h"
#include "scheduler/controller/internal.h"

/* An object exists or not; its events say Active while it does, as PriorityClasses' do. */
#define ACTIVE "Active"

uint64_t controller_record_object(struct controller *ctl, const char *kind, const char *ns, const char *name,
                                  const char *json, const char *reason, const char *message)
{
    cluster_assert_owner(ctl->cluster);
    uint64_t rv = 0;
    bool put = json != NULL;
    char *copy = put ? strdup(json) : NULL;
    if (put && !copy)
        return 0;
    struct journal_entry *e = record_object_event(ctl, put ? JOURNAL_OBJECT_PUT : JOURNAL_OBJECT_DELETE, kind, ns, name,
                                                  &rv, put ? "" : ACTIVE, put ? ACTIVE : "", reason, "%s", message);
    record_object_row(e, kind, ns, name, copy);
    return e ? rv : 0;
}

uint64_t controller_record_event(struct controller *ctl, const char *kind, const char *ns, const char *name,
                                 const char *reason, const char *message)
{
    cluster_assert_owner(ctl->cluster);
    uint64_t rv = 0;
    struct journal_entry *e = record_object_event(ctl, JOURNAL_EVENT, kind, ns, name, &rv, "", "", reason, "%s",
                                                  message);
    return e ? rv : 0;
}

/* --- queue Commands ------------------------------------------------------------------------------ */

void controller_record_queue_command(struct controller *ctl, struct queue *q, const char *ns, enum job_action action,
                                     const char *reason, const char *command_json)
{
    cluster_assert_owner(ctl->cluster);
    const char *state = queue_state_name(q->state);
    struct journal_entry *e = record_object_event(
        ctl, JOURNAL_COMMAND, "Queue", "", q->name, &q->resource_version, state, state, "CommandIssued",
        "command %s%s%s", job_action_name(action), reason && *reason ? ": " : "", reason ? reason : "");
    if (!e)
        return;
    e->ns = strdup(ns);
    e->name = strdup(""); /* no job: the target is in the Command */
    e->command_action = strdup(job_action_name(action));
    e->command_reason = strdup(reason ? reason : "");
    e->command_json = strdup(command_json ? command_json : "{}");
}

/* --- the nodes at start-up ------------------------------------------------------------------------ */

int controller_record_nodes(struct controller *ctl)
{
    for (int i = 0; i < ctl->cluster->nnodes; i++) {
        const struct node *n = &ctl->cluster->nodes[i];
        json_t *rendered = node_render(n);
        char *json = rendered ? json_dumps(rendered, JSON_COMPACT) : NULL;
        json_decref(rendered);
        uint64_t rv;
        struct journal_entry *e = json ? record_object_event(ctl, JOURNAL_NODE_PUT, "Node", "", n->name, &rv, "",
                                                             "Ready", "Registered", "node %s registered", n->name)
                                       : NULL;
        if (!e || !(e->node_name = strdup(n->name))) {
            free(json);
            return -1;
        }
        e->node_json = json;
    }
    return 0;
}
