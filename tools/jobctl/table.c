/* Text tables as kubectl prints them: widths are counted in UTF-8 characters, so names with
 * accents still line up; the last column is never padded. */
#include "tools/jobctl/table.h"

#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/sbuf.h"

#define TABLE_GAP 3

static char *clean_copy(const char *s)
{
    if (!s || !*s)
        s = "<none>";
    char *c = strdup(s);
    for (char *p = c; p && *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
    return c;
}

static void push_cell(struct table *t, const char *s)
{
    if (t->failed)
        return;
    if (GROW(t->cells, t->cap, t->ncells + 1, 64) != 0) {
        t->failed = true;
        return;
    }
    char *c = clean_copy(s);
    if (!c) {
        t->failed = true;
        return;
    }
    t->cells[t->ncells++] = c;
}

void table_init(struct table *t, size_t ncols, const char *const *headers)
{
    *t = (struct table){.ncols = ncols};
    table_add(t, headers);
}

void table_add(struct table *t, const char *const *cells)
{
    for (size_t i = 0; i < t->ncols; i++)
        push_cell(t, cells[i]);
}

size_t table_rows(const struct table *t) { return t->ncols && t->ncells ? t->ncells / t->ncols - 1 : 0; }

/* Characters, not bytes: UTF-8 continuation bytes (10xxxxxx) do not count. */
static size_t display_width(const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if ((*p & 0xC0) != 0x80)
            n++;
    return n;
}

static size_t *column_widths(const struct table *t)
{
    size_t *w = calloc(t->ncols ? t->ncols : 1, sizeof *w);
    for (size_t i = 0; w && i < t->ncells; i++) {
        size_t cw = display_width(t->cells[i]);
        if (cw > w[i % t->ncols])
            w[i % t->ncols] = cw;
    }
    return w;
}

static void render_row(struct sbuf *b, const struct table *t, const size_t *widths, size_t row)
{
    for (size_t col = 0; col < t->ncols; col++) {
        const char *cell = t->cells[row * t->ncols + col];
        sbuf_puts(b, cell);
        if (col + 1 == t->ncols)
            break;
        for (size_t pad = display_width(cell); pad < widths[col] + TABLE_GAP; pad++)
            sbuf_append(b, " ", 1);
    }
    sbuf_append(b, "\n", 1);
}

char *table_render(const struct table *t)
{
    if (t->failed || !t->ncols)
        return NULL;
    size_t *widths = column_widths(t);
    if (!widths)
        return NULL;
    struct sbuf b = {0};
    for (size_t row = 0; row * t->ncols < t->ncells; row++)
        render_row(&b, t, widths, row);
    free(widths);
    return sbuf_take(&b);
}

void table_free(struct table *t)
{
    for (size_t i = 0; i < t->ncells; i++)
        free(t->cells[i]);
    free(t->cells);
    *t = (struct table){0};
}
