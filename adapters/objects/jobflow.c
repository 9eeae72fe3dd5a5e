/* Volcano's JobFlow in and out: spec.flows checked field by field and as a graph (flow_dag.c), the
 * status Volcano's controller writes (jobs by phase, jobStatusList, conditions, state.phase) with
 * Caldera's state.message, retryCount and each step's outputs, and the stored form read back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/jobflow.h"
#include "adapters/objects/object_meta.h"
#include "common/clock.h"
#include "common/strv.h"
#include "model/flow_dag.h"

static const struct object_type flow_type = {FLOW_API_VERSION, "JobFlow", "jobflows", FLOW_GROUP};
static const char *const top_fields[] = {"apiVersion", "kind", "metadata", "spec", "status", NULL};
static const char *const spec_fields[] = {"flows", "jobRetainPolicy", NULL};
static const char *const flow_fields[] = {"name", "dependsOn", "patch", "outputs", NULL};
static const char *const depends_fields[] = {"targets", "probe", NULL};
static const char *const probe_fields[] = {"taskStatusList", "httpGetList", "tcpSocketList", NULL};
static const char *const task_probe_fields[] = {"taskName", "phase", NULL};
static const char *const http_probe_fields[] = {"taskName", "path", "port", "httpHeader", NULL};
static const char *const tcp_probe_fields[] = {"taskName", "port", NULL};
static const char *const header_fields[] = {"name", "value", NULL};
static const char *const patch_fields[] = {"spec", NULL};
static const char *const output_fields[] = {"name", "path", NULL};
static const char *const pod_phases[] = {"Pending", "Running", "Succeeded", "Failed", NULL};

static bool one_of(const char *s, const char *const *set)
{
    for (; *set; set++)
        if (strcmp(s, *set) == 0)
            return true;
    return false;
}

static bool output_name_ok(const char *s)
{
    if (!*s || strlen(s) > 63)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
              *s == '-'))
            return false;
    return true;
}

/* A relative path below the working directory: no "/" first, no "." or ".." component. */
static bool output_path_ok(const char *p)
{
    if (!*p || *p == '/' || strlen(p) > 255)
        return false;
    for (const char *c = p; *c;) {
        const char *end = strchr(c, '/');
        size_t n = end ? (size_t)(end - c) : strlen(c);
        if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
            return false;
        c += n + (end ? 1 : 0);
    }
    return true;
}

/* Printable ASCII without spaces (an HTTP path, a header's value with spaces allowed). */
static bool printable(const char *s, bool spaces)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e || (*s == ' ' && !spaces))
            return false;
    return true;
}

/* An HTTP token (RFC 9110): a header's name. */
static bool http_token(const char *s)
{
    if (!*s || strlen(s) > 256)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              strchr("!#$%&'*+-.^_`|~", *s)))
            return false;
    return true;
}

/* httpGet's httpHeader {name, value}: "Name: value" in *out, or NULL when absent. */
static void parse_header(struct fields *f, json_t *p, const char *at, char **out)
{
    char hp[FIELD_PATH_MAX], fp[FIELD_PATH_MAX];
    json_t *h = NULL;
    const char *name = NULL, *value = "";
    field_path(hp, at, "httpHeader");
    if (!field_object(f, p, "httpHeader", hp, false, &h) || !h)
        return;
    field_check_known(f, h, hp, header_fields);
    field_path(fp, hp, "name");
    if (field_string_in(f, h, "name", hp, true, &name) && name && !http_token(name))
        field_invalid(f, h, "name", fp, "a header's name: letters, digits and !#$%&'*+-.^_`|~");
    field_path(fp, hp, "value");
    if (field_string_in(f, h, "value", hp, false, &value) && !value)
        value = "";
    else if (value && (!printable(value, true) || strlen(value) > 4096))
        field_invalid(f, h, "value", fp, "printable ASCII, at most 4096 characters");
    if (name && value) {
        size_t n = strlen(name) + strlen(value) + 3;
        *out = malloc(n);
        if (*out)
            snprintf(*out, n, "%s: %s", name, value);
    }
}

