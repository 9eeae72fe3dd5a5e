/* Job plugin arguments read as Volcano reads them, with Go's flag package: "-name" or "--name",
 * "=value" or the next argument, booleans alone, "--" to end. Where Go logs and goes on, we refuse. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/volcano/job_plugins/internal.h"
#include "common/parse_bool.h"

#define ARG_QUOTE_MAX 64 /* how much of an offending argument a message quotes */

static int fail(struct plugin_flag_error *err, size_t index, const char *reason, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(struct plugin_flag_error *err, size_t index, const char *reason, const char *fmt, ...)
{
    err->index = index;
    err->reason = reason;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return -1;
}

static const struct plugin_flag *find_flag(const struct plugin_flag *flags, size_t nflags, const char *name,
                                           size_t name_len)
{
    for (size_t i = 0; i < nflags; i++)
        if (strlen(flags[i].name) == name_len && strncmp(flags[i].name, name, name_len) == 0)
            return &flags[i];
    return NULL;
}

static void list_flags(const struct plugin_flag *flags, size_t nflags, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < nflags && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s--%s", i ? ", " : "", flags[i].name);
    if (nflags == 0)
        snprintf(buf, len, "none");
}

static int parse_port(const char *s, int32_t *out)
{
    if (*s < '0' || *s > '9')
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < 1 || v > 65535)
        return -1;
    *out = (int32_t)v;
    return 0;
}

static int set_value(const struct plugin_flag *flag, const char *arg, const char *value, size_t index,
                     struct plugin_config *cfg, struct plugin_flag_error *err)
{
    char *field = (char *)cfg + flag->offset;
    switch (flag->type) {
    case FLAG_BOOL:
        if (parse_bool(value, (bool *)(void *)field) != 0)
            return fail(err, index, "FieldValueInvalid",
                        "Invalid value: \"%.*s\": invalid boolean value \"%.*s\" for --%s", ARG_QUOTE_MAX, arg,
                        ARG_QUOTE_MAX, value, flag->name);
        return 0;
    case FLAG_PORT:
        if (parse_port(value, (int32_t *)(void *)field) != 0)
            return fail(err, index, "FieldValueInvalid",
                        "Invalid value: \"%.*s\": --%s must be a port number between 1 and 65535", ARG_QUOTE_MAX, arg,
                        flag->name);
        return 0;
    case FLAG_STRING: *(const char **)(void *)field = value; return 0;
    }
    return 0;
}

int plugin_flags_parse(const struct plugin_flag *flags, size_t nflags, const json_t *args, struct plugin_config *cfg,
                       struct plugin_flag_error *err)
{
    size_t n = json_array_size(args);
    for (size_t i = 0; i < n; i++) {
        const json_t *a = json_array_get(args, i);
        if (!json_is_string(a))
            return fail(err, i, "FieldValueInvalid", "Invalid value: a plugin argument must be a string");
        const char *s = json_string_value(a);
        if (strlen(s) < 2 || s[0] != '-') {
            /* Go stops at the first non-flag argument and Volcano ignores the rest: refuse instead. */
            return fail(err, i, "FieldValueInvalid",
                        "Invalid value: \"%.*s\": not a flag: plugin arguments are --name=value", ARG_QUOTE_MAX, s);
        }
        const char *name = s + 1;
        if (*name == '-') {
            name++;
            if (*name == '\0') { /* "--" ends the flags; nothing may follow */
                if (i + 1 < n)
                    return fail(err, i + 1, "FieldValueInvalid",
                                "Invalid value: an argument after \"--\" is not a flag and would be ignored");
                return 0;
            }
        }
        if (*name == '-' || *name == '=')
            return fail(err, i, "FieldValueInvalid", "Invalid value: \"%.*s\": bad flag syntax", ARG_QUOTE_MAX, s);
        const char *eq = strchr(name + 1, '=');
        size_t name_len = eq ? (size_t)(eq - name) : strlen(name);
        const struct plugin_flag *flag = find_flag(flags, nflags, name, name_len);
        if (!flag) {
            char known[200];
            list_flags(flags, nflags, known, sizeof known);
            return fail(err, i, "FieldValueNotSupported", "Unsupported value: \"%.*s\": supported arguments: %s",
                        ARG_QUOTE_MAX, s, known);
        }
        const char *value = eq ? eq + 1 : NULL;
        size_t at = i;
        if (!value && flag->type == FLAG_BOOL)
            value = "true";
        if (!value) {
            if (i + 1 >= n)
                return fail(err, i, "FieldValueInvalid", "Invalid value: \"%.*s\": flag needs an argument",
                            ARG_QUOTE_MAX, s);
            const json_t *next = json_array_get(args, ++i);
            if (!json_is_string(next))
                return fail(err, i, "FieldValueInvalid", "Invalid value: a plugin argument must be a string");
            value = json_string_value(next);
            at = i;
        }
        if (set_value(flag, s, value, at, cfg, err) != 0)
            return -1;
    }
    return 0;
}
