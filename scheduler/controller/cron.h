/* The CronJob controller on the core thread: CronJobs kept in the cluster and stored as objects
 * rows (kind CronJob), and, at each loop iteration, the due ones synced as Kubernetes' controller
 * syncs them (cron_sync.c): their Volcano Jobs created, replaced and cleaned away. */
#ifndef CALDERA_CONTROLLER_CRON_H
#define CALDERA_CONTROLLER_CRON_H

#include <jansson.h>
#include <stdint.h>

#include "common/api_status.h"
#include "scheduler/controller/controller.h"
#include "scheduler/controller/cron_view.h"

#define CRONJOB_KIND "CronJob"

/* Create: name free in its namespace (409). Update: exists (404), resourceVersion matches when
 * given (409); uid, creation time and status carry over. Delete also deletes the jobs it owns, as
 * Kubernetes' garbage collector does. On success the cluster owns cj. */
struct cron_job *controller_create_cronjob(struct controller *ctl, struct cron_job *cj, struct api_status *st);
struct cron_job *controller_update_cronjob(struct controller *ctl, struct cron_job *cj, struct api_status *st);
int controller_delete_cronjob(struct controller *ctl, const char *ns, const char *name, uint64_t *seq,
                              struct api_status *st);
/* Syncs every due CronJob. Returns how many jobs it created or deleted (the core then runs a cycle). */
int controller_cron_tick(struct controller *ctl);
/* Recovery of a stored CronJob row. */
int controller_restore_cronjob(struct controller *ctl, const char *json, const char *ns, const char *name);

#endif
