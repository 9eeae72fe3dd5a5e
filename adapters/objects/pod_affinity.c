/* Reading a pod spec's podAffinity, podAntiAffinity and topologySpreadConstraints into placement
 * constraints, validated with Kubernetes' rules and words (ValidatePodAffinity, ValidateTopologySpreadConstraints). */
#include "adapters/objects/pod_affinity.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/meta_limits.h"
#include "common/strv.h"

#define SELECTOR_OPS "\"In\", \"NotIn\", \"Exists\", \"DoesNotExist\""

static bool out_of_memory(struct fields *f)
{
    api_fail(f->st, 500, "InternalError", "out of memory");
    return false;
}

static bool gave_up(const struct fields *f) { return f->st->code != 0; }

/* Kubernetes' first reason why s fails a name check, or NULL. */
static const char *problem_of(int (*problems)(const char *, const char *[4], char *, size_t), const char *s, char *buf,
                              size_t len)
{
    const char *why[4];
    return problems(s, why, buf, len) > 0 ? why[0] : NULL;
}

static bool check_name(struct fields *f, const json_t *obj, const char *key, const char *path, const char *value,
                       int (*problems)(const char *, const char *[4], char *, size_t))
{
    char buf[96];
    const char *why = problem_of(problems, value, buf, sizeof buf);
    if (!why)
        return true;
    field_error(f, obj, key, path, "FieldValueInvalid", "Invalid value: \"%.64s\": %s", value, why);
    return false;
}

/* --- label selectors ------------------------------------------------------------------------ */

static struct label_requirement *add_requirement(struct pod_selector *s, int cap)
{
    if (!s->exprs && !(s->exprs = calloc((size_t)(cap > 0 ? cap : 1), sizeof *s->exprs)))
        return NULL;
    return &s->exprs[s->nexprs++];
}

static bool parse_match_labels(struct fields *f, json_t *sel, const char *path, struct pod_selector *out, int cap)
{
    json_t *map;
    char p[FIELD_PATH_MAX];
    field_path(p, path, "matchLabels");
    if (!field_string_map(f, sel, "matchLabels", p, &map) || !map)
        return map == NULL && !gave_up(f);
    bool ok = true;
    const char *key;
    json_t *v;
    json_object_foreach(map, key, v)
    {
        ok = check_name(f, map, key, p, key, meta_qualified_name_problems) && ok;
        ok = check_name(f, map, key, p, json_string_value(v), meta_label_value_problems) && ok;
        struct label_requirement *r = add_requirement(out, cap);
        if (!r || !(r->key = strdup(key)) || strv_push(&r->values, json_string_value(v)) != 0)
            return out_of_memory(f);
        r->op = SEL_IN;
        r->nvalues = 1;
    }
    return ok;
}

static bool parse_selector_op(struct fields *f, json_t *item, const char *path, enum selector_op *op)
{
    static const char *const names[] = {"In", "NotIn", "Exists", "DoesNotExist"};
    const char *s;
    char p[FIELD_PATH_MAX];
    field_path(p, path, "operator");
    if (!field_string(f, item, "operator", p, true, &s))
        return false;
    for (int i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0) {
            *op = (enum selector_op)i;
            return true;
        }
    field_error(f, item, "operator", p, "FieldValueNotSupported", "Unsupported value: \"%s\": supported values: %s", s,
                SELECTOR_OPS);
    return false;
}

