/* Activity: the resolver's touched() called at most once a second per companion while traffic flows,
 * from HTTP answers and WebSocket tunnels alike. */
#ifndef CALDERA_PROXY_TOUCH_H
#define CALDERA_PROXY_TOUCH_H

#include <stdint.h>

struct proxy_resolver;

/* Per connection (or request, or tunnel): when it last told the resolver about its companion. */
struct proxy_touch {
    const struct proxy_resolver *resolver;
    char ns[256], name[256];
    int64_t last_ms; /* monotonic; 0: never */
};

void proxy_touch_init(struct proxy_touch *t, const struct proxy_resolver *r, const char *ns, const char *name);
/* Traffic flowed now: calls touched() unless it was called for this companion less than a second ago
 * (by this or any other connection). */
void proxy_touch(struct proxy_touch *t);

#endif
