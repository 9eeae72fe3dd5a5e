/* Where a WebSocket handshake carries its bearer token: the Authorization header, or for browsers
 * (which cannot set headers) Kubernetes' subprotocol base64url.bearer.authorization.k8s.io.<token
 * in base64url without padding>, offered next to a real protocol. Pure. */
#ifndef CALDERA_WS_TOKEN_H
#define CALDERA_WS_TOKEN_H

#include <stdbool.h>
#include <stddef.h>

#define WS_TOKEN_PROTOCOL_PREFIX "base64url.bearer.authorization.k8s.io."
#define WS_TOKEN_MAX 4096

/* What a Sec-WebSocket-Protocol header offers (a comma-separated list, NULL when absent). */
struct ws_offer {
    bool any;             /* some protocol was offered */
    bool events;          /* WS_PROTOCOL is among them */
    bool token_malformed; /* a token protocol whose value is not base64url, or too long */
    char token[WS_TOKEN_MAX + 1];
    size_t token_len; /* 0: no token protocol */
};

void ws_offer_parse(const char *header, const char *protocol, struct ws_offer *out);

/* The token of an "Authorization: Bearer <token>" header value: its start and length, or NULL
 * (another scheme, or none). */
const char *ws_bearer_token(const char *authorization, size_t *len);

#endif
