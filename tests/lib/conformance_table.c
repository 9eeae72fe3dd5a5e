/* Reads the README's conformance table: rows of Feature | Served | How / why not | Test, with each
 * row's hidden probe, refused and pending comments, refusing anything it cannot read exactly. */
#include "tests/lib/conformance_table.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_LEN 8192
#define MAX_CELLS 8

static const char *const header[] = {"Feature", "Served", "How / why not", "Test"};

static int fail(char *why, size_t why_len, int line, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int fail(char *why, size_t why_len, int line, const char *fmt, ...)
{
    int n = snprintf(why, why_len, "line %d: ", line);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < why_len)
        vsnprintf(why + n, why_len - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

const char *conf_served_name(enum conf_served s) { return s == CONF_YES ? "yes" : s == CONF_PARTLY ? "partly" : "no"; }

/* s with the spaces at both ends cut, in place. */
static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

/* Copies src into dst[len]; -1 when it does not fit. */
static int copy(char *dst, size_t len, const char *src)
{
    if (strlen(src) >= len)
        return -1;
    strcpy(dst, src);
    return 0;
}

static bool is_case_name(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return false;
    return true;
}

/* "METHOD PATH [accept=X] [type=X] [body=X] [=> CODE]" into p. */
static int parse_probe(char *text, struct conf_probe *p, int line, char *why, size_t why_len)
{
    static const char *const methods[] = {"GET", "POST", "PUT", "PATCH", "DELETE"};
    char *save = NULL, *tok = strtok_r(text, " ", &save);
    bool known = false;
    for (size_t i = 0; tok && i < sizeof methods / sizeof methods[0]; i++)
        known = known || strcmp(tok, methods[i]) == 0;
    if (!known)
        return fail(why, why_len, line, "a probe starts with GET, POST, PUT, PATCH or DELETE, not \"%s\"",
                    tok ? tok : "");
    strcpy(p->method, tok);
    tok = strtok_r(NULL, " ", &save);
    if (!tok || tok[0] != '/' || copy(p->path, sizeof p->path, tok) != 0)
        return fail(why, why_len, line, "a probe's method is followed by a path starting with '/'");
    while ((tok = strtok_r(NULL, " ", &save))) {
        int rc = 0;
        if (strncmp(tok, "accept=", 7) == 0)
            rc = copy(p->accept, sizeof p->accept, tok + 7);
        else if (strncmp(tok, "type=", 5) == 0)
            rc = copy(p->type, sizeof p->type, tok + 5);
        else if (strncmp(tok, "body=", 5) == 0)
            rc = copy(p->body, sizeof p->body, tok + 5);
        else if (strcmp(tok, "=>") == 0) {
            char *code = strtok_r(NULL, " ", &save), *end = NULL;
            long v = code ? strtol(code, &end, 10) : 0;
            if (!code || *end || v < 100 || v > 599 || strtok_r(NULL, " ", &save))
                return fail(why, why_len, line, "a probe ends with \"=> CODE\", an HTTP status");
            p->expect = (int)v;
            return 0;
        } else
            return fail(why, why_len, line, "a probe's \"%s\" is not accept=, type=, body= or => CODE", tok);
        if (rc != 0)
            return fail(why, why_len, line, "a probe's \"%.40s...\" is too long", tok);
    }
    return 0;
}

/* One hidden comment's text: "probe: ...", "refused: ..." or "pending: BRANCH". */
static int parse_comment(char *text, struct conf_row *row, char *why, size_t why_len)
{
    char *colon = strchr(text, ':');
    if (!colon)
        return fail(why, why_len, row->line, "a comment in the table says probe:, refused: or pending:");
    *colon = '\0';
    char *kind = trim(text), *rest = trim(colon + 1);
    if (strcmp(kind, "pending") == 0) {
        if (!*rest || copy(row->pending, sizeof row->pending, rest) != 0)
            return fail(why, why_len, row->line, "pending: names a branch");
        return 0;
    }
    if (strcmp(kind, "probe") != 0 && strcmp(kind, "refused") != 0)
        return fail(why, why_len, row->line, "\"%s:\" is not probe:, refused: or pending:", kind);
    if (row->nprobes == CONF_MAX_PROBES)
        return fail(why, why_len, row->line, "more than %d probes", CONF_MAX_PROBES);
    struct conf_probe *p = &row->probes[row->nprobes++];
    memset(p, 0, sizeof *p);
    p->refused = strcmp(kind, "refused") == 0;
    return parse_probe(rest, p, row->line, why, why_len);
}

/* Cuts every "<!-- ... -->" out of line (blanked in place), reading each into row. */
static int take_comments(char *line, struct conf_row *row, char *why, size_t why_len)
{
    char *open;
    while ((open = strstr(line, "<!--"))) {
        char *close = strstr(open + 4, "-->");
        if (!close)
            return fail(why, why_len, row->line, "a comment is not closed on its line");
        char text[LINE_MAX_LEN];
        size_t n = (size_t)(close - (open + 4));
        memcpy(text, open + 4, n);
        text[n] = '\0';
        memset(open, ' ', (size_t)(close + 3 - open));
        if (parse_comment(trim(text), row, why, why_len) != 0)
            return -1;
    }
    return 0;
}

/* Splits "| a | b |" at the bars outside backquotes: cells[] point into line. Returns their number. */
static int split_cells(char *line, char *cells[MAX_CELLS])
{
    char *s = trim(line);
    if (*s != '|')
        return 0;
    s++;
    int n = 0;
    bool quoted = false;
    char *start = s;
    for (; *s; s++) {
        if (*s == '`')
            quoted = !quoted;
        else if (*s == '|' && !quoted) {
            *s = '\0';
            if (n == MAX_CELLS)
                return MAX_CELLS + 1;
            cells[n++] = trim(start);
            start = s + 1;
        }
    }
    return *trim(start) ? MAX_CELLS + 1 : n; /* text after the last bar: not a row */
}

/* The backquoted words of the Test cell: files starting "tests/", each followed by its cases. */
static int parse_tests(char *cell, struct conf_row *row, char *why, size_t why_len)
{
    char *s = cell;
    while ((s = strchr(s, '`'))) {
        char *end = strchr(s + 1, '`');
        if (!end)
            return fail(why, why_len, row->line, "a backquote is not closed in the Test cell");
        *end = '\0';
        const char *word = s + 1;
        if (strncmp(word, "tests/", 6) == 0) {
            if (row->ntests == CONF_MAX_TESTS)
                return fail(why, why_len, row->line, "more than %d test files", CONF_MAX_TESTS);
            struct conf_test *t = &row->tests[row->ntests++];
            memset(t, 0, sizeof *t);
            if (copy(t->file, sizeof t->file, word) != 0)
                return fail(why, why_len, row->line, "a test path is too long");
        } else {
            if (row->ntests == 0)
                return fail(why, why_len, row->line, "the Test cell names a file (tests/...) before its cases");
            struct conf_test *t = &row->tests[row->ntests - 1];
            if (!is_case_name(word) || t->ncases == CONF_MAX_CASES ||
                copy(t->cases[t->ncases++], sizeof t->cases[0], word) != 0)
                return fail(why, why_len, row->line, "\"%.60s\" is not a test case name (or one too many)", word);
        }
        s = end + 1;
    }
    if (row->ntests == 0)
        return fail(why, why_len, row->line, "the Test cell names no test file (`tests/...`)");
    return 0;
}

static int parse_row(char *line, struct conf_row *row, char *why, size_t why_len)
{
    if (take_comments(line, row, why, why_len) != 0)
        return -1;
    char *cells[MAX_CELLS];
    int n = split_cells(line, cells);
    if (n != 4)
        return fail(why, why_len, row->line, "a row has 4 cells, not %d", n);
    if (!*cells[0] || copy(row->feature, sizeof row->feature, cells[0]) != 0)
        return fail(why, why_len, row->line, "the Feature cell is empty or too long");
    if (strcmp(cells[1], "yes") == 0)
        row->served = CONF_YES;
    else if (strcmp(cells[1], "partly") == 0)
        row->served = CONF_PARTLY;
    else if (strcmp(cells[1], "no") == 0)
        row->served = CONF_NO;
    else
        return fail(why, why_len, row->line, "Served is yes, partly or no, not \"%s\"", cells[1]);
    if (!*cells[2])
        return fail(why, why_len, row->line, "\"%s\": the How / why not cell is empty", row->feature);
    return parse_tests(cells[3], row, why, why_len);
}

/* The next line of text into buf (without its newline); NULL at the end. */
static const char *next_line(const char *text, char *buf, size_t len, bool *too_long)
{
    if (!*text)
        return NULL;
    const char *nl = strchr(text, '\n');
    size_t n = nl ? (size_t)(nl - text) : strlen(text);
    *too_long = n >= len;
    if (*too_long)
        n = len - 1;
    memcpy(buf, text, n);
    buf[n] = '\0';
    return nl ? nl + 1 : text + strlen(text);
}

int conf_table_read(const char *markdown, const char *heading, struct conf_table *t, char *why, size_t why_len)
{
    memset(t, 0, sizeof *t);
    char buf[LINE_MAX_LEN];
    const char *p = markdown;
    int line = 0;
    bool too_long = false, found = false;
    while (!found && (p = next_line(p, buf, sizeof buf, &too_long))) {
        line++;
        found = strcmp(trim(buf), heading) == 0;
    }
    if (!found)
        return fail(why, why_len, line, "no line \"%s\"", heading);
    int stage = 0; /* 0: before the header, 1: the separator next, 2: rows */
    while ((p = next_line(p, buf, sizeof buf, &too_long))) {
        line++;
        if (too_long) {
            conf_table_free(t);
            return fail(why, why_len, line, "a line longer than %d bytes", LINE_MAX_LEN - 1);
        }
        char *s = trim(buf);
        if (*s != '|') {
            if (stage == 2)
                break;
            if (stage == 1 || (s[0] == '#' && s[1] == ' ') || (s[0] == '#' && s[1] == '#'))
                break; /* a heading before any table, or a header with no separator */
            continue;
        }
        char *cells[MAX_CELLS];
        if (stage == 0) {
            int n = split_cells(s, cells);
            if (n != 4)
                return fail(why, why_len, line, "the table's header has 4 cells, not %d", n);
            for (int i = 0; i < 4; i++)
                if (strcmp(cells[i], header[i]) != 0)
                    return fail(why, why_len, line, "header cell %d is \"%s\", not \"%s\"", i + 1, cells[i], header[i]);
            stage = 1;
            continue;
        }
        if (stage == 1) {
            if (strncmp(s, "| ---", 5) != 0)
                return fail(why, why_len, line, "the header is followed by | --- | ... |");
            stage = 2;
            continue;
        }
        struct conf_row *grown = realloc(t->rows, sizeof *t->rows * (size_t)(t->nrows + 1));
        if (!grown) {
            conf_table_free(t);
            return fail(why, why_len, line, "out of memory");
        }
        t->rows = grown;
        struct conf_row *row = &t->rows[t->nrows++];
        memset(row, 0, sizeof *row);
        row->line = line;
        if (parse_row(s, row, why, why_len) != 0) {
            conf_table_free(t);
            return -1;
        }
    }
    if (stage < 2)
        return fail(why, why_len, line, "no table after \"%s\"", heading);
    if (t->nrows == 0)
        return fail(why, why_len, line, "the table has no rows");
    return 0;
}

void conf_table_free(struct conf_table *t)
{
    free(t->rows);
    t->rows = NULL;
    t->nrows = 0;
}
