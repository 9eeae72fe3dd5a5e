/* A subscriber's handshake, before libwebsockets answers 101: the path, the query, the subprotocols
 * and the token are checked, the principal authenticated and authorized, and a refusal is answered
 * as HTTP with a Kubernetes Status body (the connection then closes). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "common/log.h"
#include "gateway/watch/hub.h"
#include "gateway/http/status.h"
#include "gateway/ws/internal.h"
#include "gateway/ws/token.h"

#define MAX_ARGS 8
#define MAX_HEADERS_BYTES 1024

static int add_retry_after(struct lws *wsi, int seconds, unsigned char **p, unsigned char *end)
{
    char value[16];
    int n = snprintf(value, sizeof value, "%d", seconds);
    return lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_RETRY_AFTER, (const unsigned char *)value, n, p, end);
}

/* Writes the whole answer (headers and body) at once and returns -1: libwebsockets then hangs up,
 * after flushing what the socket did not take. */
static int answer_status(struct lws *wsi, const struct api_status *st)
{
    char *body = json_dumps_status(st);
    size_t len = body ? strlen(body) : 0;
    unsigned char *buf = malloc(LWS_PRE + MAX_HEADERS_BYTES + len);
    if (!buf) {
        free(body);
        return -1;
    }
    unsigned char *start = buf + LWS_PRE, *p = start, *end = start + MAX_HEADERS_BYTES;
    static const char bearer[] = "Bearer realm=\"caldera\"";
    if (lws_add_http_common_headers(wsi, (unsigned)st->code, "application/json", len, &p, end) == 0 &&
        (st->code != 401 ||
         lws_add_http_header_by_name(wsi, (const unsigned char *)"www-authenticate:", (const unsigned char *)bearer,
                                     (int)strlen(bearer), &p, end) == 0) &&
        (st->retry_after_s <= 0 || add_retry_after(wsi, st->retry_after_s, &p, end) == 0) &&
        lws_add_http_header_by_token(wsi, WSI_TOKEN_CONNECTION, (const unsigned char *)"close", 5, &p, end) == 0 &&
        lws_finalize_http_header(wsi, &p, end) == 0) {
        memcpy(p, body, len);
        p += len;
        lws_write(wsi, start, (size_t)(p - start), LWS_WRITE_HTTP_HEADERS);
    }
    free(buf);
    free(body);
    return -1;
}

int ws_handshake_plain_http(struct lws *wsi)
{
    struct api_status st = {0};
    api_fail(&st, 400, "BadRequest",
             "this port serves WebSocket subscribers only: open a WebSocket to " WS_STREAM_PATH
             "?namespace=NS[&job=NAME|&pod=NAME][&since=SEQ]");
    return answer_status(wsi, &st);
}

static bool peer_is_loopback(struct lws *wsi)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    if (getpeername(lws_get_socket_fd(wsi), (struct sockaddr *)&ss, &sl) != 0)
        return false;
    if (ss.ss_family == AF_INET)
        return ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr) >> 24 == 127;
    if (ss.ss_family == AF_INET6) {
        const struct in6_addr *a = &((struct sockaddr_in6 *)&ss)->sin6_addr;
        return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
    }
    return false;
}

/* A header's value (caller frees), NULL when absent. */
static char *header(struct lws *wsi, enum lws_token_indexes token)
{
    int len = lws_hdr_total_length(wsi, token);
    if (len <= 0)
        return NULL;
    char *v = malloc((size_t)len + 1);
    if (v && lws_hdr_copy(wsi, v, len + 1, token) < 0) {
        free(v);
        return NULL;
    }
    return v;
}

/* The request's path and query, parsed into sub. */
static int read_request(struct lws *wsi, struct ws_subscription *sub, struct api_status *st)
{
    char path[256];
    if (lws_hdr_copy(wsi, path, sizeof path, WSI_TOKEN_GET_URI) < 0 || strcmp(path, WS_STREAM_PATH) != 0) {
        api_fail(st, 404, "NotFound", "the server could not find the requested resource: subscribe at " WS_STREAM_PATH);
        return -1;
    }
    char args[MAX_ARGS][300];
    const char *argv[MAX_ARGS];
    int n = 0;
    for (; n < MAX_ARGS; n++) {
        int len = lws_hdr_copy_fragment(wsi, args[n], sizeof args[n], WSI_TOKEN_HTTP_URI_ARGS, n);
        if (len < 0) {
            if (lws_hdr_fragment_length(wsi, WSI_TOKEN_HTTP_URI_ARGS, n) <= 0)
                break;
            return api_fail(st, 400, "BadRequest", "a query parameter is too long");
        }
        argv[n] = args[n];
    }
    if (n == MAX_ARGS && lws_hdr_fragment_length(wsi, WSI_TOKEN_HTTP_URI_ARGS, n) > 0)
        return api_fail(st, 400, "BadRequest",
                        "too many query parameters: this stream takes namespace, job or pod, "
                        "and since");
    return ws_query_parse(argv, n, sub, st);
}

