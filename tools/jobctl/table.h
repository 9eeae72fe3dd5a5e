/* Text tables as kubectl prints them: a header row in caps, columns left-aligned and separated by
 * three spaces, no trailing blanks. Rows are collected first, then rendered in one go. */
#ifndef CALDERA_JOBCTL_TABLE_H
#define CALDERA_JOBCTL_TABLE_H

#include <stdbool.h>
#include <stddef.h>

struct table {
    size_t ncols;
    size_t ncells; /* header included */
    size_t cap;
    char **cells; /* row-major, owned */
    bool failed;  /* an allocation failed: render returns NULL */
};

/* headers: ncols column titles (the header row). */
void table_init(struct table *t, size_t ncols, const char *const *headers);
/* Adds a row of ncols cells; a NULL or empty cell prints as "<none>", control characters as spaces. */
void table_add(struct table *t, const char *const *cells);
size_t table_rows(const struct table *t); /* data rows, header excluded */
/* The whole table, one line per row, each ending in '\n'; NULL when memory ran out. */
char *table_render(const struct table *t);
void table_free(struct table *t);

#endif
