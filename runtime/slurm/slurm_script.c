/* A Volcano Job manifest as one Slurm job (see slurm_script.h): components from the task templates'
 * resources, and a batch script that computes the plugins' variables from the allocation at run time. */
#include "runtime/slurm/slurm_script.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sbuf.h"
#include "common/strv.h"
#include "model/quantity.h"

#define PYTORCH_DEFAULT_PORT 23456

const json_t *slurm_manifest_job(const json_t *manifest)
{
    const char *kind = json_string_value(json_object_get(manifest, "kind"));
    if (kind && strcmp(kind, "Job") == 0)
        return manifest;
    size_t i;
    json_t *item;
    json_array_foreach(json_object_get(manifest, "items"), i, item)
    {
        const char *k = json_string_value(json_object_get(item, "kind"));
        if (k && strcmp(k, "Job") == 0)
            return item;
    }
    return NULL;
}

void slurm_rank_path(const char *work_dir, const char *uid, const char *job_id, const char *task, int index, char *buf,
                     size_t len)
{
    snprintf(buf, len, "%s/%s/%s/rank-%s-%d", work_dir, uid, job_id, task, index);
}

void slurm_output_path(const char *work_dir, const char *uid, const char *job_id, const char *task, int index,
                       char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s/%s/%s-%d.out", work_dir, uid, job_id, task, index);
}

/* The shell word for s: single-quoted, a quote as '\''. */
static void shell_word(struct sbuf *b, const char *s)
{
    sbuf_puts(b, "'");
    for (const char *p = s; *p; p++) {
        if (*p == '\'')
            sbuf_puts(b, "'\\''");
        else
            sbuf_append(b, p, 1);
    }
    sbuf_puts(b, "'");
}

/* Volcano's env name of a task: '-' -> '_', upper case ("mpi-worker" -> "MPI_WORKER"). */
static void task_key(const char *task, char *buf, size_t len)
{
    size_t i = 0;
    for (; task[i] && i + 1 < len; i++) {
        char c = task[i] == '-' ? '_' : task[i];
        buf[i] = c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
    }
    buf[i] = '\0';
}

int slurm_plan_tasks(const json_t *manifest, struct slurm_task_plan *tasks, int max, char *err, size_t errlen)
{
    const json_t *job = slurm_manifest_job(manifest);
    json_t *list = json_object_get(json_object_get(job, "spec"), "tasks");
    if (!job || !json_is_array(list) || json_array_size(list) == 0) {
        snprintf(err, errlen, "the manifest has no Volcano Job with spec.tasks");
        return -1;
    }
    if ((int)json_array_size(list) > max) {
        snprintf(err, errlen, "spec.tasks: at most %d tasks run on Slurm", max);
        return -1;
    }
    int rank = 0;
    size_t i;
    json_t *t;
    json_array_foreach(list, i, t)
    {
        const char *name = json_string_value(json_object_get(t, "name"));
        json_t *replicas = json_object_get(t, "replicas");
        if (!name || !*name || strlen(name) >= BACKEND_NAME_MAX) {
            snprintf(err, errlen, "spec.tasks[%zu].name: a name of 1 to %d characters is required", i,
                     BACKEND_NAME_MAX - 1);
            return -1;
        }
        int64_t n = json_is_integer(replicas) ? json_integer_value(replicas) : 1;
        if (n < 0 || n > 4096) {
            snprintf(err, errlen, "spec.tasks[%zu].replicas: %lld is outside 0..4096", i, (long long)n);
            return -1;
        }
        memset(&tasks[i], 0, sizeof tasks[i]);
        snprintf(tasks[i].name, sizeof tasks[i].name, "%s", name);
        tasks[i].replicas = (int)n;
        tasks[i].first_rank = rank;
        rank += (int)n;
    }
    return (int)json_array_size(list);
}

