/* Query parameters read into numbers and times, a bad one answered as Kubernetes does: 400
 * BadRequest naming the parameter, its value and what it must be. */
#ifndef CALDERA_QUERY_PARAMS_H
#define CALDERA_QUERY_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/api_status.h"

/* Fills st with the 400 (a cause at param). Returns -1. */
int query_bad_param(struct api_status *st, const char *param, const char *value, const char *why);
/* A whole number within min..max into *out; value NULL (absent) leaves *out as it is. Returns 0 or -1. */
int query_int(const char *param, const char *value, long min, long max, long *out, struct api_status *st);
/* An RFC 3339 time into *ms; value NULL leaves *ms as it is. Returns 0 or -1. */
int query_time(const char *param, const char *value, int64_t *ms, struct api_status *st);
/* A boolean as Go's strconv.ParseBool reads it (1 t T TRUE true True, 0 f F FALSE false False) into
 * *out; value NULL leaves *out as it is. Returns 0 or -1. */
int query_bool(const char *param, const char *value, bool *out, struct api_status *st);

struct http_req;
/* Every boolean query parameter the API defines (watch, allowWatchBookmarks, sendInitialEvents,
 * pretty, follow, previous, timestamps...) checked once before any handler runs: a value ParseBool
 * refuses is a 400 naming the parameter. Returns 0 or -1. */
int query_check_flags(const struct http_req *req, struct api_status *st);
/* A boolean query parameter already checked by query_check_flags: false when absent. */
bool query_flag(const struct http_req *req, const char *param);

#endif
