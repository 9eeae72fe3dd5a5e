/* Reading nodeSelector, node and pod affinity, tolerations and spread from a pod spec: the model it builds, every
 * validation error with its path, words and line, and signatures equal exactly when promised. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/constraints.h"
#include "adapters/intake/intake.h"
#include "tests/lib/test.h"

#define SPEC "spec.tasks[0].template.spec"
#define NA SPEC ".affinity.nodeAffinity"
#define REQ NA ".requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
#define PREF NA ".preferredDuringSchedulingIgnoredDuringExecution"

struct parsed {
    struct intake in;
    struct api_status st;
    struct placement_constraints c;
    bool ok;
};

/* The tails of Kubernetes' messages (validation.RegexError): its examples and the regex. */
#define QNAME_EXAMPLES                                                             \
    " (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is " \
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
#define LABEL_VALUE_EXAMPLES                                                       \
    " (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is " \
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
#define SUBDOMAIN_EXAMPLES                                \
    " (e.g. 'example.com', regex used for validation is " \
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"

/* yaml is a pod template's spec. */
static void parse_spec(const char *yaml, struct parsed *p)
{
    memset(p, 0, sizeof *p);
    if (intake_parse(yaml, strlen(yaml), INTAKE_YAML, &p->in, &p->st) != 0)
        return;
    struct fields f = {&p->in.docs[0], &p->st};
    p->ok = constraints_parse(&f, p->in.docs[0].root, SPEC, &p->c);
}

static void parsed_free(struct parsed *p)
{
    constraints_free(&p->c);
    intake_free(&p->in);
}

static const struct api_cause *cause_at(const struct api_status *st, const char *field)
{
    for (int i = 0; i < st->ncauses && i < API_MAX_CAUSES; i++)
        if (strcmp(st->causes[i].field, field) == 0)
            return &st->causes[i];
    return NULL;
}

/* Parses a spec expected to fail with exactly one cause at field; returns nothing, checks all. */
static void expect_one_error(const char *yaml, const char *field, const char *reason, const char *message)
{
    struct parsed p;
    parse_spec(yaml, &p);
    CHECK(!p.ok);
    CHECK_INT(p.st.ncauses, 1);
    const struct api_cause *c = cause_at(&p.st, field);
    if (!c)
        test_fail(__FILE__, __LINE__, "no cause at %s (first: %s: %s)", field, p.st.causes[0].field,
                  p.st.causes[0].message);
    else {
        CHECK_STR(c->reason, reason);
        CHECK_STR(c->message, message);
        CHECK(c->line > 0);
    }
    CHECK_INT(p.c.nselector + p.c.nrequired + p.c.npreferred + p.c.ntolerations + p.c.npod_terms + p.c.nspread,
              0); /* emptied on failure */
    CHECK(p.c.signature == NULL);
    parsed_free(&p);
}

/* The signature of a spec that must parse. Returns a heap copy (or NULL after a failed check). */
static char *signature_of(const char *yaml)
{
    struct parsed p;
    parse_spec(yaml, &p);
    CHECK(p.ok);
    if (!p.ok)
        test_fail(__FILE__, __LINE__, "%s", p.st.ncauses ? p.st.causes[0].message : p.st.message);
    char *sig = p.ok && p.c.signature ? strdup(p.c.signature) : NULL;
    parsed_free(&p);
    return sig;
}

static void check_same_signature(const char *a, const char *b, bool same)
{
    char *sa = signature_of(a), *sb = signature_of(b);
    if (sa && sb && (strcmp(sa, sb) == 0) != same)
        test_fail(__FILE__, __LINE__, "signatures \"%s\" and \"%s\" should %s", sa, sb, same ? "be equal" : "differ");
    CHECK(sa && sb);
    free(sa);
    free(sb);
}

