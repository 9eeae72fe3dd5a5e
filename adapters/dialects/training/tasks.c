/* The frameworks' layouts: which Volcano tasks a training request becomes, what each runs, and the
 * job plugins and policies that wire them (the plugins set MASTER_ADDR, TF_CONFIG, MPI_HOST ...). */
#include <stdio.h>
#include <string.h>

#include "adapters/dialects/training/training.h"

#define SPARK_MASTER_PORT 7077
#define RAY_WAIT_SECONDS 120

static const char *const pytorch_tasks[] = {"master", "worker", NULL};
static const char *const tensorflow_tasks[] = {"ps", "worker", NULL};
static const char *const mpi_tasks[] = {"master", "worker", NULL};
static const char *const spark_tasks[] = {"driver", "executor", NULL};
static const char *const ray_tasks[] = {"head", "worker", "driver", NULL};
static const char *const batch_tasks[] = {"worker", NULL};

const char *const *training_task_names(enum training_framework fw)
{
    switch (fw) {
    case FW_PYTORCH: return pytorch_tasks;
    case FW_TENSORFLOW: return tensorflow_tasks;
    case FW_MPI:
    case FW_HOROVOD: return mpi_tasks;
    case FW_SPARK: return spark_tasks;
    case FW_RAY: return ray_tasks;
    default: return batch_tasks;
    }
}

static struct training_task *add_task(struct training_layout *l, const char *name, int64_t replicas)
{
    struct training_task *task = &l->tasks[l->ntasks++];
    memset(task, 0, sizeof *task);
    task->name = name;
    task->replicas = replicas;
    task->min_available = -1;
    return task;
}

/* The user's command as it is. */
static struct training_task *add_user_task(struct training_layout *l, const struct training *t, const char *name,
                                           int64_t replicas)
{
    struct training_task *task = add_task(l, name, replicas);
    task->command = json_deep_copy(t->command);
    task->with_user_args = true;
    return task;
}

/* sh -c SCRIPT LABEL <the user's command> <args>: the script ends with exec "$@". */
static struct training_task *add_wrapped_task(struct training_layout *l, const struct training *t, const char *name,
                                              int64_t replicas, const char *script, const char *label)
{
    struct training_task *task = add_task(l, name, replicas);
    task->command = json_pack("[s,s,s,s]", "sh", "-c", script, label);
    json_array_extend(task->command, t->command);
    task->with_user_args = true;
    return task;
}

/* Every distributed framework: a lost or failed replica restarts the whole job (maxRetry times). */
static json_t *restart_job_policies(void)
{
    return json_pack("[{s:[s,s],s:s}]", "events", "PodEvicted", "PodFailed", "action", "RestartJob");
}

static void pytorch_layout(const struct training *t, struct training_layout *l)
{
    add_user_task(l, t, "master", 1)->completes_job = true;
    if (t->workers > 1)
        add_user_task(l, t, "worker", t->workers - 1);
    l->plugins = json_pack("{s:[]}", "pytorch");
    l->policies = restart_job_policies();
}

static void tensorflow_layout(const struct training *t, struct training_layout *l)
{
    if (t->ps > 0)
        add_user_task(l, t, "ps", t->ps);
    add_user_task(l, t, "worker", t->workers)->completes_job = true;
    l->plugins = json_pack("{s:[]}", "tensorflow");
    l->policies = restart_job_policies();
}

/* The launcher ("master") runs the command; the workers hold their slots while mpirun reaches them
 * over ssh (Volcano's examples run sshd -D there; workerCommand says what to run instead). */
static void mpi_layout(const struct training *t, struct training_layout *l)
{
    struct training_task *master;
    if (t->framework == FW_HOROVOD) {
        int64_t slots = t->slots_per_worker > 0 ? t->slots_per_worker : t->gpus_per_worker > 0 ? t->gpus_per_worker : 1;
        char script[256];
        snprintf(script, sizeof script,
                 "exec horovodrun -np %lld -H \"$(echo \"$MPI_HOST\" | sed 's/,/:%lld,/g'):%lld\" \"$@\"",
                 (long long)(t->workers * slots), (long long)slots, (long long)slots);
        master = add_wrapped_task(l, t, "master", 1, script, "horovodrun");
    } else {
        master = add_user_task(l, t, "master", 1);
    }
    master->completes_job = true;
    master->no_resources = true;
    struct training_task *worker = add_task(l, "worker", t->workers);
    worker->command = t->worker_command ? json_deep_copy(t->worker_command) : json_pack("[s,s]", "sleep", "infinity");
    l->plugins = json_pack("{s:[]}", "mpi");
    l->policies = restart_job_policies();
}

/* A Spark standalone cluster per job: the driver task starts the master in the background and runs the
 * command with MASTER (read by spark-submit) set; each executor task replica is a standalone worker
 * offering its cpu and memory. */
