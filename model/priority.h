/* Priority classes (scheduling.k8s.io/v1 PriorityClass): the name a job gives in
 * priorityClassName and the integer the scheduler orders by. Kubernetes' two system classes are
 * built in; the others come through the priorityclasses API and live in the cluster. */
#ifndef CALDERA_PRIORITY_H
#define CALDERA_PRIORITY_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/uuid.h"

#define PRIORITY_USER_MAX 1000000000 /* user classes may not go above this, as in Kubernetes */

struct priority_class {
    char *name;
    char uid[UUID_STR_LEN];
    int64_t created_ms;
    uint64_t resource_version;
    int32_t value;
    bool global_default; /* the value of jobs that name no class */
    bool preempt_never;  /* preemptionPolicy: Never */
    bool builtin;        /* system-cluster-critical, system-node-critical: cannot change */
    json_t *manifest;    /* the whole object as accepted (owned) */
};

/* Looks a built-in class up; returns true and sets *value when it exists. */
bool priority_class_value(const char *name, int32_t *value);
void priority_class_free(struct priority_class *pc);

#endif