/* The quantity a container asks for: requests, else limits. Returns 0 (absent: *out 0), or -1. */
static int resource(json_t *container, const char *name, int scale10, int64_t *out, const char *path, char *err,
                    size_t errlen)
{
    json_t *res = json_object_get(container, "resources");
    json_t *v = json_object_get(json_object_get(res, "requests"), name);
    if (!v)
        v = json_object_get(json_object_get(res, "limits"), name);
    *out = 0;
    if (!v)
        return 0;
    char num[32];
    const char *s = json_string_value(v);
    if (!s && json_is_integer(v)) {
        snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
        s = num;
    }
    int qe = s ? quantity_parse(s, scale10, out) : QTY_SYNTAX;
    if (qe != QTY_OK || *out < 0) {
        snprintf(err, errlen, "%s.resources.requests[%s]: %s", path, name,
                 qe != QTY_OK ? quantity_strerror(qe) : "must not be negative");
        return -1;
    }
    return 0;
}

/* One task's component: cpus per replica (whole, rounded up), memory per cpu, GPUs per replica. */
static int task_component(json_t *container, const char *path, struct slurm_component *c, char *err, size_t errlen)
{
    int64_t cpu_milli, mem_bytes, gpus;
    if (resource(container, "cpu", 3, &cpu_milli, path, err, errlen) != 0 ||
        resource(container, "memory", 0, &mem_bytes, path, err, errlen) != 0 ||
        resource(container, "nvidia.com/gpu", 0, &gpus, path, err, errlen) != 0)
        return -1;
    memset(c, 0, sizeof *c);
    c->cpus_per_task = cpu_milli > 0 ? (int)((cpu_milli + 999) / 1000) : 1;
    if (mem_bytes > 0) {
        int64_t mb = (mem_bytes + (1 << 20) - 1) >> 20;
        c->memory_per_cpu_mb = (long)((mb + c->cpus_per_task - 1) / c->cpus_per_task);
    }
    c->gpus_per_task = (int)gpus;
    return 0;
}

static bool same_resources(const struct slurm_component *a, const struct slurm_component *b)
{
    return a->cpus_per_task == b->cpus_per_task && a->memory_per_cpu_mb == b->memory_per_cpu_mb &&
           a->gpus_per_task == b->gpus_per_task;
}

/* The Job's plugins as the script needs them. */
struct plugins {
    bool env, svc, svc_hosts_env, pytorch;
    const char *pt_master, *pt_worker;
    long pt_port;
};

static void read_plugins(const json_t *spec, struct plugins *p)
{
    memset(p, 0, sizeof *p);
    p->pt_master = "master";
    p->pt_worker = "worker";
    p->pt_port = PYTORCH_DEFAULT_PORT;
    p->svc_hosts_env = true;
    json_t *plugins = json_object_get(spec, "plugins");
    p->env = json_object_get(plugins, "env") != NULL;
    p->pytorch = json_object_get(plugins, "pytorch") != NULL;
    p->svc = p->pytorch || json_object_get(plugins, "svc") != NULL; /* Volcano's webhook adds svc */
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(plugins, "svc"), i, a)
    {
        const char *s = json_string_value(a);
        if (s && strcmp(s, "--inject-hosts-env=false") == 0)
            p->svc_hosts_env = false;
    }
    json_array_foreach(json_object_get(plugins, "pytorch"), i, a)
    {
        const char *s = json_string_value(a);
        if (!s)
            continue;
        if (strncmp(s, "--master=", 9) == 0)
            p->pt_master = s + 9;
        else if (strncmp(s, "--worker=", 9) == 0)
            p->pt_worker = s + 9;
        else if (strncmp(s, "--port=", 7) == 0)
            p->pt_port = strtol(s + 7, NULL, 10);
    }
}

static int task_by_name(const struct slurm_plan *p, const char *name)
{
    for (int t = 0; t < p->ntasks; t++)
        if (strcmp(p->tasks[t].name, name) == 0)
            return t;
    return -1;
}

/* The batch script's head: the run's directory, and one host per rank from each component's node list
 * and tasks per node ("2(x3),1": block distribution, as srun places the step). */
