/* One scheduling cycle over every zone (scheduler/framework/zones.c): a session per zone, run, closed,
 * and its decisions applied by the controller. */
#include "scheduler/core/cycle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "scheduler/framework/session.h"
#include "scheduler/registry.h"

int schedule_cycle(struct controller *ctl, const struct sched_conf *conf, const struct zone_table *zones,
                   struct cycle_stats *stats)
{
    int rc = 0;
    for (int q = 0; q < ctl->cluster->nqueues; q++)
        memset(&ctl->cluster->queues[q]->fair_share, 0, sizeof ctl->cluster->queues[q]->fair_share);
    for (int z = 0; z < zone_table_count(zones); z++) {
        struct session_zone sz = zone_table_zone(zones, z);
        if (sz.nnodes == 0 && z > 0)
            continue;
        struct session ssn;
        if (session_open(&ssn, &builtin_registry, ctl->cluster, conf, &sz, ctl->now_ms) != 0) {
            log_error("scheduling cycle for %s skipped: out of memory", sz.scheduler_name);
            rc = -1;
            continue;
        }
        session_run(&ssn);
        session_close(&ssn);
        if (ssn.out_of_memory) {
            log_error("scheduling cycle for %s dropped: out of memory", sz.scheduler_name);
            rc = -1;
        } else {
            controller_apply_session(ctl, &ssn);
            if (stats) {
                for (int b = 0; b < ssn.nbinds; b++)
                    stats->binds += ssn.binds[b].count;
                stats->evictions += ssn.nevicts;
            }
        }
        if (stats)
            stats->sessions++;
        session_free(&ssn);
    }
    return rc;
}
