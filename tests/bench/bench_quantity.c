/* quantity_parse_ns: nanoseconds to parse one Kubernetes quantity, over a mix of the forms
 * manifests use ("500m", "1.5Gi", "2e3", "64Mi", "4"). */
#include <stdint.h>
#include <stdio.h>

#include "model/quantity.h"
#include "tests/lib/bench.h"

int main(void)
{
    if (!bench_wanted("quantity_parse_ns"))
        return 0;
    static const char *const forms[] = {"500m", "1.5Gi", "2e3", "64Mi", "4", "0.25", "100Ki", "1T"};
    const int per_run = 2000000, runs = 5;
    double ns[5];
    int64_t sink = 0;
    for (int r = 0; r < runs; r++) {
        double t0 = bench_now();
        for (int i = 0; i < per_run; i++) {
            int64_t v;
            quantity_parse(forms[i & 7], i & 1 ? 3 : 0, &v);
            sink += v;
        }
        ns[r] = (bench_now() - t0) * 1e9 / per_run;
    }
    bench_report("quantity_parse_ns", bench_median(ns, runs), "ns");
    return sink == 42; /* keeps the loop from being optimised away */
}
