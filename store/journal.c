/* Journal entries: the core's record of one state change, owned by whoever holds it (the core while
 * it builds a list, the store writer from store_append() until the entry is committed). */
#include "store/journal.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

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
    free(ev->uid);
    free(ev->job_name);
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
    free(a->gpus);
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
    watch_objects_free(e->watch);
    free(e);
}

struct watch_object *watch_object_new(enum watch_type type, const char *api_version, const char *kind, const char *ns,
                                      const char *name, json_t *object)
{
    struct watch_object *w = calloc(1, sizeof *w);
    if (!w || !object) {
        free(w);
        json_decref(object);
        return NULL;
    }
    *w = (struct watch_object){.type = type,
                               .api_version = strdup(api_version),
                               .kind = strdup(kind),
                               .ns = strdup(ns ? ns : ""),
                               .name = strdup(name),
                               .object = object};
    if (!w->api_version || !w->kind || !w->ns || !w->name) {
        watch_object_free(w);
        return NULL;
    }
    return w;
}

void watch_object_free(struct watch_object *w)
{
    if (!w)
        return;
    free(w->api_version);
    free(w->kind);
    free(w->ns);
    free(w->name);
    free(w->source_kind);
    json_decref(w->object);
    json_decref(w->labels);
    free(w);
}

void watch_objects_free(struct watch_object *list)
{
    while (list) {
        struct watch_object *next = list->next;
        watch_object_free(list);
        list = next;
    }
}

void journal_entry_add_watch(struct journal_entry *e, struct watch_object *w)
{
    if (!w)
        return;
    w->next = NULL;
    if (e->watch_tail)
        e->watch_tail->next = w;
    else
        e->watch = w;
    e->watch_tail = w;
}

void journal_list_push(struct journal_list *l, struct journal_entry *e)
{
    assert(!l->tail || l->tail->ev.seq < e->ev.seq); /* sequence numbers strictly increase */
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
