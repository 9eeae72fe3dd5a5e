/* PodGroups posted through the API on their own (scheduling.volcano.sh/v1beta1), not made by a
 * Job: read with Volcano's fields checked, and rendered as stored. Caldera creates pods only for its
 * Jobs, so no pod ever names such a group: it is kept and shown, Pending, and never scheduled. */
#ifndef CALDERA_PODGROUP_POSTED_H
#define CALDERA_PODGROUP_POSTED_H

#include <jansson.h>

#include "adapters/intake/intake.h"
#include "common/api_status.h"

#define PODGROUP_POSTED_KIND "PodGroup"

/* The stored form of a posted PodGroup in namespace ns, created at created (RFC 3339): metadata
 * (name: a DNS-1123 subdomain; labels, annotations) with a new uid, spec (minMember >= 0, required
 * as Volcano's CRD has it; queue, default "default"; minTaskMember; minResources;
 * priorityClassName), status {phase Pending, and a condition saying no pod names it}. Returns 0,
 * or -1 with a 400/422 Status naming the field. */
int podgroup_posted_from_doc(const struct intake_doc *doc, const char *ns, const char *created, json_t **out,
                             struct api_status *st);

#endif
