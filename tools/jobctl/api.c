/* jobctl's requests to the job server through common/http_client, and the one place that turns a
 * failed request into an error message: every command just returns the code it gets. */
#include "tools/jobctl/api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sbuf.h"
#include "tools/jobctl/format.h"
#include "tools/jobctl/jobctl.h"
#include "tools/jobctl/status.h"

char *api_ns_path(const char *group_version, const char *ns, const char *resource, const char *name, const char *sub)
{
    struct sbuf b = {0};
    sbuf_printf(&b, "%s/namespaces/", group_version);
    url_escape(&b, ns);
    sbuf_printf(&b, "/%s", resource);
    if (name) {
        sbuf_puts(&b, "/");
        url_escape(&b, name);
    }
    if (sub)
        sbuf_printf(&b, "/%s", sub);
    return sbuf_take(&b);
}

char *api_with_query(char *base, const char *const *keys, const char *const *values, int n)
{
    if (!base)
        return NULL;
    struct sbuf b = {0};
    sbuf_puts(&b, base);
    char sep = strchr(base, '?') ? '&' : '?';
    free(base);
    for (int i = 0; i < n; i++) {
        if (!values[i])
            continue;
        sbuf_printf(&b, "%c%s=", sep, keys[i]);
        url_escape(&b, values[i]);
        sep = '&';
    }
    return sbuf_take(&b);
}

char *api_page_path(char *base, const struct jobctl_args *a)
{
    const char *keys[] = {"limit", "continue"}, *values[] = {a->limit, a->cont};
    return api_with_query(base, keys, values, 2);
}

/* http_do's sentence starts with the full URL; the message names the server once instead. */
static void report_unreachable(const char *server, const char *url, const char *err)
{
    size_t n = strlen(url);
    if (strncmp(err, url, n) == 0 && strncmp(err + n, ": ", 2) == 0)
        err += n + 2;
    fprintf(stderr, "jobctl: cannot reach the job server at %s: %s\n", server, err);
}

static void report_failure(const struct http_response *resp)
{
    char *text = status_describe(resp->code, resp->body);
    fputs(text ? text : "jobctl: the request failed (out of memory describing it)\n", stderr);
    free(text);
}

int api_fetch(const struct jobctl_args *a, const char *method, const char *path, struct http_response *resp)
{
    char *url = NULL, err[512] = "";
    if (asprintf(&url, "%s%s", a->server, path) < 0) {
        fprintf(stderr, "jobctl: out of memory\n");
        return JOBCTL_FAIL;
    }
    struct http_request req = {.method = method, .url = url, .bearer = a->token};
    int rc = http_do(&req, resp, err, sizeof err);
    if (rc != 0)
        report_unreachable(a->server, url, err);
    free(url);
    return rc == 0 ? JOBCTL_OK : JOBCTL_FAIL;
}

int api_job_exists(const struct jobctl_args *a, const char *name)
{
    char *path = api_ns_path(VOLCANO_BATCH_API, a->ns, "jobs", name, NULL);
    struct http_response resp;
    if (!path || api_fetch(a, "GET", path, &resp) != JOBCTL_OK) {
        free(path);
        return -1;
    }
    free(path);
    int found = resp.code >= 200 && resp.code < 300 ? 1 : resp.code == 404 ? 0 : -1;
    if (found < 0)
        report_failure(&resp);
    http_response_free(&resp);
    return found;
}

int api_call(const struct jobctl_args *a, const char *method, const char *path, const struct api_body *body,
             struct http_response *resp)
{
    char *url = NULL, err[512] = "";
    if (asprintf(&url, "%s%s", a->server, path) < 0) {
        fprintf(stderr, "jobctl: out of memory\n");
        return JOBCTL_FAIL;
    }
    struct http_request req = {.method = method, .url = url, .bearer = a->token};
    if (body && body->data) {
        req.body = body->data;
        req.body_len = body->len;
        req.content_type = body->content_type;
    }
    int rc = http_do(&req, resp, err, sizeof err);
    if (rc != 0)
        report_unreachable(a->server, url, err);
    free(url);
    if (rc != 0)
        return JOBCTL_FAIL;
    if (resp->code >= 200 && resp->code < 300)
        return JOBCTL_OK;
    report_failure(resp);
    http_response_free(resp);
    return JOBCTL_FAIL;
}

int api_call_json(const struct jobctl_args *a, const char *method, const char *path, const struct api_body *body,
                  json_t **out)
{
    struct http_response resp;
    *out = NULL;
    int rc = api_call(a, method, path, body, &resp);
    if (rc != JOBCTL_OK)
        return rc;
    json_error_t jerr;
    *out = json_loadb(resp.body, resp.len, 0, &jerr);
    http_response_free(&resp);
    if (json_is_object(*out))
        return JOBCTL_OK;
    fprintf(stderr, "jobctl: the server's answer to %s %s is not a JSON object\n", method, path);
    json_decref(*out);
    *out = NULL;
    return JOBCTL_FAIL;
}

void api_print_json(const json_t *v)
{
    json_dumpf(v, stdout, JSON_INDENT(4));
    fputc('\n', stdout);
}
