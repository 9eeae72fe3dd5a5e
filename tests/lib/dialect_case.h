/* For the dialects' unit tests: adapt a YAML document through a dialect, edit a document, and find a
 * cause, a task of the Volcano Job, a policy or an env variable. */
#ifndef CALDERA_TEST_DIALECT_CASE_H
#define CALDERA_TEST_DIALECT_CASE_H

#include <jansson.h>

#include "adapters/dialects/dialect.h"
#include "adapters/intake/intake.h"
#include "tests/lib/ctl_fixture.h"

struct dialect_case {
    struct intake in;
    struct job *job;
    struct api_status st;
};

/* yaml posted to d's path in namespace "team-a": 0 with c->job, or -1 with c->st. */
int dialect_case_adapt(const struct dialect *d, const char *yaml, struct dialect_case *c);
void dialect_case_done(struct dialect_case *c);
/* A new copy of yaml with the first `from` replaced by `to` (unchanged when from is absent). */
char *dialect_case_edit(const char *yaml, const char *from, const char *to);
/* The cause at field, or NULL. */
const struct api_cause *dialect_case_cause(const struct api_status *st, const char *field);
/* Task t of the job's Volcano manifest. */
json_t *dialect_case_task(const struct job *job, int t);
/* The task's policy for event (in `event` or `events`), or NULL. */
json_t *dialect_case_policy(json_t *task, const char *event);
/* yaml posted to d's path and admitted by the fixture's controller (the queue "default"); NULL when
 * refused (the reason on stderr). */
struct job *dialect_case_submit(struct ctl_fixture *fx, const struct dialect *d, const char *yaml);
/* The job as its dialect shows it (the rendered Volcano Job's status in the dialect's shape). */
json_t *dialect_case_render(const struct dialect *d, const struct job *job);
/* The value of name in a NAME=value vector, or NULL. */
const char *dialect_case_env(char **env, const char *name);

#endif
