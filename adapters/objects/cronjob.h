/* Volcano's CronJob (batch.volcano.sh/v1alpha1, `cronjobs`) in and out: the spec checked as
 * Kubernetes' CronJob validation checks it (schedule, timeZone, concurrencyPolicy, deadlines and
 * history limits, each cause naming its field), the object rendered with its status, and the
 * Volcano Job each scheduled time creates: "<cron>-<scheduled time in minutes>", owned by it. */
#ifndef CALDERA_CRONJOB_ADAPTER_H
#define CALDERA_CRONJOB_ADAPTER_H

#include <jansson.h>
#include <stdbool.h>

#include "adapters/intake/intake.h"
#include "common/api_status.h"
#include "model/cronjob.h"

#define CRONJOB_API_VERSION "batch.volcano.sh/v1alpha1"
/* The annotation Kubernetes' controller puts on each job: the time it was scheduled for. */
#define CRONJOB_SCHEDULED_ANNOTATION "batch.kubernetes.io/cronjob-scheduled-timestamp"

/* What reading a CronJob needs from the server: whether @every is taken (a test server's), and
 * where the TZ database is (NULL: /usr/share/zoneinfo or $TZDIR). */
struct cronjob_rules {
    bool allow_every;
    const char *zoneinfo_dir;
};

/* The rules every reader uses, set once from the options before any thread reads them. */
void cronjob_set_rules(const struct cronjob_rules *rules);
const struct cronjob_rules *cronjob_current_rules(void);

/* Parses a CronJob POSTed or PUT to namespace url_ns: 400 for another kind or namespace, 422 with
 * causes (spec.schedule: Invalid value, spec.timeZone: Invalid value, ...). metadata.resourceVersion
 * lands in resource_version; uid, times and status are the core's. */
int cronjob_from_doc(const struct intake_doc *doc, const char *url_ns, const struct cronjob_rules *rules,
                     struct cron_job **out, struct api_status *st);

/* The object as a client sees it; active lists the references of its running jobs (borrowed). */
json_t *cronjob_render(const struct cron_job *cj, const json_t *active);
/* The stored form (metadata with uid and times, spec, and the status times), and back. */
char *cronjob_to_store_json(const struct cron_job *cj);
struct cron_job *cronjob_from_store_json(const char *json, const struct cronjob_rules *rules);

/* "<cron>-<scheduled unix time in minutes>", as Kubernetes names a CronJob's jobs (in seconds for a
 * test server's @every under a minute). */
void cronjob_job_name(const struct cron_job *cj, int64_t scheduled_ms, char *out, size_t len);
/* The Volcano Job for the scheduled time: the template's metadata (labels, annotations) and spec,
 * the name above and the scheduled-timestamp annotation. */
json_t *cronjob_job_document(const struct cron_job *cj, int64_t scheduled_ms);
/* metadata.ownerReferences of its jobs: the CronJob as their controller. A client may not set
 * ownerReferences on a Job (nothing would collect it); the core adds these once the job is parsed. */
json_t *cronjob_owner_references(const struct cron_job *cj);

#endif
