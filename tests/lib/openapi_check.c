/* Reading the server's OpenAPI document in tests: JSON pointers of local $refs, and a strict
 * walk of an answer against its schema, so a field the renderers add without documenting it fails. */
#include "tests/lib/openapi_check.h"

#include <stdio.h>
#include <string.h>

#include "tests/lib/test.h"

json_t *openapi_resolve(json_t *doc, const char *ref)
{
    if (!ref || strncmp(ref, "#/", 2) != 0)
        return NULL;
    json_t *v = doc;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", ref + 2);
    for (char *save = NULL, *seg = strtok_r(buf, "/", &save); seg && v; seg = strtok_r(NULL, "/", &save)) {
        char key[256];
        size_t n = 0;
        for (const char *c = seg; *c && n + 1 < sizeof key; c++) { /* JSON pointer escapes */
            if (c[0] == '~' && (c[1] == '0' || c[1] == '1')) {
                key[n++] = c[1] == '0' ? '~' : '/';
                c++;
            } else {
                key[n++] = *c;
            }
        }
        key[n] = '\0';
        v = json_object_get(v, key);
    }
    return v;
}

json_t *openapi_deref(json_t *doc, json_t *v)
{
    json_t *all = json_object_get(v, "allOf");
    if (all && json_array_size(all) == 1)
        v = json_array_get(all, 0);
    const char *ref = json_string_value(json_object_get(v, "$ref"));
    return ref ? openapi_resolve(doc, ref) : v;
}

static bool of_type(json_t *value, const char *type)
{
    if (strcmp(type, "object") == 0)
        return json_is_object(value);
    if (strcmp(type, "array") == 0)
        return json_is_array(value);
    if (strcmp(type, "string") == 0)
        return json_is_string(value);
    if (strcmp(type, "integer") == 0)
        return json_is_integer(value);
    if (strcmp(type, "number") == 0)
        return json_is_number(value);
    if (strcmp(type, "boolean") == 0)
        return json_is_boolean(value);
    return false;
}

static bool in_enum(json_t *value, json_t *values)
{
    size_t i;
    json_t *v;
    json_array_foreach(values, i, v) if (json_equal(v, value)) return true;
    return false;
}

static int conform_object(json_t *doc, json_t *value, json_t *schema, const char *where)
{
    json_t *props = json_object_get(schema, "properties");
    json_t *more = json_object_get(schema, "additionalProperties");
    int problems = 0;
    const char *key;
    json_t *child;
    json_object_foreach(value, key, child)
    {
        char path[512];
        snprintf(path, sizeof path, "%s.%s", where, key);
        json_t *field = json_object_get(props, key);
        if (field)
            problems += openapi_conform(doc, child, field, path);
        else if (json_is_object(more))
            problems += openapi_conform(doc, child, more, path);
        else if (props && !json_is_true(more)) { /* an object without properties takes any */
            test_fail(__FILE__, __LINE__, "%s: not documented", path);
            problems++;
        }
    }
    return problems;
}

int openapi_conform(json_t *doc, json_t *value, json_t *schema, const char *where)
{
    schema = openapi_deref(doc, schema);
    if (!schema) {
        test_fail(__FILE__, __LINE__, "%s: its schema does not resolve", where);
        return 1;
    }
    json_t *one_of = json_object_get(schema, "oneOf");
    if (one_of) { /* conforms when one of them takes it without complaint: counted, not reported */
        size_t i;
        json_t *option;
        json_array_foreach(one_of, i, option)
        {
            json_t *s = openapi_deref(doc, option);
            const char *type = json_string_value(json_object_get(s, "type"));
            if (type && of_type(value, type))
                return openapi_conform(doc, value, option, where);
        }
        test_fail(__FILE__, __LINE__, "%s: none of the schemas of oneOf takes it", where);
        return 1;
    }
    if (json_is_null(value)) {
        if (json_is_true(json_object_get(schema, "nullable")))
            return 0;
        test_fail(__FILE__, __LINE__, "%s: null, and the schema is not nullable", where);
        return 1;
    }
    const char *type = json_string_value(json_object_get(schema, "type"));
    if (!type)
        return 0;
    if (!of_type(value, type)) {
        test_fail(__FILE__, __LINE__, "%s: not of type %s", where, type);
        return 1;
    }
    json_t *values = json_object_get(schema, "enum");
    if (values && !in_enum(value, values)) {
        test_fail(__FILE__, __LINE__, "%s: \"%s\" is not one of the documented values", where,
                  json_string_value(value) ? json_string_value(value) : "?");
        return 1;
    }
    if (json_is_object(value))
        return conform_object(doc, value, schema, where);
    int problems = 0;
    if (json_is_array(value)) {
        size_t i;
        json_t *item;
        json_array_foreach(value, i, item)
        {
            char path[512];
            snprintf(path, sizeof path, "%s[%zu]", where, i);
            problems += openapi_conform(doc, item, json_object_get(schema, "items"), path);
        }
    }
    return problems;
}
