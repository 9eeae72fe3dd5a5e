/* One scheduling cycle over every zone. Zones are Caldera's node partitions (seed 000): the conf
 * names a label (default node-zone) and, per zone, the label value and the schedulerName jobs use
 * to pick it; nodes matching no zone, and jobs naming "volcano", belong to the default zone. */
#include "scheduler/core/cycle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "scheduler/framework/session.h"

struct zone {
    const char *scheduler_name;
    int *nodes;
    int nnodes;
};

struct zone_table {
    int nzones; /* zone 0 is the default scheduler */
    struct zone zones[CONF_MAX_ZONES + 1];
};

static int zone_of_node(const struct node *n, const struct sched_conf *conf)
{
    const char *value = json_string_value(json_object_get(n->labels, conf->zone_label[0] ? conf->zone_label : "node-zone"));
    for (int z = 0; value && z < conf->nzones; z++)
        if (strcmp(conf->zones[z].value, value) == 0)
            return z + 1;
    return 0;
}

struct zone_table *zone_table_build(const struct cluster *cluster, const struct sched_conf *conf)
{
    struct zone_table *zt = calloc(1, sizeof *zt);
    if (!zt)
        return NULL;
    zt->nzones = conf->nzones + 1;
    zt->zones[0].scheduler_name = DEFAULT_SCHEDULER_NAME;
    for (int z = 0; z < conf->nzones; z++)
        zt->zones[z + 1].scheduler_name = conf->zones[z].scheduler_name;
    for (int z = 0; z < zt->nzones; z++) {
        zt->zones[z].nodes = calloc((size_t)(cluster->nnodes > 0 ? cluster->nnodes : 1), sizeof *zt->zones[z].nodes);
        if (!zt->zones[z].nodes) {
            zone_table_free(zt);
            return NULL;
        }
    }
    for (int i = 0; i < cluster->nnodes; i++) {
        struct zone *z = &zt->zones[zone_of_node(&cluster->nodes[i], conf)];
        z->nodes[z->nnodes++] = i;
    }
    return zt;
}

void zone_table_free(struct zone_table *zt)
{
    if (!zt)
        return;
    for (int z = 0; z < zt->nzones; z++)
        free(zt->zones[z].nodes);
    free(zt);
}

int zone_table_find(const struct zone_table *zt, const char *scheduler_name)
{
    for (int z = 0; z < zt->nzones; z++)
        if (strcmp(zt->zones[z].scheduler_name, scheduler_name) == 0)
            return z;
    return -1;
}

const char *zone_table_names(const struct zone_table *zt, char *buf, int len)
{
    int at = 0;
    buf[0] = '\0';
    for (int z = 0; z < zt->nzones && at < len; z++)
        at += snprintf(buf + at, (size_t)(len - at), "%s%s", z ? ", " : "", zt->zones[z].scheduler_name);
    return buf;
}

int schedule_cycle(struct controller *ctl, const struct sched_conf *conf, const struct zone_table *zones,
                   struct cycle_stats *stats)
{
    int rc = 0;
    for (int q = 0; q < ctl->cluster->nqueues; q++)
        memset(&ctl->cluster->queues[q]->fair_share, 0, sizeof ctl->cluster->queues[q]->fair_share);
    for (int z = 0; z < zones->nzones; z++) {
        const struct zone *zone = &zones->zones[z];
        if (zone->nnodes == 0 && z > 0)
            continue;
        struct session_zone sz = {zone->scheduler_name, zone->nodes, zone->nnodes};
        struct session ssn;
        if (session_open(&ssn, ctl->cluster, conf, &sz, ctl->now_ms) != 0) {
            log_error("scheduling cycle for %s skipped: out of memory", zone->scheduler_name);
            rc = -1;
            continue;
        }
        session_run(&ssn);
        session_close(&ssn);
        if (ssn.out_of_memory) {
            log_error("scheduling cycle for %s dropped: out of memory", zone->scheduler_name);
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
