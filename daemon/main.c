/* jobserver: Caldera's daemon. Reads its options, opens the database, rebuilds the core's state,
 * listens, and on SIGTERM/SIGINT stops in order: HTTP, tasks, core, database. */
#include <curl/curl.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adapters/objects/companion_types.h"
#include "adapters/objects/node.h"
#include "adapters/objects/scheduler_conf.h"
#include "adapters/dialects/volcano/job.h"
#include "common/clock.h"
#include "common/duration.h"
#include "common/fs.h"
#include "common/log.h"
#include "gateway/auth/auth.h"
#include "gateway/http/http.h"
#include "gateway/hooks.h"
#include "gateway/routes.h"
#include "gateway/watch/hub.h"
#include "gateway/limits/limits.h"
#include "gateway/ws/ws.h"
#include "scheduler/core/core.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/registry.h"
#include "runtime/data_dir.h"
#include "runtime/host.h"
#include "runtime/process.h"
#include "store/store.h"

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
    struct process_limits task_limits; /* --max-log-bytes, --task-pids-max */
    struct job_limits job_limits;      /* --max-replicas-per-task, --max-replicas-per-job, --max-tasks-per-job */
    int32_t list_page_max;             /* --max-list-page */
    const char *companions_file;       /* --companions FILE, or NULL: the built-in types */
    int32_t companion_port_first, companion_port_last; /* --companion-ports */
};

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
    OPT_HEADER_TIMEOUT,
    OPT_MAX_PER_CLIENT,
    OPT_WS_MAX_SUBSCRIBERS,
    OPT_WS_MAX_PER_CLIENT,
    OPT_MAX_LOG_BYTES,
    OPT_TASK_PIDS_MAX,
    OPT_MAX_REPLICAS_TASK,
    OPT_MAX_REPLICAS_JOB,
    OPT_MAX_TASKS_JOB,
    OPT_MAX_LIST_PAGE,
    OPT_COMPANIONS,
    OPT_COMPANION_PORTS
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
            "  --restart-backoff MS      first wait before a container restarts in place (restartPolicy OnFailure\n"
            "                            or Always); doubles each time up to 300 s (default 10000, as kubelet)\n"
            "  --job-ports FIRST-LAST    ports handed to jobs whose plugins listen (pytorch, tensorflow, ray)\n"
            "                            (default 20000-59999)\n"
            "  --companions FILE         companion types (YAML) on top of the built-in jupyter, tensorboard,\n"
            "                            code-server and terminal; a bad file stops the server at start\n"
            "  --companion-ports FIRST-LAST  loopback ports companions listen on (default 42000-42999)\n"
            "  --max-body-bytes BYTES    largest request body accepted; larger ones get 413 (default 8388608;\n"
            "                            --max-body is the same)\n"
            "  --commit-delay DURATION   how long the database writer may wait for more changes before it\n"
            "                            commits a small batch (e.g. 2ms; default 0: commit at once; at most 1s)\n"
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
            "  --max-log-bytes BYTES     the largest log of one attempt (default 67108864, 64 MiB; 0: unbounded;\n"
            "                            else at least 4096); past it the head stays, a marker says how much\n"
            "                            was dropped and the last 64 KiB (a quarter of BYTES when less) follow\n"
            "  --task-pids-max N         pids.max of every attempt's cgroup: its processes and threads (default\n"
            "                            4096; 0: no limit); a pod may ask for less with the annotation\n"
            "                            caldera.io/pids-max on its template\n"
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

/* The companion types: the built-ins and --companions FILE on top. Returns 0, or -1 after saying why. */
static int load_companion_types(const char *file, struct companion_types *types)
{
    char *data = NULL;
    size_t len = 0;
    if (file && read_file(file, CONFIG_FILE_LIMIT, &data, &len) != 0) {
        fprintf(stderr, "jobserver: cannot read --companions %s: %s\n", file, strerror(errno));
        return -1;
    }
    struct api_status st = {0};
    int rc = companion_types_load(data, len, types, &st);
    if (rc != 0)
        fprintf(stderr, "jobserver: --companions %s: %s\n", file ? file : "(built-in)", st.message);
    free(data);
    return rc;
}

