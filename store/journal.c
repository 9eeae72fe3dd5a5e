/* Journal entries: the core's record of one state change, owned by whoever holds it (the core while
 * it builds a list, the store writer from store_append() until the entry is committed). */
#include "store/journal.h"

#include <stdlib.h>

struct journal_entry *journal_entry_new(enum journal_op op)
{
    struct journal_entry *e = calloc(1, sizeof *e);
    if (e)
        e->op = op;
    return e;
}

static void free_event_strings(struct journal_event *ev)
{
    free(ev->kind);
    free(ev->ns);
    free(ev->name);
    free(ev->job_uid);
    free(ev->from_phase);
    free(ev->to_phase);
    free(ev->reason);
    free(ev->message);
}

static void free_attempt_strings(struct journal_attempt *a)
{
    free(a->job_uid);
    free(a->pod);
    free(a->task);
    free(a->node);
    free(a->log_path);
    free(a->reason);
    free(a->message);
    free(a->outcome);
    free(a->cgroup);
}

void journal_entry_free(struct journal_entry *e)
{
    if (!e)
        return;
    free_event_strings(&e->ev);
    free(e->job_uid);
    free(e->ns);
    free(e->name);
    free(e->spec_json);
    free(e->status_json);
    free(e->source_json);
    free_attempt_strings(&e->attempt);
    free(e->queue_name);
    free(e->queue_json);
    free(e->object_kind);
    free(e->object_ns);
    free(e->object_name);
    free(e->object_json);
    free(e->node_name);
    free(e->node_json);
    free(e->command_action);
    free(e->command_reason);
    free(e->command_json);
    free(e);
}

void journal_list_push(struct journal_list *l, struct journal_entry *e)
{
    e->next = NULL;
    if (l->tail)
        l->tail->next = e;
    else
        l->head = e;
    l->tail = e;
    l->count++;
}

void journal_list_free(struct journal_list *l)
{
    struct journal_entry *e = l->head;
    while (e) {
        struct journal_entry *next = e->next;
        journal_entry_free(e);
        e = next;
    }
    *l = (struct journal_list){0};
}
