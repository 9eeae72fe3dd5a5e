/* Integration-test helpers: start a jobserver on a free port in a temporary data directory, stop or
 * kill it, talk HTTP to it, wait for a field to reach a value and run jobctl against it. */
#ifndef CALDERA_TEST_SERVER_H
#define CALDERA_TEST_SERVER_H

#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>

struct test_server {
    pid_t pid;    /* 0 when not running */
    char url[64]; /* "http://127.0.0.1:41234", no trailing slash */
    char data_dir[256];
    char log_path[300]; /* <data_dir>/jobserver.log: the server's stdout and stderr, appended */
    bool own_dir;       /* data_dir was made by server_start; server_cleanup removes it */
};

/* Starts $CALDERA_BIN_DIR/jobserver (default build/asan/bin) with --listen 127.0.0.1:0 --data DIR and
 * extra_args (NULL-terminated, may be NULL). DIR is data_dir (created if missing), or a new mkdtemp
 * directory under /tmp when data_dir is NULL. Waits (at most 20 s in all) for <DIR>/jobserver.url,
 * which the server writes once listening, then for GET /healthz to answer 200. The server dies with
 * the test process (PR_SET_PDEATHSIG) and an atexit hook kills any server still running.
 * Returns 0, or -1 after printing why and the server log's tail on stderr; the server is then
 * killed and a directory made here removed. Restarting on the same data_dir is allowed. */
int server_start(struct test_server *s, const char *data_dir, const char *const *extra_args);
/* Runs $CALDERA_BIN_DIR/jobserver --listen 127.0.0.1:0 --data data_dir extra_args... as a start that
 * is expected to end by itself (a refusal): waits at most timeout_ms, then SIGKILLs it. Its stdout
 * and stderr go to files outside data_dir; *out and *err (each may be NULL) get them (caller frees),
 * *elapsed_ms (may be NULL) how long it ran. Returns the exit code, 128 + signal number, or -1 when
 * it could not be run or had to be killed. */
int server_run_to_exit(const char *data_dir, const char *const *extra_args, int timeout_ms, char **out, char **err,
                       int *elapsed_ms);
/* SIGTERM, then waits at most 30 s (SIGKILL and a report after that). Returns the exit code when
 * the server exited, 128 + signal number when a signal ended it, or -1 (not running, or it had to
 * be SIGKILLed). Keeps the data dir. */
int server_stop(struct test_server *s);
/* SIGKILL and reap: a crash, for recovery tests. Keeps the data dir. */
void server_kill9(struct test_server *s);
/* The WebSocket stream's URL from <data_dir>/jobserver.ws-url, as a client finds it ("" when
 * missing), in a buffer of the caller's thread valid until its next call. */
const char *server_ws_url(const struct test_server *s);
/* Kills the server if still running and removes a data dir server_start made. */
void server_cleanup(struct test_server *s);

/* HTTP against the server: path starts with '/'; body may be NULL (content_type NULL means
 * application/json). *code (may be NULL) gets the HTTP status, 0 when the server could not be
 * reached. Returns the parsed JSON body (caller json_decref()s it), NULL when not JSON. */
json_t *server_request(const struct test_server *s, const char *method, const char *path, const char *body,
                       const char *content_type, long *code);
/* The same without a body, returning the raw answer (caller frees it), NULL when unreachable. */
char *server_request_text(const struct test_server *s, const char *method, const char *path, long *code);
/* Both with `Authorization: Bearer token` (token NULL: none), for servers that ask who is there. */
json_t *server_request_as(const struct test_server *s, const char *token, const char *method, const char *path,
                          const char *body, const char *content_type, long *code);
char *server_request_text_as(const struct test_server *s, const char *token, const char *method, const char *path,
                             long *code);
/* The log of pod in namespace default (its latest attempt), or NULL when the answer is not 200
 * (an attempt that never started, no such pod). Caller frees. */
char *server_pod_log(const struct test_server *s, const char *pod);
/* Polls GET path every 50 ms until the value at field (dotted, e.g. "status.state.phase"; numeric
 * segments index arrays: "items.0.metadata.name") reads want (strings as they are, numbers in
 * decimal, true/false/null), for at most timeout_ms. Returns 0, or -1 after saying on stderr what
 * it last saw. */
int server_wait_field(const struct test_server *s, const char *path, const char *field, const char *want,
                      int timeout_ms);
/* server_wait_field with a bearer token. */
int server_wait_field_as(const struct test_server *s, const char *token, const char *path, const char *field,
                         const char *want, int timeout_ms);
/* The value at a dotted path in a JSON document ("items.0.metadata.name"; "[N]" and ".N" index
 * arrays), NULL when missing: what server_wait_field reads. */
json_t *server_json_at(json_t *v, const char *path);
/* Runs jobctl ($CALDERA_JOBCTL, default build/asan/bin/jobctl) as `jobctl --server <url> args...`
 * (args NULL-terminated) with stdin from /dev/null, for at most 60 s. *out and *err (each may be
 * NULL) get its stdout and stderr (caller frees them). Returns its exit status, 128 + signal
 * number when a signal ended it, or -1 when it could not be run. */
int server_jobctl(const struct test_server *s, const char *const *args, char **out, char **err);

#endif