/* Caldera's own programs: the directory of the running jobserver. */
static char *own_bin_dir(void)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    *slash = '\0';
    return strdup(exe);
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
static int parse_options(int argc, char **argv, struct options *o)
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
        {"companion-ports", required_argument, 0, OPT_COMPANION_PORTS},
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
                          .list_page_max = DEFAULT_LIST_PAGE};
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
        case OPT_COMPANIONS: o->companions_file = optarg; break;
        case OPT_COMPANION_PORTS:
            if (parse_companion_ports(optarg, &o->companion_port_first, &o->companion_port_last) != 0)
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

/* bin/../web, found through /proc/self/exe so the server works from any directory. */
static char *default_web_dir(void)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    for (int i = 0; i < 2; i++) {
        char *slash = strrchr(exe, '/');
        if (!slash)
            return NULL;
        *slash = '\0';
    }
    char *dir;
    if (asprintf(&dir, "%s/web", exe) < 0)
        return NULL;
    if (access(dir, R_OK) != 0) {
        free(dir);
        return NULL;
    }
    return dir;
}

static int load_nodes(const struct options *o, struct node **nodes, int *count)
{
    struct machine m = {0};
    host_identify(&m);
    if (!o->nodes_file) {
        char err[256];
        *nodes = calloc(1, sizeof **nodes);
        if (!*nodes || host_resources(&m, o->data_dir, err, sizeof err) != 0) {
            log_error("%s", *nodes ? err : "out of memory");
            free(*nodes);
            return -1;
        }
        node_from_machine(*nodes, &m, clock_wall_ms());
        *count = 1;
        return 0;
    }
    char *data;
    size_t len;
    if (read_file(o->nodes_file, CONFIG_FILE_LIMIT, &data, &len) != 0) {
        log_error("cannot read the nodes file %s: %s", o->nodes_file, strerror(errno));
        return -1;
    }
    struct api_status st = {0};
    int rc = nodes_from_yaml(data, len, m.arch, clock_wall_ms(), nodes, count, &st);
    free(data);
    if (rc != 0)
        log_error("%s: %s", o->nodes_file, st.message);
    return rc;
}

static int load_sched_conf(const struct options *o, struct sched_conf *conf)
{
    if (!o->sched_conf_file) {
        sched_conf_default(conf);
    } else {
        char *data;
        size_t len;
        if (read_file(o->sched_conf_file, CONFIG_FILE_LIMIT, &data, &len) != 0) {
            log_error("cannot read the scheduler conf %s: %s", o->sched_conf_file, strerror(errno));
            return -1;
        }
        struct api_status st = {0};
        int rc = sched_conf_parse(data, len, conf, &st);
        free(data);
        if (rc != 0) {
            log_error("%s: %s", o->sched_conf_file, st.message);
            return -1;
        }
    }
    char missing[512];
    int n = sched_conf_unimplemented(conf, missing, sizeof missing);
    if (n > 0)
        log_warn("scheduler conf: %s %s not implemented yet and will be skipped", missing, n == 1 ? "is" : "are");
    return 0;
}

/* Opens the database with the options that tune its writer (commit delay, history retention), and
 * makes its commits feed the hub, which starts where the database ends. */
