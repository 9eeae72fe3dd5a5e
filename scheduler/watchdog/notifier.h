/* The WatchDog's sender: a thread of its own that POSTs notices to webhooks with libcurl, retried
 * with a doubling back-off, fed by a bounded queue the core posts to without ever waiting. A notice
 * that finds the queue full is dropped, counted and logged; every outcome is counted per webhook
 * for /metrics. */
#ifndef CALDERA_NOTIFIER_H
#define CALDERA_NOTIFIER_H

#include "common/sbuf.h"
#include "model/watchdog.h"

struct notifier;

/* Starts the sender for conf's webhooks (conf is the caller's, read-only, for the notifier's life).
 * Returns NULL when there is no webhook, or after logging why it cannot start. */
struct notifier *notifier_start(const struct watchdog_conf *conf);
/* Queues body (taken: freed by the notifier in every case) for webhook w. Never blocks on the
 * network. Returns 0, or -1 when it was dropped (queue full, stopping), counted and logged. */
int notifier_post(struct notifier *n, int w, char *body);
/* caldera_watchdog_notifications_* families, one sample per webhook and outcome. Any thread. */
void notifier_metrics(struct notifier *n, struct sbuf *out);
/* Gives the queue up to two seconds to be sent (one try each), counts what is left as dropped,
 * stops the thread and frees everything. NULL is fine. */
void notifier_stop(struct notifier *n);

#endif
