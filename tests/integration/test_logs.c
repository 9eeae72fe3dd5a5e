/* Task logs and limits on a real server: stdout and stderr written by the supervisor, the log API's
 * limitBytes, tailLines, timestamps, sinceSeconds and bad values, a log past --max-log-bytes cut with
 * its marker and tail, and pids.max from --task-pids-max and a pod's caldera.io/pids-max. */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/cgroup/cgroup.h"
#include "tests/lib/job_client.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define PODS "/api/v1/namespaces/default/pods"
#define WAIT_MS 30000
#define MAX_LOG "65536"

static struct test_server server;
static bool up, failed;

static bool ensure_server(void)
{
    static const char *const args[] = {
        "--shutdown-grace", "2", "--max-log-bytes", MAX_LOG, "--task-pids-max", "1000", NULL};
    if (!up && !failed) {
        failed = server_start(&server, NULL, args) != 0;
        up = !failed;
    }
    return up;
}

static char *get_text(const char *path, long *code)
{
    char *text = server_request_text(&server, "GET", path, code);
    return text ? text : strdup("");
}

/* The job ran to Completed; its one pod's log with query q. */
static char *pod_log(const char *pod, const char *q, long *code)
{
    char path[512];
    snprintf(path, sizeof path, PODS "/%s/log%s", pod, q);
    return get_text(path, code);
}

static int count_lines(const char *text)
{
    int n = 0;
    for (const char *p = text; (p = strchr(p, '\n')); p++)
        n++;
    return n;
}

static void log_options_shape_the_answer(void)
{
    REQUIRE(ensure_server());
    REQUIRE(job_submit(&server, "lines", "",
                       TASK("t", 1, "", "'echo to-stderr >&2; sleep 0.3; for i in $(seq 1 20); do echo line $i; done'",
                            "")) == 201);
    REQUIRE(job_wait(&server, "lines", "status.state.phase", "Completed", WAIT_MS) == 0);
    long code;
    char *text = pod_log("lines-t-0", "", &code);
    CHECK_INT(code, 200);
    CHECK(strncmp(text, "to-stderr\nline 1\nline 2\n", 24) == 0); /* stdout and stderr, in order */
    CHECK_CONTAINS(text, "line 20\n");
    CHECK_INT(count_lines(text), 21);
    free(text);

    text = pod_log("lines-t-0", "?limitBytes=100", &code);
    CHECK_INT(code, 200);
    CHECK_INT(strlen(text), 100);
    free(text);
    text = pod_log("lines-t-0", "?tailLines=3", &code);
    CHECK_STR(text, "line 18\nline 19\nline 20\n");
    free(text);
    text = pod_log("lines-t-0", "?tailLines=2&limitBytes=5", &code);
    CHECK_STR(text, "line ");
    free(text);

    text = pod_log("lines-t-0", "?timestamps=true", &code);
    regex_t stamped;
    REQUIRE(regcomp(&stamped,
                    "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{9}Z (to-stderr|line [0-9]+)$",
                    REG_EXTENDED | REG_NOSUB) == 0);
    int lines = 0;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save), lines++)
        if (regexec(&stamped, line, 0, NULL, 0) != 0)
            test_fail(__FILE__, __LINE__, "not a time and a line: \"%s\"", line);
    CHECK_INT(lines, 21);
    regfree(&stamped);
    free(text);

    /* jobctl logs passes them on */
    char *out = NULL, *err = NULL;
    const char *tail[] = {"logs", "lines-t-0", "--tail", "2", "--since", "1h", "--limit-bytes", "12", NULL};
    CHECK_INT(server_jobctl(&server, tail, &out, &err), 0);
    CHECK_STR(out, "line 19\nline");
    free(out);
    free(err);
    const char *stamped_tail[] = {"logs", "lines-t-0", "--tail=1", "--timestamps", NULL};
    CHECK_INT(server_jobctl(&server, stamped_tail, &out, &err), 0);
    CHECK(out && strlen(out) == 31 + 8 && out[4] == '-' && out[29] == 'Z' && strcmp(out + 31, "line 20\n") == 0);
    free(out);
    free(err);

    /* the same options on the attempt's log in the history */
    text = get_text(
        "/apis/caldera.io/v1/namespaces/default/jobs/lines/history/pods/lines-t-0/attempts/1/log"
        "?tailLines=1",
        &code);
    CHECK_INT(code, 200);
    CHECK_STR(text, "line 20\n");
    free(text);
}

