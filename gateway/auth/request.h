/* Who asks, and whether they may, for an HTTP request (gateway/auth/auth.h, gateway/auth/access.h):
 * the check once its headers are in, the refusals handlers decide on, and a job's run-as user. */
#ifndef CALDERA_AUTH_REQUEST_H
#define CALDERA_AUTH_REQUEST_H

#include <stdbool.h>

struct api_status;
struct http_req;

/* request.c */
/* Authenticates the request (its bearer token, or the loopback rule) and authorizes its path, once
 * its headers are in: answers 401 or 403 (each also an Audit event) and returns true, or sets
 * req->who and returns false. route_pattern: the pattern of the route the path matched, or NULL. */
bool auth_check_request(struct http_req *req, const char *route_pattern);
/* A 403 a handler decides on what the body says (a Command on a Queue), worded and audited as the
 * path's would be: User "u" cannot <verb> resource "<resource>" in API group ... ns "" is the
 * cluster scope. */
void auth_refuse(struct http_req *req, const char *verb, const char *resource, const char *group, const char *ns,
                 const char *name, const char *why);
/* Answers with st; a 401 or 403 (the tasks' user refused) also becomes an Audit event. */
void auth_respond_status(struct http_req *req, const struct api_status *st);

/* run_as.c: a job's tasks run as the caller's uid and gid (seed 001). An admin without ids (the
 * anonymous loopback admin, the bootstrap token) leaves the manifest in charge; any other caller
 * without ids gets a 403; otherwise adapters/objects/run_as.h refuses a manifest asking for another user or
 * writes the ids in (resource and group name the object in messages). Returns 0, or -1 with the
 * Status in f->st (not answered yet). */
struct fields;
struct job;
int gateway_run_as(const struct http_req *req, struct fields *f, struct job *job, const char *resource,
                   const char *group);
/* pod_volumes.c, called by gateway_run_as first: hostPath volumes for admins (with --auth) and users
 * writing in a namespace of --host-path-namespaces alone, else a 403
 * naming each volumeMounts entry; no pod volume where tasks cannot get mount namespaces, a 422.
 * Returns 0, or -1 with the Status in f->st. */
int gateway_pod_volumes(const struct http_req *req, struct fields *f, struct job *job, const char *resource,
                        const char *group);

#endif
