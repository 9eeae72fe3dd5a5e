/* Printing results on stdout: tables (narrow, -o wide, or -o name), the server's objects as JSON or
 * YAML (-o json, -o yaml), lists fetched from the server, and the "No ... found" note on stderr when a
 * list is empty. */
#ifndef CALDERA_JOBCTL_OUTPUT_H
#define CALDERA_JOBCTL_OUTPUT_H

#include <jansson.h>

#include "tools/jobctl/args.h"
#include "tools/jobctl/views.h"

/* Says "jobctl: out of memory" on stderr; returns JOBCTL_FAIL. */
int report_oom(void);
/* Prints an answer's body as the server sent it, ending in a newline (for -o json). */
void print_body(const char *body, size_t len);
/* An answer's body for -o json (as sent) or -o yaml (the JSON body as YAML). */
int print_body_as(const struct jobctl_args *a, const char *body, size_t len);
/* v as JSON (indented) or, with -o yaml, as YAML; JOBCTL_FAIL when memory ran out. */
int print_doc(const struct jobctl_args *a, const json_t *v);
/* Prints the view of items (an array, or one object); JOBCTL_FAIL when memory ran out. */
int print_view(const struct view *v, const json_t *items);
/* print_view as the line asks: the wide view with -o wide, "<kind>/<name>" lines with -o name. */
int print_view_as(const struct jobctl_args *a, const struct view *v, const json_t *items);
/* GETs a list at path and prints its items with v (as the line asks), or the whole answer with -o
 * json/yaml. When the list is empty, says "No <what> found<where>." on stderr instead (where: "" or
 * " in namespace \"x\""). */
int show_list(const struct jobctl_args *a, const char *path, const struct view *v, const char *what, const char *where);

#endif
