/* Authentication and authorization of each request, once its headers are in and before its body
 * is read: the principal from the bearer token (or the loopback rule), the rule of its path, and
 * every refusal (401, 403) answered as a Status and posted to the core as an Audit event. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "gateway/auth/access.h"
#include "gateway/auth/auth.h"
#include "gateway/auth/request.h"
#include "gateway/http/http.h"
#include "scheduler/core/core.h"

#define AUDIT_KIND "Audit"

static void address_text(const struct sockaddr *sa, char *out, size_t len)
{
    snprintf(out, len, "an unknown address");
    if (sa && sa->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, out, (socklen_t)len);
    else if (sa && sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, out, (socklen_t)len);
}

/* The Audit event of a refusal: about the target's namespace, named after the user, posted without
 * waiting (dropped, and counted, when too many wait already). */
static void audit(struct http_req *req, const struct access_request *r, const struct api_status *st)
{
    char addr[INET6_ADDRSTRLEN + 1], message[1200];
    address_text(http_client_address(req), addr, sizeof addr);
    snprintf(message, sizeof message, "%s %s from %s (%s %s%s%s): %s", req->method, req->path, addr, r->verb,
             r->is_resource ? r->resource : "path", r->subresource[0] ? "/" : "", r->subresource, st->message);
    const char *user = req->who ? principal_user(req->who) : "anonymous";
    if (core_post_event(req->gw->core, AUDIT_KIND, r->ns, user, st->reason, message) != 0)
        auth_count_dropped_audit();
}

static void refuse(struct http_req *req, const struct access_request *r, const struct api_status *st)
{
    audit(req, r, st);
    http_respond_status(req, st);
}

bool auth_check_request(struct http_req *req, const char *route_pattern)
{
    struct auth *a = req->gw->auth;
    if (!a)
        return false;
    if (route_pattern && access_public_pattern(route_pattern))
        return false; /* /healthz and the UI's files need no one, and a stale token does not fail them */
    struct api_status st = {0};
    size_t len = 0;
    const char *token = http_bearer_token(req, &len);
    if (!token && http_header(req, "Authorization")) {
        api_fail(&st, 401, "Unauthorized",
                 "Unauthorized: only bearer tokens are accepted (Authorization: Bearer "
                 "<token>)");
    } else if (auth_authenticate_token(a, token, len, auth_address_is_loopback(http_client_address(req)), &req->who,
                                       &st) == 0) {
        if (principal_is_admin(req->who))
            return false; /* an admin passes every rule: no need to read the path */
    }
    struct access_request r;
    access_describe(req->method, req->path, &r);
    if (st.code != 0) {
        refuse(req, &r, &st);
        return true;
    }
    char why[300];
    if (access_allowed(req->who, &r, access_rule_of(&r), why, sizeof why))
        return false;
    access_forbidden(req->who, &r, why, &st);
    refuse(req, &r, &st);
    return true;
}

void auth_refuse(struct http_req *req, const char *verb, const char *resource, const char *group, const char *ns,
                 const char *name, const char *why)
{
    struct access_request r;
    access_describe(req->method, req->path, &r);
    snprintf(r.verb, sizeof r.verb, "%s", verb);
    snprintf(r.resource, sizeof r.resource, "%s", resource);
    snprintf(r.group, sizeof r.group, "%s", group);
    snprintf(r.ns, sizeof r.ns, "%s", ns ? ns : "");
    snprintf(r.name, sizeof r.name, "%s", name ? name : "");
    r.subresource[0] = '\0';
    r.is_resource = true;
    struct api_status st = {0};
    access_forbidden(req->who, &r, why, &st);
    refuse(req, &r, &st);
}

void auth_respond_status(struct http_req *req, const struct api_status *st)
{
    if (st->code != 401 && st->code != 403) {
        http_respond_status(req, st);
        return;
    }
    struct access_request r;
    access_describe(req->method, req->path, &r);
    refuse(req, &r, st);
}
