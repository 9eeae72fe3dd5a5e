/* The README's conformance table kept true: every row names test files that exist and cases they
 * hold, and, against a fresh server, each served row's probes are answered and each unserved row's
 * are refused (the router's 404, a 405, or the refusal it documents). A row pending another branch
 * (ConfigMaps, Secrets) is skipped, saying so, while the server does not serve it. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fs.h"
#include "tests/lib/conformance_probe.h"
#include "tests/lib/conformance_table.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define README "README.md"
#define HEADING "## Kubernetes and Volcano conformance"
#define MIN_ROWS 40 /* the table as written has more: fewer means rows went missing */
#define TEST_FILE_MAX (4 << 20)

static struct test_server server;
static struct conf_table table;
static bool table_read;

static const struct conf_table *readme_table(void)
{
    static bool tried;
    if (!tried) {
        tried = true;
        char *text = NULL, why[512];
        if (read_file(README, 1 << 22, &text, NULL) != 0)
            test_fail(__FILE__, __LINE__, "cannot read %s (run from the repository's top)", README);
        else if (conf_table_read(text, HEADING, &table, why, sizeof why) != 0)
            test_fail(__FILE__, __LINE__, "%s: %s", README, why);
        else
            table_read = true;
        free(text);
    }
    return table_read ? &table : NULL;
}

static struct test_server *started(void)
{
    static bool tried;
    if (!tried) {
        tried = true;
        if (server_start(&server, NULL, NULL) != 0)
            server.pid = 0;
    }
    return server.pid ? &server : NULL;
}

/* Whether name occurs in text as a whole word (not part of a longer identifier). */
static bool has_word(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = text; (p = strstr(p, name)); p += n) {
        bool before = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
        bool after = !(isalnum((unsigned char)p[n]) || p[n] == '_');
        if (before && after)
            return true;
    }
    return false;
}

/* Whether each test row names exists under tests/unit, tests/integration or tests/e2e and holds each
 * case named. Returns 0, or -1 with why. */
static int tests_exist(const struct conf_row *row, char *why, size_t why_len)
{
    for (int i = 0; i < row->ntests; i++) {
        const struct conf_test *t = &row->tests[i];
        if (strncmp(t->file, "tests/unit/", 11) != 0 && strncmp(t->file, "tests/integration/", 18) != 0 &&
            strncmp(t->file, "tests/e2e/", 10) != 0) {
            snprintf(why, why_len, "README.md:%d \"%s\": %s is not under tests/unit, tests/integration or tests/e2e",
                     row->line, row->feature, t->file);
            return -1;
        }
        char *text = NULL;
        if (read_file(t->file, TEST_FILE_MAX, &text, NULL) != 0) {
            snprintf(why, why_len, "README.md:%d \"%s\": %s cannot be read", row->line, row->feature, t->file);
            return -1;
        }
        for (int c = 0; c < t->ncases; c++) {
            if (!has_word(text, t->cases[c])) {
                snprintf(why, why_len, "README.md:%d \"%s\": %s has no case %s", row->line, row->feature, t->file,
                         t->cases[c]);
                free(text);
                return -1;
            }
        }
        free(text);
    }
    return 0;
}

static void the_table_is_read(void)
{
    const struct conf_table *t = readme_table();
    REQUIRE(t);
    CHECK(t->nrows >= MIN_ROWS);
    int counts[3] = {0};
    for (int i = 0; i < t->nrows; i++) {
        const struct conf_row *row = &t->rows[i];
        counts[row->served]++;
        /* a claim that something is missing is always put to the server */
        if (row->served == CONF_NO && row->nprobes == 0)
            test_fail(__FILE__, __LINE__, "README.md:%d \"%s\": a row not served needs a probe", row->line,
                      row->feature);
        for (int p = 0; p < row->nprobes; p++)
            if (row->probes[p].refused && row->served != CONF_PARTLY)
                test_fail(__FILE__, __LINE__, "README.md:%d \"%s\": refused: probes are for partly served rows",
                          row->line, row->feature);
        if (row->pending[0] && row->served == CONF_NO)
            test_fail(__FILE__, __LINE__, "README.md:%d \"%s\": pending is for rows to be served", row->line,
                      row->feature);
    }
    printf("# %d rows: %d served, %d partly, %d not served\n", t->nrows, counts[CONF_YES], counts[CONF_PARTLY],
           counts[CONF_NO]);
    CHECK(counts[CONF_YES] > 0 && counts[CONF_NO] > 0);
}

