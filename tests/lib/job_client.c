/* Jobs through a test server's API: Job YAML built from parts, submit, get, wait, the history and
 * its attempts, and JSON fields by dotted path, for the integration tests of jobs with real tasks. */
#include "tests/lib/job_client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

json_t *jv_at(json_t *v, const char *path) { return server_json_at(v, path); }

const char *jv_str(json_t *v, const char *path) { return json_string_value(jv_at(v, path)); }
long long jv_num(json_t *v, const char *path) { return (long long)json_integer_value(jv_at(v, path)); }

/* A Job named `name` with spec lines `spec` (indented 2) and `tasks` (list items, indented 2). */
const char *job_yaml(const char *name, const char *spec, const char *tasks)
{
    static char buf[8192];
    snprintf(buf, sizeof buf,
             "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: %s}\nspec:\n%s  tasks:\n%s", name,
             spec, tasks);
    return buf;
}

long job_submit(const struct test_server *s, const char *name, const char *spec, const char *tasks)
{
    long code;
    json_t *r = server_request(s, "POST", JOBS, job_yaml(name, spec, tasks), "application/yaml", &code);
    if (code != 201)
        fprintf(stderr, "submit %s: HTTP %ld: %s\n", name, code, json_string_value(json_object_get(r, "message")));
    json_decref(r);
    return code;
}

json_t *api_get(const struct test_server *s, const char *fmt, const char *name, long *code)
{
    char path[512];
    snprintf(path, sizeof path, fmt, name);
    return server_request(s, "GET", path, NULL, NULL, code);
}

json_t *job_get(const struct test_server *s, const char *name)
{
    long code;
    return api_get(s, JOBS "/%s", name, &code);
}

json_t *job_history(const struct test_server *s, const char *name)
{
    long code;
    return api_get(s, HISTORY "/%s/history", name, &code);
}

int job_wait(const struct test_server *s, const char *name, const char *field, const char *want, int ms)
{
    char path[512];
    snprintf(path, sizeof path, JOBS "/%s", name);
    return server_wait_field(s, path, field, want, ms);
}

int history_wait(const struct test_server *s, const char *name, const char *field, const char *want, int ms)
{
    char path[512];
    snprintf(path, sizeof path, HISTORY "/%s/history", name);
    return server_wait_field(s, path, field, want, ms);
}

/* The attempts of one pod in the history, in order; returns how many. */
int pod_attempts(json_t *history, const char *pod, json_t **out, int max)
{
    int n = 0;
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(history, "attempts"), i, a)
    {
        if (n < max && jv_str(a, "pod") && strcmp(jv_str(a, "pod"), pod) == 0)
            out[n++] = a;
    }
    return n;
}

bool pid_gone(long long pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%lld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return true;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')');
    return paren && (paren[2] == 'Z' || paren[2] == 'X');
}

bool pid_gone_within(long long pid, int ms)
{
    for (int waited = 0; waited < ms; waited += 50) {
        if (pid_gone(pid))
            return true;
        usleep(50000);
    }
    return pid_gone(pid);
}

bool event_wait(const struct test_server *s, const char *name, const char *reason, const char *needle, char type[16],
                char *message, size_t len, int ms)
{
    for (int waited = 0; waited < ms; waited += 100) {
        long code;
        json_t *list = server_request(s, "GET", "/api/v1/events", NULL, NULL, &code);
        size_t i;
        json_t *e;
        bool found = false;
        json_array_foreach(json_object_get(list, "items"), i, e)
        {
            const char *r = jv_str(e, "reason"), *n = jv_str(e, "involvedObject.name"), *m = jv_str(e, "message");
            if (!found && r && n && m && strcmp(r, reason) == 0 && strcmp(n, name) == 0 && strstr(m, needle)) {
                snprintf(type, 16, "%s", jv_str(e, "type") ? jv_str(e, "type") : "");
                snprintf(message, len, "%s", m);
                found = true;
            }
        }
        json_decref(list);
        if (found)
            return true;
        usleep(100000);
    }
    fprintf(stderr, "no %s event about %s saying \"%s\"\n", reason, name, needle);
    return false;
}
