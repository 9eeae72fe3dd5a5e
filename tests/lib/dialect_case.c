/* Helpers the dialects' unit tests share: adapting a document, editing it, and looking into what it
 * became. */
#include "tests/lib/dialect_case.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/volcano/job.h"

int dialect_case_adapt(const struct dialect *d, const char *yaml, struct dialect_case *c)
{
    memset(c, 0, sizeof *c);
    if (intake_parse(yaml, strlen(yaml), INTAKE_YAML, &c->in, &c->st) != 0)
        return -1;
    return dialect_job_from_doc(d, &c->in.docs[0], "team-a", &c->job, &c->st);
}

void dialect_case_done(struct dialect_case *c)
{
    job_free(c->job);
    intake_free(&c->in);
    c->job = NULL;
}

char *dialect_case_edit(const char *yaml, const char *from, const char *to)
{
    const char *at = strstr(yaml, from);
    if (!at)
        return strdup(yaml);
    size_t head = (size_t)(at - yaml);
    char *out = malloc(strlen(yaml) + strlen(to) + 1);
    if (!out)
        return NULL;
    memcpy(out, yaml, head);
    strcpy(out + head, to);
    strcat(out, at + strlen(from));
    return out;
}

const struct api_cause *dialect_case_cause(const struct api_status *st, const char *field)
{
    for (int i = 0; i < st->ncauses && i < API_MAX_CAUSES; i++)
        if (strcmp(st->causes[i].field, field) == 0)
            return &st->causes[i];
    return NULL;
}

json_t *dialect_case_task(const struct job *job, int t)
{
    return json_array_get(json_object_get(json_object_get(job_manifest(job), "spec"), "tasks"), (size_t)t);
}

json_t *dialect_case_policy(json_t *task, const char *event)
{
    size_t i, k;
    json_t *pol, *e;
    json_array_foreach(json_object_get(task, "policies"), i, pol)
    {
        const char *one = json_string_value(json_object_get(pol, "event"));
        if (one && strcmp(one, event) == 0)
            return pol;
        json_array_foreach(json_object_get(pol, "events"), k, e)
        {
            if (json_is_string(e) && strcmp(json_string_value(e), event) == 0)
                return pol;
        }
    }
    return NULL;
}

const char *dialect_case_env(char **env, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; env && env[i]; i++)
        if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
            return env[i] + n + 1;
    return NULL;
}

struct job *dialect_case_submit(struct ctl_fixture *fx, const struct dialect *d, const char *yaml)
{
    struct dialect_case c;
    uint64_t seq;
    if (dialect_case_adapt(d, yaml, &c) != 0 || controller_create_job(&fx->ctl, c.job, &seq, &c.st) != 0) {
        fprintf(stderr, "# submit: %s\n", c.st.message);
        dialect_case_done(&c);
        return NULL;
    }
    struct job *job = c.job; /* the controller's now */
    intake_free(&c.in);
    return job;
}

json_t *dialect_case_render(const struct dialect *d, const struct job *job)
{
    json_t *vj = volcano_job_render(job);
    json_t *obj = dialect_render(d, job->source, vj);
    json_decref(vj);
    return obj;
}
