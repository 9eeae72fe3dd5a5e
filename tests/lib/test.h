/* The test harness: named cases, CHECK macros that record a failure and go on, and a main that
 * prints "ok - name" / "not ok - name" per case for tests/run-tests to count. */
#ifndef CALDERA_TEST_H
#define CALDERA_TEST_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct test_case {
    const char *name;
    void (*fn)(void);
};

/* Failure count of the running case; CHECK macros bump it. */
extern int test_failed_checks;

void test_fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Marks the running case skipped: it prints "ok - name # SKIP reason". Use SKIP_IF to return too. */
void test_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Whether program is on PATH (`command -v`): a case needing it skips otherwise. */
bool test_program_installed(const char *program);
/* Runs the cases (all, or those named on the command line); returns the process exit code. */
int test_run(const struct test_case *cases, int ncases, int argc, char **argv);

#define CHECK(cond)                                                   \
    do {                                                              \
        if (!(cond))                                                  \
            test_fail(__FILE__, __LINE__, "CHECK(%s) failed", #cond); \
    } while (0)

#define CHECK_INT(a, b)                                                                       \
    do {                                                                                      \
        long long a_ = (long long)(a), b_ = (long long)(b);                                   \
        if (a_ != b_)                                                                         \
            test_fail(__FILE__, __LINE__, "%s == %lld, expected %s == %lld", #a, a_, #b, b_); \
    } while (0)

#define CHECK_STR(a, b)                                                                            \
    do {                                                                                           \
        const char *a_ = (a), *b_ = (b);                                                           \
        if (!a_ || !b_ || strcmp(a_, b_) != 0)                                                     \
            test_fail(__FILE__, __LINE__, "%s == \"%s\", expected \"%s\"", #a, a_ ? a_ : "(null)", \
                      b_ ? b_ : "(null)");                                                         \
    } while (0)

/* Checks that haystack contains needle. */
#define CHECK_CONTAINS(haystack, needle)                                                                              \
    do {                                                                                                              \
        const char *h_ = (haystack), *n_ = (needle);                                                                  \
        if (!h_ || !strstr(h_, n_))                                                                                   \
            test_fail(__FILE__, __LINE__, "%s == \"%s\" does not contain \"%s\"", #haystack, h_ ? h_ : "(null)", n_); \
    } while (0)

/* Stops the running case when cond is false (for preconditions later checks depend on). */
#define REQUIRE(cond)                                                   \
    do {                                                                \
        if (!(cond)) {                                                  \
            test_fail(__FILE__, __LINE__, "REQUIRE(%s) failed", #cond); \
            return;                                                     \
        }                                                               \
    } while (0)

/* Skips the running case when cond holds (a machine without what it needs), saying why. */
#define SKIP_IF(cond, ...)          \
    do {                            \
        if (cond) {                 \
            test_skip(__VA_ARGS__); \
            return;                 \
        }                           \
    } while (0)

#define TEST_MAIN(...)                                                                \
    int main(int argc, char **argv)                                                   \
    {                                                                                 \
        static const struct test_case cases_[] = {__VA_ARGS__};                       \
        return test_run(cases_, (int)(sizeof cases_ / sizeof cases_[0]), argc, argv); \
    }

#define TEST_CASE(fn) \
    {                 \
#fn, fn       \
    }

#endif
