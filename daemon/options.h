/* jobserver's command line: every option, its default and its bounds, read into struct options;
 * `jobserver --help` prints them. */
#ifndef CALDERA_DAEMON_OPTIONS_H
#define CALDERA_DAEMON_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "adapters/dialects/volcano/job.h"
#include "daemon/numa_options.h"
#include "gateway/limits/limits.h"
#include "runtime/process.h"

#define DEFAULT_LISTEN "127.0.0.1:8080"
#define DEFAULT_DATA "./var"
#define DEFAULT_BODY_LIMIT (8u << 20)
#define DEFAULT_CLIENT_TIMEOUT_S 60
#define DEFAULT_MAX_CONNECTIONS 4096 /* a thread each, on small stacks (HTTP_THREAD_STACK) */
#define DEFAULT_MAX_PER_CLIENT 256   /* so it takes 16 addresses to fill every slot */
#define DEFAULT_WS_MAX_SUBSCRIBERS 4096
#define DEFAULT_WS_MAX_PER_CLIENT 256
#define CONFIG_FILE_LIMIT (4u << 20)
#define HUB_MAX_ITEMS 65536 /* changes the live streams can resume within, exactly (--watch-cache-size) */
#define DEFAULT_WATCH_WINDOW_MS (5 * 60 * 1000) /* etcd's default compaction: 5 minutes of history */
#define HUB_MAX_BYTES (64u << 20)               /* and about this much memory (their text) */

struct options {
    const char *listen;
    const char *data_dir;
    const char *nodes_file;
    const char *sched_conf_file;
    const char *web_dir;
    int period_ms;
    int shutdown_grace_s;
    size_t body_limit;
    int max_connections;
    int restart_backoff_ms;
    int32_t port_first, port_last;
    bool keep_tasks;
    bool cron_every;              /* --test-cron-every: CronJobs may use @every (tests' fast schedules) */
    bool gpu_uuids;               /* --gpu-visible-devices uuid */
    int64_t gpu_recheck_ms;       /* --gpu-recheck: the default node's GPUs looked for again, 0: never */
    int64_t gpu_sample_ms;        /* --gpu-sample: NVML asked for utilisation and memory, 0: never */
    int64_t commit_delay_ms;      /* 0: commit as soon as the writer is free */
    int64_t history_retention_ms; /* 0: keep deleted jobs' history for ever */
    int64_t watch_window_ms;      /* how far back a watch may resume by resourceVersion */
    int64_t watch_bookmark_ms;
    int client_timeout_s;
    int header_timeout_ms; /* a request's headers, or a WebSocket handshake, in at most this */
    int max_per_client;    /* HTTP connections from one address */
    int ws_max_subscribers, ws_max_per_client;
    double rate_per_second; /* 0: no rate limit */
    double rate_burst;      /* 0: one second's worth */
    struct cors_origins cors;
    const char *ws_listen;             /* NULL: the HTTP port + 1 on the same host (0 when that is 0) */
    long hub_items;                    /* --watch-cache-size */
    bool auth;                         /* --auth: every request needs a token */
    const char *auth_webhook;          /* --auth-webhook URL, or NULL */
    const char *host_path_namespaces;  /* --host-path-namespaces: where users may mount hostPath volumes */
    struct process_limits task_limits; /* --max-log-bytes, --task-pids-max */
    struct job_limits job_limits;      /* --max-replicas-per-task, --max-replicas-per-job, --max-tasks-per-job */
    int32_t list_page_max;             /* --max-list-page */
    const char *companions_file;       /* --companions FILE, or NULL: the built-in types */
    const char *images_file;           /* --images FILE, or NULL: every image in the default environment */
    const char *watchdog_file;         /* --watchdog FILE, or NULL: no WatchDog */
    const char *oci_runtime;           /* --oci-runtime PATH, or NULL: podman on PATH */
    const char *backend;               /* --backend local|kubernetes|slurm, or NULL: local */
    const char *kubeconfig;            /* --kubeconfig FILE */
    const char *slurmrestd;            /* --slurmrestd URL */
    const char *backends_file;         /* --backends FILE: routes per queue and engine settings */
    int32_t companion_port_first, companion_port_last; /* --companion-ports; 0: the core's default */
    struct numa_options numa; /* --cpu-manager-policy, --topology-manager-policy, --reserved-cpus */
};

/* Reads argv into o (defaults first). Returns 0 to run, 1 when --help was printed, -1 after a
 * message on stderr (exit status 2). o->cors is the caller's to free in every case. */
int options_parse(int argc, char **argv, struct options *o);

#endif
