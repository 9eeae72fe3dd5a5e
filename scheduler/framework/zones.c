/* Zones are Caldera's node partitions (seed 000): the conf names a label (default node-zone) and, per
 * zone, the label value and the schedulerName jobs use to pick it; nodes matching no zone, and jobs
 * naming "volcano", belong to the default zone. The zone table splits the cluster's nodes so. */
#include "scheduler/framework/zones.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    const char *value = json_string_value(
        json_object_get(n->labels, conf->zone_label[0] ? conf->zone_label : "node-zone"));
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
        if (cluster->nodes[i].remote) /* an engine's: Caldera never places there */
            continue;
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

int zone_table_count(const struct zone_table *zt) { return zt->nzones; }

struct session_zone zone_table_zone(const struct zone_table *zt, int z)
{
    const struct zone *zone = &zt->zones[z];
    return (struct session_zone){zone->scheduler_name, zone->nodes, zone->nnodes};
}