static bool parse_expression(struct fields *f, json_t *item, const char *path, struct label_requirement *r)
{
    static const char *const known[] = {"key", "operator", "values", NULL};
    char p[FIELD_PATH_MAX];
    const char *key;
    bool ok = field_check_known(f, item, path, known);
    field_path(p, path, "key");
    if (!field_string(f, item, "key", p, true, &key))
        return false;
    if (!(r->key = strdup(key)))
        return out_of_memory(f);
    ok = check_name(f, item, "key", p, key, meta_qualified_name_problems) && ok;
    if (!parse_selector_op(f, item, path, &r->op))
        return false;
    field_path(p, path, "values");
    if (!field_string_list(f, item, "values", p, &r->values))
        return false;
    r->nvalues = (int)strv_len(r->values);
    bool needs_values = r->op == SEL_IN || r->op == SEL_NOT_IN;
    if (needs_values && r->nvalues == 0) {
        field_error(f, item, "values", p, "FieldValueRequired",
                    "Required value: must be specified when `operator` is 'In' or 'NotIn'");
        ok = false;
    } else if (!needs_values && r->nvalues > 0) {
        field_error(f, item, "values", p, "FieldValueForbidden",
                    "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
        ok = false;
    }
    for (int i = 0; ok && i < r->nvalues; i++) {
        char vp[FIELD_PATH_MAX];
        field_path_index(vp, p, (size_t)i);
        ok = check_name(f, json_object_get(item, "values"), NULL, vp, r->values[i], meta_label_value_problems);
    }
    return ok;
}

/* parent[key]: a LabelSelector; absent, it selects nothing. */
static bool parse_selector(struct fields *f, json_t *parent, const char *key, const char *parent_path,
                           struct pod_selector *out)
{
    static const char *const known[] = {"matchLabels", "matchExpressions", NULL};
    json_t *sel, *exprs;
    char path[FIELD_PATH_MAX], p[FIELD_PATH_MAX];
    field_path(path, parent_path, key);
    if (!field_object(f, parent, key, path, false, &sel) || !sel)
        return sel == NULL && !gave_up(f);
    out->present = true;
    bool ok = field_check_known(f, sel, path, known);
    field_path(p, path, "matchExpressions");
    if (!field_array(f, sel, "matchExpressions", p, false, &exprs))
        return false;
    int cap = (int)(json_object_size(json_object_get(sel, "matchLabels")) + json_array_size(exprs));
    ok = parse_match_labels(f, sel, path, out, cap) && ok;
    for (size_t i = 0; i < json_array_size(exprs) && !gave_up(f); i++) {
        char ip[FIELD_PATH_MAX];
        json_t *item = field_each_object(f, exprs, i, p, ip, "must be an object");
        struct label_requirement *r = item ? add_requirement(out, cap) : NULL;
        if (item && !r)
            return out_of_memory(f);
        ok = item && parse_expression(f, item, ip, r) && ok;
    }
    return ok && !gave_up(f);
}

/* --- pod affinity terms ----------------------------------------------------------------------- */

static bool parse_namespaces(struct fields *f, json_t *term, const char *path, struct pod_affinity_term *t)
{
    char p[FIELD_PATH_MAX];
    json_t *ns_sel;
    field_path(p, path, "namespaces");
    if (!field_string_list(f, term, "namespaces", p, &t->namespaces))
        return false;
    t->nnamespaces = (int)strv_len(t->namespaces);
    bool ok = true;
    for (int i = 0; i < t->nnamespaces; i++) {
        char vp[FIELD_PATH_MAX];
        field_path_index(vp, p, (size_t)i);
        ok = check_name(f, json_object_get(term, "namespaces"), NULL, vp, t->namespaces[i],
                        meta_dns1123_label_problems) &&
             ok;
    }
    field_path(p, path, "namespaceSelector");
    if (!field_object(f, term, "namespaceSelector", p, false, &ns_sel))
        return false;
    if (ns_sel && json_object_size(ns_sel) == 0)
        t->all_namespaces = true;
    else if (ns_sel) {
        field_unsupported(f, term, "namespaceSelector", p,
                          "only an empty namespaceSelector ({}: every namespace) is supported: list the namespaces "
                          "in namespaces");
        ok = false;
    }
    return ok;
}

static bool parse_term(struct fields *f, json_t *term, const char *path, struct pod_affinity_term *t)
{
    static const struct field_rule rules[] = {
        {"labelSelector", NULL},
        {"namespaces", NULL},
        {"namespaceSelector", NULL},
        {"topologyKey", NULL},
        {"matchLabelKeys", "matchLabelKeys is not supported: put the labels in labelSelector"},
        {"mismatchLabelKeys", "mismatchLabelKeys is not supported: put the labels in labelSelector"},
        {NULL, NULL},
    };
    char p[FIELD_PATH_MAX];
    const char *key = NULL;
    bool ok = field_check_rules(f, term, path, rules);
    ok = parse_selector(f, term, "labelSelector", path, &t->selector) && ok;
    if (gave_up(f))
        return false;
    ok = parse_namespaces(f, term, path, t) && ok;
    field_path(p, path, "topologyKey");
    if (!field_string(f, term, "topologyKey", p, false, &key))
        return false;
    if (!key || !*key) {
        field_error(f, term, "topologyKey", p, "FieldValueRequired", "Required value: can not be empty");
        return false;
    }
    if (!(t->topology_key = strdup(key)))
        return out_of_memory(f);
    return check_name(f, term, "topologyKey", p, key, meta_qualified_name_problems) && ok;
}

static struct pod_affinity_term *new_term(struct placement_constraints *out, int *cap)
{
    if (out->npod_terms == *cap) {
        int grown = *cap ? *cap * 2 : 4;
        struct pod_affinity_term *terms = realloc(out->pod_terms, (size_t)grown * sizeof *terms);
        if (!terms)
            return NULL;
        out->pod_terms = terms;
        *cap = grown;
    }
    struct pod_affinity_term *t = &out->pod_terms[out->npod_terms++];
    memset(t, 0, sizeof *t);
    return t;
}

static bool parse_kind(struct fields *f, json_t *affinity, const char *path, const char *kind, bool anti,
                       struct placement_constraints *out, int *cap)
{
    static const char *const known[] = {"requiredDuringSchedulingIgnoredDuringExecution",
                                        "preferredDuringSchedulingIgnoredDuringExecution", NULL};
    char kp[FIELD_PATH_MAX], p[FIELD_PATH_MAX];
    json_t *obj, *list;
    field_path(kp, path, kind);
    if (!field_object(f, affinity, kind, kp, false, &obj) || !obj)
        return obj == NULL && !gave_up(f);
    bool ok = field_check_known(f, obj, kp, known);
    for (int preferred = 0; preferred < 2 && !gave_up(f); preferred++) {
        const char *key = known[preferred];
        field_path(p, kp, key);
        if (!field_array(f, obj, key, p, false, &list))
            return false;
        for (size_t i = 0; i < json_array_size(list) && !gave_up(f); i++) {
            char ip[FIELD_PATH_MAX], tp[FIELD_PATH_MAX];
            json_t *item = field_each_object(f, list, i, p, ip, "must be an object");
            if (!item) {
                ok = false;
                continue;
            }
            struct pod_affinity_term *t = new_term(out, cap);
            if (!t)
                return out_of_memory(f);
            t->anti = anti;
            t->required = !preferred;
            json_t *term = item;
            if (preferred) {
                static const char *const pknown[] = {"weight", "podAffinityTerm", NULL};
                int64_t weight = 0;
                ok = field_check_known(f, item, ip, pknown) && ok;
                field_path(tp, ip, "weight");
                if (field_int(f, item, "weight", tp, true, INT64_MIN, INT64_MAX, &weight) &&
                    (weight < 1 || weight > 100)) {
                    field_invalid(f, item, "weight", tp, "must be in the range 1-100");
                    ok = false;
                }
                t->weight = (int32_t)weight;
                field_path(tp, ip, "podAffinityTerm");
                if (!field_object(f, item, "podAffinityTerm", tp, true, &term)) {
                    ok = false;
                    continue;
                }
            } else
                memcpy(tp, ip, sizeof tp);
            ok = parse_term(f, term, tp, t) && ok;
        }
    }
    return ok && !gave_up(f);
}

bool pod_affinity_parse(struct fields *f, json_t *affinity, const char *path, struct placement_constraints *out)
{
    int cap = 0;
    bool ok = parse_kind(f, affinity, path, "podAffinity", false, out, &cap);
    if (gave_up(f))
        return false;
    return parse_kind(f, affinity, path, "podAntiAffinity", true, out, &cap) && ok;
}

/* --- topologySpreadConstraints ------------------------------------------------------------------ */

static bool parse_spread_entry(struct fields *f, json_t *item, const char *path, struct spread_constraint *c)
{
    static const struct field_rule rules[] = {
        {"maxSkew", NULL},
        {"topologyKey", NULL},
        {"whenUnsatisfiable", NULL},
        {"labelSelector", NULL},
        {"minDomains", NULL},
        {"matchLabelKeys", "matchLabelKeys is not supported: put the labels in labelSelector"},
        {"nodeAffinityPolicy", "nodeAffinityPolicy is not supported: the pod's node affinity is always honoured"},
        {"nodeTaintsPolicy",
         "nodeTaintsPolicy is not supported: nodes whose taints the pod does not tolerate "
         "are left out of the domains"},
        {NULL, NULL},
    };
    char p[FIELD_PATH_MAX];
    int64_t skew = 0, min_domains = 0;
    const char *key = NULL, *when = NULL;
    bool ok = field_check_rules(f, item, path, rules);
    field_path(p, path, "maxSkew");
    if (field_int(f, item, "maxSkew", p, true, INT64_MIN, INT64_MAX, &skew) && (skew <= 0 || skew > INT32_MAX)) {
        field_error(f, item, "maxSkew", p, "FieldValueInvalid", "Invalid value: %lld: must be greater than zero",
                    (long long)skew);
        ok = false;
    }
    c->max_skew = (int32_t)skew;
    field_path(p, path, "topologyKey");
    if (field_string(f, item, "topologyKey", p, false, &key) && (!key || !*key)) {
        field_error(f, item, "topologyKey", p, "FieldValueRequired", "Required value: can not be empty");
        ok = false;
    } else if (key) {
        ok = check_name(f, item, "topologyKey", p, key, meta_qualified_name_problems) && ok;
        if (!(c->topology_key = strdup(key)))
            return out_of_memory(f);
    } else
        ok = false;
    field_path(p, path, "whenUnsatisfiable");
    if (field_string(f, item, "whenUnsatisfiable", p, true, &when) && when) {
        if (strcmp(when, "DoNotSchedule") == 0)
            c->do_not_schedule = true;
        else if (strcmp(when, "ScheduleAnyway") != 0) {
            field_error(f, item, "whenUnsatisfiable", p, "FieldValueNotSupported",
                        "Unsupported value: \"%s\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\"", when);
            ok = false;
        }
    } else
        ok = false;
    field_path(p, path, "minDomains");
    if (field_int(f, item, "minDomains", p, false, INT64_MIN, INT64_MAX, &min_domains) &&
        json_object_get(item, "minDomains") && !json_is_null(json_object_get(item, "minDomains"))) {
        if (min_domains <= 0 || min_domains > INT32_MAX) {
            field_error(f, item, "minDomains", p, "FieldValueInvalid", "Invalid value: %lld: must be greater than zero",
                        (long long)min_domains);
            ok = false;
        } else if (when && strcmp(when, "DoNotSchedule") != 0) {
            field_error(f, item, "minDomains", p, "FieldValueInvalid",
                        "Invalid value: %lld: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not %s",
                        (long long)min_domains, when);
            ok = false;
        }
        c->min_domains = (int32_t)min_domains;
    }
    return parse_selector(f, item, "labelSelector", path, &c->selector) && ok;
}

bool spread_constraints_parse(struct fields *f, json_t *spec, const char *spec_path, struct placement_constraints *out)
{
    char path[FIELD_PATH_MAX];
    json_t *list;
    field_path(path, spec_path, "topologySpreadConstraints");
    if (!field_array(f, spec, "topologySpreadConstraints", path, false, &list))
        return false;
    size_t n = json_array_size(list);
    if (n == 0)
        return true;
    if (!(out->spread = calloc(n, sizeof *out->spread)))
        return out_of_memory(f);
    bool ok = true;
    for (size_t i = 0; i < n && !gave_up(f); i++) {
        char p[FIELD_PATH_MAX];
        json_t *item = field_each_object(f, list, i, path, p, "must be an object");
        if (!item) {
            ok = false;
            continue;
        }
        struct spread_constraint *c = &out->spread[out->nspread++];
        ok = parse_spread_entry(f, item, p, c) && ok;
        for (int j = 0; ok && j < out->nspread - 1; j++) { /* Kubernetes: one per {topologyKey, whenUnsatisfiable} */
            const struct spread_constraint *o = &out->spread[j];
            if (o->topology_key && c->topology_key && strcmp(o->topology_key, c->topology_key) == 0 &&
                o->do_not_schedule == c->do_not_schedule) {
                char kp[FIELD_PATH_MAX];
                field_path(kp, p, "{topologyKey, whenUnsatisfiable}");
                field_error(f, item, NULL, kp, "FieldValueDuplicate", "Duplicate value: \"{%s, %s}\"", c->topology_key,
                            c->do_not_schedule ? "DoNotSchedule" : "ScheduleAnyway");
                ok = false;
            }
        }
    }
    return ok && !gave_up(f);
}
