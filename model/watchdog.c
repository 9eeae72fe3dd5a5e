/* The WatchDog's pure rules: a capability from percentages of the cluster's allocatable, and the
 * routing of a notice to webhooks by the job's annotation, namespace and user. */
#include "model/watchdog.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[NOTICE_KINDS] = {"Completed", "Failed",         "MemoryScaled",
                                                     "Evicted",   "PendingTooLong", "Waste"};

const char *notice_kind_name(enum notice_kind k) { return k < NOTICE_KINDS ? kind_names[k] : "Unknown"; }

int notice_kind_from_name(const char *name)
{
    for (int k = 0; k < NOTICE_KINDS; k++)
        if (strcmp(kind_names[k], name) == 0)
            return k;
    return -1;
}

void watchdog_conf_free(struct watchdog_conf *c)
{
    for (int i = 0; i < c->nwebhooks; i++) {
        free(c->webhooks[i].name);
        free(c->webhooks[i].url);
    }
    for (int i = 0; i < c->nroutes; i++) {
        free(c->routes[i].ns);
        free(c->routes[i].user);
        free(c->routes[i].webhooks);
    }
    for (int i = 0; i < c->nqueues; i++)
        free(c->queues[i].name);
    free(c->webhooks);
    free(c->routes);
    free(c->queues);
    memset(c, 0, sizeof *c);
}

int watchdog_webhook_index(const struct watchdog_conf *c, const char *name)
{
    for (int i = 0; i < c->nwebhooks; i++)
        if (strcmp(c->webhooks[i].name, name) == 0)
            return i;
    return -1;
}

int64_t watchdog_percent_of(int r, double percent, int64_t total)
{
    (void)r; /* every unit is whole (millicores, bytes, devices): one rule for all */
    if (percent <= 0 || total <= 0)
        return 0;
    double exact = floor((double)total * percent / 100.0);
    int64_t v = exact >= (double)total ? total : (int64_t)exact;
    return v > 0 ? v : 1;
}

void watchdog_capability(const struct watchdog_queue *q, const struct resvec *total, struct resvec *out)
{
    memset(out, 0, sizeof *out);
    for (int r = 0; r < RES_MAX; r++)
        if (q->has[r])
            out->v[r] = watchdog_percent_of(r, q->percent[r], total->v[r]);
}

static int add_target(int *out, int n, int max, int w)
{
    for (int i = 0; i < n; i++)
        if (out[i] == w)
            return n;
    if (n < max)
        out[n++] = w;
    return n;
}

/* The annotation's list: names separated by commas (spaces around them allowed). */
static int annotation_targets(const struct watchdog_conf *c, const char *list, int *out, int max, int *unknown)
{
    int n = 0;
    const char *p = list;
    while (*p) {
        while (*p == ' ' || *p == ',')
            p++;
        size_t len = strcspn(p, ",");
        while (len > 0 && p[len - 1] == ' ')
            len--;
        if (len > 0) {
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), p);
            int w = strcmp(name, "none") == 0 ? -2 : watchdog_webhook_index(c, name);
            if (w >= 0)
                n = add_target(out, n, max, w);
            else if (w == -1)
                (*unknown)++;
        }
        p += strcspn(p, ",");
    }
    return n;
}

int watchdog_targets(const struct watchdog_conf *c, enum notice_kind kind, const char *ns, const char *user,
                     const char *annotation, int *out, int max, int *unknown)
{
    *unknown = 0;
    if (!c)
        return 0;
    if (annotation && *annotation)
        return annotation_targets(c, annotation, out, max, unknown);
    int n = 0;
    for (int i = 0; i < c->nroutes; i++) {
        const struct watchdog_route *r = &c->routes[i];
        if (!(r->kinds & (1u << kind)) || (r->ns && (!ns || strcmp(r->ns, ns) != 0)) ||
            (r->user && (!user || strcmp(r->user, user) != 0)))
            continue;
        for (int j = 0; j < r->nwebhooks; j++)
            n = add_target(out, n, max, r->webhooks[j]);
    }
    return n;
}
