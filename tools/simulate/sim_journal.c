/* Reading the controller's journal after each step: when a job's PodGroup first ran and when the
 * job became final, and every event when asked; then freeing it (a simulation has no store). */
#include <string.h>

#include "tools/simulate/sim_internal.h"

static const char *text(const char *s) { return s ? s : ""; }

static json_t *event_json(const struct journal_event *ev)
{
    return json_pack("{s:I, s:o, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "seq", (json_int_t)ev->seq, "t",
                     sim_seconds(ev->time_ms - SIM_EPOCH_MS), "kind", text(ev->kind), "namespace", text(ev->ns), "name",
                     text(ev->name), "from", text(ev->from_phase), "to", text(ev->to_phase), "reason", text(ev->reason),
                     "message", text(ev->message));
}

static void track(struct sim_job *sj, const struct journal_event *ev)
{
    int64_t t = ev->time_ms - SIM_EPOCH_MS;
    if (!ev->kind || !ev->to_phase)
        return;
    if (strcmp(ev->kind, "PodGroup") == 0 && strcmp(ev->to_phase, "Running") == 0 && sj->start_ms < 0)
        sj->start_ms = t;
    if (strcmp(ev->kind, "Job") == 0 && sj->end_ms < 0) {
        int phase = job_phase_parse(ev->to_phase);
        if (phase >= 0 && job_phase_final((enum job_phase)phase))
            sj->end_ms = t;
    }
}

int sim_drain_journal(struct sim *s)
{
    int n = 0, rc = 0;
    for (const struct journal_entry *e = s->ctl.journal.head; e; e = e->next, n++) {
        const struct journal_event *ev = &e->ev;
        if (s->events && json_array_append_new(s->events, event_json(ev)) != 0)
            rc = -1;
        struct sim_job *sj = ev->job_uid ? strmap_get(&s->jobs_by_uid, ev->job_uid) : NULL;
        if (sj)
            track(sj, ev);
    }
    journal_list_free(&s->ctl.journal);
    return rc == 0 ? n : -1;
}
