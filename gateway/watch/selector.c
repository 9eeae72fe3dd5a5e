/* Label and field selectors: a hand-sized parser of Kubernetes' selector grammar (terms separated by
 * commas outside parentheses), matching against Jansson trees, and the terms the core applies itself. */
#include "gateway/watch/selector.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/core/core.h"

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* Splits buf in place at commas that are not inside parentheses; returns how many terms, or -1. */
static int split_terms(char *buf, char **terms, int max)
{
    int n = 0, depth = 0;
    char *start = buf;
    for (char *p = buf;; p++) {
        if (*p == '(')
            depth++;
        else if (*p == ')')
            depth--;
        if ((*p == ',' && depth == 0) || *p == '\0') {
            bool end = *p == '\0';
            *p = '\0';
            if (n == max)
                return -1;
            terms[n++] = start;
            if (end)
                break;
            start = p + 1;
        }
    }
    return depth == 0 ? n : -1;
}

/* "(a, b)" into values; false when it is not a parenthesized list. */
static bool parse_set(char *text, struct selector_term *t)
{
    text = trim(text);
    size_t n = strlen(text);
    if (n < 2 || text[0] != '(' || text[n - 1] != ')')
        return false;
    text[n - 1] = '\0';
    for (char *save = NULL, *v = strtok_r(text + 1, ",", &save); v; v = strtok_r(NULL, ",", &save)) {
        if (t->nvalues == SELECTOR_MAX_VALUES)
            return false;
        t->values[t->nvalues++] = trim(v);
    }
    return t->nvalues > 0;
}

/* " in " or " notin " as a word inside the term: the key before, the set after. */
static bool parse_set_term(char *term, struct selector_term *t)
{
    static const struct {
        const char *word;
        enum selector_match op;
    } words[] = {{" notin ", MATCH_NOT_IN}, {" in ", MATCH_IN}};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        char *at = strstr(term, words[i].word);
        if (!at)
            continue;
        *at = '\0';
        t->op = words[i].op;
        t->key = trim(term);
        return *t->key && parse_set(at + strlen(words[i].word), t);
    }
    return false;
}

static bool parse_term(char *term, bool is_field, struct selector_term *t)
{
    term = trim(term);
    char *eq;
    if ((eq = strstr(term, "!=")) != NULL) {
        t->op = MATCH_NE;
        *eq = '\0';
        t->values[0] = trim(eq + 2);
    } else if ((eq = strchr(term, '=')) != NULL) {
        t->op = MATCH_EQ;
        *eq = '\0';
        t->values[0] = trim(eq[1] == '=' ? eq + 2 : eq + 1);
    } else if (is_field) {
        return false;
    } else if (strstr(term, " in ") || strstr(term, " notin ")) {
        return parse_set_term(term, t);
    } else if (term[0] == '!') {
        t->op = MATCH_NOT_EXISTS;
        t->key = trim(term + 1);
        return *t->key && !strpbrk(t->key, " ()");
    } else {
        t->op = MATCH_EXISTS;
        t->key = term;
        return *t->key && !strpbrk(t->key, " ()");
    }
    t->nvalues = 1;
    t->key = trim(term);
    return *t->key && !strpbrk(t->key, " ()!") && !strpbrk(t->values[0], "(),=!");
}

int selector_parse(const char *text, bool is_field, struct selector *out, char *why, size_t whylen)
{
    memset(out, 0, sizeof *out);
    if (!text || !*text)
        return 0;
    out->buf = strdup(text);
    if (!out->buf) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    char *terms[SELECTOR_MAX_TERMS];
    int n = split_terms(out->buf, terms, SELECTOR_MAX_TERMS);
    const char *name = is_field ? "fieldSelector" : "labelSelector";
    if (n < 0) {
        snprintf(why, whylen, "%s \"%s\": unbalanced parentheses, or more than %d terms", name, text,
                 SELECTOR_MAX_TERMS);
        selector_free(out);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        char shown[256];
        snprintf(shown, sizeof shown, "%s", terms[i]);
        if (!parse_term(terms[i], is_field, &out->terms[i])) {
            snprintf(why, whylen, "%s: unable to parse requirement \"%s\": %s", name, trim(shown),
                     is_field ? "a field selector term is path=value, path==value or path!=value"
                              : "a label selector term is key=value, key!=value, key, !key, key in (a,b) or "
                                "key notin (a,b)");
            selector_free(out);
            return -1;
        }
    }
    out->nterms = n;
    return 0;
}

