/* The Volcano Job `jobctl run` builds from its flags (pure: no I/O, so the unit tests check the
 * document and every refusal). */
#ifndef CALDERA_JOBCTL_RUN_JOB_H
#define CALDERA_JOBCTL_RUN_JOB_H

#include <jansson.h>
#include <stddef.h>

#include "tools/jobctl/args.h"

#define RUN_MAX_DAYS 366
#define RUN_MAX_REPLICAS 10000

/* --per-day FROM..TO as the first day (days since 1970-01-01) and the number of days. Returns 0,
 * or -1 with the reason in err. */
int run_parse_days(const char *text, long *first_day, int *ndays, char *err, size_t errlen);

/* The Job of a->name (else generateName run-) in a->ns: one task "main" of --replicas (default 1)
 * running a->rest, or with --per-day one task per date named after it (2026-01-01, ...) whose
 * replicas see CALDERA_DATE=that date; --cpu/--memory/--gpu as each container's requests and
 * limits, --env in every container, --queue, --min-success, --auto-memory-scale RATE[,MAX].
 * Returns the document, or NULL with the reason (naming the flag) in err. */
json_t *run_build_job(const struct jobctl_args *a, char *err, size_t errlen);

#endif
