/* Printing results on stdout. Tables are rendered whole before printing, so a failure never leaves
 * half a table behind. */
#include "tools/jobctl/output.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/clock.h"
#include "tools/jobctl/api.h"
#include "tools/jobctl/jobctl.h"
#include "tools/jobctl/table.h"

int report_oom(void)
{
    fprintf(stderr, "jobctl: out of memory\n");
    return JOBCTL_FAIL;
}

int print_view(const struct view *v, const json_t *items)
{
    struct table t;
    view_table(&t, v, items, clock_wall_ms());
    char *text = table_render(&t);
    table_free(&t);
    if (!text)
        return report_oom();
    fputs(text, stdout);
    free(text);
    return JOBCTL_OK;
}

int show_list(const struct jobctl_args *a, const char *path, const struct view *v, const char *what, const char *where)
{
    json_t *list;
    int rc = api_get_json(a, path, &list);
    if (rc != JOBCTL_OK)
        return rc;
    json_t *items = json_object_get(list, "items");
    if (a->json)
        api_print_json(list);
    else if (json_array_size(items) == 0)
        fprintf(stderr, "No %s found%s.\n", what, where);
    else
        rc = print_view(v, items);
    const char *more = json_string_value(json_object_get(json_object_get(list, "metadata"), "continue"));
    if (!a->json && rc == JOBCTL_OK && more && *more) /* a page of a longer list: say how to get the next */
        fprintf(stderr, "More %s: add --continue %s\n", what, more);
    json_decref(list);
    return rc;
}

void print_body(const char *body, size_t len)
{
    fwrite(body, 1, len, stdout);
    if (len && body[len - 1] != '\n')
        fputc('\n', stdout);
}
