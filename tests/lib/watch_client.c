/* The test watch client: curl_easy_perform on a thread of its own, a write callback that splits the
 * body into lines (each parsed as JSON), and waits on a condition variable with deadlines. */
#include "tests/lib/watch_client.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/sbuf.h"

struct watch_client {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t changed;
    char url[1024];
    char header[512];
    json_t *events;    /* under mu */
    int64_t *received; /* each event's arrival (wall ms), under mu */
    size_t nreceived, received_cap;
    struct sbuf body;  /* everything received, under mu */
    size_t line_start; /* where the next unparsed line starts in body */
    long status;
    bool ended, stop;
};

static size_t on_data(char *data, size_t size, size_t n, void *ctx)
{
    struct watch_client *w = ctx;
    size_t len = size * n;
    pthread_mutex_lock(&w->mu);
    sbuf_append(&w->body, data, len);
    for (;;) {
        const char *start = w->body.data + w->line_start;
        const char *nl = memchr(start, '\n', w->body.len - w->line_start);
        if (!nl)
            break;
        size_t line_len = (size_t)(nl - start);
        json_t *event = line_len ? json_loadb(start, line_len, 0, NULL) : NULL;
        if (event) {
            json_array_append_new(w->events, event);
            if (w->nreceived == w->received_cap) {
                size_t cap = w->received_cap ? 2 * w->received_cap : 64;
                int64_t *grown = realloc(w->received, cap * sizeof *grown);
                if (grown) {
                    w->received = grown;
                    w->received_cap = cap;
                }
            }
            if (w->nreceived < w->received_cap)
                w->received[w->nreceived++] = clock_wall_ms();
        }
        w->line_start += line_len + 1;
    }
    pthread_cond_broadcast(&w->changed);
    bool stop = w->stop;
    pthread_mutex_unlock(&w->mu);
    return stop ? 0 : len;
}

/* The status line, as soon as it arrives: "HTTP/1.1 200 OK". */
static size_t on_header(char *data, size_t size, size_t n, void *ctx)
{
    struct watch_client *w = ctx;
    size_t len = size * n;
    long code;
    if (len > 9 && strncmp(data, "HTTP/", 5) == 0 && sscanf(data, "HTTP/%*s %ld", &code) == 1) {
        pthread_mutex_lock(&w->mu);
        w->status = code;
        pthread_cond_broadcast(&w->changed);
        pthread_mutex_unlock(&w->mu);
    }
    return len;
}

static int on_progress(void *ctx, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
    (void)a, (void)b, (void)c, (void)d;
    struct watch_client *w = ctx;
    pthread_mutex_lock(&w->mu);
    bool stop = w->stop;
    pthread_mutex_unlock(&w->mu);
    return stop;
}

static void *run(void *arg)
{
    struct watch_client *w = arg;
    CURL *c = curl_easy_init();
    struct curl_slist *headers = w->header[0] ? curl_slist_append(NULL, w->header) : NULL;
    if (c) {
        curl_easy_setopt(c, CURLOPT_URL, w->url);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, w);
        curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(c, CURLOPT_HEADERDATA, w);
        curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
        curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
        curl_easy_setopt(c, CURLOPT_XFERINFODATA, w);
        curl_easy_setopt(c, CURLOPT_TIMEOUT, 300L);
        curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
        if (headers)
            curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
        curl_easy_perform(c);
        curl_easy_cleanup(c);
    }
    curl_slist_free_all(headers);
    pthread_mutex_lock(&w->mu);
    w->ended = true;
    pthread_cond_broadcast(&w->changed);
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

struct watch_client *watch_open(const struct test_server *s, const char *path, const char *extra_header)
{
    struct watch_client *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    snprintf(w->url, sizeof w->url, "%s%s", s->url, path);
    snprintf(w->header, sizeof w->header, "%s", extra_header ? extra_header : "");
    w->events = json_array();
    pthread_mutex_init(&w->mu, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&w->changed, &attr);
    pthread_condattr_destroy(&attr);
    if (pthread_create(&w->thread, NULL, run, w) != 0) {
        json_decref(w->events);
        free(w);
        return NULL;
    }
    return w;
}

