/* The proxy's pure parts (gateway/proxy/headers.h): the path split, the URI forwarded and the one the
 * client is sent back to, the token in the query and the cookie, origins, and which headers cross. */
#include <stdio.h>
#include <string.h>

#include "gateway/proxy/headers.h"
#include "gateway/proxy/proxy.h"
#include "tests/lib/test.h"

static void paths_split_into_namespace_name_and_rest(void)
{
    struct proxy_path p;
    REQUIRE(proxy_split("/proxy/team-a/nb/api/kernels?x=1&token=abc.def&y=%20", &p));
    CHECK_STR(p.ns, "team-a");
    CHECK_STR(p.name, "nb");
    CHECK_STR(p.prefix, "/proxy/team-a/nb");
    CHECK_INT(p.rest_len, strlen("/api/kernels"));
    CHECK(strncmp(p.rest, "/api/kernels", p.rest_len) == 0);
    CHECK_STR(p.query, "x=1&token=abc.def&y=%20");
    REQUIRE(proxy_split("/proxy/ns/name", &p));
    CHECK_INT(p.rest_len, 0);
    CHECK(p.query == NULL);
    REQUIRE(proxy_split("/proxy/ns/name/", &p));
    CHECK_INT(p.rest_len, 1);
    CHECK(!proxy_split("/proxy/ns", &p));
    CHECK(!proxy_split("/proxy/ns/", &p));
    CHECK(!proxy_split("/proxy//name/", &p));
    CHECK(!proxy_split("/proxy/../name/", &p));
    CHECK(!proxy_split("/proxy/ns/na%2Fme/", &p));
    CHECK(!proxy_split("/api/v1/pods", &p));
    CHECK(proxy_is_path("/proxy/a/b") && !proxy_is_path("/proxyx") && !proxy_is_path("/api"));
}

static void the_uri_forwarded_keeps_the_query_without_the_token(void)
{
    struct proxy_path p;
    char out[256];
    REQUIRE(proxy_split("/proxy/ns/tb/data/runs?a=1&token=zz.yy&b=%2F", &p));
    CHECK(proxy_upstream_uri(&p, false, out, sizeof out) > 0);
    CHECK_STR(out, "/proxy/ns/tb/data/runs?a=1&b=%2F");
    CHECK(proxy_upstream_uri(&p, true, out, sizeof out) > 0);
    CHECK_STR(out, "/data/runs?a=1&b=%2F");
    REQUIRE(proxy_split("/proxy/ns/tb?token=zz.yy", &p));
    CHECK(proxy_upstream_uri(&p, true, out, sizeof out) > 0);
    CHECK_STR(out, "/");
    CHECK(proxy_upstream_uri(&p, true, out, 1) < 0);
    CHECK(proxy_uri_without_token("/proxy/ns/tb/x?token=a.b&keep=1", out, sizeof out) > 0);
    CHECK_STR(out, "/proxy/ns/tb/x?keep=1");
    CHECK(proxy_uri_without_token("/proxy/ns/tb/x?token=a.b", out, sizeof out) > 0);
    CHECK_STR(out, "/proxy/ns/tb/x");
    size_t len = 0;
    const char *t = proxy_query_token("a=1&token=abc.def&b=2", &len);
    REQUIRE(t);
    CHECK_INT(len, 7);
    CHECK(strncmp(t, "abc.def", len) == 0);
    CHECK(proxy_query_token("mytoken=1&b=2", &len) == NULL);
    CHECK(proxy_query_token("token=", &len) == NULL);
    CHECK(proxy_query_token(NULL, &len) == NULL);
}

static void the_cookie_is_found_set_and_removed(void)
{
    size_t len = 0;
    const char *t = proxy_cookie_token("a=1; caldera_proxy=tok.en; _xsrf=2", &len);
    REQUIRE(t);
    CHECK(len == 6 && strncmp(t, "tok.en", 6) == 0);
    CHECK(proxy_cookie_token("xcaldera_proxy=1; b=2", &len) == NULL);
    CHECK(proxy_cookie_token(NULL, &len) == NULL);
    char out[128];
    CHECK_INT(proxy_cookie_without_ours("a=1; caldera_proxy=tok.en; _xsrf=2", NULL, out, sizeof out), 12);
    CHECK_STR(out, "a=1; _xsrf=2");
    CHECK_INT(proxy_cookie_without_ours("caldera_proxy=tok.en", NULL, out, sizeof out), 0);
    /* a browser cookie named as one the companion's type adds would shadow it: dropped */
    CHECK(proxy_cookie_without_ours("code-server-session=forged; a=1; code-server-sessionx=2",
                                    "code-server-session=secret", out, sizeof out) > 0);
    CHECK_STR(out, "a=1; code-server-sessionx=2");
    struct proxy_target target = {.nheaders = 2};
    snprintf(target.headers[0], sizeof target.headers[0], "Authorization: token x");
    snprintf(target.headers[1], sizeof target.headers[1], "Cookie: code-server-session=secret");
    CHECK_STR(proxy_added_cookie(&target), "code-server-session=secret");
    target.nheaders = 1;
    CHECK(proxy_added_cookie(&target) == NULL);
    CHECK(proxy_set_cookie("/proxy/ns/nb", "tok.en", 6, out, sizeof out) > 0);
    CHECK_STR(out, "caldera_proxy=tok.en; Path=/proxy/ns/nb/; HttpOnly; SameSite=Strict");
}

