/* Integration tests of slow and greedy clients on real servers: 2,000 connections trickling their
 * headers from several addresses while a fresh client is answered at once, a trickler closed at the
 * header deadline, the per-address connection cap, and the WebSocket listener's subscriber caps,
 * handshake deadline and back-off at the descriptor limit. */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "tests/lib/raw_socket.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"
#include "tests/lib/ws_client.h"
#include "tests/lib/proc_stats.h"

#define SLOW_CONNECTIONS 2000
#define SLOW_ADDRESSES 8 /* 127.0.0.10 ... 127.0.0.17, 250 each: under the default cap of 256 an address */
#define FRESH_TRIES 9
#define QUEUES "/apis/scheduling.volcano.sh/v1beta1/queues"

/* --- fresh clients -------------------------------------------------------------------------- */

/* GET /healthz on a fresh connection from 127.0.0.1; its status line's code (0: none) and how long
 * the answer took in *ms. */
static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int fresh_healthz(int port, double *ms)
{
    double start = now_ms();
    int fd = raw_connect("127.0.0.1", port);
    int code = 0;
    if (fd >= 0 && raw_send_text(fd, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")) {
        char *reply = raw_read_until_closed(fd, 10000);
        if (reply && strncmp(reply, "HTTP/1.1 ", 9) == 0)
            code = atoi(reply + 9);
        free(reply);
    }
    if (fd >= 0)
        close(fd);
    *ms = now_ms() - start;
    return code;
}

/* Whether fd is still open and silent (the server neither answered nor closed it). */
static bool still_open(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, 0) == 0;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* This process may hold the slow connections and the server's own (it inherits the limit). */
static bool raise_descriptor_limit(rlim_t want)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return false;
    if (rl.rlim_cur < want && rl.rlim_max >= want) {
        rl.rlim_cur = want;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    return rl.rlim_cur >= want;
}

static long log_size(const struct test_server *s)
{
    struct stat st;
    return stat(s->log_path, &st) == 0 ? (long)st.st_size : -1;
}

/* --- the cases ------------------------------------------------------------------------------ */

/* 2,000 connections from 8 addresses each send half a header line and trickle on; the server holds
 * them all, and a fresh client's GET /healthz is answered well within 100 ms, every time. */
static void a_fresh_client_is_answered_while_2000_slow_connections_are_open(void)
{
    SKIP_IF(!raise_descriptor_limit(SLOW_CONNECTIONS + 512), "needs %d open files", SLOW_CONNECTIONS + 512);
    struct test_server s;
    const char *args[] = {"--header-timeout", "60s", NULL}; /* they stay for the whole case */
    REQUIRE(server_start(&s, NULL, args) == 0);
    int port = raw_port_of(s.url);
    int *fds = malloc(sizeof *fds * SLOW_CONNECTIONS);
    REQUIRE(fds);
    int opened = 0;
    for (int i = 0; i < SLOW_CONNECTIONS; i++) {
        char from[32];
        snprintf(from, sizeof from, "127.0.0.%d", 10 + i % SLOW_ADDRESSES);
        fds[i] = raw_connect(from, port);
        if (fds[i] >= 0 && raw_send_text(fds[i], "GET /healthz HTTP/1.1\r\nX-Slow: a"))
            opened++;
    }
    CHECK_INT(opened, SLOW_CONNECTIONS);
    for (int i = 0; i < SLOW_CONNECTIONS; i++) /* a trickle: one more byte each */
        if (fds[i] >= 0)
            raw_send_text(fds[i], "b");

    /* The server holds them: accepted (a descriptor each) and taken in (a thread each: under
     * ThreadSanitizer starting 2,000 threads takes seconds, the fresh client's wait), and none
     * answered or closed. */
    int held = 0, threads = 0;
    for (int tries = 0; tries < 600 && (held < SLOW_CONNECTIONS || threads < SLOW_CONNECTIONS); tries++) {
        held = proc_open_fds(s.pid);
        threads = proc_threads(s.pid);
        if (held < SLOW_CONNECTIONS || threads < SLOW_CONNECTIONS)
            usleep(100 * 1000);
    }
    CHECK(held >= SLOW_CONNECTIONS);
    CHECK(threads >= SLOW_CONNECTIONS);
    int open = 0;
    for (int i = 0; i < SLOW_CONNECTIONS; i++)
        open += fds[i] >= 0 && still_open(fds[i]);
    CHECK_INT(open, SLOW_CONNECTIONS);

    double ms[FRESH_TRIES];
    for (int i = 0; i < FRESH_TRIES; i++) {
        int code = fresh_healthz(port, &ms[i]);
        CHECK_INT(code, 200);
    }
    qsort(ms, FRESH_TRIES, sizeof ms[0], compare_doubles);
    fprintf(stderr, "# fresh GET /healthz with %d slow connections open: median %.2f ms, slowest %.2f ms\n",
            SLOW_CONNECTIONS, ms[FRESH_TRIES / 2], ms[FRESH_TRIES - 1]);
    CHECK(ms[FRESH_TRIES / 2] < 100.0);

    for (int i = 0; i < SLOW_CONNECTIONS; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    free(fds);
    double one;
    CHECK_INT(fresh_healthz(port, &one), 200);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

/* Sends request_start (a request line and headers, never their end), then a header line every
 * 200 ms until the server closes, for at most 10 s. Returns what the server sent (caller frees; ""
 * when it closed without a word or refused a line), NULL when it never closed; *took_ms: how long. */
static char *trickle_until_closed(int fd, const char *request_start, int64_t *took_ms)
{
    int64_t start = clock_mono_ms();
    char *reply = raw_send_text(fd, request_start) ? NULL : strdup("");
    for (int i = 0; i < 50 && !reply; i++) {
        reply = raw_read_until_closed(fd, 200);
        if (!reply && !raw_send_text(fd, "X-Trickle: a\r\n"))
            reply = strdup("");
    }
    *took_ms = clock_mono_ms() - start;
    return reply;
}

/* A client that sends a header line every 200 ms is never idle, yet is closed at the header
 * deadline without an answer; one whose headers are in time is answered. */
static void a_trickling_connection_is_closed_at_the_header_deadline(void)
{
    struct test_server s;
    const char *args[] = {"--header-timeout", "1s", NULL};
    REQUIRE(server_start(&s, NULL, args) == 0);
    int port = raw_port_of(s.url);
    int fd = raw_connect("127.0.0.1", port);
    REQUIRE(fd >= 0);
    int64_t took;
    char *reply = trickle_until_closed(fd, "GET /healthz HTTP/1.1\r\nHost: x\r\n", &took);
    close(fd);
    CHECK(reply != NULL);
    CHECK(reply && strstr(reply, "HTTP/1.1 200") == NULL); /* its request never came whole */
    CHECK(took >= 900 && took < 5000);
    free(reply);

    /* A keep-alive connection answered once then left idle is closed at the deadline too. */
    fd = raw_connect("127.0.0.1", port);
    REQUIRE(fd >= 0);
    CHECK(raw_send_text(fd, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
    int64_t start = clock_mono_ms();
    reply = raw_read_until_closed(fd, 5000);
    took = clock_mono_ms() - start;
    close(fd);
    CHECK(reply && strncmp(reply, "HTTP/1.1 200", 12) == 0);
    CHECK(took >= 900 && took < 5000);
    free(reply);

    double ms;
    CHECK_INT(fresh_healthz(port, &ms), 200);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

/* With --max-connections-per-client 4, a fifth connection from one address is closed at once (no
 * thread, no answer), again and again without flooding the log, while another address is served;
 * once one of the four closes, the address is served again. */
static void the_per_address_cap_refuses_the_next_connection_while_another_is_served(void)
{
    struct test_server s;
    const char *args[] = {"--max-connections-per-client", "4", "--header-timeout", "30s", NULL};
    REQUIRE(server_start(&s, NULL, args) == 0);
    int port = raw_port_of(s.url);
    int held[4];
    for (int i = 0; i < 4; i++) {
        held[i] = raw_connect("127.0.0.20", port);
        CHECK(held[i] >= 0 && raw_send_text(held[i], "GET /healthz HTTP/1.1\r\nX-Slow: a"));
    }
    usleep(200 * 1000);
    long log_before = log_size(&s);
    for (int i = 0; i < 50; i++) {
        int fd = raw_connect("127.0.0.20", port);
        REQUIRE(fd >= 0);
        raw_send_text(fd, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        char *reply = raw_read_until_closed(fd, 3000);
        close(fd);
        if (!reply || strstr(reply, "HTTP/1.1 200")) {
            test_fail(__FILE__, __LINE__, "connection %d over the cap: %s", i + 1, reply ? reply : "left open");
            free(reply);
            break;
        }
        free(reply);
    }
    CHECK(log_size(&s) - log_before < 1000); /* one line for the kind, not one a connection */
    for (int i = 0; i < 4; i++)
        CHECK(held[i] >= 0 && still_open(held[i]));

    int other = raw_connect("127.0.0.21", port);
    REQUIRE(other >= 0);
    CHECK(raw_send_text(other, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
    char *reply = raw_read_until_closed(other, 5000);
    close(other);
    CHECK(reply && strncmp(reply, "HTTP/1.1 200", 12) == 0);
    free(reply);

    close(held[0]);
    bool served = false;
    for (int i = 0; i < 20 && !served; i++) { /* the slot frees once the server has closed its end */
        usleep(100 * 1000);
        int fd = raw_connect("127.0.0.20", port);
        if (fd < 0)
            continue;
        raw_send_text(fd, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        reply = raw_read_until_closed(fd, 3000);
        served = reply && strncmp(reply, "HTTP/1.1 200", 12) == 0;
        free(reply);
        close(fd);
    }
    CHECK(served);
    for (int i = 1; i < 4; i++)
        if (held[i] >= 0)
            close(held[i]);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

/* --- the WebSocket listener ---------------------------------------------------------------- */

/* A queue's creation: an event every namespace-wide subscriber of the cluster sees. */
static bool make_queue(const struct test_server *s, const char *name)
{
    char body[256];
    snprintf(body, sizeof body,
             "{\"apiVersion\":\"scheduling.volcano.sh/v1beta1\",\"kind\":\"Queue\",\"metadata\":{\"name\":\"%s\"},"
             "\"spec\":{\"weight\":1}}",
             name);
    long code = 0;
    json_t *j = server_request(s, "POST", QUEUES, body, NULL, &code);
    json_decref(j);
    return code == 201 || code == 200;
}

/* Whether c receives a message naming text within timeout_ms. */
static bool receives(struct ws_client *c, const char *text, int timeout_ms)
{
    int64_t deadline = clock_mono_ms() + timeout_ms;
    while (clock_mono_ms() < deadline) {
        struct ws_frame f = ws_client_next(c, (int)(deadline - clock_mono_ms()));
        bool found = f.kind == WS_TEXT && strstr(f.text, text);
        bool over = f.kind != WS_TEXT;
        ws_frame_clear(&f);
        if (found)
            return true;
        if (over)
            return false;
    }
    return false;
}

/* Connects a subscriber to every namespace's events from the address from: 0 when upgraded, else 1
 * with the refusal in c (or -1). */
static int subscribe_from(struct ws_client *c, const char *url, const char *from)
{
    const struct ws_client_options o = {.source_address = from};
    return ws_client_connect(c, url, NULL, &o, 10000);
}

/* Whether a subscriber from `from` is refused with code and a Status naming flag. */
static bool refused_with(const char *url, const char *from, int code, const char *reason, const char *flag)
{
    struct ws_client c;
    int rc = subscribe_from(&c, url, from);
    bool ok = rc == 1 && c.http_code == code && c.http_body && strstr(c.http_body, reason) && strstr(c.http_body, flag);
    if (!ok)
        fprintf(stderr, "# subscriber from %s: %d, HTTP %d %s\n", from, rc, c.http_code,
                c.http_body ? c.http_body : "");
    ws_client_close(&c);
    return ok;
}

/* Beyond --ws-max-subscribers-per-client a subscriber gets 429 with a Status before the upgrade, and
 * beyond --ws-max-subscribers 503; refused again and again, the log stays small; the subscribers
 * admitted keep receiving, and /healthz answers. */
static void websocket_subscribers_beyond_the_caps_are_refused_before_the_upgrade(void)
{
    struct test_server s;
    const char *args[] = {"--ws-max-subscribers", "3", "--ws-max-subscribers-per-client", "2", NULL};
    REQUIRE(server_start(&s, NULL, args) == 0);
    const char *url = server_ws_url(&s);
    REQUIRE(url[0]);
    struct ws_client subs[3];
    REQUIRE(subscribe_from(&subs[0], url, "127.0.0.30") == 0);
    REQUIRE(subscribe_from(&subs[1], url, "127.0.0.30") == 0);
    CHECK(refused_with(url, "127.0.0.30", 429, "\"reason\":\"TooManyRequests\"", "--ws-max-subscribers-per-client"));
    REQUIRE(subscribe_from(&subs[2], url, "127.0.0.31") == 0);
    CHECK(refused_with(url, "127.0.0.32", 503, "\"reason\":\"ServiceUnavailable\"", "--ws-max-subscribers 3"));

    long log_before = log_size(&s);
    int refused = 0;
    for (int i = 0; i < 200; i++)
        refused += refused_with(url, i % 2 ? "127.0.0.30" : "127.0.0.33", i % 2 ? 429 : 503, "\"code\"", "--ws-max");
    CHECK_INT(refused, 200);
    long grew = log_size(&s) - log_before;
    fprintf(stderr, "# 200 refused subscribers grew the log by %ld bytes\n", grew);
    CHECK(grew < 2000); /* a line for each kind, not one a refusal */

    CHECK(make_queue(&s, "ws-cap-one"));
    for (int i = 0; i < 3; i++)
        CHECK(receives(&subs[i], "ws-cap-one", 10000));
    double ms;
    CHECK_INT(fresh_healthz(raw_port_of(s.url), &ms), 200);

    /* A subscriber that leaves frees its place. */
    ws_client_close(&subs[0]);
    bool admitted = false;
    for (int i = 0; i < 20 && !admitted; i++) {
        usleep(100 * 1000);
        admitted = subscribe_from(&subs[0], url, "127.0.0.30") == 0;
        if (!admitted)
            ws_client_close(&subs[0]);
    }
    CHECK(admitted);
    for (int i = 0; i < 3; i++)
        ws_client_close(&subs[i]);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

/* A connection to the WebSocket port that sends half a handshake and trickles is closed at the
 * handshake deadline (--header-timeout). */
static void a_trickling_websocket_handshake_is_closed_at_the_deadline(void)
{
    struct test_server s;
    const char *args[] = {"--header-timeout", "1s", NULL};
    REQUIRE(server_start(&s, NULL, args) == 0);
    int fd = raw_connect("127.0.0.1", raw_port_of(server_ws_url(&s) + 5));
    REQUIRE(fd >= 0);
    int64_t took;
    char *reply = trickle_until_closed(fd, "GET /apis/caldera.io/v1/stream HTTP/1.1\r\nHost: x\r\n", &took);
    close(fd);
    CHECK(reply != NULL);
    CHECK(took >= 900 && took < 5000);
    free(reply);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

/* The CPU time (user and system) process pid has used, in seconds, or -1. */
static double cpu_seconds(pid_t pid)
{
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    text[n] = '\0';
    const char *p = strrchr(text, ')'); /* the name may hold spaces; the fields after it do not */
    unsigned long long utime = 0, stime = 0;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2)
        return -1;
    return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

/* Out of descriptors (its limit lowered to what it holds), with connections waiting to be accepted
 * on the port, the server neither spins on accept(2) nor logs each failure (libmicrohttpd's own loop
 * and libwebsockets' both did); once descriptors are back it accepts again. */
static void out_of_descriptors_with_connections_waiting_on(bool websocket)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, NULL) == 0);
    const char *url = server_ws_url(&s);
    int port = websocket ? raw_port_of(url) : raw_port_of(s.url);
    struct rlimit before, tight;
    REQUIRE(prlimit(s.pid, RLIMIT_NOFILE, NULL, &before) == 0);
    tight = before;
    tight.rlim_cur = (rlim_t)proc_open_fds(s.pid) + 4;
    REQUIRE(prlimit(s.pid, RLIMIT_NOFILE, &tight, NULL) == 0);

    int fds[40];
    for (int i = 0; i < 40; i++) /* a few are accepted, the rest wait in the listener's queue */
        fds[i] = raw_connect("127.0.0.40", port);
    usleep(300 * 1000);
    double cpu_before = cpu_seconds(s.pid);
    long log_before = log_size(&s);
    usleep(2000 * 1000);
    double cpu = cpu_seconds(s.pid) - cpu_before;
    long grew = log_size(&s) - log_before;
    fprintf(stderr, "# 2 s out of descriptors (%s): %.2f s of CPU, %ld bytes of log\n",
            websocket ? "WebSocket" : "HTTP", cpu, grew);
    CHECK(cpu_before >= 0 && cpu < 0.5); /* spinning takes a core */
    CHECK(grew < 4096);

    REQUIRE(prlimit(s.pid, RLIMIT_NOFILE, &before, NULL) == 0);
    for (int i = 0; i < 40; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    struct ws_client c;
    bool subscribed = false;
    for (int i = 0; i < 20 && !subscribed; i++) {
        subscribed = subscribe_from(&c, url, "127.0.0.41") == 0;
        ws_client_close(&c);
        if (!subscribed)
            usleep(100 * 1000);
    }
    CHECK(subscribed);
    double ms;
    CHECK_INT(fresh_healthz(raw_port_of(s.url), &ms), 200);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

static void at_the_descriptor_limit_the_http_listener_backs_off(void)
{
    out_of_descriptors_with_connections_waiting_on(false);
}

static void at_the_descriptor_limit_the_websocket_listener_backs_off(void)
{
    out_of_descriptors_with_connections_waiting_on(true);
}

TEST_MAIN(TEST_CASE(a_fresh_client_is_answered_while_2000_slow_connections_are_open),
          TEST_CASE(a_trickling_connection_is_closed_at_the_header_deadline),
          TEST_CASE(the_per_address_cap_refuses_the_next_connection_while_another_is_served),
          TEST_CASE(websocket_subscribers_beyond_the_caps_are_refused_before_the_upgrade),
          TEST_CASE(a_trickling_websocket_handshake_is_closed_at_the_deadline),
          TEST_CASE(at_the_descriptor_limit_the_http_listener_backs_off),
          TEST_CASE(at_the_descriptor_limit_the_websocket_listener_backs_off))
