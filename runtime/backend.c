/* The backend interface's small shared part (runtime/backend.h): reports made and freed by the engines'
 * threads and taken by the core. */
#include "runtime/backend.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

struct backend_update *backend_update_new(enum backend_update_kind kind, const char *job_uid, const char *ref)
{
    struct backend_update *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    u->kind = kind;
    if (job_uid)
        snprintf(u->job_uid, sizeof u->job_uid, "%s", job_uid);
    if (ref)
        snprintf(u->ref, sizeof u->ref, "%s", ref);
    return u;
}

void backend_update_free(struct backend_update *u) { free(u); }