static int open_store(const struct options *o, const char *db_path, struct hub *hub, struct store **out, char *err,
                      size_t errlen)
{
    if (store_open(db_path, out, err, errlen) != 0)
        return -1;
    store_set_commit_delay(*out, (int)o->commit_delay_ms);
    if (store_set_history_retention(*out, o->history_retention_ms, o->data_dir) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    hub_set_floor(hub, store_committed_seq(*out));
    store_set_commit_listener(*out, hub_publish, hub);
    return 0;
}

static void free_config(struct core_config *cfg)
{
    for (int i = 0; i < cfg->nnodes; i++)
        node_clear(&cfg->nodes[i]);
    free(cfg->nodes);
    sched_conf_free(&cfg->conf);
    if (cfg->store)
        store_close(cfg->store);
}

/* DIR/name holding url and a newline. */
static int write_url_file(const char *data_dir, const char *name, const char *url)
{
    char path[4096], line[160];
    snprintf(path, sizeof path, "%s/%s", data_dir, name);
    int n = snprintf(line, sizeof line, "%s\n", url);
    return write_file_atomic(path, line, (size_t)n, 0644);
}

static int wait_for_signal(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    int sig = 0;
    sigwait(&set, &sig);
    return sig;
}

static void block_signals(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, NULL); /* every thread inherits this; only main waits for them */
    signal(SIGPIPE, SIG_IGN);
}

/* The rate limiter of --rate-limit and --rate-burst (NULL when there is none), and one log line
 * saying every limit the server applies. Returns 0, or -1 when the limiter cannot be made. */
static int make_limits(const struct options *o, struct rate_limiter **rl)
{
    *rl = NULL;
    double burst = o->rate_burst > 0 ? o->rate_burst : ceil(o->rate_per_second) > 1 ? ceil(o->rate_per_second) : 1;
    if (o->rate_per_second > 0 && rate_limiter_new(o->rate_per_second, burst, rl) != 0) {
        log_error("cannot set up the rate limit: out of memory or no SHA-256 in libcrypto");
        return -1;
    }
    char rate[96] = "no rate limit";
    if (*rl)
        snprintf(rate, sizeof rate, "%g requests a second per client, %g at once", o->rate_per_second, burst);
    log_info(
        "limits: bodies up to %zu bytes, %d connections (%d from one address), headers within %d ms, clients "
        "idle or slow for %d s dropped, %s, %d CORS origin%s; WebSocket: %d subscribers (%d from one address)",
        o->body_limit, o->max_connections, o->max_per_client, o->header_timeout_ms, o->client_timeout_s, rate,
        o->cors.n, o->cors.n == 1 ? "" : "s", o->ws_max_subscribers, o->ws_max_per_client);
    log_info("limits: jobs of at most %d tasks, %d replicas a task and %d in all; list pages of %d items",
             o->job_limits.tasks_per_job, o->job_limits.replicas_per_task, o->job_limits.replicas_per_job,
             o->list_page_max);
    return 0;
}

/* The WebSocket listener of --ws-listen, by default the HTTP one's port + 1 (a free port when HTTP
 * asked for one), and where it is: gw->ws_url, DIR/jobserver.ws-url and the log. */
static int start_ws(const struct options *o, struct gateway *gw, struct ws_server **ws)
{
    char listen[96], err[512];
    if (o->ws_listen) {
        snprintf(listen, sizeof listen, "%s", o->ws_listen);
    } else {
        const char *colon = strrchr(o->listen, ':');
        long port = colon ? strtol(colon + 1, NULL, 10) : 0;
        snprintf(listen, sizeof listen, "%.*s:%ld", colon ? (int)(colon - o->listen) : 0, o->listen,
                 port > 0 ? port + 1 : 0);
    }
    struct ws_config cfg = {.listen = listen,
                            .hub = gw->hub,
                            .db_path = gw->db_path,
                            .auth = ws_auth_tokens(gw->auth),
                            .max_subscribers = o->ws_max_subscribers,
                            .max_per_client = o->ws_max_per_client,
                            .handshake_timeout_ms = o->header_timeout_ms};
    if (ws_start(&cfg, ws, err, sizeof err) != 0) {
        log_error("%s", err);
        return -1;
    }
    gw->ws_url = ws_url(*ws);
    if (write_url_file(o->data_dir, "jobserver.ws-url", gw->ws_url) != 0)
        log_warn("cannot write %s/jobserver.ws-url: %s", o->data_dir, strerror(errno));
    log_info("WebSocket stream on %s", gw->ws_url);
    return 0;
}