static const char *const full =
    "nodeSelector: {disktype: ssd, kubernetes.io/os: linux}\n"
    "affinity:\n"
    "  nodeAffinity:\n"
    "    requiredDuringSchedulingIgnoredDuringExecution:\n"
    "      nodeSelectorTerms:\n"
    "      - matchExpressions:\n"
    "        - {key: zone, operator: In, values: [a, b]}\n"
    "        - {key: gpu-count, operator: Gt, values: [\"3\"]}\n"
    "      - matchFields:\n"
    "        - {key: metadata.name, operator: NotIn, values: [node-1]}\n"
    "        matchExpressions:\n"
    "        - {key: spot, operator: DoesNotExist}\n"
    "    preferredDuringSchedulingIgnoredDuringExecution:\n"
    "    - weight: 30\n"
    "      preference: {matchExpressions: [{key: rack, operator: Exists}]}\n"
    "    - weight: 100\n"
    "      preference: {matchExpressions: [{key: mem, operator: Lt, values: [64]}]}\n"
    "tolerations:\n"
    "- {key: dedicated, operator: Equal, value: ml, effect: NoSchedule}\n"
    "- {operator: Exists}\n"
    "- {key: flaky, operator: Exists, effect: NoExecute, tolerationSeconds: 30}\n"
    "- {key: legacy, value: \"yes\"}\n";

static void reads_every_part(void)
{
    struct parsed p;
    parse_spec(full, &p);
    REQUIRE(p.ok);
    const struct placement_constraints *c = &p.c;
    REQUIRE(c->nselector == 2);
    CHECK_STR(c->selector_keys[0], "disktype"); /* sorted by key */
    CHECK_STR(c->selector_values[0], "ssd");
    CHECK_STR(c->selector_keys[1], "kubernetes.io/os");
    CHECK_STR(c->selector_values[1], "linux");

    REQUIRE(c->nrequired == 2);
    const struct node_selector_term *t0 = &c->required[0], *t1 = &c->required[1];
    REQUIRE(t0->nexprs == 2 && t0->nfields == 0);
    CHECK_STR(t0->exprs[0].key, "zone");
    CHECK_INT(t0->exprs[0].op, SEL_IN);
    CHECK_INT(t0->exprs[0].nvalues, 2);
    CHECK_STR(t0->exprs[0].values[1], "b");
    CHECK_INT(t0->exprs[1].op, SEL_GT);
    CHECK_STR(t0->exprs[1].values[0], "3");
    REQUIRE(t1->nexprs == 1 && t1->nfields == 1);
    CHECK_STR(t1->fields[0].key, "metadata.name");
    CHECK_INT(t1->fields[0].op, SEL_NOT_IN);
    CHECK_INT(t1->exprs[0].op, SEL_DOES_NOT_EXIST);
    CHECK_INT(t1->exprs[0].nvalues, 0);

    REQUIRE(c->npreferred == 2);
    CHECK_INT(c->preferred[0].weight, 30);
    CHECK_INT(c->preferred[0].term.exprs[0].op, SEL_EXISTS);
    CHECK_INT(c->preferred[1].weight, 100);
    CHECK_INT(c->preferred[1].term.exprs[0].op, SEL_LT);
    CHECK_STR(c->preferred[1].term.exprs[0].values[0], "64"); /* a YAML number read as its text */

    REQUIRE(c->ntolerations == 4);
    CHECK_STR(c->tolerations[0].key, "dedicated");
    CHECK_INT(c->tolerations[0].op, TOL_EQUAL);
    CHECK_STR(c->tolerations[0].value, "ml");
    CHECK_STR(c->tolerations[0].effect, "NoSchedule");
    CHECK_STR(c->tolerations[1].key, "");
    CHECK_INT(c->tolerations[1].op, TOL_EXISTS);
    CHECK_STR(c->tolerations[1].effect, "");
    CHECK_STR(c->tolerations[2].effect, "NoExecute");
    CHECK_INT(c->tolerations[3].op, TOL_EQUAL); /* the default operator */
    CHECK_STR(c->tolerations[3].value, "yes");
    REQUIRE(c->signature);
    CHECK(*c->signature);
    parsed_free(&p);
}

static void nothing_asked_gives_empty_signature(void)
{
    struct parsed p;
    parse_spec("containers: [{name: c}]\n", &p);
    REQUIRE(p.ok);
    CHECK_INT(p.c.nselector + p.c.nrequired + p.c.npreferred + p.c.ntolerations, 0);
    CHECK_STR(p.c.signature, "");
    parsed_free(&p);
    parse_spec("nodeSelector: {}\ntolerations: []\naffinity: {podAffinity: {}, nodeAffinity: {}}\n", &p);
    REQUIRE(p.ok);
    CHECK_STR(p.c.signature, "");
    parsed_free(&p);
}

