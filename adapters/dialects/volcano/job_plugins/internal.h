/* Inside the job plugins' arguments: Go-flag-style parsing, each plugin's flags and admission checks,
 * and the helper those checks share. job_plugins.h is the outside. */
#ifndef CALDERA_VOLCANO_JOB_PLUGINS_INTERNAL_H
#define CALDERA_VOLCANO_JOB_PLUGINS_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "adapters/dialects/volcano/job_plugins/job_plugins.h"
#include "adapters/intake/fields.h"

/* --- arguments, parsed as Go's flag package parses them ----------------------------------------- */

enum plugin_flag_type { FLAG_BOOL, FLAG_STRING, FLAG_PORT };

struct plugin_flag {
    const char *name; /* without dashes: "master" */
    enum plugin_flag_type type;
    size_t offset; /* of the value in struct plugin_config */
};

struct plugin_flag_error {
    size_t index;       /* the offending argument */
    const char *reason; /* "FieldValueNotSupported" or "FieldValueInvalid" */
    char message[320];  /* `Unsupported value: "--foo": supported arguments: --master, ...` */
};

/* Parses args (a JSON list of strings, or NULL for none): "-name" or "--name", "=value" or (for a
 * non-boolean) the next argument, a boolean alone meaning true, "--" ending the flags, a repeated flag
 * overriding the earlier one. Unlike Go, which logs and goes on, anything else is an error: an unknown
 * flag, a missing or malformed value, a non-string or positional argument. Returns 0 or -1 with err. */
int plugin_flags_parse(const struct plugin_flag *flags, size_t nflags, const json_t *args, struct plugin_config *cfg,
                       struct plugin_flag_error *err);

/* --- one plugin's arguments ------------------------------------------------------------------------- */

struct plugin_args {
    enum plugin_id id;
    const char *name;
    const struct plugin_flag *flags;
    size_t nflags;
    /* Admission checks beyond the arguments (the tasks a framework names); adds causes. May be NULL. */
    void (*admit)(struct fields *f, json_t *plugins, const json_t *spec, const struct plugin_config *cfg);
};

/* Every plugin, indexed by its id (registry order). */
extern const struct plugin_args *const plugin_args[PLUGIN_COUNT];

#endif