/* httpGetList (tcp false) or tcpSocketList: appended to s->nets, sized by the caller. */
static void parse_net_list(struct fields *f, json_t *probe, const char *parent, bool tcp, struct flow_step *s)
{
    const char *key = tcp ? "tcpSocketList" : "httpGetList";
    char path[FIELD_PATH_MAX], at[FIELD_PATH_MAX], fp[FIELD_PATH_MAX];
    json_t *list = NULL;
    field_path(path, parent, key);
    if (!field_array(f, probe, key, path, false, &list) || !list || !s->nets)
        return;
    for (size_t i = 0; i < json_array_size(list); i++) {
        json_t *p = field_each_object(f, list, i, path, at, "must be an object");
        const char *task = NULL, *url = "/";
        int64_t port = 0;
        char *header = NULL;
        if (!p)
            continue;
        field_check_known(f, p, at, tcp ? tcp_probe_fields : http_probe_fields);
        field_string_in(f, p, "taskName", at, true, &task);
        bool port_ok = field_int_in(f, p, "port", at, true, 1, 65535, &port);
        if (!tcp) {
            field_path(fp, at, "path");
            if (field_string_in(f, p, "path", at, false, &url) && url &&
                (url[0] != '/' || !printable(url, false) || strlen(url) > 2048))
                field_invalid(f, p, "path", fp, "an absolute path: '/' first, printable ASCII, no spaces");
            parse_header(f, p, at, &header);
        }
        bool path_ok = !json_object_get(p, "path") || url; /* absent: "/" as Volcano's */
        if (!url)
            url = "/";
        if (task && port_ok && path_ok) {
            struct flow_net_probe *n = &s->nets[s->nnets++];
            n->task = strdup(task);
            n->port = (int)port;
            n->path = tcp ? NULL : strdup(url);
            n->header = header;
        } else {
            free(header);
        }
    }
}

static void parse_probe(struct fields *f, json_t *probe, const char *parent, struct flow_step *s)
{
    char path[FIELD_PATH_MAX], at[FIELD_PATH_MAX];
    json_t *list = NULL;
    field_check_known(f, probe, parent, probe_fields);
    s->nets = calloc(json_array_size(json_object_get(probe, "httpGetList")) +
                         json_array_size(json_object_get(probe, "tcpSocketList")) + 1,
                     sizeof *s->nets);
    parse_net_list(f, probe, parent, false, s);
    parse_net_list(f, probe, parent, true, s);
    field_path(path, parent, "taskStatusList");
    if (!field_array(f, probe, "taskStatusList", path, false, &list) || !list)
        return;
    s->probes = calloc(json_array_size(list) + 1, sizeof *s->probes);
    for (size_t i = 0; s->probes && i < json_array_size(list); i++) {
        json_t *p = field_each_object(f, list, i, path, at, "must be an object");
        const char *task = NULL, *phase = NULL;
        if (!p)
            continue;
        field_check_known(f, p, at, task_probe_fields);
        field_string_in(f, p, "taskName", at, true, &task);
        if (field_string_in(f, p, "phase", at, true, &phase) && phase && !one_of(phase, pod_phases)) {
            char fp[FIELD_PATH_MAX];
            field_path(fp, at, "phase");
            field_unsupported(f, p, "phase", fp,
                              "supported values: \"Pending\", \"Running\", \"Succeeded\", \"Failed\"");
        }
        if (task && phase) {
            s->probes[s->nprobes].task = strdup(task);
            s->probes[s->nprobes++].phase = strdup(phase);
        }
    }
}

static void parse_outputs(struct fields *f, json_t *flow, const char *parent, struct flow_step *s)
{
    char path[FIELD_PATH_MAX], at[FIELD_PATH_MAX];
    json_t *list = NULL;
    field_path(path, parent, "outputs");
    if (!field_array(f, flow, "outputs", path, false, &list) || !list)
        return;
    if (json_array_size(list) > FLOW_OUTPUTS_MAX)
        field_error(f, flow, "outputs", path, "FieldValueTooMany", "Too many: %zu: must have at most %d items",
                    json_array_size(list), FLOW_OUTPUTS_MAX);
    s->outputs = calloc(json_array_size(list) + 1, sizeof *s->outputs);
    for (size_t i = 0; s->outputs && i < json_array_size(list); i++) {
        json_t *o = field_each_object(f, list, i, path, at, "must be an object");
        const char *name = NULL, *file = NULL;
        char fp[FIELD_PATH_MAX];
        if (!o)
            continue;
        field_check_known(f, o, at, output_fields);
        field_path(fp, at, "name");
        if (field_string_in(f, o, "name", at, true, &name) && name && !output_name_ok(name))
            field_invalid(f, o, "name", fp, "an output's name is letters, digits, '_' and '-' (at most 63)");
        field_path(fp, at, "path");
        if (field_string_in(f, o, "path", at, true, &file) && file && !output_path_ok(file))
            field_invalid(f, o, "path", fp, "a path relative to the job's working directory, without \"..\"");
        if (name && file) {
            s->outputs[s->noutputs].name = strdup(name);
            s->outputs[s->noutputs++].path = strdup(file);
        }
    }
}

