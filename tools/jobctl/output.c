/* Printing results on stdout. Tables are rendered whole before printing, so a failure never leaves
 * half a table behind; YAML goes through libyaml's emitter (yaml_out.c). */
#include "tools/jobctl/output.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/clock.h"
#include "tools/jobctl/api.h"
#include "tools/jobctl/format.h"
#include "tools/jobctl/jobctl.h"
#include "tools/jobctl/table.h"
#include "tools/jobctl/yaml_out.h"

int report_oom(void)
{
    fprintf(stderr, "jobctl: out of memory\n");
    return JOBCTL_FAIL;
}

int print_doc(const struct jobctl_args *a, const json_t *v)
{
    if (!a->yaml) {
        api_print_json(v);
        return JOBCTL_OK;
    }
    char *text = yaml_from_json(v);
    if (!text)
        return report_oom();
    fputs(text, stdout);
    free(text);
    return JOBCTL_OK;
}

int print_body_as(const struct jobctl_args *a, const char *body, size_t len)
{
    json_t *v = a->yaml ? json_loadb(body, len, 0, NULL) : NULL;
    if (!v) {
        print_body(body, len);
        return JOBCTL_OK;
    }
    int rc = print_doc(a, v);
    json_decref(v);
    return rc;
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

static void print_name(const struct view *v, const json_t *item)
{
    const char *name = json_string_value(json_at(item, "metadata.name"));
    if (name)
        printf("%s%s%s\n", v->kind ? v->kind : "", v->kind ? "/" : "", name);
}

int print_view_as(const struct jobctl_args *a, const struct view *v, const json_t *items)
{
    if (a->names) {
        size_t i;
        json_t *item;
        if (json_is_object(items))
            print_name(v, items);
        json_array_foreach(items, i, item) print_name(v, item);
        return JOBCTL_OK;
    }
    return print_view(a->wide && v->wide ? v->wide : v, items);
}

int show_list(const struct jobctl_args *a, const char *path, const struct view *v, const char *what, const char *where)
{
    json_t *list;
    int rc = api_get_json(a, path, &list);
    if (rc != JOBCTL_OK)
        return rc;
    json_t *items = json_object_get(list, "items");
    if (a->json)
        rc = print_doc(a, list);
    else if (json_array_size(items) == 0)
        fprintf(stderr, "No %s found%s.\n", what, where);
    else
        rc = print_view_as(a, v, items);
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