static void script_head(struct sbuf *b, const struct slurm_plan *p, const struct slurm_plan_opts *o)
{
    sbuf_printf(b, "#!/bin/sh\n# Caldera job %s/%s (uid %s, send %u): every replica one rank of one srun step.\n",
                p->ns, p->job_name, o->uid, o->attempt);
    sbuf_puts(b, "D=");
    shell_word(b, p->cwd);
    sbuf_puts(b, "/$SLURM_JOB_ID\nmkdir -p \"$D\" || exit 1\n");
    sbuf_puts(b,
              "caldera_hosts() {\n"
              "    scontrol show hostnames \"$1\" | awk -v tpn=\"$2\" 'BEGIN { n = split(tpn, a, \",\"); k = 0\n"
              "        for (i = 1; i <= n; i++) { c = a[i]; r = 1\n"
              "            if (match(c, /\\(x[0-9]+\\)/)) { r = substr(c, RSTART + 2, RLENGTH - 3); c = substr(c, 1, "
              "RSTART - 1) }\n"
              "            for (j = 0; j < r; j++) cnt[k++] = c } }\n"
              "        { for (j = 0; j < cnt[NR - 1]; j++) printf \"%s%s\", (o++ ? \",\" : \"\"), $0 }'\n"
              "}\n");
    if (p->spec.ncomponents == 1) {
        sbuf_puts(b, "H=$(caldera_hosts \"$SLURM_JOB_NODELIST\" \"$SLURM_TASKS_PER_NODE\")\n");
        return;
    }
    sbuf_puts(b, "H=");
    for (size_t c = 0; c < p->spec.ncomponents; c++)
        sbuf_printf(b,
                    "%s$(caldera_hosts \"$SLURM_JOB_NODELIST_HET_GROUP_%zu\" \"$SLURM_TASKS_PER_NODE_HET_GROUP_%zu\")",
                    c ? "," : "", c, c);
    sbuf_puts(b, "\n");
}

/* The svc and pytorch variables every rank shares, from H. */
static void script_shared_env(struct sbuf *b, const struct slurm_plan *p, const struct plugins *pl)
{
    for (int t = 0; pl->svc && pl->svc_hosts_env && t < p->ntasks; t++) {
        char key[BACKEND_NAME_MAX];
        task_key(p->tasks[t].name, key, sizeof key);
        if (p->tasks[t].replicas > 0)
            sbuf_printf(b, "export VC_%s_HOSTS=\"$(echo \"$H\" | cut -d, -f%d-%d)\"\n", key, p->tasks[t].first_rank + 1,
                        p->tasks[t].first_rank + p->tasks[t].replicas);
        else
            sbuf_printf(b, "export VC_%s_HOSTS=\n", key);
        sbuf_printf(b, "export VC_%s_NUM=%d\n", key, p->tasks[t].replicas);
    }
    int master = pl->pytorch ? task_by_name(p, pl->pt_master) : -1;
    if (master >= 0) {
        int world = 0;
        for (int t = 0; t < p->ntasks; t++)
            world += p->tasks[t].replicas;
        sbuf_printf(
            b, "export MASTER_ADDR=\"$(echo \"$H\" | cut -d, -f%d)\"\nexport MASTER_PORT=%ld\nexport WORLD_SIZE=%d\n",
            p->tasks[master].first_rank + 1, pl->pt_port, world);
    }
}

/* One task's case in the rank wrapper: its index from the rank, then its command line in "$@": env with
 * the container's variables, then the plugins' (which the container's cannot override), then argv. */
