/* `jobctl submit FILE`: every document of a YAML or JSON file (or stdin) POSTed to the API of its
 * kind (Job, Queue, or another dialect's job: PyTorchJob, RayJob...), in order, stopping at the first
 * failure. Kinds are checked before anything is sent. --export adds the submitter's environment
 * variables to every container's env, as Slurm's sbatch --export. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/dialect.h"
#include "adapters/intake/intake.h"
#include "common/fs.h"
#include "common/sbuf.h"
#include "tools/jobctl/api.h"
#include "tools/jobctl/format.h"
#include "tools/jobctl/jobctl.h"
#include "tools/jobctl/output.h"

#define MAX_INPUT (64u << 20)

extern char **environ;

struct input {
    const char *name; /* the file as given, or "<stdin>" */
    char *data;
    size_t len;
    bool json;  /* JSON by the intake's sniffing rule; YAML otherwise */
    bool utf16; /* a UTF-16 byte order mark: slices of it are not documents on their own */
};

enum doc_kind { DOC_JOB, DOC_QUEUE, DOC_DIALECT };

/* A document's kind and, for DOC_DIALECT, its dialect. */
struct doc_type {
    enum doc_kind kind;
    const struct dialect *dialect;
};

static int read_stdin(char **data, size_t *len)
{
    struct sbuf b = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0 && b.len <= MAX_INPUT)
        sbuf_append(&b, chunk, n);
    if (ferror(stdin) || b.len > MAX_INPUT || b.failed) {
        errno = b.len > MAX_INPUT ? EFBIG : ferror(stdin) ? EIO : ENOMEM;
        sbuf_free(&b);
        return -1;
    }
    *len = b.len;
    *data = sbuf_take(&b);
    return 0;
}

static int read_input(const char *file, struct input *in)
{
    bool is_stdin = strcmp(file, "-") == 0;
    in->name = is_stdin ? "<stdin>" : file;
    int rc = is_stdin ? read_stdin(&in->data, &in->len) : read_file(file, MAX_INPUT, &in->data, &in->len);
    if (rc != 0) {
        fprintf(stderr, "jobctl: cannot read %s: %s\n", in->name, strerror(errno));
        return JOBCTL_FAIL;
    }
    const unsigned char *b = (const unsigned char *)in->data;
    in->utf16 = in->len >= 2 && ((b[0] == 0xFE && b[1] == 0xFF) || (b[0] == 0xFF && b[1] == 0xFE));
    size_t blank = strspn(in->data, " \t\r\n");
    in->json = in->data[blank] == '{' || in->data[blank] == '[';
    return JOBCTL_OK;
}

static const char *member_str(const json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s && *s ? s : NULL;
}

/* "PyTorchJob, TFJob, ...": the other kinds jobctl knows. */
static const char *dialect_kinds(void)
{
    static char list[512];
    size_t n = 0;
    for (const struct dialect *const *d = dialects; *d && n < sizeof list; d++)
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "", (*d)->kind);
    return list;
}

/* "pytorchjob.kubeflow.org/NAME created", as kubectl words it. */
static void print_created(const struct doc_type *type, const char *name)
{
    if (type->kind == DOC_DIALECT) {
        char singular[96];
        size_t i = 0;
        for (const char *k = type->dialect->kind; *k && i + 1 < sizeof singular; k++)
            singular[i++] = (char)(*k >= 'A' && *k <= 'Z' ? *k - 'A' + 'a' : *k);
        singular[i] = 0;
        printf("%s.%s/%s created\n", singular, type->dialect->group, name);
    } else {
        printf("%s/%s created\n", type->kind == DOC_JOB ? "job.batch.volcano.sh" : "queue.scheduling.volcano.sh", name);
    }
}

