/* Jobs through a test server's API for integration tests: Job YAML from parts, submit, get, wait,
 * history and attempts, JSON fields by dotted path. */
#ifndef CALDERA_TEST_JOB_CLIENT_H
#define CALDERA_TEST_JOB_CLIENT_H

#include <jansson.h>
#include <stdbool.h>

#include "tests/lib/server.h"
#include "tests/lib/test.h"

#define JOBS "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs"
#define HISTORY "/apis/caldera.io/v1/namespaces/default/jobs"
#define MAX_ATTEMPTS 16

/* The value at a dotted path ("status.state.phase"; numbers index arrays), NULL when missing. */
json_t *jv_at(json_t *v, const char *path);
const char *jv_str(json_t *v, const char *path);
long long jv_num(json_t *v, const char *path);

/* A Job named `name` with spec lines `spec` (indented 2) and `tasks` (list items, indented 2), in a
 * static buffer. */
const char *job_yaml(const char *name, const char *spec, const char *tasks);

/* A task of `replicas` running `sh -c cmd` (cmd is a YAML single-quoted scalar), with task lines
 * `more` (indented 4) and container lines `container` (indented 10). */
#define TASK(name, replicas, more, cmd, container)                                       \
    "  - name: " name "\n    replicas: " #replicas "\n" more                             \
    "    template:\n      spec:\n"                                                       \
    "        terminationGracePeriodSeconds: 2\n        containers:\n        - name: c\n" \
    "          command: [sh, -c, " cmd "]\n" container

/* POSTs the job to namespace default; returns the HTTP code (and says why on stderr unless 201). */
long job_submit(const struct test_server *s, const char *name, const char *spec, const char *tasks);
/* GET of fmt with name put in (one %s); the parsed body, *code the HTTP status. */
json_t *api_get(const struct test_server *s, const char *fmt, const char *name, long *code);
json_t *job_get(const struct test_server *s, const char *name);
json_t *job_history(const struct test_server *s, const char *name);
/* server_wait_field on the job, or on its history. */
int job_wait(const struct test_server *s, const char *name, const char *field, const char *want, int ms);
int history_wait(const struct test_server *s, const char *name, const char *field, const char *want, int ms);
/* Waits up to ms for an Event of this reason about object `name` whose message holds needle; its
 * type (Normal, Warning) into type and its message into message (len bytes). False, said on stderr,
 * when none came. */
bool event_wait(const struct test_server *s, const char *name, const char *reason, const char *needle, char type[16],
                char *message, size_t len, int ms);
/* The attempts of one pod in the history, in order; returns how many. */
int pod_attempts(json_t *history, const char *pod, json_t **out, int max);
/* A process is gone when /proc no longer has it or it is a zombie nobody reaped yet. */
bool pid_gone(long long pid);
/* Whether pid is gone (as pid_gone) within ms, polled every 50 ms. */
bool pid_gone_within(long long pid, int ms);

/* Stops the running case unless the history has exactly n attempts of the pod (freeing the history). */
#define REQUIRE_ATTEMPTS(history, pod, out, n)                                                          \
    do {                                                                                                \
        int n_ = pod_attempts(history, pod, out, MAX_ATTEMPTS);                                         \
        if (n_ != (n)) {                                                                                \
            test_fail(__FILE__, __LINE__, "%s: %d attempts in the history, expected %d", pod, n_, (n)); \
            json_decref(history);                                                                       \
            return;                                                                                     \
        }                                                                                               \
    } while (0)

#endif
