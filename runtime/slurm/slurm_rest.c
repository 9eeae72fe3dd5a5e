/* slurmrestd v0.0.38: submit bodies, job answers and the libcurl calls (see slurm_rest.h). Pure but for
 * the slurm_rest_* calls at the end. */
#include "runtime/slurm/slurm_rest.h"

#include <curl/curl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    enum slurm_state state;
} STATES[] = {
    {"PENDING", SLURM_STATE_PENDING},     {"RUNNING", SLURM_STATE_RUNNING},
    {"SUSPENDED", SLURM_STATE_SUSPENDED}, {"COMPLETED", SLURM_STATE_COMPLETED},
    {"CANCELLED", SLURM_STATE_CANCELLED}, {"FAILED", SLURM_STATE_FAILED},
    {"TIMEOUT", SLURM_STATE_TIMEOUT},     {"NODE_FAIL", SLURM_STATE_NODE_FAIL},
    {"PREEMPTED", SLURM_STATE_PREEMPTED}, {"BOOT_FAIL", SLURM_STATE_BOOT_FAIL},
    {"DEADLINE", SLURM_STATE_DEADLINE},   {"OUT_OF_MEMORY", SLURM_STATE_OUT_OF_MEMORY},
};

enum slurm_state slurm_state_parse(const char *name)
{
    for (size_t i = 0; name && i < sizeof STATES / sizeof STATES[0]; i++)
        if (strcmp(name, STATES[i].name) == 0)
            return STATES[i].state;
    return SLURM_STATE_UNKNOWN;
}

int slurm_state_final(enum slurm_state s)
{
    return s != SLURM_STATE_UNKNOWN && s != SLURM_STATE_PENDING && s != SLURM_STATE_RUNNING &&
           s != SLURM_STATE_SUSPENDED;
}

static int set_str(json_t *o, const char *key, const char *v)
{
    return v && *v ? json_object_set_new(o, key, json_string(v)) : 0;
}

static int set_int(json_t *o, const char *key, long long v)
{
    return v > 0 ? json_object_set_new(o, key, json_integer(v)) : 0;
}