static void parse_step(struct fields *f, json_t *flow, const char *at, const char *flow_name, struct flow_step *s)
{
    char path[FIELD_PATH_MAX];
    const char *name = NULL;
    json_t *dep = NULL, *patch = NULL, *probe = NULL, *pspec = NULL;
    field_check_known(f, flow, at, flow_fields);
    field_path(path, at, "name");
    if (field_string_in(f, flow, "name", at, true, &name) && name) {
        if (!dns1123_subdomain(name))
            field_invalid(f, flow, "name", path, "a JobTemplate's name (a DNS-1123 subdomain)");
        else if (strlen(flow_name) + 1 + strlen(name) > FLOW_JOB_NAME_MAX)
            field_invalid(f, flow, "name", path, "the job \"<flow>-<name>\" must be no more than 63 characters");
    }
    s->name = strdup(name ? name : "");
    field_path(path, at, "dependsOn");
    if (field_object(f, flow, "dependsOn", path, false, &dep) && dep) {
        char tp[FIELD_PATH_MAX], pp[FIELD_PATH_MAX];
        field_check_known(f, dep, path, depends_fields);
        field_path(tp, path, "targets");
        char **targets = NULL;
        if (field_string_list(f, dep, "targets", tp, &targets) && targets) {
            s->targets = targets;
            s->ntargets = (int)strv_len(targets);
        }
        field_path(pp, path, "probe");
        if (field_object(f, dep, "probe", pp, false, &probe) && probe)
            parse_probe(f, probe, pp, s);
    }
    field_path(path, at, "patch");
    if (field_object(f, flow, "patch", path, false, &patch) && patch) {
        char sp[FIELD_PATH_MAX];
        field_check_known(f, patch, path, patch_fields);
        field_path(sp, path, "spec");
        field_object(f, patch, "spec", sp, false, &pspec);
    }
    parse_outputs(f, flow, at, s);
}

static void check_graph(struct fields *f, json_t *flows, struct job_flow *jf)
{
    int s, t;
    enum flow_dag_problem p = flow_dag_check(jf, &s, &t);
    char path[FIELD_PATH_MAX], at[FIELD_PATH_MAX];
    if (p == FLOW_DAG_NOMEM) {
        api_fail(f->st, 500, "InternalError", "out of memory");
        return;
    }
    if (p == FLOW_DAG_OK)
        return;
    json_t *flow = json_array_get(flows, (size_t)s);
    field_path_index(at, "spec.flows", (size_t)s);
    if (p == FLOW_DAG_DUPLICATE) {
        field_path(path, at, "name");
        field_error(f, flow, "name", path, "FieldValueDuplicate", "Duplicate value: \"%s\"", jf->steps[s].name);
        return;
    }
    json_t *targets = json_object_get(json_object_get(flow, "dependsOn"), "targets");
    char tp[FIELD_PATH_MAX];
    snprintf(tp, sizeof tp, "%s.dependsOn.targets", at);
    field_path_index(path, tp, (size_t)t);
    if (p == FLOW_DAG_MISSING_TARGET)
        field_error_at_index(f, targets, (size_t)t, path, "FieldValueNotFound",
                             "Not found: \"%s\": no flow of this JobFlow is named so", jf->steps[s].targets[t]);
    else
        field_error_at_index(f, targets, (size_t)t, path, "FieldValueInvalid",
                             "Invalid value: \"%s\": the dependencies form a cycle through \"%s\"",
                             jf->steps[s].targets[t], jf->steps[s].name);
}

