/* jobserver's command line read into struct options: long options with getopt, each value checked
 * against its bounds with a message naming the option, and the usage text. */
#include "daemon/options.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/duration.h"
#include "common/log.h"
#include "model/backend_conf.h"
#include "gateway/http/http.h"

/* Long options without a short letter. */
enum {
    OPT_RATE_LIMIT = 256,
    OPT_RATE_BURST,
    OPT_CLIENT_TIMEOUT,
    OPT_CORS_ORIGIN,
    OPT_WS_LISTEN,
    OPT_WATCH_CACHE,
    OPT_WATCH_WINDOW,
    OPT_WATCH_BOOKMARK,
    OPT_AUTH,
    OPT_AUTH_WEBHOOK,
    OPT_HOST_PATH_NAMESPACES,
    OPT_HEADER_TIMEOUT,
    OPT_MAX_PER_CLIENT,
    OPT_WS_MAX_SUBSCRIBERS,
    OPT_WS_MAX_PER_CLIENT,
    OPT_MAX_LOG_BYTES,
    OPT_TASK_PIDS_MAX,
    OPT_CRON_EVERY,
    OPT_MAX_REPLICAS_TASK,
    OPT_MAX_REPLICAS_JOB,
    OPT_MAX_TASKS_JOB,
    OPT_MAX_LIST_PAGE,
    OPT_COMPANIONS,
    OPT_IMAGES,
    OPT_WATCHDOG,
    OPT_GPU_VISIBLE,
    OPT_GPU_RECHECK,
    OPT_GPU_SAMPLE,
    OPT_COMPANION_PORTS,
    OPT_CPU_MANAGER_POLICY,
    OPT_TOPOLOGY_MANAGER_POLICY,
    OPT_RESERVED_CPUS,
    OPT_OCI_RUNTIME,
    OPT_BACKEND,
    OPT_KUBECONFIG,
    OPT_SLURMRESTD,
    OPT_BACKENDS
};
#define DEFAULT_LIST_PAGE 1000

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: jobserver [OPTIONS]\n"
            "Caldera's job server: Volcano Jobs in, scheduled and run as local processes, every attempt recorded.\n"
            "\n"
            "  --listen HOST:PORT        where the API listens (default %s; port 0 picks a free one)\n"
            "  --ws-listen HOST:PORT     where the WebSocket stream of events listens (default: the --listen host\n"
            "                            and port + 1; port 0 picks a free one); GET /apis/caldera.io/v1/stream\n"
            "                            tells where it is\n"
            "  --data DIR                data directory: database, job files, logs (default %s)\n"
            "  --nodes FILE              virtual nodes: v1 Node objects (YAML, several documents or a v1 List);\n"
            "                            default: this machine as one node\n"
            "  --scheduler-conf FILE     volcano-scheduler.conf (actions and plugin tiers); default: Volcano's\n"
            "  --schedule-period MS      scheduling period in milliseconds (default 1000)\n"
            "  --shutdown-grace SECONDS  at shutdown, how long tasks get between SIGTERM and SIGKILL (default 10)\n"
            "  --keep-tasks              at shutdown, leave running tasks running: the next server started on\n"
            "                            the same data directory adopts them (default: stop them)\n"
            "  --gpu-visible-devices index|uuid  how a task's CUDA_VISIBLE_DEVICES and NVIDIA_VISIBLE_DEVICES\n"
            "                            name its GPU devices (default index)\n"
            "  --gpu-recheck DURATION    how often this machine's GPUs are looked for again, a Node Event\n"
            "                            saying which went or came back (default 60s; 0: never)\n"
            "  --gpu-sample DURATION     how often NVML is asked for the GPUs' utilisation and memory, kept per\n"
            "                            attempt and shown in /metrics (default 5s; 0: never)\n"
            "  --restart-backoff MS      first wait before a container restarts in place (restartPolicy OnFailure\n"
            "                            or Always); doubles each time up to 300 s (default 10000, as kubelet)\n"
            "  --job-ports FIRST-LAST    ports handed to jobs whose plugins listen (pytorch, tensorflow, ray)\n"
            "                            (default 20000-59999)\n"
            "  --companions FILE         companion types (YAML) on top of the built-in jupyter, tensorboard,\n"
            "                            code-server and terminal; a bad file stops the server at start\n"
            "  --companion-ports FIRST-LAST  loopback ports companions listen on (default 42000-42999)\n"
            "  --images FILE             software environments (YAML) the images of containers name: venv,\n"
            "                            conda, PATH, env; unknown images warned or refused (default: none)\n"
            "  --watchdog FILE           the WatchDog (YAML): notices to webhooks, queue capability as a\n"
            "                            percentage of the cluster, waste notices (default: none)\n"
            "  --backend KIND            where jobs run: local (this machine's processes, the default),\n"
            "                            kubernetes (a cluster running Volcano) or slurm (through slurmrestd)\n"
            "  --kubeconfig FILE         the cluster the kubernetes backend sends jobs to\n"
            "  --slurmrestd URL          the slurmrestd the slurm backend sends jobs to\n"
            "  --backends FILE           backends per queue (YAML: default, kubernetes, slurm, queues)\n"
            "  --oci-runtime PATH        podman, which runs pods of runtimeClassName \"oci\" as OCI containers of\n"
            "                            locally present images (default: podman on PATH; none found: such\n"
            "                            pods are refused)\n"
            "  --max-body-bytes BYTES    largest request body accepted; larger ones get 413 (default 8388608;\n"
            "                            --max-body is the same)\n"
            "  --commit-delay DURATION   how long the database writer may wait for more changes before it\n"
            "                            commits a small batch (e.g. 2ms; default 0: commit at once; at most 1s)\n"
            "  --test-cron-every         for tests: CronJob schedules may be \"@every <duration>\" (at least 1s)\n"
            "  --history-retention DURATION\n"
            "                            how long a deleted job's history (rows and logs) is kept after its\n"
            "                            deletion (e.g. 720h; default 0: for ever); live jobs are never pruned\n"
            "  --watch-window DURATION   how far back a watch may resume from a resourceVersion (by the time of\n"
            "                            the first change it missed; older: 410 Expired) (default 5m)\n"
            "  --watch-cache-size N      the newest changes kept in memory for watches and WebSocket streams to\n"
            "                            resume from exactly; a stream further behind is dropped and resumes\n"
            "                            from the database (default 65536)\n"
            "  --watch-bookmark-interval DURATION\n"
            "                            how often a watch with allowWatchBookmarks=true gets a BOOKMARK\n"
            "                            (default 10s)\n"
            "  --max-connections N       concurrent HTTP connections (default 4096); more are closed at once\n"
            "  --max-connections-per-client N\n"
            "                            concurrent HTTP connections from one client address (default 256; 0: no\n"
            "                            limit); more are closed at once\n"
            "  --max-replicas-per-task N a Job's task may have at most N replicas (default 100000); more: 422\n"
            "  --max-replicas-per-job N  a Job's tasks may have at most N replicas together (default 100000)\n"
            "  --max-tasks-per-job N     a Job may have at most N tasks (default 10000)\n"
            "  --max-list-page N         lists of Jobs, PodGroups, Pods, Events and histories answer at most N\n"
            "                            items a page, also when the client sets no limit, with\n"
            "                            metadata.continue for the next (default 1000)\n"
            "  --client-timeout DURATION a connection idle this long is closed, and a request whose body takes\n"
            "                            longer in all is dropped (e.g. 30s; default 60s)\n"
            "  --header-timeout DURATION a request's headers, counted from the accept or the end of the previous\n"
            "                            request (so also how long a kept-alive connection may idle), and a\n"
            "                            WebSocket handshake, must arrive within this, else the connection is\n"
            "                            closed (e.g. 5s; default 10s)\n"
            "  --ws-max-subscribers N    WebSocket subscribers at once (default 4096); more get 503 before the\n"
            "                            upgrade\n"
            "  --ws-max-subscribers-per-client N\n"
            "                            WebSocket subscribers from one client address (default 256); more get\n"
            "                            429 before the upgrade\n"
            "  --rate-limit N/s          requests a second per client (its bearer token, else its address);\n"
            "                            more get 429 with Retry-After (N/m: a minute; default 0: no limit)\n"
            "  --rate-burst M            requests a client may make at once above its rate (default: N)\n"
            "  --cors-origin ORIGIN      an origin (https://ui.example.com) whose pages may call the API from\n"
            "                            a browser; repeatable, matched exactly (default: none)\n"
            "  --auth                    every request but /healthz and the UI's files needs a bearer token\n"
            "                            (Authorization: Bearer <token>); without it, anonymous requests are\n"
            "                            taken from loopback only, as an admin. The first admin token is made\n"
            "                            at the first start, in DIR/admin.token (mode 0600)\n"
            "  --auth-webhook URL        ask this service (a Kubernetes TokenReview, as kube-apiserver's\n"
            "                            webhook token authentication) about tokens the server does not know\n"
            "  --host-path-namespaces NS,...  with --auth, the namespaces whose users may mount hostPath volumes\n"
            "                            (the node's files: a privilege); \"*\" every one (default: admins only)\n"
            "  --max-log-bytes BYTES     the largest log of one attempt (default 67108864, 64 MiB; 0: unbounded;\n"
            "                            else at least 4096); past it the head stays, a marker says how much\n"
            "                            was dropped and the last 64 KiB (a quarter of BYTES when less) follow\n"
            "  --task-pids-max N         pids.max of every attempt's cgroup: its processes and threads (default\n"
            "                            4096; 0: no limit); a pod may ask for less with the annotation\n"
            "                            caldera.io/pids-max on its template\n"
            "  --cpu-manager-policy none|static  static: a Guaranteed pod asking whole CPUs gets them to\n"
            "                            itself (an exclusive cpuset, memory on their NUMA nodes) on the default\n"
            "                            node (default none)\n"
            "  --topology-manager-policy none|best-effort|restricted|single-numa-node  how those CPUs keep to\n"
            "                            NUMA nodes, as kubelet's (default none)\n"
            "  --reserved-cpus LIST      CPUs never given exclusively (default under static: the first one)\n"
            "  --web DIR                 the browser UI's files (default: web/ beside bin/)\n"
            "  --log-level LEVEL         debug, info, warn or error (default info)\n"
            "  -h, --help                this help\n"
            "\n"
            "Once listening, the server writes its URL to DIR/jobserver.url and the WebSocket stream's to\n"
            "DIR/jobserver.ws-url.\n",
            DEFAULT_LISTEN, DEFAULT_DATA);
}

