/* The zone table: the cluster's nodes split into the conf's zones, each selected by a schedulerName.
 * The core builds it, the cycle runs a session per zone, admission checks a job's schedulerName. */
#ifndef CALDERA_ZONES_H
#define CALDERA_ZONES_H

#include "model/cluster.h"
#include "model/sched_conf.h"
#include "scheduler/framework/session.h"

/* Splits the cluster's nodes into the conf's zones (call when nodes or conf change). */
struct zone_table;
struct zone_table *zone_table_build(const struct cluster *cluster, const struct sched_conf *conf);
void zone_table_free(struct zone_table *zt);
/* The zone a schedulerName selects, or -1. */
int zone_table_find(const struct zone_table *zt, const char *scheduler_name);
/* "volcano, volcano-daily" for error messages. */
const char *zone_table_names(const struct zone_table *zt, char *buf, int len);
/* How many zones (zone 0 is the default scheduler's), and zone z as a session sees it. */
int zone_table_count(const struct zone_table *zt);
struct session_zone zone_table_zone(const struct zone_table *zt, int z);

#endif
