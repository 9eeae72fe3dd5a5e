/* Kubernetes' Table view (meta.k8s.io/v1 Table) of the lists and objects the API answers, as
 * kubectl get asks for it (Accept: application/json;as=Table;v=v1;g=meta.k8s.io): the kind's columns
 * (columns.c, the Volcano CRDs' additionalPrinterColumns and kubectl's Pod and Node columns),
 * one row of cells per object, and the object itself as ?includeObject= says. */
#ifndef CALDERA_TABLE_H
#define CALDERA_TABLE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/api_status.h"

/* What Kubernetes says of the name and age columns every kind has. */
#define TABLE_NAME_DESCRIPTION \
    "Name must be unique within a namespace. More info: http://kubernetes.io/docs/user-guide/identifiers#names"
#define TABLE_AGE_DESCRIPTION \
    "CreationTimestamp is a timestamp representing the server time when this object was created."

/* A cell from an object at now_ms: a new JSON string, integer or null (never NULL). */
typedef json_t *(*table_cell_fn)(const json_t *obj, int64_t now_ms);

struct table_column {
    const char *name; /* as the CRD or kubectl names it: "STATUS", "Ready" (kubectl upper-cases it) */
    const char *type; /* string, integer, number, boolean, date */
    const char *format;
    int priority; /* 0: always shown; 1: with -o wide */
    const char *description;
    table_cell_fn cell;
};

/* The columns of one kind of object. */
struct table_kind {
    const char *group; /* "" for the core group */
    const char *kind;
    const struct table_column *columns;
    size_t ncolumns;
};

/* What a row carries besides its cells (?includeObject). */
enum table_include { TABLE_INCLUDE_METADATA, TABLE_INCLUDE_OBJECT, TABLE_INCLUDE_NONE };

/* What a request asks: a Table or not, of which version, with what in its rows. */
struct table_view {
    bool wanted;
    const char *api_version; /* "meta.k8s.io/v1" or "meta.k8s.io/v1beta1" */
    enum table_include include;
};

/* table.c */
/* Reads the Accept header (the first media range this server can answer decides: a Table of
 * meta.k8s.io v1 or v1beta1, or plain JSON for application/json and wildcards) and ?includeObject
 * (Metadata, Object or None). Returns 0, or -1 with a 400 Status naming includeObject in st. */
int table_view_read(const char *accept, const char *include_object, struct table_view *view, struct api_status *st);
/* The Table of body (a list whose items are of one kind, or one object), or NULL when its kind
 * has no columns here (the caller answers the plain JSON then). Takes nothing from body. */
json_t *table_from_objects(const json_t *body, const struct table_view *view, int64_t now_ms);

/* The Table of a list whose rows the core wrote (its text, a JSON array: core request's as_table):
 * list gives the kind and metadata (resourceVersion, continue). A new string, or NULL when the
 * kind has no columns here or memory ran out. */
char *table_text_with_rows(const json_t *list, const struct table_view *view, const char *rows);

/* cells.c: what many columns share. The value at obj.a.b.c (b, c NULL to stop early), or
 * NULL; a string or number as a cell (null when missing); metadata.name; the age of
 * metadata.creationTimestamp as kubectl prints it ("5m", "<unknown>"). */
const json_t *table_field(const json_t *obj, const char *a, const char *b, const char *c);
json_t *table_cell_string(const json_t *v);
json_t *table_cell_integer(const json_t *v);
json_t *table_cell_name(const json_t *obj, int64_t now_ms);
json_t *table_cell_age(const json_t *obj, int64_t now_ms);

/* core_columns.c: kubectl's Pod and Node columns. */
extern const struct table_kind table_kind_pod, table_kind_node;
/* config_columns.c: kubectl's ConfigMap and Secret columns. */
extern const struct table_kind table_kind_configmap, table_kind_secret;

/* columns.c: the kind's columns, or NULL. api_version is the object's ("v1",
 * "batch.volcano.sh/v1alpha1"). */
const struct table_kind *table_kind_find(const char *api_version, const char *kind);

#endif
