/* Kubernetes label and field selectors, parsed once per request and matched against rendered objects:
 * labels `k=v`, `k==v`, `k!=v`, `k`, `!k`, `k in (a,b)`, `k notin (a,b)`; fields `path=v`, `path==v`,
 * `path!=v` on a dotted path into the object (`status.phase`, `involvedObject.name`). */
#ifndef CALDERA_SELECTOR_H
#define CALDERA_SELECTOR_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define SELECTOR_MAX_TERMS 16
#define SELECTOR_MAX_VALUES 16

enum selector_match { MATCH_EQ, MATCH_NE, MATCH_EXISTS, MATCH_NOT_EXISTS, MATCH_IN, MATCH_NOT_IN };

struct selector_term {
    enum selector_match op;
    char *key; /* a label key, or a field's dotted path */
    int nvalues;
    char *values[SELECTOR_MAX_VALUES]; /* one for = and !=, the set for in/notin */
};

struct selector {
    int nterms;
    struct selector_term terms[SELECTOR_MAX_TERMS];
    char *buf; /* owns every string above */
};

/* Parses a labelSelector (is_field false) or fieldSelector (true); NULL or "" selects everything.
 * Returns 0, or -1 with a sentence naming the term in why. */
int selector_parse(const char *text, bool is_field, struct selector *out, char *why, size_t whylen);
void selector_free(struct selector *s);
bool selector_empty(const struct selector *s);

/* Whether a labels object (metadata.labels; NULL when none) satisfies the selector. */
bool selector_match_labels(const struct selector *s, const json_t *labels);
/* Whether an object satisfies a field selector. kind names the object's kind so paths Kubernetes users
 * write for another shape still work (a Volcano Job's phase is status.state.phase; status.phase is
 * taken as it). Absent fields compare as "". */
bool selector_match_fields(const struct selector *s, const char *kind, const json_t *object);
/* Both, on a rendered object. */
bool selector_match_object(const struct selector *labels, const struct selector *fields, const char *kind,
                           const json_t *object);

/* The selectors' terms the core applies itself, so a list page or a watch's list holds what was
 * asked for: labels' key=value (selector_key/value) and the fields' metadata.name= (name_eq). creq
 * points into the selectors, which must outlive it. */
struct core_request;
void gateway_narrow_list(struct core_request *creq, const struct selector *labels, const struct selector *fields);

#endif
