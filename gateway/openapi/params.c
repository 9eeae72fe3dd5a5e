/* The OpenAPI document's shared parts: the query and path parameters (components.parameters) and
 * the error answers (components.responses), from tables, referenced by every operation. */
#include <stdio.h>
#include <string.h>

#include "gateway/openapi/internal.h"

struct query_param {
    unsigned flag;
    const char *name;
    const char *type;   /* "string", "integer", "boolean" */
    const char *format; /* NULL or "date-time" */
    const char *values; /* allowed values, space-separated; NULL: any */
    int minimum;        /* for integers; -1: none */
    const char *description;
};

static const struct query_param query_params[] = {
    {OQ_PRETTY, "pretty", "string", NULL, NULL, -1, "If 'true', the JSON answer is indented."},
    {OQ_LABEL_SELECTOR, "labelSelector", "string", NULL, NULL, -1,
     "Only objects whose labels match, as Kubernetes selects: comma-separated terms key=value (or key==value), "
     "key!=value, key, !key, key in (a,b), key notin (a,b)."},
    {OQ_FIELD_SELECTOR, "fieldSelector", "string", NULL, NULL, -1,
     "Only objects whose fields match: comma-separated terms path=value, path==value or path!=value on a dotted "
     "path into the object (metadata.name, status.phase, spec.nodeName, involvedObject.name...); a Job's "
     "status.phase is its status.state.phase."},
    {OQ_WATCH, "watch", "boolean", NULL, NULL, -1,
     "Watch: the answer is a stream (chunked) of WatchEvent lines {\"type\":\"ADDED|MODIFIED|DELETED|BOOKMARK|"
     "ERROR\",\"object\":...}: the list as it is now (each item ADDED) unless resourceVersion says where to go "
     "on from, then every change live."},
    {OQ_RESOURCE_VERSION, "resourceVersion", "string", NULL, NULL, -1,
     "With watch: the changes after this resourceVersion (a list's metadata.resourceVersion, or an object's); "
     "unset or 0: the current list first. One older than --watch-window is answered 410 Expired: list again."},
    {OQ_TIMEOUT_SECONDS, "timeoutSeconds", "integer", NULL, NULL, 0,
     "With watch: end the stream after this many seconds (default 1800)."},
    {OQ_ALLOW_WATCH_BOOKMARKS, "allowWatchBookmarks", "boolean", NULL, NULL, -1,
     "With watch: send a BOOKMARK event (an object with only metadata.resourceVersion) every 10 seconds."},
    {OQ_SEND_INITIAL_EVENTS, "sendInitialEvents", "boolean", NULL, NULL, -1,
     "With watch, allowWatchBookmarks and no resourceVersion: after the current list, a BOOKMARK annotated "
     "k8s.io/initial-events-end: \"true\", as Kubernetes' streaming lists do."},
    {OQ_LIMIT, "limit", "integer", NULL, NULL, 0,
     "At most this many items; metadata.continue of the list is then set when more follow. Every list that "
     "takes it answers at most the server's --max-list-page items (1000 by default), also when limit is 0 or "
     "absent."},
    {OQ_CONTINUE, "continue", "string", NULL, NULL, -1,
     "metadata.continue of the previous page, to read the next one (with the same filters)."},
    {OQ_INCLUDE_OBJECT, "includeObject", "string", NULL, "Metadata Object None", -1,
     "With Accept: application/json;as=Table;v=v1;g=meta.k8s.io (kubectl get), the answer is a meta.k8s.io/v1 "
     "Table of the kind's columns (Jobs, PodGroups, Queues, Pods, Nodes), and each row carries its object's "
     "PartialObjectMetadata (Metadata, the default), the whole object (Object) or nothing (None). Other kinds "
     "answer plain JSON."},
    {OQ_AS, "as", "string", NULL, "volcano", -1,
     "as=volcano: the batch.volcano.sh/v1alpha1 Job (or JobList) behind the object instead of the object in its "
     "own shape."},
    {OQ_PREVIOUS, "previous", "boolean", NULL, NULL, -1, "The log of the attempt before the last."},
    {OQ_ATTEMPT, "attempt", "integer", NULL, NULL, 1, "The log of this attempt (1, 2, ...)."},
    {OQ_FOLLOW, "follow", "boolean", NULL, NULL, -1,
     "Stream the log as it is written, until that attempt ends (a new attempt is a new request)."},
    {OQ_OWNER_UID, "ownerUid", "string", NULL, NULL, -1,
     "The Job's uid in the cluster, for its companions' ownerReferences (default: Caldera's own uid of the job)."},
    {OQ_PHASE, "phase", "string", NULL, NULL, -1,
     "Only jobs whose status.state.phase is this (Pending, Running, ...)."},
    {OQ_SINCE, "since", "string", "date-time", NULL, -1, "Only jobs created at or after this time (RFC 3339)."},
    {OQ_UNTIL, "until", "string", "date-time", NULL, -1, "Only jobs created before this time (RFC 3339)."},
    {OQ_FIELD_VALIDATION, "fieldValidation", "string", NULL, "Ignore Warn Strict", -1,
     "What becomes of fields the kind does not have: Warn (the default) drops each with a Warning header "
     "(`unknown field \"spec.foo\"`), Ignore drops them silently, Strict refuses the object (422 naming each)."},
    {OQ_FIELD_MANAGER, "fieldManager", "string", NULL, NULL, -1,
     "Who makes the change; required for server-side apply (application/apply-patch+yaml), whose fields are "
     "recorded under it in metadata.managedFields."},
    {OQ_FORCE, "force", "boolean", NULL, NULL, -1,
     "Server-side apply only: take over fields another manager applied instead of answering 409 Conflict."},
    {OQ_UID, "uid", "string", NULL, NULL, -1,
     "The job of this uid: an earlier job of the same name (default: the newest)."},
};

