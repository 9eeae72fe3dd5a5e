/* The sla plugin: a job may state how long it is willing to wait (annotation sla-waiting-time, or
 * the plugin's argument of that name for every job). Jobs with the nearest deadline go first, and
 * a job past its deadline is let into the queue. */
#include <stdlib.h>

#include "common/duration.h"
#include "scheduler/framework/plugin.h"

#define SLA_KEY "sla-waiting-time"

struct sla {
    const struct session *ssn;
    int64_t default_ms; /* -1: none */
};

/* The job's deadline in wall-clock ms, or -1 when it has none. */
static int64_t deadline(const struct sla *s, const struct job *job)
{
    const json_t *ann = job_annotations(job);
    const char *text = json_string_value(json_object_get(ann, SLA_KEY));
    int64_t wait = s->default_ms;
    const char *why;
    if (text && duration_parse(text, &wait, &why) != 0)
        wait = s->default_ms;
    return wait < 0 ? -1 : job->created_ms + wait;
}

static int sla_job_order(void *state, const struct job_info *a, const struct job_info *b)
{
    const struct sla *s = state;
    int64_t da = deadline(s, a->job), db = deadline(s, b->job);
    if (da < 0 && db < 0)
        return 0;
    if (da < 0 || db < 0)
        return da < 0 ? 1 : -1;
    return da == db ? 0 : da < db ? -1 : 1;
}

static int sla_enqueueable(void *state, const struct job_info *job, char *why, int why_len)
{
    (void)why;
    (void)why_len;
    const struct sla *s = state;
    int64_t d = deadline(s, job->job);
    return d >= 0 && s->ssn->now_ms >= d ? 1 : 0;
}

static int sla_open(struct session *ssn, const struct plugin_conf *conf, int tier, void **state)
{
    struct sla *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    s->ssn = ssn;
    s->default_ms = -1;
    const json_t *arg = conf->arguments ? json_object_get(conf->arguments, SLA_KEY) : NULL;
    const char *why;
    if (arg && duration_from_json(arg, &s->default_ms, &why) != 0)
        s->default_ms = -1; /* the conf parser let it through; an unreadable wait means no SLA */
    *state = s;
    session_add_job_order(ssn, conf, tier, sla_job_order, s);
    session_add_job_enqueueable(ssn, conf, tier, sla_enqueueable, s);
    return 0;
}

static void sla_close(struct session *ssn, void *state)
{
    (void)ssn;
    free(state);
}

const struct plugin_def plugin_sla = {"sla", sla_open, sla_close};