static void spark_layout(const struct training *t, struct training_layout *l)
{
    char script[512];
    snprintf(script, sizeof script,
             "export MASTER=\"spark://$VC_DRIVER_HOSTS:%d\" SPARK_MASTER_URL=\"spark://$VC_DRIVER_HOSTS:%d\"; "
             "spark-class org.apache.spark.deploy.master.Master --host \"$VC_DRIVER_HOSTS\" --port %d & exec \"$@\"",
             SPARK_MASTER_PORT, SPARK_MASTER_PORT, SPARK_MASTER_PORT);
    add_wrapped_task(l, t, "driver", 1, script, "spark-driver")->completes_job = true;
    char worker[320], cores[48] = "", memory[48] = "";
    if (t->cpu_millis_per_worker > 0)
        snprintf(cores, sizeof cores, " --cores %lld", (long long)((t->cpu_millis_per_worker + 999) / 1000));
    if (t->memory_per_worker >= (1 << 20))
        snprintf(memory, sizeof memory, " --memory %lldm", (long long)(t->memory_per_worker >> 20));
    snprintf(worker, sizeof worker,
             "exec spark-class org.apache.spark.deploy.worker.Worker%s%s \"spark://$VC_DRIVER_HOSTS:%d\"", cores,
             memory, SPARK_MASTER_PORT);
    add_task(l, "executor", t->workers)->command = json_pack("[s,s,s]", "sh", "-c", worker);
    l->plugins = json_pack("{s:[]}", "svc");
    l->policies = restart_job_policies();
}

/* The ray plugin gives head and worker their `ray start` commands; the user's command runs in a third
 * task, "driver", once the head runs, with RAY_ADDRESS=auto (the cluster started on this machine). */
static void ray_layout(const struct training *t, struct training_layout *l)
{
    /* The plugin replaces these commands with its own (its ports, the head's address); they are there
     * because the controller starts no container without one. */
    add_task(l, "head", 1)->command = json_pack("[s,s,s,s]", "ray", "start", "--head", "--block");
    if (t->workers > 0)
        add_task(l, "worker", t->workers)->command = json_pack("[s,s,s]", "ray", "start", "--block");
    char script[256];
    snprintf(script, sizeof script,
             "i=0; until ray status >/dev/null 2>&1 || [ $i -ge %d ]; do i=$((i+1)); sleep 1; done; exec \"$@\"",
             RAY_WAIT_SECONDS);
    struct training_task *driver = add_wrapped_task(l, t, "driver", 1, script, "ray-driver");
    driver->completes_job = true;
    driver->depends_on = "head";
    driver->no_resources = true;
    driver->extra_env = json_pack("[{s:s,s:s}]", "name", "RAY_ADDRESS", "value", "auto");
    l->plugins = json_pack("{s:[]}", "ray");
    l->policies = restart_job_policies();
    l->min_available = 1 + t->workers; /* the driver has no pod until the head runs */
}

/* Seed 000's scheme 2: one task of `workers` replicas, each taking the shard of its index; the job
 * succeeds only when every replica does, and a failed one is run again (RestartPod, maxRetry times). */
static void batch_layout(const struct training *t, struct training_layout *l)
{
    struct training_task *task = add_wrapped_task(
        l, t, "worker", t->workers, "export CALDERA_SHARD_INDEX=\"$VC_TASK_INDEX\"; exec \"$@\"", "shard");
    char count[24];
    snprintf(count, sizeof count, "%lld", (long long)t->workers);
    task->extra_env = json_pack("[{s:s,s:s}]", "name", "CALDERA_SHARD_COUNT", "value", count);
    l->plugins = json_pack("{s:[]}", "env");
    l->policies = t->max_retry == 0
                      ? json_array()
                      : json_pack("[{s:[s,s],s:s}]", "events", "PodEvicted", "PodFailed", "action", "RestartPod");
    l->min_available = t->min_available >= 0 ? t->min_available : 1;
    task->min_available = l->min_available; /* else Volcano's gang would want every replica of the task */
    l->min_success = t->workers;
}

int training_layout(const struct training *t, struct training_layout *out)
{
    memset(out, 0, sizeof *out);
    out->min_available = -1;
    switch (t->framework) {
    case FW_PYTORCH: pytorch_layout(t, out); break;
    case FW_TENSORFLOW: tensorflow_layout(t, out); break;
    case FW_MPI:
    case FW_HOROVOD: mpi_layout(t, out); break;
    case FW_SPARK: spark_layout(t, out); break;
    case FW_RAY: ray_layout(t, out); break;
    default: batch_layout(t, out); break;
    }
    bool ok = out->plugins && out->policies;
    for (int i = 0; i < out->ntasks; i++)
        if (!out->tasks[i].command)
            ok = false;
    if (!ok)
        training_layout_free(out);
    return ok ? 0 : -1;
}

void training_layout_free(struct training_layout *l)
{
    for (int i = 0; i < l->ntasks; i++) {
        json_decref(l->tasks[i].command);
        json_decref(l->tasks[i].extra_env);
    }
    json_decref(l->plugins);
    json_decref(l->policies);
    memset(l, 0, sizeof *l);
}
