/* The companions' proxy (gateway/proxy/), end to end on loopback: an in-process gateway (the real
 * hooks, routes and auth, tokens loaded from a database made here) with a stub resolver, in front of
 * a companion the test runs itself (tests/lib/proxy_upstream.c). Requests go through real sockets:
 * libcurl for HTTP, raw sockets for the WebSocket handshakes and frames. */
#include <curl/curl.h>
#include <openssl/evp.h>
#include <poll.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "adapters/objects/token.h"
#include "common/clock.h"
#include "common/sbuf.h"
#include "gateway/auth/auth.h"
#include "gateway/limits/limits.h"
#include "tests/lib/proxy_upstream.h"
#include "tests/lib/raw_socket.h"
#include "tests/lib/test.h"
#include "tests/lib/tmpdb.h"
#include "tests/lib/proc_stats.h"
#include "tests/lib/http_fetch.h"

#define ALICE "alice1.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" /* user of team-a */
#define BOB "bobbb1.bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"   /* user of team-b */
#define ROOT "admin1.cccccccccccccccccccccccccccccccc"  /* admin */
#define CORS_ORIGIN "https://ui.example.com"

/* Under ASan, freed blocks wait in a quarantine (256 MiB by default) before reuse, which a streamed
 * transfer's short-lived buffers (libcurl's while a transfer is paused) would fill and show as VmRSS:
 * kept small here, so the figure is the proxy's buffers, not the sanitizer's. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "quarantine_size_mb=4"; }

/* --- the fixture: a companion, a stub resolver, a gateway with tokens ----------------------------- */

static struct proxy_upstream up;
static struct proxy_stub stub;
static struct gateway gw;
static struct auth *auth;
static struct tmp_db db;
static struct cors_origins cors;

static void store_token(sqlite3 *h, const char *text, const char *user, enum token_role role, char **namespaces)
{
    struct token t = {.created_ms = clock_wall_ms(),
                      .spec = {.user = (char *)user, .namespaces = namespaces, .uid = -1, .gid = -1, .role = role}};
    memcpy(t.id, text, 6);
    unsigned int n;
    EVP_Digest(text, strlen(text), t.digest, &n, EVP_sha256(), NULL);
    char *json = token_to_store_json(&t);
    sqlite3_stmt *stmt;
    if (json && sqlite3_prepare_v2(h, "INSERT INTO objects(kind, namespace, name, json) VALUES ('Token', '', ?1, ?2)",
                                   -1, &stmt, NULL) == SQLITE_OK) {
        sqlite3_bind_text(stmt, 1, t.id, -1, SQLITE_STATIC);
        sqlite3_bind_text(stmt, 2, json, -1, SQLITE_STATIC);
        CHECK_INT(sqlite3_step(stmt), SQLITE_DONE);
        sqlite3_finalize(stmt);
    }
    free(json);
}

/* Starts everything; with_auth: --auth with the three tokens, else no authentication at all. */
static bool start(bool with_auth)
{
    memset(&up, 0, sizeof up);
    if (proxy_upstream_start(&up) != 0)
        return false;
    proxy_stub_init(&stub, up.port);
    auth = NULL;
    if (with_auth) {
        char err[256];
        sqlite3 *h;
        if (!tmp_db_make(&db) || !(h = tmp_db_open_schema(&db)))
            return false;
        char *team_a[] = {"team-a", NULL}, *team_b[] = {"team-b", NULL}, *every[] = {"*", NULL};
        store_token(h, ALICE, "alice", TOKEN_ROLE_USER, team_a);
        store_token(h, BOB, "bob", TOKEN_ROLE_USER, team_b);
        store_token(h, ROOT, "admin", TOKEN_ROLE_ADMIN, every);
        sqlite3_close(h);
        const struct auth_config cfg = {.required = true};
        if (auth_new(&cfg, &auth, err, sizeof err) != 0 || auth_load(auth, db.path, err, sizeof err) != 0) {
            fprintf(stderr, "# %s\n", err);
            return false;
        }
    }
    memset(&cors, 0, sizeof cors);
    cors_origins_add(&cors, CORS_ORIGIN);
    return proxy_gateway_start(&gw, &stub, auth, &cors) == 0;
}

