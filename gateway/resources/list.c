/* Every list endpoint's answer: a watch when ?watch=true, else the core's list narrowed by the
 * labelSelector's key=value terms (the core skips what they exclude), in pages for the big lists
 * (list_page.c), and filtered by the full label and field selectors here. */
#include <stdio.h>

#include "common/memory.h"
#include "gateway/resources/answer.h"
#include "gateway/watch/selector.h"
#include "gateway/watch/watch.h"

#define BIG_PAGE 1000 /* items: a page this long may have cost megabytes */

struct list_filter {
    const char *kind;
    struct selector labels, fields;
    bool filter;                     /* some selector term is left to filter_items */
    const struct core_request *creq; /* its answer says where the page ended */
    size_t items;                    /* how many the core answered */
    json_t *extra;                   /* items the core does not keep, after its last page (borrowed) */
};

static void filter_items(void *ctx, json_t *body)
{
    struct list_filter *f = ctx;
    json_t *items = json_object_get(body, "items");
    f->items = json_array_size(items);
    gateway_list_page_finish(f->creq, f->kind, body);
    if (f->extra && !json_object_get(json_object_get(body, "metadata"), "continue"))
        json_array_extend(items, f->extra);
    if (!f->filter)
        return;
    for (size_t i = json_array_size(items); i-- > 0;)
        if (!selector_match_object(&f->labels, &f->fields, f->kind, json_array_get(items, i)))
            json_array_remove(items, i);
}

void gateway_answer_list(struct http_req *req, struct core_request *creq, const struct list_kind *kind)
{
    gateway_answer_list_with(req, creq, kind, NULL);
}

void gateway_answer_list_with(struct http_req *req, struct core_request *creq, const struct list_kind *kind,
                              json_t *extra)
{
    if (watch_requested(req)) {
        watch_serve(req, creq, kind, NULL);
        return;
    }
    struct list_filter f = {.kind = kind->kind, .creq = creq, .extra = extra};
    char why[512];
    struct api_status st = {0};
    if (selector_parse(http_query(req, "labelSelector"), false, &f.labels, why, sizeof why) != 0 ||
        selector_parse(http_query(req, "fieldSelector"), true, &f.fields, why, sizeof why) != 0 ||
        (creq && gateway_list_page_read(req, kind->kind, creq, &st) != 0)) {
        if (!st.code)
            api_fail(&st, 400, "BadRequest", "%s", why);
        http_respond_status(req, &st);
        selector_free(&f.labels);
        selector_free(&f.fields);
        return;
    }
    if (!creq) { /* Commands: run and gone, never listed */
        char list_kind[64];
        snprintf(list_kind, sizeof list_kind, "%sList", kind->kind);
        http_respond_json(req, 200,
                          json_pack("{s:s, s:s, s:{s:s}, s:[]}", "apiVersion", kind->api_version, "kind", list_kind,
                                    "metadata", "resourceVersion", "0", "items"));
    } else {
        gateway_narrow_list(creq, &f.labels, &f.fields);
        f.filter = !selector_empty(&f.labels) || !selector_empty(&f.fields);
        gateway_answer_core_filtered(req, creq, filter_items, &f);
        if (f.items >= BIG_PAGE) /* its tree is freed now: its pages go back soon */
            memory_return_soon();
    }
    selector_free(&f.labels);
    selector_free(&f.fields);
}

void gateway_ask_list(struct http_req *req, enum core_op op, const char *ns, const char *api_version, const char *kind)
{
    struct core_request creq = {.op = op, .ns = ns};
    gateway_answer_list(req, &creq, &(struct list_kind){api_version, kind, NULL});
}
