/* Kubernetes' limits on object metadata (apimachinery's validation): names as DNS-1123 labels and
 * subdomains, label keys and annotation keys as qualified names, label values, annotations' size. */
#ifndef CALDERA_META_LIMITS_H
#define CALDERA_META_LIMITS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "adapters/intake/fields.h"

#define META_DNS1123_LABEL_MAX 63      /* IsDNS1123Label: namespaces, Jobs (their pods' and service's names) */
#define META_DNS1123_SUBDOMAIN_MAX 253 /* IsDNS1123Subdomain: most objects' names, a qualified name's prefix */
#define META_QUALIFIED_NAME_MAX 63     /* a qualified name's name part */
#define META_LABEL_VALUE_MAX 63        /* IsValidLabelValue */
#define META_ANNOTATIONS_MAX 262144    /* TotalAnnotationSizeLimitB: keys and values together */

/* Kubernetes' words for why s is not what is asked ("must be no more than 63 characters", then the
 * format's sentence with its regex), one per element of why (at most 4); returns how many (0: s is
 * valid). The texts are static or written into buf (len bytes). */
int meta_dns1123_label_problems(const char *s, const char *why[4], char *buf, size_t len);
int meta_dns1123_subdomain_problems(const char *s, const char *why[4], char *buf, size_t len);
int meta_qualified_name_problems(const char *s, const char *why[4], char *buf, size_t len);
int meta_label_value_problems(const char *s, const char *why[4], char *buf, size_t len);
/* A C identifier ([A-Za-z_][A-Za-z0-9_]*): what a configuration file may name as an environment
 * variable. */
bool meta_c_identifier(const char *s);

/* A cause `Invalid value: "<name>": <problem>` at obj[key] (path) for each problem of name as a
 * DNS-1123 label (subdomain). Nothing when f->admitted. Return false when they added a cause. */
bool meta_check_label_name(struct fields *f, const json_t *obj, const char *key, const char *path, const char *name);
bool meta_check_subdomain_name(struct fields *f, const json_t *obj, const char *key, const char *path,
                               const char *name);
/* generateName: the prefix must itself be a valid start of a name (Kubernetes checks the prefix
 * with its trailing '-' dropped) of at most max characters. */
bool meta_check_generate_name(struct fields *f, const json_t *obj, const char *path, const char *prefix, bool label);

/* metadata.labels: read as a map of strings (field_string_map), then every key a qualified name and
 * every value a label value; causes at path ("metadata.labels"), as Kubernetes names them, located
 * at the entry. *out as field_string_map gives it. Returns false when it added a cause. */
bool meta_labels(struct fields *f, const json_t *meta, const char *path, json_t **out);
/* metadata.annotations: a map of strings whose keys are qualified names (case aside) and whose keys
 * and values add up to at most META_ANNOTATIONS_MAX bytes. */
bool meta_annotations(struct fields *f, const json_t *meta, const char *path, json_t **out);

#endif
