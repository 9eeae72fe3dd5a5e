/* jobserver: Caldera's daemon. Reads its options, opens the database, rebuilds the core's state,
 * listens, and on SIGTERM/SIGINT stops in order: HTTP, tasks, core, database. */
#include <curl/curl.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adapters/objects/cronjob.h"
#include "adapters/objects/companion_types.h"
#include "adapters/objects/images.h"
#include "adapters/objects/runtime_class.h"
#include "adapters/objects/node.h"
#include "adapters/objects/scheduler_conf.h"
#include "adapters/objects/backend_conf.h"
#include "adapters/objects/watchdog_conf.h"
#include "common/clock.h"
#include "common/free_later.h"
#include "common/fs.h"
#include "common/log.h"
#include "daemon/gpu_sampling.h"
#include "daemon/gpu_watch.h"
#include "daemon/gpu_xid.h"
#include "daemon/options.h"
#include "gateway/auth/auth.h"
#include "gateway/hooks.h"
#include "gateway/http/http.h"
#include "gateway/proxy/core_resolver.h"
#include "gateway/routes.h"
#include "gateway/watch/hub.h"
#include "gateway/ws/ws.h"
#include "scheduler/core/core.h"
#include "scheduler/watchdog/notifier.h"
#include "scheduler/registry.h"
#include "runtime/data_dir.h"
#include "runtime/cgroup/cgroup.h"
#include "runtime/host.h"
#include "runtime/numa_host.h"
#include "runtime/oci_runtime.h"

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
        host_gpus(&m);
        if (host_numa("", &m.numa) == 0)
            numa_options_apply(&o->numa, &m.numa);
        else
            log_warn("cannot read this machine's CPUs from /sys: no NUMA topology, no exclusive CPUs");
        node_from_machine(*nodes, &m, clock_wall_ms());
        gpu_set_clear(&m.gpus);
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
    if (store_open_checking(db_path, out, err, errlen) != 0) /* core_start's load runs beside the checks */
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
static int load_token(void *ctx, const char *name, const char *json) { return auth_load_token(ctx, name, json); }

