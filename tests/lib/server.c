/* Integration-test helpers around a real jobserver process: spawn it on a free port, wait until it
 * answers, stop it, and run jobctl against it. Every wait is bounded and every child is reaped. */
#include "tests/lib/server.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fs.h"
#include "common/http_client.h"
#include "common/sbuf.h"
#include "common/strv.h"

#define START_TIMEOUT_MS 20000
#define STOP_TIMEOUT_MS 30000
#define JOBCTL_TIMEOUT_MS 60000
#define POLL_MS 20
#define WAIT_FIELD_POLL_MS 50
#define LOG_TAIL_BYTES 4096
#define MAX_LIVE 32

/* --- the process registry: servers still running when the test process exits are killed ---- */

static pid_t live[MAX_LIVE];
static bool hook_installed;

static void kill_leftovers(void)
{
    for (int i = 0; i < MAX_LIVE; i++) {
        if (live[i] <= 0)
            continue;
        fprintf(stderr, "server: killing jobserver pid %d left running at exit\n", (int)live[i]);
        kill(live[i], SIGKILL);
        while (waitpid(live[i], NULL, 0) < 0 && errno == EINTR)
            ;
        live[i] = 0;
    }
}

static void track(pid_t pid)
{
    if (!hook_installed)
        hook_installed = atexit(kill_leftovers) == 0;
    for (int i = 0; i < MAX_LIVE; i++) {
        if (live[i] <= 0) {
            live[i] = pid;
            return;
        }
    }
    fprintf(stderr, "server: more than %d servers at once; pid %d is not tracked\n", MAX_LIVE, (int)pid);
}

static void untrack(pid_t pid)
{
    for (int i = 0; i < MAX_LIVE; i++)
        if (live[i] == pid)
            live[i] = 0;
}

/* --- small helpers ------------------------------------------------------------------------- */

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static void ensure_curl(void)
{
    static bool ready;
    if (!ready)
        ready = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
}

static const char *env_or(const char *name, const char *fallback)
{
    const char *v = getenv(name);
    return v && *v ? v : fallback;
}

/* A wait status as a shell would report it: the exit code, or 128 + the signal. */
static int decode_status(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return -1;
}

static pid_t wait_child(pid_t pid, int *status, int options)
{
    pid_t r;
    while ((r = waitpid(pid, status, options)) < 0 && errno == EINTR)
        ;
    return r;
}

