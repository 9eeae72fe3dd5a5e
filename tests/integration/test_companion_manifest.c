/* `jobctl get JOB -o manifest` against the real jobserver for a job with companions: a v1 List of the
 * Volcano Job and each companion's Pod, Service and Ingress (the annotation's first, then one attached
 * later with POST companions), every one owned by the Job: by Caldera's uid of it, or by --owner-uid
 * (?ownerUid=); the same bytes every time; a malformed ownerUid is a 400 Status naming the parameter. A
 * job without companions is still the Job alone. When kubectl is installed, it reads the List offline.
 * The jobs ask for more CPU than the machine has, so they and their companions stay Pending. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/lib/job_client.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define MANIFEST "/apis/caldera.io/v1/namespaces/default/jobs/%s/manifest"
#define COMPANIONS "/apis/caldera.io/v1/namespaces/default/companions"
#define CLUSTER_UID "5f0c9a1e-2b3c-4d5e-8f90-a1b2c3d4e5f6"

static long submit(const struct test_server *s, const char *name, const char *annotations)
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\n"
             "metadata: {name: %s, annotations: {%s}}\n"
             "spec:\n  tasks:\n  - name: main\n    replicas: 1\n    template:\n      spec:\n"
             "        containers:\n        - name: c\n          image: python:3.12\n"
             "          command: [sleep, '600']\n          resources: {requests: {cpu: '4096'}}\n",
             name, annotations);
    long code = 0;
    json_t *answer = server_request(s, "POST", JOBS, yaml, "application/yaml", &code);
    json_decref(answer);
    return code;
}

/* jobctl get name -o manifest [--owner-uid uid]: its exit status, stdout and stderr. */
static int get_manifest(const struct test_server *s, const char *name, const char *owner_uid, char **out, char **err)
{
    const char *args[] = {"get", name, "-o", "manifest", owner_uid ? "--owner-uid" : NULL, owner_uid, NULL};
    return server_jobctl(s, args, out, err);
}

/* Every item after the Job is owned by the Job named job of uid uid. */
static void check_owned(json_t *list, const char *job, const char *uid)
{
    size_t i;
    json_t *it;
    json_array_foreach(json_object_get(list, "items"), i, it)
    {
        if (i == 0)
            continue;
        json_t *refs = json_object_get(json_object_get(it, "metadata"), "ownerReferences");
        CHECK(json_array_size(refs) == 1);
        json_t *ref = json_array_get(refs, 0);
        CHECK_STR(jv_str(ref, "apiVersion"), "batch.volcano.sh/v1alpha1");
        CHECK_STR(jv_str(ref, "kind"), "Job");
        CHECK_STR(jv_str(ref, "name"), job);
        CHECK_STR(jv_str(ref, "uid"), uid);
        CHECK(json_is_true(json_object_get(ref, "controller")));
        CHECK(json_is_true(json_object_get(ref, "blockOwnerDeletion")));
    }
}

/* kubectl, offline (--local: no API server), reads every object of the List; its names, one a line. */
static char *kubectl_names(const char *manifest)
{
    char path[] = "/tmp/caldera-manifest-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(path);
        return NULL;
    }
    fputs(manifest, f);
    fclose(f);
    char cmd[256], *names = NULL;
    snprintf(cmd, sizeof cmd, "kubectl label --local -o name -f %s caldera.io/checked=yes 2>&1", path);
    FILE *p = popen(cmd, "r");
    if (p) {
        size_t cap = 0;
        ssize_t n = getdelim(&names, &cap, '\0', p);
        if (n < 0) {
            free(names);
            names = NULL;
        }
        if (pclose(p) != 0) {
            fprintf(stderr, "# kubectl: %s\n", names ? names : "");
            free(names);
            names = NULL;
        }
    }
    unlink(path);
    return names;
}

