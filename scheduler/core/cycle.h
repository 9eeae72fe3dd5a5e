/* One scheduling cycle over every zone: a session per zone (its nodes, the jobs that name its
 * scheduler), run, closed and applied by the controller. The core and the simulator both call it. */
#ifndef CALDERA_CYCLE_H
#define CALDERA_CYCLE_H

#include <stdint.h>

#include "scheduler/controller/controller.h"
#include "model/sched_conf.h"

struct cycle_stats {
    int64_t binds;        /* replicas placed */
    int64_t evictions;
    int sessions;
};

/* Splits the cluster's nodes into the conf's zones (call when nodes or conf change). */
struct zone_table;
struct zone_table *zone_table_build(const struct cluster *cluster, const struct sched_conf *conf);
void zone_table_free(struct zone_table *zt);
/* The zone a schedulerName selects, or -1. */
int zone_table_find(const struct zone_table *zt, const char *scheduler_name);
/* "volcano, volcano-daily" for error messages. */
const char *zone_table_names(const struct zone_table *zt, char *buf, int len);

/* Runs one cycle at ctl->now_ms. Returns 0, or -1 when a session ran out of memory. */
int schedule_cycle(struct controller *ctl, const struct sched_conf *conf, const struct zone_table *zones,
                   struct cycle_stats *stats);

#endif
