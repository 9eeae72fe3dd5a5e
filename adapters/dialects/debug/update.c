/* Extending a debug session (PATCH or PUT of a DebugSession): only its deadline, spec.duration or
 * spec.activeDeadlineSeconds, may change; anything else is immutable, as Kubernetes says of a field. */
#include <stdio.h>
#include <string.h>

#include "adapters/dialects/debug/debug.h"
#include "common/duration.h"

static const char *const deadline_fields[] = {"duration", "activeDeadlineSeconds", NULL};

static bool is_deadline_field(const char *key)
{
    for (int i = 0; deadline_fields[i]; i++)
        if (strcmp(key, deadline_fields[i]) == 0)
            return true;
    return false;
}

static void immutable(struct api_status *st, const char *path)
{
    api_add_cause(st, path, "FieldValueInvalid", 0, 0,
                  "Invalid value: field is immutable (a session's spec.duration or spec.activeDeadlineSeconds "
                  "may change, nothing else)");
}

/* Every member of a or b but those skipped (NULL-terminated keys) equal in both; a cause per other one. */
static void compare(const json_t *a, const json_t *b, const char *prefix, bool (*skip)(const char *),
                    struct api_status *st)
{
    const char *key;
    json_t *v;
    char path[256];
    json_object_foreach((json_t *)a, key, v)
    {
        if ((skip && skip(key)) || json_equal(v, json_object_get(b, key)))
            continue;
        snprintf(path, sizeof path, "%s%s", prefix, key);
        immutable(st, path);
    }
    json_object_foreach((json_t *)b, key, v)
    {
        if ((skip && skip(key)) || json_object_get(a, key))
            continue;
        snprintf(path, sizeof path, "%s%s", prefix, key);
        immutable(st, path);
    }
}

/* What the server sets or the object carries besides the user's spec. */
static bool skip_top(const char *key)
{
    return strcmp(key, "status") == 0 || strcmp(key, "metadata") == 0 || strcmp(key, "spec") == 0;
}

/* metadata: only labels and annotations are the user's to compare (name and namespace are the
 * path's, the rest the server's). */
static bool skip_meta(const char *key) { return strcmp(key, "labels") != 0 && strcmp(key, "annotations") != 0; }

/* The seconds a deadline field names, or -1 with a cause. */
static int64_t deadline_seconds(const json_t *spec, const char *key, struct api_status *st)
{
    const json_t *v = json_object_get(spec, key);
    char path[64];
    snprintf(path, sizeof path, "spec.%s", key);
    if (strcmp(key, "activeDeadlineSeconds") == 0) {
        if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > DEBUG_MAX_DEADLINE_S) {
            api_add_cause(st, path, "FieldValueInvalid", 0, 0,
                          "Invalid value: must be whole seconds from 1 to %d (7 days)", DEBUG_MAX_DEADLINE_S);
            return -1;
        }
        return json_integer_value(v);
    }
    char text[64];
    int64_t ms = 0;
    const char *why = NULL;
    if (json_is_integer(v))
        snprintf(text, sizeof text, "%lld", (long long)json_integer_value(v));
    else
        snprintf(text, sizeof text, "%s", json_is_string(v) ? json_string_value(v) : "");
    if (!*text || duration_parse(text, &ms, &why) != 0 || ms < 1000 || ms % 1000 != 0 ||
        ms / 1000 > DEBUG_MAX_DEADLINE_S) {
        api_add_cause(st, path, "FieldValueInvalid", 0, 0,
                      "Invalid value: \"%s\": must be a duration such as \"8h\" or \"90m\", whole seconds, from 1s "
                      "to 168h (7 days)",
                      text);
        return -1;
    }
    return ms / 1000;
}

/* The stored deadline's field ("duration" or "activeDeadlineSeconds"). */
static const char *deadline_key(const json_t *spec)
{
    return json_object_get(spec, "duration") ? "duration" : "activeDeadlineSeconds";
}

/* The new spec's one deadline field: the one that changed when both are there (a merge patch of the
 * other onto the stored object), the stored one's when neither is (unchanged). NULL with a cause. */
static const char *new_deadline_key(const json_t *old, json_t *spec, struct api_status *st)
{
    json_t *dur = json_object_get(spec, "duration"), *ads = json_object_get(spec, "activeDeadlineSeconds");
    if (!dur && !ads) {
        const char *key = deadline_key(old);
        json_t *v = json_object_get(old, key);
        if (v)
            json_object_set(spec, key, v);
        return v ? key : NULL;
    }
    if (!dur || !ads)
        return dur ? "duration" : "activeDeadlineSeconds";
    bool dur_changed = !json_equal(dur, json_object_get(old, "duration"));
    bool ads_changed = !json_equal(ads, json_object_get(old, "activeDeadlineSeconds"));
    if (dur_changed == ads_changed) {
        api_add_cause(st, "spec.duration", "FieldValueForbidden", 0, 0,
                      "Forbidden: spec.activeDeadlineSeconds is given too; give one");
        return NULL;
    }
    json_object_del(spec, dur_changed ? "activeDeadlineSeconds" : "duration");
    return dur_changed ? "duration" : "activeDeadlineSeconds";
}

int debug_update(const json_t *stored, json_t *updated, struct dialect_change *out, struct api_status *st)
{
    *out = (struct dialect_change){0};
    const json_t *old_spec = json_object_get(stored, "spec");
    json_t *spec = json_object_get(updated, "spec");
    const char *name = json_string_value(json_object_get(json_object_get(stored, "metadata"), "name"));
    if (!json_is_object(updated) || !json_is_object(spec)) {
        api_add_cause(st, "spec", "FieldValueRequired", 0, 0, "Required value");
        return api_fail_invalid(st, "DebugSession.caldera.io", name ? name : "");
    }
    compare(stored, updated, "", skip_top, st);
    compare(json_object_get(stored, "metadata"), json_object_get(updated, "metadata"), "metadata.", skip_meta, st);
    compare(old_spec, spec, "spec.", is_deadline_field, st);
    const char *key = st->ncauses == 0 ? new_deadline_key(old_spec, spec, st) : NULL;
    int64_t old_s = -1, new_s = -1;
    if (key) {
        struct api_status ignored = {0};
        old_s = deadline_seconds(old_spec, deadline_key(old_spec), &ignored);
        new_s = deadline_seconds(spec, key, st);
    }
    if (st->ncauses > 0 || new_s < 0)
        return api_fail_invalid(st, "DebugSession.caldera.io", name ? name : "");
    if (new_s != old_s) {
        out->active_deadline_seconds = new_s;
        snprintf(out->what, sizeof out->what, "the session's deadline moved from %llds to %llds after its start",
                 (long long)old_s, (long long)new_s);
    }
    return 0;
}
