/* The limits on requests and answers: 429 for a client over its rate (before its body is read),
 * CORS preflights, and the headers every answer may carry (Retry-After, CORS). */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "gateway/http/http.h"
#include "gateway/http/status.h"
#include "gateway/limits/limits.h"

/* "its address 127.0.0.1" or "its bearer token", for the Status. */
static void describe_client(const struct sockaddr *sa, bool by_token, char *out, size_t len)
{
    char host[INET6_ADDRSTRLEN] = "unknown";
    if (by_token) {
        snprintf(out, len, "its bearer token");
        return;
    }
    if (sa && sa->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, host, sizeof host);
    else if (sa && sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, host, sizeof host);
    snprintf(out, len, "its address %s", host);
}

bool limits_refuse_rate(struct http_req *req)
{
    struct rate_limiter *rl = req->gw->rate_limiter;
    if (!rl)
        return false;
    struct rate_key key;
    size_t len = 0;
    const char *token = http_bearer_token(req, &len);
    const struct sockaddr *sa = token ? NULL : http_client_address(req);
    if (token ? rate_key_token(rl, token, len, &key) != 0 : rate_key_address(sa, &key) != 0)
        return false; /* nothing to count it against (a Unix socket): let it through */
    int wait_s = rate_limiter_take(rl, &key, req->started_ns);
    if (wait_s == 0)
        return false;
    char who[96];
    double per_second, burst;
    rate_limiter_settings(rl, &per_second, &burst);
    describe_client(sa, token != NULL, who, sizeof who);
    struct api_status st = {0};
    api_fail(&st, 429, "TooManyRequests",
             "too many requests from this client (counted by %s): the limit is %g a second, %g at once; "
             "retry after %d second%s",
             who, per_second, burst, wait_s, wait_s == 1 ? "" : "s");
    req->retry_after_s = wait_s;
    http_respond_status(req, &st);
    return true;
}

bool limits_answer_preflight(struct http_req *req)
{
    const struct cors_origins *cors = req->gw->cors;
    bool options = strcmp(req->method, "OPTIONS") == 0;
    if ((!cors || cors->n == 0) && !options)
        return false; /* the common case costs one comparison */
    const char *origin = http_header(req, "Origin");
    req->cors_origin = cors ? cors_origin_match(cors, origin) : NULL;
    if (!options || !origin)
        return false; /* a plain OPTIONS is the router's (405) */
    if (!req->cors_origin) {
        struct api_status st = {0};
        api_fail(&st, 403, "Forbidden",
                 "cross-origin requests from %s are not allowed: it is not an origin this server accepts "
                 "(jobserver --cors-origin)",
                 origin);
        http_respond_status(req, &st);
        return true;
    }
    req->cors_preflight = true;
    http_respond_empty(req, 204);
    return true;
}

void limits_decorate(const struct http_req *req, struct MHD_Response *resp, int code)
{
    int retry = retry_after_seconds(code, req->retry_after_s);
    if (retry > 0) {
        char value[16];
        snprintf(value, sizeof value, "%d", retry);
        MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, value);
    }
    if (req->gw->cors && req->gw->cors->n > 0) /* the answer depends on Origin: caches must keep them apart */
        MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, "Origin");
    if (!req->cors_origin)
        return;
    MHD_add_response_header(resp, MHD_HTTP_HEADER_ACCESS_CONTROL_ALLOW_ORIGIN, req->cors_origin);
    if (req->cors_preflight) {
        MHD_add_response_header(resp, "Access-Control-Allow-Methods", CORS_ALLOW_METHODS);
        MHD_add_response_header(resp, "Access-Control-Allow-Headers", CORS_ALLOW_HEADERS);
        MHD_add_response_header(resp, "Access-Control-Max-Age", CORS_MAX_AGE_S);
    } else {
        MHD_add_response_header(resp, "Access-Control-Expose-Headers", CORS_EXPOSE_HEADERS);
    }
}