static void since_seconds_keeps_the_recent_lines(void)
{
    REQUIRE(ensure_server());
    REQUIRE(job_submit(&server, "since", "", TASK("t", 1, "", "'echo early; sleep 3; echo late'", "")) == 201);
    REQUIRE(job_wait(&server, "since", "status.state.phase", "Completed", WAIT_MS) == 0);
    long code;
    char *text = pod_log("since-t-0", "?sinceSeconds=2", &code);
    CHECK_INT(code, 200);
    CHECK_STR(text, "late\n");
    free(text);
    text = pod_log("since-t-0", "?sinceTime=2000-01-01T00:00:00Z", &code);
    CHECK_STR(text, "early\nlate\n");
    free(text);
}

/* A running task's lines are in its log as they come, not when the supervisor's buffer fills. */
static void a_running_task_log_is_readable(void)
{
    REQUIRE(ensure_server());
    REQUIRE(job_submit(&server, "live", "", TASK("t", 1, "", "'echo started; sleep 60'", "")) == 201);
    REQUIRE(job_wait(&server, "live", "status.state.phase", "Running", WAIT_MS) == 0);
    char *text = NULL;
    for (int i = 0; i < 100 && !(text && strstr(text, "started")); i++) {
        free(text);
        long code;
        text = pod_log("live-t-0", "", &code);
        usleep(50000);
    }
    CHECK_STR(text, "started\n");
    free(text);
    long code;
    json_decref(server_request(&server, "DELETE", JOBS "/live", NULL, NULL, &code));
    CHECK_INT(code, 200);
}

/* Output written just before the end is kept, and a process the task left holding its stdout does
 * not keep the pod running. */
static void the_end_is_kept_and_not_waited_for(void)
{
    REQUIRE(ensure_server());
    REQUIRE(job_submit(&server, "leaver", "", TASK("t", 1, "", "'echo before; sleep 60 & echo after'", "")) == 201);
    REQUIRE(job_wait(&server, "leaver", "status.state.phase", "Completed", 10000) == 0);
    long code;
    char *text = pod_log("leaver-t-0", "", &code);
    CHECK_STR(text, "before\nafter\n");
    free(text);
}

/* A task running as the supervisor's user cannot open the supervisor's descriptors (the log, the
 * exits file) through /proc: it is not dumpable. */
static void the_supervisor_is_not_dumpable(void)
{
    SKIP_IF(geteuid() != 0, "needs root to run the task as another user");
    REQUIRE(ensure_server());
    REQUIRE(job_submit(&server, "peek", "",
                       TASK("t", 1, "",
                            "'ls /proc/$PPID/fd >/dev/null 2>&1 && echo open || echo closed; "
                            "grep -c caldera-shim /proc/$PPID/status'",
                            "          securityContext: {runAsUser: 65534, runAsGroup: 65534}\n")) == 201);
    REQUIRE(job_wait(&server, "peek", "status.state.phase", "Completed", WAIT_MS) == 0);
    long code;
    char *text = pod_log("peek-t-0", "", &code);
    CHECK_STR(text, "closed\n1\n"); /* its parent is the supervisor, and its fds are out of reach */
    free(text);
}

/* A tenant's attack: the log replaced by a link to a root-only file. The API refuses to follow it
 * (the pod's log and the attempt's in the history alike), and refuses a second hard link too. */
