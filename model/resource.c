/* Resource vectors and the process-wide table of resource names.
 * cpu counts millicores; everything else whole units, and only cpu and memory-like resources may be fractional. */
#include "model/resource.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "model/quantity.h"

static char names[RES_MAX][RES_NAME_MAX] = {"cpu", "memory", "pods", "nvidia.com/gpu", "ephemeral-storage"};
static int count = RES_FIRST_EXTENDED;

int resource_count(void) { return count; }

const char *resource_name(int index) { return index >= 0 && index < count ? names[index] : "?"; }

int resource_index(const char *name)
{
    for (int i = 0; i < count; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

/* Extended resource names are "domain/name" qualified names, as Kubernetes requires. */
static bool valid_extended_name(const char *name)
{
    const char *slash = strchr(name, '/');
    size_t len = strlen(name);
    if (!slash || slash == name || len >= RES_NAME_MAX || slash[1] == '\0')
        return false;
    for (const char *p = name; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("-._/", *p))
            return false;
    return true;
}

int resource_register(const char *name)
{
    int i = resource_index(name);
    if (i >= 0)
        return i;
    if (count >= RES_MAX || !valid_extended_name(name))
        return -1;
    snprintf(names[count], RES_NAME_MAX, "%s", name);
    return count++;
}

static int scale_of(int index) { return index == RES_CPU ? 3 : 0; }
static bool whole_units(int index) { return index == RES_PODS || index == RES_GPU || index >= RES_FIRST_EXTENDED; }

/* *wrote: whether *out was set (the text is a quantity, even one refused here). */
static int parse_uncached(int index, const char *text, int64_t *out, const char **why, bool *wrote)
{
    int err = quantity_parse(text, scale_of(index), out);
    *wrote = err == QTY_OK;
    if (err != QTY_OK) {
        *why = quantity_strerror(err);
        return -1;
    }
    if (*out < 0) {
        *why = "must be greater than or equal to 0";
        return -1;
    }
    if (whole_units(index)) {
        int64_t milli;
        if (quantity_parse(text, 3, &milli) == QTY_OK && milli % 1000 != 0) {
            *why = "must be a whole number";
            return -1;
        }
    }
    return 0;
}

/* The last quantities read on this thread, by resource and text: a big job's tasks repeat theirs
 * ("1", "1Gi"), and reading one costs a few hundred instructions. */
#define MEMO_SLOTS 16
#define MEMO_TEXT 24
struct parsed_quantity {
    bool used, has_value;
    int index;
    char text[MEMO_TEXT];
    int rc;
    int64_t value;
    const char *why; /* static text */
};
static _Thread_local struct parsed_quantity memo[MEMO_SLOTS];

int resource_parse(int index, const char *text, int64_t *out, const char **why)
{
    size_t len = strlen(text);
    bool wrote;
    if (len >= MEMO_TEXT)
        return parse_uncached(index, text, out, why, &wrote);
    unsigned char first = len ? (unsigned char)text[0] : 0, last = len ? (unsigned char)text[len - 1] : 0;
    struct parsed_quantity *m = &memo[(len * 31 + first + last * 7 + (size_t)index * 13) % MEMO_SLOTS];
    if (!m->used || m->index != index || memcmp(m->text, text, len + 1) != 0) {
        const char *reason = NULL;
        int64_t value = 0;
        *m = (struct parsed_quantity){.used = true, .index = index};
        memcpy(m->text, text, len + 1);
        m->rc = parse_uncached(index, text, &value, &reason, &wrote);
        m->has_value = wrote;
        m->value = value;
        m->why = reason;
    }
    if (m->has_value)
        *out = m->value;
    if (m->rc != 0)
        *why = m->why;
    return m->rc;
}

void resource_format(int index, int64_t value, char *buf, int len)
{
    bool binary = index == RES_MEMORY || index == RES_EPHEMERAL;
    if (quantity_format(value, scale_of(index), binary, buf, (size_t)len) < 0 && len > 0)
        buf[0] = '\0';
}

void resvec_add(struct resvec *a, const struct resvec *b)
{
    for (int i = 0; i < RES_MAX; i++)
        a->v[i] += b->v[i];
}

void resvec_sub(struct resvec *a, const struct resvec *b)
{
    for (int i = 0; i < RES_MAX; i++)
        a->v[i] -= b->v[i];
}

bool resvec_fits(const struct resvec *need, const struct resvec *have)
{
    for (int i = 0; i < RES_MAX; i++)
        if (need->v[i] > have->v[i])
            return false;
    return true;
}

int resvec_first_short(const struct resvec *need, const struct resvec *have)
{
    for (int i = 0; i < RES_MAX; i++)
        if (need->v[i] > have->v[i])
            return i;
    return -1;
}

bool resvec_is_zero(const struct resvec *a)
{
    for (int i = 0; i < RES_MAX; i++)
        if (a->v[i] != 0)
            return false;
    return true;
}

bool resvec_best_effort(const struct resvec *a)
{
    for (int i = 0; i < RES_MAX; i++)
        if (i != RES_PODS && a->v[i] != 0)
            return false;
    return true;
}
