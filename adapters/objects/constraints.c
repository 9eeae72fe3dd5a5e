/* Reading a pod spec's nodeSelector, node and pod affinity, tolerations and spread into placement constraints,
 * validated with Kubernetes' rules and words, then summed up in a canonical signature. */
#include "adapters/objects/constraints.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/meta_limits.h"
#include "adapters/objects/pod_affinity.h"
#include "common/sbuf.h"
#include "common/strv.h"

/* Operator spellings, indexed by enum selector_op. */
static const char *const selector_op_names[] = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"};
#define SELECTOR_OPS_SUPPORTED "\"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\""
#define FIELD_OPS_SUPPORTED "\"In\", \"NotIn\""
#define EFFECTS_SUPPORTED "\"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\""

/* matchExpressions select on labels; matchFields on the node's own fields (only metadata.name). */
enum requirement_kind { REQ_LABEL, REQ_FIELD };

/* An allocation failure fails the request as a whole, not as a problem of the user's field. */
static bool out_of_memory(struct fields *f)
{
    api_fail(f->st, 500, "InternalError", "out of memory");
    return false;
}

/* Once the status holds a failure of the whole request (out of memory), reading stops. */
static bool gave_up(const struct fields *f) { return f->st->code != 0; }

static char *copy(const char *s) { return strdup(s ? s : ""); }

/* --- Kubernetes' name rules ------------------------------------------------------------------ */

/* Kubernetes' first reason why s is not what problems checks (adapters/intake/meta_limits.h: a qualified
 * name, a label or taint key; a label value), in its words, or NULL when s is one. */
static const char *first_problem(int (*problems)(const char *, const char *[4], char *, size_t), const char *s,
                                 char *buf, size_t len)
{
    const char *why[4];
    return problems(s, why, buf, len) > 0 ? why[0] : NULL;
}

/* strconv.ParseInt(s, 10, 64) succeeds: what Gt and Lt compare. */
static bool is_int64(const char *s)
{
    if (!*s || isspace((unsigned char)*s))
        return false;
    char *end;
    errno = 0;
    (void)strtoll(s, &end, 10);
    return errno == 0 && *end == '\0';
}

/* An Invalid cause whose value is a string we hold (a map key, a list element). */
static bool invalid_text(struct fields *f, const json_t *obj, const char *key, const char *path, const char *value,
                         const char *detail)
{
    field_error(f, obj, key, path, "FieldValueInvalid", "Invalid value: \"%s\": %s", value, detail);
    return false;
}

/* --- nodeSelector ----------------------------------------------------------------------------- */

