/* The WatchDog file (`jobserver --watchdog FILE`, YAML) into struct watchdog_conf: webhooks, routes,
 * queues' capability percentages, the pending and waste thresholds and how notices are delivered.
 *
 *   webhooks:                  - {name: ops, url: "http://...", format: slack | lark | json}
 *   routes:                    - {namespace: team-a, user: alice, webhooks: [ops], notify: [Failed]}
 *   queues:                    - {name: default, capabilityPercent: {cpu: 50, memory: 50, nvidia.com/gpu: 25}}
 *   pendingTimeout: 30m        a job Pending longer than this is noticed once (default: never)
 *   waste: {fraction: 0.2, period: 30m}
 *   delivery: {attempts: 4, backoff: 1s, timeout: 5s, queueSize: 1024}
 *
 * Every mistake is a cause with its path and line; a queue's resources must be known to the server
 * (the nodes file registers extended ones first). Pure. */
#ifndef CALDERA_WATCHDOG_CONF_H
#define CALDERA_WATCHDOG_CONF_H

#include <stddef.h>

#include "common/api_status.h"
#include "model/watchdog.h"

/* Returns 0 with *out filled, or -1 with st's message naming every mistake ("watchdog file is
 * invalid: [webhooks[0].url: Required value (line 2, column 5)]") and *out empty. */
int watchdog_conf_parse(const char *data, size_t len, struct watchdog_conf *out, struct api_status *st);

#endif