/* The last LOG_TAIL_BYTES of the server log, from a line start, on stderr. */
static void print_log_tail(const struct test_server *s)
{
    int fd = open(s->log_path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        fprintf(stderr, "server: no log at %s: %s\n", s->log_path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return;
    }
    off_t from = st.st_size > LOG_TAIL_BYTES ? st.st_size - LOG_TAIL_BYTES : 0;
    char buf[LOG_TAIL_BYTES + 1];
    ssize_t n = pread(fd, buf, LOG_TAIL_BYTES, from);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    const char *text = from > 0 && strchr(buf, '\n') ? strchr(buf, '\n') + 1 : buf;
    fprintf(stderr, "---- %s (last %zu bytes) ----\n%s%s---- end of log ----\n", s->log_path, strlen(text), text,
            *text && text[strlen(text) - 1] != '\n' ? "\n" : "");
}

/* --- starting ------------------------------------------------------------------------------ */

/* Picks or creates the data directory and derives the log path; removes a stale URL file. */
static int prepare_dir(struct test_server *s, const char *data_dir)
{
    char dir[sizeof s->data_dir];
    bool own = data_dir == s->data_dir && s->own_dir; /* a restart on the struct's own dir */
    if (data_dir && snprintf(dir, sizeof dir, "%s", data_dir) >= (int)sizeof dir) {
        fprintf(stderr, "server_start: data dir path too long: %s\n", data_dir);
        return -1;
    }
    *s = (struct test_server){.own_dir = own || !data_dir};
    if (!data_dir && !mkdtemp(strcpy(dir, "/tmp/caldera-test-XXXXXX"))) {
        fprintf(stderr, "server_start: mkdtemp: %s\n", strerror(errno));
        return -1;
    }
    if (data_dir && mkdir_p(dir, 0700) != 0) {
        fprintf(stderr, "server_start: cannot create %s: %s\n", dir, strerror(errno));
        return -1;
    }
    snprintf(s->data_dir, sizeof s->data_dir, "%s", dir);
    snprintf(s->log_path, sizeof s->log_path, "%s/jobserver.log", dir);
    char url_file[320];
    snprintf(url_file, sizeof url_file, "%s/jobserver.url", dir);
    unlink(url_file);
    return 0;
}

static char **server_argv(const struct test_server *s, const char *const *extra_args)
{
    char **argv = NULL;
    int rc = strv_pushf(&argv, "%s/jobserver", env_or("CALDERA_BIN_DIR", "build/asan/bin"));
    const char *fixed[] = {"--listen", "127.0.0.1:0", "--data", s->data_dir};
    for (size_t i = 0; rc == 0 && i < sizeof fixed / sizeof fixed[0]; i++)
        rc = strv_push(&argv, fixed[i]);
    for (size_t i = 0; rc == 0 && extra_args && extra_args[i]; i++)
        rc = strv_push(&argv, extra_args[i]);
    if (rc != 0) {
        strv_free(argv);
        return NULL;
    }
    return argv;
}

/* In the child between fork and exec: only async-signal-safe calls. Dies with the parent. */
static void exec_child(char **argv, int in_fd, int out_fd, int err_fd, pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(126);
    if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
        _exit(126);
    execv(argv[0], argv);
    static const char msg[] = "exec failed: cannot run ";
    if (write(2, msg, sizeof msg - 1) >= 0 && write(2, argv[0], strlen(argv[0])) >= 0)
        (void)!write(2, "\n", 1);
    _exit(127);
}

/* fork + exec with the three standard descriptors given; returns the pid or -1. */
static pid_t spawn(char **argv, int in_fd, int out_fd, int err_fd)
{
    pid_t parent = getpid();
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        exec_child(argv, in_fd, out_fd, err_fd, parent);
    return pid;
}

static int spawn_server(struct test_server *s, const char *const *extra_args)
{
    char **argv = server_argv(s, extra_args);
    int log_fd = open(s->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    pid_t pid = argv && log_fd >= 0 && null_fd >= 0 ? spawn(argv, null_fd, log_fd, log_fd) : -1;
    if (pid < 0)
        fprintf(stderr, "server_start: cannot start %s: %s\n", argv ? argv[0] : "jobserver", strerror(errno));
    if (log_fd >= 0)
        close(log_fd);
    if (null_fd >= 0)
        close(null_fd);
    strv_free(argv);
    if (pid < 0)
        return -1;
    s->pid = pid;
    track(pid);
    return 0;
}

/* Reads <dir>/jobserver.url into s->url once it holds a whole http:// URL. */
static bool read_url_file(struct test_server *s)
{
    char path[320], *data = NULL;
    size_t len = 0;
    snprintf(path, sizeof path, "%s/jobserver.url", s->data_dir);
    if (read_file(path, 4096, &data, &len) != 0)
        return false;
    while (len > 0 && strchr(" \t\r\n", data[len - 1]))
        data[--len] = '\0';
    bool ok = strncmp(data, "http://", 7) == 0 && len < sizeof s->url;
    if (ok)
        memcpy(s->url, data, len + 1);
    free(data);
    return ok;
}

static bool healthy(const struct test_server *s)
{
    char url[128], err[256];
    snprintf(url, sizeof url, "%s/healthz", s->url);
    struct http_request req = {.url = url, .timeout_ms = 2000};
    struct http_response resp;
    if (http_do(&req, &resp, err, sizeof err) != 0)
        return false;
    bool ok = resp.code == 200;
    http_response_free(&resp);
    return ok;
}

/* Polls until the URL file exists and /healthz answers 200, the server exits, or time runs out. */
static int wait_ready(struct test_server *s)
{
    int64_t deadline = clock_mono_ms() + START_TIMEOUT_MS;
    int status;
    for (;;) {
        if (wait_child(s->pid, &status, WNOHANG) == s->pid) {
            untrack(s->pid);
            s->pid = 0;
            fprintf(stderr, "server_start: jobserver exited (status %d) before it was ready\n", decode_status(status));
            return -1;
        }
        if (read_url_file(s) && healthy(s))
            return 0;
        if (clock_mono_ms() >= deadline) {
            fprintf(stderr, "server_start: jobserver not ready after %d ms (url: \"%s\")\n", START_TIMEOUT_MS, s->url);
            return -1;
        }
        sleep_ms(POLL_MS);
    }
}

int server_start(struct test_server *s, const char *data_dir, const char *const *extra_args)
{
    ensure_curl();
    if (prepare_dir(s, data_dir) != 0)
        return -1;
    if (spawn_server(s, extra_args) == 0 && wait_ready(s) == 0)
        return 0;
    print_log_tail(s);
    server_cleanup(s);
    return -1;
}

/* --- a start that ends by itself ----------------------------------------------------------- */

/* A file under /tmp to collect a child's output; returns its descriptor, -1 on failure. */
static int output_file(char *path, size_t len)
{
    snprintf(path, len, "/tmp/caldera-test-out-XXXXXX");
    int fd = mkostemp(path, O_CLOEXEC);
    if (fd < 0)
        fprintf(stderr, "server_run_to_exit: mkstemp: %s\n", strerror(errno));
    return fd;
}

/* Reads the whole file into *text (when text is not NULL) and removes it. */
static void take_output(const char *path, char **text)
{
    if (text) {
        size_t len;
        if (read_file(path, 1 << 20, text, &len) != 0)
            *text = strdup("");
    }
    unlink(path);
}

int server_run_to_exit(const char *data_dir, const char *const *extra_args, int timeout_ms, char **out, char **err,
                       int *elapsed_ms)
{
    if (out)
        *out = NULL;
    if (err)
        *err = NULL;
    struct test_server s = {0};
    snprintf(s.data_dir, sizeof s.data_dir, "%s", data_dir);
    char out_path[64], err_path[64];
    int out_fd = output_file(out_path, sizeof out_path), err_fd = output_file(err_path, sizeof err_path);
    int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    char **argv = server_argv(&s, extra_args);
    int64_t start = clock_mono_ms();
    pid_t pid = argv && out_fd >= 0 && err_fd >= 0 && null_fd >= 0 ? spawn(argv, null_fd, out_fd, err_fd) : -1;
    int rc = -1, status;
    if (pid > 0) {
        track(pid);
        pid_t r;
        while ((r = wait_child(pid, &status, WNOHANG)) == 0 && clock_mono_ms() - start < timeout_ms)
            sleep_ms(POLL_MS);
        if (r == pid) {
            rc = decode_status(status);
        } else {
            fprintf(stderr, "server_run_to_exit: jobserver still running after %d ms; killing it\n", timeout_ms);
            kill(pid, SIGKILL);
            wait_child(pid, NULL, 0);
        }
        untrack(pid);
    } else {
        fprintf(stderr, "server_run_to_exit: cannot start the jobserver: %s\n", strerror(errno));
    }
    if (elapsed_ms)
        *elapsed_ms = (int)(clock_mono_ms() - start);
    strv_free(argv);
    if (null_fd >= 0)
        close(null_fd);
    if (out_fd >= 0) {
        close(out_fd);
        take_output(out_path, out);
    }
    if (err_fd >= 0) {
        close(err_fd);
        take_output(err_path, err);
    }
    return rc;
}

/* --- stopping ------------------------------------------------------------------------------ */

int server_stop(struct test_server *s)
{
    if (s->pid <= 0)
        return -1;
    pid_t pid = s->pid;
    int status, rc;
    kill(pid, SIGTERM);
    int64_t deadline = clock_mono_ms() + STOP_TIMEOUT_MS;
    pid_t r;
    while ((r = wait_child(pid, &status, WNOHANG)) == 0 && clock_mono_ms() < deadline)
        sleep_ms(10);
    if (r == pid) {
        rc = decode_status(status);
    } else {
        fprintf(stderr, "server_stop: jobserver pid %d still running %d ms after SIGTERM; killing it\n", (int)pid,
                STOP_TIMEOUT_MS);
        kill(pid, SIGKILL);
        wait_child(pid, NULL, 0);
        print_log_tail(s);
        rc = -1;
    }
    untrack(pid);
    s->pid = 0;
    return rc;
}

void server_kill9(struct test_server *s)
{
    if (s->pid <= 0)
        return;
    kill(s->pid, SIGKILL);
    wait_child(s->pid, NULL, 0);
    untrack(s->pid);
    s->pid = 0;
}

const char *server_ws_url(const struct test_server *s)
{
    static _Thread_local char url[256];
    char path[400], *data = NULL;
    size_t len = 0;
    snprintf(path, sizeof path, "%s/jobserver.ws-url", s->data_dir);
    url[0] = '\0';
    if (read_file(path, sizeof url, &data, &len) != 0)
        return url;
    while (len > 0 && data[len - 1] == '\n')
        data[--len] = '\0';
    snprintf(url, sizeof url, "%s", data);
    free(data);
    return url;
}

void server_cleanup(struct test_server *s)
{
    server_kill9(s);
    if (s->own_dir && s->data_dir[0] && remove_tree(s->data_dir) != 0)
        fprintf(stderr, "server_cleanup: cannot remove %s: %s\n", s->data_dir, strerror(errno));
    s->own_dir = false;
}

/* --- HTTP ---------------------------------------------------------------------------------- */

/* One request (with `Authorization: Bearer token` unless token is NULL); returns the body (caller
 * frees) or NULL when the server could not be reached. */
static char *request(const struct test_server *s, const char *token, const char *method, const char *path,
                     const char *body, const char *content_type, long *code, size_t *len)
{
    ensure_curl();
    char *url = NULL, err[512];
    struct http_response resp;
    if (code)
        *code = 0;
    if (asprintf(&url, "%s%s", s->url, path) < 0)
        return NULL;
    struct http_request req = {.method = method,
                               .url = url,
                               .body = body,
                               .body_len = body ? strlen(body) : 0,
                               .content_type = content_type,
                               .bearer = token};
    int rc = http_do(&req, &resp, err, sizeof err);
    free(url);
    if (rc != 0) {
        fprintf(stderr, "server_request: %s %s: %s\n", method ? method : "GET", path, err);
        return NULL;
    }
    if (code)
        *code = resp.code;
    *len = resp.len;
    return resp.body;
}

json_t *server_request_as(const struct test_server *s, const char *token, const char *method, const char *path,
                          const char *body, const char *content_type, long *code)
{
    size_t len;
    char *text = request(s, token, method, path, body, content_type, code, &len);
    json_t *v = text ? json_loadb(text, len, 0, NULL) : NULL;
    free(text);
    return v;
}

json_t *server_request(const struct test_server *s, const char *method, const char *path, const char *body,
                       const char *content_type, long *code)
{
    return server_request_as(s, NULL, method, path, body, content_type, code);
}

char *server_request_text_as(const struct test_server *s, const char *token, const char *method, const char *path,
                             long *code)
{
    size_t len;
    return request(s, token, method, path, NULL, NULL, code, &len);
}

char *server_request_text(const struct test_server *s, const char *method, const char *path, long *code)
{
    return server_request_text_as(s, NULL, method, path, code);
}

char *server_pod_log(const struct test_server *s, const char *pod)
{
    char path[512];
    long code = 0;
    snprintf(path, sizeof path, "/api/v1/namespaces/default/pods/%s/log", pod);
    char *text = server_request_text(s, "GET", path, &code);
    if (code != 200) {
        free(text);
        return NULL;
    }
    return text;
}

/* --- waiting for a field ------------------------------------------------------------------- */

json_t *server_json_at(json_t *v, const char *path)
{
    const char *p = path;
    while (v && *p) {
        p += strspn(p, ".[]");
        size_t n = strcspn(p, ".[]");
        if (n == 0)
            break;
        char seg[128];
        snprintf(seg, sizeof seg, "%.*s", (int)n, p);
        char *end;
        unsigned long idx = strtoul(seg, &end, 10);
        v = json_is_array(v) && *end == '\0' ? json_array_get(v, idx) : json_object_get(v, seg);
        p += n;
    }
    return v;
}

/* How the value reads: strings as they are, numbers in decimal, true/false/null, <missing>. */
static void field_text(const json_t *v, char *buf, size_t len)
{
    if (!v)
        snprintf(buf, len, "<missing>");
    else if (json_is_string(v))
        snprintf(buf, len, "%s", json_string_value(v));
    else if (json_is_integer(v))
        snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, len, "%g", json_real_value(v));
    else if (json_is_boolean(v) || json_is_null(v))
        snprintf(buf, len, "%s", json_is_null(v) ? "null" : json_is_true(v) ? "true" : "false");
    else
        snprintf(buf, len, "<%s>", json_is_object(v) ? "object" : "array");
}

int server_wait_field(const struct test_server *s, const char *path, const char *field, const char *want,
                      int timeout_ms)
{
    return server_wait_field_as(s, NULL, path, field, want, timeout_ms);
}

int server_wait_field_as(const struct test_server *s, const char *token, const char *path, const char *field,
                         const char *want, int timeout_ms)
{
    int64_t start = clock_mono_ms();
    char seen[512] = "<no answer>";
    long code = 0;
    for (;;) {
        json_t *doc = server_request_as(s, token, "GET", path, NULL, NULL, &code);
        json_t *v = server_json_at(doc, field);
        if (doc)
            field_text(v, seen, sizeof seen);
        bool match = doc && v && strcmp(seen, want) == 0;
        json_decref(doc);
        if (match)
            return 0;
        if (clock_mono_ms() - start >= timeout_ms)
            break;
        sleep_ms(WAIT_FIELD_POLL_MS);
    }
    fprintf(stderr, "server_wait_field: GET %s (HTTP %ld): %s is \"%s\" after %d ms, expected \"%s\"\n", path, code,
            field, seen, timeout_ms, want);
    return -1;
}

/* --- jobctl -------------------------------------------------------------------------------- */

static char **jobctl_argv(const struct test_server *s, const char *const *args)
{
    char **argv = NULL;
    int rc = strv_push(&argv, env_or("CALDERA_JOBCTL", "build/asan/bin/jobctl"));
    if (rc == 0)
        rc = strv_push(&argv, "--server");
    if (rc == 0)
        rc = strv_push(&argv, s->url);
    for (size_t i = 0; rc == 0 && args && args[i]; i++)
        rc = strv_push(&argv, args[i]);
    if (rc != 0) {
        strv_free(argv);
        return NULL;
    }
    return argv;
}

/* Reads whatever is ready on fd into b; closes it and sets *fd = -1 at end of file. */
static void drain(int *fd, struct sbuf *b)
{
    char chunk[8192];
    ssize_t n = read(*fd, chunk, sizeof chunk);
    if (n > 0) {
        sbuf_append(b, chunk, (size_t)n);
    } else if (n == 0 || errno != EINTR) {
        close(*fd);
        *fd = -1;
    }
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Collects both pipes until they close or time runs out: then the child is killed and, should the
 * pipes still not close within a few seconds, they are abandoned. */
static void collect_output(pid_t pid, int fds[2], struct sbuf bufs[2])
{
    int64_t deadline = clock_mono_ms() + JOBCTL_TIMEOUT_MS;
    bool killed = false;
    while (fds[0] >= 0 || fds[1] >= 0) {
        struct pollfd p[2] = {{.fd = fds[0], .events = POLLIN}, {.fd = fds[1], .events = POLLIN}};
        int64_t left = deadline - clock_mono_ms();
        if (left <= 0 && !killed) {
            fprintf(stderr, "server_jobctl: jobctl still running after %d ms; killing it\n", JOBCTL_TIMEOUT_MS);
            kill(pid, SIGKILL);
            killed = true;
        }
        if (killed && left < -5000) {
            close_fd(&fds[0]);
            close_fd(&fds[1]);
            break;
        }
        if (poll(p, 2, killed ? 500 : (int)left) <= 0)
            continue;
        for (int i = 0; i < 2; i++)
            if (fds[i] >= 0 && p[i].revents)
                drain(&fds[i], &bufs[i]);
    }
}

/* Starts jobctl with stdin from /dev/null and stdout/stderr on two new pipes, whose read ends go
 * to fds. Returns the pid, or -1 with errno set. */
static pid_t start_jobctl(char **argv, int fds[2])
{
    int out[2] = {-1, -1}, err[2] = {-1, -1};
    int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    pid_t pid = -1;
    if (null_fd >= 0 && pipe2(out, O_CLOEXEC) == 0 && pipe2(err, O_CLOEXEC) == 0)
        pid = spawn(argv, null_fd, out[1], err[1]);
    int saved = errno;
    close_fd(&null_fd);
    close_fd(&out[1]);
    close_fd(&err[1]);
    if (pid < 0) {
        close_fd(&out[0]);
        close_fd(&err[0]);
    }
    fds[0] = out[0];
    fds[1] = err[0];
    errno = saved;
    return pid;
}

static void hand_over(struct sbuf *b, char **dst)
{
    if (dst)
        *dst = sbuf_take(b);
    else
        sbuf_free(b);
}

int server_jobctl(const struct test_server *s, const char *const *args, char **out, char **err)
{
    struct sbuf bufs[2] = {{0}, {0}};
    int fds[2], status = 0;
    char **argv = jobctl_argv(s, args);
    pid_t pid = argv ? start_jobctl(argv, fds) : -1;
    if (pid > 0) {
        collect_output(pid, fds, bufs);
        wait_child(pid, &status, 0);
    } else {
        fprintf(stderr, "server_jobctl: cannot run %s: %s\n", argv ? argv[0] : "jobctl", strerror(errno));
    }
    strv_free(argv);
    hand_over(&bufs[0], out);
    hand_over(&bufs[1], err);
    return pid > 0 ? decode_status(status) : -1;
}
