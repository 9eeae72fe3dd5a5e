/* `jobctl run`'s Job. With --per-day the job gets one task per date rather than one task whose
 * replicas map an index to a date: that is how a Volcano Job says "the same program, once per
 * parameter", and each date then shows in its pod's name (job-2026-01-03-0), has its own history,
 * its own restarts (RestartTask), and CALDERA_DATE comes from the pod's own env, with no wrapper
 * turning VC_TASK_INDEX into a date. The gang minimum is then 1: the days run as room allows. */
#include "tools/jobctl/run_job.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int fail(char *err, size_t errlen, const char *why, const char *value)
{
    snprintf(err, errlen, why, value);
    return -1;
}

/* "2026-01-31" as days since 1970-01-01; -1 when it is no date. */
static long parse_day(const char *s, size_t len)
{
    int y, m, d, n = 0;
    char buf[16];
    if (len != 10)
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    if (sscanf(buf, "%4d-%2d-%2d%n", &y, &m, &d, &n) != 3 || n != 10 || buf[4] != '-' || buf[7] != '-')
        return -1;
    struct tm tm = {.tm_year = y - 1900, .tm_mon = m - 1, .tm_mday = d, .tm_hour = 12};
    time_t t = timegm(&tm);
    struct tm back;
    if (t == (time_t)-1 || !gmtime_r(&t, &back) || back.tm_year != y - 1900 || back.tm_mon != m - 1 ||
        back.tm_mday != d)
        return -1; /* 2026-02-30 and the like */
    return (long)(t / 86400);
}

static void day_text(long day, char *buf, size_t len)
{
    time_t t = (time_t)day * 86400;
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%d", &tm);
}

int run_parse_days(const char *text, long *first_day, int *ndays, char *err, size_t errlen)
{
    const char *dots = strstr(text, "..");
    if (!dots)
        return fail(err, errlen, "--per-day wants FROM..TO (2026-01-01..2026-01-31), not \"%s\"", text);
    long from = parse_day(text, (size_t)(dots - text)), to = parse_day(dots + 2, strlen(dots + 2));
    if (from < 0 || to < 0)
        return fail(err, errlen, "--per-day wants two dates YYYY-MM-DD (2026-01-01..2026-01-31), not \"%s\"", text);
    if (to < from)
        return fail(err, errlen, "--per-day \"%s\" ends before it starts", text);
    if (to - from + 1 > RUN_MAX_DAYS) {
        snprintf(err, errlen, "--per-day \"%s\" spans %ld days; at most %d", text, to - from + 1, RUN_MAX_DAYS);
        return -1;
    }
    *first_day = from;
    *ndays = (int)(to - from + 1);
    return 0;
}

/* A whole number in [min, max] from flag's value. */
static int whole(const char *flag, const char *v, long min, long max, long *out, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || end == v || *end || n < min || n > max) {
        snprintf(err, errlen, "%s wants a whole number from %ld to %ld, not \"%s\"", flag, min, max, v);
        return -1;
    }
    *out = n;
    return 0;
}

