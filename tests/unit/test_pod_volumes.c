/* Pod volumes in a Volcano Job's template: hostPath and emptyDir joined with the container's
 * volumeMounts, and every wrong volume or mount named as Kubernetes' validation names it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/volcano/job.h"
#include "adapters/objects/pod_volumes.h"
#include "tests/lib/causes.h"
#include "tests/lib/test.h"
#include "tests/lib/yaml_fixture.h"

static struct job *parse(const char *volumes, const char *mounts, struct api_status *st)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: train}\nspec:\n  tasks:\n"
             "  - name: w\n    replicas: 1\n    template:\n      spec:\n        volumes:\n%s"
             "        containers:\n        - name: c\n          command: [env]\n          volumeMounts:\n%s",
             volumes, mounts);
    return yaml_volcano_job(yaml, "team-a", false, st);
}

static void mounts_join_their_volumes(void)
{
    struct api_status st;
    struct job *job = parse(
        "        - {name: data, hostPath: {path: /srv/data, type: DirectoryOrCreate}}\n"
        "        - {name: cache, emptyDir: {medium: Memory, sizeLimit: 64Mi}}\n"
        "        - {name: unused, emptyDir: {}}\n",
        "          - {name: cache, mountPath: /cache}\n"
        "          - {name: data, mountPath: /data, readOnly: true, mountPropagation: None}\n",
        &st);
    REQUIRE(job);
    const struct task_spec *ts = &job->tasks[0];
    REQUIRE(ts->nmounts == 2);
    CHECK_STR(ts->mounts[0].volume, "cache");
    CHECK_INT(ts->mounts[0].kind, POD_VOLUME_EMPTY_DIR);
    CHECK(ts->mounts[0].memory);
    CHECK_INT(ts->mounts[0].size_limit, 64 * 1024 * 1024);
    CHECK_STR(ts->mounts[1].mount_path, "/data");
    CHECK_INT(ts->mounts[1].kind, POD_VOLUME_HOST_PATH);
    CHECK_STR(ts->mounts[1].host_path, "/srv/data");
    CHECK_INT(ts->mounts[1].host_type, HOST_PATH_DIRECTORY_OR_CREATE);
    CHECK(ts->mounts[1].read_only);
    CHECK(pod_volumes_host_path(ts));
    job_free(job);
}

#define VOLS "spec.tasks[0].template.spec.volumes"
#define MNTS "spec.tasks[0].template.spec.containers[0].volumeMounts"

static void wrong_volumes_are_named(void)
{
    struct api_status st;
    struct job *job = parse(
        "        - {name: a, hostPath: {path: /x, type: Dir}}\n"    /* 11 */
        "        - {name: b, hostPath: {path: /x/../etc}}\n"        /* 12 */
        "        - {name: c, emptyDir: {medium: HugePages}}\n"      /* 13 */
        "        - {name: a, emptyDir: {}}\n"                       /* 14 */
        "        - {name: e}\n"                                     /* 15 */
        "        - {name: f, emptyDir: {}, hostPath: {path: /x}}\n" /* 16 */
        "        - {name: g, configMap: {name: ''}}\n"              /* 17 */
        "        - {name: Bad_Name, emptyDir: {}}\n",               /* 18 */
        "          - {name: a, mountPath: /a}\n", &st);
    CHECK(job == NULL);
    CHECK_INT(st.code, 422);
    CHECK_CAUSE(&st, VOLS "[0].hostPath.type", "FieldValueNotSupported", 11, "\"DirectoryOrCreate\"");
    CHECK_CAUSE(&st, VOLS "[1].hostPath.path", "FieldValueInvalid", 12, "must not contain '..'");
    CHECK_CAUSE(&st, VOLS "[2].emptyDir.medium", "FieldValueNotSupported", 13, "\"Memory\"");
    CHECK_CAUSE(&st, VOLS "[3].name", "FieldValueDuplicate", 14, "Duplicate value: \"a\"");
    CHECK_CAUSE(&st, VOLS "[4]", "FieldValueRequired", 15, "must specify a volume type");
    CHECK_CAUSE(&st, VOLS "[5].emptyDir", "FieldValueForbidden", 16, "may not specify more than 1 volume type");
    CHECK_CAUSE(&st, VOLS "[6].configMap.name", "FieldValueRequired", 17, "Required value");
    CHECK_CAUSE(&st, VOLS "[7].name", "FieldValueInvalid", 18, "RFC 1123");
}

static void wrong_mounts_are_named(void)
{
    struct api_status st;
    struct job *job = parse("        - {name: a, emptyDir: {}}\n",
                            "          - {name: missing, mountPath: /m}\n"                             /* 16 */
                            "          - {name: a, mountPath: relative}\n"                             /* 17 */
                            "          - {name: a, mountPath: /x, subPath: y}\n"                       /* 18 */
                            "          - {name: a, mountPath: /x, mountPropagation: Bidirectional}\n", /* 19 */
                            &st);
    CHECK(job == NULL);
    CHECK_CAUSE(&st, MNTS "[0].name", "FieldValueNotFound", 16, "Not found: \"missing\"");
    CHECK_CAUSE(&st, MNTS "[1].mountPath", "FieldValueInvalid", 17, "absolute");
    CHECK_CAUSE(&st, MNTS "[2].subPath", "FieldValueForbidden", 18, "whole volumes");
    CHECK_CAUSE(&st, MNTS "[3].mountPropagation", "FieldValueForbidden", 19, "only None");
    job = parse("        - {name: a, emptyDir: {}}\n",
                "          - {name: a, mountPath: /x}\n"
                "          - {name: a, mountPath: /x}\n",
                &st);
    CHECK(job == NULL);
    CHECK_CAUSE(&st, MNTS "[1].mountPath", "FieldValueInvalid", 17, "must be unique");
}

TEST_MAIN(TEST_CASE(mounts_join_their_volumes), TEST_CASE(wrong_volumes_are_named), TEST_CASE(wrong_mounts_are_named))
