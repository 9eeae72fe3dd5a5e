/* The tables behind components.schemas of the OpenAPI document (schema_table.c): objects,
 * their fields, and lists, which schemas.c turns into JSON Schema. */
#ifndef CALDERA_OPENAPI_SCHEMAS_H
#define CALDERA_OPENAPI_SCHEMAS_H

/* A field's type. *_REF take the schema in `of`; F_STRING may take its values in `of`, either
 * space-separated or "@name" for a list the code keeps (schemas.c). */
enum openapi_field_type {
    F_STRING,
    F_INT, /* int32 */
    F_INT64,
    F_NULLABLE_INT, /* int32 or null */
    F_BOOL,
    F_NUMBER,
    F_TIME,          /* RFC 3339 */
    F_NULLABLE_TIME, /* RFC 3339 or null */
    F_QUANTITY,      /* a Kubernetes quantity: "500m", "4Gi" or a number */
    F_OBJECT,        /* any object */
    F_REF,
    F_ARRAY_REF,
    F_STRINGS,      /* an array of strings */
    F_OBJECTS,      /* an array of any objects */
    F_STRING_MAP,   /* string -> string */
    F_STRINGS_MAP,  /* string -> array of strings */
    F_INT_MAP,      /* string -> int32 */
    F_QUANTITY_MAP, /* resource name -> quantity */
    F_REF_MAP,      /* string -> the schema of `of` */
};

struct openapi_schema {
    const char *name;
    const char *description;
    const char *group, *version, *kind; /* x-kubernetes-group-version-kind; kind NULL: a part of an object */
    const char *required;               /* field names, space-separated */
};

struct openapi_field {
    const char *schema; /* the openapi_schema it belongs to */
    const char *name;
    enum openapi_field_type type;
    const char *of;
    const char *description; /* may be NULL */
};

/* A list kind: apiVersion, kind, metadata (ListMeta) and items of the item schema. */
struct openapi_list {
    const char *name;
    const char *item;
    const char *group, *version;
};

/* Each ended by a NULL name (schema for the fields). */
extern const struct openapi_schema openapi_schema_table[];
extern const struct openapi_field openapi_field_table[];
extern const struct openapi_list openapi_list_table[];

#endif