static void finish(void)
{
    http_stop(&gw);
    proxy_upstream_stop(&up);
    if (auth) {
        auth_free(auth);
        tmp_db_remove(&db);
    }
    cors_origins_free(&cors);
}

/* --- an HTTP client ------------------------------------------------------------------------------ */

/* method path (under gw.url) with extra headers (NULL-terminated) and body (NULL: none). */
static struct http_answer request(const char *method, const char *path, const char *const *headers, const char *body)
{
    char url[4096];
    snprintf(url, sizeof url, "%s%s", gw.url, path);
    return http_fetch(method, url, headers, body);
}

static const char *body_of(const struct http_answer *a) { return sbuf_str(&a->body); }

/* --- HTTP ---------------------------------------------------------------------------------------- */

static void requests_are_forwarded_with_the_secret_and_without_the_client_s(void)
{
    REQUIRE(start(true));
    const char *h[] = {"Authorization: Bearer " ALICE, "Cookie: caldera_proxy=" ALICE "; theirs=1",
                       "Content-Type: application/json", "Host: gw.example:1234", NULL};
    struct http_answer a = request("POST", "/proxy/team-a/nb/echo/x%20y?a=1&b=two%2F", h, "{\"cells\":[1,2]}");
    CHECK_INT(a.code, 200);
    const char *b = body_of(&a);
    CHECK_CONTAINS(b, "method=POST\n");
    CHECK_CONTAINS(b, "path=/proxy/team-a/nb/echo/x%20y\n");
    CHECK_CONTAINS(b, "query=a=1&b=two%2F\n");
    CHECK_CONTAINS(b, "H:Authorization: token " PROXY_STUB_SECRET "\n");
    CHECK_CONTAINS(b, "H:X-Companion: team-a-ns\n");
    CHECK(!strstr(b, ALICE)); /* neither the bearer token nor the cookie reach the companion */
    CHECK_CONTAINS(b, "H:Cookie: theirs=1\n");
    CHECK_CONTAINS(b, "H:Host: gw.example:1234\n");
    CHECK_CONTAINS(b, "H:X-Forwarded-Host: gw.example:1234\n");
    CHECK_CONTAINS(b, "H:X-Forwarded-Proto: http\n");
    CHECK_CONTAINS(b, "H:X-Forwarded-For: 127.0.0.1\n");
    CHECK_CONTAINS(b, "H:X-Forwarded-Prefix: /proxy/team-a/nb\n");
    CHECK_CONTAINS(b, "H:Content-Type: application/json\n");
    CHECK_CONTAINS(b, "bodylen=15\nbody={\"cells\":[1,2]}");
    const char *head = sbuf_str(&a.head);
    CHECK_CONTAINS(head, "X-Upstream: yes");
    CHECK_CONTAINS(head, "Set-Cookie: upstream=1");
    CHECK(!strstr(head, PROXY_STUB_SECRET));
    http_answer_free(&a);

    /* strip_prefix: the companion sees the rest; its Location comes back under the prefix. */
    const char *admin[] = {"Authorization: Bearer " ROOT, NULL};
    a = request("GET", "/proxy/team-b/strip/echo?token=" ALICE "&q=1", admin, NULL);
    CHECK_INT(a.code, 200);
    CHECK_CONTAINS(body_of(&a), "path=/echo\nquery=q=1\n"); /* a token= never reaches the companion */
    http_answer_free(&a);
    a = request("GET", "/proxy/team-b/strip/goto", admin, NULL);
    CHECK_INT(a.code, 302);
    CHECK_CONTAINS(sbuf_str(&a.head), "Location: /proxy/team-b/strip/elsewhere");
    http_answer_free(&a);
    a = request("PUT", "/proxy/team-a/nb/echo", admin, "");
    CHECK_INT(a.code, 200);
    CHECK_CONTAINS(body_of(&a), "method=PUT\n");
    http_answer_free(&a);
    a = request("GET", "/proxy/team-a/nb", admin, NULL); /* the companion's pages are under .../nb/ */
    CHECK_INT(a.code, 302);
    CHECK_CONTAINS(sbuf_str(&a.head), "Location: /proxy/team-a/nb/");
    http_answer_free(&a);
    CHECK(proxy_stub_touched(&stub) >= 1);
    pthread_mutex_lock(&stub.mu);
    CHECK(strcmp(stub.touched_name, "nb") == 0 || strcmp(stub.touched_name, "strip") == 0);
    pthread_mutex_unlock(&stub.mu);
    finish();
}