/* One job_properties object: the spec's common fields plus one component's resources. */
static json_t *component_json(const struct slurm_job_spec *spec, const struct slurm_component *c, char *err,
                              size_t errlen)
{
    json_t *o = json_object(), *env = json_object();
    int rc = 0;
    rc |= set_str(o, "name", spec->name);
    rc |= set_str(o, "comment", spec->comment);
    rc |= set_str(o, "current_working_directory", spec->cwd);
    rc |= set_str(o, "standard_output", spec->std_out);
    rc |= set_str(o, "standard_error", spec->std_err);
    rc |= set_str(o, "partition", spec->partition);
    if (c->nodes > 0) { /* the string form: 22.05 reads [min,max] as min only */
        char n[16];
        snprintf(n, sizeof n, "%d", c->nodes);
        rc |= set_str(o, "nodes", n);
    }
    rc |= json_object_set_new(o, "tasks", json_integer(c->tasks > 0 ? c->tasks : 1));
    rc |= set_int(o, "cpus_per_task", c->cpus_per_task);
    rc |= set_int(o, "memory_per_node", c->memory_per_node_mb);
    rc |= set_int(o, "memory_per_cpu", c->memory_per_cpu_mb);
    if (c->gpus_per_task > 0) {
        char n[16];
        snprintf(n, sizeof n, "%d", c->gpus_per_task);
        rc |= set_str(o, "gpus_per_task", n);
    }
    rc |= set_str(o, "gres", c->gres);
    for (const char *const *e = spec->env; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq || eq == *e) {
            snprintf(err, errlen, "environment entry \"%s\" is not NAME=VALUE", *e);
            rc = -1;
            break;
        }
        char *key = strndup(*e, (size_t)(eq - *e));
        rc |= key ? json_object_set_new(env, key, json_string(eq + 1)) : -1;
        free(key);
    }
    rc |= json_object_set_new(o, "environment", env);
    if (rc != 0) {
        if (!*err)
            snprintf(err, errlen, "out of memory building the Slurm job");
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *slurm_submit_body(const struct slurm_job_spec *spec, char *err, size_t errlen)
{
    if (errlen)
        *err = '\0';
    if (!spec->script || strncmp(spec->script, "#!", 2) != 0) {
        snprintf(err, errlen, "a Slurm batch script must start with #!");
        return NULL;
    }
    if (!spec->cwd || spec->cwd[0] != '/') {
        snprintf(err, errlen, "a Slurm job needs an absolute working directory");
        return NULL;
    }
    if (spec->ncomponents == 0 || !spec->components) {
        snprintf(err, errlen, "a Slurm job needs at least one component");
        return NULL;
    }
    json_t *body = json_pack("{ss}", "script", spec->script);
    if (!body) {
        snprintf(err, errlen, "the batch script is not UTF-8");
        return NULL;
    }
    if (spec->ncomponents == 1) {
        json_t *job = component_json(spec, &spec->components[0], err, errlen);
        if (!job || json_object_set_new(body, "job", job) != 0) {
            json_decref(body);
            return NULL;
        }
        return body;
    }
    json_t *jobs = json_array();
    json_object_set_new(body, "jobs", jobs);
    for (size_t i = 0; i < spec->ncomponents; i++) {
        json_t *job = component_json(spec, &spec->components[i], err, errlen);
        if (!job || json_array_append_new(jobs, job) != 0) {
            json_decref(body);
            return NULL;
        }
    }
    return body;
}

/* Slurm's "errors" array as one sentence; returns non-zero when there was one. */
static int slurm_errors(json_t *root, char *err, size_t errlen)
{
    json_t *errors = json_object_get(root, "errors");
    if (!json_is_array(errors) || json_array_size(errors) == 0)
        return 0;
    json_t *e = json_array_get(errors, 0);
    const char *what = json_string_value(json_object_get(e, "error"));
    const char *desc = json_string_value(json_object_get(e, "description"));
    snprintf(err, errlen, "slurm: %s%s%s (error %lld)", desc && *desc ? desc : "", desc && *desc && what ? ": " : "",
             what ? what : "",
             json_integer_value(json_object_get(e, "error_number"))
                 ? (long long)json_integer_value(json_object_get(e, "error_number"))
                 : (long long)json_integer_value(json_object_get(e, "error_code")));
    return 1;
}

static json_t *parse_answer(const char *body, char *err, size_t errlen)
{
    json_error_t je;
    json_t *root = json_loads(body ? body : "", 0, &je);
    if (!json_is_object(root)) {
        snprintf(err, errlen, "slurmrestd's answer is not a JSON object: %s", root ? "" : je.text);
        json_decref(root);
        return NULL;
    }
    if (slurm_errors(root, err, errlen)) {
        json_decref(root);
        return NULL;
    }
    return root;
}

int slurm_parse_submit(const char *body, uint32_t *job_id, char *err, size_t errlen)
{
    json_t *root = parse_answer(body, err, errlen);
    if (!root)
        return -1;
    json_t *id = json_object_get(root, "job_id");
    int rc = json_is_integer(id) && json_integer_value(id) > 0 ? 0 : -1;
    if (rc == 0)
        *job_id = (uint32_t)json_integer_value(id);
    else
        snprintf(err, errlen, "slurmrestd's submit answer has no job_id");
    json_decref(root);
    return rc;
}

static void copy_str(char *dst, size_t n, json_t *v)
{
    const char *s = json_string_value(v);
    snprintf(dst, n, "%s", s ? s : "");
}

static int64_t get_time(json_t *job, const char *key)
{
    json_t *v = json_object_get(job, key);
    return json_is_integer(v) && json_integer_value(v) > 0 ? (int64_t)json_integer_value(v) : 0;
}

/* exit_code is the raw wait status (768: exit 3; 15: SIGTERM), as slurmctld keeps it. */
static void parse_one(json_t *job, struct slurm_job_info *out)
{
    memset(out, 0, sizeof *out);
    out->job_id = (uint32_t)json_integer_value(json_object_get(job, "job_id"));
    out->het_job_id = (uint32_t)json_integer_value(json_object_get(job, "het_job_id"));
    out->het_job_offset = (uint32_t)json_integer_value(json_object_get(job, "het_job_offset"));
    copy_str(out->state_name, sizeof out->state_name, json_object_get(job, "job_state"));
    out->state = slurm_state_parse(out->state_name);
    copy_str(out->reason, sizeof out->reason, json_object_get(job, "state_reason"));
    json_t *ec = json_object_get(job, "exit_code");
    out->exit_status = -1;
    if (json_is_integer(ec)) {
        int st = (int)json_integer_value(ec);
        if ((st & 0x7f) == 0)
            out->exit_status = (st >> 8) & 0xff;
        else
            out->term_signal = st & 0x7f;
    }
    out->submit_time = get_time(job, "submit_time");
    out->start_time = get_time(job, "start_time");
    out->end_time = get_time(job, "end_time");
    copy_str(out->nodes, sizeof out->nodes, json_object_get(job, "nodes"));
    copy_str(out->std_out, sizeof out->std_out, json_object_get(job, "standard_output"));
    copy_str(out->std_err, sizeof out->std_err, json_object_get(job, "standard_error"));
    copy_str(out->name, sizeof out->name, json_object_get(job, "name"));
    copy_str(out->comment, sizeof out->comment, json_object_get(job, "comment"));
}

int slurm_parse_jobs(const char *body, struct slurm_job_info *infos, int max, char *err, size_t errlen)
{
    json_t *root = parse_answer(body, err, errlen);
    if (!root)
        return -1;
    json_t *jobs = json_object_get(root, "jobs");
    if (!json_is_array(jobs)) {
        snprintf(err, errlen, "slurmrestd's job answer has no jobs array");
        json_decref(root);
        return -1;
    }
    size_t i;
    json_t *job;
    json_array_foreach(jobs, i, job) if ((int)i < max) parse_one(job, &infos[i]);
    int n = (int)json_array_size(jobs);
    json_decref(root);
    return n;
}

/* ---- the calls ---- */

static size_t collect(char *ptr, size_t size, size_t nmemb, void *ctx)
{
    char **buf = ctx;
    size_t old = *buf ? strlen(*buf) : 0, add = size * nmemb;
    char *grown = realloc(*buf, old + add + 1);
    if (!grown)
        return 0;
    memcpy(grown + old, ptr, add);
    grown[old + add] = '\0';
    *buf = grown;
    return add;
}

/* One request; *answer gets the body (caller frees). Returns 0 on a 2xx, else -1 with why in err
 * (Slurm's own errors preferred over the status). */
static int call(const struct slurm_rest *r, const char *method, const char *path, const char *body, char **answer,
                char *err, size_t errlen)
{
    *answer = NULL;
    CURL *c = curl_easy_init();
    if (!c) {
        snprintf(err, errlen, "curl_easy_init failed");
        return -1;
    }
    char url[1024], h_user[300], h_token[4096];
    snprintf(url, sizeof url, "%s/slurm/%s%s", r->url, SLURM_REST_API, path);
    snprintf(h_user, sizeof h_user, "X-SLURM-USER-NAME: %s", r->user ? r->user : "");
    snprintf(h_token, sizeof h_token, "X-SLURM-USER-TOKEN: %s", r->token ? r->token : "");
    struct curl_slist *h = curl_slist_append(NULL, h_user);
    h = curl_slist_append(h, h_token);
    if (body)
        h = curl_slist_append(h, "Content-Type: application/json");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, r->timeout_ms > 0 ? r->timeout_ms : 10000L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, answer);
    if (body)
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    CURLcode cc = curl_easy_perform(c);
    long code = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    if (cc != CURLE_OK) {
        snprintf(err, errlen, "slurmrestd %s %s: %s", method, url, curl_easy_strerror(cc));
        free(*answer);
        *answer = NULL;
        return SLURM_REST_UNREACHABLE;
    }
    if (code / 100 != 2) {
        /* 22.05 answers Slurm's refusals with 500 and an errors array: only a bare 5xx is the server's. */
        int rc = -1;
        json_t *root = *answer ? json_loads(*answer, 0, NULL) : NULL;
        if (!root || !slurm_errors(root, err, errlen)) {
            snprintf(err, errlen, "slurmrestd %s %s: HTTP %ld", method, url, code);
            if (code >= 500)
                rc = SLURM_REST_UNREACHABLE;
        }
        json_decref(root);
        free(*answer);
        *answer = NULL;
        return rc;
    }
    return 0;
}

