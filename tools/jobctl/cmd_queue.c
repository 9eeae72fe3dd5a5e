/* `jobctl queue create NAME [--weight N] [--capability cpu=4,memory=8Gi] [--reclaimable=false]` and
 * `jobctl queue open|close|delete NAME`. The server validates the Queue; jobctl only builds it. */
#include "tools/jobctl/cmd_queue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sbuf.h"
#include "tools/jobctl/api.h"
#include "tools/jobctl/format.h"
#include "tools/jobctl/jobctl.h"
#include "tools/jobctl/output.h"

#define QUEUE_KIND "queue.scheduling.volcano.sh"

/* The spec a create sends: only what the line sets, so the server's defaults apply to the rest. */
struct queue_flags {
    const char *weight;
    const char *capability; /* "cpu=4,memory=8Gi" */
    const char *reclaimable;
};

/* The create options come from the global option table (args.c); stray arguments are errors. */
static int parse_flags(const struct jobctl_args *a, struct queue_flags *fl, char *why, size_t len)
{
    if (a->npos > 2) {
        snprintf(why, len, "queue create: unexpected argument \"%s\"", a->pos[2]);
        return -1;
    }
    fl->weight = a->weight;
    fl->capability = a->capability;
    fl->reclaimable = a->reclaimable;
    return 0;
}

/* "cpu=4,memory=8Gi" into {"cpu":"4","memory":"8Gi"}; quantities are the server's to judge. */
static json_t *capability_map(const char *list, char *why, size_t len)
{
    json_t *map = json_object();
    char *copy = strdup(list);
    for (char *save = NULL, *item = strtok_r(copy, ",", &save); map && item; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        if (!eq || eq == item || !eq[1]) {
            snprintf(why, len, "--capability wants NAME=QUANTITY[,NAME=QUANTITY...], not \"%s\"", item);
            json_decref(map);
            map = NULL;
            break;
        }
        *eq = '\0';
        json_object_set_new(map, item, json_string(eq + 1));
    }
    free(copy);
    return map;
}

/* A whole number, or the text as given (the server then says what is wrong with it). */
static json_t *number_or_text(const char *s)
{
    char *end;
    long long n = strtoll(s, &end, 10);
    return *s && !*end ? json_integer(n) : json_string(s);
}

static json_t *queue_document(const char *name, const struct queue_flags *fl, char *why, size_t len)
{
    json_t *spec = json_object();
    if (fl->weight)
        json_object_set_new(spec, "weight", number_or_text(fl->weight));
    if (fl->reclaimable) {
        bool yes = strcmp(fl->reclaimable, "true") == 0, no = strcmp(fl->reclaimable, "false") == 0;
        if (!yes && !no) {
            snprintf(why, len, "--reclaimable wants true or false, not \"%s\"", fl->reclaimable);
            json_decref(spec);
            return NULL;
        }
        json_object_set_new(spec, "reclaimable", json_boolean(yes));
    }
    if (fl->capability) {
        json_t *cap = capability_map(fl->capability, why, len);
        if (!cap) {
            json_decref(spec);
            return NULL;
        }
        json_object_set_new(spec, "capability", cap);
    }
    return json_pack("{s:s, s:s, s:{s:s}, s:o}", "apiVersion", "scheduling.volcano.sh/v1beta1", "kind", "Queue",
                     "metadata", "name", name, "spec", spec);
}

static char *queue_path(const char *prefix, const char *name, const char *action)
{
    struct sbuf b = {0};
    sbuf_printf(&b, "%s/queues", prefix);
    if (name) {
        sbuf_puts(&b, "/");
        url_escape(&b, name);
    }
    if (action)
        sbuf_printf(&b, "/%s", action);
    return sbuf_take(&b);
}

/* What open and close did, from the state the server answers with: a closed queue stays Closing
 * until none of its PodGroups is Pending, Inqueue or Running. */
static const char *state_outcome(const json_t *queue)
{
    const char *state = json_string_value(json_object_get(json_object_get(queue, "status"), "state"));
    if (state && strcmp(state, "Closing") == 0)
        return "closing (its jobs still run; it is Closed once they finish)";
    if (state && strcmp(state, "Closed") == 0)
        return "closed";
    return "opened";
}

/* Sends the request; prints "queue.scheduling.volcano.sh/NAME <done>" (done NULL: what open or close
 * did) or, with -o json, the server's answer. */
static int send_request(const struct jobctl_args *a, const char *method, char *path, const char *body, const char *done)
{
    if (!path)
        return report_oom();
    struct api_body b = {body, body ? strlen(body) : 0, "application/json"};
    json_t *answer;
    int rc = api_call_json(a, method, path, body ? &b : NULL, &answer);
    free(path);
    if (rc != JOBCTL_OK)
        return rc;
    if (a->json)
        print_doc(a, answer);
    else
        printf(QUEUE_KIND "/%s %s\n", a->pos[1], done ? done : state_outcome(answer));
    json_decref(answer);
    return JOBCTL_OK;
}

static int queue_create(const struct jobctl_args *a)
{
    struct queue_flags fl = {0};
    char why[300];
    json_t *doc = NULL;
    if (parse_flags(a, &fl, why, sizeof why) != 0 || !(doc = queue_document(a->pos[1], &fl, why, sizeof why)))
        return jobctl_usage_error(a->command_def, why);
    char *body = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    if (!body)
        return report_oom();
    int rc = send_request(a, "POST", queue_path(VOLCANO_SCHEDULING_API, NULL, NULL), body, "created");
    free(body);
    return rc;
}

int cmd_queue(const struct jobctl_args *a)
{
    const char *action = a->pos[0];
    if (strcmp(action, "create") == 0)
        return queue_create(a);
    if (a->npos > 2)
        return jobctl_usage_error(a->command_def, "queue open, close and delete take only NAME");
    if (strcmp(action, "delete") == 0)
        return send_request(a, "DELETE", queue_path(VOLCANO_SCHEDULING_API, a->pos[1], NULL), NULL, "deleted");
    if (strcmp(action, "open") == 0 || strcmp(action, "close") == 0)
        return send_request(a, "POST", queue_path(CALDERA_API, a->pos[1], action), NULL, NULL);
    char why[128];
    snprintf(why, sizeof why, "unknown queue action \"%s\" (create, open, close or delete)", action);
    return jobctl_usage_error(a->command_def, why);
}
