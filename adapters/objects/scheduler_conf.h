/* volcano-scheduler.conf (YAML: `actions: "enqueue, allocate, backfill"`, `tiers:` of `plugins:`
 * with `name`, enable switches and `arguments`, `configurations:` per action) into the model, plus
 * Caldera's node zones: `nodeZoneLabel: node-zone` and `nodeZones: [{schedulerName, zone}]`. */
#ifndef CALDERA_SCHEDULER_CONF_H
#define CALDERA_SCHEDULER_CONF_H

#include <stddef.h>

#include "common/api_status.h"
#include "model/sched_conf.h"

/* Unknown actions, plugins or keys are errors naming the line; names Volcano knows but Caldera
 * does not implement yet are accepted (the scheduler's sched_conf_unimplemented lists them).
 * Returns 0 or -1. */
int sched_conf_parse(const char *data, size_t len, struct sched_conf *conf, struct api_status *st);

#endif