/* A body of n bytes from the pattern, sent with its length or chunked: it reaches the companion whole. */
static void bodies_stream_to_the_companion(void)
{
    REQUIRE(start(false));
    size_t n = 900 * 1024;
    char *data = malloc(n + 1);
    REQUIRE(data);
    for (size_t i = 0; i < n; i++)
        data[i] = (char)('a' + proxy_upstream_byte(i) % 26);
    data[n] = '\0';
    const char *plain[] = {"Content-Type: application/octet-stream", NULL};
    const char *chunked[] = {"Content-Type: application/octet-stream", "Transfer-Encoding: chunked", NULL};
    for (int k = 0; k < 2; k++) {
        struct http_answer a = request(k ? "PUT" : "POST", "/proxy/team-a/nb/echo", k ? chunked : plain, data);
        CHECK_INT(a.code, 200);
        char want[64];
        snprintf(want, sizeof want, "bodylen=%zu\nbody=", n);
        const char *b = body_of(&a), *at = strstr(b, want);
        CHECK(at != NULL);
        CHECK(at && strlen(at + strlen(want)) == n && memcmp(at + strlen(want), data, n) == 0);
        if (k)
            CHECK_CONTAINS(b, "H:Transfer-Encoding: chunked\n");
        else
            CHECK_CONTAINS(b, "H:Content-Length: 921600\n");
        http_answer_free(&a);
    }
    /* Over --max-body-bytes (1 MiB here): 413, as anywhere else. */
    char *big = malloc((2u << 20) + 1);
    REQUIRE(big);
    memset(big, 'x', 2u << 20);
    big[2u << 20] = '\0';
    struct http_answer a = request("POST", "/proxy/team-a/nb/echo", plain, big);
    CHECK_INT(a.code, 413);
    http_answer_free(&a);
    a = request("POST", "/proxy/team-a/nb/echo", chunked, big);
    CHECK_INT(a.code, 413);
    http_answer_free(&a);
    free(big);
    free(data);
    finish();
}

static void unknown_unready_and_unreachable_companions(void)
{
    REQUIRE(start(true));
    const char *h[] = {"Authorization: Bearer " ALICE, NULL};
    struct http_answer a = request("GET", "/proxy/team-a/nope/", h, NULL);
    CHECK_INT(a.code, 404);
    CHECK_CONTAINS(body_of(&a), "\"kind\":\"Status\"");
    CHECK_CONTAINS(body_of(&a), "\"reason\":\"NotFound\"");
    http_answer_free(&a);
    a = request("GET", "/proxy/team-a/pending/", h, NULL);
    CHECK_INT(a.code, 503);
    CHECK_CONTAINS(body_of(&a), "Pending");
    http_answer_free(&a);
    a = request("GET", "/proxy/team-a/dead/", h, NULL);
    CHECK_INT(a.code, 502);
    CHECK_CONTAINS(body_of(&a), "\"kind\":\"Status\"");
    CHECK_CONTAINS(body_of(&a), "cannot reach the companion");
    http_answer_free(&a);
    a = request("GET", "/proxy/team-a/", h, NULL);
    CHECK_INT(a.code, 404);
    http_answer_free(&a);
    finish();

    /* No resolver: /proxy/ is not there. */
    REQUIRE(start(false));
    gw.proxy = NULL;
    a = request("GET", "/proxy/team-a/nb/echo", NULL, NULL);
    CHECK_INT(a.code, 404);
    http_answer_free(&a);
    finish();
}

