/* The README's conformance table read as data: each row's feature, whether Caldera serves it, the
 * tests it names and its probes (hidden comments), for tests/integration/test_conformance. */
#ifndef CALDERA_TEST_CONFORMANCE_TABLE_H
#define CALDERA_TEST_CONFORMANCE_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#define CONF_MAX_PROBES 12
#define CONF_MAX_TESTS 4
#define CONF_MAX_CASES 8

enum conf_served { CONF_YES, CONF_PARTLY, CONF_NO };

/* `<!-- probe: METHOD PATH [accept=MEDIA] [type=MEDIA] [body=TEXT] [=> CODE] -->`, or `refused:` for
 * the part a partly served row lacks. No option holds a space. */
struct conf_probe {
    char method[8];
    char path[512];
    char accept[160]; /* "" : no Accept header */
    char type[96];    /* the Content-Type; "" : none */
    char body[512];   /* "" : no body */
    int expect;       /* the code the answer must have; 0: any the row's claim allows */
    bool refused;     /* a refused: probe */
};

/* A test file (`tests/...`) and the cases of it the row names. */
struct conf_test {
    char file[160];
    char cases[CONF_MAX_CASES][96];
    int ncases;
};

struct conf_row {
    int line; /* in the Markdown text, from 1 */
    char feature[256];
    enum conf_served served;
    char pending[64]; /* `<!-- pending: BRANCH -->`: served once BRANCH is merged; "" when not */
    struct conf_test tests[CONF_MAX_TESTS];
    int ntests;
    struct conf_probe probes[CONF_MAX_PROBES];
    int nprobes;
};

struct conf_table {
    struct conf_row *rows;
    int nrows;
};

/* Reads the first table after the line `heading` (e.g. "## Kubernetes and Volcano conformance") in
 * markdown: a header Feature | Served | How / why not | Test, a separator, then rows up to the first
 * line not starting with '|'. Served is yes, partly or no; the third cell must say something; the
 * Test cell's backquoted words are test files (starting "tests/") each followed by case names.
 * Returns 0, or -1 with why naming the line (nothing to free then). */
int conf_table_read(const char *markdown, const char *heading, struct conf_table *t, char *why, size_t why_len);
void conf_table_free(struct conf_table *t);
/* "yes", "partly", "no". */
const char *conf_served_name(enum conf_served s);

#endif
