/* kubectl's columns for ConfigMaps (NAME DATA AGE) and Secrets (NAME TYPE DATA AGE), DATA counting
 * the keys as kubectl's printers do (a ConfigMap's data and binaryData together). */
#include <stddef.h>

#include "gateway/table/table.h"

static json_t *config_data(const json_t *o, int64_t now_ms)
{
    (void)now_ms;
    return json_integer((json_int_t)(json_object_size(json_object_get(o, "data")) +
                                     json_object_size(json_object_get(o, "binaryData"))));
}

static json_t *secret_type(const json_t *o, int64_t now_ms)
{
    (void)now_ms;
    return table_cell_string(json_object_get(o, "type"));
}

static const struct table_column configmap_columns[] = {
    {"Name", "string", "name", 0, TABLE_NAME_DESCRIPTION, table_cell_name},
    {"Data", "integer", NULL, 0, "The number of keys (data and binaryData).", config_data},
    {"Age", "date", NULL, 0, TABLE_AGE_DESCRIPTION, table_cell_age},
};

static const struct table_column secret_columns[] = {
    {"Name", "string", "name", 0, TABLE_NAME_DESCRIPTION, table_cell_name},
    {"Type", "string", NULL, 0, "The type of the secret.", secret_type},
    {"Data", "integer", NULL, 0, "The number of keys.", config_data},
    {"Age", "date", NULL, 0, TABLE_AGE_DESCRIPTION, table_cell_age},
};

const struct table_kind table_kind_configmap = {"", "ConfigMap", configmap_columns,
                                                sizeof configmap_columns / sizeof configmap_columns[0]};
const struct table_kind table_kind_secret = {"", "Secret", secret_columns,
                                             sizeof secret_columns / sizeof secret_columns[0]};
