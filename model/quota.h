/* Namespace quotas (Kubernetes ResourceQuota, spec.hard) as Caldera enforces them: a job that would
 * exceed its namespace's quota waits in its queue instead of failing, as a shared platform wants it. */
#ifndef CALDERA_QUOTA_H
#define CALDERA_QUOTA_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/uuid.h"
#include "model/resource.h"

struct resource_quota {
    char *ns;
    char *name;
    char uid[UUID_STR_LEN];
    int64_t created_ms;
    uint64_t resource_version;
    /* spec.hard: "cpu"/"requests.cpu", "memory"/"requests.memory", "requests.<extended>", "pods". */
    bool limited[RES_MAX]; /* which dimensions have a hard limit */
    struct resvec hard;    /* the limits, in resource units (pods: count) */
    json_t *manifest;      /* metadata + spec as accepted (owned) */
};

void resource_quota_free(struct resource_quota *q);

#endif
