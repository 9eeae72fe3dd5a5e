/* Volcano's CronJob in and out: validation worded as Kubernetes' (ValidateCronJobSpec), rendering
 * with status.active/lastScheduleTime/lastSuccessfulTime, the stored form, and the job document a
 * scheduled time creates. */
#include "adapters/objects/cronjob.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/object_meta.h"
#include "common/clock.h"

static const struct object_type cronjob_type = {CRONJOB_API_VERSION, "CronJob", "cronjobs", "batch.volcano.sh"};
static const char *const top_fields[] = {"apiVersion", "kind", "metadata", "spec", "status", NULL};
static const char *const spec_fields[] = {"schedule",
                                          "timeZone",
                                          "concurrencyPolicy",
                                          "startingDeadlineSeconds",
                                          "successfulJobsHistoryLimit",
                                          "failedJobsHistoryLimit",
                                          "suspend",
                                          "jobTemplate",
                                          NULL};
static const char *const template_fields[] = {"metadata", "spec", NULL};
static const char *const concurrency_names[] = {
    [CRON_ALLOW] = "Allow", [CRON_FORBID] = "Forbid", [CRON_REPLACE] = "Replace"};

static struct cronjob_rules current_rules;

void cronjob_set_rules(const struct cronjob_rules *rules) { current_rules = *rules; }
const struct cronjob_rules *cronjob_current_rules(void) { return &current_rules; }

static void parse_schedule(struct fields *f, json_t *spec, const struct cronjob_rules *rules, struct cron_job *cj)
{
    const char *schedule = NULL;
    if (!field_string(f, spec, "schedule", "spec.schedule", true, &schedule) || !schedule)
        return;
    char why[400];
    if (cron_parse(schedule, rules->allow_every, &cj->schedule, why, sizeof why) != 0)
        field_invalid(f, spec, "schedule", "spec.schedule", why);
}

static void parse_time_zone(struct fields *f, json_t *spec, const struct cronjob_rules *rules, struct cron_job *cj)
{
    const char *name = NULL;
    cj->zone = calloc(1, sizeof *cj->zone);
    if (!cj->zone) {
        api_fail(f->st, 500, "InternalError", "out of memory");
        return;
    }
    tz_utc(cj->zone);
    if (!field_string(f, spec, "timeZone", "spec.timeZone", false, &name) || !name)
        return;
    char why[400];
    if (tz_load(rules->zoneinfo_dir, name, cj->zone, why, sizeof why) != 0)
        field_invalid(f, spec, "timeZone", "spec.timeZone", why);
}

static void parse_policies(struct fields *f, json_t *spec, struct cron_job *cj)
{
    const char *policy = NULL;
    if (field_string(f, spec, "concurrencyPolicy", "spec.concurrencyPolicy", false, &policy) && policy) {
        size_t i = 0;
        while (i < 3 && strcmp(policy, concurrency_names[i]) != 0)
            i++;
        if (i < 3)
            cj->concurrency = (uint8_t)i;
        else
            field_unsupported(f, spec, "concurrencyPolicy", "spec.concurrencyPolicy",
                              "supported values: \"Allow\", \"Forbid\", \"Replace\"");
    }
    cj->starting_deadline_s = -1;
    if (json_object_get(spec, "startingDeadlineSeconds"))
        field_int(f, spec, "startingDeadlineSeconds", "spec.startingDeadlineSeconds", false, 0, INT32_MAX,
                  &cj->starting_deadline_s);
    int64_t ok = CRONJOB_SUCCESSFUL_HISTORY_DEFAULT, failed = CRONJOB_FAILED_HISTORY_DEFAULT;
    field_int(f, spec, "successfulJobsHistoryLimit", "spec.successfulJobsHistoryLimit", false, 0, INT32_MAX, &ok);
    field_int(f, spec, "failedJobsHistoryLimit", "spec.failedJobsHistoryLimit", false, 0, INT32_MAX, &failed);
    cj->successful_history = (int32_t)ok;
    cj->failed_history = (int32_t)failed;
    field_bool(f, spec, "suspend", "spec.suspend", &cj->suspend);
}

