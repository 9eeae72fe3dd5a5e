/* spec.runtimeClassName at admission: "oci" taken where podman was found and refused naming the field
 * and why where it was not; an unknown class refused as not found; oci needs an image, and its
 * image is not looked up in --images; a stored job keeps its class whatever this server has. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/runtime_class.h"
#include "tests/lib/causes.h"
#include "tests/lib/test.h"
#include "tests/lib/yaml_fixture.h"

#define FIELD "spec.tasks[0].template.spec.runtimeClassName"

/* A Job of one task whose pod template has runtimeClassName klass and container lines (indented 10). */
static const char *job_with(const char *klass, const char *container)
{
    static char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: c}\nspec:\n  tasks:\n"
             "  - replicas: 1\n    template:\n      spec:\n        runtimeClassName: %s\n"
             "        containers:\n        - name: c\n%s",
             klass, container);
    return yaml;
}

#define WITH_IMAGE "          image: example/bookworm:1\n          command: [sleep, \"1\"]\n"

static void oci_where_podman_is(void)
{
    runtime_class_set_oci(NULL);
    struct api_status st;
    struct job *job = yaml_volcano_job(job_with("oci", WITH_IMAGE), "default", false, &st);
    REQUIRE(job);
    CHECK_STR(job->tasks[0].runtime_class, "oci");
    CHECK_STR(job->tasks[0].image, "example/bookworm:1");
    job_free(job);
    /* no command: the image's own entrypoint runs */
    job = yaml_volcano_job(job_with("oci", "          image: example/bookworm:1\n"), "default", false, &st);
    REQUIRE(job);
    CHECK(job->tasks[0].argv == NULL);
    job_free(job);
    /* without the field: a process, as ever */
    job = yaml_volcano_job(job_with("null", WITH_IMAGE), "default", false, &st);
    REQUIRE(job);
    CHECK(job->tasks[0].runtime_class == NULL);
    job_free(job);
}

static void refused_naming_the_field(void)
{
    runtime_class_set_oci("podman is not installed");
    struct api_status st;
    CHECK(yaml_volcano_job(job_with("oci", WITH_IMAGE), "default", false, &st) == NULL);
    CHECK_INT(st.code, 422);
    CHECK_CONTAINS(cause_message(&st, FIELD), "RuntimeClass \"oci\": podman is not installed");
    CHECK_CONTAINS(st.message, FIELD);
    runtime_class_set_oci(NULL);
    CHECK(yaml_volcano_job(job_with("kata", WITH_IMAGE), "default", false, &st) == NULL);
    CHECK_INT(st.code, 422);
    const struct api_cause *c = cause_on(&st, FIELD);
    REQUIRE(c);
    CHECK_STR(c->reason, "FieldValueNotFound");
    CHECK_CONTAINS(c->message, "RuntimeClass \"kata\" not found");
    /* a container runs an image: it must name one */
    CHECK(yaml_volcano_job(job_with("oci", "          command: [sleep, \"1\"]\n"), "default", false, &st) == NULL);
    CHECK_CONTAINS(cause_message(&st, "spec.tasks[0].template.spec.containers[0].image"), "runs the container's image");
}

static void stored_jobs_keep_their_class(void)
{
    runtime_class_set_oci("podman is not installed");
    struct api_status st;
    struct job *job = yaml_volcano_job(job_with("oci", WITH_IMAGE), "default", true, &st);
    REQUIRE(job);
    CHECK_STR(job->tasks[0].runtime_class, "oci"); /* it fails at its start, not at the server's */
    job_free(job);
    runtime_class_set_oci(NULL);
}

TEST_MAIN(TEST_CASE(oci_where_podman_is), TEST_CASE(refused_naming_the_field), TEST_CASE(stored_jobs_keep_their_class))
