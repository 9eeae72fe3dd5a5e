/* Volcano's ray plugin: the head container runs `ray start --head ...` and the worker containers
 * `ray start --block --address=<head>:<port>`, through `sh -c` as Volcano sets their command. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "common/strv.h"
#include "scheduler/controller/job_plugins/internal.h"

#define RAY_DEFAULT_PORT 6379 /* GCS */
#define RAY_DEFAULT_DASHBOARD_PORT 8265
#define RAY_DEFAULT_CLIENT_PORT 10001 /* ray client server */

struct ray_ports {
    int32_t gcs, dashboard, client;
};

/* Given ports win; the others come from the job's block in this order (gcs, dashboard, client), or are
 * Volcano's defaults when the controller allocated no block. */
static struct ray_ports ray_ports_of(const struct plugin_config *cfg, int32_t first_port)
{
    int32_t next = first_port;
    struct ray_ports p;
    p.gcs = cfg->ray.port ? cfg->ray.port : first_port ? next++ : RAY_DEFAULT_PORT;
    p.dashboard = cfg->ray.dashboard_port ? cfg->ray.dashboard_port : first_port ? next++ : RAY_DEFAULT_DASHBOARD_PORT;
    p.client = cfg->ray.client_port ? cfg->ray.client_port : first_port ? next++ : RAY_DEFAULT_CLIENT_PORT;
    return p;
}

static int32_t ray_ports_needed(const struct job *job, const struct plugin_config *cfg)
{
    (void)job;
    return (cfg->ray.port ? 0 : 1) + (cfg->ray.dashboard_port ? 0 : 1) + (cfg->ray.client_port ? 0 : 1);
}

/* Kubernetes runs command ++ args: Volcano replaces the command with sh -c "<ray start ...>", so the
 * container's own args follow it (sh sees them as $0, $1, ...). */
static int ray_argv(const json_t *template, const char *script, char ***argv)
{
    if (strv_push(argv, "sh") != 0 || strv_push(argv, "-c") != 0 || strv_push(argv, script) != 0)
        return -1;
    const json_t *container = json_array_get(json_object_get(json_object_get(template, "spec"), "containers"), 0);
    const json_t *args = json_object_get(container, "args");
    for (size_t i = 0; i < json_array_size(args); i++)
        if (json_is_string(json_array_get(args, i)) && strv_push(argv, json_string_value(json_array_get(args, i))) != 0)
            return -1;
    return 0;
}

static int ray_attempt(const struct job *job, const struct plugin_config *cfg, int task, int index, const char *job_dir,
                       int32_t first_port, struct plugin_attempt *out, char *why, size_t why_len)
{
    (void)index, (void)job_dir, (void)why, (void)why_len;
    int head = plugin_task_index(job, plugin_ray_head(cfg));
    if (head < 0)
        return 0;
    const struct task_spec *ts = &job->tasks[task];
    const char *container = ts->container_name ? ts->container_name : "";
    struct ray_ports ports = ray_ports_of(cfg, first_port);
    char script[512] = "";
    /* Volcano tests head then worker, so a task that is both ends up with the worker's command. */
    if (task == head && strcmp(container, plugin_ray_head_container(cfg)) == 0)
        snprintf(script, sizeof script,
                 "ray start --head --block --dashboard-host=0.0.0.0 --port=%d --dashboard-port=%d "
                 "--ray-client-server-port=%d",
                 ports.gcs, ports.dashboard, ports.client);
    if (strcmp(ts->name, plugin_ray_worker(cfg)) == 0 && strcmp(container, plugin_ray_worker_container(cfg)) == 0) {
        char addr[320];
        plugin_domain_name(job, head, 0, addr, sizeof addr);
        snprintf(script, sizeof script, "ray start --block --address=%s:%d", addr, ports.gcs);
    }
    if (!script[0])
        return 0;
    strv_free(out->argv);
    out->argv = NULL;
    return ray_argv(job_task_template(job, task), script, &out->argv);
}

const struct plugin_def plugin_ray = {
    .id = PLUGIN_RAY,
    .ports_needed = ray_ports_needed,
    .attempt = ray_attempt,
};
