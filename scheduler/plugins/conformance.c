/* The conformance plugin: in Volcano it keeps preemption and reclaim from evicting pods of the
 * system-critical priority classes. With no eviction yet, it registers nothing. */
#include "scheduler/framework/plugin.h"

static int conformance_open(struct session *ssn, const struct plugin_conf *conf, int tier, void **state)
{
    (void)ssn;
    (void)conf;
    (void)tier;
    *state = NULL;
    return 0;
}

const struct plugin_def plugin_conformance = {"conformance", conformance_open, NULL};
