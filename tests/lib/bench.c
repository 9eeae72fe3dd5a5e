/* The benchmark harness: figure selection by prefix, medians, and the one output format
 * ("bench: <name> <value> <unit>") that make bench prints and notes quote. */
#include "tests/lib/bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

bool bench_wanted(const char *name)
{
    const char *only = getenv("BENCH_ONLY");
    return !only || !*only || strncmp(name, only, strlen(only)) == 0;
}

void bench_report(const char *name, double value, const char *unit)
{
    printf("bench: %s %.6g %s\n", name, value, unit);
    fflush(stdout);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double bench_median(double *values, int n)
{
    qsort(values, (size_t)n, sizeof *values, cmp_double);
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
