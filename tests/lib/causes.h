/* Checking a Status's field causes in unit tests: the cause on a field, its reason, position and
 * words. Header-only: the adapters' tests share it. */
#ifndef CALDERA_TEST_CAUSES_H
#define CALDERA_TEST_CAUSES_H

#include <string.h>

#include "common/api_status.h"
#include "tests/lib/test.h"

/* The cause on field, or NULL. */
static inline const struct api_cause *cause_on(const struct api_status *st, const char *field)
{
    for (int i = 0; i < st->ncauses && i < API_MAX_CAUSES; i++)
        if (strcmp(st->causes[i].field, field) == 0)
            return &st->causes[i];
    return NULL;
}

/* The message of the cause on field, or NULL. */
static inline const char *cause_message(const struct api_status *st, const char *field)
{
    const struct api_cause *c = cause_on(st, field);
    return c ? c->message : NULL;
}

/* A cause on field with this reason, at this line (and column, unless column_ is 0), with text in
 * its message. */
#define CHECK_CAUSE_AT(st, field, reason_, line_, column_, text)                             \
    do {                                                                                     \
        const struct api_cause *c_ = cause_on(st, field);                                    \
        if (!c_) {                                                                           \
            test_fail(__FILE__, __LINE__, "no cause on %s in \"%s\"", field, (st)->message); \
            break;                                                                           \
        }                                                                                    \
        CHECK_STR(c_->reason, reason_);                                                      \
        CHECK_INT(c_->line, line_);                                                          \
        if ((column_) != 0)                                                                  \
            CHECK_INT(c_->column, column_);                                                  \
        CHECK_CONTAINS(c_->message, text);                                                   \
    } while (0)
#define CHECK_CAUSE(st, field, reason_, line_, text) CHECK_CAUSE_AT(st, field, reason_, line_, 0, text)

#endif
