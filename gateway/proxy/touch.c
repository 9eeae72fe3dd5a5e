/* Activity reports, throttled per connection and across connections by a small table of companions
 * last reported (touch.h). */
#include "gateway/proxy/touch.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "gateway/proxy/proxy.h"

#define RECENT 64 /* companions remembered; an older one forgotten just gets one more call */

static struct {
    char key[520];
    int64_t ms;
} recent[RECENT];
static pthread_mutex_t recent_mu = PTHREAD_MUTEX_INITIALIZER;

void proxy_touch_init(struct proxy_touch *t, const struct proxy_resolver *r, const char *ns, const char *name)
{
    memset(t, 0, sizeof *t);
    t->resolver = r;
    snprintf(t->ns, sizeof t->ns, "%s", ns);
    snprintf(t->name, sizeof t->name, "%s", name);
}

/* Whether the companion was reported less than a second ago; else records now. */
static bool reported_lately(const char *ns, const char *name, int64_t now)
{
    char key[520];
    snprintf(key, sizeof key, "%s/%s", ns, name);
    bool lately = false;
    pthread_mutex_lock(&recent_mu);
    int slot = -1, oldest = 0;
    for (int i = 0; i < RECENT; i++) {
        if (strcmp(recent[i].key, key) == 0) {
            slot = i;
            break;
        }
        if (recent[i].ms < recent[oldest].ms)
            oldest = i;
    }
    if (slot >= 0 && now - recent[slot].ms < 1000) {
        lately = true;
    } else {
        if (slot < 0) {
            slot = oldest;
            snprintf(recent[slot].key, sizeof recent[slot].key, "%s", key);
        }
        recent[slot].ms = now;
    }
    pthread_mutex_unlock(&recent_mu);
    return lately;
}

void proxy_touch(struct proxy_touch *t)
{
    if (!t->resolver || !t->resolver->touched)
        return;
    int64_t now = clock_mono_ms();
    if (t->last_ms && now - t->last_ms < 1000)
        return;
    t->last_ms = now;
    if (!reported_lately(t->ns, t->name, now))
        t->resolver->touched(t->resolver->ctx, t->ns, t->name, clock_wall_ms());
}
