/* jobctl's argument parser: "--opt value", "--opt=value", "-n value" and "-nvalue" forms, options
 * anywhere on the line, "--" to end them. Knows nothing of the environment or of the commands. */
#include "tools/jobctl/args.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum opt_id {
    OPT_SERVER,
    OPT_NAMESPACE,
    OPT_OUTPUT,
    OPT_HELP,
    OPT_PREVIOUS,
    OPT_ATTEMPT,
    OPT_WEIGHT,
    OPT_CAPABILITY,
    OPT_RECLAIMABLE,
    OPT_PHASE,
    OPT_SINCE,
    OPT_LIMIT,
    OPT_CONTINUE,
    OPT_TOKEN,
    OPT_USER,
    OPT_UID,
    OPT_GID,
    OPT_ROLE,
    OPT_WAIT,
    OPT_TIMEOUT,
    OPT_TAIL,
    OPT_TIMESTAMPS,
    OPT_LIMIT_BYTES,
    OPT_CPU,
    OPT_MEMORY,
    OPT_GPU,
    OPT_COMPANION,
    OPT_IMAGE,
    OPT_FOR,
    OPT_NAME,
    OPT_QUEUE,
    OPT_NO_WAIT,
    OPT_EXTEND,
    OPT_OWNER_UID,
    OPT_FOLLOW,
    OPT_REPLICAS,
    OPT_MIN_SUCCESS,
    OPT_AUTO_MEMORY_SCALE,
    OPT_PER_DAY,
    OPT_ENV,
    OPT_DRY_RUN,
    OPT_EXPORT
};

struct opt_spec {
    enum opt_id id;
    char short_name; /* 0: none */
    const char *long_name;
    bool takes_value;
};

static const struct opt_spec OPTS[] = {
    {OPT_SERVER, 's', "server", true},
    {OPT_NAMESPACE, 'n', "namespace", true},
    {OPT_OUTPUT, 'o', "output", true},
    {OPT_HELP, 'h', "help", false},
    {OPT_PREVIOUS, 'p', "previous", false},
    {OPT_ATTEMPT, 0, "attempt", true},
    {OPT_WEIGHT, 0, "weight", true},
    {OPT_CAPABILITY, 0, "capability", true},
    {OPT_RECLAIMABLE, 0, "reclaimable", true},
    {OPT_PHASE, 0, "phase", true},
    {OPT_SINCE, 0, "since", true},
    {OPT_LIMIT, 0, "limit", true},
    {OPT_CONTINUE, 0, "continue", true},
    {OPT_TOKEN, 0, "token", true},
    {OPT_USER, 0, "user", true},
    {OPT_UID, 0, "uid", true},
    {OPT_GID, 0, "gid", true},
    {OPT_ROLE, 0, "role", true},
    {OPT_WAIT, 'w', "wait", false},
    {OPT_TIMEOUT, 0, "timeout", true},
    {OPT_TAIL, 0, "tail", true},
    {OPT_TIMESTAMPS, 0, "timestamps", false},
    {OPT_LIMIT_BYTES, 0, "limit-bytes", true},
    {OPT_CPU, 0, "cpu", true},
    {OPT_MEMORY, 0, "memory", true},
    {OPT_GPU, 0, "gpu", true},
    {OPT_COMPANION, 0, "companion", true},
    {OPT_IMAGE, 0, "image", true},
    {OPT_FOR, 0, "for", true},
    {OPT_NAME, 0, "name", true},
    {OPT_QUEUE, 0, "queue", true},
    {OPT_NO_WAIT, 0, "no-wait", false},
    {OPT_EXTEND, 0, "extend", true},
    {OPT_OWNER_UID, 0, "owner-uid", true},
    {OPT_FOLLOW, 'f', "follow", false},
    {OPT_REPLICAS, 0, "replicas", true},
    {OPT_MIN_SUCCESS, 0, "min-success", true},
    {OPT_AUTO_MEMORY_SCALE, 0, "auto-memory-scale", true},
    {OPT_PER_DAY, 0, "per-day", true},
    {OPT_ENV, 'e', "env", true},
    {OPT_DRY_RUN, 0, "dry-run", false},
    {OPT_EXPORT, 0, "export", false}, /* --export (ALL) or --export=NONE|VAR,... */
};