static void parse_template(struct fields *f, json_t *spec)
{
    json_t *tmpl = NULL, *job_spec = NULL, *meta = NULL;
    if (!field_object(f, spec, "jobTemplate", "spec.jobTemplate", true, &tmpl) || !tmpl)
        return;
    field_check_known(f, tmpl, "spec.jobTemplate", template_fields);
    field_object(f, tmpl, "metadata", "spec.jobTemplate.metadata", false, &meta);
    if (meta) {
        json_t *ignored;
        field_string_map(f, meta, "labels", "spec.jobTemplate.metadata.labels", &ignored);
        field_string_map(f, meta, "annotations", "spec.jobTemplate.metadata.annotations", &ignored);
    }
    if (field_object(f, tmpl, "spec", "spec.jobTemplate.spec", true, &job_spec) && job_spec &&
        !json_is_array(json_object_get(job_spec, "tasks")))
        field_error(f, job_spec, "tasks", "spec.jobTemplate.spec.tasks", "FieldValueRequired",
                    "Required value: a Volcano Job needs tasks");
}

static struct cron_job *build(struct fields *f, json_t *root, const char *url_ns, const struct cronjob_rules *rules)
{
    json_t *meta = NULL, *spec = NULL;
    struct cron_job *cj = calloc(1, sizeof *cj);
    if (!cj) {
        api_fail(f->st, 500, "InternalError", "out of memory");
        return NULL;
    }
    field_check_known(f, root, "", top_fields);
    if (object_meta_parse(f, root, url_ns, &meta, &cj->resource_version)) {
        const char *name = json_string_value(json_object_get(meta, "name"));
        if (name && strlen(name) > CRONJOB_NAME_MAX)
            field_invalid(f, json_object_get(root, "metadata"), "name", "metadata.name",
                          "must be no more than 52 characters");
        if (!(cj->name = strdup(name ? name : "")) || !(cj->ns = strdup(url_ns)))
            api_fail(f->st, 500, "InternalError", "out of memory");
    }
    if (f->st->code == 0 && field_object(f, root, "spec", "spec", true, &spec) && spec) {
        field_check_known(f, spec, "spec", spec_fields);
        parse_schedule(f, spec, rules, cj);
        parse_time_zone(f, spec, rules, cj);
        parse_policies(f, spec, cj);
        parse_template(f, spec);
    }
    if (f->st->code != 0 || f->st->ncauses > 0 || !meta || !spec) {
        json_decref(meta);
        cron_job_free(cj);
        return NULL;
    }
    cj->manifest = json_pack("{s:o, s:O}", "metadata", meta, "spec", spec);
    if (!cj->manifest) {
        api_fail(f->st, 500, "InternalError", "out of memory");
        cron_job_free(cj);
        return NULL;
    }
    return cj;
}

int cronjob_from_doc(const struct intake_doc *doc, const char *url_ns, const struct cronjob_rules *rules,
                     struct cron_job **out, struct api_status *st)
{
    *out = NULL;
    if (!json_is_object(doc->root))
        return api_fail(st, 400, "BadRequest", "the body must be a CronJob object");
    if (object_check_type(doc->root, &cronjob_type, st) != 0)
        return -1;
    struct fields f = {doc, st, false};
    *out = build(&f, doc->root, url_ns, rules);
    return *out ? 0 : object_fail_invalid(st, &cronjob_type, doc->root);
}

static json_t *time_or_null(int64_t ms)
{
    char buf[RFC3339_LEN];
    return ms > 0 ? json_string(rfc3339(ms, buf)) : NULL;
}

