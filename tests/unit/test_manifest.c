/* The manifest for a real cluster (adapters/dialects/volcano/manifest.c): nothing the server assigns, Caldera's own
 * fields moved to annotations, and the same bytes every time for the same job. With companions
 * (companion_manifest.c), a v1 List of the Job and each companion's Pod, Service and Ingress, compared byte for byte
 * with the golden files in tests/unit/data/manifest/<case>.json. After a deliberate change of the rendering,
 * regenerate them from the repository root with
 *     UPDATE_GOLDEN=1 build/asan/tests/unit/test_manifest
 * and review the diff: the test then writes every golden file instead of comparing (and fails nothing). */
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/dialect.h"
#include "adapters/dialects/volcano/companion_manifest.h"
#include "adapters/dialects/volcano/job.h"
#include "adapters/dialects/volcano/manifest.h"
#include "adapters/intake/intake.h"
#include "adapters/objects/companion_types.h"
#include "common/fs.h"
#include "tests/lib/test.h"

#define GOLDEN_DIR "tests/unit/data/manifest"
#define JOB_UID "0b6c1a52-5f1e-4f0e-9d55-1c2f3a4b5c6d"
#define CLUSTER_UID "7d1e3f00-aaaa-4bbb-8ccc-0123456789ab"

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
    CHECK(json_object_get(json_object_get(job_manifest(job), "spec"), "autoMemoryScale") != NULL);
    CHECK(json_object_get(json_object_get(json_object_get(job_manifest(job), "metadata"), "annotations"),
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

/* Any document (a Volcano Job, or a dialect's: a training request) admitted as the server would, with the
 * server-assigned fields fixed. */
static struct job *admit_any(const char *yaml)
{
    struct intake in;
    struct api_status st = {0};
    struct job *job = NULL;
    if (intake_parse(yaml, strlen(yaml), INTAKE_YAML, &in, &st) != 0)
        return NULL;
    const json_t *root = in.docs[0].root;
    const struct dialect *d = dialect_by_kind(json_string_value(json_object_get(root, "apiVersion")),
                                              json_string_value(json_object_get(root, "kind")));
    if (dialect_job_from_doc(d, &in.docs[0], "team-a", &job, &st) != 0)
        test_fail(__FILE__, __LINE__, "refused: %s", st.message);
    intake_free(&in);
    if (job) {
        snprintf(job->uid, sizeof job->uid, JOB_UID);
        job->created_ms = 1700000000000;
        volcano_job_stamp_metadata(job);
    }
    return job;
}

/* A Volcano Job asking for a notebook and a terminal by annotation. */
static const char annotated_yaml[] =
    "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\n"
    "metadata: {name: nb, annotations: {caldera.io/companions: 'jupyter, terminal'}}\n"
    "spec:\n  tasks:\n  - name: main\n    replicas: 1\n"
    "    template: {spec: {containers: [{name: main, image: python:3.12, command: [sleep, '3600']}]}}\n";

/* A training request with companions (PyTorch: a master and workers; the companions serve the first). */
static const char training_yaml[] =
    "apiVersion: caldera.io/v1\nkind: Training\nname: mnist\nframework: pytorch\n"
    "image: pytorch/pytorch:2.3.0\ncommand: [python, train.py]\nworkers: 2\n"
    "companions: [tensorboard, jupyter]\n";

/* The Job's volumes (a claim by name, and one Volcano names itself), a securityContext, tolerations, a
 * multi-replica task named by annotation, an owner uid from the cluster. */
static const char volumes_yaml[] =
    "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\n"
    "metadata: {name: sim, annotations: {caldera.io/companions: code-server, caldera.io/companion-task: workers}}\n"
    "spec:\n  volumes:\n  - {mountPath: /data, volumeClaimName: team-data}\n"
    "  - {mountPath: /scratch, volumeClaim: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}\n"
    "  tasks:\n"
    "  - name: prep\n    replicas: 1\n"
    "    template: {spec: {containers: [{name: prep, image: busybox, command: ['true']}]}}\n"
    "  - name: workers\n    replicas: 3\n    template:\n      spec:\n"
    "        securityContext: {runAsUser: 1000, runAsGroup: 100}\n"
    "        tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]\n"
    "        containers:\n        - name: w\n          image: registry.example/sim:1\n"
    "          command: [python, sim.py]\n          workingDir: /work\n";

static char *render_text(const struct job *job, const struct companion_types *types, const char *owner_uid)
{
    struct companion_manifest_set set = {0};
    if (companion_manifest_requested(job, types, &set) != 0)
        return NULL;
    json_t *m = manifest_job_with_companions(job, &set, owner_uid);
    companion_manifest_set_free(&set);
    char *text = m ? manifest_text(m) : NULL;
    json_decref(m);
    return text;
}

/* Compares text with GOLDEN_DIR/<name>.json byte for byte, or writes it there under UPDATE_GOLDEN=1. */
static void check_golden(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s.json", GOLDEN_DIR, name);
    if (getenv("UPDATE_GOLDEN")) {
        CHECK(mkdir_p(GOLDEN_DIR, 0755) == 0);
        CHECK(write_file_atomic(path, text, strlen(text), 0644) == 0);
        return;
    }
    char *want = NULL;
    size_t len = 0;
    if (read_file(path, 1u << 20, &want, &len) != 0) {
        test_fail(__FILE__, __LINE__, "%s is missing (UPDATE_GOLDEN=1 writes it); the rendering is:\n%s", path, text);
        return;
    }
    if (strcmp(want, text) != 0)
        test_fail(__FILE__, __LINE__, "%s differs from the rendering (UPDATE_GOLDEN=1 rewrites it):\n%s", path, text);
    free(want);
}

static void golden_case(const char *name, const char *yaml, const char *owner_uid)
{
    struct companion_types types;
    struct api_status st = {0};
    REQUIRE(companion_types_load(NULL, 0, &types, &st) == 0);
    struct job *job = admit_any(yaml);
    REQUIRE(job != NULL);
    char *text = render_text(job, &types, owner_uid), *again = render_text(job, &types, owner_uid);
    REQUIRE(text && again);
    CHECK_STR(text, again);
    check_golden(name, text);
    free(text);
    free(again);
    job_free(job);
    companion_types_free(&types);
}

static void golden_annotated_job(void) { golden_case("annotated-jupyter-terminal", annotated_yaml, NULL); }
static void golden_training_request(void) { golden_case("training-companions", training_yaml, NULL); }
static void golden_volumes_and_user(void) { golden_case("volumes-security-context", volumes_yaml, CLUSTER_UID); }

static json_t *item_of(json_t *list, const char *kind, const char *name)
{
    size_t i;
    json_t *it;
    json_array_foreach(json_object_get(list, "items"), i, it)
    {
        json_t *meta = json_object_get(it, "metadata");
        if (strcmp(json_string_value(json_object_get(it, "kind")), kind) == 0 &&
            strcmp(json_string_value(json_object_get(meta, "name")), name) == 0)
            return it;
    }
    return NULL;
}

/* What the List promises, read from the objects rather than the golden bytes. */
static void companions_make_a_list_owned_by_the_job(void)
{
    struct companion_types types;
    struct api_status st = {0};
    REQUIRE(companion_types_load(NULL, 0, &types, &st) == 0);
    struct job *job = admit_any(annotated_yaml);
    REQUIRE(job != NULL);
    struct companion_manifest_set set = {0};
    REQUIRE(companion_manifest_requested(job, &types, &set) == 0);
    REQUIRE(set.n == 2);
    CHECK_STR(set.items[0].name, "nb-jupyter");
    CHECK_STR(set.items[1].name, "nb-terminal");
    json_t *m = manifest_job_with_companions(job, &set, CLUSTER_UID);
    REQUIRE(m != NULL);
    CHECK_STR(json_string_value(json_object_get(m, "kind")), "List");
    json_t *items = json_object_get(m, "items");
    REQUIRE(json_array_size(items) == 7);
    const char *kinds[] = {"Job", "Pod", "Service", "Ingress", "Pod", "Service", "Ingress"};
    for (size_t i = 0; i < 7; i++)
        CHECK_STR(json_string_value(json_object_get(json_array_get(items, i), "kind")), kinds[i]);
    for (size_t i = 1; i < 7; i++) {
        json_t *owner = json_array_get(
            json_object_get(json_object_get(json_array_get(items, i), "metadata"), "ownerReferences"), 0);
        CHECK_STR(json_string_value(json_object_get(owner, "uid")), CLUSTER_UID);
        CHECK_STR(json_string_value(json_object_get(owner, "kind")), "Job");
        CHECK_STR(json_string_value(json_object_get(owner, "name")), "nb");
        CHECK(json_is_true(json_object_get(owner, "controller")));
        CHECK(json_is_true(json_object_get(owner, "blockOwnerDeletion")));
    }
    /* the token comes from the Secret, never the manifest */
    json_t *pod = item_of(m, "Pod", "nb-jupyter");
    REQUIRE(pod != NULL);
    json_t *c = json_array_get(json_object_get(json_object_get(pod, "spec"), "containers"), 0);
    json_t *env0 = json_array_get(json_object_get(c, "env"), 0);
    CHECK_STR(json_string_value(json_object_get(env0, "name")), COMPANION_MANIFEST_TOKEN_ENV);
    json_t *ref = json_object_get(json_object_get(env0, "valueFrom"), "secretKeyRef");
    CHECK_STR(json_string_value(json_object_get(ref, "name")), "nb-jupyter-token");
    CHECK_STR(json_string_value(json_object_get(ref, "key")), "token");
    char *text = manifest_text(m);
    REQUIRE(text != NULL);
    CHECK_CONTAINS(text, "\"JUPYTER_TOKEN\"");
    CHECK_CONTAINS(text, "\"value\": \"$(CALDERA_COMPANION_TOKEN)\"");
    CHECK(strstr(text, "127.0.0.1") == NULL);
    CHECK(strstr(text, "{token") == NULL);
    /* the Service selects the Pod, the Ingress routes the proxy path to it */
    json_t *svc = item_of(m, "Service", "nb-jupyter");
    REQUIRE(svc != NULL);
    CHECK_STR(json_string_value(
                  json_object_get(json_object_get(json_object_get(svc, "spec"), "selector"), COMPANION_MANIFEST_LABEL)),
              "nb-jupyter");
    CHECK_INT(json_integer_value(
                  json_object_get(json_array_get(json_object_get(json_object_get(svc, "spec"), "ports"), 0), "port")),
              8888);
    json_t *ing = item_of(m, "Ingress", "nb-terminal");
    REQUIRE(ing != NULL);
    json_t *path = json_array_get(
        json_object_get(
            json_object_get(json_array_get(json_object_get(json_object_get(ing, "spec"), "rules"), 0), "http"),
            "paths"),
        0);
    CHECK_STR(json_string_value(json_object_get(path, "path")), "/proxy/team-a/nb-terminal/");
    CHECK_STR(json_string_value(json_object_get(path, "pathType")), "Prefix");
    /* the terminal runs in the task's own image */
    json_t *term = item_of(m, "Pod", "nb-terminal");
    REQUIRE(term != NULL);
    CHECK_STR(json_string_value(json_object_get(
                  json_array_get(json_object_get(json_object_get(term, "spec"), "containers"), 0), "image")),
              "python:3.12");
    /* without an owner uid, Caldera's own */
    json_t *own = manifest_job_with_companions(job, &set, NULL);
    REQUIRE(own != NULL);
    char *own_text = manifest_text(own);
    CHECK_CONTAINS(own_text, "\"uid\": \"" JOB_UID "\"");
    free(own_text);
    json_decref(own);
    free(text);
    json_decref(m);
    companion_manifest_set_free(&set);
    job_free(job);
    companion_types_free(&types);
}

/* A job without companions prints exactly as before: the Job alone. */
static void without_companions_the_job_alone(void)
{
    struct companion_types types;
    struct api_status st = {0};
    REQUIRE(companion_types_load(NULL, 0, &types, &st) == 0);
    struct job *job = admit(job_yaml);
    REQUIRE(job != NULL);
    char *text = render_text(job, &types, CLUSTER_UID), *plain = manifest_job_text(job);
    REQUIRE(text && plain);
    CHECK_STR(text, plain);
    free(text);
    free(plain);
    job_free(job);
    companion_types_free(&types);
}

/* The companions file's image and port: read, checked, and the built-ins' defaults. */
static void types_carry_image_and_port(void)
{
    struct companion_types types;
    struct api_status st = {0};
    static const char file[] = "companions:\n  jupyter: {image: registry.example/lab:4, port: 9999}\n";
    REQUIRE(companion_types_load(file, strlen(file), &types, &st) == 0);
    const struct companion_type *j = companion_types_find(&types, "jupyter");
    REQUIRE(j != NULL);
    CHECK_STR(j->image, "registry.example/lab:4");
    CHECK_INT(j->port, 9999);
    const struct companion_type *tb = companion_types_find(&types, "tensorboard");
    REQUIRE(tb != NULL);
    CHECK_STR(tb->image, "tensorflow/tensorflow");
    CHECK_INT(tb->port, 6006);
    const struct companion_type *term = companion_types_find(&types, "terminal");
    REQUIRE(term != NULL);
    CHECK(term->image == NULL);
    CHECK_INT(term->port, 7681);
    companion_types_free(&types);

    static const char bad[] = "companions:\n  jupyter: {port: 70000, image: 'a b'}\n";
    struct api_status st2 = {0};
    CHECK(companion_types_load(bad, strlen(bad), &types, &st2) != 0);
    CHECK_INT(st2.code, 422);
    bool port_cause = false, image_cause = false;
    for (int i = 0; i < st2.ncauses; i++) {
        port_cause |= strcmp(st2.causes[i].field, "companions.jupyter.port") == 0;
        image_cause |= strcmp(st2.causes[i].field, "companions.jupyter.image") == 0;
    }
    CHECK(port_cause);
    CHECK(image_cause);
}

TEST_MAIN(TEST_CASE(only_what_a_client_may_send), TEST_CASE(the_same_job_gives_the_same_bytes),
          TEST_CASE(without_companions_the_job_alone), TEST_CASE(companions_make_a_list_owned_by_the_job),
          TEST_CASE(golden_annotated_job), TEST_CASE(golden_training_request), TEST_CASE(golden_volumes_and_user),
          TEST_CASE(types_carry_image_and_port))
