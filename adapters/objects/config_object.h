/* ConfigMaps and Secrets (core v1) in and out, validated as Kubernetes' API server does: config keys,
 * a Secret's base64 data with stringData merged in (never kept as such), its type's required keys,
 * 1 MiB in all, and `immutable`. No Status or cause ever repeats a Secret's value. */
#ifndef CALDERA_CONFIG_OBJECT_ADAPTER_H
#define CALDERA_CONFIG_OBJECT_ADAPTER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "adapters/intake/intake.h"
#include "common/api_status.h"
#include "model/config_object.h"

#define CONFIG_API_VERSION "v1"
#define CONFIG_SIZE_MAX (1024 * 1024) /* a ConfigMap's or Secret's data in all (Kubernetes' MaxSecretSize) */
#define CONFIG_KEY_MAX 253

/* "ConfigMap" or "Secret"; the resource ("configmaps", "secrets"). */
const char *config_kind_name(enum config_kind kind);
const char *config_resource_name(enum config_kind kind);

/* Whether key is a valid config key (IsConfigMapKey); when not, *why says why in Kubernetes' words. */
bool config_key_valid(const char *key, const char **why);

/* Parses a ConfigMap or Secret for namespace ns: 400 for another kind or apiVersion, 422 with a cause
 * per bad field (keys, values, type, size). metadata.resourceVersion lands in resource_version; uid
 * and times are the core's. */
int config_object_from_doc(const struct intake_doc *doc, enum config_kind kind, const char *ns,
                           struct config_object **out, struct api_status *st);

/* An update's rules against the object it replaces (Kubernetes' ValidateConfigMapUpdate and
 * ValidateSecretUpdate): an immutable object keeps its data and stays immutable, a Secret keeps
 * its type. Returns 0, or -1 with a 422 in st. */
int config_object_check_update(const struct config_object *old, const struct config_object *o, struct api_status *st);

json_t *config_object_render(const struct config_object *o);
/* The stored form: the rendered object. */
char *config_object_to_store_json(const struct config_object *o);
/* NULL when the JSON is not a valid object of kind. */
struct config_object *config_object_from_store_json(const char *json, enum config_kind kind);

/* The bytes of key (a heap buffer with a NUL after them, *len its length): 0, 1 when the object has
 * no such key, -1 when memory runs out. */
int config_object_value(const struct config_object *o, const char *key, char **value, size_t *len);
/* The object's keys in order (a ConfigMap's data, then binaryData), each once: calls fn for each
 * until it returns non-zero, which it returns. */
int config_object_each_key(const struct config_object *o, int (*fn)(void *ctx, const char *key), void *ctx);

#endif