static void only_the_namespace_s_users_and_admins_get_through(void)
{
    REQUIRE(start(true));
    struct http_answer a = request("GET", "/proxy/team-a/nb/echo", NULL, NULL);
    CHECK_INT(a.code, 401);
    CHECK_CONTAINS(body_of(&a), "\"kind\":\"Status\"");
    http_answer_free(&a);
    const char *bob[] = {"Authorization: Bearer " BOB, NULL};
    a = request("GET", "/proxy/team-a/nb/echo", bob, NULL);
    CHECK_INT(a.code, 403);
    CHECK_CONTAINS(body_of(&a), "\"reason\":\"Forbidden\"");
    http_answer_free(&a);
    a = request("GET", "/proxy/team-a/nope/echo", bob, NULL); /* whether it exists is not told either */
    CHECK_INT(a.code, 403);
    http_answer_free(&a);
    const char *bad[] = {"Authorization: Bearer alice1.zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", NULL};
    a = request("GET", "/proxy/team-a/nb/echo", bad, NULL);
    CHECK_INT(a.code, 401);
    http_answer_free(&a);
    a = request("GET", "/proxy/team-a/nb/echo?token=" BOB, NULL, NULL);
    CHECK_INT(a.code, 403);
    CHECK(!strstr(sbuf_str(&a.head), "Set-Cookie"));
    http_answer_free(&a);
    const char *root[] = {"Authorization: Bearer " ROOT, NULL};
    a = request("GET", "/proxy/team-a/nb/echo", root, NULL);
    CHECK_INT(a.code, 200);
    http_answer_free(&a);
    finish();

    /* Without --auth the anonymous loopback admin passes, as for every other path. */
    REQUIRE(start(false));
    a = request("GET", "/proxy/team-a/nb/echo", NULL, NULL);
    CHECK_INT(a.code, 200);
    http_answer_free(&a);
    finish();
}

static void a_token_in_the_query_sets_the_cookie_which_then_works(void)
{
    REQUIRE(start(true));
    struct http_answer a = request("GET", "/proxy/team-a/nb/tree?x=1&token=" ALICE, NULL, NULL);
    CHECK_INT(a.code, 302);
    const char *head = sbuf_str(&a.head);
    CHECK_CONTAINS(head, "Location: /proxy/team-a/nb/tree?x=1\r\n");
    CHECK_CONTAINS(head, "Set-Cookie: caldera_proxy=" ALICE);
    CHECK_CONTAINS(head, "HttpOnly");
    CHECK_CONTAINS(head, "SameSite=Strict");
    CHECK_CONTAINS(head, "Path=/proxy/team-a/nb/");
    http_answer_free(&a);
    const char *cookie[] = {"Cookie: caldera_proxy=" ALICE, "Host: gw.example", NULL};
    a = request("GET", "/proxy/team-a/nb/echo", cookie, NULL);
    CHECK_INT(a.code, 200);
    CHECK(!strstr(body_of(&a), ALICE));
    CHECK(!strstr(body_of(&a), "H:Cookie:"));
    http_answer_free(&a);
    /* A write with ?token= goes on (a redirect would lose its body), without the token. */
    a = request("POST", "/proxy/team-a/nb/echo?token=" ALICE "&k=v", NULL, "x");
    CHECK_INT(a.code, 200);
    CHECK_CONTAINS(body_of(&a), "query=k=v\n");
    CHECK(!strstr(body_of(&a), ALICE));
    http_answer_free(&a);
    const char *wrong_ns[] = {"Cookie: caldera_proxy=" BOB, NULL};
    a = request("GET", "/proxy/team-a/nb/echo", wrong_ns, NULL);
    CHECK_INT(a.code, 403);
    http_answer_free(&a);

    /* Unsafe methods carried by the cookie: from this server's pages yes, from another site no. */
    const char *same[] = {"Cookie: caldera_proxy=" ALICE, "Host: gw.example", "Origin: http://gw.example", NULL};
    a = request("POST", "/proxy/team-a/nb/echo", same, "x");
    CHECK_INT(a.code, 200);
    http_answer_free(&a);
    const char *cross[] = {"Cookie: caldera_proxy=" ALICE, "Host: gw.example", "Origin: http://evil.example", NULL};
    a = request("POST", "/proxy/team-a/nb/echo", cross, "x");
    CHECK_INT(a.code, 403);
    CHECK_CONTAINS(body_of(&a), "another site");
    http_answer_free(&a);
    const char *cross_ref[] = {"Cookie: caldera_proxy=" ALICE, "Host: gw.example", "Referer: http://evil.example/page",
                               NULL};
    a = request("DELETE", "/proxy/team-a/nb/echo", cross_ref, NULL);
    CHECK_INT(a.code, 403);
    http_answer_free(&a);
    const char *listed[] = {"Cookie: caldera_proxy=" ALICE, "Host: gw.example", "Origin: " CORS_ORIGIN, NULL};
    a = request("PATCH", "/proxy/team-a/nb/echo", listed, "x");
    CHECK_INT(a.code, 200);
    http_answer_free(&a);
    /* A bearer token is no ambient credential: another Origin does not matter. */
    const char *bearer[] = {"Authorization: Bearer " ALICE, "Host: gw.example", "Origin: http://evil.example", NULL};
    a = request("POST", "/proxy/team-a/nb/echo", bearer, "x");
    CHECK_INT(a.code, 200);
    http_answer_free(&a);
    finish();
}

