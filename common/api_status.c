/* The outcome of a request in Kubernetes' terms: HTTP code, StatusReason, message and field causes.
 * Messages are bounded buffers: an over-long message is cut, never a reason to fail the request. */
#include "common/api_status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void copy_str(char *dst, size_t cap, const char *src) { snprintf(dst, cap, "%s", src ? src : ""); }

int api_fail(struct api_status *st, int code, const char *reason, const char *fmt, ...)
{
    st->code = code;
    copy_str(st->reason, sizeof st->reason, reason);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->message, sizeof st->message, fmt, ap);
    va_end(ap);
    return -1;
}

void api_add_cause(struct api_status *st, const char *field, const char *reason, int line, int column, const char *fmt,
                   ...)
{
    if (st->ncauses < API_MAX_CAUSES) {
        struct api_cause *c = &st->causes[st->ncauses];
        copy_str(c->field, sizeof c->field, field);
        copy_str(c->reason, sizeof c->reason, reason);
        c->line = line;
        c->column = column;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->message, sizeof c->message, fmt, ap);
        va_end(ap);
    }
    st->ncauses++;
}

int api_fail_causes(struct api_status *st, int code, const char *reason, const char *kind_group, const char *name,
                    const char *verdict)
{
    int shown = st->ncauses < API_MAX_CAUSES ? st->ncauses : API_MAX_CAUSES;
    size_t n = name && *name ? (size_t)snprintf(st->message, sizeof st->message, "%s \"%s\" %s: %s", kind_group, name,
                                                verdict, shown > 1 ? "[" : "")
                             : (size_t)snprintf(st->message, sizeof st->message, "%s %s: %s", kind_group, verdict,
                                                shown > 1 ? "[" : "");
    for (int i = 0; i < shown && n < sizeof st->message; i++) {
        const struct api_cause *c = &st->causes[i];
        n += (size_t)snprintf(st->message + n, sizeof st->message - n, "%s%s: %s", i ? ", " : "", c->field, c->message);
        if (c->line > 0 && n < sizeof st->message)
            n += (size_t)snprintf(st->message + n, sizeof st->message - n, " (line %d, column %d)", c->line, c->column);
    }
    if (st->ncauses > shown && n < sizeof st->message)
        n += (size_t)snprintf(st->message + n, sizeof st->message - n, ", and %d more", st->ncauses - shown);
    if (shown > 1 && n < sizeof st->message)
        snprintf(st->message + n, sizeof st->message - n, "]");
    st->code = code;
    copy_str(st->reason, sizeof st->reason, reason);
    return -1;
}

int api_fail_invalid(struct api_status *st, const char *kind_group, const char *name)
{
    return api_fail_causes(st, 422, "Invalid", kind_group, name, "is invalid");
}

void api_set_details(struct api_status *st, const char *kind, const char *group, const char *name)
{
    copy_str(st->kind, sizeof st->kind, kind);
    copy_str(st->group, sizeof st->group, group);
    copy_str(st->name, sizeof st->name, name);
}
