/* The tdm plugin on virtual nodes, with the session's clock moved: revocable nodes take preemptable
 * pods only inside their zone's window, others never, and the window's end evicts the preemptable
 * pods there with the reason. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/lib/sched_fixture.h"
#include "tests/lib/test.h"

#define DAY0_MS 1795046400000LL /* 2026-11-19T00:00:00Z */
#define AT(h, m) (DAY0_MS + ((h)*60 + (m)) * 60000LL)

/* Nodes "normal" (0) and "rev" (1, zone rz1), tdm in the second tier with rz1's window. */
static void world(struct sched_fixture *fx, const char *window)
{
    setenv("TZ", "UTC", 1);
    tzset();
    fixture_init(fx, "enqueue, allocate");
    struct tier_conf *tier = &fx->conf.tiers[1];
    struct plugin_conf *pc = &tier->plugins[tier->nplugins++];
    plugin_conf_init(pc, "tdm");
    pc->arguments = json_pack("{s:s, s:s}", "tdm.revocable-zone.rz1", window, "tdm.evict.period", "1m");
    fixture_node(fx, "normal", 4000, 0);
    fixture_node(fx, "rev", 4000, 0);
    json_object_set_new(fx->c.nodes[1].labels, "volcano.sh/revocable-zone", json_string("rz1"));
}

static struct job *job_of(struct sched_fixture *fx, const char *name, int64_t cpu, bool preemptable)
{
    struct job *job = fixture_job(fx, name, "default", 1, 1, cpu);
    job->tasks[0].preemptable = preemptable;
    return job;
}

static int bound_node(const struct session *ssn, const struct job *job)
{
    for (int b = 0; b < ssn->nbinds; b++)
        if (ssn->jobs[ssn->binds[b].job].job == job)
            return ssn->binds[b].node;
    return -1;
}

static void open_window_takes_preemptable_pods_first(void)
{
    struct sched_fixture fx;
    world(&fx, "10:00-21:00");
    fx.now_ms = AT(12, 0);
    struct job *p = job_of(&fx, "spot", 1000, true);
    struct session ssn = fixture_cycle(&fx);
    CHECK_INT(bound_node(&ssn, p), 1);
    session_free(&ssn);
    fixture_free(&fx);
}

static void other_pods_never_go_to_revocable_nodes(void)
{
    struct sched_fixture fx;
    world(&fx, "10:00-21:00");
    fx.now_ms = AT(12, 0);
    struct job *big = job_of(&fx, "big", 3000, false);
    struct job *small = job_of(&fx, "small", 2000, false); /* 1000 left on normal, 4000 on rev */
    struct session ssn = fixture_cycle(&fx);
    CHECK_INT(bound_node(&ssn, big), 0);
    CHECK_INT(bound_node(&ssn, small), -1);
    CHECK_CONTAINS(fixture_info(&ssn, small)->fit_error, "1 node(s) were revocable and the pod is not preemptable");
    session_free(&ssn);
    fixture_free(&fx);
}

static void closed_window_takes_nobody(void)
{
    struct sched_fixture fx;
    world(&fx, "10:00-21:00");
    fx.now_ms = AT(21, 0); /* the end is outside */
    struct job *fill = job_of(&fx, "fill", 4000, false);
    struct job *p = job_of(&fx, "spot", 1000, true);
    struct session ssn = fixture_cycle(&fx);
    CHECK_INT(bound_node(&ssn, fill), 0);
    CHECK_INT(bound_node(&ssn, p), -1);
    CHECK_CONTAINS(fixture_info(&ssn, p)->fit_error, "were in revocable zone rz1 outside its window 10:00-21:00");
    session_free(&ssn);
    fixture_free(&fx);
}

static void window_end_evicts_preemptable_pods_with_the_reason(void)
{
    struct sched_fixture fx;
    world(&fx, "10:00-21:00");
    struct job *spot = job_of(&fx, "spot", 1000, true);
    struct job *stay = job_of(&fx, "stay", 1000, false); /* revocable "*" but not preemptable: Volcano keeps it */
    stay->tasks[0].revocable_zone = true;
    struct job *elsewhere = job_of(&fx, "elsewhere", 1000, true);
    fixture_run(&fx, spot, 0, 1, AT(11, 0));
    fixture_run(&fx, stay, 0, 1, AT(11, 0));
    fixture_run(&fx, elsewhere, 0, 0, AT(11, 0));
    fx.now_ms = AT(20, 59);
    struct session ssn = fixture_cycle(&fx);
    CHECK_INT(ssn.nevicts, 0);
    session_free(&ssn);
    fx.now_ms = AT(21, 0); /* moved on: the window closed */
    ssn = fixture_cycle(&fx);
    CHECK_INT(fixture_evicted(&ssn, spot), 1);
    CHECK_INT(fixture_evicted(&ssn, stay), 0);
    CHECK_INT(fixture_evicted(&ssn, elsewhere), 0);
    REQUIRE(ssn.nevicts == 1);
    CHECK_STR(ssn.evicts[0].message, "evicted by tdm: revocable zone rz1 closed (window 10:00-21:00) on node rev");
    session_free(&ssn);
    fixture_free(&fx);
}

static void windows_may_span_midnight(void)
{
    struct sched_fixture fx;
    world(&fx, "22:00-06:00");
    fx.now_ms = AT(3, 0);
    struct job *fill = job_of(&fx, "fill", 4000, false);
    struct job *p = job_of(&fx, "spot", 1000, true);
    struct session ssn = fixture_cycle(&fx);
    CHECK_INT(bound_node(&ssn, fill), 0);
    CHECK_INT(bound_node(&ssn, p), 1);
    session_free(&ssn);
    fx.now_ms = AT(6, 0) + 86400000LL;
    struct job *q = job_of(&fx, "later", 1000, true);
    fill->pg.phase = PG_RUNNING;
    fixture_run(&fx, fill, 0, 0, fx.now_ms);
    ssn = fixture_cycle(&fx);
    CHECK_INT(bound_node(&ssn, q), -1);
    session_free(&ssn);
    fixture_free(&fx);
}

static void a_zone_without_a_window_is_closed(void)
{
    struct sched_fixture fx;
    world(&fx, "10:00-21:00");
    json_object_set_new(fx.c.nodes[1].labels, "volcano.sh/revocable-zone", json_string("rz9"));
    fx.now_ms = AT(12, 0);
    struct job *fill = job_of(&fx, "fill", 4000, false);
    struct job *p = job_of(&fx, "spot", 1000, true);
    struct session ssn = fixture_cycle(&fx);
    CHECK_INT(bound_node(&ssn, fill), 0);
    CHECK_INT(bound_node(&ssn, p), -1);
    CHECK_CONTAINS(fixture_info(&ssn, p)->fit_error, "revocable zone rz9 outside its window (none configured)");
    session_free(&ssn);
    fixture_free(&fx);
}

TEST_MAIN(TEST_CASE(open_window_takes_preemptable_pods_first), TEST_CASE(other_pods_never_go_to_revocable_nodes),
          TEST_CASE(closed_window_takes_nobody), TEST_CASE(window_end_evicts_preemptable_pods_with_the_reason),
          TEST_CASE(windows_may_span_midnight), TEST_CASE(a_zone_without_a_window_is_closed))