/* Which API a document goes to; an error naming the document (and its line) otherwise. */
static int doc_kind(const struct input *in, const struct intake_doc *d, int number, struct doc_type *type)
{
    const char *k = member_str(d->root, "kind");
    type->dialect = dialect_by_kind(member_str(d->root, "apiVersion"), k);
    if (type->dialect) {
        type->kind = DOC_DIALECT;
        return JOBCTL_OK;
    }
    if (k && strcmp(k, "Job") == 0) {
        type->kind = DOC_JOB;
        return JOBCTL_OK;
    }
    if (k && strcmp(k, "Queue") == 0) {
        type->kind = DOC_QUEUE;
        return JOBCTL_OK;
    }
    fprintf(stderr, "jobctl: %s: document %d (line %d) ", in->name, number, d->first_line);
    if (!json_is_object(d->root))
        fprintf(stderr, "is not an object\n");
    else if (!k)
        fprintf(stderr, "has no kind\n");
    else
        fprintf(stderr, "has kind \"%s\" (apiVersion %s): jobctl submits Job and Queue documents, and %s\n", k,
                member_str(d->root, "apiVersion") ? member_str(d->root, "apiVersion") : "none", dialect_kinds());
    return JOBCTL_FAIL;
}

static int check_kinds(const struct input *in, const struct intake *docs, struct doc_type *kinds)
{
    for (int i = 0; i < docs->ndocs; i++)
        if (doc_kind(in, &docs->docs[i], i + 1, &kinds[i]) != JOBCTL_OK)
            return JOBCTL_FAIL;
    return JOBCTL_OK;
}

/* Variables --export (ALL) leaves out: the shell's and the terminal's own, what the server sets for
 * the task (its HOME, USER, PATH...), and jobctl's token, which must not land in a stored Job. */
static bool export_skipped(const char *name, size_t len)
{
    static const char *const skipped[] = {"PWD",
                                          "OLDPWD",
                                          "SHLVL",
                                          "_",
                                          "TERM",
                                          "TERMCAP",
                                          "COLORTERM",
                                          "COLUMNS",
                                          "LINES",
                                          "HOME",
                                          "USER",
                                          "LOGNAME",
                                          "PATH",
                                          "HOSTNAME",
                                          "SHELL",
                                          "MAIL",
                                          "DISPLAY",
                                          "PS1",
                                          "PS2",
                                          "LS_COLORS",
                                          "TMUX",
                                          "STY",
                                          "WINDOWID",
                                          "SSH_AUTH_SOCK",
                                          "SSH_TTY",
                                          "SSH_CLIENT",
                                          "SSH_CONNECTION",
                                          "CALDERA_TOKEN",
                                          "DBUS_SESSION_BUS_ADDRESS",
                                          "XDG_RUNTIME_DIR",
                                          "XDG_SESSION_ID",
                                          NULL};
    for (size_t i = 0; skipped[i]; i++)
        if (strlen(skipped[i]) == len && strncmp(skipped[i], name, len) == 0)
            return true;
    return len > 9 && strncmp(name, "BASH_FUNC", 9) == 0; /* exported shell functions */
}

/* A name a container's env takes: letters, digits and '_', not starting with a digit. */
static bool export_name_ok(const char *name, size_t len)
{
    if (len == 0 || isdigit((unsigned char)name[0]))
        return false;
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)name[i]) && name[i] != '_')
            return false;
    return true;
}

/* Adds NAME=value (len: the name's length) to vars unless it is already there. */
static void export_add(json_t *vars, const char *assignment, size_t len)
{
    char name[256];
    if (len >= sizeof name || !export_name_ok(assignment, len))
        return;
    snprintf(name, sizeof name, "%.*s", (int)len, assignment);
    json_t *value = json_string(assignment + len + 1); /* NULL: not UTF-8, not carried */
    if (value && !json_object_get(vars, name))
        json_object_set(vars, name, value);
    json_decref(value);
}

/* --export's variables, NAME -> value: ALL (the environment less export_skipped), NONE (none), or a
 * list of NAME (from the environment, when set) and NAME=value. */
