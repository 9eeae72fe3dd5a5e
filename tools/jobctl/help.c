/* jobctl's help: one command's page (`jobctl help get`), the options every command takes, and the
 * short hint printed after a usage error (the overview, which lists the commands, is commands.c's). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "tools/jobctl/jobctl.h"

const char jobctl_options_help[] =
    "Options (before or after the command):\n"
    "  -s, --server URL       the job server (default: $CALDERA_SERVER, else " DEFAULT_SERVER
    ")\n"
    "  -n, --namespace NS     the namespace (default: $CALDERA_NAMESPACE, else " DEFAULT_NAMESPACE
    ")\n"
    "  --token TOKEN          the bearer token sent with every request (default: $CALDERA_TOKEN)\n"
    "                         (server, namespace and token may also come from the settings file:\n"
    "                         see `jobctl help config`)\n"
    "  -o, --output json      print the server's JSON instead of tables and messages\n"
    "  -o yaml                the same as YAML\n"
    "  -o wide                tables with more columns\n"
    "  -o name                one KIND/NAME per line\n"
    "  -o manifest            (get JOB) the Job manifest a Kubernetes cluster running Volcano accepts;\n"
    "                         with companions, a List of it and their Pods, Services and Ingresses\n"
    "  --owner-uid UID        (get JOB -o manifest) the Job's uid in the cluster, for their ownerReferences\n"
    "  -h, --help             show help (for COMMAND when one is given)\n";

static void print_synopsis(FILE *f, const struct jobctl_command *c)
{
    fprintf(f, "Usage: jobctl [OPTIONS] %s%s%s\n", c->name, c->args[0] ? " " : "", c->args);
}

void jobctl_print_command_help(const struct jobctl_command *c)
{
    print_synopsis(stdout, c);
    printf("\n%c%s.\n", toupper((unsigned char)c->summary[0]), c->summary + 1);
    if (c->help[0])
        printf("\n%s", c->help);
    printf("\n%s", jobctl_options_help);
}

int jobctl_usage_error(const struct jobctl_command *c, const char *why)
{
    fprintf(stderr, "jobctl: %s\n", why);
    if (c) {
        print_synopsis(stderr, c);
        fprintf(stderr, "Run 'jobctl help %s' for more.\n", c->name);
    } else {
        fprintf(stderr, "Run 'jobctl --help' for the commands.\n");
    }
    return JOBCTL_USAGE;
}
