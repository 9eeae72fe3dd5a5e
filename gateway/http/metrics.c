/* The gateway's own measures: request latency per (method, code) in a fixed table of histograms
 * whose slots are claimed by compare-and-swap, and the WebSocket subscriber gauge. No locks. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "common/metrics.h"
#include "gateway/http/metrics.h"

/* (method, code) pairs. The last slot, method="other" and code="other", takes a code outside 100-599
 * and every pair once the others are used: the series stay bounded whatever clients send. */
#define HTTP_SERIES 64
#define OTHER_METHOD 7

static const char *const methods[] = {"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "other"};

struct http_series {
    _Atomic uint32_t key; /* 0: free; else (method + 1) << 16 | code */
    struct metrics_histogram latency;
};

static struct http_series http_series[HTTP_SERIES];
static _Atomic int64_t websocket_subscribers;

static uint32_t method_index(const char *method)
{
    for (uint32_t i = 0; i < OTHER_METHOD; i++)
        if (strcmp(methods[i], method) == 0)
            return i;
    return OTHER_METHOD;
}

static struct http_series *series_for(uint32_t key)
{
    for (uint32_t probe = 0; (key & 0xffff) != 0 && probe < HTTP_SERIES - 1; probe++) {
        struct http_series *s = &http_series[(key * 2654435761u + probe) % (HTTP_SERIES - 1)];
        uint32_t seen = atomic_load_explicit(&s->key, memory_order_acquire);
        if (seen == 0) {
            uint32_t expected = 0;
            if (atomic_compare_exchange_strong_explicit(&s->key, &expected, key, memory_order_acq_rel,
                                                        memory_order_acquire))
                return s;
            seen = expected; /* another thread claimed it first: maybe for this very key */
        }
        if (seen == key)
            return s;
    }
    struct http_series *overflow = &http_series[HTTP_SERIES - 1];
    uint32_t expected = 0;
    atomic_compare_exchange_strong_explicit(&overflow->key, &expected, (OTHER_METHOD + 1) << 16, memory_order_acq_rel,
                                            memory_order_acquire);
    return overflow;
}

void metrics_http_observe(const char *method, int code, int64_t duration_ns)
{
    uint32_t c = code >= 100 && code <= 599 ? (uint32_t)code : 0;
    uint32_t key = (method_index(method) + 1) << 16 | c;
    metrics_histogram_observe(&series_for(key)->latency, duration_ns);
}

void metrics_websocket_subscribers_add(int delta)
{
    atomic_fetch_add_explicit(&websocket_subscribers, delta, memory_order_relaxed);
}

void metrics_render_gateway(struct sbuf *out)
{
    const char *name = "caldera_http_request_duration_seconds";
    metrics_family(out, name, "histogram",
                   "Time from a request's arrival to its answer, by method and status code (never by path).");
    for (int i = 0; i < HTTP_SERIES; i++) {
        uint32_t key = atomic_load_explicit(&http_series[i].key, memory_order_acquire);
        if (key == 0)
            continue;
        char labels[64];
        if (i == HTTP_SERIES - 1)
            snprintf(labels, sizeof labels, "method=\"other\",code=\"other\"");
        else
            snprintf(labels, sizeof labels, "method=\"%s\",code=\"%u\"", methods[(key >> 16) - 1], key & 0xffff);
        metrics_histogram_samples(out, name, labels, &http_series[i].latency);
    }
    /* Kept by the WebSocket gateway through metrics_websocket_subscribers_add(); 0 until it runs. */
    metrics_family(out, "caldera_websocket_subscribers", "gauge", "WebSocket subscribers connected now.");
    sbuf_printf(out, "caldera_websocket_subscribers %lld\n",
                (long long)atomic_load_explicit(&websocket_subscribers, memory_order_relaxed));
}
