/* The backend interface's small shared part (runtime/backend.h): reports made and freed by the engines'
 * threads and taken by the core, and the ops the engines' entry points queue for their threads. */
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

struct backend_op *backend_op_new(enum backend_op_kind kind, const char *uid, const char *ref, json_t *manifest,
                                  enum backend_action action)
{
    struct backend_op *op = calloc(1, sizeof *op);
    if (!op) {
        json_decref(manifest);
        return NULL;
    }
    op->kind = kind;
    snprintf(op->uid, sizeof op->uid, "%s", uid ? uid : "");
    snprintf(op->ref, sizeof op->ref, "%s", ref ? ref : "");
    op->manifest = manifest;
    op->action = action;
    return op;
}

void backend_op_free(struct backend_op *op)
{
    if (!op)
        return;
    json_decref(op->manifest);
    free(op);
}

void backend_update_free(struct backend_update *u) { free(u); }
