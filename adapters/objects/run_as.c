/* Forcing the submitter's uid and gid on a job's tasks (seed 001's PodSecurityPolicy): every
 * securityContext that asks for another id is refused by its field; the ids are then written into
 * each pod template (the stored spec) and each task spec (what the runtime reads). */
#include "adapters/objects/run_as.h"

#include <stdio.h>
#include <string.h>

/* Adds a cause for each id field of the securityContext of holder (a pod spec or a container) that
 * differs from who's. */
static void check_holder(struct fields *f, const json_t *holder, const char *path, const struct run_as *who)
{
    const json_t *sc = json_object_get(holder, "securityContext");
    if (!json_is_object(sc))
        return;
    static const struct {
        const char *key, *what;
    } ids[] = {{"runAsUser", "uid"}, {"runAsGroup", "gid"}};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        const json_t *v = json_object_get(sc, ids[i].key);
        int32_t want = i == 0 ? who->uid : who->gid;
        if (!json_is_integer(v) || json_integer_value(v) == want)
            continue;
        char p[FIELD_PATH_MAX], q[FIELD_PATH_MAX], detail[200];
        field_path(p, path, "securityContext");
        field_path(q, p, ids[i].key);
        snprintf(detail, sizeof detail, "the token's user %s runs as %s %d, not %lld", who->user, ids[i].what,
                 (int)want, (long long)json_integer_value(v));
        field_forbidden(f, sc, ids[i].key, q, detail);
    }
}

static void check_task(struct fields *f, const struct task_spec *ts, size_t t, const struct run_as *who)
{
    const json_t *spec = json_object_get(ts->template_tree, "spec");
    char task[FIELD_PATH_MAX], path[FIELD_PATH_MAX];
    field_path_index(task, "spec.tasks", t);
    field_path(path, task, "template.spec");
    check_holder(f, spec, path, who);
    size_t i;
    const json_t *container;
    json_array_foreach(json_object_get(spec, "containers"), i, container)
    {
        char containers[FIELD_PATH_MAX], c[FIELD_PATH_MAX];
        field_path(containers, path, "containers");
        field_path_index(c, containers, i);
        check_holder(f, container, c, who);
    }
}

/* runAsUser and runAsGroup into the pod's securityContext (made when missing). */
static int write_ids(json_t *template, const struct run_as *who)
{
    json_t *spec = json_object_get(template, "spec");
    if (!json_is_object(spec))
        return -1;
    json_t *sc = json_object_get(spec, "securityContext");
    if (!json_is_object(sc)) {
        sc = json_object();
        if (json_object_set_new(spec, "securityContext", sc) != 0)
            return -1;
    }
    return json_object_set_new(sc, "runAsUser", json_integer(who->uid)) |
           json_object_set_new(sc, "runAsGroup", json_integer(who->gid));
}

int run_as_enforce(struct fields *f, struct job *job, const struct run_as *who, const char *kind_group)
{
    int before = f->st->ncauses;
    for (int t = 0; t < job->ntasks; t++)
        if (job->tasks[t].template_tree)
            check_task(f, &job->tasks[t], (size_t)t, who);
    if (f->st->ncauses > before) {
        api_fail_causes(f->st, 403, "Forbidden", kind_group, job->name, "is forbidden");
        return -1;
    }
    for (int t = 0; t < job->ntasks; t++) {
        struct task_spec *ts = &job->tasks[t];
        if (ts->template_tree && write_ids(ts->template_tree, who) != 0)
            return api_fail(f->st, 500, "InternalError", "out of memory writing the tasks' user");
        ts->run_as_uid = who->uid;
        ts->run_as_gid = who->gid;
    }
    return 0;
}