static struct job_flow *build(struct fields *f, json_t *root, const char *url_ns)
{
    json_t *meta = NULL, *spec = NULL, *flows = NULL;
    struct job_flow *jf = calloc(1, sizeof *jf);
    if (!jf) {
        api_fail(f->st, 500, "InternalError", "out of memory");
        return NULL;
    }
    field_check_known(f, root, "", top_fields);
    if (object_meta_parse(f, root, url_ns, &meta, &jf->resource_version)) {
        const char *name = json_string_value(json_object_get(meta, "name"));
        if (!(jf->name = strdup(name ? name : "")) || !(jf->ns = strdup(url_ns)))
            api_fail(f->st, 500, "InternalError", "out of memory");
    }
    if (f->st->code == 0 && field_object(f, root, "spec", "spec", true, &spec) && spec) {
        const char *policy = NULL;
        field_check_known(f, spec, "spec", spec_fields);
        if (field_string(f, spec, "jobRetainPolicy", "spec.jobRetainPolicy", false, &policy) && policy) {
            if (strcmp(policy, "delete") == 0)
                jf->delete_jobs = true;
            else if (strcmp(policy, "retain") != 0)
                field_unsupported(f, spec, "jobRetainPolicy", "spec.jobRetainPolicy",
                                  "supported values: \"retain\", \"delete\"");
        }
        if (field_array(f, spec, "flows", "spec.flows", true, &flows) && flows) {
            if (json_array_size(flows) == 0)
                field_error(f, spec, "flows", "spec.flows", "FieldValueRequired", "Required value: at least one flow");
            jf->steps = calloc(json_array_size(flows) + 1, sizeof *jf->steps);
            if (!jf->steps)
                api_fail(f->st, 500, "InternalError", "out of memory");
            for (size_t i = 0; jf->steps && i < json_array_size(flows); i++) {
                char at[FIELD_PATH_MAX];
                json_t *flow = field_each_object(f, flows, i, "spec.flows", at, "a flow must be an object");
                if (flow)
                    parse_step(f, flow, at, jf->name ? jf->name : "", &jf->steps[jf->nsteps++]);
            }
            if (f->st->code == 0 && f->st->ncauses == 0)
                check_graph(f, flows, jf);
        }
    }
    if (f->st->code != 0 || f->st->ncauses > 0 || !meta || !spec) {
        json_decref(meta);
        job_flow_free(jf);
        return NULL;
    }
    if (!(jf->manifest = json_pack("{s:o, s:O}", "metadata", meta, "spec", spec))) {
        api_fail(f->st, 500, "InternalError", "out of memory");
        job_flow_free(jf);
        return NULL;
    }
    return jf;
}

int jobflow_from_doc(const struct intake_doc *doc, const char *url_ns, struct job_flow **out, struct api_status *st)
{
    *out = NULL;
    if (!json_is_object(doc->root))
        return api_fail(st, 400, "BadRequest", "the body must be a JobFlow object");
    if (object_check_type(doc->root, &flow_type, st) != 0)
        return -1;
    struct fields f = {doc, st, false};
    *out = build(&f, doc->root, url_ns);
    return *out ? 0 : object_fail_invalid(st, &flow_type, doc->root);
}

void jobflow_job_name(const struct job_flow *f, const struct flow_step *s, char *out, size_t len)
{
    snprintf(out, len, "%s-%s", f->name, s->name);
}

static void set_time(json_t *obj, const char *key, int64_t ms)
{
    char buf[RFC3339_LEN];
    if (ms > 0)
        json_object_set_new(obj, key, json_string(rfc3339(ms, buf)));
}

/* Volcano's lists by job phase; the phases it has no list for are unKnowJobs. */
static const char *phase_list(const char *phase)
{
    static const char *const map[][2] = {
        {"Pending", "pendingJobs"}, {"Running", "runningJobs"},       {"Completed", "completedJobs"},
        {"Failed", "failedJobs"},   {"Terminated", "terminatedJobs"}, {"Completing", NULL},
        {"Terminating", NULL}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(phase, map[i][0]) == 0)
            return map[i][1];
    return "unKnowJobs";
}

static json_t *render_status(const struct job_flow *f)
{
    json_t *status = json_object(), *list = json_array(), *conditions = json_object();
    for (int i = 0; i < f->nsteps; i++) {
        const struct flow_step *s = &f->steps[i];
        if (!s->phase[0])
            continue;
        char name[160];
        jobflow_job_name(f, s, name, sizeof name);
        const char *key = phase_list(s->phase);
        if (key) {
            json_t *names = json_object_get(status, key);
            if (!names)
                json_object_set_new(status, key, names = json_array());
            json_array_append_new(names, json_string(name));
        }
        json_t *js = json_pack("{s:s, s:s, s:i}", "name", name, "state", s->phase, "restartCount", s->restart_count);
        set_time(js, "startTimestamp", s->start_ms);
        set_time(js, "endTimestamp", s->end_ms);
        /* copies: the render leaves the core's thread, which goes on changing the step's own */
        json_object_set_new(js, "runningHistories", s->histories ? json_deep_copy(s->histories) : json_array());
        if (s->values && json_object_size(s->values) > 0)
            json_object_set_new(js, "outputs", json_deep_copy(s->values));
        json_array_append_new(list, js);
        json_t *cond = json_pack("{s:s}", "phase", s->phase);
        set_time(cond, "createTimestamp", s->start_ms);
        json_object_set_new(conditions, name, cond);
    }
    json_object_set_new(status, "jobStatusList", list);
    json_object_set_new(status, "conditions", conditions);
    json_t *state = json_pack("{s:s}", "phase", flow_phase_name(f->phase));
    if (f->message)
        json_object_set_new(state, "message", json_string(f->message));
    json_object_set_new(status, "state", state);
    if (f->retries > 0)
        json_object_set_new(status, "retryCount", json_integer(f->retries));
    return status;
}

