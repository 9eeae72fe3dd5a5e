/* Pure text helpers for jobctl's output: ages (common/age.h), JSON values as table cells, dotted
 * field lookup, URL escaping and line-preserving slices. No I/O. */
#ifndef CALDERA_JOBCTL_FORMAT_H
#define CALDERA_JOBCTL_FORMAT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "common/age.h"
#include "common/sbuf.h"

#define CELL_LEN 512

/* The value at a dotted path ("status.state.phase", "containerStatuses.0.state"): numeric
 * segments index arrays. NULL when any step is missing. */
json_t *json_at(const json_t *root, const char *path);
/* A scalar as a table cell: strings as they are, numbers in decimal, true/false; "<none>" for
 * missing, null or empty values and "<object>"/"<array>" for containers. */
const char *json_cell(const json_t *v, char *buf, size_t len);
/* Like json_cell for a counter the server leaves out when zero: missing or null reads "0". */
const char *json_count(const json_t *v, char *buf, size_t len);

/* data[start, end) preceded by one newline per line of data before start: sent as a request body,
 * a document cut out of a multi-document file then has the file's own line numbers in the server's
 * error messages (first_line - 1 newlines when the slice starts on the document's first line; they
 * are counted here so a slice starting at a "---" line still comes out right). Heap string (NULL
 * when memory runs out); *len gets its length. */
char *slice_keeping_lines(const char *data, size_t start, size_t end, size_t *len);

/* Appends s percent-encoded for use as one URL path segment or query value. */
void url_escape(struct sbuf *b, const char *s);

#endif