static void unsupported_operator_names_the_supported_ones(void)
{
    expect_one_error(
        "affinity:\n"
        "  nodeAffinity:\n"
        "    requiredDuringSchedulingIgnoredDuringExecution:\n"
        "      nodeSelectorTerms:\n"
        "      - matchExpressions:\n"
        "        - {key: zone, operator: In, values: [a]}\n"
        "        - {key: zone, operator: Like, values: [a]}\n",
        REQ "[0].matchExpressions[1].operator", "FieldValueNotSupported",
        "Unsupported value: \"Like\": supported values: \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", "
        "\"Gt\", \"Lt\"");
}

static void error_carries_the_yaml_line(void)
{
    struct parsed p;
    parse_spec(
        "affinity:\n"
        "  nodeAffinity:\n"
        "    requiredDuringSchedulingIgnoredDuringExecution:\n"
        "      nodeSelectorTerms:\n"
        "      - matchExpressions:\n"
        "        - key: zone\n"
        "          operator: Like\n",
        &p);
    CHECK(!p.ok);
    REQUIRE(p.st.ncauses == 1);
    CHECK_INT(p.st.causes[0].line, 7);
    CHECK_INT(p.st.causes[0].column, 21);
    parsed_free(&p);
}

static const char *term_with(const char *expression, char *buf, size_t len)
{
    snprintf(buf, len,
             "affinity:\n"
             "  nodeAffinity:\n"
             "    requiredDuringSchedulingIgnoredDuringExecution:\n"
             "      nodeSelectorTerms:\n"
             "      - matchExpressions:\n"
             "        - %s\n",
             expression);
    return buf;
}

