/* jobctl's entry point: parses the line, handles help and usage errors, fills in the server,
 * namespace and token (flags, else environment, else settings file, else defaults), runs the command
 * and turns its result into the exit status. */
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/jobctl/args.h"
#include "tools/jobctl/config.h"
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
    else if (!c->log_options &&
             (a->previous || a->attempt >= 0 || a->tail || a->timestamps || a->limit_bytes || a->follow))
        snprintf(why, sizeof why,
                 "-f, --previous, --attempt, --tail, --timestamps and --limit-bytes are options of logs, "
                 "not of %s",
                 c->name);
    else if (a->ns && !a->ns[0])
        snprintf(why, sizeof why, "the namespace must not be empty");
    else
        return JOBCTL_OK;
    return jobctl_usage_error(c, why);
}

/* The first of the line's value, the environment's and the file's that is set, with where it came
 * from; fallback (from "default") when none is. */
static const char *pick(const char *flag, const char *env_name, const char *file_value, const char *fallback,
                        const char **from)
{
    const char *env = getenv(env_name);
    if (flag) {
        *from = "flag";
        return flag;
    }
    if (env && *env) {
        *from = env_name;
        return env;
    }
    if (file_value && *file_value) {
        *from = "file";
        return file_value;
    }
    *from = "default";
    return fallback;
}

/* Server, namespace and token from the line, else the environment, else the settings file, else
 * the defaults (no token); the server URL loses trailing slashes so paths can be appended. */
static int apply_defaults(struct jobctl_args *a, struct config_file *cf, char *server, size_t len)
{
    char err[1400];
    config_path(getenv("XDG_CONFIG_HOME"), getenv("HOME"), cf->path, sizeof cf->path);
    a->config_path = cf->path;
    if (config_load(cf, err, sizeof err) != 0) {
        fprintf(stderr, "jobctl: the settings file %s\n", err);
        return JOBCTL_USAGE;
    }
    snprintf(server, len, "%s", pick(a->server, "CALDERA_SERVER", cf->server, DEFAULT_SERVER, &a->server_from));
    for (size_t n = strlen(server); n > 0 && server[n - 1] == '/'; n--)
        server[n - 1] = '\0';
    a->server = server;
    a->ns = pick(a->ns, "CALDERA_NAMESPACE", cf->ns, DEFAULT_NAMESPACE, &a->ns_from);
    a->token = pick(a->token, "CALDERA_TOKEN", cf->token, NULL, &a->token_from);
    if (a->token && strcmp(a->token_from, "file") == 0 && cf->open_to_others)
        fprintf(stderr, "jobctl: warning: %s holds a token and others may read it (chmod 600 %s)\n", cf->path,
                cf->path);
    return JOBCTL_OK;
}

static int run_command(const struct jobctl_command *c, struct jobctl_args *a)
{
    static struct config_file cf; /* a's strings point into it until the command is done */
    char server[2048];
    int rc = apply_defaults(a, &cf, server, sizeof server);
    if (rc != JOBCTL_OK)
        return rc;
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        fprintf(stderr, "jobctl: libcurl could not be initialized\n");
        return JOBCTL_FAIL;
    }
    a->command_def = c;
    rc = c->run(a);
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