static json_t *export_vars(const char *spec)
{
    json_t *vars = json_object();
    if (!vars || strcmp(spec, "NONE") == 0)
        return vars;
    if (strcmp(spec, "ALL") == 0) {
        for (char **e = environ; e && *e; e++) {
            const char *eq = strchr(*e, '=');
            if (eq && !export_skipped(*e, (size_t)(eq - *e)))
                export_add(vars, *e, (size_t)(eq - *e));
        }
        return vars;
    }
    for (const char *item = spec; *item;) {
        size_t n = strcspn(item, ",");
        const char *eq = memchr(item, '=', n);
        if (eq) {
            char assignment[4096];
            snprintf(assignment, sizeof assignment, "%.*s", (int)n, item);
            export_add(vars, assignment, (size_t)(eq - item));
        } else if (n > 0 && n < 256) {
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)n, item);
            const char *value = getenv(name);
            char assignment[8192];
            if (value && snprintf(assignment, sizeof assignment, "%s=%s", name, value) < (int)sizeof assignment)
                export_add(vars, assignment, n);
        }
        item += n + (item[n] == ',');
    }
    return vars;
}

/* vars into one container's env: appended after its own, never over a name it sets. */
static void export_into_container(json_t *container, const json_t *vars)
{
    json_t *env = json_object_get(container, "env");
    if (!env) {
        env = json_array();
        json_object_set_new(container, "env", env);
    }
    if (!json_is_array(env))
        return; /* the server says what is wrong with it */
    const char *name;
    json_t *value;
    json_object_foreach((json_t *)vars, name, value)
    {
        bool set = false;
        size_t i;
        json_t *item;
        json_array_foreach(env, i, item)
        {
            const char *have = json_string_value(json_object_get(item, "name"));
            set = set || (have && strcmp(have, name) == 0);
        }
        if (!set)
            json_array_append_new(env, json_pack("{s:s, s:O}", "name", name, "value", value));
    }
}

/* Every pod template's containers in a document (a Job's tasks, a PyTorchJob's replica specs, a
 * RayJob's head and workers...): any "containers" array of objects, wherever it is. Returns how many
 * containers got the variables. */
static int export_into(json_t *node, const json_t *vars)
{
    int n = 0;
    if (json_is_array(node)) {
        size_t i;
        json_t *item;
        json_array_foreach(node, i, item) n += export_into(item, vars);
        return n;
    }
    const char *key;
    json_t *value;
    json_object_foreach(node, key, value)
    {
        if ((strcmp(key, "containers") == 0 || strcmp(key, "initContainers") == 0) && json_is_array(value)) {
            size_t i;
            json_t *c;
            json_array_foreach(value, i, c)
            {
                if (json_is_object(c)) {
                    export_into_container(c, vars);
                    n++;
                }
            }
        } else {
            n += export_into(value, vars);
        }
    }
    return n;
}

/* The request body of a document: its YAML slice, or (JSON input, or no usable byte range) the
 * document re-encoded as JSON (also when --export changed it). A YAML slice keeps the file's line numbers (see slice_keeping_lines),
 * so the server's errors ("line 14, column 7") point at lines of the user's file. */
static char *doc_body(const struct input *in, const struct intake_doc *d, bool changed, struct api_body *body)
{
    bool has_range = d->start_offset < d->end_offset && d->end_offset <= in->len;
    char *text;
    if (!in->json && !in->utf16 && has_range && !changed) {
        text = slice_keeping_lines(in->data, d->start_offset, d->end_offset, &body->len);
        body->content_type = "application/yaml";
    } else {
        text = json_dumps(d->root, JSON_COMPACT);
        body->len = text ? strlen(text) : 0;
        body->content_type = "application/json";
    }
    body->data = text;
    return text;
}

static char *doc_path(const struct jobctl_args *a, const json_t *root, const struct doc_type *type)
{
    if (type->kind == DOC_QUEUE)
        return strdup(VOLCANO_SCHEDULING_API "/queues");
    const char *ns = member_str(json_object_get(root, "metadata"), "namespace");
    if (type->kind == DOC_JOB)
        return api_ns_path(VOLCANO_BATCH_API, ns ? ns : a->ns, "jobs", NULL, NULL);
    char group[256];
    snprintf(group, sizeof group, "/apis/%s/%s", type->dialect->group, type->dialect->version);
    return api_ns_path(group, ns ? ns : a->ns, type->dialect->plural, NULL, NULL);
}