static void every_row_names_a_test_that_exists(void)
{
    const struct conf_table *t = readme_table();
    REQUIRE(t);
    for (int i = 0; i < t->nrows; i++) {
        char why[512];
        if (tests_exist(&t->rows[i], why, sizeof why) != 0)
            test_fail(__FILE__, __LINE__, "%s", why);
    }
}

/* Checks the rows served (yes, partly) or not, pending rows apart; returns how many probes were sent. */
static int check_rows(bool served)
{
    const struct conf_table *t = readme_table();
    struct test_server *s = started();
    if (!t || !s) {
        test_fail(__FILE__, __LINE__, "no table or no server");
        return 0;
    }
    int probes = 0;
    for (int i = 0; i < t->nrows; i++) {
        const struct conf_row *row = &t->rows[i];
        if (row->pending[0] || (row->served != CONF_NO) != served)
            continue;
        bool skipped;
        char why[1024];
        if (conf_row_check(s->url, row, &skipped, why, sizeof why) != 0)
            test_fail(__FILE__, __LINE__, "%s", why);
        probes += row->nprobes;
    }
    return probes;
}

static void served_rows_answer(void)
{
    int probes = check_rows(true);
    printf("# %d probes of served rows\n", probes);
    CHECK(probes > 0);
}

static void unserved_rows_are_refused(void)
{
    int probes = check_rows(false);
    printf("# %d probes of rows not served\n", probes);
    CHECK(probes > 0);
}

/* ConfigMaps and Secrets come with branch h-cm: skipped (and said) while this build lacks them. */
static void pending_rows_are_served_or_skipped(void)
{
    const struct conf_table *t = readme_table();
    struct test_server *s = started();
    REQUIRE(t && s);
    char skipped_rows[512] = "";
    int pending = 0;
    for (int i = 0; i < t->nrows; i++) {
        const struct conf_row *row = &t->rows[i];
        if (!row->pending[0])
            continue;
        pending++;
        bool skipped;
        char why[1024];
        if (conf_row_check(s->url, row, &skipped, why, sizeof why) != 0)
            test_fail(__FILE__, __LINE__, "%s", why);
        else if (skipped) {
            size_t used = strlen(skipped_rows);
            snprintf(skipped_rows + used, sizeof skipped_rows - used, "%s%s (branch %s)", used ? ", " : "",
                     row->feature, row->pending);
        }
    }
    SKIP_IF(skipped_rows[0], "not served by this build (the router's 404), pending: %s", skipped_rows);
    printf("# %d pending rows, all served\n", pending);
}

