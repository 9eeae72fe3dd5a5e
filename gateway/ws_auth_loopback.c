/* The WebSocket gateway's authentication until bearer tokens are checked: an anonymous subscriber on
 * this machine (loopback) may read every event; everyone else is refused with 401. */
#include <stdio.h>

#include "gateway/ws.h"

static int authenticate(void *ctx, const char *token, size_t len, bool peer_is_loopback, void **principal, char *why,
                        size_t whylen)
{
    (void)ctx;
    (void)len;
    *principal = NULL;
    if (token) {
        snprintf(why, whylen, "this server does not check bearer tokens yet: connect without one, from this machine");
        return -1;
    }
    if (!peer_is_loopback) {
        snprintf(why, whylen, "anonymous subscribers are only accepted from this machine (loopback)");
        return -1;
    }
    return 0;
}

static bool may_read(void *ctx, void *principal, const char *ns)
{
    (void)ctx;
    (void)principal;
    (void)ns;
    return true;
}

struct ws_auth ws_auth_loopback_only(void)
{
    return (struct ws_auth){.authenticate = authenticate, .may_read = may_read, .release = NULL, .ctx = NULL};
}
