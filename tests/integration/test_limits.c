/* Integration tests of the gateway's limits on real servers: 413 for bodies over --max-body-bytes
 * (declared or chunked) with the server still serving, 429 with Retry-After per client key under
 * --rate-limit, slow clients dropped after --client-timeout, CORS only for --cors-origin, and an
 * answer for every malformed request (bad percent-encodings, transfer codings, huge chunks, too many
 * query parameters, URLs and headers larger than a connection's memory). */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/sbuf.h"
#include "tests/lib/raw_socket.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define JOBS "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs"
#define QUEUES "/apis/scheduling.volcano.sh/v1beta1/queues"
#define BODY_LIMIT 65536

/* --- HTTP with the answer's headers ------------------------------------------------------- */

struct answer {
    long code;    /* 0: no answer */
    json_t *json; /* the body when JSON */
    char retry_after[32];
    char allow_origin[128];
    char allow_methods[128];
    char allow_headers[128];
    char vary[64];
    int access_control; /* how many Access-Control-* headers came */
};

static size_t collect(char *data, size_t size, size_t nmemb, void *userp)
{
    sbuf_append(userp, data, size * nmemb);
    return size * nmemb;
}

static void header_value(CURL *c, const char *name, char *out, size_t len)
{
    struct curl_header *h = NULL;
    out[0] = '\0';
    if (curl_easy_header(c, name, 0, CURLH_HEADER, -1, &h) == CURLHE_OK)
        snprintf(out, len, "%s", h->value);
}

/* method path with extra headers ("Name: value", NULL-terminated; may be NULL) and a body (may be
 * NULL). The answer's fields the tests look at. */
static struct answer call(const struct test_server *s, const char *method, const char *path, const char *const *headers,
                          const char *body)
{
    struct answer a = {0};
    char url[512];
    snprintf(url, sizeof url, "%s%s", s->url, path);
    CURL *c = curl_easy_init();
    struct sbuf got = {0};
    struct curl_slist *list = curl_slist_append(NULL, "Expect:");
    for (int i = 0; headers && headers[i]; i++)
        list = curl_slist_append(list, headers[i]);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &got);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 10000L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    if (body) {
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
    }
    if (curl_easy_perform(c) == CURLE_OK) {
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &a.code);
        a.json = json_loads(sbuf_str(&got), 0, NULL);
        header_value(c, "Retry-After", a.retry_after, sizeof a.retry_after);
        header_value(c, "Access-Control-Allow-Origin", a.allow_origin, sizeof a.allow_origin);
        header_value(c, "Access-Control-Allow-Methods", a.allow_methods, sizeof a.allow_methods);
        header_value(c, "Access-Control-Allow-Headers", a.allow_headers, sizeof a.allow_headers);
        header_value(c, "Vary", a.vary, sizeof a.vary);
        for (struct curl_header *h = NULL; (h = curl_easy_nextheader(c, CURLH_HEADER, -1, h));)
            a.access_control += strncasecmp(h->name, "Access-Control-", 15) == 0;
    }
    curl_slist_free_all(list);
    curl_easy_cleanup(c);
    sbuf_free(&got);
    return a;
}

static const char *status_field(const struct answer *a, const char *field)
{
    return json_string_value(json_object_get(a->json, field));
}

/* What curl will not do (trickle a body, stop mid-way) goes over tests/lib/raw_socket.h. */
static int connect_to(const struct test_server *s) { return raw_connect(NULL, raw_port_of(s->url)); }

static bool healthy(const struct test_server *s)
{
    struct answer a = call(s, "GET", "/healthz", NULL, NULL);
    json_decref(a.json);
    return a.code == 200;
}

/* --- the cases ------------------------------------------------------------------------------ */

/* A body over the limit is refused with a Status naming the limit, whether its length is declared
 * or it comes chunked; one under the limit is read; the server serves on. */