struct path_param {
    const char *name; /* as openapi_param_name gives it */
    const char *type;
    const char *values;
    int minimum;
    const char *description;
};

static const struct path_param path_params[] = {
    {"namespace", "string", NULL, -1, "object name and auth scope, such as for teams and projects"},
    {"name", "string", NULL, -1, "name of the object"},
    {"group", "string", NULL, -1, "an API group, such as batch.volcano.sh"},
    {"version", "string", NULL, -1, "a version of the API group, such as v1alpha1"},
    {"file", "string", NULL, -1, "a file of the browser UI"},
    {"task", "string", NULL, -1, "name of a task of the job"},
    {"pod", "string", NULL, -1, "name of a pod of the job (<job>-<task>-<index>)"},
    {"attempt", "integer", NULL, 1, "number of the attempt: 1, 2, ..."},
    {"action", "string", "suspend abort resume restart terminate complete", -1,
     "the action: suspend (or abort, as Volcano's AbortJob), resume, restart, terminate or complete"},
};

struct error_answer {
    unsigned flag;
    const char *code;
    const char *description;
};

static const struct error_answer error_answers[] = {
    {OE_400, "400",
     "BadRequest: a malformed body, query parameter or selector, a URL whose percent-encoding does "
     "not decode to UTF-8, or a Transfer-Encoding other than chunked"},
    {OE_401, "401",
     "Unauthorized: no bearer token where one is needed (with --auth, or away from loopback), or one "
     "that is not valid; WWW-Authenticate: Bearer"},
    {OE_403, "403",
     "Forbidden: the token's user may not do this here (another namespace, a role that only reads, "
     "an admin's task, or a manifest asking to run as another uid or gid); recorded as an Audit event"},
    {OE_404, "404", "NotFound: no such object"},
    {OE_409, "409", "AlreadyExists or Conflict: the object exists, or its state forbids the change"},
    {OE_413, "413", "RequestEntityTooLarge: the body is larger than the server's limit"},
    {OE_415, "415", "UnsupportedMediaType: a body neither JSON nor YAML"},
    {OE_422, "422", "Invalid: the object breaks the rules of its kind; details.causes name each field"},
    {OE_503, "503", "ServiceUnavailable: the job database does not accept writes now (Retry-After says when to retry)"},
    {OE_507, "507", "InsufficientStorage: the disk of the data directory is full"},
    {OE_410, "410", "Expired: the resourceVersion is older than the changes a watch may resume over; list again"},
    {OE_504, "504", "Timeout: the resourceVersion is newer than any the server has reached"},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

json_t *openapi_ref(const char *section, const char *name)
{
    char ref[256];
    snprintf(ref, sizeof ref, "#/components/%s/%s", section, name);
    return json_pack("{s:s}", "$ref", ref);
}

static json_t *param_schema(const char *type, const char *format, const char *values, int minimum)
{
    json_t *schema = json_pack("{s:s}", "type", type);
    if (format)
        json_object_set_new(schema, "format", json_string(format));
    if (minimum >= 0)
        json_object_set_new(schema, "minimum", json_integer(minimum));
    if (values) {
        json_t *list = json_array();
        char buf[256];
        snprintf(buf, sizeof buf, "%s", values);
        for (char *save = NULL, *v = strtok_r(buf, " ", &save); v; v = strtok_r(NULL, " ", &save))
            json_array_append_new(list, json_string(v));
        json_object_set_new(schema, "enum", list);
    }
    return schema;
}

json_t *openapi_parameters(void)
{
    json_t *out = json_object();
    char key[64];
    for (size_t i = 0; i < COUNT(query_params); i++) {
        const struct query_param *q = &query_params[i];
        snprintf(key, sizeof key, "query-%s", q->name);
        json_object_set_new(out, key,
                            json_pack("{s:s, s:s, s:s, s:b, s:o}", "name", q->name, "in", "query", "description",
                                      q->description, "required", 0, "schema",
                                      param_schema(q->type, q->format, q->values, q->minimum)));
    }
    for (size_t i = 0; i < COUNT(path_params); i++) {
        const struct path_param *p = &path_params[i];
        snprintf(key, sizeof key, "path-%s", p->name);
        json_object_set_new(out, key,
                            json_pack("{s:s, s:s, s:s, s:b, s:o}", "name", p->name, "in", "path", "description",
                                      p->description, "required", 1, "schema",
                                      param_schema(p->type, NULL, p->values, p->minimum)));
    }
    return out;
}

void openapi_add_query_params(json_t *params, unsigned flags)
{
    char key[64];
    for (size_t i = 0; i < COUNT(query_params); i++) {
        if (!(flags & query_params[i].flag))
            continue;
        snprintf(key, sizeof key, "query-%s", query_params[i].name);
        json_array_append_new(params, openapi_ref("parameters", key));
    }
}

static json_t *status_answer(const char *description)
{
    return json_pack("{s:s, s:{s:{s:o}}}", "description", description, "content", "application/json", "schema",
                     openapi_ref("schemas", "Status"));
}

json_t *openapi_error_responses(void)
{
    json_t *out = json_object();
    for (size_t i = 0; i < COUNT(error_answers); i++)
        json_object_set_new(out, error_answers[i].code, status_answer(error_answers[i].description));
    json_object_set_new(out, "Error",
                        status_answer("any other failure (404 for unknown paths, 405 for methods a path does not "
                                      "take, 414 for a query of more than 100 parameters, 429 TooManyRequests with "
                                      "Retry-After for a client over the server's rate limit, 500 InternalError...), "
                                      "as a Status; a URL or header block larger than a connection's memory gets "
                                      "414 or 431 from libmicrohttpd"));
    return out;
}

void openapi_add_error_responses(json_t *responses, unsigned flags)
{
    for (size_t i = 0; i < COUNT(error_answers); i++)
        if (flags & error_answers[i].flag)
            json_object_set_new(responses, error_answers[i].code, openapi_ref("responses", error_answers[i].code));
    json_object_set_new(responses, "default", openapi_ref("responses", "Error"));
}
