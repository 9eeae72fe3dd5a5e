/* Jobs posted in other dialects at their own paths: /apis/{group}/{version}/namespaces/{ns}/{plural}
 * (pytorchjobs, rayjobs, sparkapplications, trainings...). `?as=volcano` shows the Volcano Job behind. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/dialect.h"
#include "adapters/dialects/volcano/job.h"
#include "adapters/intake/fields.h"
#include "adapters/intake/intake.h"
#include "gateway/auth/request.h"
#include "gateway/resources/answer.h"
#include "gateway/resources/handlers.h"
#include "gateway/router/router.h"
#include "gateway/watch/watch.h"

/* The dialect the path names (params: group, version, then the plural at index plural_at), or NULL
 * with 404 answered, as for any path the server does not serve. */
static const struct dialect *path_dialect(struct http_req *req, int plural_at)
{
    const struct dialect *d = dialect_by_plural(req->params[0], req->params[1], req->params[plural_at]);
    if (!d) {
        struct api_status st = {0};
        api_fail(&st, 404, "NotFound", "the server could not find the requested resource");
        http_respond_status(req, &st);
    }
    return d;
}

/* ?as=volcano (the Volcano Job behind the object) or nothing; 400 for anything else. */
static int read_view(struct http_req *req, bool *as_volcano)
{
    const char *as = http_query(req, "as");
    *as_volcano = as && strcmp(as, "volcano") == 0;
    if (!as || *as_volcano)
        return 0;
    struct api_status st = {0};
    api_fail(&st, 400, "BadRequest", "as=%s: the only other view of this object is as=volcano", as);
    http_respond_status(req, &st);
    return -1;
}

static void dialect_request(struct http_req *req, enum core_op op, const char *ns, const char *name, int plural_at)
{
    const struct dialect *d = path_dialect(req, plural_at);
    struct core_request creq = {.op = op, .ns = ns, .name = name, .dialect = d};
    if (!d || read_view(req, &creq.as_volcano) != 0)
        return;
    if (op != CORE_JOB_LIST) {
        gateway_answer_core(req, &creq);
        return;
    }
    char api_version[128]; /* the items' own, or the Volcano Jobs behind them */
    snprintf(api_version, sizeof api_version, "%s/%s", d->group, d->version);
    struct list_kind kind = {api_version, d->kind, NULL};
    if (creq.as_volcano)
        kind = (struct list_kind){VOLCANO_JOB_API_VERSION, "Job", d->kind};
    gateway_answer_list(req, &creq, &kind);
}

/* What a refusal by the core needs to be said in the dialect's words. */
struct posted {
    const struct dialect *dialect;
    const struct intake_doc *doc;
    struct dialect_translation paths;
};

static void restate(void *ctx, struct api_status *st)
{
    struct posted *p = ctx;
    dialect_restate_status(p->dialect, p->doc, &p->paths, st);
}

void handle_dialect_create(struct http_req *req)
{
    const struct dialect *d = path_dialect(req, 3);
    bool as_volcano;
    if (!d || read_view(req, &as_volcano) != 0)
        return;
    struct api_status st = {0};
    struct intake in;
    if (gateway_read_document(req, d->kind, &in, &st) != 0) {
        http_respond_status(req, &st);
        return;
    }
    struct posted posted = {.dialect = d, .doc = &in.docs[0]};
    struct job *job = NULL;
    struct fields f = {&in.docs[0], &st, false};
    if (dialect_job_from_doc_keep(d, &in.docs[0], req->params[2], &job, &st, &posted.paths) != 0 ||
        gateway_run_as(req, &f, job, d->plural, d->group) != 0) {
        if (job) /* refused for its user: said in the dialect's words */
            dialect_restate_status(d, &in.docs[0], &posted.paths, &st);
        job_free(job);
        intake_free(&in);
        auth_respond_status(req, &st);
        return;
    }
    struct core_request creq = {.op = CORE_JOB_CREATE,
                                .ns = req->params[2],
                                .name = job->name,
                                .job = job,
                                .dialect = d,
                                .as_volcano = as_volcano || d->answer_as_volcano};
    gateway_answer_core_restated(req, &creq, restate, &posted);
    job_free(creq.job); /* still ours when the core refused it */
    intake_free(&in);   /* after the answer: a refusal's causes find their lines in it */
}