/* --- WebSocket ----------------------------------------------------------------------------------- */

#define WS_KEY "dGhlIHNhbXBsZSBub25jZQ=="

/* Sends an upgrade request and reads the answer's head (up to CRLFCRLF) into head. Returns the
 * socket, or -1. */
static int ws_handshake(const char *path, const char *extra_headers, char *head, size_t cap)
{
    int fd = raw_connect(NULL, raw_port_of(gw.url));
    if (fd < 0)
        return -1;
    char req[2048];
    snprintf(req, sizeof req,
             "GET %s HTTP/1.1\r\nHost: gw.example\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             "Sec-WebSocket-Key: " WS_KEY
             "\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: v1.kernel\r\n%s\r\n",
             path, extra_headers);
    if (!raw_send_text(fd, req)) {
        close(fd);
        return -1;
    }
    size_t len = 0;
    head[0] = '\0';
    for (int64_t deadline = clock_mono_ms() + 5000; !strstr(head, "\r\n\r\n") && clock_mono_ms() < deadline;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 100) <= 0)
            continue;
        ssize_t n = read(fd, head + len, 1); /* byte by byte: nothing past the head is taken */
        if (n <= 0)
            break;
        head[++len] = '\0';
        if (len + 1 >= cap)
            break;
    }
    return fd;
}

/* Reads exactly len bytes within timeout_ms. */
static bool read_exactly(int fd, char *buf, size_t len, int timeout_ms)
{
    size_t got = 0;
    for (int64_t deadline = clock_mono_ms() + timeout_ms; got < len && clock_mono_ms() < deadline;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 100) <= 0)
            continue;
        ssize_t n = read(fd, buf + got, len - got);
        if (n <= 0)
            return false;
        got += (size_t)n;
    }
    return got == len;
}