#define NOPTS (sizeof OPTS / sizeof OPTS[0])

/* Finds "--name" or "--name=value" (value then points past '='). */
static const struct opt_spec *find_long(const char *arg, const char **value)
{
    const char *name = arg + 2;
    size_t len = strcspn(name, "=");
    for (size_t i = 0; i < NOPTS; i++) {
        if (strlen(OPTS[i].long_name) == len && strncmp(OPTS[i].long_name, name, len) == 0) {
            *value = name[len] == '=' ? name + len + 1 : NULL;
            return &OPTS[i];
        }
    }
    return NULL;
}

/* Finds "-x" or "-xvalue" (value then points past the letter). */
static const struct opt_spec *find_short(const char *arg, const char **value)
{
    for (size_t i = 0; i < NOPTS; i++) {
        if (OPTS[i].short_name && OPTS[i].short_name == arg[1]) {
            *value = arg[2] ? arg + 2 : NULL;
            return &OPTS[i];
        }
    }
    return NULL;
}

static int parse_attempt(const char *v, long *out, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || end == v || *end || n < 0) {
        snprintf(err, errlen, "--attempt wants a whole number >= 0, not \"%s\"", v);
        return -1;
    }
    *out = n;
    return 0;
}

static int set_output(struct jobctl_args *a, const char *v, char *err, size_t errlen)
{
    a->json = a->yaml = a->wide = a->names = a->manifest = false; /* the last -o wins */
    if (strcmp(v, "json") == 0 || strcmp(v, "yaml") == 0) {
        a->json = true;
        a->yaml = v[0] == 'y';
        return 0;
    }
    if (strcmp(v, "wide") == 0 || strcmp(v, "name") == 0) {
        a->wide = v[0] == 'w';
        a->names = v[0] == 'n';
        return 0;
    }
    if (strcmp(v, "manifest") == 0) {
        a->manifest = true;
        return 0;
    }
    snprintf(err, errlen, "unsupported output format \"%s\" (-o json, yaml, wide or name, or -o manifest for one job)",
             v);
    return -1;
}

static int apply(struct jobctl_args *a, const struct opt_spec *o, const char *v, char *err, size_t errlen)
{
    switch (o->id) {
    case OPT_SERVER: a->server = v; return 0;
    case OPT_NAMESPACE:
        if (a->nnamespaces == JOBCTL_MAX_NAMESPACES) {
            snprintf(err, errlen, "at most %d --namespace options", JOBCTL_MAX_NAMESPACES);
            return -1;
        }
        a->ns = a->namespaces[a->nnamespaces++] = v;
        return 0;
    case OPT_OUTPUT: return set_output(a, v, err, errlen);
    case OPT_HELP: a->help = true; return 0;
    case OPT_PREVIOUS: a->previous = true; return 0;
    case OPT_ATTEMPT: return parse_attempt(v, &a->attempt, err, errlen);
    case OPT_WEIGHT: a->weight = v; return 0;
    case OPT_CAPABILITY: a->capability = v; return 0;
    case OPT_RECLAIMABLE: a->reclaimable = v; return 0;
    case OPT_PHASE: a->phase = v; return 0;
    case OPT_SINCE: a->since = v; return 0;
    case OPT_TAIL: a->tail = v; return 0;
    case OPT_TIMESTAMPS: a->timestamps = true; return 0;
    case OPT_LIMIT_BYTES: a->limit_bytes = v; return 0;
    case OPT_LIMIT: a->limit = v; return 0;
    case OPT_CONTINUE: a->cont = v; return 0;
    case OPT_TOKEN: a->token = v; return 0;
    case OPT_USER: a->user = v; return 0;
    case OPT_UID: a->uid = v; return 0;
    case OPT_GID: a->gid = v; return 0;
    case OPT_ROLE: a->role = v; return 0;
    case OPT_WAIT: a->wait = true; return 0;
    case OPT_TIMEOUT: a->timeout = v; return 0;
    case OPT_CPU: a->cpu = v; return 0;
    case OPT_MEMORY: a->memory = v; return 0;
    case OPT_GPU: a->gpu = v; return 0;
    case OPT_COMPANION:
        if (a->ncompanions == JOBCTL_MAX_COMPANIONS) {
            snprintf(err, errlen, "at most %d --companion options", JOBCTL_MAX_COMPANIONS);
            return -1;
        }
        a->companions[a->ncompanions++] = v;
        return 0;
    case OPT_IMAGE: a->image = v; return 0;
    case OPT_FOR: a->duration = v; return 0;
    case OPT_NAME: a->name = v; return 0;
    case OPT_QUEUE: a->queue = v; return 0;
    case OPT_NO_WAIT: a->no_wait = true; return 0;
    case OPT_EXTEND: a->extend = v; return 0;
    case OPT_OWNER_UID: a->owner_uid = v; return 0;
    case OPT_FOLLOW: a->follow = true; return 0;
    case OPT_REPLICAS: a->replicas = v; return 0;
    case OPT_MIN_SUCCESS: a->min_success = v; return 0;
    case OPT_AUTO_MEMORY_SCALE: a->auto_memory_scale = v; return 0;
    case OPT_PER_DAY: a->per_day = v; return 0;
    case OPT_DRY_RUN: a->dry_run = true; return 0;
    case OPT_EXPORT: a->export_vars = v ? v : "ALL"; return 0;
    case OPT_ENV:
        if (a->nenv == JOBCTL_MAX_ENV) {
            snprintf(err, errlen, "at most %d --env options", JOBCTL_MAX_ENV);
            return -1;
        }
        a->env[a->nenv++] = v;
        return 0;
    }
    return 0;
}

