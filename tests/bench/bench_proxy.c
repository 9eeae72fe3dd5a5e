/* The companions' proxy's throughput (release build, in process): 100 MiB from a companion on
 * loopback (tests/lib/proxy_upstream.c) through an in-process gateway, read by libcurl:
 *   proxy_mib_per_s     - through the proxy, MiB/s;
 *   proxy_direct_ratio  - that over the same download straight from the companion (the median of
 *                         three pairs of runs, direct then proxied: two shared cores are noisy);
 *   proxy_rss_growth_mib - the most the process's VmRSS grew during a proxied download. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib/bench.h"
#include "tests/lib/proxy_upstream.h"
#include "tests/lib/proc_stats.h"

struct sink {
    uint64_t n, bad;
    long rss_max_kb;
};

static size_t take(char *data, size_t size, size_t n, void *ctx)
{
    struct sink *s = ctx;
    size_t len = size * n;
    /* A light check (every 4 KiB's first byte), so the reader is not what is measured. */
    for (size_t i = (4096 - s->n % 4096) % 4096; i < len; i += 4096)
        if ((unsigned char)data[i] != proxy_upstream_byte(s->n + i))
            s->bad++;
    s->n += len;
    if ((s->n & ((8u << 20) - 1)) < len) {
        long kb = proc_status_kib(getpid(), "VmRSS");
        if (kb > s->rss_max_kb)
            s->rss_max_kb = kb;
    }
    return len;
}

/* Seconds to download url, or -1. */
static double download(const char *url, uint64_t expect, struct sink *s)
{
    CURL *e = curl_easy_init();
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_PROXY, "");
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, take);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, s);
    curl_easy_setopt(e, CURLOPT_TIMEOUT, 300L);
    double t0 = bench_now();
    CURLcode rc = curl_easy_perform(e);
    double t = bench_now() - t0;
    curl_easy_cleanup(e);
    if (rc != CURLE_OK || s->n != expect || s->bad) {
        fprintf(stderr, "bench_proxy: %s: %s, %llu bytes, %llu wrong\n", url, curl_easy_strerror(rc),
                (unsigned long long)s->n, (unsigned long long)s->bad);
        return -1;
    }
    return t;
}

int main(void)
{
    if (!bench_wanted("proxy_mib_per_s") && !bench_wanted("proxy_direct_ratio") &&
        !bench_wanted("proxy_rss_growth_mib"))
        return 0;
    curl_global_init(CURL_GLOBAL_DEFAULT);
    struct proxy_upstream up = {0};
    struct proxy_stub stub;
    struct gateway gw;
    if (proxy_upstream_start(&up) != 0)
        return 1;
    proxy_stub_init(&stub, up.port);
    if (proxy_gateway_start(&gw, &stub, NULL, NULL) != 0)
        return 1;
    char via[256], direct[256];
    snprintf(via, sizeof via, "%s/proxy/bench/nb/big", gw.url);
    snprintf(direct, sizeof direct, "http://127.0.0.1:%d/big", up.port);
    struct sink warm = {0};
    int status = 0;
    double mib = (double)up.big_size / (1 << 20), speeds[3], ratios[3], growth = 0;
    if (download(via, up.big_size, &warm) < 0) /* warms what stays: threads, first allocations */
        status = 1;
    for (int i = 0; i < 3 && status == 0; i++) {
        struct sink d = {0}, p = {0};
        double td = download(direct, up.big_size, &d);
        long before = proc_status_kib(getpid(), "VmRSS");
        double tp = download(via, up.big_size, &p);
        if (td <= 0 || tp <= 0) {
            status = 1;
            break;
        }
        speeds[i] = mib / tp;
        ratios[i] = td / tp;
        if ((double)(p.rss_max_kb - before) / 1024.0 > growth)
            growth = (double)(p.rss_max_kb - before) / 1024.0;
        fprintf(stderr, "bench_proxy: direct %.0f MiB/s, through the proxy %.0f MiB/s\n", mib / td, mib / tp);
    }
    if (status == 0) {
        if (bench_wanted("proxy_mib_per_s"))
            bench_report("proxy_mib_per_s", bench_median(speeds, 3), "MiB/s");
        if (bench_wanted("proxy_direct_ratio"))
            bench_report("proxy_direct_ratio", bench_median(ratios, 3), "ratio");
        if (bench_wanted("proxy_rss_growth_mib"))
            bench_report("proxy_rss_growth_mib", growth, "MiB");
    }
    http_stop(&gw);
    proxy_upstream_stop(&up);
    curl_global_cleanup();
    return status;
}