void handle_dialect_list_all(struct http_req *req) { dialect_request(req, CORE_JOB_LIST, NULL, NULL, 2); }
void handle_dialect_list(struct http_req *req) { dialect_request(req, CORE_JOB_LIST, req->params[2], NULL, 3); }
void handle_dialect_get(struct http_req *req) { dialect_request(req, CORE_JOB_GET, req->params[2], req->params[4], 3); }
void handle_dialect_delete(struct http_req *req)
{
    dialect_request(req, CORE_JOB_DELETE, req->params[2], req->params[4], 3);
}

/* Whether a GET of the path would be served by a fixed route (a path the server has). */
static bool served_by_get(const struct http_req *req)
{
    size_t len = strlen(req->path) + 1;
    char *scratch = malloc(len);
    const char *params[HTTP_MAX_PARAMS];
    int n = 0;
    const struct route *found = NULL;
    bool served = scratch &&
                  route_find(req->gw->routes, "GET", req->path, scratch, params, &n, &found) == ROUTE_FOUND && found &&
                  !route_is_dialect(found->pattern);
    free(scratch);
    return served;
}

/* PUT (the whole object, JSON or YAML) or PATCH (a JSON merge patch) of a dialect's object: what its
 * dialect lets change (405 when nothing, 422 naming a field that may not). */
static void dialect_change(struct http_req *req, bool patch)
{
    struct api_status st = {0};
    if (!dialect_by_plural(req->params[0], req->params[1], req->params[3]) && served_by_get(req)) {
        api_fail(&st, 405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
        http_respond_status(req, &st); /* a Volcano Job's PATCH, say: the generic row caught it */
        return;
    }
    const struct dialect *d = path_dialect(req, 3);
    bool as_volcano;
    if (!d || read_view(req, &as_volcano) != 0)
        return;
    if (!d->update) {
        api_fail(&st, 405, "MethodNotAllowed", "%s objects cannot be changed: delete it and submit it again", d->kind);
        http_respond_status(req, &st);
        return;
    }
    json_t *document = NULL;
    if (patch) {
        const char *ct = http_header(req, "Content-Type");
        if (!ct || strncmp(ct, "application/merge-patch+json", 28) != 0) {
            api_fail(&st, 415, "UnsupportedMediaType",
                     "the body's Content-Type \"%s\" is not supported: a PATCH is a JSON merge patch "
                     "(application/merge-patch+json)",
                     ct ? ct : "");
            http_respond_status(req, &st);
            return;
        }
        json_error_t err;
        document = json_loadb(req->body.data ? req->body.data : "", req->body.len, 0, &err);
        if (!json_is_object(document)) {
            json_decref(document);
            api_fail(&st, 400, "BadRequest", "the merge patch is not a JSON object: %s", document ? "" : err.text);
            http_respond_status(req, &st);
            return;
        }
    } else {
        struct intake in;
        if (gateway_read_document(req, d->kind, &in, &st) != 0) {
            http_respond_status(req, &st);
            return;
        }
        document = json_incref(in.docs[0].root);
        intake_free(&in);
        const char *name = json_string_value(json_object_get(json_object_get(document, "metadata"), "name"));
        if (!name || strcmp(name, req->params[4]) != 0) {
            api_fail(&st, 400, "BadRequest", "the name of the object (%s) does not match the name on the URL (%s)",
                     name ? name : "", req->params[4]);
            json_decref(document);
            http_respond_status(req, &st);
            return;
        }
    }
    struct core_request creq = {.op = CORE_JOB_UPDATE,
                                .ns = req->params[2],
                                .name = req->params[4],
                                .dialect = d,
                                .as_volcano = as_volcano,
                                .document = document,
                                .merge_patch = patch};
    gateway_answer_core(req, &creq);
    json_decref(document);
}

void handle_dialect_update(struct http_req *req) { dialect_change(req, false); }
void handle_dialect_patch(struct http_req *req) { dialect_change(req, true); }
