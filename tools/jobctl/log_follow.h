/* `jobctl logs -f POD|JOB`: a pod's log followed with the server's ?follow=true, attempt after
 * attempt (a marker line on stderr where a new one begins), until the pod's job ends; for a job,
 * every pod's at once, each line prefixed "[pod] ". */
#ifndef CALDERA_JOBCTL_LOG_FOLLOW_H
#define CALDERA_JOBCTL_LOG_FOLLOW_H

#include <stdbool.h>

#include "tools/jobctl/args.h"

/* The log path of pod (cmd_logs.c): attempt (-1: the current one, or --previous), ?follow=true, and
 * with options the line's --tail, --since and --limit-bytes (--timestamps always). Heap string. */
char *log_path(const struct jobctl_args *a, const char *pod, long attempt, bool follow, bool options);

/* Follows pod's log; JOBCTL_OK when its job ended (or was deleted), JOBCTL_FAIL after saying why. */
int follow_pod_log(const struct jobctl_args *a, const char *pod);
/* Follows the logs of the n pods of one job at once (a thread each), every line prefixed
 * "[pod] "; JOBCTL_OK when each follower ended with the job. */
int follow_pods_logs(const struct jobctl_args *a, const char *const *pods, int n);

#endif
