/* jobctl's command line as parsed: global options (anywhere on the line), the command, its
 * positional arguments and the log options. Parsing is pure: environment defaults come later. */
#ifndef CALDERA_JOBCTL_ARGS_H
#define CALDERA_JOBCTL_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#define JOBCTL_MAX_POS 8
#define JOBCTL_MAX_NAMESPACES 32
#define JOBCTL_MAX_COMPANIONS 8
#define JOBCTL_MAX_ENV 64

struct jobctl_command;

struct jobctl_args {
    const struct jobctl_command *command_def; /* the command being run (main sets it), for its usage errors */
    const char *server;                       /* --server/-s; NULL until main fills in $CALDERA_SERVER or the default */
    const char *ns; /* --namespace/-n (the last one); NULL until main fills in $CALDERA_NAMESPACE or "default" */
    const char *namespaces[JOBCTL_MAX_NAMESPACES]; /* every --namespace given, in order (token create) */
    int nnamespaces;
    const char *token;       /* --token; NULL until main fills in $CALDERA_TOKEN (sent as a bearer token) */
    bool json;               /* -o json or -o yaml: the server's objects instead of tables and messages */
    bool yaml;               /* -o yaml (json is set too): those objects as YAML */
    bool wide;               /* -o wide: tables with more columns */
    bool names;              /* -o name: one kind/name per line */
    bool manifest;           /* -o manifest (jobctl get JOB): the Job a Kubernetes cluster running Volcano accepts */
    const char *owner_uid;   /* get JOB -o manifest --owner-uid UID: the Job's uid in the cluster (ownerReferences) */
    bool help;               /* -h/--help */
    bool previous;           /* logs --previous/-p */
    long attempt;            /* logs --attempt N; -1 when not given */
    const char *tail;        /* logs --tail N: the last N lines */
    bool timestamps;         /* logs --timestamps: each line with its time */
    const char *limit_bytes; /* logs --limit-bytes N */
    const char *weight;      /* queue create --weight N */
    const char *capability;  /* queue create --capability cpu=4,memory=8Gi */
    const char *reclaimable; /* queue create --reclaimable=true|false */
    const char *phase;       /* history --phase Completed */
    const char *since;       /* history --since 2026-11-22T08:00:00Z; logs --since 5m or a time */
    const char *limit;       /* history --limit N */
    const char *cont;        /* history --continue TOKEN: the next page */
    const char *user;        /* token create --user U */
    const char *uid;         /* token create --uid N */
    const char *gid;         /* token create --gid N */
    const char *role;        /* token create --role admin|user|viewer */
    bool wait;               /* submit --wait: follow the jobs until they finish */
    const char *timeout;     /* wait, submit --wait: give up after this long (a duration) */
    const char *cpu;         /* debug --cpu 2 */
    const char *memory;      /* debug --memory 4Gi */
    const char *gpu;         /* debug --gpu 1 (nvidia.com/gpu) */
    const char *companions[JOBCTL_MAX_COMPANIONS]; /* debug --companion jupyter, in order */
    int ncompanions;
    const char *image;               /* debug --image IMAGE */
    const char *duration;            /* debug --for 8h */
    const char *name;                /* debug --name N */
    const char *queue;               /* debug --queue Q */
    bool no_wait;                    /* debug --no-wait: create the session, do not follow it */
    const char *extend;              /* debug --extend NAME --for 4h: the session's new duration (a merge PATCH) */
    bool follow;                     /* logs -f/--follow: go on as the log grows, across restarts */
    const char *replicas;            /* run --replicas N */
    const char *min_success;         /* run --min-success N */
    const char *auto_memory_scale;   /* run --auto-memory-scale RATE */
    const char *per_day;             /* run --per-day FROM..TO: one replica per date */
    const char *env[JOBCTL_MAX_ENV]; /* run --env K=V, in order */
    int nenv;
    char *const *rest; /* the arguments after "--" (run's COMMAND ARGS...); also positional while room */
    int nrest;
    bool has_rest;           /* the line had "--" */
    bool dry_run;            /* run --dry-run: print the Job, send nothing */
    const char *export_vars; /* submit --export: "ALL" (bare --export), "NONE" or "VAR1,VAR2,VAR=value" */
    const char *server_from, *ns_from, *token_from; /* where each came from (main): flag, an env name, file, default */
    const char *config_path;                        /* the settings file main looked at ("" when none) */
    const char *command;                            /* NULL when the line has none */
    const char *pos[JOBCTL_MAX_POS];
    int npos;
};

/* Fills a from argv[1..argc-1]. Options may come before or after the command; "--" ends them and
 * a lone "-" is an argument (stdin). Returns 0, or -1 with a one-line reason in err (a usage error). */
int args_parse(int argc, char *const *argv, struct jobctl_args *a, char *err, size_t errlen);

/* Option i of the parser's table (for the completion script): its long name, short letter (0: none)
 * and whether it takes a value. False past the last. */
bool args_option_at(size_t i, const char **long_name, char *short_name, bool *takes_value);

#endif