static int parse_int(const char *flag, const char *text, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || *end || v < min || v > max) {
        fprintf(stderr, "jobserver: %s wants a whole number from %ld to %ld, got \"%s\"\n", flag, min, max, text);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_log_level(const char *text)
{
    static const char *const names[] = {"debug", "info", "warn", "error"};
    for (int i = 0; i < 4; i++)
        if (strcmp(text, names[i]) == 0)
            return i;
    return -1;
}

/* A duration option ("250ms", "1h30m", "90" seconds) within 0..max_ms. */
static int parse_duration_option(const char *flag, const char *text, int64_t max_ms, int64_t *out)
{
    const char *why = NULL;
    int64_t ms;
    if (duration_parse(text, &ms, &why) != 0 || ms > max_ms) {
        char max[32];
        fprintf(stderr, "jobserver: %s wants a duration such as 250ms, 90s or 1h30m, at most %s, not \"%s\"%s%s\n",
                flag, duration_text(max_ms, max, sizeof max), text, why ? ": " : "", why ? why : "");
        return -1;
    }
    *out = ms;
    return 0;
}

/* --companion-ports FIRST-LAST: within 1024..65535. */
static int parse_companion_ports(const char *s, int32_t *first, int32_t *last)
{
    char *end;
    long a = strtol(s, &end, 10), b = *end == '-' ? strtol(end + 1, &end, 10) : -1;
    if (*end || a < 1024 || b > 65535 || b < a) {
        fprintf(stderr, "jobserver: --companion-ports is FIRST-LAST within 1024-65535, not \"%s\"\n", s);
        return -1;
    }
    *first = (int32_t)a;
    *last = (int32_t)b;
    return 0;
}

/* --job-ports FIRST-LAST: at least 16 ports, within 1024..65535. */
static int parse_port_range(const char *s, int32_t *first, int32_t *last)
{
    char *end;
    long a = strtol(s, &end, 10), b = *end == '-' ? strtol(end + 1, &end, 10) : -1;
    if (*end || a < 1024 || b > 65535 || b - a < 15) {
        fprintf(stderr, "jobserver: --job-ports is FIRST-LAST within 1024-65535, at least 16 ports, not \"%s\"\n", s);
        return -1;
    }
    *first = (int32_t)a;
    *last = (int32_t)b;
    return 0;
}

/* --header-timeout, --max-connections-per-client and the WebSocket listener's caps. Returns 0, or -1
 * after saying why. */
static int parse_connection_option(int c, const char *text, struct options *o)
{
    int64_t ms;
    long v;
    switch (c) {
    case OPT_HEADER_TIMEOUT:
        if (parse_duration_option("--header-timeout", text, 3600 * 1000, &ms) != 0)
            return -1;
        if (ms < 100) {
            fprintf(stderr, "jobserver: --header-timeout is at least 100ms, not \"%s\"\n", text);
            return -1;
        }
        o->header_timeout_ms = (int)ms;
        return 0;
    case OPT_MAX_PER_CLIENT:
        if (parse_int("--max-connections-per-client", text, 0, 1000000, &v) != 0)
            return -1;
        o->max_per_client = (int)v;
        return 0;
    case OPT_WS_MAX_SUBSCRIBERS:
        if (parse_int("--ws-max-subscribers", text, 1, 1000000, &v) != 0)
            return -1;
        o->ws_max_subscribers = (int)v;
        return 0;
    default:
        if (parse_int("--ws-max-subscribers-per-client", text, 1, 1000000, &v) != 0)
            return -1;
        o->ws_max_per_client = (int)v;
        return 0;
    }
}

/* --client-timeout, --rate-limit, --rate-burst and --cors-origin. Returns 0, or -1 after saying why. */
static int parse_limit_option(int c, const char *text, struct options *o)
{
    char err[300];
    int64_t ms;
    long v;
    switch (c) {
    case OPT_CLIENT_TIMEOUT:
        if (parse_duration_option("--client-timeout", text, 3600 * 1000, &ms) != 0)
            return -1;
        if (ms < 1000 || ms % 1000 != 0) {
            fprintf(stderr, "jobserver: --client-timeout is whole seconds, at least 1s, not \"%s\"\n", text);
            return -1;
        }
        o->client_timeout_s = (int)(ms / 1000);
        return 0;
    case OPT_RATE_LIMIT:
        if (rate_parse(text, &o->rate_per_second) != 0) {
            fprintf(stderr,
                    "jobserver: --rate-limit wants requests a second such as 50/s (or 600/m; 0: none), "
                    "not \"%s\"\n",
                    text);
            return -1;
        }
        return 0;
    case OPT_RATE_BURST:
        if (parse_int("--rate-burst", text, 1, 10000000, &v) != 0)
            return -1;
        o->rate_burst = (double)v;
        return 0;
    default:
        if (cors_origin_check(text, err, sizeof err) != 0) {
            fprintf(stderr, "jobserver: %s\n", err);
            return -1;
        }
        if (cors_origins_add(&o->cors, text) != 0) {
            fprintf(stderr, "jobserver: out of memory\n");
            return -1;
        }
        return 0;
    }
}

/* --max-log-bytes (0, or from 4096) and --task-pids-max (0, or from 1). */
static int parse_task_limit(int opt, const char *text, struct process_limits *limits)
{
    long v;
    const char *flag = opt == OPT_MAX_LOG_BYTES ? "--max-log-bytes" : "--task-pids-max";
    if (parse_int(flag, text, 0, opt == OPT_MAX_LOG_BYTES ? LONG_MAX : 4194304, &v) != 0)
        return -1;
    if (opt == OPT_TASK_PIDS_MAX) {
        limits->pids_max = v;
        return 0;
    }
    if (v > 0 && v < 4096) {
        fprintf(stderr, "jobserver: --max-log-bytes is 0 (unbounded) or at least 4096, not \"%s\"\n", text);
        return -1;
    }
    limits->max_log_bytes = v;
    return 0;
}

/* The bounds on what one request may cost: a Job's replicas and tasks, a list's page. */
static int parse_size_option(int opt, const char *text, struct options *o)
{
    long v;
    switch (opt) {
    case OPT_MAX_REPLICAS_TASK:
        if (parse_int("--max-replicas-per-task", text, 1, 10000000, &v) != 0)
            return -1;
        o->job_limits.replicas_per_task = (int32_t)v;
        return 0;
    case OPT_MAX_REPLICAS_JOB:
        if (parse_int("--max-replicas-per-job", text, 1, 10000000, &v) != 0)
            return -1;
        o->job_limits.replicas_per_job = (int32_t)v;
        return 0;
    case OPT_MAX_TASKS_JOB:
        if (parse_int("--max-tasks-per-job", text, 1, 1000000, &v) != 0)
            return -1;
        o->job_limits.tasks_per_job = (int32_t)v;
        return 0;
    default:
        if (parse_int("--max-list-page", text, 1, 1000000, &v) != 0)
            return -1;
        o->list_page_max = (int32_t)v;
        return 0;
    }
}

/* Returns 0 to run, 1 to exit successfully (help), -1 on a usage error. */
int options_parse(int argc, char **argv, struct options *o)
{
    static const struct option longs[] = {
        {"listen", required_argument, 0, 'l'},
        {"data", required_argument, 0, 'd'},
        {"nodes", required_argument, 0, 'N'},
        {"scheduler-conf", required_argument, 0, 'c'},
        {"schedule-period", required_argument, 0, 'p'},
        {"shutdown-grace", required_argument, 0, 'g'},
        {"max-body", required_argument, 0, 'b'},
        {"max-connections", required_argument, 0, 'm'},
        {"web", required_argument, 0, 'w'},
        {"log-level", required_argument, 0, 'L'},
        {"restart-backoff", required_argument, 0, 'r'},
        {"job-ports", required_argument, 0, 'P'},
        {"commit-delay", required_argument, 0, 'C'},
        {"history-retention", required_argument, 0, 'R'},
        {"keep-tasks", no_argument, 0, 'K'},
        {"test-cron-every", no_argument, 0, OPT_CRON_EVERY},
        {"gpu-visible-devices", required_argument, 0, OPT_GPU_VISIBLE},
        {"gpu-recheck", required_argument, 0, OPT_GPU_RECHECK},
        {"gpu-sample", required_argument, 0, OPT_GPU_SAMPLE},
        {"help", no_argument, 0, 'h'},
        {"max-body-bytes", required_argument, 0, 'b'},
        {"client-timeout", required_argument, 0, OPT_CLIENT_TIMEOUT},
        {"rate-limit", required_argument, 0, OPT_RATE_LIMIT},
        {"rate-burst", required_argument, 0, OPT_RATE_BURST},
        {"cors-origin", required_argument, 0, OPT_CORS_ORIGIN},
        {"ws-listen", required_argument, 0, OPT_WS_LISTEN},
        {"watch-cache-size", required_argument, 0, OPT_WATCH_CACHE},
        {"watch-window", required_argument, 0, OPT_WATCH_WINDOW},
        {"watch-bookmark-interval", required_argument, 0, OPT_WATCH_BOOKMARK},
        {"auth", no_argument, 0, OPT_AUTH},
        {"auth-webhook", required_argument, 0, OPT_AUTH_WEBHOOK},
        {"host-path-namespaces", required_argument, 0, OPT_HOST_PATH_NAMESPACES},
        {"header-timeout", required_argument, 0, OPT_HEADER_TIMEOUT},
        {"max-connections-per-client", required_argument, 0, OPT_MAX_PER_CLIENT},
        {"ws-max-subscribers", required_argument, 0, OPT_WS_MAX_SUBSCRIBERS},
        {"ws-max-subscribers-per-client", required_argument, 0, OPT_WS_MAX_PER_CLIENT},
        {"max-log-bytes", required_argument, 0, OPT_MAX_LOG_BYTES},
        {"task-pids-max", required_argument, 0, OPT_TASK_PIDS_MAX},
        {"max-replicas-per-task", required_argument, 0, OPT_MAX_REPLICAS_TASK},
        {"max-replicas-per-job", required_argument, 0, OPT_MAX_REPLICAS_JOB},
        {"max-tasks-per-job", required_argument, 0, OPT_MAX_TASKS_JOB},
        {"max-list-page", required_argument, 0, OPT_MAX_LIST_PAGE},
        {"companions", required_argument, 0, OPT_COMPANIONS},
        {"images", required_argument, 0, OPT_IMAGES},
        {"watchdog", required_argument, 0, OPT_WATCHDOG},
        {"oci-runtime", required_argument, 0, OPT_OCI_RUNTIME},
        {"backend", required_argument, 0, OPT_BACKEND},
        {"kubeconfig", required_argument, 0, OPT_KUBECONFIG},
        {"slurmrestd", required_argument, 0, OPT_SLURMRESTD},
        {"backends", required_argument, 0, OPT_BACKENDS},
        {"companion-ports", required_argument, 0, OPT_COMPANION_PORTS},
        {"cpu-manager-policy", required_argument, 0, OPT_CPU_MANAGER_POLICY},
        {"topology-manager-policy", required_argument, 0, OPT_TOPOLOGY_MANAGER_POLICY},
        {"reserved-cpus", required_argument, 0, OPT_RESERVED_CPUS},
        {0, 0, 0, 0},
    };
    *o = (struct options){DEFAULT_LISTEN,
                          DEFAULT_DATA,
                          NULL,
                          NULL,
                          NULL,
                          1000,
                          10,
                          DEFAULT_BODY_LIMIT,
                          DEFAULT_MAX_CONNECTIONS,
                          .client_timeout_s = DEFAULT_CLIENT_TIMEOUT_S,
                          .header_timeout_ms = HTTP_DEFAULT_HEADER_TIMEOUT_MS,
                          .max_per_client = DEFAULT_MAX_PER_CLIENT,
                          .ws_max_subscribers = DEFAULT_WS_MAX_SUBSCRIBERS,
                          .ws_max_per_client = DEFAULT_WS_MAX_PER_CLIENT,
                          .hub_items = HUB_MAX_ITEMS,
                          .watch_window_ms = DEFAULT_WATCH_WINDOW_MS,
                          .watch_bookmark_ms = 10000,
                          .task_limits = {PROCESS_DEFAULT_MAX_LOG_BYTES, PROCESS_DEFAULT_PIDS_MAX},
                          .job_limits = JOB_LIMITS_DEFAULT,
                          .list_page_max = DEFAULT_LIST_PAGE,
                          .gpu_recheck_ms = 60000,
                          .gpu_sample_ms = 5000};
    int c;
    long v;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
        switch (c) {
        case 'l': o->listen = optarg; break;
        case 'd': o->data_dir = optarg; break;
        case 'N': o->nodes_file = optarg; break;
        case 'c': o->sched_conf_file = optarg; break;
        case 'w': o->web_dir = optarg; break;
        case 'p':
            if (parse_int("--schedule-period", optarg, 10, 3600000, &v) != 0)
                return -1;
            o->period_ms = (int)v;
            break;
        case 'g':
            if (parse_int("--shutdown-grace", optarg, 0, 3600, &v) != 0)
                return -1;
            o->shutdown_grace_s = (int)v;
            break;
        case 'b':
            if (parse_int("--max-body-bytes", optarg, 1024, 1L << 30, &v) != 0)
                return -1;
            o->body_limit = (size_t)v;
            break;
        case 'm':
            if (parse_int("--max-connections", optarg, 1, 100000, &v) != 0)
                return -1;
            o->max_connections = (int)v;
            break;
        case 'L':
            if (parse_log_level(optarg) < 0) {
                fprintf(stderr, "jobserver: --log-level is debug, info, warn or error, not \"%s\"\n", optarg);
                return -1;
            }
            log_set_level((enum log_level)parse_log_level(optarg));
            break;
        case 'r':
            if (parse_int("--restart-backoff", optarg, 1, 300000, &v) != 0)
                return -1;
            o->restart_backoff_ms = (int)v;
            break;
        case 'P':
            if (parse_port_range(optarg, &o->port_first, &o->port_last) != 0)
                return -1;
            break;
        case 'K': o->keep_tasks = true; break;
        case OPT_CRON_EVERY: o->cron_every = true; break;
        case OPT_GPU_VISIBLE:
            if (strcmp(optarg, "index") != 0 && strcmp(optarg, "uuid") != 0) {
                fprintf(stderr, "jobserver: --gpu-visible-devices is index or uuid, not \"%s\"\n", optarg);
                return -1;
            }
            o->gpu_uuids = strcmp(optarg, "uuid") == 0;
            break;
        case OPT_GPU_RECHECK:
            if (parse_duration_option("--gpu-recheck", optarg, 24 * 3600 * 1000, &o->gpu_recheck_ms) != 0)
                return -1;
            break;
        case OPT_GPU_SAMPLE:
            if (parse_duration_option("--gpu-sample", optarg, 3600 * 1000, &o->gpu_sample_ms) != 0)
                return -1;
            break;
        case OPT_COMPANIONS: o->companions_file = optarg; break;
        case OPT_IMAGES: o->images_file = optarg; break;
        case OPT_WATCHDOG: o->watchdog_file = optarg; break;
        case OPT_OCI_RUNTIME: o->oci_runtime = optarg; break;
        case OPT_BACKEND:
            if (backend_kind_parse(optarg) < 0) {
                fprintf(stderr, "--backend: \"%s\" is not one of local, kubernetes, slurm\n", optarg);
                return -1;
            }
            o->backend = optarg;
            break;
        case OPT_KUBECONFIG: o->kubeconfig = optarg; break;
        case OPT_SLURMRESTD: o->slurmrestd = optarg; break;
        case OPT_BACKENDS: o->backends_file = optarg; break;
        case OPT_COMPANION_PORTS:
            if (parse_companion_ports(optarg, &o->companion_port_first, &o->companion_port_last) != 0)
                return -1;
            break;
        case OPT_CPU_MANAGER_POLICY:
        case OPT_TOPOLOGY_MANAGER_POLICY:
        case OPT_RESERVED_CPUS:
            if (options_parse_numa(c == OPT_CPU_MANAGER_POLICY        ? "--cpu-manager-policy"
                                   : c == OPT_TOPOLOGY_MANAGER_POLICY ? "--topology-manager-policy"
                                                                      : "--reserved-cpus",
                                   optarg, &o->numa) != 0)
                return -1;
            break;
        case OPT_WS_LISTEN: o->ws_listen = optarg; break;
        case OPT_WATCH_CACHE:
            if (parse_int("--watch-cache-size", optarg, 1, 1L << 24, &o->hub_items) != 0)
                return -1;
            break;
        case 'C':
            if (parse_duration_option("--commit-delay", optarg, 1000, &o->commit_delay_ms) != 0)
                return -1;
            break;
        case 'R':
            if (parse_duration_option("--history-retention", optarg, DURATION_MAX_MS, &o->history_retention_ms) != 0)
                return -1;
            break;
        case OPT_WATCH_WINDOW:
            if (parse_duration_option("--watch-window", optarg, DURATION_MAX_MS, &o->watch_window_ms) != 0)
                return -1;
            break;
        case OPT_WATCH_BOOKMARK:
            if (parse_duration_option("--watch-bookmark-interval", optarg, 3600 * 1000, &o->watch_bookmark_ms) != 0)
                return -1;
            if (o->watch_bookmark_ms < 100) {
                fprintf(stderr, "jobserver: --watch-bookmark-interval is at least 100ms, not \"%s\"\n", optarg);
                return -1;
            }
            break;
        case OPT_CLIENT_TIMEOUT:
        case OPT_RATE_LIMIT:
        case OPT_RATE_BURST:
        case OPT_CORS_ORIGIN:
            if (parse_limit_option(c, optarg, o) != 0)
                return -1;
            break;
        case OPT_HEADER_TIMEOUT:
        case OPT_MAX_PER_CLIENT:
        case OPT_WS_MAX_SUBSCRIBERS:
        case OPT_WS_MAX_PER_CLIENT:
            if (parse_connection_option(c, optarg, o) != 0)
                return -1;
            break;
        case OPT_MAX_REPLICAS_TASK:
        case OPT_MAX_REPLICAS_JOB:
        case OPT_MAX_TASKS_JOB:
        case OPT_MAX_LIST_PAGE:
            if (parse_size_option(c, optarg, o) != 0)
                return -1;
            break;
        case OPT_AUTH: o->auth = true; break;
        case OPT_AUTH_WEBHOOK:
            if (strncmp(optarg, "http://", 7) != 0 && strncmp(optarg, "https://", 8) != 0) {
                fprintf(stderr, "jobserver: --auth-webhook wants an http:// or https:// URL, not \"%s\"\n", optarg);
                return -1;
            }
            o->auth_webhook = optarg;
            break;
        case OPT_HOST_PATH_NAMESPACES: o->host_path_namespaces = optarg; break;
        case OPT_MAX_LOG_BYTES:
        case OPT_TASK_PIDS_MAX:
            if (parse_task_limit(c, optarg, &o->task_limits) != 0)
                return -1;
            break;
        case 'h': usage(stdout); return 1;
        default:
            fprintf(stderr, "jobserver: unknown option \"%s\"; see jobserver --help\n", argv[optind - 1]);
            return -1;
        }
    }
    if (o->rate_burst > 0 && o->rate_per_second == 0) {
        fprintf(stderr, "jobserver: --rate-burst needs --rate-limit: without a rate there is nothing to burst above\n");
        return -1;
    }
    if (optind < argc) {
        fprintf(stderr, "jobserver: unexpected argument \"%s\"; see jobserver --help\n", argv[optind]);
        return -1;
    }
    return 0;
}
