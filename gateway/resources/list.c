/* Every list endpoint's answer: a watch when ?watch=true, else the core's list narrowed by the
 * labelSelector's key=value terms (the core skips what they exclude), in pages for the big lists
 * (list_page.c), and filtered by the full label and field selectors here. A Table of Volcano Jobs,
 * PodGroups or Pods is written by the core, row by row (ask_rows). */
#include <stdio.h>
#include <stdlib.h>

#include "common/memory.h"
#include "gateway/resources/answer.h"
#include "gateway/table/table.h"
#include "gateway/watch/selector.h"
#include "gateway/watch/watch.h"

#define BIG_PAGE 1000 /* items: a page this long may have cost megabytes */
/* How many list pages a Table page may hold: a row of a Job or PodGroup the core writes costs a
 * tenth of the object or less, a Pod's (its labels and annotations are most of it) about half. */
#define TABLE_PAGE_FACTOR(op) ((op) == CORE_POD_LIST ? 2 : 10)

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

/* A Table of Volcano Jobs, PodGroups or Pods whose items need no filtering here: the core writes
 * its rows as text (request.h: as_table) instead of rendering every object, and a page may hold
 * TABLE_PAGE_FACTOR times --max-list-page of them when ?limit asks for more. With includeObject=Object the rows carry
 * whole objects, made the ordinary way and turned into a Table by answer.c. */
static void ask_rows(struct http_req *req, struct core_request *creq, bool filtered)
{
    struct table_view view;
    struct api_status bad = {0};
    bool rows_kind = (creq->op == CORE_JOB_LIST && !creq->dialect) || creq->op == CORE_PODGROUP_LIST ||
                     creq->op == CORE_POD_LIST;
    if (filtered || !rows_kind ||
        table_view_read(http_header(req, "Accept"), http_query(req, "includeObject"), &view, &bad) != 0 ||
        !view.wanted || view.include == TABLE_INCLUDE_OBJECT)
        return;
    creq->as_table = true;
    creq->table_no_object = view.include == TABLE_INCLUDE_NONE;
    creq->table_api_version = view.api_version;
    const char *l = http_query(req, "limit");
    long long asked = l ? strtoll(l, NULL, 10) : 0,
              cap = (long long)req->gw->list_page_max * TABLE_PAGE_FACTOR(creq->op);
    if (asked > req->gw->list_page_max) /* a valid limit: list_page.c read it */
        creq->limit = (int32_t)(asked < cap ? asked : cap);
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
        ask_rows(req, creq, f.filter);
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
