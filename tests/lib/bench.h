/* The benchmark harness: each figure is printed as "bench: <name> <value> <unit>", measured as the
 * median of several runs; BENCH_ONLY (make bench ONLY=prefix) picks which figures run. */
#ifndef CALDERA_BENCH_H
#define CALDERA_BENCH_H

#include <stdbool.h>

/* True when a figure of this name should be measured (its name starts with $BENCH_ONLY). */
bool bench_wanted(const char *name);
/* Prints one figure. */
void bench_report(const char *name, double value, const char *unit);
/* The median of n values (sorts them in place). */
double bench_median(double *values, int n);
/* Monotonic seconds. */
double bench_now(void);

#endif
