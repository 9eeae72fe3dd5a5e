/* Reading a request body as one document: JSON or YAML by Content-Type (sniffed when curl sends
 * its form-urlencoded default), 415 for anything else, 400 for several documents in one body. */
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

int gateway_read_document(struct http_req *req, const char *kind, struct intake *in, struct api_status *st)
{
    enum intake_format fmt = INTAKE_SNIFF;
    if (body_format(req, &fmt, st) != 0 ||
        intake_parse(req->body.data ? req->body.data : "", req->body.len, fmt, in, st) != 0)
        return -1;
    if (in->ndocs == 1)
        return 0;
    api_fail(st, 400, "BadRequest", "the body holds %d documents; send one %s per request (jobctl submit splits files)",
             in->ndocs, kind);
    intake_free(in);
    return -1;
}
