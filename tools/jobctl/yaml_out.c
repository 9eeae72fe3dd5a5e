/* JSON to YAML with libyaml's event emitter: mappings and sequences in block style, scalars in the
 * style the emitter picks, except strings that would not read back as strings, double-quoted. */
#include "tools/jobctl/yaml_out.h"

#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "common/sbuf.h"

static int write_to_sbuf(void *ctx, unsigned char *buffer, size_t size)
{
    struct sbuf *b = ctx;
    sbuf_append(b, buffer, size);
    return !b->failed;
}

/* Plain scalars YAML 1.1 or 1.2 would read as something else than a string: numbers (with
 * underscores, hex, octal, binary, sexagesimal), dates and times, booleans, null. */
static const char NOT_STRING[] =
    "^("
    "[-+]?([0-9][0-9_]*)?[.]?[0-9_]*([eE][-+]?[0-9]+)?|"
    "[-+]?0(x[0-9a-fA-F_]+|o?[0-7_]+|b[01_]+)|"
    "[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+([.][0-9_]*)?|"
    "[-+]?[.](inf|Inf|INF)|[.](nan|NaN|NAN)|"
    "[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ].*)?|"
    "[yY]|[yY]es|YES|[nN]|[nN]o|NO|[tT]rue|TRUE|[fF]alse|FALSE|[oO]n|ON|[oO]ff|OFF|"
    "~|[nN]ull|NULL|"
    ")$";

static bool reads_as_non_string(const char *s)
{
    static regex_t re;
    static bool compiled, usable;
    if (!compiled) {
        compiled = true;
        usable = regcomp(&re, NOT_STRING, REG_EXTENDED | REG_NOSUB) == 0;
    }
    return !usable || regexec(&re, s, 0, NULL, 0) == 0; /* no pattern: quote every string, still right */
}

static int scalar(yaml_emitter_t *em, const char *text, bool is_string)
{
    yaml_event_t ev;
    yaml_scalar_style_t style = is_string && reads_as_non_string(text) ? YAML_DOUBLE_QUOTED_SCALAR_STYLE
                                                                       : YAML_ANY_SCALAR_STYLE;
    if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)text, (int)strlen(text), 1, 1, style))
        return -1;
    return yaml_emitter_emit(em, &ev) ? 0 : -1;
}

static int emit_value(yaml_emitter_t *em, const json_t *v);

static int emit_object(yaml_emitter_t *em, const json_t *v)
{
    yaml_event_t ev;
    if (!yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE) ||
        !yaml_emitter_emit(em, &ev))
        return -1;
    const char *key;
    json_t *member;
    json_object_foreach((json_t *)v, key, member)
    {
        if (scalar(em, key, true) != 0 || emit_value(em, member) != 0)
            return -1;
    }
    return yaml_mapping_end_event_initialize(&ev) && yaml_emitter_emit(em, &ev) ? 0 : -1;
}

static int emit_array(yaml_emitter_t *em, const json_t *v)
{
    yaml_event_t ev;
    if (!yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE) ||
        !yaml_emitter_emit(em, &ev))
        return -1;
    size_t i;
    json_t *item;
    json_array_foreach(v, i, item) if (emit_value(em, item) != 0) return -1;
    return yaml_sequence_end_event_initialize(&ev) && yaml_emitter_emit(em, &ev) ? 0 : -1;
}

static int emit_value(yaml_emitter_t *em, const json_t *v)
{
    char num[64];
    switch (json_typeof(v)) {
    case JSON_OBJECT: return emit_object(em, v);
    case JSON_ARRAY: return emit_array(em, v);
    case JSON_STRING: return scalar(em, json_string_value(v), true);
    case JSON_INTEGER: snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v)); break;
    case JSON_REAL: snprintf(num, sizeof num, "%.17g", json_real_value(v)); break;
    case JSON_TRUE: return scalar(em, "true", false);
    case JSON_FALSE: return scalar(em, "false", false);
    default: return scalar(em, "null", false);
    }
    return scalar(em, num, false);
}

char *yaml_from_json(const json_t *v)
{
    struct sbuf b = {0};
    yaml_emitter_t em;
    yaml_event_t ev;
    if (!yaml_emitter_initialize(&em))
        return NULL;
    yaml_emitter_set_output(&em, write_to_sbuf, &b);
    yaml_emitter_set_unicode(&em, 1);
    yaml_emitter_set_width(&em, -1);
    int ok = yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) && yaml_emitter_emit(&em, &ev) &&
             yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) && yaml_emitter_emit(&em, &ev) &&
             emit_value(&em, v) == 0 && yaml_document_end_event_initialize(&ev, 1) && yaml_emitter_emit(&em, &ev) &&
             yaml_stream_end_event_initialize(&ev) && yaml_emitter_emit(&em, &ev) && yaml_emitter_flush(&em);
    yaml_emitter_delete(&em);
    if (!ok || b.failed) {
        sbuf_free(&b);
        return NULL;
    }
    return sbuf_take(&b);
}
