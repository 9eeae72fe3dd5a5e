/* Commands about queues (OpenQueue, CloseQueue) into the commands table: one CommandIssued event on
 * the queue carrying the row, ahead of the state change the command makes. */
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/queue.h"
#include "scheduler/controller/internal.h"

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