static void a_log_replaced_by_a_link_is_refused(void)
{
    REQUIRE(ensure_server());
    REQUIRE(job_submit(&server, "linked", "", TASK("t", 1, "", "'echo mine'", "")) == 201);
    REQUIRE(job_wait(&server, "linked", "status.state.phase", "Completed", WAIT_MS) == 0);
    json_t *job = job_get(&server, "linked");
    char path[1024], other[1100];
    snprintf(path, sizeof path, "%s/jobs/%s/logs/linked-t-0.1.log", server.data_dir, jv_str(job, "metadata.uid"));
    json_decref(job);
    static const char *const urls[] = {
        PODS "/linked-t-0/log",
        "/apis/caldera.io/v1/namespaces/default/jobs/linked/history/pods/linked-t-0/attempts/1/log",
    };
    REQUIRE(unlink(path) == 0 && symlink("/etc/shadow", path) == 0);
    for (size_t i = 0; i < 2; i++) {
        long code;
        char *text = get_text(urls[i], &code);
        CHECK_INT(code, 403);
        CHECK_CONTAINS(text, "symbolic link");
        free(text);
    }
    snprintf(other, sizeof other, "%s.other", path);
    FILE *f = fopen(other, "w");
    REQUIRE(f);
    fputs("not the log\n", f);
    fclose(f);
    REQUIRE(unlink(path) == 0 && link(other, path) == 0);
    for (size_t i = 0; i < 2; i++) {
        long code;
        char *text = get_text(urls[i], &code);
        CHECK_INT(code, 403);
        CHECK_CONTAINS(text, "single link");
        free(text);
    }
}

