/* Unit tests of Kubernetes' Table view (gateway/table/): which Accept headers ask for a
 * Table and ?includeObject, the Table a list or one object becomes (columns, rows, metadata, what a
 * row carries), and the cells kubectl's printers compute: a Pod's READY, STATUS and RESTARTS, a
 * Node's STATUS and ROLES, a Job's replicas and pending reason, and ages. */
#include <jansson.h>
#include <string.h>

#include "common/clock.h"
#include "gateway/table/table.h"
#include "tests/lib/job_client.h"
#include "tests/lib/test.h"

#define KUBECTL_ACCEPT \
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
#define NOW_MS 1795000000000LL /* 2026-11-18T11:06:40Z, the "now" of every age below */

static void accept_headers_choose_the_view(void)
{
    static const struct {
        const char *accept;
        bool wanted;
        const char *version;
    } cases[] = {
        {KUBECTL_ACCEPT, true, "meta.k8s.io/v1"},
        {"application/json;as=Table;v=v1beta1;g=meta.k8s.io", true, "meta.k8s.io/v1beta1"},
        {"application/json; as=Table; v=v1; g=meta.k8s.io", true, "meta.k8s.io/v1"},
        {"application/yaml, application/json;as=Table;v=v1;g=meta.k8s.io", true, "meta.k8s.io/v1"},
        {"application/json;as=Table;v=v2;g=meta.k8s.io,application/json", false, NULL},
        {"application/json;as=Table;v=v1;g=other.io,application/json;as=Table;v=v1;g=meta.k8s.io", true,
         "meta.k8s.io/v1"},
        {"application/json, application/json;as=Table;v=v1;g=meta.k8s.io", false, NULL}, /* the first decides */
        {"*/*", false, NULL},
        {"application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io", false, NULL},
        {"", false, NULL},
        {NULL, false, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct table_view view;
        struct api_status st = {0};
        CHECK_INT(table_view_read(cases[i].accept, NULL, &view, &st), 0);
        if (view.wanted != cases[i].wanted)
            test_fail(__FILE__, __LINE__, "Accept \"%s\": a Table %s", cases[i].accept ? cases[i].accept : "(none)",
                      cases[i].wanted ? "not seen" : "seen");
        if (cases[i].version && view.wanted)
            CHECK_STR(view.api_version, cases[i].version);
    }
}

static void include_object_is_read_or_refused(void)
{
    struct table_view view;
    struct api_status st = {0};
    CHECK_INT(table_view_read(KUBECTL_ACCEPT, "Object", &view, &st), 0);
    CHECK_INT(view.include, TABLE_INCLUDE_OBJECT);
    CHECK_INT(table_view_read(KUBECTL_ACCEPT, "None", &view, &st), 0);
    CHECK_INT(view.include, TABLE_INCLUDE_NONE);
    CHECK_INT(table_view_read(KUBECTL_ACCEPT, "Metadata", &view, &st), 0);
    CHECK_INT(view.include, TABLE_INCLUDE_METADATA);
    CHECK_INT(table_view_read(KUBECTL_ACCEPT, "", &view, &st), 0);
    CHECK_INT(view.include, TABLE_INCLUDE_METADATA);
    CHECK_INT(table_view_read(KUBECTL_ACCEPT, "object", &view, &st), -1);
    CHECK_INT(st.code, 400);
    CHECK_STR(st.reason, "BadRequest");
    CHECK_INT(st.ncauses, 1);
    CHECK_STR(st.causes[0].field, "includeObject");
    CHECK(strstr(st.message, "\"object\"") != NULL);
}

static json_t *table_of(const char *json, enum table_include include)
{
    json_t *body = json_loads(json, 0, NULL);
    struct table_view view = {.wanted = true, .api_version = "meta.k8s.io/v1", .include = include};
    json_t *t = body ? table_from_objects(body, &view, NOW_MS) : NULL;
    json_decref(body);
    return t;
}

/* The cell of column name in row i. */
static json_t *cell(json_t *t, size_t i, const char *name)
{
    size_t c;
    json_t *def;
    json_array_foreach(json_object_get(t, "columnDefinitions"), c, def)
    {
        if (strcmp(json_string_value(json_object_get(def, "name")), name) == 0)
            return json_array_get(json_object_get(json_array_get(json_object_get(t, "rows"), i), "cells"), c);
    }
    return NULL;
}

#define POD(name, extra)                                                     \
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"" name \
    "\","                                                                    \
    "\"creationTimestamp\":\"2026-11-16T11:06:40Z\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]}," extra "}"

static void pods_read_as_kubectl_prints_them(void)
{
    json_t *t = table_of(
        "{\"apiVersion\":\"v1\",\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"42\",\"continue\":\"abc\"},"
        "\"items\":["
        POD("running", "\"status\":{\"phase\":\"Running\",\"podIP\":\"10.0.0.1\",\"containerStatuses\":[{\"ready\":true,"
                       "\"restartCount\":2,\"state\":{\"running\":{}}}]}") ","
        POD("creating", "\"status\":{\"phase\":\"Pending\",\"containerStatuses\":[{\"ready\":false,\"restartCount\":0,"
                        "\"state\":{\"waiting\":{\"reason\":\"ContainerCreating\"}}}]}") ","
        POD("exited", "\"status\":{\"phase\":\"Failed\",\"containerStatuses\":[{\"ready\":false,\"restartCount\":1,"
                      "\"state\":{\"terminated\":{\"exitCode\":3}}}]}") ","
        POD("deadline", "\"status\":{\"phase\":\"Failed\",\"reason\":\"DeadlineExceeded\"}") ","
        POD("unplaced", "\"status\":{\"phase\":\"Pending\"}") "]}",
        TABLE_INCLUDE_METADATA);
    REQUIRE(t);
    CHECK_STR(jv_str(t, "kind"), "Table");
    CHECK_STR(jv_str(t, "metadata.resourceVersion"), "42");
    CHECK_STR(jv_str(t, "metadata.continue"), "abc");
    CHECK_INT((long)json_array_size(json_object_get(t, "rows")), 5);
    CHECK_STR(jv_str(t, "columnDefinitions.0.name"), "Name");
    CHECK_STR(jv_str(t, "columnDefinitions.0.format"), "name");
    CHECK_STR(jv_str(t, "columnDefinitions.6.name"), "Node");
    CHECK_INT(jv_num(t, "columnDefinitions.6.priority"), 1);
    CHECK_STR(json_string_value(cell(t, 0, "Ready")), "1/1");
    CHECK_STR(json_string_value(cell(t, 0, "Status")), "Running");
    CHECK_INT(json_integer_value(cell(t, 0, "Restarts")), 2);
    CHECK_STR(json_string_value(cell(t, 0, "IP")), "10.0.0.1");
    CHECK_STR(json_string_value(cell(t, 0, "Age")), "2d");
    CHECK_STR(json_string_value(cell(t, 1, "Status")), "ContainerCreating");
    CHECK_STR(json_string_value(cell(t, 1, "Ready")), "0/1");
    CHECK_STR(json_string_value(cell(t, 2, "Status")), "ExitCode:3");
    CHECK_STR(json_string_value(cell(t, 3, "Status")), "DeadlineExceeded");
    CHECK_STR(json_string_value(cell(t, 4, "Status")), "Pending");
    CHECK_STR(json_string_value(cell(t, 4, "IP")), "<none>");
    CHECK_STR(json_string_value(cell(t, 4, "Node")), "<none>");
    CHECK_STR(jv_str(t, "rows.4.object.kind"), "PartialObjectMetadata");
    CHECK_STR(jv_str(t, "rows.4.object.metadata.name"), "unplaced");
    CHECK(!jv_at(t, "rows.4.object.spec"));
    json_decref(t);
}

static void nodes_read_as_kubectl_prints_them(void)
{
    json_t *t = table_of(
        "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\",\"creationTimestamp\":"
        "\"2026-11-18T11:03:20Z\",\"labels\":{\"node-role.kubernetes.io/gpu\":\"\",\"node-role.kubernetes.io/"
        "control-plane\":\"\",\"zone\":\"a\"}},\"spec\":{\"unschedulable\":true},\"status\":{\"conditions\":[{"
        "\"type\":\"Ready\",\"status\":\"False\"}],\"addresses\":[{\"type\":\"InternalIP\",\"address\":\"10.1.1.1\"}],"
        "\"nodeInfo\":{\"kubeletVersion\":\"v1.30.0\"}}}",
        TABLE_INCLUDE_NONE);
    REQUIRE(t);
    CHECK_INT((long)json_array_size(json_object_get(t, "rows")), 1);
    CHECK(!jv_at(t, "rows.0.object"));
    CHECK_STR(json_string_value(cell(t, 0, "Status")), "NotReady,SchedulingDisabled");
    CHECK_STR(json_string_value(cell(t, 0, "Roles")), "control-plane,gpu");
    CHECK_STR(json_string_value(cell(t, 0, "Age")), "3m20s");
    CHECK_STR(json_string_value(cell(t, 0, "Version")), "v1.30.0");
    CHECK_STR(json_string_value(cell(t, 0, "Internal-IP")), "10.1.1.1");
    CHECK_STR(json_string_value(cell(t, 0, "External-IP")), "<none>");
    json_decref(t);
}

static void jobs_read_as_the_volcano_crd_prints_them(void)
{
    json_t *t = table_of(
        "{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"JobList\",\"metadata\":{\"resourceVersion\":\"7\"},"
        "\"items\":[{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"j\"},"
        "\"spec\":{\"queue\":\"q\",\"tasks\":[{\"replicas\":2},{\"replicas\":3}]},\"status\":{\"state\":{\"phase\":"
        "\"Pending\",\"message\":\"0/3 nodes are available\"},\"minAvailable\":5,\"running\":0,\"pending\":5}},"
        "{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"k\"},"
        "\"spec\":{},\"status\":{\"state\":{\"phase\":\"Failed\",\"message\":\"gone\"}}}]}",
        TABLE_INCLUDE_OBJECT);
    REQUIRE(t);
    CHECK_STR(json_string_value(cell(t, 0, "STATUS")), "Pending");
    CHECK_INT(json_integer_value(cell(t, 0, "REPLICAS")), 5);
    CHECK_INT(json_integer_value(cell(t, 0, "minAvailable")), 5);
    CHECK_STR(json_string_value(cell(t, 0, "QUEUE")), "q");
    CHECK_STR(json_string_value(cell(t, 0, "PENDING REASON")), "0/3 nodes are available");
    CHECK_STR(json_string_value(cell(t, 0, "AGE")), "<unknown>");   /* no creationTimestamp */
    CHECK_STR(json_string_value(cell(t, 1, "PENDING REASON")), ""); /* only a Pending job waits */
    CHECK(json_is_null(cell(t, 1, "RUNNINGS")));
    CHECK(json_is_null(cell(t, 1, "QUEUE")));
    CHECK_STR(jv_str(t, "rows.1.object.kind"), "Job");
    json_decref(t);
}

static void kinds_without_columns_stay_json(void)
{
    CHECK(!table_of("{\"apiVersion\":\"v1\",\"kind\":\"EventList\",\"metadata\":{},\"items\":[]}",
                    TABLE_INCLUDE_METADATA));
    CHECK(!table_of("{\"apiVersion\":\"kubeflow.org/v1\",\"kind\":\"PyTorchJob\",\"metadata\":{}}",
                    TABLE_INCLUDE_METADATA));
    CHECK(!table_of("{\"kind\":\"Status\"}", TABLE_INCLUDE_METADATA));
    CHECK(table_kind_find("scheduling.volcano.sh/v1beta1", "Queue"));
    CHECK(!table_kind_find("scheduling.volcano.sh/v1beta1", "Job"));
    struct table_view view = {.wanted = true, .api_version = "meta.k8s.io/v1"};
    json_t *list = json_loads(
        "{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"JobList\",\"metadata\":{"
        "\"resourceVersion\":\"9\",\"continue\":\"c\"},\"items\":[]}",
        0, NULL);
    char *text = table_text_with_rows(list, &view, "[{\"cells\":[\"a\"]}]");
    json_t *t = text ? json_loads(text, 0, NULL) : NULL;
    CHECK_STR(jv_str(t, "rows.0.cells.0"), "a");
    CHECK_STR(jv_str(t, "metadata.continue"), "c");
    CHECK_STR(jv_str(t, "columnDefinitions.1.name"), "STATUS");
    json_decref(t);
    free(text);
    json_decref(list);
}

TEST_MAIN(TEST_CASE(accept_headers_choose_the_view), TEST_CASE(include_object_is_read_or_refused),
          TEST_CASE(pods_read_as_kubectl_prints_them), TEST_CASE(nodes_read_as_kubectl_prints_them),
          TEST_CASE(jobs_read_as_the_volcano_crd_prints_them), TEST_CASE(kinds_without_columns_stay_json))
