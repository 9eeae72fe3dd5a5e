/* The WebSocket gateway's authentication: the same tokens as the HTTP API (gateway/auth/auth.h), from the
 * Authorization header or the bearer subprotocol, and the same namespaces: a subscriber reads the
 * events of its namespaces, and the stream of every namespace (with the cluster's own events, which
 * name users and tokens) only when it has them all. */
#include <stdio.h>

#include "gateway/auth/auth.h"
#include "gateway/ws/ws.h"

static int authenticate(void *ctx, const char *token, size_t len, bool peer_is_loopback, void **principal, char *why,
                        size_t whylen)
{
    struct principal *p = NULL;
    struct api_status st = {0};
    if (auth_authenticate_token(ctx, token, token ? len : 0, peer_is_loopback, &p, &st) != 0) {
        snprintf(why, whylen, "%s", st.message);
        return -1;
    }
    *principal = p;
    return 0;
}

static bool may_read(void *ctx, void *principal, const char *ns)
{
    (void)ctx;
    return ns ? principal_reads_namespace(principal, ns) : principal_all_namespaces(principal);
}

static void release(void *ctx, void *principal)
{
    (void)ctx;
    principal_release(principal);
}

struct ws_auth ws_auth_tokens(struct auth *a)
{
    return (struct ws_auth){.authenticate = authenticate, .may_read = may_read, .release = release, .ctx = a};
}