static void bad_values_are_refused_by_name(void)
{
    REQUIRE(ensure_server());
    REQUIRE(job_submit(&server, "bad", "", TASK("t", 1, "", "'echo x'", "")) == 201);
    REQUIRE(job_wait(&server, "bad", "status.state.phase", "Completed", WAIT_MS) == 0);
    static const struct {
        const char *query, *says;
    } bad[] = {
        {"?limitBytes=0", "limitBytes"},
        {"?limitBytes=lots", "limitBytes"},
        {"?tailLines=-2", "tailLines"},
        {"?sinceSeconds=soon", "sinceSeconds"},
        {"?sinceTime=yesterday", "sinceTime"},
        {"?sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z", "at most one of sinceTime or sinceSeconds"},
        {"?timestamps=maybe", "timestamps"},
        {"?container=other", "the pod's only container is \\\"c\\\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        long code;
        char *text = pod_log("bad-t-0", bad[i].query, &code);
        CHECK_INT(code, 400);
        CHECK_CONTAINS(text, "\"reason\":\"BadRequest\"");
        CHECK_CONTAINS(text, bad[i].says);
        free(text);
    }
    long code;
    char *text = pod_log("bad-t-0", "?container=c", &code);
    CHECK_INT(code, 200);
    CHECK_STR(text, "x\n");
    free(text);
}

static void a_long_log_keeps_its_head_a_marker_and_its_tail(void)
{
    REQUIRE(ensure_server());
    REQUIRE(job_submit(&server, "chatty", "",
                       TASK("t", 1, "", "'seq 1 300000; sleep 0.2; echo the-last-words >&2'", "")) == 201);
    REQUIRE(job_wait(&server, "chatty", "status.state.phase", "Completed", WAIT_MS) == 0);
    long code;
    char *text = pod_log("chatty-t-0", "", &code);
    CHECK_INT(code, 200);
    CHECK(strncmp(text, "1\n2\n3\n", 6) == 0);
    CHECK_CONTAINS(text, "caldera-shim: the log reached its bound (--max-log-bytes=" MAX_LOG ")");
    CHECK_CONTAINS(text, "bytes of output were dropped (--max-log-bytes=" MAX_LOG ")");
    const char *marker = strstr(text, "bytes of output were dropped");
    CHECK(marker && strstr(marker, "\n300000\n"));
    size_t len = strlen(text);
    CHECK(len > 15 && strcmp(text + len - 15, "the-last-words\n") == 0);
    CHECK(len < 65536);
    free(text);
    /* the file itself stays within the bound */
    json_t *job = job_get(&server, "chatty");
    char path[1024];
    snprintf(path, sizeof path, "%s/jobs/%s/logs/chatty-t-0.1.log", server.data_dir, jv_str(job, "metadata.uid"));
    json_decref(job);
    struct stat st;
    CHECK(stat(path, &st) == 0 && st.st_size > 60000 && st.st_size <= 65536);
}

/* Forks `forks` children that sleep (perl: no shell between), prints how many it got and the errno
 * of the first failure, then the pids.max of its cgroup (v1's pids hierarchy, or v2's). */
#define FORKER                                                                                                  \
    "my ($n, $err, @kids) = (0, 0); for (1 .. $ARGV[0]) { my $p = fork(); if (!defined $p) { $err ||= $! + 0; " \
    "next } if ($p == 0) { sleep 60; exit 0 } push @kids, $p; $n++ } print \"forked $n errno $err\\n\"; "       \
    "kill 9, @kids; waitpid($_, 0) for @kids; open my $c, \"<\", \"/proc/self/cgroup\" or die; while (<$c>) { " \
    "chomp; my ($id, $ctl, $path) = split /:/, $_, 3; for my $f (\"/sys/fs/cgroup/pids$path/pids.max\", "       \
    "\"/sys/fs/cgroup$path/pids.max\") { next unless ($ctl =~ /(^|,)pids(,|$)/ || $id eq \"0\") && -f $f; "     \
    "open my $m, \"<\", $f or next; print \"pids.max \", scalar <$m> } }"

static const char *pids_task(const char *name, const char *pids_max, int forks)
{
    static char bufs[2][2048];
    static int next;
    char *buf = bufs[next++ % 2];
    snprintf(buf, sizeof bufs[0],
             "  - name: %s\n    replicas: 1\n    template:\n      metadata:\n        annotations: "
             "{caldera.io/pids-max: \"%s\"}\n      spec:\n        containers:\n        - name: c\n"
             "          command: [perl, -e, '" FORKER "', '%d']\n",
             name, pids_max, forks);
    return buf;
}

static bool has_pids_controller(void)
{
    const struct cgroup_layout *L = cgroup_layout();
    for (int i = 0; i < L->count; i++)
        if (L->h[i].controllers & CG_PIDS)
            return true;
    return false;
}

static void pids_max_stops_a_fork_bomb(void)
{
    SKIP_IF(geteuid() != 0, "needs root for cgroups");
    SKIP_IF(!has_pids_controller(), "no pids controller here");
    SKIP_IF(access("/usr/bin/perl", X_OK) != 0, "needs perl");
    REQUIRE(ensure_server());
    char tasks[4096];
    snprintf(tasks, sizeof tasks, "%s%s", pids_task("low", "50", 200), pids_task("high", "5000", 0));
    REQUIRE(job_submit(&server, "forks", "", tasks) == 201);
    REQUIRE(job_wait(&server, "forks", "status.state.phase", "Completed", WAIT_MS) == 0);
    long code;
    char *text = pod_log("forks-low-0", "", &code);
    int forked = -1, err = -1;
    const char *line = strstr(text, "forked ");
    CHECK(line && sscanf(line, "forked %d errno %d", &forked, &err) == 2);
    printf("# 200 forks under pids.max 50: %d made it, then errno %d\n", forked, err);
    CHECK(forked > 0 && forked < 50); /* the supervisor and perl count too */
    CHECK_INT(err, 11);               /* EAGAIN */
    CHECK_CONTAINS(text, "pids.max 50\n");
    free(text);
    /* a pod asking for more than the server allows gets the server's */
    text = pod_log("forks-high-0", "", &code);
    CHECK_CONTAINS(text, "forked 0 errno 0\n");
    CHECK_CONTAINS(text, "pids.max 1000\n");
    free(text);
}

static void a_bad_pids_annotation_is_refused(void)
{
    REQUIRE(ensure_server());
    long code;
    json_t *st = server_request(&server, "POST", JOBS, job_yaml("badpids", "", pids_task("t", "lots", 1)),
                                "application/yaml", &code);
    CHECK_INT(code, 422);
    const char *field = jv_str(st, "details.causes.0.field");
    CHECK_STR(field, "spec.tasks[0].template.metadata.annotations[caldera.io/pids-max]");
    json_decref(st);
}

static void stop_server(void)
{
    if (up)
        CHECK_INT(server_stop(&server), 0);
    server_cleanup(&server);
}

TEST_MAIN(TEST_CASE(log_options_shape_the_answer), TEST_CASE(since_seconds_keeps_the_recent_lines),
          TEST_CASE(a_running_task_log_is_readable), TEST_CASE(the_end_is_kept_and_not_waited_for),
          TEST_CASE(the_supervisor_is_not_dumpable), TEST_CASE(a_log_replaced_by_a_link_is_refused),
          TEST_CASE(bad_values_are_refused_by_name), TEST_CASE(a_long_log_keeps_its_head_a_marker_and_its_tail),
          TEST_CASE(pids_max_stops_a_fork_bomb), TEST_CASE(a_bad_pids_annotation_is_refused), TEST_CASE(stop_server))
