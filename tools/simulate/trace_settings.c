/* The trace's caldera.io/v1 Simulation document: scheduling period, stop time, sampling interval
 * and an inline volcano-scheduler.conf, which adapters/scheduler_conf parses after re-serialising. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/fields.h"
#include "adapters/objects/scheduler_conf.h"
#include "common/duration.h"
#include "tools/simulate/trace_internal.h"

static const char *const settings_keys[] = {"apiVersion", "kind",   "metadata",     "period",
                                            "until",      "sample", "schedulerConf"};

/* A duration field; returns false after adding a cause. */
static bool read_time(struct fields *f, json_t *root, const char *key, int64_t min_ms, int64_t max_ms, int64_t *out)
{
    const json_t *v = json_object_get(root, key);
    const char *why = NULL;
    int64_t ms;
    if (!v || json_is_null(v))
        return true;
    if (duration_from_json(v, &ms, &why) == 0) {
        if (ms < min_ms)
            why = min_ms > 0 ? "must be greater than 0" : "must not be negative";
        else if (ms > max_ms)
            why = "must be at most 720h (30 days of virtual time)";
    }
    if (why) {
        field_invalid(f, root, key, key, why);
        return false;
    }
    *out = ms;
    return true;
}

/* Where the value at a cause's path ("tiers[0].plugins[1].name") was written inside `root`, or the
 * nearest container on that path that exists. */
static bool locate_path(const struct intake_doc *doc, const json_t *root, const char *path, struct intake_pos *pos)
{
    const json_t *parent = NULL, *cur = root;
    char key[FIELD_PATH_MAX] = "";
    size_t index = 0;
    bool by_index = false;
    for (const char *p = path; *p && cur;) {
        parent = cur;
        if (*p == '[') {
            char *end;
            index = strtoul(p + 1, &end, 10);
            if (*end != ']' || !json_is_array(cur))
                return intake_node_pos(doc, cur, pos);
            cur = json_array_get(cur, index);
            by_index = true;
            p = end + 1;
        } else {
            p += *p == '.';
            size_t n = strcspn(p, ".[");
            snprintf(key, sizeof key, "%.*s", (int)n, p);
            if (!json_is_object(cur))
                return intake_node_pos(doc, cur, pos);
            cur = json_object_get(cur, key);
            by_index = false;
            p += n;
        }
    }
    if (!parent || !cur)
        return intake_node_pos(doc, parent ? parent : root, pos);
    return by_index ? intake_index_pos(doc, parent, index, pos) : intake_member_pos(doc, parent, key, pos);
}

/* The scheduler conf's own causes, moved to the trace's lines and under "schedulerConf.". */
static void relay_conf_causes(struct fields *f, json_t *root, const json_t *conf, const struct api_status *cst)
{
    int shown = cst->ncauses < API_MAX_CAUSES ? cst->ncauses : API_MAX_CAUSES;
    for (int i = 0; i < shown; i++) {
        const struct api_cause *c = &cst->causes[i];
        struct intake_pos pos = {0, 0};
        char path[FIELD_PATH_MAX];
        if (!locate_path(f->doc, conf, c->field, &pos))
            intake_member_pos(f->doc, root, "schedulerConf", &pos);
        snprintf(path, sizeof path, "schedulerConf%s%s", c->field[0] && c->field[0] != '[' ? "." : "", c->field);
        api_add_cause(f->st, path, c->reason, pos.line, pos.column, "%s", c->message);
    }
    if (shown == 0)
        field_error(f, root, "schedulerConf", "schedulerConf", "FieldValueInvalid", "%s", cst->message);
}

static void read_conf(struct fields *f, json_t *root, struct trace_settings *out)
{
    json_t *conf;
    if (!field_object(f, root, "schedulerConf", "schedulerConf", false, &conf) || !conf)
        return;
    char *text = json_dumps(conf, JSON_COMPACT | JSON_PRESERVE_ORDER);
    struct api_status cst = {0};
    struct sched_conf parsed;
    if (!text) {
        api_fail(f->st, 500, "InternalError", "out of memory");
        return;
    }
    if (sched_conf_parse(text, strlen(text), &parsed, &cst) == 0) {
        sched_conf_free(&out->conf);
        out->conf = parsed;
    } else {
        relay_conf_causes(f, root, conf, &cst);
    }
    free(text);
}

int trace_load_settings(const struct intake_doc *doc, struct trace_settings *out, struct api_status *st)
{
    struct fields f = {doc, st};
    json_t *root = doc->root, *meta;
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v)
    {
        size_t i = 0;
        while (i < sizeof settings_keys / sizeof settings_keys[0] && strcmp(settings_keys[i], key) != 0)
            i++;
        if (i == sizeof settings_keys / sizeof settings_keys[0])
            field_error(&f, root, key, key, "FieldValueNotSupported",
                        "Unsupported value: \"%s\": a Simulation has period, until, sample and schedulerConf", key);
    }
    field_object(&f, root, "metadata", "metadata", false, &meta);
    read_time(&f, root, "period", 1, SIM_LIMIT_MS, &out->period_ms);
    read_time(&f, root, "sample", 1, SIM_LIMIT_MS, &out->sample_ms);
    read_time(&f, root, "until", 0, SIM_LIMIT_MS, &out->until_ms);
    read_conf(&f, root, out);
    if (st->code != 0)
        return -1;
    if (st->ncauses > 0) {
        const char *name = json_string_value(json_object_get(meta, "name"));
        return api_fail_invalid(st, "Simulation.caldera.io", name ? name : "");
    }
    return 0;
}