static void origins_are_this_server_s_or_not(void)
{
    CHECK(proxy_same_origin("http://gw.example:8080", "gw.example:8080", false));
    CHECK(proxy_same_origin("https://gw.example:8080", "gw.example:8080", false));
    CHECK(!proxy_same_origin("http://gw.example:8080.evil.com", "gw.example:8080", false));
    CHECK(!proxy_same_origin("http://evil.com", "gw.example:8080", false));
    CHECK(!proxy_same_origin("http://gw.example:8080/x", "gw.example:8080", false));
    CHECK(proxy_same_origin("http://gw.example:8080/proxy/a/b/", "gw.example:8080", true));
    CHECK(!proxy_same_origin("http://gw.example:80801/", "gw.example:8080", true));
    CHECK(!proxy_same_origin("null", "gw.example", false));
    CHECK(!proxy_same_origin("http://gw.example", NULL, false));
}

static void headers_that_cross_and_those_that_do_not(void)
{
    struct proxy_target t = {.port = 1, .nheaders = 1};
    snprintf(t.headers[0], sizeof t.headers[0], "Authorization: token verysecretvalue42");
    const char *dropped[] = {"Authorization",      "authorization",  "Cookie", "Connection",       "Upgrade",
                             "Transfer-Encoding",  "Content-Length", "Expect", "X-Forwarded-Host", "Keep-Alive",
                             "Proxy-Authorization"};
    for (size_t i = 0; i < sizeof dropped / sizeof dropped[0]; i++)
        CHECK(proxy_request_header_dropped(dropped[i], &t));
    const char *kept[] = {"Host", "Origin", "Content-Type", "Accept", "Sec-WebSocket-Key", "X-XSRFToken"};
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++)
        CHECK(!proxy_request_header_dropped(kept[i], &t));
    snprintf(t.headers[0], sizeof t.headers[0], "X-Secret: verysecretvalue42");
    CHECK(proxy_request_header_dropped("x-secret", &t)); /* the client cannot send the target's own */
    CHECK(proxy_response_header_dropped("Connection", "close", &t));
    CHECK(proxy_response_header_dropped("Content-Length", "12", &t));
    CHECK(proxy_response_header_dropped("X-Echo", "the verysecretvalue42 again", &t));
    CHECK(!proxy_response_header_dropped("Content-Type", "text/html", &t));
    CHECK(!proxy_response_header_dropped("Set-Cookie", "_xsrf=1", &t));
}

static void locations_come_back_under_the_prefix(void)
{
    char out[256];
    CHECK(proxy_location_rewrite("/tree?x=1", "/proxy/ns/tb", 8888, out, sizeof out));
    CHECK_STR(out, "/proxy/ns/tb/tree?x=1");
    CHECK(proxy_location_rewrite("http://127.0.0.1:8888/login", "/proxy/ns/tb", 8888, out, sizeof out));
    CHECK_STR(out, "/proxy/ns/tb/login");
    CHECK(!proxy_location_rewrite("http://example.com/x", "/proxy/ns/tb", 8888, out, sizeof out));
    CHECK(!proxy_location_rewrite("//example.com/x", "/proxy/ns/tb", 8888, out, sizeof out));
    CHECK(proxy_location_rewrite("http://127.0.0.1:8888/login", "", 8888, out, sizeof out));
    CHECK_STR(out, "/login");
}

TEST_MAIN(TEST_CASE(paths_split_into_namespace_name_and_rest),
          TEST_CASE(the_uri_forwarded_keeps_the_query_without_the_token),
          TEST_CASE(the_cookie_is_found_set_and_removed), TEST_CASE(origins_are_this_server_s_or_not),
          TEST_CASE(headers_that_cross_and_those_that_do_not), TEST_CASE(locations_come_back_under_the_prefix))
