/* Unit tests of the gateway's limits on an explicit clock: token buckets per key (burst, refill,
 * Retry-After, keys apart, bounded memory), token keys that never hold the token, rate parsing,
 * which answers carry Retry-After, and CORS origin checks and exact matching. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "gateway/http/status.h"
#include "gateway/limits/limits.h"
#include "tests/lib/test.h"

#define SECOND 1000000000LL

static struct rate_key token_key(const struct rate_limiter *rl, const char *token)
{
    struct rate_key k;
    if (rate_key_token(rl, token, strlen(token), &k) != 0)
        test_fail(__FILE__, __LINE__, "cannot hash token %s", token);
    return k;
}

static struct rate_key ipv4_key(const char *addr)
{
    struct sockaddr_in sa = {.sin_family = AF_INET};
    inet_pton(AF_INET, addr, &sa.sin_addr);
    struct rate_key k;
    if (rate_key_address((const struct sockaddr *)&sa, &k) != 0)
        test_fail(__FILE__, __LINE__, "no key for %s", addr);
    return k;
}

/* A burst is served at once, the next request waits for the refill, and the wait is what
 * Retry-After says. */
static void a_burst_is_served_then_the_rate_holds(void)
{
    struct rate_limiter *rl;
    REQUIRE(rate_limiter_new(2, 5, &rl) == 0); /* 2 a second, 5 at once */
    struct rate_key k = token_key(rl, "alice-token");
    int64_t t = 100 * SECOND;
    for (int i = 0; i < 5; i++)
        CHECK_INT(rate_limiter_take(rl, &k, t), 0);
    CHECK_INT(rate_limiter_take(rl, &k, t), 1); /* half a second to the next token: said as 1 s */
    CHECK_INT(rate_limiter_take(rl, &k, t + SECOND / 4), 1);
    CHECK_INT(rate_limiter_take(rl, &k, t + SECOND / 2), 0); /* one token came back */
    CHECK_INT(rate_limiter_take(rl, &k, t + SECOND / 2), 1);
    CHECK_INT(rate_limiter_take(rl, &k, t + 10 * SECOND), 0); /* refilled, but never above the burst */
    for (int i = 0; i < 4; i++)
        CHECK_INT(rate_limiter_take(rl, &k, t + 10 * SECOND), 0);
    CHECK_INT(rate_limiter_take(rl, &k, t + 10 * SECOND), 1);
    rate_limiter_free(rl);

    REQUIRE(rate_limiter_new(0.1, 1, &rl) == 0); /* one request every 10 s */
    k = ipv4_key("10.0.0.1");
    CHECK_INT(rate_limiter_take(rl, &k, t), 0);
    CHECK_INT(rate_limiter_take(rl, &k, t), 10);
    CHECK_INT(rate_limiter_take(rl, &k, t + 7 * SECOND), 3);
    rate_limiter_free(rl);
}

/* One client at its limit does not hold back another, by token or by address; a token and an
 * address are different keys. */
static void keys_are_counted_apart(void)
{
    struct rate_limiter *rl;
    REQUIRE(rate_limiter_new(1, 2, &rl) == 0);
    struct rate_key alice = token_key(rl, "alice"), bob = token_key(rl, "bob"), a1 = ipv4_key("192.0.2.1"),
                    a2 = ipv4_key("192.0.2.2");
    int64_t t = SECOND;
    for (int i = 0; i < 2; i++) {
        CHECK_INT(rate_limiter_take(rl, &alice, t), 0);
        CHECK_INT(rate_limiter_take(rl, &a1, t), 0);
    }
    CHECK(rate_limiter_take(rl, &alice, t) > 0);
    CHECK(rate_limiter_take(rl, &a1, t) > 0);
    CHECK_INT(rate_limiter_take(rl, &bob, t), 0);
    CHECK_INT(rate_limiter_take(rl, &a2, t), 0);
    struct rate_key again = token_key(rl, "alice");
    CHECK(rate_limiter_take(rl, &again, t) > 0); /* the same token is the same client */
    rate_limiter_free(rl);
}

/* The key of a token is a hash: the token's bytes are nowhere in it, equal tokens give equal keys,
 * and an IPv4 address is its IPv4-mapped IPv6 form. */
static void token_keys_never_hold_the_token(void)
{
    struct rate_limiter *rl;
    REQUIRE(rate_limiter_new(1, 1, &rl) == 0);
    const char *secret = "s3cr3t-token-0123456789abcdef";
    struct rate_key k = token_key(rl, secret), same = token_key(rl, secret), other = token_key(rl, "s3cr3t-token-2");
    CHECK(memcmp(&k, &same, sizeof k) == 0);
    CHECK(memcmp(&k, &other, sizeof k) != 0);
    CHECK(memmem(&k, sizeof k, "s3cr", 4) == NULL);
    CHECK(memmem(&k, sizeof k, "0123", 4) == NULL);
    CHECK_INT(k.kind, 't');

    struct rate_key v4 = ipv4_key("127.0.0.1");
    struct sockaddr_in6 sa6 = {.sin6_family = AF_INET6};
    inet_pton(AF_INET6, "::ffff:127.0.0.1", &sa6.sin6_addr);
    struct rate_key v6;
    REQUIRE(rate_key_address((const struct sockaddr *)&sa6, &v6) == 0);
    CHECK(memcmp(&v4, &v6, sizeof v4) == 0);
    CHECK_INT(v4.kind, 'a');
    struct sockaddr unix_like = {.sa_family = AF_UNIX};
    CHECK_INT(rate_key_address(&unix_like, &v6), -1);
    rate_limiter_free(rl);
}

