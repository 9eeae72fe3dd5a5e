/* Query parameters read into numbers and times, a bad one answered as Kubernetes does: 400
 * BadRequest naming the parameter, its value and what it must be. */
#include "gateway/http/query_params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/parse_bool.h"
#include "gateway/http/http.h"

int query_bad_param(struct api_status *st, const char *param, const char *value, const char *why)
{
    api_add_cause(st, param, "FieldValueInvalid", 0, 0, "Invalid value: \"%.64s\": %s", value, why);
    return api_fail(st, 400, "BadRequest", "%s: invalid value \"%.64s\": %s", param, value, why);
}

int query_int(const char *param, const char *value, long min, long max, long *out, struct api_status *st)
{
    if (!value)
        return 0;
    char *end;
    long n = strtol(value, &end, 10);
    if (!*value || *end || n < min || n > max) {
        char why[96];
        snprintf(why, sizeof why, "must be a whole number from %ld to %ld", min, max);
        return query_bad_param(st, param, value, why);
    }
    *out = n;
    return 0;
}

int query_time(const char *param, const char *value, int64_t *ms, struct api_status *st)
{
    if (value && rfc3339_parse(value, ms) != 0)
        return query_bad_param(st, param, value, "must be an RFC 3339 time such as 2026-11-22T08:15:00Z");
    return 0;
}

int query_bool(const char *param, const char *value, bool *out, struct api_status *st)
{
    if (value && parse_bool(value, out) != 0)
        return query_bad_param(st, param, value,
                               "must be a boolean: 1, t, T, TRUE, true, True, 0, f, F, FALSE, false or False");
    return 0;
}

/* The boolean parameters of ListOptions, PodLogOptions, DeleteOptions and every request (pretty). */
static const char *const flag_params[] = {
    "watch",      "allowWatchBookmarks", "sendInitialEvents",           "pretty", "follow", "previous",
    "timestamps", "orphanDependents",    "insecureSkipTLSVerifyBackend"};

int query_check_flags(const struct http_req *req, struct api_status *st)
{
    for (size_t i = 0; i < sizeof flag_params / sizeof flag_params[0]; i++) {
        bool ignored;
        if (query_bool(flag_params[i], http_query(req, flag_params[i]), &ignored, st) != 0)
            return -1;
    }
    return 0;
}

bool query_flag(const struct http_req *req, const char *param)
{
    bool value = false;
    const char *text = http_query(req, param);
    return text && parse_bool(text, &value) == 0 && value;
}