static bool env_name_ok(const char *s, size_t n)
{
    if (n == 0 || isdigit((unsigned char)s[0]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_')
            return false;
    return true;
}

/* [{name, value}...] from --env K=V. */
static json_t *env_list(const struct jobctl_args *a, char *err, size_t errlen)
{
    json_t *env = json_array();
    for (int i = 0; env && i < a->nenv; i++) {
        const char *eq = strchr(a->env[i], '=');
        if (!eq || !env_name_ok(a->env[i], (size_t)(eq - a->env[i]))) {
            json_decref(env);
            fail(err, errlen,
                 "--env wants NAME=VALUE with NAME of letters, digits and _ (not starting with a digit), "
                 "not \"%s\"",
                 a->env[i]);
            return NULL;
        }
        if (strncmp(a->env[i], "CALDERA_DATE=", 13) == 0 && a->per_day) {
            json_decref(env);
            fail(err, errlen, "--env %s: with --per-day, CALDERA_DATE is each task's date", a->env[i]);
            return NULL;
        }
        json_array_append_new(env,
                              json_pack("{s:s%,s:s}", "name", a->env[i], (size_t)(eq - a->env[i]), "value", eq + 1));
    }
    return env;
}

static json_t *resources(const struct jobctl_args *a)
{
    json_t *r = json_object();
    if (a->cpu)
        json_object_set_new(r, "cpu", json_string(a->cpu));
    if (a->memory)
        json_object_set_new(r, "memory", json_string(a->memory));
    if (a->gpu)
        json_object_set_new(r, "nvidia.com/gpu", json_string(a->gpu));
    return json_pack("{s:O,s:o}", "requests", r, "limits", r);
}

static json_t *command(const struct jobctl_args *a)
{
    json_t *words = json_array();
    for (int i = 0; i < a->nrest; i++)
        json_array_append_new(words, json_string(a->rest[i]));
    return words;
}

/* One task: name, replicas, its container (env extended with CALDERA_DATE when date is set). */
static json_t *task(const struct jobctl_args *a, const char *name, long replicas, const json_t *env, const char *date)
{
    json_t *e = json_deep_copy(env);
    if (date)
        json_array_append_new(e, json_pack("{s:s,s:s}", "name", "CALDERA_DATE", "value", date));
    json_t *container = json_pack("{s:s,s:o,s:o,s:o}", "name", "main", "command", command(a), "env", e, "resources",
                                  resources(a));
    if (a->image)
        json_object_set_new(container, "image", json_string(a->image));
    json_t *t = json_pack("{s:s,s:I,s:{s:{s:s,s:[o]}}}", "name", name, "replicas", (json_int_t)replicas, "template",
                          "spec", "restartPolicy", "Never", "containers", container);
    if (date)
        json_object_set_new(t, "minAvailable", json_integer(replicas));
    return t;
}

static int memory_scale(const char *v, json_t **out, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    double rate = strtod(v, &end);
    if (errno || end == v || (*end && *end != ',') || !(rate > 1) || (*end == ',' && !end[1]))
        return fail(err, errlen,
                    "--auto-memory-scale wants RATE or RATE,MAX: a factor above 1 (1.5), and the most memory "
                    "(64Gi), not \"%s\"",
                    v);
    *out = json_pack("{s:f}", "rate", rate);
    if (*end == ',')
        json_object_set_new(*out, "maxMemory", json_string(end + 1));
    return 0;
}

/* The checks of the flags that need no server; 0 or -1 with err. */
static int check_flags(const struct jobctl_args *a, long *replicas, long *min_success, char *err, size_t errlen)
{
    *replicas = 1;
    *min_success = 0;
    if (!a->has_rest || a->nrest == 0)
        return fail(err, errlen, "%s", "run needs the command after --: jobctl run [FLAGS] -- COMMAND [ARGS...]");
    if (a->npos > a->nrest)
        return fail(err, errlen, "run takes no argument before --, got \"%s\" (put the command after --)", a->pos[0]);
    if (a->replicas && whole("--replicas", a->replicas, 1, RUN_MAX_REPLICAS, replicas, err, errlen) != 0)
        return -1;
    if (a->min_success &&
        whole("--min-success", a->min_success, 1, RUN_MAX_REPLICAS * RUN_MAX_DAYS, min_success, err, errlen) != 0)
        return -1;
    return 0;
}

json_t *run_build_job(const struct jobctl_args *a, char *err, size_t errlen)
{
    long replicas, min_success, first_day = 0;
    int ndays = 0;
    json_t *ams = NULL;
    if (check_flags(a, &replicas, &min_success, err, errlen) != 0 ||
        (a->per_day && run_parse_days(a->per_day, &first_day, &ndays, err, errlen) != 0) ||
        (a->auto_memory_scale && memory_scale(a->auto_memory_scale, &ams, err, errlen) != 0))
        return NULL;
    long total = replicas * (ndays ? ndays : 1);
    if (min_success > total) {
        snprintf(err, errlen, "--min-success %ld is more than the job's %ld replicas", min_success, total);
        json_decref(ams);
        return NULL;
    }
    json_t *env = env_list(a, err, errlen);
    if (!env) {
        json_decref(ams);
        return NULL;
    }
    json_t *tasks = json_array();
    for (int d = 0; d < ndays; d++) {
        char date[16];
        day_text(first_day + d, date, sizeof date);
        json_array_append_new(tasks, task(a, date, replicas, env, date));
    }
    if (!ndays)
        json_array_append_new(tasks, task(a, "main", replicas, env, NULL));
    json_decref(env);
    json_t *meta = json_pack("{s:s}", "namespace", a->ns ? a->ns : "default");
    json_object_set_new(meta, a->name ? "name" : "generateName", json_string(a->name ? a->name : "run-"));
    json_t *spec = json_pack("{s:I,s:o}", "minAvailable", (json_int_t)(ndays ? 1 : replicas), "tasks", tasks);
    if (a->queue)
        json_object_set_new(spec, "queue", json_string(a->queue));
    if (min_success)
        json_object_set_new(spec, "minSuccess", json_integer(min_success));
    if (ams)
        json_object_set_new(spec, "autoMemoryScale", ams);
    return json_pack("{s:s,s:s,s:o,s:o}", "apiVersion", "batch.volcano.sh/v1alpha1", "kind", "Job", "metadata", meta,
                     "spec", spec);
}
