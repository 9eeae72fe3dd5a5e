/* The manifest for a real cluster (adapters/dialects/volcano/manifest.c): nothing the server assigns, Caldera's own
 * fields moved to annotations, and the same bytes every time for the same job. */
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/intake.h"
#include "adapters/dialects/volcano/manifest.h"
#include "adapters/dialects/volcano/job.h"
#include "tests/lib/test.h"

static struct job *admit(const char *yaml)
{
    struct intake in;
    struct api_status st = {0};
    struct job *job = NULL;
    if (intake_parse(yaml, strlen(yaml), INTAKE_YAML, &in, &st) != 0)
        return NULL;
    volcano_job_from_doc(&in.docs[0], "team-a", &job, &st);
    intake_free(&in);
    if (job) {
        snprintf(job->uid, sizeof job->uid, "0b6c1a52-5f1e-4f0e-9d55-1c2f3a4b5c6d");
        job->created_ms = 1700000000000;
        volcano_job_stamp_metadata(job);
    }
    return job;
}

static const char job_yaml[] =
    "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\n"
    "metadata: {name: sim, labels: {team: quant}, annotations: {note: x}}\n"
    "spec:\n  minAvailable: 1\n  autoMemoryScale: {rate: 1.5, maxMemory: 8Gi}\n  tasks:\n"
    "  - name: sim\n    replicas: 3\n"
    "    template: {spec: {containers: [{name: w, command: [python, run.py], "
    "resources: {limits: {cpu: 1, memory: 1Gi}}}]}}\n";

static void only_what_a_client_may_send(void)
{
    struct job *job = admit(job_yaml);
    REQUIRE(job != NULL);
    json_t *m = manifest_job(job);
    REQUIRE(m != NULL);
    json_t *meta = json_object_get(m, "metadata");
    CHECK_STR(json_string_value(json_object_get(m, "apiVersion")), "batch.volcano.sh/v1alpha1");
    CHECK_STR(json_string_value(json_object_get(meta, "namespace")), "team-a");
    CHECK(json_object_get(meta, "uid") == NULL);
    CHECK(json_object_get(meta, "creationTimestamp") == NULL);
    CHECK(json_object_get(meta, "generation") == NULL);
    CHECK(json_object_get(m, "status") == NULL);
    CHECK_STR(json_string_value(json_object_get(json_object_get(meta, "labels"), "team")), "quant");
    /* Volcano's defaults are written in, Caldera's own field is an annotation */
    json_t *spec = json_object_get(m, "spec");
    CHECK_STR(json_string_value(json_object_get(spec, "queue")), "default");
    CHECK_INT(json_integer_value(json_object_get(spec, "maxRetry")), 3);
    CHECK(json_object_get(spec, "autoMemoryScale") == NULL);
    json_t *annotations = json_object_get(meta, "annotations");
    CHECK_STR(json_string_value(json_object_get(annotations, "note")), "x");
    CHECK_STR(json_string_value(json_object_get(annotations, MANIFEST_AUTO_MEMORY_SCALE_ANNOTATION)),
              "{\"maxMemory\":\"8Gi\",\"rate\":1.5}");
    /* the job's own manifest is untouched */
    CHECK(json_object_get(json_object_get(job->manifest, "spec"), "autoMemoryScale") != NULL);
    CHECK(json_object_get(json_object_get(json_object_get(job->manifest, "metadata"), "annotations"),
                          MANIFEST_AUTO_MEMORY_SCALE_ANNOTATION) == NULL);
    json_decref(m);
    job_free(job);
}

static void the_same_job_gives_the_same_bytes(void)
{
    struct job *a = admit(job_yaml), *b = admit(job_yaml);
    REQUIRE(a && b);
    char *ta = manifest_job_text(a), *ta2 = manifest_job_text(a), *tb = manifest_job_text(b);
    REQUIRE(ta && ta2 && tb);
    CHECK_STR(ta, ta2);
    CHECK_STR(ta, tb);
    CHECK(ta[strlen(ta) - 1] == '\n');
    CHECK_CONTAINS(ta,
                   "{\n  \"apiVersion\": \"batch.volcano.sh/v1alpha1\",\n  \"kind\": \"Job\",\n  \"metadata\": {\n");
    /* what it prints, posted again, is the same job */
    struct job *c = admit(ta);
    REQUIRE(c != NULL);
    char *tc = manifest_job_text(c);
    CHECK_STR(tc, ta);
    free(ta);
    free(ta2);
    free(tb);
    free(tc);
    job_free(a);
    job_free(b);
    job_free(c);
}

TEST_MAIN(TEST_CASE(only_what_a_client_may_send), TEST_CASE(the_same_job_gives_the_same_bytes))
