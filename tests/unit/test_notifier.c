/* The WatchDog's sender on its own: a webhook nobody listens on is tried, then counted failed; a notice
 * finding the bounded queue full is dropped and counted, never waited for; a stop counts what it
 * could not send. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scheduler/watchdog/notifier.h"
#include "tests/lib/test.h"
#include "tests/lib/webhook_receiver.h"

/* The sample of family name for webhook "dead" in the notifier's metrics. */
static long long sample(struct notifier *n, const char *name)
{
    struct sbuf out = {0};
    notifier_metrics(n, &out);
    char want[160];
    snprintf(want, sizeof want, "\n%s{webhook=\"dead\"} ", name);
    const char *at = strstr(sbuf_str(&out), want);
    long long v = at ? atoll(at + strlen(want)) : -1;
    sbuf_free(&out);
    return v;
}

static void a_full_queue_drops_and_counts(void)
{
    int port = receiver_dead_port();
    REQUIRE(port > 0);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/x", port);
    struct watchdog_webhook w = {"dead", url, NOTIFY_JSON};
    struct watchdog_conf conf = {
        .webhooks = &w, .nwebhooks = 1, .retries = 1, .backoff_ms = 60000, .timeout_ms = 1000, .queue_size = 1};
    struct notifier *n = notifier_start(&conf);
    REQUIRE(n != NULL);
    CHECK_INT(notifier_post(n, 0, strdup("{\"n\":1}")), 0);
    for (int waited = 0; waited < 5000 && sample(n, "caldera_watchdog_notifications_queued") != 0; waited += 10)
        usleep(10000); /* the sender took it, failed once and waits a minute to try again */
    CHECK_INT(sample(n, "caldera_watchdog_notifications_queued"), 0);
    CHECK_INT(notifier_post(n, 0, strdup("{\"n\":2}")), 0);  /* waits */
    CHECK_INT(notifier_post(n, 0, strdup("{\"n\":3}")), -1); /* the queue holds one: dropped */
    CHECK_INT(notifier_post(n, 7, strdup("{}")), -1);        /* no such webhook */
    CHECK_INT(sample(n, "caldera_watchdog_notifications_queued"), 1);
    CHECK_INT(sample(n, "caldera_watchdog_notifications_dropped_total"), 1);
    CHECK_INT(sample(n, "caldera_watchdog_notifications_sent_total"), 0);
    struct sbuf out = {0};
    notifier_metrics(n, &out);
    CHECK_CONTAINS(sbuf_str(&out), "# TYPE caldera_watchdog_notifications_failed_total counter\n");
    CHECK_CONTAINS(sbuf_str(&out), "# TYPE caldera_watchdog_notifications_queued gauge\n");
    sbuf_free(&out);
    /* the stop wakes the back-off: the first is given up (failed), the second tried once (failed) */
    notifier_stop(n);
    CHECK(notifier_start(&(struct watchdog_conf){0}) == NULL); /* no webhooks: no thread */
}

TEST_MAIN(TEST_CASE(a_full_queue_drops_and_counts))
