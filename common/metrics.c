/* Prometheus text exposition helpers: lock-free histograms (relaxed atomics, no lock anywhere) and
 * the writers of family headers, label values and histogram samples. */
#include "common/metrics.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

const double metrics_bucket_bounds[METRICS_BUCKETS] = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                                       0.05,   0.1,     0.25,   0.5,   1,      2.5,   5,    10};

int64_t metrics_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void metrics_histogram_observe(struct metrics_histogram *h, int64_t duration_ns)
{
    if (duration_ns < 0)
        duration_ns = 0;
    double seconds = (double)duration_ns / 1e9;
    int b = 0;
    while (b < METRICS_BUCKETS && seconds > metrics_bucket_bounds[b]) /* le: a bound includes its value */
        b++;
    atomic_fetch_add_explicit(&h->buckets[b], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&h->sum_ns, (uint64_t)duration_ns, memory_order_relaxed);
}

void metrics_family(struct sbuf *out, const char *name, const char *type, const char *help)
{
    sbuf_printf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void metrics_label_value(struct sbuf *out, const char *value)
{
    if (!strpbrk(value, "\\\"\n")) { /* names and namespaces: nothing to escape */
        sbuf_puts(out, value);
        return;
    }
    for (const char *p = value; *p; p++) {
        if (*p == '\\')
            sbuf_puts(out, "\\\\");
        else if (*p == '"')
            sbuf_puts(out, "\\\"");
        else if (*p == '\n')
            sbuf_puts(out, "\\n");
        else
            sbuf_append(out, p, 1);
    }
}

void metrics_histogram_samples(struct sbuf *out, const char *name, const char *labels,
                               const struct metrics_histogram *h)
{
    const char *sep = labels[0] ? "," : "";
    uint64_t cumulative = 0;
    for (int b = 0; b <= METRICS_BUCKETS; b++) {
        cumulative += atomic_load_explicit(&h->buckets[b], memory_order_relaxed);
        if (b < METRICS_BUCKETS)
            sbuf_printf(out, "%s_bucket{%s%sle=\"%g\"} %llu\n", name, labels, sep, metrics_bucket_bounds[b],
                        (unsigned long long)cumulative);
        else
            sbuf_printf(out, "%s_bucket{%s%sle=\"+Inf\"} %llu\n", name, labels, sep, (unsigned long long)cumulative);
    }
    /* The sum exactly, from nanoseconds: "%.9g" would round a long-running server's sum. */
    uint64_t ns = atomic_load_explicit(&h->sum_ns, memory_order_relaxed);
    char sum[48];
    snprintf(sum, sizeof sum, "%llu.%09llu", (unsigned long long)(ns / 1000000000u),
             (unsigned long long)(ns % 1000000000u));
    if (labels[0]) {
        sbuf_printf(out, "%s_sum{%s} %s\n", name, labels, sum);
        sbuf_printf(out, "%s_count{%s} %llu\n", name, labels, (unsigned long long)cumulative);
    } else {
        sbuf_printf(out, "%s_sum %s\n", name, sum);
        sbuf_printf(out, "%s_count %llu\n", name, (unsigned long long)cumulative);
    }
}
