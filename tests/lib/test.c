/* The test harness: runs named cases in order, prints one TAP-like line per case and the
 * failed checks under it. A case passes when none of its checks failed. */
#include "tests/lib/test.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int test_failed_checks;
static char skip_reason[256];

void test_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stdout, "#   %s:%d: ", file, line);
    vfprintf(stdout, fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
    fflush(stdout);
    test_failed_checks++;
}

void test_skip(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(skip_reason, sizeof skip_reason, fmt, ap);
    va_end(ap);
}

static bool selected(const char *name, int argc, char **argv)
{
    if (argc <= 1)
        return true;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return true;
    return false;
}

int test_run(const struct test_case *cases, int ncases, int argc, char **argv)
{
    int failed = 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (int i = 0; i < ncases; i++) {
        if (!selected(cases[i].name, argc, argv))
            continue;
        test_failed_checks = 0;
        skip_reason[0] = '\0';
        cases[i].fn();
        if (skip_reason[0] && !test_failed_checks)
            printf("ok - %s # SKIP %s\n", cases[i].name, skip_reason);
        else
            printf("%s - %s\n", test_failed_checks ? "not ok" : "ok", cases[i].name);
        if (test_failed_checks)
            failed++;
    }
    return failed ? 1 : 0;
}

bool test_program_installed(const char *program)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "command -v '%s' >/dev/null 2>&1", program);
    return system(cmd) == 0;
}
