/* Bearer tokens of a WebSocket handshake: the Authorization header's, or the one a browser puts in
 * its subprotocol list as Kubernetes' API server reads it (base64url.bearer.authorization.k8s.io.). */
#include "gateway/ws/token.h"

#include <string.h>
#include <strings.h>

#include "common/base64.h"

void ws_offer_parse(const char *header, const char *protocol, struct ws_offer *out)
{
    memset(out, 0, sizeof *out);
    size_t prefix = strlen(WS_TOKEN_PROTOCOL_PREFIX), plen = strlen(protocol);
    for (const char *p = header; p && *p;) {
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        const char *end = p;
        while (*end && *end != ',')
            end++;
        size_t len = (size_t)(end - p);
        while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
            len--;
        if (len > 0) {
            out->any = true;
            if (len == plen && strncmp(p, protocol, len) == 0) {
                out->events = true;
            } else if (len > prefix && strncmp(p, WS_TOKEN_PROTOCOL_PREFIX, prefix) == 0) {
                int n = base64url_decode(p + prefix, len - prefix, out->token, WS_TOKEN_MAX);
                if (n <= 0) {
                    out->token_malformed = true;
                    out->token_len = 0;
                } else {
                    out->token_len = (size_t)n;
                }
                out->token[out->token_len] = '\0';
            }
        }
        p = end;
    }
}

const char *ws_bearer_token(const char *authorization, size_t *len)
{
    if (!authorization)
        return NULL;
    while (*authorization == ' ')
        authorization++;
    if (strncasecmp(authorization, "Bearer ", 7) != 0)
        return NULL;
    const char *t = authorization + 7;
    while (*t == ' ')
        t++;
    size_t n = strlen(t);
    while (n > 0 && (t[n - 1] == ' ' || t[n - 1] == '\t'))
        n--;
    if (n == 0)
        return NULL;
    *len = n;
    return t;
}
