/* Printing results on stdout: tables, lists fetched from the server (or their raw JSON with
 * -o json) and the "No ... found" note on stderr when a list is empty. */
#ifndef CALDERA_JOBCTL_OUTPUT_H
#define CALDERA_JOBCTL_OUTPUT_H

#include <jansson.h>

#include "tools/jobctl/args.h"
#include "tools/jobctl/views.h"

/* Says "jobctl: out of memory" on stderr; returns JOBCTL_FAIL. */
int report_oom(void);
/* Prints an answer's body as the server sent it, ending in a newline (for -o json). */
void print_body(const char *body, size_t len);
/* Prints the view of items (an array, or one object); JOBCTL_FAIL when memory ran out. */
int print_view(const struct view *v, const json_t *items);
/* GETs a list at path and prints its items with v, or the whole answer with -o json. When the list
 * is empty, says "No <what> found<where>." on stderr instead (where: "" or " in namespace \"x\""). */
int show_list(const struct jobctl_args *a, const char *path, const struct view *v, const char *what, const char *where);

#endif
