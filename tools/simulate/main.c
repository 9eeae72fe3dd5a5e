/* bin/simulate: runs a YAML trace of nodes, queues and Volcano Jobs through Caldera's own controller
 * and scheduling cycle on a virtual clock, and prints per-job start/end and per-queue shares as JSON.
 *
 * usage: simulate [--events] FILE        simulate --help
 *
 * THE TRACE is a multi-document YAML file (read with adapters/intake, so errors carry lines):
 *   v1 Node, or a v1 List of Nodes    the cluster, exactly as in a --nodes file (adapters/node).
 *   scheduling.volcano.sh/v1beta1 Queue
 *                                     adapters/queue; `default` exists from the start, and a trace
 *                                     Queue named default updates it.
 *   scheduling.k8s.io/v1 PriorityClass, v1 ResourceQuota
 *                                     adapters/priority_class, adapters/resource_quota.
 *   batch.volcano.sh/v1alpha1 Job     adapters/volcano_job (Volcano's admission defaults);
 *                                     metadata.name is required (generateName would be random).
 *   caldera.io/v1 Simulation          at most one; every field optional:
 *       period         the scheduling period (default 1s)
 *       until          stop time (default: once every job is final, or nothing can change any more;
 *                      never later than 720h of virtual time)
 *       sample         how often queue shares are recorded (default: the period)
 *       schedulerConf  an inline volcano-scheduler.conf mapping (actions, tiers, configurations),
 *                      parsed by adapters/scheduler_conf; default Volcano's default conf
 * Annotations: caldera.io/arrival (when it is created, default 0) on every kind but Nodes; on Jobs
 * also caldera.io/duration (how long each replica runs once started, required),
 * caldera.io/exit-code (what its replicas exit with, default 0) and caldera.io/namespace (else
 * metadata.namespace, else "default"). Times are seconds (90, 1.5, "90") or Kubernetes durations
 * ("90s", "5m", "1h30m", "250ms"). A job's queue and priority class must be in the trace (or be
 * default / built in) and arrive no later than the job. Containers without a command get a stand-in
 * one: nothing is run, but the controller refuses to start a replica without a command.
 *
 * HOW IT RUNS. A virtual clock takes events in time order; at one instant: replica exits, then
 * priority class and quota arrivals, queue arrivals, job arrivals, the period's tick, and last the
 * queue sample; ties in push order. Each round takes every exit, arrival and tick due at the
 * instant, then runs one schedule_cycle() when any of them happened, as the core does. A started
 * replica ends at start + duration with the job's exit code; a stopped one (eviction, a finished
 * job's leftovers) ends at once with exit code 137 (SIGKILL). Replicas stopped during a scheduling
 * cycle count as evictions. Admitted jobs get uids in trace order, so jobs created at the same
 * instant keep the trace's order.
 *
 * THE OUTPUT is one JSON object on stdout, keys in this order, times in seconds:
 *   {"jobs":[{"name","namespace","queue","arrival","start","end","phase","attempts","evictions",
 *             ["message" when admission refused it,] "replicas":[{"pod","node","start","end",
 *             "attempts","phase","exit_code"}]}],
 *    "queues":[{"name","weight","samples":[{"t","allocated":{"cpu":"1"},"running_jobs","pending_jobs"}]}],
 *    "end":120, "stopped":"finished"|"stalled"|"until"|"limit", ["events":[{"seq","t","kind",
 *    "namespace","name","from","to","reason","message"}] with --events]}
 * start is when the job's PodGroup first went Running, end when the job reached a final phase
 * (null when not); phase is null for a job that never arrived and "Rejected" when admission refused
 * it. A queue is sampled from its arrival on; allocated leaves the pods count out. See README.md.
 *
 * Exit status: 0 done; 1 the simulation failed (out of memory, an instant that never settles);
 * 2 usage error or bad trace (one line on stderr naming the document, field and line). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/scheduler_conf.h"
#include "common/fs.h"
#include "scheduler/framework/plugin.h"
#include "scheduler/registry.h"
#include "tools/simulate/sim.h"

#define EXIT_FAILED 1
#define EXIT_USAGE 2
#define TRACE_MAX_BYTES (256u << 20)

static const char usage_text[] =
    "usage: simulate [--events] FILE\n"
    "       simulate --help\n";

static const char help_text[] =
    "Runs a trace through Caldera's scheduler and job controller on a virtual clock.\n"
    "\n"
    "FILE is a multi-document YAML trace: v1 Nodes (or a v1 List of them), Volcano Queues\n"
    "(scheduling.volcano.sh/v1beta1), PriorityClasses, ResourceQuotas and Volcano Jobs\n"
    "(batch.volcano.sh/v1alpha1), and at most one caldera.io/v1 Simulation document (period,\n"
    "until, sample, schedulerConf). Jobs carry the annotations caldera.io/arrival,\n"
    "caldera.io/duration (required), caldera.io/exit-code and caldera.io/namespace; the other\n"
    "kinds may carry caldera.io/arrival. Times are seconds or durations such as 90s, 5m, 1h30m.\n"
    "See tools/simulate/README.md.\n"
    "\n"
    "Prints one JSON object: per job arrival, start, end, phase, attempts, evictions and replicas;\n"
    "per queue its samples (allocated resources, running and pending jobs); when and why it stopped.\n"
    "\n"
    "  --events   also list every event the controller recorded\n"
    "  --help     this text\n"
    "\n"
    "Exit status: 0 done, 1 the simulation failed, 2 usage error or bad trace.\n";

struct cli {
    const char *file;
    bool events, help;
};

static int parse_cli(int argc, char **argv, struct cli *cli)
{
    bool options_done = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!options_done && strcmp(a, "--") == 0) {
            options_done = true;
        } else if (!options_done && strcmp(a, "--help") == 0) {
            cli->help = true;
        } else if (!options_done && strcmp(a, "--events") == 0) {
            cli->events = true;
        } else if (!options_done && a[0] == '-' && a[1]) {
            fprintf(stderr, "simulate: unknown option %s\n%s", a, usage_text);
            return -1;
        } else if (cli->file) {
            fprintf(stderr, "simulate: one trace at a time (got %s and %s)\n%s", cli->file, a, usage_text);
            return -1;
        } else {
            cli->file = a;
        }
    }
    if (!cli->file && !cli->help) {
        fprintf(stderr, "simulate: no trace file given\n%s", usage_text);
        return -1;
    }
    return 0;
}

/* Names the scheduler conf's actions and plugins that have no implementation yet, as the server
 * does at start-up: they are skipped. */