void selector_free(struct selector *s)
{
    free(s->buf);
    memset(s, 0, sizeof *s);
}

bool selector_empty(const struct selector *s) { return s->nterms == 0; }

static bool in_values(const struct selector_term *t, const char *v)
{
    for (int i = 0; i < t->nvalues; i++)
        if (strcmp(t->values[i], v) == 0)
            return true;
    return false;
}

/* One term against a value (NULL: absent). */
static bool term_holds(const struct selector_term *t, const char *v)
{
    switch (t->op) {
    case MATCH_EQ: return v && strcmp(v, t->values[0]) == 0;
    case MATCH_NE: return !v || strcmp(v, t->values[0]) != 0;
    case MATCH_EXISTS: return v != NULL;
    case MATCH_NOT_EXISTS: return v == NULL;
    case MATCH_IN: return v && in_values(t, v);
    case MATCH_NOT_IN: return !v || !in_values(t, v);
    }
    return false;
}

bool selector_match_labels(const struct selector *s, const json_t *labels)
{
    for (int i = 0; i < s->nterms; i++) {
        const json_t *v = json_object_get(labels, s->terms[i].key);
        if (!term_holds(&s->terms[i], json_is_string(v) ? json_string_value(v) : NULL))
            return false;
    }
    return true;
}

static const json_t *at_path(const json_t *o, const char *path)
{
    char key[256];
    while (o && *path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        if (n >= sizeof key)
            return NULL;
        memcpy(key, path, n);
        key[n] = '\0';
        o = json_object_get(o, key);
        path += dot ? n + 1 : n;
    }
    return o;
}

/* A field's value as text ("" when absent), in buf when it is not a string. */
static const char *field_text(const json_t *v, char *buf, size_t len)
{
    if (json_is_string(v))
        return json_string_value(v);
    if (json_is_integer(v))
        snprintf(buf, len, "%lld", (long long)json_integer_value(v));
    else if (json_is_boolean(v))
        snprintf(buf, len, "%s", json_is_true(v) ? "true" : "false");
    else
        buf[0] = '\0';
    return buf;
}

bool selector_match_fields(const struct selector *s, const char *kind, const json_t *object)
{
    for (int i = 0; i < s->nterms; i++) {
        const char *path = s->terms[i].key;
        if (kind && strcmp(kind, "Job") == 0 && strcmp(path, "status.phase") == 0)
            path = "status.state.phase";
        char buf[32];
        if (!term_holds(&s->terms[i], field_text(at_path(object, path), buf, sizeof buf)))
            return false;
    }
    return true;
}

bool selector_match_object(const struct selector *labels, const struct selector *fields, const char *kind,
                           const json_t *object)
{
    if (labels && labels->nterms &&
        !selector_match_labels(labels, json_object_get(json_object_get(object, "metadata"), "labels")))
        return false;
    return !fields || !fields->nterms || selector_match_fields(fields, kind, object);
}

void gateway_narrow_list(struct core_request *creq, const struct selector *labels, const struct selector *fields)
{
    creq->name_eq = NULL;
    for (int i = 0; i < fields->nterms; i++)
        if (fields->terms[i].op == MATCH_EQ && strcmp(fields->terms[i].key, "metadata.name") == 0)
            creq->name_eq = fields->terms[i].values[0];
    creq->nselectors = 0;
    for (int i = 0; i < labels->nterms && creq->nselectors < CORE_MAX_SELECTORS; i++) {
        if (labels->terms[i].op != MATCH_EQ)
            continue;
        creq->selector_key[creq->nselectors] = labels->terms[i].key;
        creq->selector_value[creq->nselectors++] = labels->terms[i].values[0];
    }
}
