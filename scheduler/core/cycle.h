/* One scheduling cycle over every zone: a session per zone (its nodes, the jobs that name its
 * scheduler), run, closed and applied by the controller. The core and the simulator both call it. */
#ifndef CALDERA_CYCLE_H
#define CALDERA_CYCLE_H

#include <stdint.h>

#include "scheduler/controller/controller.h"
#include "model/sched_conf.h"
#include "scheduler/framework/zones.h"

struct cycle_stats {
    int64_t binds; /* replicas placed */
    int64_t evictions;
    int sessions;
};

/* Runs one cycle at ctl->now_ms. Returns 0, or -1 when a session ran out of memory. */
int schedule_cycle(struct controller *ctl, const struct sched_conf *conf, const struct zone_table *zones,
                   struct cycle_stats *stats);

#endif
