/* Unit tests of running tasks as their submitter (adapters/objects/run_as.c, a PodSecurityPolicy's rule):
 * a pod or container securityContext asking for another uid or gid is refused by its field and line;
 * otherwise the ids land in every pod template (what is stored) and every task spec (what runs);
 * a dialect's refusal names its own fields. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/dialect.h"
#include "adapters/intake/intake.h"
#include "adapters/objects/run_as.h"
#include "adapters/dialects/volcano/job.h"
#include "tests/lib/causes.h"
#include "tests/lib/test.h"

static const struct run_as alice = {"alice", 1001, 1001};

static const char *const job_yaml =
    "apiVersion: batch.volcano.sh/v1alpha1\n"       /* 1 */
    "kind: Job\n"                                   /* 2 */
    "metadata: {name: train}\n"                     /* 3 */
    "spec:\n"                                       /* 4 */
    "  tasks:\n"                                    /* 5 */
    "  - name: master\n"                            /* 6 */
    "    replicas: 1\n"                             /* 7 */
    "    template:\n"                               /* 8 */
    "      spec:\n"                                 /* 9 */
    "        securityContext: {runAsUser: %s}\n"    /* 10 */
    "        containers:\n"                         /* 11 */
    "        - name: c\n"                           /* 12 */
    "          command: [id]\n"                     /* 13 */
    "          securityContext: {runAsGroup: %s}\n" /* 14 */
    "  - name: worker\n"                            /* 15 */
    "    replicas: 2\n"                             /* 16 */
    "    template:\n"                               /* 17 */
    "      spec:\n"                                 /* 18 */
    "        containers:\n"                         /* 19 */
    "        - name: c\n"                           /* 20 */
    "          command: [id]\n";                    /* 21 */

struct parsed {
    struct intake in;
    struct job *job;
    struct api_status st;
};

static int parse(struct parsed *p, const char *uid, const char *gid)
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml, job_yaml, uid, gid);
    memset(p, 0, sizeof *p);
    if (intake_parse(yaml, strlen(yaml), INTAKE_YAML, &p->in, &p->st) != 0)
        return -1;
    return volcano_job_from_doc(&p->in.docs[0], "team-a", &p->job, &p->st);
}

static void done(struct parsed *p)
{
    job_free(p->job);
    intake_free(&p->in);
}

static json_t *pod_security(const struct job *job, int t)
{
    json_t *task = json_array_get(json_object_get(json_object_get(job_manifest(job), "spec"), "tasks"), (size_t)t);
    return json_object_get(json_object_get(json_object_get(task, "template"), "spec"), "securityContext");
}

/* Another uid in the pod, another gid in the container: each refused by its field, in one 403. */
static void another_uid_or_gid_is_refused_by_its_field(void)
{
    struct parsed p;
    REQUIRE(parse(&p, "0", "0") == 0);
    struct fields f = {&p.in.docs[0], &p.st, false};
    CHECK_INT(run_as_enforce(&f, p.job, &alice, "jobs.batch.volcano.sh"), -1);
    CHECK_INT(p.st.code, 403);
    CHECK_STR(p.st.reason, "Forbidden");
    CHECK_INT(p.st.ncauses, 2);
    CHECK_CAUSE(&p.st, "spec.tasks[0].template.spec.securityContext.runAsUser", "FieldValueForbidden", 10,
                "Forbidden: the token's user alice runs as uid 1001, not 0");
    CHECK_CAUSE(&p.st, "spec.tasks[0].template.spec.containers[0].securityContext.runAsGroup", "FieldValueForbidden",
                14, "runs as gid 1001, not 0");
    CHECK_CONTAINS(p.st.message,
                   "jobs.batch.volcano.sh \"train\" is forbidden: [spec.tasks[0].template.spec."
                   "securityContext.runAsUser: Forbidden: the token's user alice runs as uid 1001, "
                   "not 0 (line 10, column");
    CHECK(json_object_get(pod_security(p.job, 1), "runAsUser") == NULL); /* nothing written when refused */
    done(&p);
}