static int make_auth(const struct options *o, struct core *core, struct store *store, struct auth **out, char *err,
                     size_t errlen)
{
    const struct auth_config cfg = {.required = o->auth, .webhook_url = o->auth_webhook, .core = core, .store = store};
    /* the core's load read the Tokens: the file is not opened again before its checks pass */
    if (auth_new(&cfg, out, err, errlen) != 0)
        return -1;
    if (core_take_stored_tokens(core, load_token, *out) != 0) {
        snprintf(err, errlen, "cannot load the tokens: out of memory");
        return -1;
    }
    if (auth_bootstrap(*out, o->data_dir, err, errlen) != 0)
        return -1;
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

/* --images FILE into images and in force. Returns 0 (no file: none in force), or -1 after saying why. */
static int load_images(const char *file, struct images_config *images)
{
    char *data = NULL;
    size_t len = 0;
    if (!file)
        return 0;
    if (read_file(file, CONFIG_FILE_LIMIT, &data, &len) != 0) {
        fprintf(stderr, "jobserver: cannot read --images %s: %s\n", file, strerror(errno));
        return -1;
    }
    struct api_status st = {0};
    int rc = images_parse(data, len, images, &st);
    if (rc != 0)
        fprintf(stderr, "jobserver: --images %s: %s\n", file, st.message);
    else
        images_set_active(images);
    free(data);
    return rc;
}

static struct watchdog_conf watchdog; /* read in run(), after the nodes; the core and notifier read it */

/* --watchdog FILE into conf (after the nodes file registered its resources). Returns 0 (no file:
 * conf stays empty), or -1 after saying why. */
static int load_watchdog(const char *file, struct watchdog_conf *conf)
{
    char *data = NULL;
    size_t len = 0;
    if (!file)
        return 0;
    if (read_file(file, CONFIG_FILE_LIMIT, &data, &len) != 0) {
        log_error("cannot read --watchdog %s: %s", file, strerror(errno));
        return -1;
    }
    struct api_status st = {0};
    int rc = watchdog_conf_parse(data, len, conf, &st);
    free(data);
    if (rc != 0) {
        log_error("--watchdog %s: %s", file, st.message);
        return -1;
    }
    log_info("watchdog: %d webhook%s, %d route%s, %d queue%s with capability percentages%s%s", conf->nwebhooks,
             conf->nwebhooks == 1 ? "" : "s", conf->nroutes, conf->nroutes == 1 ? "" : "s", conf->nqueues,
             conf->nqueues == 1 ? "" : "s", conf->pending_ms > 0 ? ", pending notices" : "",
             conf->waste_fraction > 0 ? ", waste notices" : "");
    return 0;
}

static struct backend_conf backends; /* --backend, --kubeconfig, --slurmrestd, --backends: the core reads it */

/* The backends: the flags, then the file over them; every route must name an engine it can reach.
 * Returns 0, or -1 after saying why. */
static int load_backends(const struct options *o, struct core_config *cfg)
{
    backends.default_kind = o->backend ? (enum backend_kind)backend_kind_parse(o->backend) : BACKEND_LOCAL;
    backends.kubeconfig = o->kubeconfig ? strdup(o->kubeconfig) : NULL;
    backends.slurmrestd = o->slurmrestd ? strdup(o->slurmrestd) : NULL;
    struct api_status st = {0};
    if (o->backends_file) {
        char *data = NULL;
        size_t len = 0;
        if (read_file(o->backends_file, CONFIG_FILE_LIMIT, &data, &len) != 0) {
            log_error("cannot read --backends %s: %s", o->backends_file, strerror(errno));
            return -1;
        }
        int rc = backend_conf_parse(data, len, &backends, &st);
        free(data);
        if (rc != 0) {
            log_error("--backends %s: %s", o->backends_file, st.message);
            for (int i = 0; i < st.ncauses; i++)
                log_error("  %s: %s", st.causes[i].field, st.causes[i].message);
            return -1;
        }
    }
    if (backend_conf_check(&backends, &st) != 0) {
        log_error("%s", st.message);
        return -1;
    }
    cfg->backends = &backends;
    if (backends.default_kind != BACKEND_LOCAL || backends.nqueues > 0)
        log_info("backends: jobs run on %s by default, %d queue route%s", backend_kind_name(backends.default_kind),
                 backends.nqueues, backends.nqueues == 1 ? "" : "s");
    return 0;
}

/* The WatchDog of --watchdog for the core: its configuration and its sender (none without webhooks). */
static int start_watchdog(const char *file, struct core_config *cfg)
{
    if (load_watchdog(file, &watchdog) != 0)
        return -1;
    cfg->watchdog = &watchdog;
    cfg->notifier = notifier_start(&watchdog);
    return 0;
}

/* Caldera's own programs (caldera-terminal): the directory of the running jobserver. */
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

static struct companion_types companion_types;
static struct images_config images;

static int run(const struct options *given)
{
    char err[512] = "", db_path[4096];
    if (mkdir_p(given->data_dir, 0711) != 0) {
        log_error("cannot create the data directory %s: %s", given->data_dir, strerror(errno));
        return 1;
    }
    /* Absolute from here on: the paths made from it are handed to programs that run elsewhere (a
     * companion's {workdir}, {token_file} and {logdir} are read from the job's working directory). */
    static char data_dir[PATH_MAX];
    if (!realpath(given->data_dir, data_dir)) {
        log_error("cannot resolve the data directory %s: %s", given->data_dir, strerror(errno));
        return 1;
    }
    struct options resolved = *given;
    resolved.data_dir = data_dir;
    const struct options *o = &resolved;
    if (data_dir_secure(o->data_dir, err, sizeof err) != 0) {
        log_error("%s", err);
        return 1;
    }
    process_runtime_set_limits(&o->task_limits);
    if (o->numa.static_cpus && !o->nodes_file)
        cgroup_use_cpuset(); /* exclusive CPUs are cpusets: before the layout is first read */
    process_runtime_init();  /* logs once when tasks must run without cgroup limits */
    if (o->numa.static_cpus && !o->nodes_file && !cgroup_has_cpuset())
        log_warn(
            "--cpu-manager-policy static: no writable cpuset controller, so exclusive CPUs are counted but "
            "not enforced");
    const char *no_oci = oci_runtime_configure(o->oci_runtime); /* before the first request */
    runtime_class_set_oci(no_oci);
    if (no_oci)
        log_info("runtimeClassName \"oci\" is refused: %s", no_oci);
    else
        log_info("runtimeClassName \"oci\" runs containers with %s", oci_runtime_path());
    struct core_config cfg = {.data_dir = o->data_dir,
                              .period_ms = o->period_ms,
                              .shutdown_grace_ms = o->shutdown_grace_s * 1000,
                              .restart_backoff_ms = o->restart_backoff_ms,
                              .port_first = o->port_first,
                              .port_last = o->port_last,
                              .keep_tasks = o->keep_tasks,
                              .gpu_uuids = o->gpu_uuids,
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
    struct gpu_set gpus = {0}; /* the default node's, for the GPU watch (the core takes the nodes) */
    char node_name[256] = "";
    if (load_nodes(o, &cfg.nodes, &cfg.nnodes) != 0 || start_watchdog(o->watchdog_file, &cfg) != 0 ||
        load_backends(o, &cfg) != 0 || load_sched_conf(o, &cfg.conf) != 0 ||
        open_store(o, db_path, hub, &cfg.store, err, sizeof err) != 0 ||
        (!o->nodes_file && gpu_set_copy(&gpus, &cfg.nodes[0].gpus) != 0) ||
        snprintf(node_name, sizeof node_name, "%s", cfg.nodes[0].name) < 0 ||
        core_start(&cfg, &core, err, sizeof err) != 0) {
        if (err[0])
            log_error("%s", err);
        free_config(&cfg); /* whatever core_start did not take over */
        notifier_stop(cfg.notifier);
        gpu_set_clear(&gpus);
        hub_free(hub);
        free(bin_dir);
        return 1;
    }
    struct gpu_watch *gpu_watch = gpu_watch_start(core, node_name, &gpus, o->gpu_recheck_ms);
    struct gpu_xid_watch *gpu_xid = gpu_xid_start(core, node_name, &gpus);
    struct gpu_sampling *gpu_sampling = gpu_sampling_start(core, o->gpu_sample_ms);
    gpu_set_clear(&gpus);
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
                         .notifier = cfg.notifier,
                         .hub = hub,
                         .watch_demand = &demand,
                         .watch_window_ms = o->watch_window_ms,
                         .watch_bookmark_ms = o->watch_bookmark_ms,
                         .db_path = db_path,
                         .data_dir = o->data_dir,
                         .web_dir = web,
                         .host_path_namespaces = o->host_path_namespaces,
                         .body_limit = o->body_limit,
                         .durable_timeout_ms = 10000,
                         .list_page_max = o->list_page_max,
                         .client_timeout_s = o->client_timeout_s,
                         .cors = &o->cors,
                         .header_timeout_ms = o->header_timeout_ms,
                         .max_connections_per_client = o->max_per_client,
                         .runtime_warning = process_runtime_warning()};
    struct proxy_resolver companions_proxy; /* /proxy/ asks the core where a companion is */
    proxy_core_resolver(&companions_proxy, core);
    gw.proxy = &companions_proxy;
    int status = 0;
    if (make_limits(o, &gw.rate_limiter) != 0) {
        status = 1;
    } else if (make_auth(o, core, cfg.store, &gw.auth, err, sizeof err) != 0) {
        char refusal[512]; /* a refused start fails the first admin token's record too: the refusal is said */
        log_error("%s", core_wait_ready(core, refusal, sizeof refusal) != 0 ? refusal : err);
        status = 1;
    } else if (http_start(&gw, o->listen, o->max_connections, err, sizeof err) != 0) {
        log_error("%s", err);
        status = 1;
    } else {
        /* answering already: GETs of jobs the rest of the start leaves as they were (core_start) */
        log_info("listening on %s (data in %s)", gw.url, o->data_dir);
        if (core_wait_ready(core, err, sizeof err) != 0) { /* nothing written before this */
            log_error("%s", err);
            status = 1;
        } else if (start_ws(o, &gw, &ws) != 0) {
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
    gpu_watch_stop(gpu_watch); /* before the core it posts to */
    gpu_xid_stop(gpu_xid);
    gpu_sampling_stop(gpu_sampling);
    core_stop(core);
    notifier_stop(cfg.notifier); /* after the core, its only poster: what is queued gets two seconds */
    store_close(cfg.store);      /* drains the writer, which may hold watch objects sharing the core's state */
    core_free(core);
    hub_free(hub);
    free_later_flush(); /* the big jobs and documents handed to its thread are freed before the end */
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
    int rc = options_parse(argc, argv, &o);
    if (rc != 0) {
        cors_origins_free(&o.cors);
        return rc > 0 ? 0 : 2;
    }
    if (load_companion_types(o.companions_file, &companion_types) != 0 || load_images(o.images_file, &images) != 0) {
        companion_types_free(&companion_types);
        cors_origins_free(&o.cors);
        return 2;
    }
    umask(077);                           /* the server's files are its own; tasks get 022 back (spawn.c) */
    volcano_job_set_limits(o.job_limits); /* before any thread reads them */
    cronjob_set_rules(&(struct cronjob_rules){o.cron_every, NULL});
    block_signals();
    fit_open_file_limit(&o);
    json_object_seed(0); /* seed Jansson's hashing once, before any thread uses it */
    curl_global_init(CURL_GLOBAL_DEFAULT);
    int status = run(&o);
    cors_origins_free(&o.cors);
    companion_types_free(&companion_types);
    images_set_active(NULL);
    images_free(&images);
    watchdog_conf_free(&watchdog);
    backend_conf_free(&backends);
    curl_global_cleanup();
    return status;
}