static void warn_unimplemented(const struct trace *t)
{
    char names[512];
    if (sched_conf_unimplemented(&t->settings.conf, names, sizeof names) > 0)
        fprintf(stderr, "simulate: warning: not implemented yet, skipped: %s\n", names);
}

static int print_result(const struct sim *s)
{
    json_t *out = sim_render(s);
    char *text = out ? json_dumps(out, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)) : NULL;
    json_decref(out);
    if (!text) {
        fprintf(stderr, "simulate: out of memory rendering the result\n");
        return EXIT_FAILED;
    }
    int rc = printf("%s\n", text) < 0 || fflush(stdout) != 0 ? EXIT_FAILED : 0;
    if (rc != 0)
        fprintf(stderr, "simulate: cannot write the result: %s\n", strerror(errno));
    free(text);
    return rc;
}

static int simulate(const struct cli *cli)
{
    char *data = NULL, err[4096] = "";
    size_t len = 0;
    struct trace trace;
    struct sim *s = NULL;
    if (read_file(cli->file, TRACE_MAX_BYTES, &data, &len) != 0) {
        fprintf(stderr, "simulate: %s: %s\n", cli->file, strerror(errno));
        return EXIT_USAGE;
    }
    int rc = trace_load(cli->file, data, len, &trace, err, sizeof err);
    free(data);
    if (rc != 0) {
        fprintf(stderr, "simulate: %s\n", err);
        return EXIT_USAGE;
    }
    warn_unimplemented(&trace);
    const struct sim_options opt = {cli->file, cli->events};
    if (sim_new(&trace, &opt, &s, err, sizeof err) != 0) {
        fprintf(stderr, "simulate: %s: %s\n", cli->file, err);
        trace_free(&trace);
        return EXIT_FAILED;
    }
    rc = sim_run(s, err, sizeof err);
    if (rc != 0) {
        if (rc == SIM_TRACE_REFUSED)
            fprintf(stderr, "simulate: %s\n", err);
        else
            fprintf(stderr, "simulate: %s: %s\n", cli->file, err);
        sim_free(s);
        return rc == SIM_TRACE_REFUSED ? EXIT_USAGE : EXIT_FAILED;
    }
    rc = print_result(s);
    sim_free(s);
    return rc;
}

int main(int argc, char **argv)
{
    struct cli cli = {0};
    if (parse_cli(argc, argv, &cli) != 0)
        return EXIT_USAGE;
    if (cli.help) {
        printf("%s\n%s", usage_text, help_text);
        return 0;
    }
    return simulate(&cli);
}