json_t *cronjob_render(const struct cron_job *cj, const json_t *active)
{
    json_t *meta = object_meta_render(json_object_get(cj->manifest, "metadata"), cj->uid, cj->created_ms,
                                      cj->resource_version);
    json_t *status = json_object();
    if (active && json_array_size(active) > 0)
        json_object_set(status, "active", (json_t *)active);
    json_t *t = time_or_null(cj->last_schedule_ms);
    if (t)
        json_object_set_new(status, "lastScheduleTime", t);
    if ((t = time_or_null(cj->last_successful_ms)))
        json_object_set_new(status, "lastSuccessfulTime", t);
    return json_pack("{s:s, s:s, s:o, s:O, s:o}", "apiVersion", CRONJOB_API_VERSION, "kind", "CronJob", "metadata",
                     meta, "spec", json_object_get(cj->manifest, "spec"), "status", status);
}

char *cronjob_to_store_json(const struct cron_job *cj) { return object_store_text(cronjob_render(cj, NULL)); }

struct cron_job *cronjob_from_store_json(const char *json, const struct cronjob_rules *rules)
{
    json_t *root = json_loads(json, 0, NULL);
    if (!root)
        return NULL;
    struct intake_doc doc = {.root = root};
    struct api_status st = {0};
    struct fields f = {&doc, &st, true};
    const char *ns = json_string_value(json_object_get(json_object_get(root, "metadata"), "namespace"));
    json_t *status = json_incref(json_object_get(root, "status"));
    json_object_del(root, "status");
    struct cron_job *cj = build(&f, root, ns ? ns : "default", rules);
    if (cj) {
        object_meta_restore(root, cj->uid, &cj->created_ms);
        const char *t = json_string_value(json_object_get(status, "lastScheduleTime"));
        if (t)
            rfc3339_parse(t, &cj->last_schedule_ms);
        if ((t = json_string_value(json_object_get(status, "lastSuccessfulTime"))))
            rfc3339_parse(t, &cj->last_successful_ms);
    }
    json_decref(status);
    json_decref(root);
    return cj;
}

void cronjob_job_name(const struct cron_job *cj, int64_t scheduled_ms, char *out, size_t len)
{
    snprintf(out, len, "%s-%lld", cj->name, (long long)(scheduled_ms / cron_name_unit_ms(&cj->schedule)));
}

json_t *cronjob_job_document(const struct cron_job *cj, int64_t scheduled_ms)
{
    json_t *tmpl = json_object_get(json_object_get(cj->manifest, "spec"), "jobTemplate");
    json_t *tmeta = json_object_get(tmpl, "metadata");
    char name[128], when[RFC3339_LEN];
    cronjob_job_name(cj, scheduled_ms, name, sizeof name);
    json_t *annotations = json_deep_copy(json_object_get(tmeta, "annotations"));
    if (!json_is_object(annotations)) {
        json_decref(annotations);
        annotations = json_object();
    }
    json_object_set_new(annotations, CRONJOB_SCHEDULED_ANNOTATION, json_string(rfc3339(scheduled_ms, when)));
    json_t *labels = json_deep_copy(json_object_get(tmeta, "labels"));
    json_t *meta = json_pack("{s:s, s:s, s:o}", "name", name, "namespace", cj->ns, "annotations", annotations);
    if (meta && json_is_object(labels))
        json_object_set_new(meta, "labels", labels);
    else
        json_decref(labels);
    return json_pack("{s:s, s:s, s:o, s:o}", "apiVersion", "batch.volcano.sh/v1alpha1", "kind", "Job", "metadata", meta,
                     "spec", json_deep_copy(json_object_get(tmpl, "spec")));
}

json_t *cronjob_owner_references(const struct cron_job *cj)
{
    return json_pack("[{s:s, s:s, s:s, s:s, s:b, s:b}]", "apiVersion", CRONJOB_API_VERSION, "kind", "CronJob", "name",
                     cj->name, "uid", cj->uid, "controller", 1, "blockOwnerDeletion", 1);
}
