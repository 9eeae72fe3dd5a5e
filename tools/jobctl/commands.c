/* The command table: each command's name, arguments, help text and handler. `jobctl help` (the
 * overview, printed here), argument checking and dispatch all read it. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "tools/jobctl/cmd_flow.h"
#include "tools/jobctl/cmd_queue.h"
#include "tools/jobctl/jobctl.h"

static const struct jobctl_command COMMANDS[] = {
    {"submit", "FILE", "create the Jobs, Queues, PyTorchJobs, RayJobs... described in a YAML or JSON file",
     "FILE may hold several documents (YAML \"---\" separated); \"-\" reads standard input.\n"
     "Each document goes to the API of its kind: a Job into its metadata.namespace (else -n),\n"
     "a Queue to the cluster's queues; a Kubeflow PyTorchJob/TFJob/MPIJob, a KubeRay RayJob or a\n"
     "SparkApplication to its own path, where it becomes a Volcano Job.\n"
     "Kinds are checked first; sending stops at the first failure.\n"
     "Errors in a document point at lines of FILE itself.\n"
     "  -w, --wait         then follow the jobs until they finish, printing each phase they enter;\n"
     "                     exit 0 only if every one Completed (see `jobctl wait`)\n"
     "  --timeout DURATION with --wait: give up after this long (90s, 2h)\n"
     "  --export[=NONE|VAR,VAR=value,...]  add this shell's variables (all but PWD, TERM, HOME, PATH,\n"
     "                     CALDERA_TOKEN and the like; or those named) to every container's env,\n"
     "                     never over a variable the document sets, as Slurm's sbatch --export\n",
     1, 1, false, cmd_submit},
    {"get", "[jobs|pods|queues] [JOB] [--limit N] [--continue TOKEN]",
     "list the jobs of the namespace, or show one job and its pods",
     "As kubectl, a resource word may come first: `get jobs`, `get job NAME` (or job/NAME, vcjob, vj),\n"
     "`get pods [JOB]` (as `jobctl pods`), `get queues` (as `jobctl queues`); a name alone is a job's.\n"
     "Without JOB: one row per job (NAME PHASE MIN PENDING RUNNING SUCCEEDED FAILED RETRIES AGE\n"
     "REASON), a page of them (the server's, or --limit N); the last line gives the --continue TOKEN\n"
     "of the next. REASON says why a Pending job waits (the cluster cannot hold its minimum, its\n"
     "queue is full...) and why a job failed, was aborted or terminated.\n"
     "With JOB: that row (a pending reason too long for it follows in full), then its pods\n"
     "(POD NODE PHASE EXIT REASON AGE).\n"
     "-o wide adds QUEUE and VERSION (and pods' RESTARTS, IP, STARTED, MESSAGE); -o json and -o yaml\n"
     "print the JobList or the Job as the server sent it; -o name prints job.batch.volcano.sh/NAME.\n",
     0, 2, false, cmd_get},
    {"describe", "JOB", "show everything about a job: spec, status, pending reason, pods, attempts, events",
     "As `kubectl describe`: the job's queue, minimum and retries, its phase with reason and message\n"
     "(and why it is pending), each task's replicas, image, requests and command, its pods, every\n"
     "attempt of every pod from the history (node, pid, start, finish, exit code, reason, message),\n"
     "its phase transitions and its last events (those of the job, its PodGroup and its pods).\n"
     "-o json / -o yaml: one document {job, pods, history, events}.\n"
     "As kubectl, `describe job NAME` and `describe job/NAME` (vcjob, vj) work too.\n",
     1, 2, false, cmd_describe},
    {"pods", "[JOB] [--limit N] [--continue TOKEN]", "list the pods of the namespace, or of one job",
     "Columns: POD NODE PHASE EXIT REASON AGE (-o wide: and RESTARTS IP STARTED MESSAGE).\n"
     "Pods are named <job>-<task>-<index>.\n"
     "A page of them (the server's, or --limit N); the last line gives the --continue TOKEN of the next.\n",
     0, 1, false, cmd_pods},
    {"events", "[JOB] [--limit N] [--continue TOKEN]", "list the events of the namespace, or of one job",
     "Columns: LAST SEEN TYPE REASON OBJECT MESSAGE (-o wide: and COUNT FIRST TIME), oldest first.\n"
     "With JOB: the events of the job, its PodGroup and its pods.\n",
     0, 1, false, cmd_events},
    {"logs",
     "POD|JOB [-f] [--previous] [--attempt N] [--tail N] [--since DURATION|TIME] [--timestamps] "
     "[--limit-bytes N]",
     "print a pod's log, or every pod's log of a job",
     "A pod's log is printed exactly as the server sends it. For a JOB, every pod's log follows the\n"
     "other, each line prefixed \"[pod-name] \". A pod that could not start (a command not found...)\n"
     "shows its start error instead. NAME alone is the job when there is one; as kubectl,\n"
     "pod/NAME and job/NAME say which.\n"
     "  -f, --follow     go on printing as the pod writes, across its restarts (a line\n"
     "                   \"--- POD: attempt N ---\" on stderr where a new attempt begins), until its\n"
     "                   job ends or Ctrl-C; for a JOB, every pod's at once (at most 64), prefixed\n"
     "  -p, --previous   the log of the attempt before the current one\n"
     "  --attempt N      the log of attempt N (see `jobctl history JOB`)\n"
     "  --tail N         only its last N lines\n"
     "  --since D|TIME   only what was written in the last D (5s, 2m, 3h) or since TIME (RFC 3339)\n"
     "  --timestamps     each line with the time it was written\n"
     "  --limit-bytes N  at most N bytes\n",
     1, 1, true, cmd_logs},
    {"history", "[JOB] [--phase PHASE] [--since TIME] [--limit N [--continue TOKEN]]",
     "list the jobs' histories, or show a job's phase transitions and every attempt of its pods",
     "Without JOB: one row per job of the namespace, live or deleted, newest first\n"
     "(NAME PHASE ATTEMPTS STARTED FINISHED DELETED AGE).\n"
     "  --phase PHASE    only jobs whose last phase is PHASE (Completed, Failed, ...)\n"
     "  --since TIME     only jobs created at or after TIME (RFC 3339, e.g. 2026-11-22T08:00:00Z)\n"
     "  --limit N        at most N jobs; when there are more, the last line gives the --continue\n"
     "                   TOKEN that lists the next N\n"
     "With JOB: two tables: the transitions (SEQ TIME FROM TO REASON MESSAGE), then the attempts\n"
     "(POD ATTEMPT VERSION NODE PID START FINISH EXIT REASON MESSAGE).\n",
     0, 1, false, cmd_history},
    {"wait", "JOB... [--timeout DURATION]", "follow jobs until they finish, printing each phase they enter",
     "Exit status 0 when every job Completed; 1 when one Failed, was Terminated, Aborted or deleted,\n"
     "or is still running at --timeout (90s, 2h). Follows the server's watch of each job.\n"
     "On a terminal one line is rewritten as the job goes: its phase, its pods pending, running,\n"
     "succeeded and failed, and the time elapsed; otherwise a line is printed at each change.\n",
     1, JOBCTL_MAX_POS, false, cmd_wait},
    {"run", "[FLAGS] -- COMMAND [ARGS...]", "run a command as a Volcano Job built from flags",
     "  --name NAME              the job's name (default: run-<5 characters>)\n"
     "  --queue QUEUE            its queue (default: default)\n"
     "  --replicas N             how many pods run the command (default 1; all start together)\n"
     "  --cpu C, --memory M, --gpu G   each pod's requests and limits (2, 500m; 4Gi; 1)\n"
     "  --min-success N          Completed once N pods succeeded (Volcano's minSuccess)\n"
     "  --auto-memory-scale R[,MAX]  an OOM-killed pod runs again with R times the memory (1.5),\n"
     "                           at most MAX (64Gi)\n"
     "  --per-day FROM..TO       one task per date from FROM to TO (2026-01-01..2026-01-31), named\n"
     "                           after it, whose pods see CALDERA_DATE=<date>; --replicas pods per date;\n"
     "                           the dates run as room allows (minAvailable 1)\n"
     "  -e, --env NAME=VALUE     an environment variable of every pod (repeat for more)\n"
     "  --image IMAGE            the image recorded (tasks run the command on the node)\n"
     "  -w, --wait               then follow the job to its end (see `jobctl wait`)\n"
     "  --timeout DURATION       with --wait: give up after this long\n"
     "  --dry-run                print the Job (YAML; -o json for JSON) and send nothing\n"
     "Example: jobctl run --name etl --per-day 2026-01-01..2026-01-31 --cpu 1 -- ./etl.sh\n",
     0, JOBCTL_MAX_POS, false, cmd_run},
    {"delete", "[debugsession] NAME", "delete a job, or a debug session",
     "`jobctl delete NAME` deletes the Volcano Job NAME; `jobctl delete debugsession NAME` (or ds)\n"
     "deletes the debug session NAME: its pod and companions stop. As kubectl: job NAME, job/NAME,\n"
     "vcjob NAME and ds/NAME too.\n",
     1, 2, false, cmd_delete},
    {"debug", "--companion TYPE [--cpu N] [OPTIONS] | --extend NAME --for DURATION",
     "start a debug session: resources held for you, with Jupyter, a terminal... beside them",
     "Creates a DebugSession (caldera.io/v1): a job of one pod that holds the resources, queued and\n"
     "scheduled like any job (gang, quota and the queue's capability apply), with its companions.\n"
     "Then follows it: while it waits, its pending reason is printed; once it runs and every companion\n"
     "is Ready, one line per companion: TYPE and its URL on the server. Ctrl-C stops following; the\n"
     "session keeps running.\n"
     "  --companion TYPE   jupyter, terminal, code-server, tensorboard...: what to start beside it\n"
     "                     (at least one; repeat the option for more)\n"
     "  --cpu N            cpus held (2, 500m)\n"
     "  --memory Q         memory held (4Gi)\n"
     "  --gpu N            GPUs held (nvidia.com/gpu)\n"
     "  --image IMAGE      the container image recorded for the session\n"
     "  --for DURATION     when the session ends (default 8h, at most 168h); it also ends when\n"
     "                     deleted, or when its companions are idle\n"
     "  --name NAME        the session's name (default debug-<5 characters>)\n"
     "  --queue QUEUE      the queue it waits in (default: default)\n"
     "  --no-wait          create it and print its name; do not follow it\n"
     "  --timeout DURATION give up following after this long (exit 1, saying what it waited for);\n"
     "                     the session keeps running\n"
     "With --token, open the URLs with ?token=<your token> at their end. Exit status 0 once every\n"
     "companion is Ready; 1 when the session ended, a companion failed, or at --timeout.\n"
     "`jobctl debug --extend NAME --for 12h` gives session NAME that duration from its start (its\n"
     "deadline moves; one already past ends it). `jobctl delete debugsession NAME` ends a session.\n",
     0, 0, false, cmd_debug},
    {"suspend", "JOB", "abort a job: stop its pods, keep the finished ones (Volcano's AbortJob)",
     "The job goes Aborting, then Aborted once every pod has stopped. `jobctl resume` runs it again.\n", 1, 1, false,
     cmd_action},
    {"resume", "JOB", "resume an aborted job (Volcano's ResumeJob; counts as a retry)",
     "The job goes Restarting, then Pending; its missing pods are created again.\n", 1, 1, false, cmd_action},
    {"restart", "JOB", "restart a job: kill every pod and run it again (Volcano's RestartJob)",
     "retryCount goes up by one; at maxRetry the job fails instead.\n", 1, 1, false, cmd_action},
    {"terminate", "JOB", "stop a job for good: it ends Terminated (Volcano's TerminateJob)", "", 1, 1, false,
     cmd_action},
    {"complete", "JOB", "stop a job and call it done: it ends Completed (Volcano's CompleteJob)", "", 1, 1, false,
     cmd_action},
    {"nodes", "", "list the nodes", "Columns: NAME STATUS CPU MEMORY GPU AGE (allocatable resources).\n", 0, 0, false,
     cmd_nodes},
    {"queues", "", "list the queues", "Columns: NAME STATE WEIGHT PENDING RUNNING INQUEUE AGE.\n", 0, 0, false,
     cmd_queues},
    {"queue", "ACTION NAME [OPTIONS]", "create, open, close or delete a queue",
     "Actions:\n"
     "  create NAME [--weight N] [--capability cpu=4,memory=8Gi] [--reclaimable=false]\n"
     "                 a new Open queue (weight 1..65535, default 1; capability: the most its jobs\n"
     "                 may hold; reclaimable, default true: others may take back what it borrowed)\n"
     "  close NAME     the queue takes no new jobs; it is Closing until none of its PodGroups is\n"
     "                 Pending, Inqueue or Running, then Closed\n"
     "  open NAME      the queue takes new jobs again\n"
     "  delete NAME    only a Closed queue can be deleted, and never `default`\n",
     2, JOBCTL_MAX_POS, false, cmd_queue},
    {"flow", "ACTION [NAME|FILE]", "submit, get, delete or retry Volcano JobFlows",
     "Actions:\n"
     "  submit FILE    POST every JobTemplate and JobFlow of FILE (YAML or JSON), in order\n"
     "  get [NAME]     the flows (NAME PHASE COMPLETED RUNNING FAILED AGE), or one flow step by step;\n"
     "                 -o json|yaml for the objects\n"
     "  delete NAME    stop its running jobs (deleted under jobRetainPolicy delete, else kept)\n"
     "  retry NAME     run a Failed flow again from its failed steps, keeping the completed ones\n",
     1, 2, false, cmd_flow},
    {"token", "ACTION [ID] [OPTIONS]", "create, list or delete the tokens that say who a request is from",
     "Actions:\n"
     "  create --user U --namespace N [--namespace M]... --uid N --gid N [--role R]\n"
     "                 a token (admins only): prints it once on stdout, never again. Roles: user (the\n"
     "                 default: reads and writes in its namespaces, its tasks run as uid:gid), viewer\n"
     "                 (reads them), admin (everything; every namespace). --namespace '*' is every one\n"
     "  list           the tokens: an admin sees every one, others their own user's\n"
     "  delete ID      (admins) requests bearing it are refused at once\n"
     "Requests carry --token TOKEN, else $CALDERA_TOKEN; the server's first admin token is in its\n"
     "data directory's admin.token.\n",
     1, 2, false, cmd_token},
    {"config", "view", "show the server, namespace and token in use, and where each comes from",
     "Each comes from the line (-s, -n, --token), else $CALDERA_SERVER, $CALDERA_NAMESPACE,\n"
     "$CALDERA_TOKEN, else the settings file, else the default. The file is\n"
     "$XDG_CONFIG_HOME/caldera/config, else ~/.config/caldera/config, with lines such as\n"
     "  server = http://jobs.example:8080\n"
     "  namespace = team-a\n"
     "  token = ...          (keep the file chmod 600)\n"
     "`#` starts a comment. The token is shown masked.\n",
     1, 1, false, cmd_config},
    {"completion", "bash", "print a bash completion script: source <(jobctl completion bash)",
     "Completes commands, options, -o formats, and job (and pod) names asked of the server with\n"
     "the -s, -n and --token already on the line.\n",
     1, 1, false, cmd_completion},
};

#define NCOMMANDS ((int)(sizeof COMMANDS / sizeof COMMANDS[0]))

const struct jobctl_command *jobctl_find_command(const char *name)
{
    for (int i = 0; i < NCOMMANDS; i++)
        if (strcmp(COMMANDS[i].name, name) == 0)
            return &COMMANDS[i];
    return NULL;
}

const struct jobctl_command *jobctl_command_at(int i) { return i >= 0 && i < NCOMMANDS ? &COMMANDS[i] : NULL; }

void jobctl_print_help(void)
{
    printf(
        "jobctl: submit and follow Volcano jobs on a Caldera job server.\n\n"
        "Usage: jobctl [OPTIONS] COMMAND [ARGS]\n\nCommands:\n");
    const struct jobctl_command *c;
    for (int i = 0; (c = jobctl_command_at(i)); i++) {
        char left[300];
        snprintf(left, sizeof left, "%s %s", c->name, c->args);
        if (strlen(left) > 38) { /* the rest is in `jobctl help NAME` */
            char *cut = left + 34;
            while (cut > left && *cut != ' ')
                cut--;
            snprintf(cut, sizeof left - (size_t)(cut - left), " ...");
        }
        printf("  %-38s %s\n", left, c->summary);
    }
    printf("  %-38s %s\n\n%s\n", "help [COMMAND]", "show this help, or a command's", jobctl_options_help);
    printf(
        "Exit status: 0 done, 1 the server refused or could not be reached (reason on stderr),\n"
        "2 the command line is wrong.\n");
}
