/* Watching caldera.io JobHistories: the history lives in the database, so a change is a job's
 * committed event, and what a watch shows is that job's summary read back right after (the event is
 * committed before the hub has it). Changes of one batch are gathered per job and read once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/hashmap.h"
#include "gateway/watch/internal.h"
#include "store/history.h"
#include "store/store.h"

struct changed_job {
    uint64_t last;
    bool created;
    char uid[64];
};

struct history_changes {
    struct changed_job *jobs;
    size_t n, cap;
    struct hmap by_uid; /* uid -> index + 1 into jobs */
};

struct history_changes *history_changes_new(void) { return calloc(1, sizeof(struct history_changes)); }

void history_changes_free(struct history_changes *c)
{
    if (!c)
        return;
    hmap_free(&c->by_uid);
    free(c->jobs);
    free(c);
}

int history_changes_note(struct history_changes *c, const char *job_uid, uint64_t seq, bool created)
{
    if (!*job_uid || strlen(job_uid) >= sizeof c->jobs->uid)
        return 0;
    size_t i = (size_t)(uintptr_t)strmap_get(&c->by_uid, job_uid);
    if (i == 0) {
        if (c->n == c->cap) {
            if (GROW(c->jobs, c->cap, c->n + 1, 16) != 0)
                return -1;
            hmap_clear(&c->by_uid); /* the keys moved with the array */
            for (size_t k = 0; k < c->n; k++)
                strmap_put(&c->by_uid, c->jobs[k].uid, (void *)(uintptr_t)(k + 1));
        }
        c->jobs[c->n] = (struct changed_job){0};
        snprintf(c->jobs[c->n].uid, sizeof c->jobs[c->n].uid, "%s", job_uid);
        if (strmap_put(&c->by_uid, c->jobs[c->n].uid, (void *)(uintptr_t)(c->n + 1)) != 0)
            return -1;
        i = ++c->n;
    }
    struct changed_job *j = &c->jobs[i - 1];
    j->last = seq > j->last ? seq : j->last;
    j->created = j->created || created;
    return 0;
}

static int by_last(const void *a, const void *b)
{
    const struct changed_job *x = a, *y = b;
    return x->last < y->last ? -1 : x->last > y->last;
}

static int open_reader(struct watch_stream *w, struct api_status *st)
{
    return w->reader ? 0 : store_reader_open(w->gw->db_path, &w->reader, st);
}

/* The summary with the resourceVersion of its job's last change, when the watch shows it. */
static void append_summary(struct watch_stream *w, json_t *summary, const char *type, uint64_t rv)
{
    char text[24];
    snprintf(text, sizeof text, "%llu", (unsigned long long)rv);
    json_object_set_new(json_object_get(summary, "metadata"), "resourceVersion", json_string(text));
    if (selector_match_object(&w->labels, &w->fields, "JobHistory", summary))
        watch_append(w, type, summary);
}

int history_changes_emit(struct watch_stream *w, struct history_changes *c, struct api_status *st)
{
    int rc = c->n ? open_reader(w, st) : 0;
    if (c->n > 1)
        qsort(c->jobs, c->n, sizeof *c->jobs, by_last);
    for (size_t i = 0; rc == 0 && i < c->n; i++) {
        json_t *summary;
        struct api_status missing = {0};
        if (store_job_history_summary(w->reader, c->jobs[i].uid, &summary, &missing) != 0) {
            if (missing.code != 404) { /* a job the retention pruned meanwhile has nothing to show */
                *st = missing;
                rc = -1;
            }
            continue;
        }
        const char *ns = json_string_value(json_object_get(json_object_get(summary, "metadata"), "namespace"));
        if ((!w->ns || (ns && strcmp(ns, w->ns) == 0)) && watch_may_see(w, ns ? ns : "", false))
            append_summary(w, summary, c->jobs[i].created ? "ADDED" : "MODIFIED", c->jobs[i].last);
        json_decref(summary);
    }
    history_changes_free(c);
    return rc;
}

int watch_history_initial(struct watch_stream *w, struct api_status *st)
{
    w->cursor = store_committed_seq(w->gw->store);
    json_t *list;
    struct store_history_query q = {.ns = w->ns, .since_ms = INT64_MIN, .until_ms = INT64_MAX};
    if (open_reader(w, st) != 0 || store_job_history_list(w->reader, &q, &list, st) != 0)
        return -1;
    json_t *items = json_object_get(list, "items");
    for (size_t i = json_array_size(items); i-- > 0;) /* oldest first, as they were added */
        append_summary(w, json_array_get(items, i), "ADDED", w->cursor);
    json_decref(list);
    return 0;
}