static int add_positional(struct jobctl_args *a, const char *arg, char *err, size_t errlen)
{
    if (!a->command) {
        a->command = arg;
        return 0;
    }
    if (a->npos >= JOBCTL_MAX_POS) {
        snprintf(err, errlen, "too many arguments");
        return -1;
    }
    a->pos[a->npos++] = arg;
    return 0;
}

/* Handles the option at argv[*i], taking its value from the next argument when needed. */
static int parse_option(int argc, char *const *argv, int *i, struct jobctl_args *a, char *err, size_t errlen)
{
    const char *arg = argv[*i], *value = NULL;
    bool is_long = arg[1] == '-';
    const struct opt_spec *o = is_long ? find_long(arg, &value) : find_short(arg, &value);
    if (!o) {
        snprintf(err, errlen, "unknown option \"%s\"", arg);
        return -1;
    }
    if (!o->takes_value) {
        if (value && o->id != OPT_EXPORT) { /* --export's value is optional: only in --export=VALUE */
            snprintf(err, errlen, "option \"%s\" takes no value", arg);
            return -1;
        }
        return apply(a, o, value, err, errlen); /* NULL but for --export=VALUE */
    }
    if (!value) {
        if (*i + 1 >= argc) {
            snprintf(err, errlen, "option \"%s\" needs a value", arg);
            return -1;
        }
        value = argv[++*i];
    }
    return apply(a, o, value, err, errlen);
}

bool args_option_at(size_t i, const char **long_name, char *short_name, bool *takes_value)
{
    if (i >= NOPTS)
        return false;
    *long_name = OPTS[i].long_name;
    *short_name = OPTS[i].short_name;
    *takes_value = OPTS[i].takes_value;
    return true;
}

int args_parse(int argc, char *const *argv, struct jobctl_args *a, char *err, size_t errlen)
{
    *a = (struct jobctl_args){.attempt = -1};
    bool options_done = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        int rc;
        if (!options_done && strcmp(arg, "--") == 0) {
            options_done = a->has_rest = true;
            a->rest = argv + i + 1;
            a->nrest = argc - i - 1;
            continue;
        }
        if (options_done && a->command && a->npos == JOBCTL_MAX_POS)
            continue; /* a long command line after "--": in rest only */
        if (!options_done && arg[0] == '-' && arg[1] != '\0')
            rc = parse_option(argc, argv, &i, a, err, errlen);
        else
            rc = add_positional(a, arg, err, errlen);
        if (rc != 0)
            return -1;
    }
    return 0;
}