/* Every connection and subscriber holds a descriptor: take the most the system allows, and keep the
 * listeners' caps within it, a quarter (at least 256) left for the database, logs and tasks, so
 * neither listener meets EMFILE. */
static void fit_open_file_limit(struct options *o)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
            getrlimit(RLIMIT_NOFILE, &rl);
    }
    long limit = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 1L << 24 ? 1L << 24 : (long)rl.rlim_cur;
    long reserve = limit / 4 > 256 ? limit / 4 : 256;
    long budget = limit - reserve, wanted = (long)o->max_connections + ws_descriptors(o->ws_max_subscribers);
    if (budget >= wanted)
        return;
    budget = budget > 32 ? budget : 32;
    int http = (int)(budget * o->max_connections / wanted), ws = (int)(budget * o->ws_max_subscribers / wanted);
    log_warn(
        "the open-file limit (%ld) leaves room for %ld connections: --max-connections %d and "
        "--ws-max-subscribers %d lowered to %d and %d",
        limit, budget, o->max_connections, o->ws_max_subscribers, http > 1 ? http : 1, ws > 1 ? ws : 1);
    o->max_connections = http > 1 ? http : 1;
    o->ws_max_subscribers = ws > 1 ? ws : 1;
}

/* The authenticator: the stored tokens, the first admin token when there is none, and one line
 * saying who may ask. Returns 0, or -1 after logging why. */
static int make_auth(const struct options *o, struct core *core, struct store *store, const char *db_path,
                     struct auth **out)
{
    char err[512];
    const struct auth_config cfg = {.required = o->auth, .webhook_url = o->auth_webhook, .core = core, .store = store};
    if (auth_new(&cfg, out, err, sizeof err) != 0 || auth_load(*out, db_path, err, sizeof err) != 0 ||
        auth_bootstrap(*out, o->data_dir, err, sizeof err) != 0) {
        log_error("%s", err);
        return -1;
    }
    if (o->auth)
        log_info("auth: on (--auth): every request but /healthz and the UI's files needs a bearer token%s%s",
                 o->auth_webhook ? "; tokens the server does not know are asked of " : "",
                 o->auth_webhook ? o->auth_webhook : "");
    else
        log_info(
            "auth: off: anonymous requests are taken from loopback only, as an admin; others need a bearer "
            "token (start with --auth to require one everywhere)%s%s",
            o->auth_webhook ? "; tokens the server does not know are asked of " : "",
            o->auth_webhook ? o->auth_webhook : "");
    return 0;
}

static struct companion_types companion_types;