/* "job.batch.volcano.sh/<name> created", the name as the server gave it; -o json: the object. The
 * name of a job (of any dialect: each is a Volcano Job of that name) goes into *job_name (NULL for a
 * Queue; caller frees). */
static void report_created(const struct jobctl_args *a, const json_t *root, const struct doc_type *type,
                           const struct http_response *resp, char **job_name)
{
    json_t *obj = json_loadb(resp->body, resp->len, 0, NULL);
    const char *name = member_str(json_object_get(obj, "metadata"), "name");
    if (!name)
        name = member_str(json_object_get(root, "metadata"), "name");
    if (a->json && obj)
        print_doc(a, obj);
    else
        print_created(type, name ? name : "<unknown>");
    *job_name = type->kind != DOC_QUEUE && name ? strdup(name) : NULL;
    json_decref(obj);
}

static int submit_doc(const struct jobctl_args *a, const struct input *in, const struct intake_doc *d,
                      const struct doc_type *kind, char **job_name)
{
    struct api_body body;
    bool changed = false;
    if (a->export_vars && kind->kind != DOC_QUEUE) {
        json_t *vars = export_vars(a->export_vars);
        if (!vars)
            return report_oom();
        changed = json_object_size(vars) > 0 && export_into(d->root, vars) > 0;
        json_decref(vars);
    }
    /* Strict, as jobctl always was: a misspelt field is refused, never dropped with a warning. */
    static const char *const keys[] = {"fieldValidation"}, *const values[] = {"Strict"};
    char *text = doc_body(in, d, changed, &body), *path = api_with_query(doc_path(a, d->root, kind), keys, values, 1);
    struct http_response resp;
    *job_name = NULL;
    int rc = text && path ? api_call(a, "POST", path, &body, &resp) : report_oom();
    if (rc == JOBCTL_OK) {
        report_created(a, d->root, kind, &resp, job_name);
        http_response_free(&resp);
    }
    free(text);
    free(path);
    return rc;
}

static int submit_all(const struct jobctl_args *a, const struct input *in, const struct intake *docs)
{
    struct doc_type *kinds = calloc((size_t)docs->ndocs, sizeof *kinds);
    if (!kinds)
        return report_oom();
    char **jobs = calloc((size_t)docs->ndocs, sizeof *jobs); /* to --wait for, and their namespaces */
    const char **namespaces = calloc((size_t)docs->ndocs, sizeof *namespaces);
    int rc = jobs && namespaces ? check_kinds(in, docs, kinds) : report_oom(), njobs = 0;
    for (int i = 0; rc == JOBCTL_OK && i < docs->ndocs; i++) {
        rc = submit_doc(a, in, &docs->docs[i], &kinds[i], &jobs[njobs]);
        namespaces[njobs] = member_str(json_object_get(docs->docs[i].root, "metadata"), "namespace");
        njobs += jobs[njobs] != NULL;
        fflush(stdout);
    }
    if (rc == JOBCTL_OK && a->wait)
        rc = jobctl_wait_jobs(a, namespaces, (const char *const *)jobs, njobs);
    free(namespaces);
    for (int i = 0; i < njobs; i++)
        free(jobs[i]);
    free(jobs);
    free(kinds);
    return rc;
}

static int parse_input(const struct input *in, struct intake *docs)
{
    struct api_status st = {0};
    if (intake_parse(in->data, in->len, INTAKE_SNIFF, docs, &st) != 0) {
        fprintf(stderr, "jobctl: %s: %s\n", in->name, st.message);
        return JOBCTL_FAIL;
    }
    if (docs->ndocs == 0) {
        fprintf(stderr, "jobctl: %s: no documents to submit\n", in->name);
        return JOBCTL_FAIL;
    }
    return JOBCTL_OK;
}

int cmd_submit(const struct jobctl_args *a)
{
    struct input in = {0};
    struct intake docs = {0};
    int rc = read_input(a->pos[0], &in);
    if (rc == JOBCTL_OK)
        rc = parse_input(&in, &docs);
    if (rc == JOBCTL_OK)
        rc = submit_all(a, &in, &docs);
    intake_free(&docs);
    free(in.data);
    return rc;
}