int slurm_rest_ping(const struct slurm_rest *r, char *err, size_t errlen)
{
    char *answer;
    int rc = call(r, "GET", "/ping", NULL, &answer, err, errlen);
    free(answer);
    return rc;
}

int slurm_rest_submit(const struct slurm_rest *r, const struct slurm_job_spec *spec, uint32_t *job_id, char *err,
                      size_t errlen)
{
    json_t *body = slurm_submit_body(spec, err, errlen);
    if (!body)
        return -1;
    char *text = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    if (!text) {
        snprintf(err, errlen, "out of memory rendering the Slurm job");
        return -1;
    }
    char *answer;
    int rc = call(r, "POST", "/job/submit", text, &answer, err, errlen);
    free(text);
    if (rc == 0)
        rc = slurm_parse_submit(answer, job_id, err, errlen);
    free(answer);
    return rc;
}

int slurm_rest_job(const struct slurm_rest *r, uint32_t job_id, struct slurm_job_info *infos, int max, char *err,
                   size_t errlen)
{
    char path[64], *answer;
    snprintf(path, sizeof path, "/job/%u", job_id);
    int rc = call(r, "GET", path, NULL, &answer, err, errlen);
    if (rc == 0)
        rc = slurm_parse_jobs(answer, infos, max, err, errlen);
    free(answer);
    return rc;
}

int slurm_rest_jobs(const struct slurm_rest *r, struct slurm_job_info **infos, char *err, size_t errlen)
{
    char *answer;
    *infos = NULL;
    int rc = call(r, "GET", "/jobs", NULL, &answer, err, errlen);
    if (rc != 0)
        return rc;
    int n = slurm_parse_jobs(answer, NULL, 0, err, errlen);
    if (n > 0) {
        *infos = calloc((size_t)n, sizeof **infos);
        n = *infos ? slurm_parse_jobs(answer, *infos, n, err, errlen) : -1;
    }
    free(answer);
    return n;
}

int slurm_rest_cancel(const struct slurm_rest *r, uint32_t job_id, int signal, char *err, size_t errlen)
{
    char path[96], *answer;
    if (signal > 0 && sigabbrev_np(signal)) /* a name: 22.05 takes signal=9 for a plain cancel */
        snprintf(path, sizeof path, "/job/%u?signal=SIG%s", job_id, sigabbrev_np(signal));
    else
        snprintf(path, sizeof path, "/job/%u", job_id);
    int rc = call(r, "DELETE", path, NULL, &answer, err, errlen);
    free(answer);
    return rc;
}