static int script_task(struct sbuf *b, const struct slurm_plan *p, int t, json_t *container, const struct plugins *pl,
                       char *err, size_t errlen)
{
    const struct slurm_task_plan *tp = &p->tasks[t];
    sbuf_printf(b, "%s [ \"$r\" -lt %d ]; then\n    t=", t ? "elif" : "if", tp->first_rank + tp->replicas);
    shell_word(b, tp->name);
    sbuf_printf(b, "; i=$((r - %d))\n", tp->first_rank);
    const char *wd = json_string_value(json_object_get(container, "workingDir"));
    if (wd && *wd) {
        sbuf_puts(b, "    W=");
        shell_word(b, wd);
        sbuf_puts(b, "\n");
    }
    sbuf_puts(b, "    set -- env");
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(container, "env"), i, e)
    {
        const char *name = json_string_value(json_object_get(e, "name"));
        json_t *value = json_object_get(e, "value");
        if (!name || (!value && json_object_get(e, "valueFrom"))) {
            snprintf(err, errlen,
                     "spec.tasks[%d].template.spec.containers[0].env[%zu]: only name and value run on Slurm (no "
                     "valueFrom)",
                     t, i);
            return -1;
        }
        struct sbuf kv = {0};
        sbuf_printf(&kv, "%s=%s", name, value ? json_string_value(value) : "");
        sbuf_puts(b, " ");
        shell_word(b, sbuf_str(&kv));
        sbuf_free(&kv);
    }
    if (pl->env)
        sbuf_puts(b, " \"VK_TASK_INDEX=$i\" \"VC_TASK_INDEX=$i\"");
    if (pl->pytorch && task_by_name(p, pl->pt_master) >= 0) {
        sbuf_puts(b, " \"MASTER_ADDR=$MASTER_ADDR\" \"MASTER_PORT=$MASTER_PORT\" \"WORLD_SIZE=$WORLD_SIZE\"");
        if (strcmp(tp->name, pl->pt_worker) == 0)
            sbuf_puts(b, " \"RANK=$((i + 1))\"");
        else if (strcmp(tp->name, pl->pt_master) == 0)
            sbuf_puts(b, " RANK=0");
    }
    int words = 0;
    const char *keys[] = {"command", "args"};
    for (int k = 0; k < 2; k++) {
        json_array_foreach(json_object_get(container, keys[k]), i, e)
        {
            const char *s = json_string_value(e);
            if (!s) {
                snprintf(err, errlen, "spec.tasks[%d].template.spec.containers[0].%s[%zu]: must be a string", t,
                         keys[k], i);
                return -1;
            }
            sbuf_puts(b, " ");
            shell_word(b, s);
            words++;
        }
    }
    if (words == 0) {
        snprintf(err, errlen,
                 "spec.tasks[%d].template.spec.containers[0].command: Slurm runs the command on the nodes (no image "
                 "entrypoint), so one is required",
                 t);
        return -1;
    }
    sbuf_puts(b, "\n");
    return 0;
}

/* The rank wrapper: which replica this rank is, its status lines, its output, the command as a child
 * whose end it records even when scancel's SIGTERM reaches the wrapper too. */
static int script_wrapper(struct sbuf *b, const struct slurm_plan *p, json_t *tasks, const struct plugins *pl,
                          char *err, size_t errlen)
{
    sbuf_puts(b,
              "cat >\"$D/rank.sh\" <<'CALDERA_RANK'\n"
              "D=$1; r=$SLURM_PROCID; W=$2\n");
    for (int t = 0; t < p->ntasks; t++) {
        json_t *c = json_array_get(
            json_object_get(json_object_get(json_object_get(json_array_get(tasks, (size_t)t), "template"), "spec"),
                            "containers"),
            0);
        if (script_task(b, p, t, c, pl, err, errlen) != 0)
            return -1;
    }
    sbuf_puts(b,
              "else\n    exit 1\nfi\n"
              "f=\"$D/rank-$t-$i\"\n"
              "echo \"start $(date +%s%3N) $SLURMD_NODENAME\" >\"$f\"\n"
              "cd \"$W\" || { echo \"end $(date +%s%3N) 128\" >>\"$f\"; exit 128; }\n"
              "\"$@\" >>\"$D/$t-$i.out\" 2>&1 </dev/null &\n"
              "p=$!\n"
              "trap 'kill -TERM $p 2>/dev/null' TERM INT HUP\n"
              "wait $p; rc=$?\n"
              "while kill -0 $p 2>/dev/null; do wait $p; rc=$?; done\n"
              "echo \"end $(date +%s%3N) $rc\" >>\"$f\"\n"
              "exit $rc\n"
              "CALDERA_RANK\n");
    return 0;
}

static void script_step(struct sbuf *b, const struct slurm_plan *p)
{
    /* The counts said per component: a REST-submitted het job's environment does not give srun them. */
    if (p->spec.ncomponents == 1) {
        sbuf_printf(b, "srun --kill-on-bad-exit=0 -n %d sh \"$D/rank.sh\" \"$D\" \"$PWD\"\n", p->components[0].tasks);
        return;
    }
    sbuf_puts(b, "srun --kill-on-bad-exit=0");
    for (size_t c = 0; c < p->spec.ncomponents; c++)
        sbuf_printf(b, "%s --het-group=%zu -n %d sh \"$D/rank.sh\" \"$D\" \"$PWD\"", c ? " :" : "", c,
                    p->components[c].tasks);
    sbuf_puts(b, "\n");
}

static int plan_env(struct slurm_plan *p, const struct slurm_plan_opts *o)
{
    if (!o->env)
        return strv_push(&p->env, "PATH=/usr/local/bin:/usr/bin:/bin");
    for (const char *const *e = o->env; *e; e++)
        if (strv_push(&p->env, *e) != 0)
            return -1;
    return 0;
}

