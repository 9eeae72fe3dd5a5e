/* Volcano's Command (bus.volcano.sh/v1alpha1): an action for a Job (AbortJob, ResumeJob, ...) or a
 * Queue (OpenQueue, CloseQueue), as `vcctl job suspend` and friends send it. The controller runs
 * it at once and, as Volcano's does, deletes it: a Command is never listed afterwards. */
#ifndef CALDERA_COMMAND_H
#define CALDERA_COMMAND_H

#include <jansson.h>
#include <stdint.h>

#include "adapters/intake/intake.h"
#include "common/api_status.h"
#include "model/policy.h"

#define COMMAND_API_VERSION "bus.volcano.sh/v1alpha1"

struct command {
    json_t *meta; /* name (generateName resolved), namespace, labels, annotations */
    enum job_action action;
    bool target_is_queue; /* else a Job of the command's namespace */
    const char *target_name;
    const char *reason, *message; /* may be NULL */
    json_t *doc;                  /* the accepted document: the strings above point into it */
};

/* Parses and validates a Command: action known and fitting the target's kind (422 naming the
 * field), target {kind: Job|Queue, name}. Returns 0 or -1 with st. */
int command_from_doc(const struct intake_doc *doc, const char *url_ns, struct command **out, struct api_status *st);
/* The Command as the API answers its creation. */
json_t *command_render(const struct command *c, const char *uid, int64_t created_ms);
/* The Command a caldera.io job action stands for (POST .../jobs/{name}/{verb}), for the record:
 * action and target as a Command created for it would carry them. */
json_t *command_render_job_action(const char *ns, const char *job_name, enum job_action action, const char *reason);
void command_free(struct command *c);
/* A recorded Command (as command_render or command_render_job_action made it) as watches show it:
 * metadata.resourceVersion the sequence number it was recorded at and, when it has no name (a
 * caldera.io action), "<target>-<seq in hex>". */
void command_stamp_record(json_t *cmd, uint64_t seq);

#endif