/* The user's own ids (or none) pass, and are written where they are stored and where they run. */
static void the_users_ids_are_written_into_every_task(void)
{
    struct parsed p;
    REQUIRE(parse(&p, "1001", "1001") == 0);
    struct fields f = {&p.in.docs[0], &p.st, false};
    CHECK_INT(run_as_enforce(&f, p.job, &alice, "jobs.batch.volcano.sh"), 0);
    CHECK_INT(p.st.code, 0);
    for (int t = 0; t < 2; t++) {
        CHECK_INT(json_integer_value(json_object_get(pod_security(p.job, t), "runAsUser")), 1001);
        CHECK_INT(json_integer_value(json_object_get(pod_security(p.job, t), "runAsGroup")), 1001);
        CHECK_INT(p.job->tasks[t].run_as_uid, 1001);
        CHECK_INT(p.job->tasks[t].run_as_gid, 1001);
    }
    /* the stored spec is the manifest: a restart reads the ids back */
    char *stored = json_dumps(job_manifest(p.job), JSON_COMPACT);
    struct intake again;
    struct job *back = NULL;
    struct api_status st = {0};
    REQUIRE(intake_parse(stored, strlen(stored), INTAKE_JSON, &again, &st) == 0);
    CHECK_INT(volcano_job_from_admitted_doc(&again.docs[0], "team-a", &back, &st), 0);
    CHECK(back && back->tasks[1].run_as_uid == 1001 && back->tasks[1].run_as_gid == 1001);
    job_free(back);
    intake_free(&again);
    free(stored);
    done(&p);
}

static const char *const pytorch_yaml =
    "apiVersion: kubeflow.org/v1\n"               /* 1 */
    "kind: PyTorchJob\n"                          /* 2 */
    "metadata: {name: mnist}\n"                   /* 3 */
    "spec:\n"                                     /* 4 */
    "  pytorchReplicaSpecs:\n"                    /* 5 */
    "    Master:\n"                               /* 6 */
    "      template:\n"                           /* 7 */
    "        spec:\n"                             /* 8 */
    "          containers:\n"                     /* 9 */
    "          - name: pytorch\n"                 /* 10 */
    "            command: [python, train.py]\n"   /* 11 */
    "    Worker:\n"                               /* 12 */
    "      replicas: 2\n"                         /* 13 */
    "      template:\n"                           /* 14 */
    "        spec:\n"                             /* 15 */
    "          securityContext: {runAsUser: 0}\n" /* 16 */
    "          containers:\n"                     /* 17 */
    "          - name: pytorch\n"                 /* 18 */
    "            command: [python, train.py]\n";  /* 19 */

/* A PyTorchJob's refusal speaks of its own replica specs, lines and kind. */
static void a_dialects_refusal_names_its_own_fields(void)
{
    struct intake in;
    struct api_status st = {0};
    REQUIRE(intake_parse(pytorch_yaml, strlen(pytorch_yaml), INTAKE_YAML, &in, &st) == 0);
    const struct dialect *d = dialect_by_kind("kubeflow.org/v1", "PyTorchJob");
    struct dialect_translation paths = {0};
    struct job *job = NULL;
    REQUIRE(d && dialect_job_from_doc_keep(d, &in.docs[0], "team-a", &job, &st, &paths) == 0);
    struct fields f = {&in.docs[0], &st, false};
    CHECK_INT(run_as_enforce(&f, job, &alice, "pytorchjobs.kubeflow.org"), -1);
    dialect_restate_status(d, &in.docs[0], &paths, &st);
    CHECK_INT(st.code, 403);
    CHECK_CAUSE(&st, "spec.pytorchReplicaSpecs.Worker.template.spec.securityContext.runAsUser", "FieldValueForbidden",
                16, "runs as uid 1001, not 0");
    CHECK_CONTAINS(st.message, "pytorchjobs.kubeflow.org \"mnist\" is forbidden: spec.pytorchReplicaSpecs.Worker");
    CHECK_STR(st.kind, "pytorchjobs");
    CHECK_STR(st.group, "kubeflow.org");
    job_free(job);
    /* Without the Worker's runAsUser the translation's own tasks (the master) get the ids too. */
    char *fixed = strdup(pytorch_yaml);
    char *sc = strstr(fixed, "          securityContext: {runAsUser: 0}\n");
    memmove(sc, sc + strlen("          securityContext: {runAsUser: 0}\n"),
            strlen(sc + strlen("          securityContext: {runAsUser: 0}\n")) + 1);
    struct intake in2;
    memset(&st, 0, sizeof st);
    REQUIRE(intake_parse(fixed, strlen(fixed), INTAKE_YAML, &in2, &st) == 0);
    REQUIRE(dialect_job_from_doc(d, &in2.docs[0], "team-a", &job, &st) == 0);
    struct fields f2 = {&in2.docs[0], &st, false};
    CHECK_INT(run_as_enforce(&f2, job, &alice, "pytorchjobs.kubeflow.org"), 0);
    for (int t = 0; t < job->ntasks; t++)
        CHECK_INT(job->tasks[t].run_as_uid, 1001);
    job_free(job);
    intake_free(&in2);
    free(fixed);
    intake_free(&in);
}

TEST_MAIN(TEST_CASE(another_uid_or_gid_is_refused_by_its_field), TEST_CASE(the_users_ids_are_written_into_every_task),
          TEST_CASE(a_dialects_refusal_names_its_own_fields))
