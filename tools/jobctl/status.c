/* A failed answer from the job server as jobctl's error text. Kubernetes messages for invalid
 * objects already list "field: message" for each cause, so those causes are not repeated. */
#include "tools/jobctl/status.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/sbuf.h"

#define BODY_EXCERPT 300

static const char *str_member(const json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s ? s : "";
}

/* Appends s with line breaks and tabs turned into spaces, so the error stays one line. */
static void put_one_line(struct sbuf *b, const char *s, size_t max)
{
    for (size_t i = 0; s[i] && i < max; i++) {
        char c = (unsigned char)s[i] < 0x20 ? ' ' : s[i];
        sbuf_append(b, &c, 1);
    }
}

static void put_headline(struct sbuf *b, const json_t *st, long http_code)
{
    const char *msg = str_member(st, "message"), *reason = str_member(st, "reason");
    json_int_t code = json_is_integer(json_object_get(st, "code")) ? json_integer_value(json_object_get(st, "code"))
                                                                   : (json_int_t)http_code;
    /* Who you are and what you may do get a word of their own: the fix is a token, not the request. */
    sbuf_puts(b, code == 401 ? "jobctl: not authenticated: " : code == 403 ? "jobctl: not allowed: " : "jobctl: ");
    put_one_line(b, *msg ? msg : *reason ? reason : "the request failed", (size_t)-1);
    sbuf_printf(b, " (%" JSON_INTEGER_FORMAT "%s%s)%s\n", code, *reason ? " " : "", reason,
                code == 401 ? "; give a token with --token or $CALDERA_TOKEN" : "");
}

/* "field: message" as Kubernetes joins a cause into an Invalid message (or just the message). */
static char *cause_text(const json_t *cause)
{
    const char *field = str_member(cause, "field"), *msg = str_member(cause, "message");
    struct sbuf b = {0};
    if (*field)
        sbuf_printf(&b, "%s: ", field);
    sbuf_puts(&b, *msg ? msg : str_member(cause, "reason"));
    return sbuf_take(&b);
}

static void put_cause(struct sbuf *b, const json_t *cause, const char *message)
{
    char *text = cause_text(cause);
    if (!text || !*text || strstr(message, text)) {
        free(text);
        return;
    }
    sbuf_puts(b, "  ");
    put_one_line(b, text, (size_t)-1);
    json_t *line = json_object_get(cause, "line"), *col = json_object_get(cause, "column");
    if (json_integer_value(line) > 0)
        sbuf_printf(b, " (line %" JSON_INTEGER_FORMAT ", column %" JSON_INTEGER_FORMAT ")", json_integer_value(line),
                    json_integer_value(col));
    sbuf_puts(b, "\n");
    free(text);
}

static char *describe_status(const json_t *st, long http_code)
{
    struct sbuf b = {0};
    put_headline(&b, st, http_code);
    const char *message = str_member(st, "message");
    json_t *causes = json_object_get(json_object_get(st, "details"), "causes");
    size_t i;
    json_t *cause;
    json_array_foreach(causes, i, cause) put_cause(&b, cause, message);
    return sbuf_take(&b);
}

static char *describe_other(long http_code, const char *body)
{
    struct sbuf b = {0};
    const char *p = body ? body + strspn(body, " \t\r\n") : "";
    sbuf_printf(&b, "jobctl: the server answered HTTP %ld", http_code);
    if (*p) {
        sbuf_puts(&b, ": ");
        put_one_line(&b, p, strcspn(p, "\r\n") < BODY_EXCERPT ? strcspn(p, "\r\n") : BODY_EXCERPT);
    }
    sbuf_puts(&b, "\n");
    return sbuf_take(&b);
}

char *status_describe(long http_code, const char *body)
{
    json_t *st = body ? json_loads(body, 0, NULL) : NULL;
    char *text;
    if (json_is_object(st) && strcmp(str_member(st, "kind"), "Status") == 0)
        text = describe_status(st, http_code);
    else
        text = describe_other(http_code, body);
    json_decref(st);
    return text;
}