int slurm_plan_build(const json_t *manifest, const struct slurm_plan_opts *o, struct slurm_plan *p, char *err,
                     size_t errlen)
{
    memset(p, 0, sizeof *p);
    const json_t *job = slurm_manifest_job(manifest);
    json_t *meta = json_object_get(job, "metadata"), *spec = json_object_get(job, "spec");
    json_t *tasks = json_object_get(spec, "tasks");
    p->ntasks = slurm_plan_tasks(manifest, p->tasks, SLURM_PLAN_MAX_TASKS, err, errlen);
    if (p->ntasks < 0)
        return -1;
    snprintf(p->job_name, sizeof p->job_name, "%s", json_string_value(json_object_get(meta, "name")) ?: "job");
    snprintf(p->ns, sizeof p->ns, "%s", json_string_value(json_object_get(meta, "namespace")) ?: "default");
    int ranks = 0;
    for (int t = 0; t < p->ntasks; t++) {
        json_t *containers = json_object_get(
            json_object_get(json_object_get(json_array_get(tasks, (size_t)t), "template"), "spec"), "containers");
        char path[96];
        snprintf(path, sizeof path, "spec.tasks[%d].template.spec.containers[0]", t);
        if (json_array_size(containers) != 1) {
            snprintf(err, errlen,
                     "spec.tasks[%d].template.spec.containers: Slurm runs exactly one container per replica", t);
            return -1;
        }
        if (task_component(json_array_get(containers, 0), path, &p->components[t], err, errlen) != 0)
            return -1;
        p->components[t].tasks = p->tasks[t].replicas;
        ranks += p->tasks[t].replicas;
    }
    if (ranks == 0) {
        snprintf(err, errlen, "spec.tasks: no replicas to run");
        return -1;
    }
    /* Tasks alike in resources share one component; otherwise one component per task (with replicas). */
    bool alike = true;
    for (int t = 1; t < p->ntasks; t++)
        alike = alike && same_resources(&p->components[0], &p->components[t]);
    size_t ncomp = 0;
    if (alike) {
        p->components[0].tasks = ranks;
        ncomp = 1;
    } else {
        for (int t = 0; t < p->ntasks; t++) {
            if (p->tasks[t].replicas == 0) {
                snprintf(err, errlen,
                         "spec.tasks[%d].replicas: a task of 0 replicas cannot be part of a "
                         "heterogeneous Slurm job",
                         t);
                return -1;
            }
            p->tasks[t].component = (int)ncomp;
            p->components[ncomp++] = p->components[t];
        }
    }
    snprintf(p->name, sizeof p->name, "%s.%s", p->ns, p->job_name);
    snprintf(p->comment, sizeof p->comment, "%s=%s/%u", BACKEND_UID_LABEL, o->uid, o->attempt);
    snprintf(p->cwd, sizeof p->cwd, "%s/%s", o->work_dir, o->uid);
    snprintf(p->std_out, sizeof p->std_out, "%s/slurm-%%j.out", p->cwd);
    p->spec = (struct slurm_job_spec){.name = p->name,
                                      .comment = p->comment,
                                      .cwd = p->cwd,
                                      .std_out = p->std_out,
                                      .partition = o->partition,
                                      .components = p->components,
                                      .ncomponents = ncomp};
    struct plugins pl;
    read_plugins(spec, &pl);
    struct sbuf b = {0};
    script_head(&b, p, o);
    script_shared_env(&b, p, &pl);
    if (script_wrapper(&b, p, tasks, &pl, err, errlen) != 0) {
        sbuf_free(&b);
        return -1;
    }
    script_step(&b, p);
    if (b.failed || plan_env(p, o) != 0) {
        sbuf_free(&b);
        slurm_plan_free(p);
        snprintf(err, errlen, "out of memory building the Slurm job");
        return -1;
    }
    p->script = sbuf_take(&b);
    p->spec.script = p->script;
    p->spec.env = (const char *const *)p->env;
    return 0;
}

void slurm_plan_free(struct slurm_plan *p)
{
    free(p->script);
    strv_free(p->env);
    p->script = NULL;
    p->env = NULL;
}
