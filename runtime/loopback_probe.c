/* The probe thread (loopback_probe.h): readiness over HTTP with libcurl or as a non-blocking TCP
 * connect, activity over HTTP. Targets are copied under the lock and probed without it; results
 * wait, by owner, for the core to collect them. */
#include "runtime/loopback_probe.h"

#include <curl/curl.h>
#include <errno.h>
#include <jansson.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/grow.h"
#include "common/strv.h"

#define READY_EVERY_MS 200
#define ACTIVITY_EVERY_MS 10000
#define REQUEST_TIMEOUT_MS 2000
#define CONNECT_TIMEOUT_MS 1000
#define BODY_MAX (1 << 20)

struct target {
    uint64_t id;
    enum loopback_probe_owner owner;
    int port;
    bool tcp;
    int every_ms;
    char **headers;
    char *ready_path, *activity_path, *field, *busy_path;
    enum loopback_probe_activity activity;
    bool ready;
    int64_t next_ms; /* monotonic */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static pthread_t thread;
static bool running, stopping;
static void (*notify_fn)(void *);
static void *notify_ctx;
static struct target *targets;
static int ntargets, targets_cap;
static struct loopback_probe_result *results;
static int nresults, results_cap;

static void target_free(struct target *t)
{
    strv_free(t->headers);
    free(t->ready_path);
    free(t->activity_path);
    free(t->field);
    free(t->busy_path);
    memset(t, 0, sizeof *t);
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

static int target_copy(struct target *out, const struct loopback_probe_target *t)
{
    *out = (struct target){.id = t->id,
                           .owner = t->owner,
                           .port = t->port,
                           .tcp = t->tcp,
                           .every_ms = t->every_ms > 0 ? t->every_ms : READY_EVERY_MS,
                           .activity = t->activity};
    int rc = 0;
    for (size_t i = 0; t->headers && t->headers[i]; i++)
        rc |= strv_pushf(&out->headers, "%s", t->headers[i]);
    out->ready_path = dup_or_null(t->ready_path);
    out->activity_path = dup_or_null(t->activity_path);
    out->field = dup_or_null(t->field);
    out->busy_path = dup_or_null(t->busy_path);
    if (rc != 0 || (t->ready_path && !out->ready_path) || (t->activity_path && !out->activity_path) ||
        (t->field && !out->field) || (t->busy_path && !out->busy_path)) {
        target_free(out);
        return -1;
    }
    return 0;
}

struct body {
    char *data;
    size_t len;
};

static size_t on_data(char *p, size_t size, size_t n, void *ctx)
{
    struct body *b = ctx;
    size_t add = size * n;
    if (b->len + add > BODY_MAX)
        return 0;
    char *grown = realloc(b->data, b->len + add + 1);
    if (!grown)
        return 0;
    memcpy(grown + b->len, p, add);
    b->len += add;
    grown[b->len] = '\0';
    b->data = grown;
    return add;
}

/* GET http://127.0.0.1:port/path with the headers: the status (0: no answer), the body in *body. */
static long http_get(const struct target *t, const char *path, char **body)
{
    *body = NULL;
    CURL *curl = curl_easy_init();
    if (!curl)
        return 0;
    char url[4200];
    snprintf(url, sizeof url, "http://127.0.0.1:%d%s", t->port, path);
    struct curl_slist *hl = NULL;
    for (size_t i = 0; t->headers && t->headers[i]; i++)
        hl = curl_slist_append(hl, t->headers[i]);
    struct body b = {0};
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, hl);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, (long)REQUEST_TIMEOUT_MS);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &b);
    long code = 0;
    if (curl_easy_perform(curl) == CURLE_OK)
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
    curl_slist_free_all(hl);
    curl_easy_cleanup(curl);
    *body = b.data;
    if (code == 0)
        free(b.data), *body = NULL;
    return code;
}