/* Far more clients than the table tracks: memory stays fixed, and a client at its limit is not
 * set free by others arriving (the table gives up full buckets first). */
static void many_clients_do_not_free_a_limited_one(void)
{
    struct rate_limiter *rl;
    REQUIRE(rate_limiter_new(1, 3, &rl) == 0);
    struct rate_key limited = ipv4_key("198.51.100.7");
    int64_t t = SECOND;
    for (int i = 0; i < 3; i++)
        CHECK_INT(rate_limiter_take(rl, &limited, t), 0);
    CHECK(rate_limiter_take(rl, &limited, t) > 0);
    for (int i = 0; i < 100000; i++) {
        char token[32];
        snprintf(token, sizeof token, "client-%d", i);
        struct rate_key k = token_key(rl, token);
        if (rate_limiter_take(rl, &k, t) != 0) {
            test_fail(__FILE__, __LINE__, "a new client %s was refused its first request", token);
            break;
        }
    }
    CHECK(rate_limiter_take(rl, &limited, t) > 0);
    rate_limiter_free(rl);
    CHECK_INT(rate_limiter_new(0, 1, &rl), -1); /* a zero rate is no limiter */
    CHECK_INT(rate_limiter_new(1, 0, &rl), -1);
}

static void rates_parse_per_second_or_minute(void)
{
    double r = -1;
    CHECK(rate_parse("50/s", &r) == 0 && r == 50);
    CHECK(rate_parse("20000", &r) == 0 && r == 20000);
    CHECK(rate_parse("0", &r) == 0 && r == 0);
    CHECK(rate_parse("0.5/s", &r) == 0 && r == 0.5);
    CHECK(rate_parse("600/m", &r) == 0 && r == 10);
    CHECK(rate_parse("120/min", &r) == 0 && r == 2);
    static const char *const bad[] = {"", "/s", "fast", "-1/s", "10/h", "10/s ", "inf", "nan", "1e9"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (rate_parse(bad[i], &r) == 0)
            test_fail(__FILE__, __LINE__, "rate \"%s\" was accepted", bad[i]);
}

/* 429 and 503 always carry Retry-After (1 s unless told), nothing else does. */
static void retry_after_is_on_429_and_503_only(void)
{
    CHECK_INT(retry_after_seconds(503, 0), 1);
    CHECK_INT(retry_after_seconds(429, 0), 1);
    CHECK_INT(retry_after_seconds(429, 7), 7);
    CHECK_INT(retry_after_seconds(503, 30), 30);
    static const int others[] = {200, 201, 204, 400, 403, 404, 413, 500, 502, 504, 507};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        CHECK_INT(retry_after_seconds(others[i], 5), 0);
}

static void cors_origins_are_exact(void)
{
    char err[300];
    static const char *const good[] = {"https://ui.example.com", "http://localhost:3000", "https://[::1]:8443"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        if (cors_origin_check(good[i], err, sizeof err) != 0)
            test_fail(__FILE__, __LINE__, "origin %s refused: %s", good[i], err);
    static const char *const bad[] = {"*",
                                      "ui.example.com",
                                      "https://",
                                      "https://ui.example.com/",
                                      "https://*.example.com",
                                      "https://a.com,https://b.com",
                                      "ftp://x.com"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (cors_origin_check(bad[i], err, sizeof err) == 0)
            test_fail(__FILE__, __LINE__, "origin %s accepted", bad[i]);
    CHECK(cors_origin_check("https://ui.example.com/app", err, sizeof err) == -1);
    CHECK_CONTAINS(err, "--cors-origin");
    CHECK_CONTAINS(err, "no path");

    struct cors_origins c = {0};
    CHECK(cors_origin_match(&c, "https://ui.example.com") == NULL);
    REQUIRE(cors_origins_add(&c, "https://ui.example.com") == 0);
    REQUIRE(cors_origins_add(&c, "http://localhost:3000") == 0);
    CHECK_STR(cors_origin_match(&c, "http://localhost:3000"), "http://localhost:3000");
    CHECK_STR(cors_origin_match(&c, "https://ui.example.com"), "https://ui.example.com");
    CHECK(cors_origin_match(&c, "https://ui.example.com.evil.net") == NULL);
    CHECK(cors_origin_match(&c, "http://ui.example.com") == NULL);
    CHECK(cors_origin_match(&c, "https://ui.example.co") == NULL);
    CHECK(cors_origin_match(&c, NULL) == NULL);
    cors_origins_free(&c);
    CHECK_INT(c.n, 0);
}

TEST_MAIN(TEST_CASE(a_burst_is_served_then_the_rate_holds), TEST_CASE(keys_are_counted_apart),
          TEST_CASE(token_keys_never_hold_the_token), TEST_CASE(many_clients_do_not_free_a_limited_one),
          TEST_CASE(rates_parse_per_second_or_minute), TEST_CASE(retry_after_is_on_429_and_503_only),
          TEST_CASE(cors_origins_are_exact))