static int run(const struct options *o)
{
    char err[512] = "", db_path[4096];
    if (mkdir_p(o->data_dir, 0711) != 0) {
        log_error("cannot create the data directory %s: %s", o->data_dir, strerror(errno));
        return 1;
    }
    if (data_dir_secure(o->data_dir, err, sizeof err) != 0) {
        log_error("%s", err);
        return 1;
    }
    process_runtime_set_limits(&o->task_limits);
    process_runtime_init(); /* logs once when tasks must run without cgroup limits */
    struct core_config cfg = {.data_dir = o->data_dir,
                              .period_ms = o->period_ms,
                              .shutdown_grace_ms = o->shutdown_grace_s * 1000,
                              .restart_backoff_ms = o->restart_backoff_ms,
                              .port_first = o->port_first,
                              .port_last = o->port_last,
                              .keep_tasks = o->keep_tasks,
                              .companion_types = &companion_types,
                              .companion_port_first = o->companion_port_first,
                              .companion_port_last = o->companion_port_last};
    char *bin_dir = own_bin_dir();
    cfg.bin_dir = bin_dir;
    snprintf(db_path, sizeof db_path, "%s/caldera.db", o->data_dir);
    struct core *core = NULL;
    struct hub *hub = hub_new((size_t)o->hub_items, HUB_MAX_BYTES);
    static struct watch_demand demand; /* object watches count themselves; the core renders for them */
    cfg.watch_demand = &demand;
    if (!hub) {
        log_error("out of memory");
        free_config(&cfg);
        free(bin_dir);
        return 1;
    }
    if (load_nodes(o, &cfg.nodes, &cfg.nnodes) != 0 || load_sched_conf(o, &cfg.conf) != 0 ||
        open_store(o, db_path, hub, &cfg.store, err, sizeof err) != 0 ||
        core_start(&cfg, &core, err, sizeof err) != 0) {
        if (err[0])
            log_error("%s", err);
        free_config(&cfg); /* whatever core_start did not take over */
        hub_free(hub);
        free(bin_dir);
        return 1;
    }
    char url_file[4200];
    snprintf(url_file, sizeof url_file, "%s/jobserver.url", o->data_dir);
    unlink(url_file); /* a stale URL must not point clients at a previous run */
    snprintf(url_file, sizeof url_file, "%s/jobserver.ws-url", o->data_dir);
    unlink(url_file);
    struct ws_server *ws = NULL;
    char *web = o->web_dir ? strdup(o->web_dir) : default_web_dir();
    struct gateway gw = {.hooks = &gateway_http_hooks,
                         .routes = gateway_routes,
                         .core = core,
                         .store = cfg.store,
                         .hub = hub,
                         .watch_demand = &demand,
                         .watch_window_ms = o->watch_window_ms,
                         .watch_bookmark_ms = o->watch_bookmark_ms,
                         .db_path = db_path,
                         .data_dir = o->data_dir,
                         .web_dir = web,
                         .body_limit = o->body_limit,
                         .durable_timeout_ms = 10000,
                         .list_page_max = o->list_page_max,
                         .client_timeout_s = o->client_timeout_s,
                         .cors = &o->cors,
                         .header_timeout_ms = o->header_timeout_ms,
                         .max_connections_per_client = o->max_per_client,
                         .runtime_warning = process_runtime_warning()};
    int status = 0;
    if (make_limits(o, &gw.rate_limiter) != 0 || make_auth(o, core, cfg.store, db_path, &gw.auth) != 0) {
        status = 1;
    } else if (http_start(&gw, o->listen, o->max_connections, err, sizeof err) != 0) {
        log_error("%s", err);
        status = 1;
    } else {
        log_info("listening on %s (data in %s)", gw.url, o->data_dir);
        if (start_ws(o, &gw, &ws) != 0) {
            status = 1;
        } else {
            /* Last: once this file is there, everything listens. */
            if (write_url_file(o->data_dir, "jobserver.url", gw.url) != 0)
                log_warn("cannot write %s/jobserver.url: %s", o->data_dir, strerror(errno));
            int sig = wait_for_signal();
            log_info("%s received: shutting down", sig == SIGINT ? "SIGINT" : "SIGTERM");
        }
        hub_close(hub); /* watch streams end, so their connections let HTTP stop */
        ws_stop(ws);    /* before the hub goes: it reads the hub until then */
        gw.ws_url = NULL;
        http_stop(&gw);
    }
    core_stop(core);
    store_close(cfg.store);
    hub_free(hub);
    auth_free(gw.auth);
    rate_limiter_free(gw.rate_limiter);
    free(web);
    free(bin_dir);
    log_info("stopped");
    return status;
}

int main(int argc, char **argv)
{
    struct options o;
    int rc = parse_options(argc, argv, &o);
    if (rc != 0) {
        cors_origins_free(&o.cors);
        return rc > 0 ? 0 : 2;
    }
    if (load_companion_types(o.companions_file, &companion_types) != 0) {
        cors_origins_free(&o.cors);
        return 2;
    }
    umask(077);                           /* the server's files are its own; tasks get 022 back (spawn.c) */
    volcano_job_set_limits(o.job_limits); /* before any thread reads them */
    block_signals();
    fit_open_file_limit(&o);
    json_object_seed(0); /* seed Jansson's hashing once, before any thread uses it */
    curl_global_init(CURL_GLOBAL_DEFAULT);
    int status = run(&o);
    cors_origins_free(&o.cors);
    companion_types_free(&companion_types);
    curl_global_cleanup();
    return status;
}