/* Authenticates the request's token and authorizes the subscription: 0 with the principal in c, or a
 * 400 (bad subprotocols), 401 or 403 in st. */
static int authorize(struct ws_server *s, struct lws *wsi, struct ws_conn *c, struct api_status *st)
{
    char *protocols = header(wsi, WSI_TOKEN_PROTOCOL), *authorization = header(wsi, WSI_TOKEN_HTTP_AUTHORIZATION);
    struct ws_offer *offer = malloc(sizeof *offer);
    int rc = -1;
    if (!offer) {
        api_fail(st, 500, "InternalError", "out of memory");
        goto out;
    }
    ws_offer_parse(protocols, WS_PROTOCOL, offer);
    if (offer->any && !offer->events) {
        api_add_cause(st, "Sec-WebSocket-Protocol", "FieldValueNotSupported", 0, 0,
                      "offers no protocol of this server");
        api_fail(st, 400, "BadRequest", "Sec-WebSocket-Protocol: offer " WS_PROTOCOL " (next to the token's, if any)");
        goto out;
    }
    if (offer->token_malformed) {
        api_fail(st, 401, "Unauthorized", "the token subprotocol " WS_TOKEN_PROTOCOL_PREFIX "* is not base64url");
        goto out;
    }
    size_t len = 0;
    const char *token = ws_bearer_token(authorization, &len);
    if (!token && offer->token_len > 0) {
        token = offer->token;
        len = offer->token_len;
    }
    char why[256] = "";
    void *principal = NULL;
    if (s->auth.authenticate(s->auth.ctx, token, len, peer_is_loopback(wsi), &principal, why, sizeof why) != 0) {
        api_fail(st, 401, "Unauthorized", "%s", why[0] ? why : "Unauthorized");
        goto out;
    }
    c->principal = principal;
    c->has_principal = true;
    const char *ns = c->sub.ns[0] ? c->sub.ns : NULL;
    if (!s->auth.may_read(s->auth.ctx, principal, ns)) {
        if (ns)
            api_fail(st, 403, "Forbidden", "cannot read the events of namespace \"%s\"", ns);
        else
            api_fail(st, 403, "Forbidden", "cannot read the events of every namespace: subscribe with namespace=NS");
        goto out;
    }
    rc = 0;
out:
    free(offer);
    free(protocols);
    free(authorization);
    return rc;
}

void ws_conn_free(struct ws_conn *c)
{
    if (!c)
        return;
    ws_peers_forget(c);
    ws_backfill_clear(c);
    if (c->has_principal && c->srv->auth.release)
        c->srv->auth.release(c->srv->auth.ctx, c->principal);
    free(c);
}

int ws_handshake_confirm(struct ws_server *s, struct lws *wsi)
{
    struct api_status st = {0};
    struct ws_conn *c = lws_get_opaque_user_data(wsi); /* made as it was accepted (ws_peers_track) */
    char *upgrade = header(wsi, WSI_TOKEN_UPGRADE);
    if (!c) {
        api_fail(&st, 503, "ServiceUnavailable", "out of memory");
        st.retry_after_s = 1;
    } else if (!upgrade || strcasecmp(upgrade, "websocket") != 0) {
        api_fail(&st, 400, "BadRequest", "this port serves WebSocket subscribers only (Upgrade: websocket)");
    } else if (atomic_load(&s->stopping)) {
        api_fail(&st, 503, "ServiceUnavailable", "the server is shutting down");
        st.retry_after_s = 1;
    } else if (read_request(wsi, &c->sub, &st) == 0 && authorize(s, wsi, c, &st) == 0 &&
               ws_peers_admit_subscriber(c, &st) == 0) {
        uint64_t head = hub_head(s->hub);
        if (c->sub.has_since && c->sub.since > head) {
            api_add_cause(&st, "since", "FieldValueInvalid", 0, 0, "newer than the newest event");
            api_fail(&st, 400, "BadRequest", "since: %llu is newer than the newest event (%llu)",
                     (unsigned long long)c->sub.since, (unsigned long long)head);
        } else {
            c->cursor = c->sub.has_since ? c->sub.since : head;
            c->from_db = c->sub.has_since && c->sub.since < hub_floor(s->hub);
        }
    }
    free(upgrade);
    if (st.code) {
        if (st.code >= 500 && st.code != 503)
            log_warn("websocket: refusing a subscriber: %s", st.message);
        return answer_status(wsi, &st); /* the connection (and c) goes when libwebsockets closes it */
    }
    return 0;
}
