/* The dialect driver (adapters/dialects/dialect.c) with a small dialect of the test's own: the Volcano Job's
 * causes come back in the source's paths and lines, the source is kept, renderings merge metadata. */
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/dialect.h"
#include "tests/lib/test.h"
#include "tests/lib/yaml_fixture.h"

/* example.com/v1 Thing: {metadata, spec: {runner: {replicas, template}}} -> one task "runner". */
static int thing_translate(struct fields *f, json_t *source, const char *ns, struct dialect_translation *out)
{
    (void)ns;
    json_t *spec, *runner;
    if (!field_object(f, source, "spec", "spec", true, &spec) || !spec ||
        !field_object(f, spec, "runner", "spec.runner", true, &runner) || !runner)
        return -1;
    json_t *task = json_pack("{s:s, s:O, s:O}", "name", "runner", "replicas", json_object_get(runner, "replicas"),
                             "template", json_object_get(runner, "template"));
    out->volcano = json_pack("{s:s, s:s, s:O, s:{s:[o]}}", "apiVersion", "batch.volcano.sh/v1alpha1", "kind", "Job",
                             "metadata", json_object_get(source, "metadata"), "spec", "tasks", task);
    dialect_map_path(out, "spec.tasks[0]", "spec.runner");
    dialect_map_path(out, "spec.tasks[0].template.spec", "spec.runner.template.spec");
    return 0;
}

static json_t *thing_status(const json_t *source, const json_t *volcano_job)
{
    (void)source;
    return json_pack("{s:O}", "phase",
                     json_object_get(json_object_get(json_object_get(volcano_job, "status"), "state"), "phase"));
}

static const struct dialect thing = {"example.com", "v1", "Thing", "things", thing_translate, thing_status, false};

static struct job *adapt(const char *yaml, struct api_status *st)
{
    return yaml_dialect_job(&thing, yaml, "team-a", st);
}

static void causes_name_the_source_fields_and_lines(void)
{
    struct api_status st;
    CHECK(adapt("apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t1}\nspec:\n  runner:\n    replicas: 2\n"
                "    template:\n      spec:\n        containers:\n        - name: c\n          command: [x]\n"
                "          resources: {limits: {memory: 1.5GG}}\n",
                &st) == NULL);
    CHECK_INT(st.code, 422);
    CHECK_STR(st.kind, "Thing");
    CHECK_STR(st.group, "example.com");
    CHECK_STR(st.message,
              "Thing.example.com \"t1\" is invalid: spec.runner.template.spec.containers[0].resources.limits"
              ".memory: invalid quantity \"1.5GG\": unable to parse quantity's suffix (line 12, column 40)");
}

static void a_path_prefix_must_end_at_a_segment(void)
{
    struct api_status st;
    /* spec.tasks[0] maps, spec.tasks[0]x would not: the replica count's cause is under spec.runner */
    CHECK(adapt("apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: t2}\nspec:\n  runner:\n    replicas: -1\n"
                "    template: {spec: {containers: [{name: c, command: [x]}]}}\n",
                &st) == NULL);
    CHECK_CONTAINS(st.message, "spec.runner.replicas: Invalid value");
    CHECK_CONTAINS(st.message, "(line 6, column 15)");
}

static void the_source_is_kept_and_rendered_with_server_metadata(void)
{
    struct api_status st;
    struct job *job = adapt(
        "kind: Thing\nmetadata: {generateName: t-, labels: {a: b}}\nspec:\n  runner:\n"
        "    replicas: 1\n    template: {spec: {containers: [{name: c, command: [x]}]}}\n",
        &st);
    REQUIRE(job != NULL);
    REQUIRE(job->source != NULL);
    CHECK_STR(json_string_value(json_object_get(job->source, "apiVersion")), "example.com/v1");
    const char *name = json_string_value(json_object_get(json_object_get(job->source, "metadata"), "name"));
    CHECK_STR(name, job->name); /* generateName: the source learns the name given */
    CHECK(strncmp(job->name, "t-", 2) == 0 && strlen(job->name) == 7);
    json_t *volcano = json_pack("{s:{s:s, s:s, s:s, s:s}, s:{s:{s:s}}}", "metadata", "name", job->name, "uid", "u-1",
                                "resourceVersion", "42", "namespace", "team-a", "status", "state", "phase", "Running");
    json_t *obj = dialect_render(&thing, job->source, volcano);
    REQUIRE(obj != NULL);
    CHECK_STR(json_string_value(json_object_get(obj, "kind")), "Thing");
    CHECK_STR(json_string_value(json_object_get(json_object_get(obj, "metadata"), "uid")), "u-1");
    CHECK_STR(json_string_value(json_object_get(json_object_get(obj, "metadata"), "resourceVersion")), "42");
    CHECK_STR(json_string_value(json_object_get(json_object_get(json_object_get(obj, "metadata"), "labels"), "a")),
              "b");
    CHECK_STR(json_string_value(json_object_get(json_object_get(obj, "status"), "phase")), "Running");
    CHECK(json_object_get(json_object_get(job->source, "metadata"), "uid") == NULL); /* the source is not changed */
    /* the Volcano Job's admission writes its defaults into the templates it shares with the posted
     * document; the kept source is the object as the dialect admitted it */
    CHECK(json_object_get(
              json_object_get(
                  json_object_get(json_object_get(json_object_get(job->source, "spec"), "runner"), "template"), "spec"),
              "restartPolicy") == NULL);
    json_decref(obj);
    json_decref(volcano);
    job_free(job);
}

static void wrong_kind_and_version_are_400(void)
{
    struct api_status st;
    CHECK(adapt("apiVersion: example.com/v2\nkind: Thing\nmetadata: {name: t}\nspec: {}\n", &st) == NULL);
    CHECK_INT(st.code, 400);
    CHECK_CONTAINS(st.message, "does not match the expected API version (example.com/v1)");
    CHECK(adapt("apiVersion: example.com/v1\nkind: Other\nmetadata: {name: t}\nspec: {}\n", &st) == NULL);
    CHECK_INT(st.code, 400);
    CHECK_CONTAINS(st.message, "(Thing)");
}

static void the_registry_finds_dialects_by_path_and_kind(void)
{
    for (const struct dialect *const *d = dialects; *d; d++) {
        char av[128];
        snprintf(av, sizeof av, "%s/%s", (*d)->group, (*d)->version);
        CHECK(dialect_by_plural((*d)->group, (*d)->version, (*d)->plural) == *d);
        CHECK(dialect_by_kind(av, (*d)->kind) == *d);
    }
    CHECK(dialect_by_kind("batch.volcano.sh/v1alpha1", "Job") == NULL);
    CHECK(dialect_by_plural("batch.volcano.sh", "v1alpha1", "jobs") == NULL);
}

TEST_MAIN(TEST_CASE(causes_name_the_source_fields_and_lines), TEST_CASE(a_path_prefix_must_end_at_a_segment),
          TEST_CASE(the_source_is_kept_and_rendered_with_server_metadata), TEST_CASE(wrong_kind_and_version_are_400),
          TEST_CASE(the_registry_finds_dialects_by_path_and_kind))