static int compare_strings(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Sorts the selector by key, keeping values with their keys, so equal selectors read the same. */
static void sort_selector(struct placement_constraints *c)
{
    for (int i = 1; i < c->nselector; i++)
        for (int j = i; j > 0 && strcmp(c->selector_keys[j - 1], c->selector_keys[j]) > 0; j--) {
            char *k = c->selector_keys[j], *v = c->selector_values[j];
            c->selector_keys[j] = c->selector_keys[j - 1];
            c->selector_values[j] = c->selector_values[j - 1];
            c->selector_keys[j - 1] = k;
            c->selector_values[j - 1] = v;
        }
}

/* Kubernetes validates nodeSelector as labels: the cause names the map and shows the bad key or value. */
static bool check_selector_entry(struct fields *f, json_t *map, const char *key, const char *path)
{
    char buf[96];
    const char *problem = first_problem(meta_qualified_name_problems, key, buf, sizeof buf);
    if (problem)
        return invalid_text(f, map, key, path, key, problem);
    const char *value = json_string_value(json_object_get(map, key));
    problem = first_problem(meta_label_value_problems, value, buf, sizeof buf);
    if (problem)
        return invalid_text(f, map, key, path, value, problem);
    return true;
}

static bool parse_node_selector(struct fields *f, json_t *spec, const char *spec_path,
                                struct placement_constraints *out)
{
    char path[FIELD_PATH_MAX];
    json_t *map;
    if (!field_object_in(f, spec, "nodeSelector", spec_path, false, &map))
        return false;
    if (!map)
        return true;
    field_path(path, spec_path, "nodeSelector");
    if (!field_string_map(f, spec, "nodeSelector", path, &map))
        return false;
    size_t n = json_object_size(map);
    if (n == 0)
        return true;
    out->selector_keys = calloc(n, sizeof *out->selector_keys);
    out->selector_values = calloc(n, sizeof *out->selector_values);
    if (!out->selector_keys || !out->selector_values)
        return out_of_memory(f);
    bool ok = true;
    const char *key;
    json_t *value;
    json_object_foreach(map, key, value)
    {
        ok = check_selector_entry(f, map, key, path) && ok;
        int i = out->nselector++;
        out->selector_keys[i] = copy(key);
        out->selector_values[i] = copy(json_string_value(value));
        if (!out->selector_keys[i] || !out->selector_values[i])
            return out_of_memory(f);
    }
    sort_selector(out);
    return ok;
}

/* --- node selector terms ---------------------------------------------------------------------- */

static bool parse_operator(struct fields *f, json_t *item, const char *path, enum requirement_kind kind,
                           enum selector_op *op)
{
    char p[FIELD_PATH_MAX];
    const char *s;
    field_path(p, path, "operator");
    if (!field_string(f, item, "operator", p, true, &s))
        return false;
    int allowed = kind == REQ_FIELD ? SEL_NOT_IN + 1 : SEL_LT + 1;
    for (int i = 0; i < allowed; i++)
        if (strcmp(s, selector_op_names[i]) == 0) {
            *op = (enum selector_op)i;
            return true;
        }
    field_error(f, item, "operator", p, "FieldValueNotSupported", "Unsupported value: \"%s\": supported values: %s", s,
                kind == REQ_FIELD ? FIELD_OPS_SUPPORTED : SELECTOR_OPS_SUPPORTED);
    return false;
}

static bool parse_requirement_key(struct fields *f, json_t *item, const char *path, enum requirement_kind kind,
                                  struct label_requirement *r)
{
    char p[FIELD_PATH_MAX];
    const char *key;
    field_path(p, path, "key");
    if (!field_string(f, item, "key", p, true, &key))
        return false;
    if (!(r->key = copy(key)))
        return out_of_memory(f);
    if (kind == REQ_FIELD && strcmp(key, "metadata.name") != 0) {
        field_error(f, item, "key", p, "FieldValueNotSupported",
                    "Unsupported value: \"%s\": supported values: \"metadata.name\"", key);
        return false;
    }
    char buf[96];
    const char *problem = kind == REQ_LABEL ? first_problem(meta_qualified_name_problems, key, buf, sizeof buf) : NULL;
    return problem ? invalid_text(f, item, "key", p, key, problem) : true;
}

/* The values an operator takes, as Kubernetes' ValidateNodeSelectorRequirement checks them; Gt and
 * Lt also need an integer, which Kubernetes only finds out when the term never matches. */
static bool check_values(struct fields *f, json_t *item, const char *path, enum requirement_kind kind,
                         const struct label_requirement *r)
{
    char p[FIELD_PATH_MAX];
    field_path(p, path, "values");
    json_t *values = json_object_get(item, "values");
    switch (r->op) {
    case SEL_IN:
    case SEL_NOT_IN:
        if (kind == REQ_FIELD && r->nvalues != 1) {
            field_error(f, item, "values", p, "FieldValueRequired",
                        "Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field "
                        "selector");
            return false;
        }
        if (r->nvalues == 0) {
            field_error(f, item, "values", p, "FieldValueRequired",
                        "Required value: must be specified when `operator` is 'In' or 'NotIn'");
            return false;
        }
        return true;
    case SEL_EXISTS:
    case SEL_DOES_NOT_EXIST:
        if (r->nvalues > 0) {
            field_error(f, item, "values", p, "FieldValueForbidden",
                        "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
            return false;
        }
        return true;
    case SEL_GT:
    case SEL_LT:
        if (r->nvalues != 1) {
            field_error(f, item, "values", p, "FieldValueRequired",
                        "Required value: must be specified single value when `operator` is 'Lt' or 'Gt'");
            return false;
        }
        if (!is_int64(r->values[0])) {
            char vp[FIELD_PATH_MAX];
            field_path_index(vp, p, 0);
            field_error_at_index(f, values, 0, vp, "FieldValueInvalid",
                                 "Invalid value: \"%s\": must be an integer when `operator` is 'Lt' or 'Gt'",
                                 r->values[0]);
            return false;
        }
        return true;
    }
    return true;
}

/* matchFields values name nodes: each must be a node name, a lowercase RFC 1123 subdomain. */
static bool check_node_names(struct fields *f, json_t *item, const char *path, const struct label_requirement *r)
{
    bool ok = true;
    json_t *values = json_object_get(item, "values");
    for (int i = 0; i < r->nvalues; i++) {
        char buf[96];
        const char *problem = first_problem(meta_dns1123_subdomain_problems, r->values[i], buf, sizeof buf);
        if (problem) {
            char p[FIELD_PATH_MAX], vp[FIELD_PATH_MAX];
            field_path(p, path, "values");
            field_path_index(vp, p, (size_t)i);
            field_error_at_index(f, values, (size_t)i, vp, "FieldValueInvalid", "Invalid value: \"%.64s\": %s",
                                 r->values[i], problem);
            ok = false;
        }
    }
    return ok;
}

static bool parse_requirement(struct fields *f, json_t *item, const char *path, enum requirement_kind kind,
                              struct label_requirement *r)
{
    char p[FIELD_PATH_MAX];
    bool ok = parse_requirement_key(f, item, path, kind, r);
    if (gave_up(f))
        return false;
    bool op_ok = parse_operator(f, item, path, kind, &r->op);
    field_path(p, path, "values");
    char **values = NULL;
    if (!field_string_list(f, item, "values", p, &values))
        return false;
    r->values = values;
    r->nvalues = (int)strv_len(values);
    if (!op_ok)
        return false;
    ok = check_values(f, item, path, kind, r) && ok;
    if (kind == REQ_FIELD)
        ok = check_node_names(f, item, path, r) && ok;
    return ok;
}

/* Reads term[key] (matchExpressions or matchFields) into *out, *n entries. */
static bool parse_requirements(struct fields *f, json_t *term, const char *key, const char *term_path,
                               enum requirement_kind kind, struct label_requirement **out, int *n)
{
    char path[FIELD_PATH_MAX];
    json_t *list;
    field_path(path, term_path, key);
    if (!field_array(f, term, key, path, false, &list))
        return false;
    size_t count = json_array_size(list);
    if (count == 0)
        return true;
    if (!(*out = calloc(count, sizeof **out)))
        return out_of_memory(f);
    bool ok = true;
    for (size_t i = 0; i < count; i++) {
        char p[FIELD_PATH_MAX];
        struct label_requirement *r = &(*out)[(*n)++];
        json_t *item = field_each_object(f, list, i, path, p, "must be an object");
        if (!item) {
            ok = false;
        } else if (!parse_requirement(f, item, p, kind, r))
            ok = false;
        if (gave_up(f))
            return false;
    }
    return ok;
}

/* A required term with no requirement would match no node at all: refused, so the job cannot
 * wait forever for a node that cannot exist. A preferred one is a harmless no-op and is kept. */
static bool parse_term(struct fields *f, json_t *obj, const char *path, bool allow_empty, struct node_selector_term *t)
{
    bool ok = parse_requirements(f, obj, "matchExpressions", path, REQ_LABEL, &t->exprs, &t->nexprs);
    if (gave_up(f))
        return false;
    ok = parse_requirements(f, obj, "matchFields", path, REQ_FIELD, &t->fields, &t->nfields) && ok;
    if (ok && !allow_empty && t->nexprs + t->nfields == 0) {
        field_error(f, obj, NULL, path, "FieldValueRequired",
                    "Required value: must have at least one node selector requirement in matchExpressions or "
                    "matchFields");
        return false;
    }
    return ok;
}

static bool parse_required(struct fields *f, json_t *node_affinity, const char *na_path,
                           struct placement_constraints *out)
{
    char path[FIELD_PATH_MAX], terms_path[FIELD_PATH_MAX];
    json_t *required, *terms;
    field_path(path, na_path, "requiredDuringSchedulingIgnoredDuringExecution");
    if (!field_object(f, node_affinity, "requiredDuringSchedulingIgnoredDuringExecution", path, false, &required))
        return false;
    if (!required)
        return true;
    field_path(terms_path, path, "nodeSelectorTerms");
    if (!field_array(f, required, "nodeSelectorTerms", terms_path, false, &terms))
        return false;
    size_t count = json_array_size(terms);
    if (count == 0) {
        field_error(f, required, "nodeSelectorTerms", terms_path, "FieldValueRequired",
                    "Required value: must have at least one node selector term");
        return false;
    }
    if (!(out->required = calloc(count, sizeof *out->required)))
        return out_of_memory(f);
    bool ok = true;
    for (size_t i = 0; i < count && !gave_up(f); i++) {
        char p[FIELD_PATH_MAX];
        struct node_selector_term *t = &out->required[out->nrequired++];
        json_t *term = field_each_object(f, terms, i, terms_path, p, "must be an object");
        if (!term) {
            ok = false;
        } else
            ok = parse_term(f, term, p, false, t) && ok;
    }
    return ok && !gave_up(f);
}

static bool parse_preferred_term(struct fields *f, json_t *item, const char *path, struct preferred_term *pt)
{
    char p[FIELD_PATH_MAX];
    int64_t weight = 0;
    json_t *preference;
    field_path(p, path, "weight");
    bool ok = field_int(f, item, "weight", p, true, INT64_MIN, INT64_MAX, &weight);
    if (ok && (weight < 1 || weight > 100)) {
        field_invalid(f, item, "weight", p, "must be in the range 1-100");
        ok = false;
    }
    pt->weight = ok ? (int32_t)weight : 0;
    field_path(p, path, "preference");
    if (!field_object(f, item, "preference", p, true, &preference))
        return false;
    return parse_term(f, preference, p, true, &pt->term) && ok;
}

static bool parse_preferred(struct fields *f, json_t *node_affinity, const char *na_path,
                            struct placement_constraints *out)
{
    char path[FIELD_PATH_MAX];
    json_t *list;
    field_path(path, na_path, "preferredDuringSchedulingIgnoredDuringExecution");
    if (!field_array(f, node_affinity, "preferredDuringSchedulingIgnoredDuringExecution", path, false, &list))
        return false;
    size_t count = json_array_size(list);
    if (count == 0)
        return true;
    if (!(out->preferred = calloc(count, sizeof *out->preferred)))
        return out_of_memory(f);
    bool ok = true;
    for (size_t i = 0; i < count && !gave_up(f); i++) {
        char p[FIELD_PATH_MAX];
        struct preferred_term *pt = &out->preferred[out->npreferred++];
        json_t *item = field_each_object(f, list, i, path, p, "must be an object");
        if (!item) {
            ok = false;
        } else
            ok = parse_preferred_term(f, item, p, pt) && ok;
    }
    return ok && !gave_up(f);
}

static bool parse_affinity(struct fields *f, json_t *spec, const char *spec_path, struct placement_constraints *out)
{
    char path[FIELD_PATH_MAX], na_path[FIELD_PATH_MAX];
    json_t *affinity, *node_affinity;
    if (!field_object_in(f, spec, "affinity", spec_path, false, &affinity))
        return false;
    if (!affinity)
        return true;
    field_path(path, spec_path, "affinity");
    bool ok = pod_affinity_parse(f, affinity, path, out);
    if (gave_up(f))
        return false;
    field_path(na_path, path, "nodeAffinity");
    if (!field_object(f, affinity, "nodeAffinity", na_path, false, &node_affinity))
        return false;
    if (!node_affinity)
        return ok;
    ok = parse_required(f, node_affinity, na_path, out) && ok;
    if (gave_up(f))
        return false;
    return parse_preferred(f, node_affinity, na_path, out) && ok;
}

/* --- tolerations ------------------------------------------------------------------------------ */

struct toleration_text {
    const char *key, *op, *value, *effect;
    bool has_seconds;
};

static bool read_toleration(struct fields *f, json_t *item, const char *path, struct toleration_text *t)
{
    char p[FIELD_PATH_MAX];
    int64_t seconds;
    bool ok = true;
    memset(t, 0, sizeof *t);
    field_path(p, path, "key");
    ok = field_string(f, item, "key", p, false, &t->key) && ok;
    field_path(p, path, "operator");
    ok = field_string(f, item, "operator", p, false, &t->op) && ok;
    field_path(p, path, "value");
    ok = field_string(f, item, "value", p, false, &t->value) && ok;
    field_path(p, path, "effect");
    ok = field_string(f, item, "effect", p, false, &t->effect) && ok;
    field_path(p, path, "tolerationSeconds");
    ok = field_int(f, item, "tolerationSeconds", p, false, INT64_MIN, INT64_MAX, &seconds) && ok;
    json_t *s = json_object_get(item, "tolerationSeconds");
    t->has_seconds = s && !json_is_null(s);
    t->key = t->key ? t->key : "";
    t->op = t->op ? t->op : "";
    t->value = t->value ? t->value : "";
    t->effect = t->effect ? t->effect : "";
    return ok;
}

static bool effect_known(const char *effect)
{
    return strcmp(effect, "NoSchedule") == 0 || strcmp(effect, "PreferNoSchedule") == 0 ||
           strcmp(effect, "NoExecute") == 0;
}

/* Kubernetes' ValidateTolerations, rule by rule. */
static bool check_toleration(struct fields *f, json_t *item, const char *path, const struct toleration_text *t,
                             enum toleration_op *op)
{
    char p[FIELD_PATH_MAX];
    bool ok = true;
    char buf[96];
    const char *problem = *t->key ? first_problem(meta_qualified_name_problems, t->key, buf, sizeof buf) : NULL;
    if (problem) {
        field_path(p, path, "key");
        ok = invalid_text(f, item, "key", p, t->key, problem);
    }
    field_path(p, path, "operator");
    if (!*t->op || strcmp(t->op, "Equal") == 0)
        *op = TOL_EQUAL;
    else if (strcmp(t->op, "Exists") == 0)
        *op = TOL_EXISTS;
    else {
        field_error(f, item, "operator", p, "FieldValueNotSupported",
                    "Unsupported value: \"%s\": supported values: \"Equal\", \"Exists\"", t->op);
        return false;
    }
    if (!*t->key && *op != TOL_EXISTS)
        ok = invalid_text(f, item, "operator", p, t->op,
                          "operator must be Exists when `key` is empty, which means \"match all values and all "
                          "keys\"");
    field_path(p, path, "value");
    if (*op == TOL_EXISTS && *t->value)
        ok = invalid_text(f, item, "value", p, t->value, "value must be empty when `operator` is 'Exists'");
    else if (*op == TOL_EQUAL && (problem = first_problem(meta_label_value_problems, t->value, buf, sizeof buf)))
        ok = invalid_text(f, item, "value", p, t->value, problem);
    field_path(p, path, "effect");
    if (*t->effect && !effect_known(t->effect)) {
        field_error(f, item, "effect", p, "FieldValueNotSupported",
                    "Unsupported value: \"%s\": supported values: " EFFECTS_SUPPORTED, t->effect);
        ok = false;
    } else if (t->has_seconds && strcmp(t->effect, "NoExecute") != 0)
        ok = invalid_text(f, item, "effect", p, t->effect,
                          "effect must be 'NoExecute' when `tolerationSeconds` is set");
    return ok;
}

static bool parse_toleration(struct fields *f, json_t *item, const char *path, struct toleration *out)
{
    struct toleration_text t;
    enum toleration_op op = TOL_EQUAL;
    if (!read_toleration(f, item, path, &t) || !check_toleration(f, item, path, &t, &op))
        return false;
    out->op = op;
    out->key = copy(t.key);
    out->value = copy(t.value);
    out->effect = copy(t.effect);
    if (!out->key || !out->value || !out->effect)
        return out_of_memory(f);
    return true;
}

static bool parse_tolerations(struct fields *f, json_t *spec, const char *spec_path, struct placement_constraints *out)
{
    char path[FIELD_PATH_MAX];
    json_t *list;
    if (!field_array_in(f, spec, "tolerations", spec_path, false, &list))
        return false;
    size_t count = json_array_size(list);
    if (count == 0)
        return true;
    field_path(path, spec_path, "tolerations");
    if (!(out->tolerations = calloc(count, sizeof *out->tolerations)))
        return out_of_memory(f);
    bool ok = true;
    for (size_t i = 0; i < count && !gave_up(f); i++) {
        char p[FIELD_PATH_MAX];
        json_t *item = field_each_object(f, list, i, path, p, "must be an object");
        if (!item) {
            ok = false;
        } else
            ok = parse_toleration(f, item, p, &out->tolerations[out->ntolerations++]) && ok;
    }
    return ok && !gave_up(f);
}

/* --- the signature ---------------------------------------------------------------------------- */

/* Strings enter the signature with their length first, so no label or value, whatever it
 * holds, can be read as structure: two signatures are equal only when the constraints are. */
static void sig_string(struct sbuf *b, const char *s)
{
    s = s ? s : "";
    sbuf_printf(b, "%zu:%s", strlen(s), s);
}

/* Appends texts in sorted order without repeats (they stand for a set: ANDed requirements, ORed
 * terms, tolerations, In values), then frees them. */
static void sig_set(struct sbuf *b, char **texts, int n)
{
    for (int i = 0; i < n; i++)
        if (!texts[i])
            b->failed = true;
    if (!b->failed) {
        qsort(texts, (size_t)n, sizeof *texts, compare_strings);
        for (int i = 0; i < n; i++)
            if (i == 0 || strcmp(texts[i], texts[i - 1]) != 0)
                sbuf_puts(b, texts[i]);
    }
    for (int i = 0; i < n; i++)
        free(texts[i]);
}

static char *requirement_text(const struct label_requirement *r)
{
    struct sbuf b = {0};
    char **values = calloc((size_t)r->nvalues + 1, sizeof *values);
    if (!values)
        return NULL;
    sig_string(&b, r->key);
    sbuf_printf(&b, " %s(", selector_op_names[r->op]);
    for (int i = 0; i < r->nvalues; i++) {
        struct sbuf v = {0};
        sig_string(&v, r->values[i]);
        values[i] = sbuf_take(&v);
    }
    sig_set(&b, values, r->nvalues);
    free(values);
    sbuf_puts(&b, ")");
    return sbuf_take(&b);
}

static void sig_requirements(struct sbuf *b, const struct label_requirement *r, int n)
{
    char **texts = calloc((size_t)n + 1, sizeof *texts);
    if (!texts) {
        b->failed = true;
        return;
    }
    for (int i = 0; i < n; i++)
        texts[i] = requirement_text(&r[i]);
    sig_set(b, texts, n);
    free(texts);
}

static char *term_text(const struct node_selector_term *t)
{
    struct sbuf b = {0};
    sbuf_puts(&b, "term(labels[");
    sig_requirements(&b, t->exprs, t->nexprs);
    sbuf_puts(&b, "] fields[");
    sig_requirements(&b, t->fields, t->nfields);
    sbuf_puts(&b, "])");
    return sbuf_take(&b);
}

static char *toleration_text(const struct toleration *t)
{
    struct sbuf b = {0};
    sbuf_puts(&b, "tol(");
    sig_string(&b, t->key);
    sbuf_puts(&b, t->op == TOL_EXISTS ? " Exists " : " Equal ");
    sig_string(&b, t->op == TOL_EXISTS ? "" : t->value);
    sbuf_puts(&b, " ");
    sig_string(&b, t->effect);
    sbuf_puts(&b, ")");
    return sbuf_take(&b);
}

static void sig_selector(struct sbuf *b, const struct placement_constraints *c)
{
    sbuf_puts(b, "nodeSelector{");
    for (int i = 0; i < c->nselector; i++) { /* already sorted by key, and keys are unique */
        sig_string(b, c->selector_keys[i]);
        sbuf_puts(b, "=");
        sig_string(b, c->selector_values[i]);
        sbuf_puts(b, " ");
    }
    sbuf_puts(b, "}");
}

static void sig_required(struct sbuf *b, const struct placement_constraints *c)
{
    char **texts = calloc((size_t)c->nrequired + 1, sizeof *texts);
    if (!texts) {
        b->failed = true;
        return;
    }
    for (int i = 0; i < c->nrequired; i++)
        texts[i] = term_text(&c->required[i]);
    sbuf_puts(b, "nodeAffinity{");
    sig_set(b, texts, c->nrequired);
    sbuf_puts(b, "}");
    free(texts);
}

static void sig_tolerations(struct sbuf *b, const struct placement_constraints *c)
{
    char **texts = calloc((size_t)c->ntolerations + 1, sizeof *texts);
    if (!texts) {
        b->failed = true;
        return;
    }
    for (int i = 0; i < c->ntolerations; i++)
        texts[i] = toleration_text(&c->tolerations[i]);
    sbuf_puts(b, "tolerations{");
    sig_set(b, texts, c->ntolerations);
    sbuf_puts(b, "}");
    free(texts);
}

/* Preferred terms stay out: they only score, so tasks that differ only there pass the same nodes. */
static char *build_signature(const struct placement_constraints *c)
{
    struct sbuf b = {0};
    if (c->nselector)
        sig_selector(&b, c);
    if (c->nrequired)
        sig_required(&b, c);
    if (c->ntolerations)
        sig_tolerations(&b, c);
    if (b.failed) {
        sbuf_free(&b);
        return NULL;
    }
    return b.len ? sbuf_take(&b) : strdup("");
}

/* --- the whole ------------------------------------------------------------------------------- */

bool constraints_parse(struct fields *f, json_t *pod_spec, const char *spec_path, struct placement_constraints *out)
{
    bool ok = parse_node_selector(f, pod_spec, spec_path, out);
    if (!gave_up(f))
        ok = parse_affinity(f, pod_spec, spec_path, out) && ok;
    if (!gave_up(f))
        ok = parse_tolerations(f, pod_spec, spec_path, out) && ok;
    if (!gave_up(f))
        ok = spread_constraints_parse(f, pod_spec, spec_path, out) && ok;
    if (ok && !gave_up(f) && !(out->signature = build_signature(out)))
        ok = out_of_memory(f);
    if (!ok || gave_up(f)) {
        constraints_free(out);
        return false;
    }
    return true;
}