/* The checks can fail: a table claiming what the server does not do is caught, row by row. */
static void a_false_claim_fails(void)
{
    static const char *const text =
        "intro\n\n" HEADING
        "\n\nwords\n\n"
        "| Feature | Served | How / why not | Test |\n"
        "| --- | --- | --- | --- |\n"
        "| deployments | yes | claimed | `tests/integration/test_conformance.c` "
        "<!-- probe: GET /apis/apps/v1/namespaces/default/deployments --> |\n"
        "| version | no | claimed missing | `tests/integration/test_conformance.c` <!-- probe: GET /version --> |\n"
        "| a handler's 404 | yes | the router's is not one | `tests/integration/test_conformance.c` "
        "<!-- probe: GET /apis/apps/v1/namespaces/default/deployments/x => 404 --> |\n"
        "| partly | partly | its refused part is served | `tests/integration/test_conformance.c` "
        "<!-- probe: GET /version --> <!-- refused: GET /api/v1/nodes --> |\n"
        "| wrong code | yes | answers 200, not 201 | `tests/integration/test_conformance.c` "
        "<!-- probe: GET /version => 201 --> |\n"
        "| pending and served | yes | checked as served | `tests/integration/test_conformance.c` "
        "<!-- pending: h-x --> <!-- probe: GET /version --> <!-- probe: GET /apis/apps/v1/deployments --> |\n"
        "| no file | yes | named file missing | `tests/integration/test_nothing_here.c` <!-- probe: GET /version --> "
        "|\n"
        "| no case | yes | named case missing | `tests/unit/test_job_plugins.c` `no_such_case_anywhere` |\n"
        "| true | yes | holds | `tests/integration/test_conformance.c` `a_false_claim_fails` "
        "<!-- probe: GET /version --> |\n"
        "\nafter\n";
    struct conf_table t;
    char why[1024];
    REQUIRE(conf_table_read(text, HEADING, &t, why, sizeof why) == 0);
    struct test_server *s = started();
    REQUIRE(s);
    REQUIRE(t.nrows == 9);
    for (int i = 0; i < 6; i++) {
        bool skipped;
        CHECK(conf_row_check(s->url, &t.rows[i], &skipped, why, sizeof why) == -1);
        CHECK(!skipped);
        printf("# caught: %s\n", why);
    }
    CHECK(tests_exist(&t.rows[6], why, sizeof why) == -1);
    CHECK_CONTAINS(why, "test_nothing_here.c cannot be read");
    CHECK(tests_exist(&t.rows[7], why, sizeof why) == -1);
    CHECK_CONTAINS(why, "has no case no_such_case_anywhere");
    bool skipped;
    CHECK(tests_exist(&t.rows[8], why, sizeof why) == 0);
    CHECK(conf_row_check(s->url, &t.rows[8], &skipped, why, sizeof why) == 0);
    conf_table_free(&t);

    /* and a table that cannot be read exactly is refused, naming the line */
    static const char *const bad[][2] = {
        {"| x | maybe | y | `tests/unit/a.c` |", "Served is yes, partly or no"},
        {"| x | yes | y | `tests/unit/a.c` <!-- probe: FETCH /x --> |", "a probe starts with GET"},
        {"| x | yes | y | `tests/unit/a.c` <!-- probe: GET /x => ok --> |", "=> CODE"},
        {"| x | yes | y | `tests/unit/a.c` <!-- probes: GET /x --> |", "is not probe:, refused: or pending:"},
        {"| x | yes | | `tests/unit/a.c` |", "the How / why not cell is empty"},
        {"| x | yes | y | no test |", "names no test file"},
        {"| x | yes | y |", "a row has 4 cells, not 3"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char md[512];
        snprintf(md, sizeof md, "%s\n| Feature | Served | How / why not | Test |\n| --- | --- | --- | --- |\n%s\n",
                 HEADING, bad[i][0]);
        CHECK(conf_table_read(md, HEADING, &t, why, sizeof why) == -1);
        CHECK_CONTAINS(why, bad[i][1]);
        CHECK_CONTAINS(why, "line 4: ");
    }
    CHECK(conf_table_read("# Other\n", HEADING, &t, why, sizeof why) == -1);
    CHECK_CONTAINS(why, "no line");
}

static void stop_server(void)
{
    if (server.pid)
        server_stop(&server);
    server_cleanup(&server);
    conf_table_free(&table);
}

TEST_MAIN(TEST_CASE(the_table_is_read), TEST_CASE(every_row_names_a_test_that_exists), TEST_CASE(served_rows_answer),
          TEST_CASE(unserved_rows_are_refused), TEST_CASE(pending_rows_are_served_or_skipped),
          TEST_CASE(a_false_claim_fails), TEST_CASE(stop_server))
