/* Reading a request body as one document: JSON or YAML by Content-Type (sniffed when curl sends
 * its form-urlencoded default), 415 for anything else, 400 for several documents in one body; with
 * what ?fieldValidation= says of unknown fields (Warn by default: dropped, each a Warning header). */
#include <string.h>

#include "adapters/intake/intake.h"
#include "gateway/resources/answer.h"

static int body_format(struct http_req *req, enum intake_format *fmt, struct api_status *st)
{
    const char *ct = http_header(req, "Content-Type");
    if (strcmp(req->method, "PATCH") == 0) /* patch.c put the patched object here: JSON (or an apply's YAML) */
        *fmt = INTAKE_SNIFF;
    else if (!ct || !*ct || strncmp(ct, "application/x-www-form-urlencoded", 33) == 0 ||
             strncmp(ct, "text/plain", 10) == 0)
        *fmt = INTAKE_SNIFF; /* curl --data-binary sends form-urlencoded by default */
    else if (strncmp(ct, "application/json", 16) == 0)
        *fmt = INTAKE_JSON;
    else if (strncmp(ct, "application/yaml", 16) == 0 || strncmp(ct, "application/x-yaml", 18) == 0 ||
             strncmp(ct, "text/yaml", 9) == 0 || strncmp(ct, "text/x-yaml", 11) == 0)
        *fmt = INTAKE_YAML;
    else
        return api_fail(st, 415, "UnsupportedMediaType",
                        "the body's Content-Type \"%s\" is not supported: send application/json or application/yaml",
                        ct);
    return 0;
}

/* ?fieldValidation=: Strict, Warn (the default, as Kubernetes' for API clients) or Ignore. */
static int field_validation(struct http_req *req, enum field_validation *mode, struct api_status *st)
{
    const char *v = http_query(req, "fieldValidation");
    *mode = FIELD_VALIDATION_WARN;
    if (!v || !*v || strcmp(v, "Warn") == 0)
        return 0;
    if (strcmp(v, "Strict") == 0)
        *mode = FIELD_VALIDATION_STRICT;
    else if (strcmp(v, "Ignore") == 0)
        *mode = FIELD_VALIDATION_IGNORE;
    else
        return api_fail(st, 400, "BadRequest",
                        "fieldValidation has an unsupported value \"%s\": it must be Ignore, Warn or Strict", v);
    return 0;
}

static void warn_client(void *ctx, const char *text) { http_add_warning(ctx, text); }

int gateway_read_document(struct http_req *req, const char *kind, struct intake *in, struct api_status *st)
{
    enum intake_format fmt = INTAKE_SNIFF;
    enum field_validation mode;
    if (http_query(req, "dryRun")) /* never write what a client asked only to try */
        return api_fail(st, 400, "BadRequest", "dryRun is not supported: the request would change the object");
    if (field_validation(req, &mode, st) != 0 || body_format(req, &fmt, st) != 0 ||
        intake_parse(req->body.data ? req->body.data : "", req->body.len, fmt, in, st) != 0)
        return -1;
    for (int i = 0; i < in->ndocs; i++) {
        in->docs[i].validation = mode;
        in->docs[i].warn = warn_client;
        in->docs[i].warn_ctx = req;
    }
    if (in->ndocs == 1)
        return 0;
    api_fail(st, 400, "BadRequest", "the body holds %d documents; send one %s per request (jobctl submit splits files)",
             in->ndocs, kind);
    intake_free(in);
    return -1;
}