static void bodies_over_the_limit_get_413_and_the_server_serves_on(void)
{
    struct test_server s;
    const char *args[] = {"--max-body-bytes", "65536", NULL};
    REQUIRE(server_start(&s, NULL, args) == 0);

    char *big = malloc(BODY_LIMIT + 2);
    REQUIRE(big);
    memset(big, ' ', BODY_LIMIT + 1);
    big[BODY_LIMIT + 1] = '\0';
    const char *yaml[] = {"Content-Type: application/yaml", NULL};
    struct answer a = call(&s, "POST", JOBS, yaml, big);
    CHECK_INT(a.code, 413);
    CHECK_STR(status_field(&a, "reason"), "RequestEntityTooLarge");
    CHECK_CONTAINS(status_field(&a, "message"), "limit of 65536 bytes");
    json_decref(a.json);

    big[BODY_LIMIT - 10] = '\0'; /* under the limit: read, then found to hold no Job */
    a = call(&s, "POST", JOBS, yaml, big);
    CHECK(a.code == 400 || a.code == 422);
    json_decref(a.json);
    free(big);

    /* Chunked: no length to refuse at once; the server keeps none of it past the limit. */
    int fd = connect_to(&s);
    REQUIRE(fd >= 0);
    char head[256];
    snprintf(head, sizeof head,
             "POST " QUEUES
             " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
             "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
    CHECK(raw_send_all(fd, head, strlen(head)));
    char chunk[8192 + 16];
    int n = snprintf(chunk, sizeof chunk, "%x\r\n", 8192);
    memset(chunk + n, ' ', 8192);
    memcpy(chunk + n + 8192, "\r\n", 2);
    bool sent = true; /* the server answers once the body passes the limit, and may close before the end */
    for (int i = 0; sent && i < 2 * BODY_LIMIT / 8192; i++)
        sent = raw_send_all(fd, chunk, (size_t)n + 8192 + 2);
    if (sent)
        raw_send_all(fd, "0\r\n\r\n", 5);
    char *reply = raw_read_until_closed(fd, 5000);
    close(fd);
    CHECK(reply && strncmp(reply, "HTTP/1.1 413", 12) == 0);
    CHECK_CONTAINS(reply, "RequestEntityTooLarge");
    free(reply);

    CHECK(healthy(&s));
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

/* Over its rate a client gets 429 with Retry-After and a Status saying so, before its body is
 * read; another token, a separate client, is still served; without a token the address counts. */
static void a_client_over_its_rate_gets_429_while_another_is_served(void)
{
    struct test_server s;
    const char *args[] = {"--rate-limit", "1/m", "--rate-burst", "3", NULL}; /* no refill within the test */
    REQUIRE(server_start(&s, NULL, args) == 0);

    const char *alice[] = {"Authorization: Bearer alice-secret-token", NULL};
    const char *bob[] = {"Authorization: Bearer bob-secret-token", NULL};
    for (int i = 0; i < 3; i++) {
        struct answer a = call(&s, "GET", "/healthz", alice, NULL);
        CHECK_INT(a.code, 200);
        CHECK_STR(a.retry_after, "");
        json_decref(a.json);
    }
    struct answer a = call(&s, "GET", "/healthz", alice, NULL);
    CHECK_INT(a.code, 429);
    CHECK_STR(status_field(&a, "kind"), "Status");
    CHECK_STR(status_field(&a, "reason"), "TooManyRequests");
    CHECK_CONTAINS(status_field(&a, "message"), "bearer token");
    CHECK_CONTAINS(status_field(&a, "message"), "retry after");
    CHECK(atoi(a.retry_after) >= 1 && atoi(a.retry_after) <= 60);
    /* the Status says it too, as Kubernetes' does */
    CHECK_INT(json_integer_value(json_object_get(json_object_get(a.json, "details"), "retryAfterSeconds")),
              atoi(a.retry_after));
    char *text = json_dumps(a.json, 0);
    CHECK(text && !strstr(text, "alice-secret-token")); /* the token is never repeated */
    free(text);
    json_decref(a.json);
    a = call(&s, "POST", QUEUES, alice, "{\"apiVersion\":\"scheduling.volcano.sh/v1beta1\",\"kind\":\"Queue\"}");
    CHECK_INT(a.code, 429); /* refused before the body matters */
    json_decref(a.json);

    a = call(&s, "GET", "/healthz", bob, NULL);
    CHECK_INT(a.code, 200);
    json_decref(a.json);

    /* No token: the address is the client (server_start's own /healthz counted too). */
    int refused_at = 0;
    for (int i = 1; i <= 4 && !refused_at; i++) {
        a = call(&s, "GET", "/healthz", NULL, NULL);
        if (a.code == 429) {
            refused_at = i;
            CHECK_CONTAINS(status_field(&a, "message"), "127.0.0.1");
            CHECK(a.retry_after[0] != '\0');
        } else {
            CHECK_INT(a.code, 200);
        }
        json_decref(a.json);
    }
    CHECK(refused_at >= 1 && refused_at <= 3);
    a = call(&s, "GET", "/healthz", bob, NULL); /* bob still has one left */
    CHECK_INT(a.code, 200);
    json_decref(a.json);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

/* A client that stops half-way through its body, or trickles it a byte at a time, is dropped after
 * --client-timeout; the server serves on. */
static void slow_clients_are_dropped_after_the_timeout(void)
{
    struct test_server s;
    const char *args[] = {"--client-timeout", "1s", NULL};
    REQUIRE(server_start(&s, NULL, args) == 0);
    const char *head = "POST " QUEUES
                       " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                       "Content-Length: 1000\r\n\r\n{\"kind\":";

    int fd = connect_to(&s);
    REQUIRE(fd >= 0);
    int64_t start = clock_mono_ms();
    CHECK(raw_send_all(fd, head, strlen(head)));
    char *reply = raw_read_until_closed(fd, 5000); /* silent from here on */
    int64_t took = clock_mono_ms() - start;
    close(fd);
    CHECK(reply != NULL); /* closed, not left open */
    CHECK(took >= 900 && took < 5000);
    free(reply);

    fd = connect_to(&s);
    REQUIRE(fd >= 0);
    start = clock_mono_ms();
    CHECK(raw_send_all(fd, head, strlen(head)));
    bool closed = false;
    for (int i = 0; i < 20 && !closed; i++) { /* a byte every 250 ms: never idle for a second */
        reply = raw_read_until_closed(fd, 250);
        closed = reply != NULL || !raw_send_all(fd, " ", 1);
        free(reply);
    }
    took = clock_mono_ms() - start;
    close(fd);
    CHECK(closed);
    CHECK(took >= 900 && took < 5000);

    CHECK(healthy(&s));
    /* No --cors-origin: every preflight is from an origin not allowed. */
    const char *preflight[] = {"Origin: https://ui.example.com", "Access-Control-Request-Method: GET", NULL};
    struct answer a = call(&s, "OPTIONS", "/healthz", preflight, NULL);
    CHECK_INT(a.code, 403);
    CHECK_INT(a.access_control, 0);
    CHECK_STR(a.vary, "");
    json_decref(a.json);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

/* A configured origin gets its CORS headers and a working preflight; another origin gets no CORS
 * header at all, and 403 on a preflight. */
static void cors_answers_only_configured_origins(void)
{
    struct test_server s;
    const char *args[] = {"--cors-origin", "https://ui.example.com", "--cors-origin", "http://localhost:3000", NULL};
    REQUIRE(server_start(&s, NULL, args) == 0);

    const char *ui[] = {"Origin: https://ui.example.com", NULL};
    struct answer a = call(&s, "GET", "/api/v1/nodes", ui, NULL);
    CHECK_INT(a.code, 200);
    CHECK_STR(a.allow_origin, "https://ui.example.com");
    CHECK_CONTAINS(a.vary, "Origin");
    json_decref(a.json);

    const char *local_preflight[] = {"Origin: http://localhost:3000", "Access-Control-Request-Method: POST",
                                     "Access-Control-Request-Headers: authorization, content-type", NULL};
    a = call(&s, "OPTIONS", JOBS, local_preflight, NULL);
    CHECK_INT(a.code, 204);
    CHECK_STR(a.allow_origin, "http://localhost:3000");
    CHECK_CONTAINS(a.allow_methods, "POST");
    CHECK_CONTAINS(a.allow_methods, "DELETE");
    CHECK_CONTAINS(a.allow_headers, "Authorization");
    CHECK_CONTAINS(a.allow_headers, "Content-Type");
    CHECK_CONTAINS(a.vary, "Origin");
    json_decref(a.json);

    const char *evil[] = {"Origin: https://ui.example.com.evil.net", NULL};
    a = call(&s, "GET", "/api/v1/nodes", evil, NULL);
    CHECK_INT(a.code, 200);
    CHECK_INT(a.access_control, 0);
    json_decref(a.json);
    const char *evil_preflight[] = {"Origin: https://ui.example.com.evil.net", "Access-Control-Request-Method: DELETE",
                                    NULL};
    a = call(&s, "OPTIONS", JOBS "/x", evil_preflight, NULL);
    CHECK_INT(a.code, 403);
    CHECK_STR(status_field(&a, "reason"), "Forbidden");
    CHECK_CONTAINS(status_field(&a, "message"), "https://ui.example.com.evil.net");
    CHECK_INT(a.access_control, 0);
    json_decref(a.json);

    a = call(&s, "GET", "/api/v1/nodes", NULL, NULL); /* no Origin: not a browser's cross-origin call */
    CHECK_INT(a.code, 200);
    CHECK_INT(a.access_control, 0);
    json_decref(a.json);
    a = call(&s, "OPTIONS", "/api/v1/nodes", NULL, NULL); /* no Origin: no preflight, no OPTIONS route */
    CHECK_INT(a.code, 405);
    json_decref(a.json);
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

/* --- every malformed request answered ------------------------------------------------------- */

/* Sends request on a fresh connection; what came back before the server closed (caller frees), NULL
 * when it stayed silent and open for timeout_ms. *took_ms (may be NULL) how long that took. */
static char *exchange(const struct test_server *s, const char *request, int timeout_ms, int64_t *took_ms)
{
    int fd = connect_to(s);
    if (fd < 0)
        return NULL;
    int64_t start = clock_mono_ms();
    raw_send_all(fd, request, strlen(request));
    char *reply = raw_read_until_closed(fd, timeout_ms);
    if (took_ms)
        *took_ms = clock_mono_ms() - start;
    close(fd);
    return reply;
}

static int reply_code(const char *reply) { return reply && strncmp(reply, "HTTP/1.1 ", 9) == 0 ? atoi(reply + 9) : 0; }

/* The Status in a raw answer's body, or NULL. */
static json_t *reply_status(const char *reply)
{
    const char *body = reply ? strstr(reply, "\r\n\r\n") : NULL;
    json_t *j = body ? json_loads(body + 4, 0, NULL) : NULL;
    if (j && !json_is_object(j)) {
        json_decref(j);
        j = NULL;
    }
    return j;
}

/* Each bad percent-encoding, in the path or a query parameter, gets 400 with a Status naming the
 * part of the URL, never 500 with an empty body; a well-formed encoded name is looked up as usual. */
static void bad_percent_encodings_get_400_naming_the_part(void)
{
    static const struct {
        const char *target;
        int code;
        const char *says, *also;
    } cases[] = {
        {JOBS "/%ff", 400, "path", "not UTF-8"},
        {JOBS "/%zz", 400, "path", "two hexadecimal digits"},
        {JOBS "/%f", 400, "path", "two hexadecimal digits"},
        {JOBS "/ab%C3%28", 400, "path", "not UTF-8"},
        {JOBS "/%ED%A0%80", 400, "path", "not UTF-8"}, /* an encoded surrogate */
        {JOBS "/a%00b", 400, "path", "NUL"},
        {JOBS "?labelSelector=%ff", 400, "query parameter \"labelSelector\"", "not UTF-8"},
        {JOBS "?limit=5&continue=%zz", 400, "query parameter \"continue\"", "two hexadecimal digits"},
        {JOBS "/%C3%A9t%C3%A9", 404, "\xc3\xa9t\xc3\xa9", "not found"},
    };
    struct test_server s;
    REQUIRE(server_start(&s, NULL, NULL) == 0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char request[512];
        snprintf(request, sizeof request, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", cases[i].target);
        char *reply = exchange(&s, request, 5000, NULL);
        json_t *st = reply_status(reply);
        const char *message = json_string_value(json_object_get(st, "message"));
        if (reply_code(reply) != cases[i].code || !json_is_integer(json_object_get(st, "code")) || !message ||
            !strstr(message, cases[i].says) || !strstr(message, cases[i].also))
            test_fail(__FILE__, __LINE__, "GET %s: %s", cases[i].target, reply ? reply : "(no answer)");
        if (cases[i].code == 400)
            CHECK_STR(json_string_value(json_object_get(st, "reason")), "BadRequest");
        json_decref(st);
        free(reply);
    }
    CHECK(healthy(&s));
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

/* A transfer coding other than chunked alone is refused with 400 at once (not read until the client
 * gives up); a chunk that declares 2^64-1 bytes is refused with 413 as soon as its data passes the
 * limit, and one that then stalls is dropped at the body's deadline; the server serves on. */
static void transfer_codings_and_huge_chunks_are_answered_at_once(void)
{
    struct test_server s;
    const char *args[] = {"--max-body-bytes", "65536", "--client-timeout", "2s", NULL};
    REQUIRE(server_start(&s, NULL, args) == 0);
    static const char *const codings[] = {
        "GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
        "POST " QUEUES " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip\r\n\r\nab",
        "POST " QUEUES
        " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: gzip, chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof codings / sizeof codings[0]; i++) {
        int64_t took = 0;
        char *reply = exchange(&s, codings[i], 5000, &took);
        json_t *st = reply_status(reply);
        if (reply_code(reply) != 400 || took > 1500)
            test_fail(__FILE__, __LINE__, "request %zu: after %lld ms: %s", i + 1, (long long)took,
                      reply ? reply : "(no answer)");
        CHECK_STR(json_string_value(json_object_get(st, "reason")), "BadRequest");
        CHECK_CONTAINS(json_string_value(json_object_get(st, "message")), "Transfer-Encoding");
        json_decref(st);
        free(reply);
    }

    /* 2^64-1 declared, then more data than the limit: 413 while the client is still sending. */
    int fd = connect_to(&s);
    REQUIRE(fd >= 0);
    const char *head = "POST " QUEUES
                       " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                       "Transfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n";
    int64_t start = clock_mono_ms();
    CHECK(raw_send_all(fd, head, strlen(head)));
    char data[8192];
    memset(data, ' ', sizeof data);
    for (int i = 0; i < 2 * BODY_LIMIT / (int)sizeof data && raw_send_all(fd, data, sizeof data); i++)
        ;
    char *reply = raw_read_until_closed(fd, 5000);
    int64_t took = clock_mono_ms() - start;
    close(fd);
    CHECK_INT(reply_code(reply), 413);
    CHECK_CONTAINS(reply, "RequestEntityTooLarge");
    CHECK(took < 1500);
    free(reply);

    /* 2^64-1 declared and three bytes sent: dropped at the body's deadline, not held for ever. */
    char stalled[512];
    snprintf(stalled, sizeof stalled, "%sabc", head);
    reply = exchange(&s, stalled, 10000, &took);
    CHECK(reply != NULL);
    CHECK(took >= 1500 && took < 6000);
    free(reply);

    CHECK(healthy(&s));
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

/* A query of 1,250 parameters gets 414 with a Status (it was closed without a word: each parameter
 * takes the connection's fixed memory); 100 are read; a URL or a header block larger than the
 * connection's memory gets 414 or 431 from libmicrohttpd; the server serves on. */
static void oversized_queries_urls_and_headers_are_answered(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, NULL) == 0);
    struct sbuf req = {0};
    sbuf_puts(&req, "GET /healthz?");
    for (int i = 0; i < 1250; i++)
        sbuf_printf(&req, "%sp%d=v%d", i ? "&" : "", i, i);
    sbuf_puts(&req, " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    char *reply = exchange(&s, sbuf_str(&req), 5000, NULL);
    json_t *st = reply_status(reply);
    CHECK_INT(reply_code(reply), 414);
    CHECK_STR(json_string_value(json_object_get(st, "reason")), "RequestURITooLong");
    CHECK_CONTAINS(json_string_value(json_object_get(st, "message")), "1250 parameters");
    json_decref(st);
    free(reply);
    sbuf_free(&req);

    sbuf_puts(&req, "GET " JOBS "?");
    for (int i = 0; i < 100; i++)
        sbuf_printf(&req, "%sp%d=v%d", i ? "&" : "", i, i);
    sbuf_puts(&req, "&limit=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    reply = exchange(&s, sbuf_str(&req), 5000, NULL);
    CHECK_INT(reply_code(reply), 414); /* 101: one over */
    free(reply);
    sbuf_free(&req);
    sbuf_puts(&req, "GET " JOBS "?");
    for (int i = 0; i < 99; i++)
        sbuf_printf(&req, "p%d=v%d&", i, i);
    sbuf_puts(&req, "limit=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    reply = exchange(&s, sbuf_str(&req), 5000, NULL);
    CHECK_INT(reply_code(reply), 200); /* 100: read */
    free(reply);
    sbuf_free(&req);

    sbuf_puts(&req, "GET /healthz?q=");
    for (int i = 0; i < 40000; i++)
        sbuf_puts(&req, "a");
    sbuf_puts(&req, " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    reply = exchange(&s, sbuf_str(&req), 5000, NULL);
    CHECK_INT(reply_code(reply), 414);
    free(reply);
    sbuf_free(&req);

    sbuf_puts(&req, "GET /healthz HTTP/1.1\r\nHost: x\r\n");
    for (int i = 0; i < 3000; i++)
        sbuf_printf(&req, "X-H%d: v\r\n", i);
    sbuf_puts(&req, "Connection: close\r\n\r\n");
    reply = exchange(&s, sbuf_str(&req), 5000, NULL);
    CHECK_INT(reply_code(reply), 431);
    free(reply);
    sbuf_free(&req);

    CHECK(healthy(&s));
    CHECK_INT(server_stop(&s), 0);
    server_cleanup(&s);
}

/* Wrong limit flags stop the start with a sentence naming the flag. */
static void bad_limit_flags_are_refused(void)
{
    static const struct {
        const char *flag, *value, *says;
    } cases[] = {
        {"--rate-limit", "fast", "--rate-limit"},
        {"--rate-burst", "5", "--rate-burst needs --rate-limit"},
        {"--client-timeout", "500ms", "--client-timeout"},
        {"--cors-origin", "*", "--cors-origin"},
        {"--cors-origin", "https://ui.example.com/", "no path"},
        {"--max-body-bytes", "12", "--max-body-bytes"},
        {"--header-timeout", "10ms", "--header-timeout"},
        {"--max-connections-per-client", "-1", "--max-connections-per-client"},
        {"--ws-max-subscribers", "0", "--ws-max-subscribers"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char dir[] = "/tmp/caldera-limits-XXXXXX";
        REQUIRE(mkdtemp(dir));
        const char *args[] = {cases[i].flag, cases[i].value, NULL};
        char *err = NULL;
        int rc = server_run_to_exit(dir, args, 10000, NULL, &err, NULL);
        if (rc != 2)
            test_fail(__FILE__, __LINE__, "%s %s: exit %d, expected 2", cases[i].flag, cases[i].value, rc);
        CHECK_CONTAINS(err, cases[i].says);
        free(err);
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        CHECK_INT(system(cmd), 0);
    }
}

TEST_MAIN(TEST_CASE(bodies_over_the_limit_get_413_and_the_server_serves_on),
          TEST_CASE(a_client_over_its_rate_gets_429_while_another_is_served),
          TEST_CASE(slow_clients_are_dropped_after_the_timeout), TEST_CASE(cors_answers_only_configured_origins),
          TEST_CASE(bad_percent_encodings_get_400_naming_the_part),
          TEST_CASE(transfer_codings_and_huge_chunks_are_answered_at_once),
          TEST_CASE(oversized_queries_urls_and_headers_are_answered), TEST_CASE(bad_limit_flags_are_refused))
