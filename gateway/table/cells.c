/* Table cells many kinds share: a field's value, a string or number as a cell, the name, and the
 * age kubectl prints from metadata.creationTimestamp. */
#include "common/age.h"
#include "gateway/table/table.h"

const json_t *table_field(const json_t *obj, const char *a, const char *b, const char *c)
{
    const json_t *v = json_object_get(obj, a);
    if (v && b)
        v = json_object_get(v, b);
    if (v && b && c)
        v = json_object_get(v, c);
    return v;
}

json_t *table_cell_string(const json_t *v)
{
    if (json_is_string(v))
        return json_string(json_string_value(v));
    if (json_is_integer(v) || json_is_real(v) || json_is_boolean(v))
        return json_copy((json_t *)v);
    return json_null();
}

json_t *table_cell_integer(const json_t *v) { return json_is_integer(v) ? json_copy((json_t *)v) : json_null(); }

json_t *table_cell_name(const json_t *obj, int64_t now_ms)
{
    (void)now_ms;
    return table_cell_string(table_field(obj, "metadata", "name", NULL));
}

json_t *table_cell_age(const json_t *obj, int64_t now_ms)
{
    char age[32];
    return json_string(age_since(table_field(obj, "metadata", "creationTimestamp", NULL), now_ms, age, sizeof age));
}
