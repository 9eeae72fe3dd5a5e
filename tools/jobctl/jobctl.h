/* jobctl's shared declarations: exit codes, API paths, the command table and the commands.
 * Each command gets the parsed line (server and namespace already defaulted) and returns an exit code. */
#ifndef CALDERA_JOBCTL_H
#define CALDERA_JOBCTL_H

#include <jansson.h>
#include <stdbool.h>

#include "tools/jobctl/args.h"

enum { JOBCTL_OK = 0, JOBCTL_FAIL = 1, JOBCTL_USAGE = 2 };

#define DEFAULT_SERVER "http://127.0.0.1:8080"
#define DEFAULT_NAMESPACE "default"

#define VOLCANO_BATCH_API "/apis/batch.volcano.sh/v1alpha1"
#define VOLCANO_SCHEDULING_API "/apis/scheduling.volcano.sh/v1beta1"
#define CORE_API "/api/v1"
#define CALDERA_API "/apis/caldera.io/v1"

struct jobctl_command {
    const char *name;
    const char *args;    /* "[JOB]", "POD [--previous] [--attempt N]" */
    const char *summary; /* one line for the command list */
    const char *help;    /* the rest of `jobctl help NAME` */
    int min_args, max_args;
    bool log_options; /* accepts --previous / --attempt */
    int (*run)(const struct jobctl_args *a);
};

/* The command called name, or NULL. */
const struct jobctl_command *jobctl_find_command(const char *name);
/* Iteration: NULL past the last command. */
const struct jobctl_command *jobctl_command_at(int i);

/* commands.c: the general help, every command listed (to stdout). */
void jobctl_print_help(void);
/* help.c: one command's help (to stdout), and the options every command takes. */
void jobctl_print_command_help(const struct jobctl_command *c);
extern const char jobctl_options_help[];
/* A usage error on stderr ("jobctl: <why>" and a hint); returns JOBCTL_USAGE. */
int jobctl_usage_error(const struct jobctl_command *c, const char *why);

/* cmd_pods.c: the path listing pods, of one job when job is set (heap string, NULL on OOM). */
char *pods_path(const char *ns, const char *job);

int cmd_submit(const struct jobctl_args *a);
int cmd_get(const struct jobctl_args *a);
int cmd_pods(const struct jobctl_args *a);
int cmd_logs(const struct jobctl_args *a);
int cmd_history(const struct jobctl_args *a);
int cmd_delete(const struct jobctl_args *a);
int cmd_action(const struct jobctl_args *a);
int cmd_nodes(const struct jobctl_args *a);
int cmd_queues(const struct jobctl_args *a);
int cmd_token(const struct jobctl_args *a);
int cmd_wait(const struct jobctl_args *a);
int cmd_debug(const struct jobctl_args *a);
int cmd_describe(const struct jobctl_args *a);
int cmd_events(const struct jobctl_args *a);
int cmd_run(const struct jobctl_args *a);
int cmd_config(const struct jobctl_args *a);
int cmd_completion(const struct jobctl_args *a);
/* cmd_events.c: job name of a->ns (*job) and its pods (*pods, an array); JOBCTL_FAIL after saying
 * why (the job not found...). The caller json_decref()s both. */
int fetch_job_and_pods(const struct jobctl_args *a, const char *name, json_t **job, json_t **pods);
/* cmd_wait.c: follows jobs names[i] of namespaces[i] (NULL: a->ns) until each finishes (a->timeout
 * bounds it all); JOBCTL_OK when every one Completed. */
int jobctl_wait_jobs(const struct jobctl_args *a, const char *const *namespaces, const char *const *names, int n);

#endif
