/* The command table: each command's name, arguments, help text and handler. `jobctl help`,
 * argument checking and dispatch all read it. */
#include <stddef.h>
#include <string.h>

#include "tools/jobctl/jobctl.h"

static const struct jobctl_command COMMANDS[] = {
    {"submit", "FILE", "create the Jobs and Queues described in a YAML or JSON file",
     "FILE may hold several documents (YAML \"---\" separated); \"-\" reads standard input.\n"
     "Each document goes to the API of its kind: a Job into its metadata.namespace (else -n),\n"
     "a Queue to the cluster's queues. Kinds are checked first; sending stops at the first failure.\n"
     "Errors in a document point at lines of FILE itself.\n",
     1, 1, false, cmd_submit},
    {"get", "[JOB]", "list the jobs of the namespace, or show one job and its pods",
     "Without JOB: one row per job (NAME PHASE MIN PENDING RUNNING SUCCEEDED FAILED RETRIES AGE).\n"
     "With JOB: that row, then its pods (POD NODE PHASE EXIT REASON AGE).\n"
     "-o json prints the JobList or the Job as the server sent it.\n",
     0, 1, false, cmd_get},
    {"pods", "[JOB]", "list the pods of the namespace, or of one job",
     "Columns: POD NODE PHASE EXIT REASON AGE. Pods are named <job>-<task>-<index>.\n", 0, 1, false, cmd_pods},
    {"logs", "POD [--previous] [--attempt N]", "print a pod's log",
     "The log is printed exactly as stored.\n"
     "  -p, --previous   the log of the attempt before the current one\n"
     "  --attempt N      the log of attempt N (see `jobctl history JOB`)\n",
     1, 1, true, cmd_logs},
    {"history", "JOB", "show a job's phase transitions and every attempt of its pods",
     "Two tables: the transitions (SEQ TIME FROM TO REASON MESSAGE), then the attempts\n"
     "(POD ATTEMPT VERSION NODE PID START FINISH EXIT REASON MESSAGE).\n",
     1, 1, false, cmd_history},
    {"delete", "JOB", "delete a job", "", 1, 1, false, cmd_delete},
    {"nodes", "", "list the nodes", "Columns: NAME STATUS CPU MEMORY GPU AGE (allocatable resources).\n", 0, 0,
     false, cmd_nodes},
    {"queues", "", "list the queues", "Columns: NAME STATE WEIGHT PENDING RUNNING INQUEUE AGE.\n", 0, 0, false,
     cmd_queues},
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
