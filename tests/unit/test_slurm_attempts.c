/* runtime/slurm/slurm_attempts.c: rank status lines read back, and a replica's pod phase, exit and
 * Kubernetes reason from them and the Slurm job's state (OOM, time limit, node failure, preemption). */
#include <string.h>

#include "runtime/slurm/slurm_attempts.h"
#include "tests/lib/test.h"

static struct slurm_job_info job_in(enum slurm_state s, const char *name, const char *reason)
{
    struct slurm_job_info j = {.state = s, .exit_status = -1, .end_time = 1700000010};
    snprintf(j.state_name, sizeof j.state_name, "%s", name);
    snprintf(j.reason, sizeof j.reason, "%s", reason);
    return j;
}

static void test_rank_file_parse(void)
{
    struct slurm_rank_file rf;
    slurm_rank_file_parse("start 1700000000123 n2\nend 1700000001456 3\n", &rf);
    CHECK(rf.started && rf.ended);
    CHECK_INT((int)(rf.start_ms - 1700000000000), 123);
    CHECK_INT((int)(rf.end_ms - 1700000000000), 1456);
    CHECK_STR(rf.node, "n2");
    CHECK_INT(rf.status, 3);
    slurm_rank_file_parse("start 1700000000123 n2\nend 17000", &rf); /* the end line still being written */
    CHECK(rf.started && !rf.ended);
    slurm_rank_file_parse(NULL, &rf);
    CHECK(!rf.started && !rf.ended);
}

static void test_views(void)
{
    struct slurm_rank_file rf;
    struct slurm_replica_view v;
    struct slurm_job_info running = job_in(SLURM_STATE_RUNNING, "RUNNING", "None");

    slurm_rank_file_parse("start 1 n1\nend 2 0\n", &rf);
    slurm_replica_view(&rf, &running, false, &v);
    CHECK_INT(v.phase, BACKEND_POD_SUCCEEDED);
    CHECK_STR(v.reason, "Completed");
    CHECK_STR(v.node, "n1");

    slurm_rank_file_parse("start 1 n1\nend 2 3\n", &rf); /* failed while its job goes on */
    slurm_replica_view(&rf, &running, false, &v);
    CHECK_INT(v.phase, BACKEND_POD_FAILED);
    CHECK_INT(v.exit_code, 3);
    CHECK_INT(v.term_signal, 0);
    CHECK_STR(v.reason, "Error");

    slurm_rank_file_parse("start 1 n1\nend 2 143\n", &rf); /* ended by Caldera's cancel: waits for the state */
    slurm_replica_view(&rf, &running, true, &v);
    CHECK_INT(v.phase, BACKEND_POD_RUNNING);
    struct slurm_job_info cancelled = job_in(SLURM_STATE_CANCELLED, "CANCELLED", "None");
    slurm_replica_view(&rf, &cancelled, true, &v);
    CHECK_INT(v.phase, BACKEND_POD_FAILED);
    CHECK_STR(v.reason, "Cancelled");
    CHECK_INT(v.term_signal, 15);

    static const struct {
        enum slurm_state s;
        const char *name, *reason;
    } ends[] = {{SLURM_STATE_OUT_OF_MEMORY, "OUT_OF_MEMORY", "OOMKilled"},
                {SLURM_STATE_TIMEOUT, "TIMEOUT", "DeadlineExceeded"},
                {SLURM_STATE_NODE_FAIL, "NODE_FAIL", "NodeLost"},
                {SLURM_STATE_PREEMPTED, "PREEMPTED", "Evicted"}};
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
        struct slurm_job_info j = job_in(ends[i].s, ends[i].name, "None");
        slurm_rank_file_parse("start 1 n3\n", &rf); /* killed with its job: no end line */
        slurm_replica_view(&rf, &j, false, &v);
        CHECK_INT(v.phase, BACKEND_POD_FAILED);
        CHECK_STR(v.reason, ends[i].reason);
        CHECK_INT(v.exit_code, 137);
        CHECK(v.end_ms == 1700000010000);
        slurm_rank_file_parse("start 1 n3\nend 5 137\n", &rf); /* its own end, explained by the job's */
        slurm_replica_view(&rf, &j, false, &v);
        CHECK_STR(v.reason, ends[i].reason);
        CHECK_INT(v.end_ms, 5);
    }

    struct slurm_job_info pending = job_in(SLURM_STATE_PENDING, "PENDING", "Resources");
    slurm_rank_file_parse(NULL, &rf);
    slurm_replica_view(&rf, &pending, false, &v);
    CHECK_INT(v.phase, BACKEND_POD_PENDING);
    CHECK_STR(v.reason, "Unschedulable");
    CHECK_CONTAINS(v.message, "Resources");
    slurm_replica_view(&rf, NULL, false, &v); /* Slurm no longer knows the job */
    CHECK_INT(v.phase, BACKEND_POD_FAILED);
    CHECK_CONTAINS(v.message, "gone");
}

static void test_update(void)
{
    struct slurm_replica_view v = {.phase = BACKEND_POD_FAILED, .exit_code = 3, .start_ms = 1, .end_ms = 2};
    snprintf(v.node, sizeof v.node, "n2");
    snprintf(v.reason, sizeof v.reason, "Error");
    struct backend_update *u = slurm_replica_update("uid-1", "42", "worker", 1, 2, &v);
    REQUIRE(u);
    CHECK_INT(u->kind, BACKEND_POD);
    CHECK_STR(u->ref, "42");
    CHECK_STR(u->task, "worker");
    CHECK_INT(u->index, 1);
    CHECK_INT((int)u->attempt, 2);
    CHECK_STR(u->node, "n2");
    CHECK_INT(u->exit_code, 3);
    backend_update_free(u);
    struct slurm_replica_view w = v;
    CHECK(!slurm_replica_view_changed(&v, &w));
    w.phase = BACKEND_POD_RUNNING;
    CHECK(slurm_replica_view_changed(&v, &w));
}

int main(int argc, char **argv)
{
    static const struct test_case cases[] = {TEST_CASE(test_rank_file_parse), TEST_CASE(test_views),
                                             TEST_CASE(test_update)};
    return test_run(cases, sizeof cases / sizeof cases[0], argc, argv);
}
