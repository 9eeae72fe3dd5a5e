/* Prometheus text exposition (format 0.0.4) helpers: lock-free latency histograms any thread may
 * observe into, and the writers of HELP/TYPE headers, escaped label values and histogram samples. */
#ifndef CALDERA_METRICS_H
#define CALDERA_METRICS_H

#include <stdatomic.h>
#include <stdint.h>

#include "common/sbuf.h"

/* Upper bounds of the buckets in seconds, shared by every latency histogram: 100 us to 10 s. */
#define METRICS_BUCKETS 16
extern const double metrics_bucket_bounds[METRICS_BUCKETS];

/* A latency histogram. Observations are relaxed atomic adds, so any thread may observe while another
 * renders; a rendering reads each bucket once and derives the count from those reads, so the +Inf
 * bucket always equals _count. Zero-initialised storage is an empty histogram. */
struct metrics_histogram {
    _Atomic uint64_t buckets[METRICS_BUCKETS + 1]; /* not cumulative; the last one is above every bound */
    _Atomic uint64_t sum_ns;
};

/* The monotonic clock in nanoseconds: what durations are measured with. */
int64_t metrics_now_ns(void);
/* Adds one observation of duration_ns (negative counts as 0). */
void metrics_histogram_observe(struct metrics_histogram *h, int64_t duration_ns);

/* "# HELP name help\n# TYPE name type\n" (help must hold no backslash or newline). */
void metrics_family(struct sbuf *out, const char *name, const char *type, const char *help);
/* A label value as the format wants it: backslash, double quote and newline escaped. */
void metrics_label_value(struct sbuf *out, const char *value);
/* The _bucket, _sum and _count samples of one histogram; labels is "" or `key="value",...` (already
 * escaped) and goes in front of le. */
void metrics_histogram_samples(struct sbuf *out, const char *name, const char *labels,
                               const struct metrics_histogram *h);

#endif
