/* Inside the debug session (caldera.io/v1 DebugSession, session.c): a job of one pod that holds cpu,
 * memory and GPUs for a person working interactively through companions (Jupyter, a terminal...). */
#ifndef CALDERA_DEBUG_SESSION_H
#define CALDERA_DEBUG_SESSION_H

#include <jansson.h>

#include "adapters/dialects/dialect.h"

/* The Volcano Job's annotations: the companions to start (comma-joined, as a Training's) and the mark
 * of a debug session. */
#define DEBUG_COMPANIONS_ANNOTATION "caldera.io/companions"
#define DEBUG_SESSION_ANNOTATION "caldera.io/debug-session"
/* The one task, and what its container runs: a real process that holds the resources until killed. */
#define DEBUG_TASK "session"
/* The Volcano Job's reason when the controller ended the session because every companion was idle
 * (scheduler/controller/sessions.c); the session's status says Idle. */
#define DEBUG_IDLE_JOB_REASON "SessionIdle"
#define DEBUG_DEFAULT_DEADLINE_S (8 * 3600)
#define DEBUG_MAX_DEADLINE_S (7 * 24 * 3600)

/* The dialect (listed in adapters/dialects.c). */
extern const struct dialect debug_session_dialect;

/* The dialect's render_status: phase (Pending, Running, Ending, Ended, Failed), reason, message (the
 * pending reason while it waits; DeadlineExceeded when its deadline ended it), jobPhase, job, startTime, deadline, endTime, and the companions
 * [{type, name: "<job>-<type>", url: "/proxy/<ns>/<job>-<type>/"}]. */
json_t *debug_render_status(const json_t *source, const json_t *volcano_job);

/* The dialect's update (update.c): only spec.duration or spec.activeDeadlineSeconds may change (one of
 * them; a merge patch of the one the stored object lacks replaces the other); *out says the new
 * deadline in seconds when it moved. Anything else that differs: 422, a cause naming the field. */
int debug_update(const json_t *stored, json_t *updated, struct dialect_change *out, struct api_status *st);

#endif