static void companions_as_owned_objects(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, NULL) == 0);
    REQUIRE(submit(&s, "nb", "caldera.io/companions: 'jupyter,terminal'") == 201);
    json_t *job = job_get(&s, "nb");
    const char *caldera_uid = jv_str(job, "metadata.uid");
    REQUIRE(caldera_uid != NULL);

    /* without --owner-uid: Caldera's own uid of the job */
    char *out = NULL, *err = NULL;
    CHECK_INT(get_manifest(&s, "nb", NULL, &out, &err), 0);
    json_t *list = out ? json_loads(out, 0, NULL) : NULL;
    REQUIRE(list != NULL);
    CHECK_STR(jv_str(list, "apiVersion"), "v1");
    CHECK_STR(jv_str(list, "kind"), "List");
    const char *want[][2] = {
        {"Job", "nb"},          {"Pod", "nb-jupyter"},      {"Service", "nb-jupyter"}, {"Ingress", "nb-jupyter"},
        {"Pod", "nb-terminal"}, {"Service", "nb-terminal"}, {"Ingress", "nb-terminal"}};
    CHECK_INT(json_array_size(json_object_get(list, "items")), 7);
    for (size_t i = 0; i < 7; i++) {
        json_t *it = json_array_get(json_object_get(list, "items"), i);
        CHECK_STR(jv_str(it, "kind"), want[i][0]);
        CHECK_STR(jv_str(it, "metadata.name"), want[i][1]);
    }
    check_owned(list, "nb", caldera_uid);
    CHECK_STR(jv_str(list, "items.1.spec.containers.0.env.0.valueFrom.secretKeyRef.name"), "nb-jupyter-token");
    CHECK_STR(jv_str(list, "items.3.spec.rules.0.http.paths.0.path"), "/proxy/default/nb-jupyter/");
    json_decref(list);

    /* with it: the cluster's, and the same bytes twice */
    char *owned = NULL, *again = NULL;
    CHECK_INT(get_manifest(&s, "nb", CLUSTER_UID, &owned, NULL), 0);
    CHECK_INT(get_manifest(&s, "nb", CLUSTER_UID, &again, NULL), 0);
    REQUIRE(owned && again);
    CHECK_STR(owned, again);
    list = json_loads(owned, 0, NULL);
    REQUIRE(list != NULL);
    check_owned(list, "nb", CLUSTER_UID);
    CHECK(strstr(owned, caldera_uid) == NULL);
    json_decref(list);

    /* a companion attached later follows the annotation's */
    long code = 0;
    json_t *made = server_request(&s, "POST", COMPANIONS,
                                  "{\"apiVersion\":\"caldera.io/v1\",\"kind\":\"Companion\",\"metadata\":{},"
                                  "\"spec\":{\"jobName\":\"nb\",\"type\":\"tensorboard\"}}",
                                  NULL, &code);
    CHECK_INT(code, 201);
    json_decref(made);
    char *later = NULL;
    CHECK_INT(get_manifest(&s, "nb", CLUSTER_UID, &later, NULL), 0);
    list = later ? json_loads(later, 0, NULL) : NULL;
    REQUIRE(list != NULL);
    CHECK_INT(json_array_size(json_object_get(list, "items")), 10);
    CHECK_STR(jv_str(list, "items.7.kind"), "Pod");
    CHECK_STR(jv_str(list, "items.7.metadata.name"), "nb-tensorboard");
    check_owned(list, "nb", CLUSTER_UID);
    json_decref(list);

    /* kubectl, when there, reads every object */
    if (access("/usr/bin/kubectl", X_OK) == 0) {
        char *names = kubectl_names(owned);
        CHECK(names != NULL);
        if (names) {
            CHECK_CONTAINS(names, "job.batch.volcano.sh/nb\n");
            CHECK_CONTAINS(names, "pod/nb-jupyter\n");
            CHECK_CONTAINS(names, "service/nb-terminal\n");
            CHECK_CONTAINS(names, "ingress.networking.k8s.io/nb-terminal\n");
        }
        free(names);
    }
    free(out);
    free(err);
    free(owned);
    free(again);
    free(later);
    json_decref(job);
    server_cleanup(&s);
}

static void bad_owner_uid_and_no_companions(void)
{
    struct test_server s;
    REQUIRE(server_start(&s, NULL, NULL) == 0);
    REQUIRE(submit(&s, "plain", "note: x") == 201);
    REQUIRE(submit(&s, "nb", "caldera.io/companions: terminal") == 201);

    /* a malformed ownerUid: 400, naming the parameter */
    long code = 0;
    json_t *st = api_get(&s, MANIFEST "?ownerUid=not-a-uid", "nb", &code);
    CHECK_INT(code, 400);
    CHECK_STR(jv_str(st, "kind"), "Status");
    CHECK_STR(jv_str(st, "reason"), "BadRequest");
    CHECK_STR(jv_str(st, "details.causes.0.field"), "ownerUid");
    json_decref(st);
    char *out = NULL, *err = NULL;
    CHECK(get_manifest(&s, "nb", "1234", &out, &err) != 0);
    CHECK(err && strstr(err, "ownerUid"));
    free(out);
    free(err);

    /* no companions: the Job alone, as before */
    out = err = NULL;
    CHECK_INT(get_manifest(&s, "plain", CLUSTER_UID, &out, &err), 0);
    json_t *m = out ? json_loads(out, 0, NULL) : NULL;
    REQUIRE(m != NULL);
    CHECK_STR(jv_str(m, "kind"), "Job");
    CHECK_STR(jv_str(m, "apiVersion"), "batch.volcano.sh/v1alpha1");
    CHECK(strstr(out, CLUSTER_UID) == NULL);
    json_decref(m);
    free(out);
    free(err);
    server_cleanup(&s);
}

TEST_MAIN(TEST_CASE(companions_as_owned_objects), TEST_CASE(bad_owner_uid_and_no_companions))