static void websockets_are_tunnelled_and_cross_site_ones_refused(void)
{
    usleep(1100 * 1000); /* the cases before touched "nb" in the last second */
    REQUIRE(start(true));
    char head[4096], accept[64];
    proxy_ws_accept(WS_KEY, accept);
    int before = proxy_stub_touched(&stub);
    int fd = ws_handshake("/proxy/team-a/nb/api/kernels/1/ws?session=9",
                          "Authorization: Bearer " ALICE "\r\nOrigin: http://gw.example\r\n", head, sizeof head);
    REQUIRE(fd >= 0);
    CHECK_CONTAINS(head, "HTTP/1.1 101");
    CHECK_CONTAINS(head, accept);
    CHECK_CONTAINS(head, "v1.kernel");
    /* A masked text frame "hello" and 40 KiB of bytes: the companion echoes them raw. */
    const unsigned char frame[] = {0x81, 0x85, 1, 2, 3, 4, 'h' ^ 1, 'e' ^ 2, 'l' ^ 3, 'l' ^ 4, 'o' ^ 1};
    REQUIRE(raw_send_all(fd, frame, sizeof frame));
    char back[sizeof frame];
    CHECK(read_exactly(fd, back, sizeof frame, 5000) && memcmp(back, frame, sizeof frame) == 0);
    size_t big = 40 * 1024;
    char *out = malloc(big), *in = malloc(big);
    REQUIRE(out && in);
    for (size_t i = 0; i < big; i++)
        out[i] = (char)(i * 7);
    CHECK(raw_send_all(fd, out, big));
    CHECK(read_exactly(fd, in, big, 10000) && memcmp(in, out, big) == 0);
    free(out);
    free(in);
    CHECK(proxy_stub_touched(&stub) > before);
    /* Activity over the upgraded connection after a second is reported again. */
    int mid = proxy_stub_touched(&stub);
    usleep(1100 * 1000);
    CHECK(raw_send_all(fd, frame, sizeof frame));
    CHECK(read_exactly(fd, back, sizeof frame, 5000));
    CHECK(proxy_stub_touched(&stub) > mid);
    close(fd);

    /* From another origin: refused before anything reaches the companion; a --cors origin passes. */
    fd = ws_handshake("/proxy/team-a/nb/ws", "Authorization: Bearer " ALICE "\r\nOrigin: http://evil.example\r\n", head,
                      sizeof head);
    REQUIRE(fd >= 0);
    CHECK_CONTAINS(head, "HTTP/1.1 403");
    close(fd);
    fd = ws_handshake("/proxy/team-a/nb/ws", "Cookie: caldera_proxy=" ALICE "\r\nOrigin: " CORS_ORIGIN "\r\n", head,
                      sizeof head);
    REQUIRE(fd >= 0);
    CHECK_CONTAINS(head, "HTTP/1.1 101");
    close(fd);
    fd = ws_handshake("/proxy/team-a/nb/ws", "Authorization: Bearer " BOB "\r\n", head, sizeof head);
    REQUIRE(fd >= 0);
    CHECK_CONTAINS(head, "HTTP/1.1 403");
    close(fd);
    fd = ws_handshake("/proxy/team-a/dead/ws", "Authorization: Bearer " ALICE "\r\n", head, sizeof head);
    REQUIRE(fd >= 0);
    CHECK_CONTAINS(head, "HTTP/1.1 502");
    close(fd);

    /* The server stops with a tunnel open: the tunnel ends, the stop is bounded. */
    fd = ws_handshake("/proxy/team-a/nb/ws", "Authorization: Bearer " ALICE "\r\n", head, sizeof head);
    REQUIRE(fd >= 0);
    CHECK_CONTAINS(head, "HTTP/1.1 101");
    int64_t t0 = clock_mono_ms();
    finish();
    CHECK(clock_mono_ms() - t0 < 5000);
    close(fd);
}

/* --- streaming ----------------------------------------------------------------------------------- */

struct sink {
    uint64_t n;
    uint64_t mismatches;
    long rss_max_kb;
};

static size_t check_bytes(char *data, size_t size, size_t n, void *ctx)
{
    struct sink *s = ctx;
    for (size_t i = 0; i < size * n; i++)
        if ((unsigned char)data[i] != proxy_upstream_byte(s->n + i))
            s->mismatches++;
    s->n += size * n;
    if ((s->n & ((8u << 20) - 1)) < size * n) { /* about every 8 MiB */
        long kb = proc_status_kib(getpid(), "VmRSS");
        if (kb > s->rss_max_kb)
            s->rss_max_kb = kb;
    }
    return size * n;
}

static void a_100_mib_download_streams_in_bounded_memory(void)
{
    REQUIRE(start(false));
    /* A first small request warms what stays (threads, curl's first allocations). */
    struct http_answer a = request("GET", "/proxy/team-a/nb/echo", NULL, NULL);
    CHECK_INT(a.code, 200);
    http_answer_free(&a);
    char url[256];
    snprintf(url, sizeof url, "%s/proxy/team-a/nb/big", gw.url);
    struct sink s = {0};
    long before = proc_status_kib(getpid(), "VmRSS");
    CURL *e = curl_easy_init();
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_PROXY, "");
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, check_bytes);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(e, CURLOPT_TIMEOUT, 120L);
    curl_easy_setopt(e, CURLOPT_MAX_RECV_SPEED_LARGE, (curl_off_t)0); /* as fast as it goes */
    CHECK_INT(curl_easy_perform(e), CURLE_OK);
    long code = 0;
    curl_off_t length = -1;
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_getinfo(e, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
    curl_easy_cleanup(e);
    CHECK_INT(code, 200);
    CHECK_INT(length, (long long)up.big_size); /* the companion's Content-Length is kept */
    CHECK_INT(s.n, (long long)up.big_size);
    CHECK_INT(s.mismatches, 0);
    fprintf(stderr, "# VmRSS %ld kB before, at most %ld kB during the download\n", before, s.rss_max_kb);
    CHECK(s.rss_max_kb - before < 16 * 1024);

    /* A slow client: the companion is paused, not buffered (a client that reads 4 MiB, then waits). */
    int fd = raw_connect(NULL, raw_port_of(gw.url));
    REQUIRE(fd >= 0);
    REQUIRE(raw_send_text(fd, "GET /proxy/team-a/nb/big HTTP/1.1\r\nHost: x\r\n\r\n"));
    char *buf = malloc(1 << 20);
    size_t got = 0;
    while (got < (4u << 20) && read_exactly(fd, buf, 1 << 20, 10000))
        got += 1 << 20;
    long slow_before = proc_status_kib(getpid(), "VmRSS");
    usleep(1500 * 1000);
    long slow_after = proc_status_kib(getpid(), "VmRSS");
    fprintf(stderr, "# a slow client: VmRSS %ld kB, then %ld kB 1.5 s later\n", slow_before, slow_after);
    CHECK(slow_after - slow_before < 8 * 1024);
    free(buf);
    close(fd);
    finish();
}