static void values_must_suit_the_operator(void)
{
    char y[1024];
    const char *values = REQ "[0].matchExpressions[0].values";
    expect_one_error(term_with("{key: zone, operator: In}", y, sizeof y), values, "FieldValueRequired",
                     "Required value: must be specified when `operator` is 'In' or 'NotIn'");
    expect_one_error(term_with("{key: zone, operator: NotIn, values: []}", y, sizeof y), values, "FieldValueRequired",
                     "Required value: must be specified when `operator` is 'In' or 'NotIn'");
    expect_one_error(term_with("{key: zone, operator: Exists, values: [a]}", y, sizeof y), values,
                     "FieldValueForbidden",
                     "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
    expect_one_error(term_with("{key: zone, operator: DoesNotExist, values: [a]}", y, sizeof y), values,
                     "FieldValueForbidden",
                     "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
    expect_one_error(term_with("{key: cores, operator: Gt, values: [\"1\", \"2\"]}", y, sizeof y), values,
                     "FieldValueRequired",
                     "Required value: must be specified single value when `operator` is 'Lt' or 'Gt'");
    expect_one_error(term_with("{key: cores, operator: Lt}", y, sizeof y), values, "FieldValueRequired",
                     "Required value: must be specified single value when `operator` is 'Lt' or 'Gt'");
    expect_one_error(term_with("{key: cores, operator: Lt, values: [many]}", y, sizeof y),
                     REQ "[0].matchExpressions[0].values[0]", "FieldValueInvalid",
                     "Invalid value: \"many\": must be an integer when `operator` is 'Lt' or 'Gt'");
    expect_one_error(term_with("{key: cores, operator: Gt, values: [\"1.5\"]}", y, sizeof y),
                     REQ "[0].matchExpressions[0].values[0]", "FieldValueInvalid",
                     "Invalid value: \"1.5\": must be an integer when `operator` is 'Lt' or 'Gt'");
}

static void requirement_needs_key_and_operator(void)
{
    char y[1024];
    expect_one_error(term_with("{operator: Exists}", y, sizeof y), REQ "[0].matchExpressions[0].key",
                     "FieldValueRequired", "Required value");
    expect_one_error(term_with("{key: zone}", y, sizeof y), REQ "[0].matchExpressions[0].operator",
                     "FieldValueRequired", "Required value");
    expect_one_error(term_with("{key: \"bad key\", operator: Exists}", y, sizeof y), REQ "[0].matchExpressions[0].key",
                     "FieldValueInvalid",
                     "Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', "
                     "and must start and end with an alphanumeric character" QNAME_EXAMPLES);
    expect_one_error(term_with("{key: \"Example.com/zone\", operator: Exists}", y, sizeof y),
                     REQ "[0].matchExpressions[0].key", "FieldValueInvalid",
                     "Invalid value: \"Example.com/zone\": prefix part a lowercase RFC 1123 subdomain must consist of "
                     "lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
                     "character" SUBDOMAIN_EXAMPLES);
    expect_one_error(term_with("just-a-string", y, sizeof y), REQ "[0].matchExpressions[0]", "FieldValueInvalid",
                     "Invalid value: must be an object");
}

static const char *fields_with(const char *requirement, char *buf, size_t len)
{
    snprintf(buf, len,
             "affinity:\n"
             "  nodeAffinity:\n"
             "    requiredDuringSchedulingIgnoredDuringExecution:\n"
             "      nodeSelectorTerms:\n"
             "      - matchFields:\n"
             "        - %s\n",
             requirement);
    return buf;
}

static void match_fields_take_only_metadata_name_in_or_not_in(void)
{
    char y[1024];
    const char *at = REQ "[0].matchFields[0]";
    char key[256], op[256], values[256], value0[256];
    snprintf(key, sizeof key, "%s.key", at);
    snprintf(op, sizeof op, "%s.operator", at);
    snprintf(values, sizeof values, "%s.values", at);
    snprintf(value0, sizeof value0, "%s.values[0]", at);
    expect_one_error(fields_with("{key: metadata.labels, operator: In, values: [a]}", y, sizeof y), key,
                     "FieldValueNotSupported",
                     "Unsupported value: \"metadata.labels\": supported values: \"metadata.name\"");
    expect_one_error(fields_with("{key: metadata.name, operator: Exists}", y, sizeof y), op, "FieldValueNotSupported",
                     "Unsupported value: \"Exists\": supported values: \"In\", \"NotIn\"");
    expect_one_error(fields_with("{key: metadata.name, operator: In, values: [a, b]}", y, sizeof y), values,
                     "FieldValueRequired",
                     "Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field "
                     "selector");
    expect_one_error(
        fields_with("{key: metadata.name, operator: In, values: [Node_1]}", y, sizeof y), value0, "FieldValueInvalid",
        "Invalid value: \"Node_1\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
        "characters, '-' or '.', and must start and end with an alphanumeric character" SUBDOMAIN_EXAMPLES);
}

static void required_terms_must_ask_something(void)
{
    expect_one_error(
        "affinity:\n"
        "  nodeAffinity:\n"
        "    requiredDuringSchedulingIgnoredDuringExecution:\n"
        "      nodeSelectorTerms: []\n",
        REQ, "FieldValueRequired", "Required value: must have at least one node selector term");
    expect_one_error(
        "affinity:\n"
        "  nodeAffinity:\n"
        "    requiredDuringSchedulingIgnoredDuringExecution: {}\n",
        REQ, "FieldValueRequired", "Required value: must have at least one node selector term");
    expect_one_error(
        "affinity:\n"
        "  nodeAffinity:\n"
        "    requiredDuringSchedulingIgnoredDuringExecution:\n"
        "      nodeSelectorTerms:\n"
        "      - matchExpressions: [{key: a, operator: Exists}]\n"
        "      - matchExpressions: []\n",
        REQ "[1]", "FieldValueRequired",
        "Required value: must have at least one node selector requirement in matchExpressions or "
        "matchFields");
    expect_one_error(
        "affinity:\n"
        "  nodeAffinity:\n"
        "    requiredDuringSchedulingIgnoredDuringExecution:\n"
        "      nodeSelectorTerms: [{}]\n",
        REQ "[0]", "FieldValueRequired",
        "Required value: must have at least one node selector requirement in matchExpressions or "
        "matchFields");
    expect_one_error(
        "affinity:\n"
        "  nodeAffinity:\n"
        "    requiredDuringSchedulingIgnoredDuringExecution:\n"
        "      nodeSelectorTerms: {matchExpressions: []}\n",
        REQ, "FieldValueInvalid", "Invalid value: {...}: must be a list, not an object");
}

static void preferred_terms_need_weight_and_preference(void)
{
    expect_one_error(
        "affinity:\n"
        "  nodeAffinity:\n"
        "    preferredDuringSchedulingIgnoredDuringExecution:\n"
        "    - weight: 0\n"
        "      preference: {matchExpressions: [{key: a, operator: Exists}]}\n",
        PREF "[0].weight", "FieldValueInvalid", "Invalid value: 0: must be in the range 1-100");
    expect_one_error(
        "affinity:\n"
        "  nodeAffinity:\n"
        "    preferredDuringSchedulingIgnoredDuringExecution:\n"
        "    - weight: 101\n"
        "      preference: {matchExpressions: [{key: a, operator: Exists}]}\n",
        PREF "[0].weight", "FieldValueInvalid", "Invalid value: 101: must be in the range 1-100");
    expect_one_error(
        "affinity:\n"
        "  nodeAffinity:\n"
        "    preferredDuringSchedulingIgnoredDuringExecution:\n"
        "    - preference: {matchExpressions: [{key: a, operator: Exists}]}\n",
        PREF "[0].weight", "FieldValueRequired", "Required value");
    expect_one_error(
        "affinity:\n"
        "  nodeAffinity:\n"
        "    preferredDuringSchedulingIgnoredDuringExecution:\n"
        "    - weight: 5\n",
        PREF "[0].preference", "FieldValueRequired", "Required value");
    expect_one_error(
        "affinity:\n"
        "  nodeAffinity:\n"
        "    preferredDuringSchedulingIgnoredDuringExecution:\n"
        "    - weight: 5\n"
        "      preference: {matchExpressions: [{key: a, operator: In}]}\n",
        PREF "[0].preference.matchExpressions[0].values", "FieldValueRequired",
        "Required value: must be specified when `operator` is 'In' or 'NotIn'");
    /* An empty preference matches nothing, as in Kubernetes: accepted, and it never scores. */
    struct parsed p;
    parse_spec(
        "affinity:\n"
        "  nodeAffinity:\n"
        "    preferredDuringSchedulingIgnoredDuringExecution: [{weight: 5, preference: {}}]\n",
        &p);
    CHECK(p.ok);
    CHECK_INT(p.c.npreferred, 1);
    parsed_free(&p);
}

static void pod_affinity_and_spread_are_read(void)
{
    struct parsed p;
    parse_spec(
        "affinity:\n"
        "  podAffinity:\n"
        "    requiredDuringSchedulingIgnoredDuringExecution:\n"
        "    - {labelSelector: {matchLabels: {app: db}}, topologyKey: zone, namespaces: [data]}\n"
        "  podAntiAffinity:\n"
        "    preferredDuringSchedulingIgnoredDuringExecution:\n"
        "    - weight: 40\n"
        "      podAffinityTerm:\n"
        "        labelSelector: {matchExpressions: [{key: app, operator: NotIn, values: [web]}]}\n"
        "        namespaceSelector: {}\n"
        "        topologyKey: kubernetes.io/hostname\n"
        "topologySpreadConstraints:\n"
        "- {maxSkew: 2, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, minDomains: 3,\n"
        "   labelSelector: {matchLabels: {app: web}}}\n"
        "- {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}\n",
        &p);
    CHECK(p.ok);
    CHECK_INT(p.c.npod_terms, 2);
    const struct pod_affinity_term *t = &p.c.pod_terms[0];
    CHECK(!t->anti && t->required && t->selector.present);
    CHECK_INT(t->selector.nexprs, 1);
    CHECK_STR(t->selector.exprs[0].key, "app");
    CHECK_INT(t->selector.exprs[0].op, SEL_IN);
    CHECK_STR(t->selector.exprs[0].values[0], "db");
    CHECK_STR(t->topology_key, "zone");
    CHECK_INT(t->nnamespaces, 1);
    CHECK_STR(t->namespaces[0], "data");
    t = &p.c.pod_terms[1];
    CHECK(t->anti && !t->required && t->all_namespaces);
    CHECK_INT(t->weight, 40);
    CHECK_INT(t->selector.exprs[0].op, SEL_NOT_IN);
    CHECK_STR(t->topology_key, "kubernetes.io/hostname");
    CHECK_INT(p.c.nspread, 2);
    CHECK(p.c.spread[0].do_not_schedule && p.c.spread[0].max_skew == 2 && p.c.spread[0].min_domains == 3);
    CHECK(p.c.spread[0].selector.present);
    CHECK(!p.c.spread[1].do_not_schedule && !p.c.spread[1].selector.present); /* no selector: matches nothing */
    CHECK(constraints_have_pod_rules(&p.c));
    CHECK_STR(p.c.signature, ""); /* pod rules decide nothing about a node alone */
    parsed_free(&p);
}

static void pod_affinity_and_spread_are_validated(void)
{
    expect_one_error(
        "affinity:\n"
        "  podAffinity:\n"
        "    requiredDuringSchedulingIgnoredDuringExecution:\n"
        "    - {labelSelector: {matchLabels: {app: db}}}\n",
        SPEC ".affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey",
        "FieldValueRequired", "Required value: can not be empty");
    expect_one_error(
        "affinity:\n"
        "  podAntiAffinity:\n"
        "    preferredDuringSchedulingIgnoredDuringExecution:\n"
        "    - {weight: 0, podAffinityTerm: {topologyKey: zone}}\n",
        SPEC ".affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight", "FieldValueInvalid",
        "Invalid value: 0: must be in the range 1-100");
    expect_one_error(
        "affinity:\n"
        "  podAntiAffinity:\n"
        "    requiredDuringSchedulingIgnoredDuringExecution:\n"
        "    - {topologyKey: zone, labelSelector: {matchExpressions: [{key: app, operator: Gt, "
        "values: [\"1\"]}]}}\n",
        SPEC
        ".affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector"
        ".matchExpressions[0].operator",
        "FieldValueNotSupported",
        "Unsupported value: \"Gt\": supported values: \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\"");
    expect_one_error(
        "affinity:\n"
        "  podAffinity:\n"
        "    requiredDuringSchedulingIgnoredDuringExecution:\n"
        "    - {topologyKey: zone, namespaceSelector: {matchLabels: {team: a}}}\n",
        SPEC ".affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].namespaceSelector",
        "FieldValueNotSupported",
        "Unsupported value: {...}: only an empty namespaceSelector ({}: every namespace) is supported: "
        "list the namespaces in namespaces");
    expect_one_error(
        "topologySpreadConstraints:\n- {maxSkew: 0, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}\n",
        SPEC ".topologySpreadConstraints[0].maxSkew", "FieldValueInvalid",
        "Invalid value: 0: must be greater than zero");
    expect_one_error("topologySpreadConstraints:\n- {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: Never}\n",
                     SPEC ".topologySpreadConstraints[0].whenUnsatisfiable", "FieldValueNotSupported",
                     "Unsupported value: \"Never\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\"");
    expect_one_error(
        "topologySpreadConstraints:\n- {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway, minDomains: "
        "2}\n",
        SPEC ".topologySpreadConstraints[0].minDomains", "FieldValueInvalid",
        "Invalid value: 2: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway");
    expect_one_error(
        "topologySpreadConstraints:\n"
        "- {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}\n"
        "- {maxSkew: 2, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}\n",
        SPEC ".topologySpreadConstraints[1].{topologyKey, whenUnsatisfiable}", "FieldValueDuplicate",
        "Duplicate value: \"{zone, DoNotSchedule}\"");
}

static void node_selector_is_validated_as_labels(void)
{
    expect_one_error("nodeSelector: {\"-bad\": x}\n", SPEC ".nodeSelector", "FieldValueInvalid",
                     "Invalid value: \"-bad\": name part must consist of alphanumeric characters, '-', '_' or '.', and "
                     "must start and end with an alphanumeric character" QNAME_EXAMPLES);
    expect_one_error(
        "nodeSelector: {zone: \"a b\"}\n", SPEC ".nodeSelector", "FieldValueInvalid",
        "Invalid value: \"a b\": a valid label must be an empty string or consist of alphanumeric "
        "characters, '-', '_' or '.', and must start and end with an alphanumeric character" LABEL_VALUE_EXAMPLES);
    expect_one_error("nodeSelector: {zone: [a]}\n", SPEC ".nodeSelector[zone]", "FieldValueInvalid",
                     "Invalid value: [...]: must be a string, not a list");
    expect_one_error("nodeSelector: [zone]\n", SPEC ".nodeSelector", "FieldValueInvalid",
                     "Invalid value: [...]: must be an object, not a list");
}

static void tolerations_are_validated_as_kubernetes_does(void)
{
    const char *t0 = SPEC ".tolerations[0]";
    char p[256];
    snprintf(p, sizeof p, "%s.value", t0);
    expect_one_error("tolerations: [{key: a, operator: Exists, value: x}]\n", p, "FieldValueInvalid",
                     "Invalid value: \"x\": value must be empty when `operator` is 'Exists'");
    snprintf(p, sizeof p, "%s.operator", t0);
    expect_one_error("tolerations: [{operator: Equal, value: x}]\n", p, "FieldValueInvalid",
                     "Invalid value: \"Equal\": operator must be Exists when `key` is empty, which means \"match all "
                     "values and all keys\"");
    expect_one_error("tolerations: [{effect: NoSchedule}]\n", p, "FieldValueInvalid",
                     "Invalid value: \"\": operator must be Exists when `key` is empty, which means \"match all "
                     "values and all keys\"");
    expect_one_error("tolerations: [{key: a, operator: Matches}]\n", p, "FieldValueNotSupported",
                     "Unsupported value: \"Matches\": supported values: \"Equal\", \"Exists\"");
    snprintf(p, sizeof p, "%s.effect", t0);
    expect_one_error("tolerations: [{key: a, operator: Exists, effect: NoRun}]\n", p, "FieldValueNotSupported",
                     "Unsupported value: \"NoRun\": supported values: \"NoSchedule\", \"PreferNoSchedule\", "
                     "\"NoExecute\"");
    expect_one_error("tolerations: [{key: a, operator: Exists, effect: NoSchedule, tolerationSeconds: 5}]\n", p,
                     "FieldValueInvalid",
                     "Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set");
    snprintf(p, sizeof p, "%s.key", t0);
    expect_one_error("tolerations: [{key: \"a/b/c\", operator: Exists}]\n", p, "FieldValueInvalid",
                     "Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or "
                     "'.', and must start and end with an alphanumeric character" QNAME_EXAMPLES
                     " with an optional "
                     "DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
    snprintf(p, sizeof p, "%s.value", t0);
    expect_one_error(
        "tolerations: [{key: a, value: \"not valid\"}]\n", p, "FieldValueInvalid",
        "Invalid value: \"not valid\": a valid label must be an empty string or consist of alphanumeric "
        "characters, '-', '_' or '.', and must start and end with an alphanumeric character" LABEL_VALUE_EXAMPLES);
    snprintf(p, sizeof p, "%s.tolerationSeconds", t0);
    expect_one_error("tolerations: [{key: a, operator: Exists, effect: NoExecute, tolerationSeconds: soon}]\n", p,
                     "FieldValueInvalid", "Invalid value: \"soon\": must be an integer, not a string");
    expect_one_error("tolerations: [7]\n", t0, "FieldValueInvalid", "Invalid value: must be an object");
}

static void every_error_is_reported_at_once(void)
{
    struct parsed p;
    parse_spec(
        "nodeSelector: {\"-x\": v}\n"
        "affinity:\n"
        "  podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: \"\"}]}\n"
        "  nodeAffinity:\n"
        "    requiredDuringSchedulingIgnoredDuringExecution:\n"
        "      nodeSelectorTerms: [{matchExpressions: [{key: a, operator: In}, {key: b, operator: Up}]}]\n"
        "    preferredDuringSchedulingIgnoredDuringExecution: [{weight: 0, preference: {}}]\n"
        "tolerations: [{key: a, operator: Exists, value: v}]\n",
        &p);
    CHECK(!p.ok);
    CHECK_INT(p.st.ncauses, 6);
    CHECK(cause_at(&p.st, SPEC ".nodeSelector"));
    CHECK(cause_at(&p.st, SPEC ".affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey"));
    CHECK(cause_at(&p.st, REQ "[0].matchExpressions[0].values"));
    CHECK(cause_at(&p.st, REQ "[0].matchExpressions[1].operator"));
    CHECK(cause_at(&p.st, PREF "[0].weight"));
    CHECK(cause_at(&p.st, SPEC ".tolerations[0].value"));
    parsed_free(&p);
}

static void json_input_has_no_positions(void)
{
    struct parsed p;
    memset(&p, 0, sizeof p);
    const char *json = "{\"tolerations\": [{\"key\": \"a\", \"operator\": \"Sometimes\"}]}";
    REQUIRE(intake_parse(json, strlen(json), INTAKE_JSON, &p.in, &p.st) == 0);
    struct fields f = {&p.in.docs[0], &p.st};
    CHECK(!constraints_parse(&f, p.in.docs[0].root, SPEC, &p.c));
    REQUIRE(p.st.ncauses == 1);
    CHECK_INT(p.st.causes[0].line, 0);
    parsed_free(&p);
}

static void equal_constraints_give_equal_signatures(void)
{
    /* map order, value order, expression order, term order, toleration order, default operator */
    check_same_signature("nodeSelector: {a: \"1\", b: \"2\"}\n", "nodeSelector: {b: \"2\", a: \"1\"}\n", true);
    check_same_signature(
        "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
        "[{matchExpressions: [{key: z, operator: In, values: [a, b]}, {key: w, operator: Exists}]}, "
        "{matchFields: [{key: metadata.name, operator: In, values: [n1]}]}]}}}\n",
        "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
        "[{matchFields: [{key: metadata.name, operator: In, values: [n1]}]}, "
        "{matchExpressions: [{key: w, operator: Exists}, {key: z, operator: In, values: [b, a]}]}]}}}\n",
        true);
    check_same_signature("tolerations: [{key: a, value: x, effect: NoSchedule}, {operator: Exists}]\n",
                         "tolerations: [{operator: Exists}, {key: a, operator: Equal, value: x, effect: NoSchedule}]\n",
                         true);
    /* tolerationSeconds only matters for eviction, which placement does not decide */
    check_same_signature("tolerations: [{key: a, operator: Exists, effect: NoExecute, tolerationSeconds: 5}]\n",
                         "tolerations: [{key: a, operator: Exists, effect: NoExecute}]\n", true);
    /* preferred terms only score: they stay out of the signature */
    check_same_signature("nodeSelector: {a: b}\n",
                         "nodeSelector: {a: b}\n"
                         "affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: "
                         "[{weight: 7, preference: {matchExpressions: [{key: r, operator: Exists}]}}]}}\n",
                         true);
    char *only_preferred = signature_of(
        "affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: "
        "[{weight: 7, preference: {matchExpressions: [{key: r, operator: Exists}]}}]}}\n");
    CHECK_STR(only_preferred, "");
    free(only_preferred);
    char *a = signature_of(full), *b = signature_of(full);
    CHECK_STR(a, b);
    free(a);
    free(b);
}

static void different_constraints_give_different_signatures(void)
{
    check_same_signature("nodeSelector: {a: \"1\"}\n", "nodeSelector: {a: \"2\"}\n", false);
    check_same_signature("nodeSelector: {a: \"1\"}\n", "nodeSelector: {a: \"1\", b: \"1\"}\n", false);
    check_same_signature("nodeSelector: {a: \"1\"}\n", "containers: []\n", false);
    check_same_signature("tolerations: [{key: a, operator: Exists}]\n",
                         "tolerations: [{key: a, operator: Exists, effect: NoSchedule}]\n", false);
    check_same_signature("tolerations: [{key: a, value: one}]\n", "tolerations: [{key: a, value: two}]\n", false);
    check_same_signature(
        "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
        "[{matchExpressions: [{key: z, operator: In, values: [a]}]}]}}}\n",
        "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
        "[{matchExpressions: [{key: z, operator: NotIn, values: [a]}]}]}}}\n",
        false);
    /* two requirements in one term (AND) are not two terms (OR) */
    check_same_signature(
        "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
        "[{matchExpressions: [{key: a, operator: Exists}, {key: b, operator: Exists}]}]}}}\n",
        "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
        "[{matchExpressions: [{key: a, operator: Exists}]}, "
        "{matchExpressions: [{key: b, operator: Exists}]}]}}}\n",
        false);
    /* a label key and a node name are different things even when spelled the same */
    check_same_signature(
        "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
        "[{matchFields: [{key: metadata.name, operator: In, values: [n1]}]}]}}}\n",
        "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
        "[{matchExpressions: [{key: metadata.name, operator: In, values: [n1]}]}]}}}\n",
        false);
    /* text that looks like the signature's own structure cannot forge an equal one */
    check_same_signature(
        "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
        "[{matchExpressions: [{key: z, operator: In, values: [a, b]}]}]}}}\n",
        "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
        "[{matchExpressions: [{key: z, operator: In, values: [\"a1:b\"]}]}]}}}\n",
        false);
}

TEST_MAIN(TEST_CASE(reads_every_part), TEST_CASE(nothing_asked_gives_empty_signature),
          TEST_CASE(unsupported_operator_names_the_supported_ones), TEST_CASE(error_carries_the_yaml_line),
          TEST_CASE(values_must_suit_the_operator), TEST_CASE(requirement_needs_key_and_operator),
          TEST_CASE(match_fields_take_only_metadata_name_in_or_not_in), TEST_CASE(required_terms_must_ask_something),
          TEST_CASE(preferred_terms_need_weight_and_preference), TEST_CASE(pod_affinity_and_spread_are_read),
          TEST_CASE(pod_affinity_and_spread_are_validated), TEST_CASE(node_selector_is_validated_as_labels),
          TEST_CASE(tolerations_are_validated_as_kubernetes_does), TEST_CASE(every_error_is_reported_at_once),
          TEST_CASE(json_input_has_no_positions), TEST_CASE(equal_constraints_give_equal_signatures),
          TEST_CASE(different_constraints_give_different_signatures))