json_t *jobflow_render(const struct job_flow *f)
{
    json_t *meta = object_meta_render(json_object_get(f->manifest, "metadata"), f->uid, f->created_ms,
                                      f->resource_version);
    return json_pack("{s:s, s:s, s:o, s:o, s:o}", "apiVersion", FLOW_API_VERSION, "kind", "JobFlow", "metadata", meta,
                     "spec", json_deep_copy(json_object_get(f->manifest, "spec")), "status", render_status(f));
}

char *jobflow_to_store_json(const struct job_flow *f) { return object_store_text(jobflow_render(f)); }

static uint8_t state_of(const char *phase)
{
    if (!*phase)
        return STEP_WAITING;
    if (strcmp(phase, "Completed") == 0)
        return STEP_COMPLETED;
    return strcmp(phase, "Failed") == 0 || strcmp(phase, "Terminated") == 0 ? STEP_FAILED : STEP_CREATED;
}

static void restore_status(struct job_flow *f, const json_t *status)
{
    json_t *js;
    size_t i;
    json_array_foreach(json_object_get(status, "jobStatusList"), i, js)
    {
        const char *name = json_string_value(json_object_get(js, "name"));
        size_t n = strlen(f->name);
        if (!name || strncmp(name, f->name, n) != 0 || name[n] != '-')
            continue;
        int k = job_flow_step_index(f, name + n + 1);
        if (k < 0)
            continue;
        struct flow_step *s = &f->steps[k];
        const char *phase = json_string_value(json_object_get(js, "state"));
        snprintf(s->phase, sizeof s->phase, "%s", phase ? phase : "");
        s->state = state_of(s->phase);
        const char *t = json_string_value(json_object_get(js, "startTimestamp"));
        if (t)
            rfc3339_parse(t, &s->start_ms);
        if ((t = json_string_value(json_object_get(js, "endTimestamp"))))
            rfc3339_parse(t, &s->end_ms);
        s->restart_count = (int32_t)json_integer_value(json_object_get(js, "restartCount"));
        s->histories = json_incref(json_object_get(js, "runningHistories"));
        s->values = json_incref(json_object_get(js, "outputs"));
    }
    json_t *state = json_object_get(status, "state");
    const char *phase = json_string_value(json_object_get(state, "phase"));
    for (int p = FLOW_PENDING; phase && p <= FLOW_TERMINATING; p++)
        if (strcmp(phase, flow_phase_name(p)) == 0)
            f->phase = (uint8_t)p;
    const char *message = json_string_value(json_object_get(state, "message"));
    f->message = message ? strdup(message) : NULL;
    f->retries = (int32_t)json_integer_value(json_object_get(status, "retryCount"));
}

struct job_flow *jobflow_from_store_json(const char *json)
{
    json_t *root = json_loads(json, 0, NULL);
    if (!root)
        return NULL;
    struct intake_doc doc = {.root = root};
    struct api_status st = {0};
    struct fields f = {&doc, &st, true};
    const char *ns = json_string_value(json_object_get(json_object_get(root, "metadata"), "namespace"));
    json_t *status = json_incref(json_object_get(root, "status"));
    json_object_del(root, "status");
    struct job_flow *jf = build(&f, root, ns ? ns : "default");
    if (jf) {
        object_meta_restore(root, jf->uid, &jf->created_ms);
        restore_status(jf, status);
    }
    json_decref(status);
    json_decref(root);
    return jf;
}

json_t *jobflow_owner_references(const struct job_flow *f)
{
    return json_pack("[{s:s, s:s, s:s, s:s, s:b, s:b}]", "apiVersion", FLOW_API_VERSION, "kind", "JobFlow", "name",
                     f->name, "uid", f->uid, "controller", 1, "blockOwnerDeletion", 1);
}