/* Whether 127.0.0.1:port accepts a connection within CONNECT_TIMEOUT_MS. */
static bool tcp_connects(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    struct sockaddr_in sa = {
        .sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    bool ok = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
    if (!ok && errno == EINPROGRESS) {
        struct pollfd pfd = {.fd = fd, .events = POLLOUT};
        int err = 0;
        socklen_t len = sizeof err;
        ok = poll(&pfd, 1, CONNECT_TIMEOUT_MS) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 &&
             err == 0;
    }
    close(fd);
    return ok;
}

/* The activity the companion reports: its field's time, now when a jupyter kernel is busy; 0: none. */
static int64_t probe_activity(const struct target *t)
{
    int64_t when = 0;
    char *body = NULL;
    if (t->activity_path && http_get(t, t->activity_path, &body) / 100 == 2 && body) {
        json_t *doc = json_loads(body, 0, NULL);
        const char *s = json_string_value(json_object_get(doc, t->field ? t->field : "last_activity"));
        int64_t ms;
        if (s && rfc3339_parse(s, &ms) == 0)
            when = ms;
        json_decref(doc);
    }
    free(body);
    body = NULL;
    if (t->activity == PROBE_ACTIVITY_JUPYTER && t->busy_path && http_get(t, t->busy_path, &body) / 100 == 2 && body) {
        json_t *doc = json_loads(body, 0, NULL);
        size_t i;
        json_t *k;
        json_array_foreach(doc, i, k)
        {
            const char *state = json_string_value(json_object_get(k, "execution_state"));
            if (state && strcmp(state, "busy") == 0)
                when = clock_wall_ms();
        }
        json_decref(doc);
    }
    if (body)
        free(body);
    return when;
}

static void push_result(const struct loopback_probe_result *r)
{
    pthread_mutex_lock(&lock);
    bool known = false;
    for (int i = 0; i < ntargets; i++)
        known = known || (targets[i].id == r->id && targets[i].owner == r->owner);
    if (known && GROW(results, results_cap, (size_t)nresults + 1, 16) == 0)
        results[nresults++] = *r;
    pthread_mutex_unlock(&lock);
}

static void *probe_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    while (!stopping) {
        int64_t now = clock_mono_ms();
        struct target due = {0};
        bool found = false;
        int64_t soonest = now + 1000;
        for (int i = 0; i < ntargets; i++) {
            if (targets[i].next_ms <= now && !found) {
                found = target_copy(&due, &(struct loopback_probe_target){
                                              .id = targets[i].id,
                                              .owner = targets[i].owner,
                                              .port = targets[i].port,
                                              .tcp = targets[i].tcp,
                                              .every_ms = targets[i].every_ms,
                                              .headers = targets[i].headers,
                                              .ready_path = targets[i].ready_path,
                                              .activity = targets[i].activity,
                                              .activity_path = targets[i].activity_path,
                                              .field = targets[i].field,
                                              .busy_path = targets[i].busy_path,
                                          }) == 0;
                due.ready = targets[i].ready;
                targets[i].next_ms = now + (targets[i].ready ? ACTIVITY_EVERY_MS : targets[i].every_ms);
            }
            if (targets[i].next_ms < soonest)
                soonest = targets[i].next_ms;
        }
        if (!found) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            int64_t wait = soonest > now ? soonest - now : 1;
            ts.tv_sec += wait / 1000;
            ts.tv_nsec += (wait % 1000) * 1000000L;
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&wake, &lock, &ts);
            continue;
        }
        pthread_mutex_unlock(&lock);
        struct loopback_probe_result r = {.id = due.id, .owner = due.owner};
        bool send = false;
        if (!due.ready) {
            char *body = NULL;
            long code = due.tcp ? (tcp_connects(due.port) ? 200 : 0)
                                : http_get(&due, due.ready_path ? due.ready_path : "/", &body);
            free(body);
            if (code >= 200 && code < 400) {
                r.ready = send = true;
                if (due.activity != PROBE_ACTIVITY_NONE)
                    r.activity_ms = probe_activity(&due);
            }
        } else if (due.activity != PROBE_ACTIVITY_NONE) {
            r.activity_ms = probe_activity(&due);
            send = r.activity_ms > 0;
        }
        if (send)
            push_result(&r);
        pthread_mutex_lock(&lock);
        if (r.ready)
            for (int i = 0; i < ntargets; i++)
                if (targets[i].id == due.id && targets[i].owner == due.owner) {
                    targets[i].ready = true;
                    targets[i].next_ms = clock_mono_ms() + ACTIVITY_EVERY_MS;
                }
        pthread_mutex_unlock(&lock);
        target_free(&due);
        if (send && notify_fn)
            notify_fn(notify_ctx);
        pthread_mutex_lock(&lock);
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

int loopback_probe_start(void (*notify)(void *ctx), void *ctx)
{
    pthread_mutex_lock(&lock);
    notify_fn = notify;
    notify_ctx = ctx;
    stopping = false;
    int rc = 0;
    if (!running) {
        rc = pthread_create(&thread, NULL, probe_main, NULL) == 0 ? 0 : -1;
        running = rc == 0;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

void loopback_probe_stop(void)
{
    pthread_mutex_lock(&lock);
    bool was = running;
    stopping = true;
    running = false;
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
    if (was)
        pthread_join(thread, NULL);
    pthread_mutex_lock(&lock);
    for (int i = 0; i < ntargets; i++)
        target_free(&targets[i]);
    free(targets);
    targets = NULL;
    ntargets = targets_cap = 0;
    free(results);
    results = NULL;
    nresults = results_cap = 0;
    notify_fn = NULL;
    pthread_mutex_unlock(&lock);
}

int loopback_probe_add(const struct loopback_probe_target *t)
{
    struct target copy;
    if (target_copy(&copy, t) != 0)
        return -1;
    copy.next_ms = clock_mono_ms() + copy.every_ms;
    pthread_mutex_lock(&lock);
    int rc = 0;
    int i = 0;
    while (i < ntargets && (targets[i].id != t->id || targets[i].owner != t->owner))
        i++;
    if (i < ntargets) {
        target_free(&targets[i]);
        targets[i] = copy;
    } else if (GROW(targets, targets_cap, (size_t)ntargets + 1, 8) == 0) {
        targets[ntargets++] = copy;
    } else {
        target_free(&copy);
        rc = -1;
    }
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
    return rc;
}

void loopback_probe_remove(enum loopback_probe_owner owner, uint64_t id)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < ntargets; i++)
        if (targets[i].id == id && targets[i].owner == owner) {
            target_free(&targets[i]);
            targets[i] = targets[--ntargets];
            break;
        }
    int kept = 0;
    for (int i = 0; i < nresults; i++)
        if (results[i].id != id || results[i].owner != owner)
            results[kept++] = results[i];
    nresults = kept;
    pthread_mutex_unlock(&lock);
}

int loopback_probe_take(enum loopback_probe_owner owner, struct loopback_probe_result *out, int max)
{
    pthread_mutex_lock(&lock);
    int n = 0, kept = 0;
    for (int i = 0; i < nresults; i++)
        if (results[i].owner == owner && n < max)
            out[n++] = results[i];
        else
            results[kept++] = results[i];
    nresults = kept;
    pthread_mutex_unlock(&lock);
    return n;
}