int watch_wait_count(struct watch_client *w, int n, int timeout_ms)
{
    struct timespec deadline = clock_deadline(CLOCK_MONOTONIC, timeout_ms);
    pthread_mutex_lock(&w->mu);
    while ((int)json_array_size(w->events) < n && !w->ended)
        if (pthread_cond_timedwait(&w->changed, &w->mu, &deadline) != 0)
            break;
    int have = (int)json_array_size(w->events);
    pthread_mutex_unlock(&w->mu);
    return have;
}

static const char *string_at(const json_t *v, const char *path)
{
    char seg[128];
    while (v && *path) {
        size_t n = strcspn(path, ".");
        snprintf(seg, sizeof seg, "%.*s", (int)n, path);
        v = json_object_get(v, seg);
        path += n + (path[n] == '.');
    }
    return json_string_value(v);
}

static bool matches(const json_t *e, const char *type, const char *name, const char *field, const char *value)
{
    const char *t = json_string_value(json_object_get(e, "type"));
    const json_t *o = json_object_get(e, "object");
    const char *n = string_at(o, "metadata.name");
    if (type && (!t || strcmp(t, type) != 0))
        return false;
    if (name && (!n || strcmp(n, name) != 0))
        return false;
    if (field) {
        const char *v = string_at(o, field);
        return v && value && strcmp(v, value) == 0;
    }
    return true;
}

int watch_wait_for(struct watch_client *w, int from, const char *type, const char *name, const char *field,
                   const char *value, int timeout_ms)
{
    struct timespec deadline = clock_deadline(CLOCK_MONOTONIC, timeout_ms);
    pthread_mutex_lock(&w->mu);
    int found = -1;
    for (size_t i = (size_t)from;;) {
        for (; i < json_array_size(w->events) && found < 0; i++)
            if (matches(json_array_get(w->events, i), type, name, field, value))
                found = (int)i;
        if (found >= 0 || w->ended || pthread_cond_timedwait(&w->changed, &w->mu, &deadline) != 0)
            break;
    }
    pthread_mutex_unlock(&w->mu);
    return found;
}

bool watch_wait_end(struct watch_client *w, int timeout_ms)
{
    struct timespec deadline = clock_deadline(CLOCK_MONOTONIC, timeout_ms);
    pthread_mutex_lock(&w->mu);
    while (!w->ended)
        if (pthread_cond_timedwait(&w->changed, &w->mu, &deadline) != 0)
            break;
    bool ended = w->ended;
    pthread_mutex_unlock(&w->mu);
    return ended;
}

json_t *watch_events(struct watch_client *w)
{
    pthread_mutex_lock(&w->mu);
    json_t *copy = json_deep_copy(w->events);
    pthread_mutex_unlock(&w->mu);
    return copy;
}

long watch_status(struct watch_client *w)
{
    pthread_mutex_lock(&w->mu);
    long s = w->status;
    pthread_mutex_unlock(&w->mu);
    return s;
}

char *watch_body(struct watch_client *w)
{
    pthread_mutex_lock(&w->mu);
    char *copy = strdup(sbuf_str(&w->body));
    pthread_mutex_unlock(&w->mu);
    return copy;
}

int64_t watch_received_ms(struct watch_client *w, int index)
{
    pthread_mutex_lock(&w->mu);
    int64_t at = index >= 0 && (size_t)index < w->nreceived ? w->received[index] : 0;
    pthread_mutex_unlock(&w->mu);
    return at;
}

void watch_close(struct watch_client *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    w->stop = true;
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    json_decref(w->events);
    free(w->received);
    sbuf_free(&w->body);
    pthread_cond_destroy(&w->changed);
    pthread_mutex_destroy(&w->mu);
    free(w);
}
