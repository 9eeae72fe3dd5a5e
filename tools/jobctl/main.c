/* jobctl's entry point: parses the line, handles help and usage errors, fills in the server and
 * namespace defaults, runs the command and turns its result into the exit status. */
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/jobctl/args.h"
#include "tools/jobctl/jobctl.h"

static int help_command(const struct jobctl_args *a)
{
    if (a->npos == 0) {
        jobctl_print_help();
        return JOBCTL_OK;
    }
    const struct jobctl_command *c = jobctl_find_command(a->pos[0]);
    char why[300];
    if (a->npos > 1)
        return jobctl_usage_error(NULL, "help takes one command");
    if (!c) {
        snprintf(why, sizeof why, "unknown command \"%s\"", a->pos[0]);
        return jobctl_usage_error(NULL, why);
    }
    jobctl_print_command_help(c);
    return JOBCTL_OK;
}

/* The name of required argument n in an args synopsis ("POD [--previous] [--attempt N]": 0 is POD). */
static void required_arg(const char *synopsis, int n, char *buf, size_t len)
{
    const char *p = synopsis;
    snprintf(buf, len, "an argument");
    while (*p) {
        p += strspn(p, " ");
        size_t w = *p == '[' ? strcspn(p, "]") + 1 : strcspn(p, " ");
        if (*p != '[' && n-- == 0) {
            snprintf(buf, len, "%.*s", (int)w, p);
            return;
        }
        p += strlen(p) < w ? strlen(p) : w;
    }
}

static int check_args(const struct jobctl_command *c, const struct jobctl_args *a)
{
    char why[200], missing[64];
    required_arg(c->args, a->npos, missing, sizeof missing);
    if (a->npos < c->min_args)
        snprintf(why, sizeof why, "%s needs %s", c->name, missing);
    else if (a->npos > c->max_args)
        snprintf(why, sizeof why, "too many arguments for %s", c->name);
    else if (!c->log_options && (a->previous || a->attempt >= 0 || a->tail || a->timestamps || a->limit_bytes))
        snprintf(why, sizeof why,
                 "--previous, --attempt, --tail, --timestamps and --limit-bytes are options of logs, "
                 "not of %s",
                 c->name);
    else if (a->ns && !a->ns[0])
        snprintf(why, sizeof why, "the namespace must not be empty");
    else
        return JOBCTL_OK;
    return jobctl_usage_error(c, why);
}

static const char *env_or(const char *name, const char *fallback)
{
    const char *v = getenv(name);
    return v && *v ? v : fallback;
}

/* Server, namespace and token from the line, else the environment, else the defaults (no token);
 * the server URL loses trailing slashes so paths can be appended. */
static void apply_defaults(struct jobctl_args *a, char *server, size_t len)
{
    snprintf(server, len, "%s", a->server ? a->server : env_or("CALDERA_SERVER", DEFAULT_SERVER));
    for (size_t n = strlen(server); n > 0 && server[n - 1] == '/'; n--)
        server[n - 1] = '\0';
    a->server = server;
    if (!a->ns)
        a->ns = env_or("CALDERA_NAMESPACE", DEFAULT_NAMESPACE);
    if (!a->token)
        a->token = getenv("CALDERA_TOKEN") && *getenv("CALDERA_TOKEN") ? getenv("CALDERA_TOKEN") : NULL;
}

static int run_command(const struct jobctl_command *c, struct jobctl_args *a)
{
    char server[2048];
    apply_defaults(a, server, sizeof server);
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        fprintf(stderr, "jobctl: libcurl could not be initialized\n");
        return JOBCTL_FAIL;
    }
    a->command_def = c;
    int rc = c->run(a);
    curl_global_cleanup();
    return rc;
}

/* A full disk or closed pipe on stdout is a failure too. */
static int finish_output(int rc)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "jobctl: cannot write the output: %s\n", strerror(errno));
        return rc == JOBCTL_OK ? JOBCTL_FAIL : rc;
    }
    return rc;
}

static int dispatch(struct jobctl_args *a)
{
    char why[300];
    if (!a->command) {
        if (a->help)
            jobctl_print_help();
        return a->help ? JOBCTL_OK : jobctl_usage_error(NULL, "no command given");
    }
    if (strcmp(a->command, "help") == 0)
        return help_command(a);
    const struct jobctl_command *c = jobctl_find_command(a->command);
    if (!c) {
        snprintf(why, sizeof why, "unknown command \"%s\"", a->command);
        return jobctl_usage_error(NULL, why);
    }
    if (a->help) {
        jobctl_print_command_help(c);
        return JOBCTL_OK;
    }
    int rc = check_args(c, a);
    return rc == JOBCTL_OK ? run_command(c, a) : rc;
}

int main(int argc, char **argv)
{
    struct jobctl_args a;
    char err[300];
    if (args_parse(argc, argv, &a, err, sizeof err) != 0)
        return finish_output(jobctl_usage_error(NULL, err));
    return finish_output(dispatch(&a));
}