struct source {
    uint64_t sent, size;
    long rss_max_kb;
};

static size_t produce(char *buf, size_t size, size_t n, void *ctx)
{
    struct source *s = ctx;
    size_t k = size * n < s->size - s->sent ? size * n : (size_t)(s->size - s->sent);
    memset(buf, 'u', k);
    s->sent += k;
    if ((s->sent & ((8u << 20) - 1)) < k) {
        long kb = proc_status_kib(getpid(), "VmRSS");
        if (kb > s->rss_max_kb)
            s->rss_max_kb = kb;
    }
    return k;
}

static void a_64_mib_upload_streams_in_bounded_memory(void)
{
    REQUIRE(start(false));
    gw.body_limit = 256u << 20;
    struct http_answer a = request("POST", "/proxy/team-a/nb/count", NULL, "warm");
    CHECK_INT(a.code, 200);
    http_answer_free(&a);
    for (int chunked = 0; chunked < 2; chunked++) {
        struct source src = {.size = 64u << 20};
        struct sbuf got = {0};
        char url[256];
        snprintf(url, sizeof url, "%s/proxy/team-a/nb/count", gw.url);
        long before = proc_status_kib(getpid(), "VmRSS");
        CURL *e = curl_easy_init();
        struct curl_slist *h = curl_slist_append(NULL, "Expect:");
        curl_easy_setopt(e, CURLOPT_URL, url);
        curl_easy_setopt(e, CURLOPT_PROXY, "");
        curl_easy_setopt(e, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, "POST");
        curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
        curl_easy_setopt(e, CURLOPT_READFUNCTION, produce);
        curl_easy_setopt(e, CURLOPT_READDATA, &src);
        curl_easy_setopt(e, CURLOPT_INFILESIZE_LARGE, (curl_off_t)(chunked ? -1 : (curl_off_t)src.size));
        curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, http_into_sbuf);
        curl_easy_setopt(e, CURLOPT_WRITEDATA, &got);
        curl_easy_setopt(e, CURLOPT_TIMEOUT, 120L);
        CHECK_INT(curl_easy_perform(e), CURLE_OK);
        long code = 0;
        curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code);
        curl_easy_cleanup(e);
        curl_slist_free_all(h);
        CHECK_INT(code, 200);
        CHECK_STR(sbuf_str(&got), "counted=67108864\n");
        fprintf(stderr, "# upload (%s): VmRSS %ld kB before, at most %ld kB during\n",
                chunked ? "chunked" : "Content-Length", before, src.rss_max_kb);
        CHECK(src.rss_max_kb - before < 16 * 1024);
        sbuf_free(&got);
    }
    finish();
}

TEST_MAIN(TEST_CASE(requests_are_forwarded_with_the_secret_and_without_the_client_s),
          TEST_CASE(bodies_stream_to_the_companion), TEST_CASE(unknown_unready_and_unreachable_companions),
          TEST_CASE(only_the_namespace_s_users_and_admins_get_through),
          TEST_CASE(a_token_in_the_query_sets_the_cookie_which_then_works),
          TEST_CASE(websockets_are_tunnelled_and_cross_site_ones_refused),
          TEST_CASE(a_100_mib_download_streams_in_bounded_memory), TEST_CASE(a_64_mib_upload_streams_in_bounded_memory))
