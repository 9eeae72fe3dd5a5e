/* store_events_per_s: events committed per second by the store's writer with group commit, the
 * core appending in chunks as it does after each loop iteration (median of 3 runs of 200,000). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fs.h"
#include "store/store.h"
#include "common/log.h"
#include "tests/lib/bench.h"

static struct journal_entry *event(uint64_t seq)
{
    struct journal_entry *e = journal_entry_new(JOURNAL_EVENT);
    char name[64];
    snprintf(name, sizeof name, "bench-job-%llu-worker-%llu", (unsigned long long)(seq / 100),
             (unsigned long long)(seq % 100));
    e->ev.seq = seq;
    e->ev.time_ms = 1700000000000LL + (int64_t)seq;
    e->ev.kind = strdup("Pod");
    e->ev.ns = strdup("default");
    e->ev.name = strdup(name);
    e->ev.job_uid = strdup("0b5e0c3e-7d1c-4a53-9d07-5d1f7e0c9a11");
    e->ev.from_phase = strdup("Running");
    e->ev.to_phase = strdup("Succeeded");
    e->ev.reason = strdup("Completed");
    e->ev.message = strdup("attempt 1 exited with code 0");
    return e;
}

static double one_run(int total, int chunk)
{
    char dir[] = "/tmp/caldera-bench-store-XXXXXX", path[128], err[256];
    if (!mkdtemp(dir))
        return 0;
    snprintf(path, sizeof path, "%s/caldera.db", dir);
    struct store *s;
    if (store_open(path, &s, err, sizeof err) != 0 || store_start_writer(s) != 0) {
        fprintf(stderr, "bench_store: %s\n", err);
        return 0;
    }
    double t0 = bench_now();
    uint64_t seq = 0;
    for (int i = 0; i < total; i += chunk) {
        struct journal_list l = {0};
        for (int k = 0; k < chunk; k++)
            journal_list_push(&l, event(++seq));
        store_append(s, &l);
    }
    store_wait(s, seq, -1);
    double rate = total / (bench_now() - t0);
    store_close(s);
    remove_tree(dir);
    return rate;
}

int main(void)
{
    if (!bench_wanted("store_events_per_s"))
        return 0;
    log_set_level(LOG_WARN);
    double rates[3];
    for (int r = 0; r < 3; r++)
        rates[r] = one_run(200000, 50);
    bench_report("store_events_per_s", bench_median(rates, 3), "events/s");
    return 0;
}
