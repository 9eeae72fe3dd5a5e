/* caldera-terminal against real processes on loopback: no or a wrong token is refused (HTTP and
 * WebSocket), the page, its assets and api/status are served with it; over the WebSocket a shell runs
 * in --cwd, echoes, takes a resize; closing the socket kills the shell, the shell's exit closes the
 * socket, terminals are capped, and SIGTERM stops everything with exit 0. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "tests/lib/raw_socket.h"
#include "tests/lib/test.h"
#include "tests/lib/ws_client.h"
#include "tests/lib/ws_client_send.h"
#include "tests/lib/proc_stats.h"

#define TOKEN "s3cret-7f2a9c"
#define BASE "/proxy/team-a/term/"
#define START_MS 20000
#define WAIT_MS 10000

struct term {
    pid_t pid;
    int port;
    char cwd[64]; /* the shells' directory (made here) */
    char log[96]; /* the server's stderr */
};

static const char *bin_dir(void)
{
    const char *d = getenv("CALDERA_BIN_DIR");
    return d && d[0] ? d : "build/asan/bin";
}

/* Starts caldera-terminal with the given extra arguments (NULL-terminated) and waits for its
 * "listening on http://127.0.0.1:PORT" line. Returns 0, or -1 after saying why. */
static int term_start(struct term *t, const char *const *extra)
{
    memset(t, 0, sizeof *t);
    snprintf(t->cwd, sizeof t->cwd, "/tmp/caldera-test-term-XXXXXX");
    if (!mkdtemp(t->cwd))
        return -1;
    snprintf(t->log, sizeof t->log, "%s.log", t->cwd);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/caldera-terminal", bin_dir());
    const char *argv[32] = {path,  "--listen", "127.0.0.1:0", "--base-url", BASE,     "--token",
                            TOKEN, "--cwd",    t->cwd,        "--shell",    "/bin/sh"};
    int argc = 11;
    for (int i = 0; extra && extra[i] && argc < 31; i++)
        argv[argc++] = extra[i];
    int out[2];
    if (pipe(out) != 0)
        return -1;
    pid_t parent = getpid();
    t->pid = fork();
    if (t->pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        int err = open(t->log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(out[1], 1);
        if (err >= 0)
            dup2(err, 2);
        close(out[0]);
        execv(path, (char **)argv);
        _exit(127);
    }
    close(out[1]);
    char line[512] = "";
    size_t len = 0;
    int64_t deadline = clock_mono_ms() + START_MS;
    const char *at = NULL;
    while (!(at = strstr(line, "http://127.0.0.1:")) && len < sizeof line - 1 && clock_mono_ms() < deadline) {
        struct pollfd p = {out[0], POLLIN, 0};
        if (poll(&p, 1, 100) <= 0)
            continue;
        ssize_t n = read(out[0], line + len, sizeof line - 1 - len);
        if (n <= 0)
            break;
        len += (size_t)n;
        line[len] = '\0';
    }
    close(out[0]);
    t->port = at ? atoi(at + strlen("http://127.0.0.1:")) : 0;
    if (t->port <= 0) {
        fprintf(stderr, "caldera-terminal did not start (%s): said \"%s\"; see %s\n", path, line, t->log);
        kill(t->pid, SIGKILL);
        waitpid(t->pid, NULL, 0);
        t->pid = 0;
        return -1;
    }
    return 0;
}

/* SIGTERM and wait; returns the exit code, 128 + signal, or -1 when it had to be killed. */
static int term_stop(struct term *t)
{
    if (t->pid <= 0)
        return -1;
    kill(t->pid, SIGTERM);
    int status = 0;
    int64_t deadline = clock_mono_ms() + WAIT_MS;
    pid_t got = 0;
    while ((got = waitpid(t->pid, &status, WNOHANG)) == 0 && clock_mono_ms() < deadline)
        usleep(20 * 1000);
    if (got != t->pid) {
        kill(t->pid, SIGKILL);
        waitpid(t->pid, NULL, 0);
        t->pid = 0;
        return -1;
    }
    t->pid = 0;
    rmdir(t->cwd);
    int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (rc == 0)
        unlink(t->log); /* kept when something went wrong */
    return rc;
}

/* GET path with extra header lines ("Name: value\r\n", may be ""): the whole answer (caller frees),
 * *code its status. */
static char *http_get(const struct term *t, const char *path, const char *headers, int *code)
{
    *code = 0;
    int fd = raw_connect(NULL, t->port);
    if (fd < 0)
        return NULL;
    char req[2048];
    snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n%sConnection: close\r\n\r\n", path, t->port,
             headers);
    char *answer = raw_send_text(fd, req) ? raw_read_until_closed(fd, WAIT_MS) : NULL;
    close(fd);
    if (answer)
        sscanf(answer, "HTTP/1.%*d %d", code);
    return answer;
}

static int ws_open(const struct term *t, struct ws_client *c, const char *query, const char *authorization)
{
    char url[128];
    snprintf(url, sizeof url, "ws://127.0.0.1:%d" BASE "ws", t->port);
    struct ws_client_options o = {.authorization = authorization, .protocols = "caldera-terminal.v1"};
    return ws_client_connect(c, url, query, &o, WAIT_MS);
}

/* Reads the terminal's output until it holds want (then returns it, caller frees) or the socket
 * closes or WAIT_MS pass (NULL, after saying what came). */
static char *read_until(struct ws_client *c, const char *want)
{
    char *seen = calloc(1, 1);
    size_t len = 0;
    int64_t deadline = clock_mono_ms() + WAIT_MS;
    while (seen && !strstr(seen, want) && clock_mono_ms() < deadline) {
        struct ws_frame f = ws_client_next(c, (int)(deadline - clock_mono_ms()));
        if (f.kind == WS_TEXT) {
            char *grown = realloc(seen, len + f.len + 1);
            if (grown) {
                memcpy(grown + len, f.text, f.len);
                len += f.len;
                grown[len] = '\0';
            }
            seen = grown;
        } else if (f.kind == WS_CLOSE || f.kind == WS_BROKEN) {
            ws_frame_clear(&f);
            break;
        }
        ws_frame_clear(&f);
    }
    if (seen && strstr(seen, want))
        return seen;
    fprintf(stderr, "wanted \"%s\" from the terminal; it said: \"%s\"\n", want, seen ? seen : "(nothing)");
    free(seen);
    return NULL;
}

/* Waits for the socket to close: the close frame's code, -1 when it broke without one, 0 when it
 * stayed open. */
static int closed_with(struct ws_client *c)
{
    int64_t deadline = clock_mono_ms() + WAIT_MS;
    while (clock_mono_ms() < deadline) {
        struct ws_frame f = ws_client_next(c, (int)(deadline - clock_mono_ms()));
        int code = f.kind == WS_CLOSE ? f.close_code : f.kind == WS_BROKEN ? -1 : 0;
        ws_frame_clear(&f);
        if (code)
            return code;
    }
    return 0;
}

static bool gone_within(pid_t pid, int ms)
{
    int64_t deadline = clock_mono_ms() + ms;
    while (clock_mono_ms() < deadline) {
        if (kill(pid, 0) != 0 && errno == ESRCH)
            return true;
        usleep(20 * 1000);
    }
    return false;
}

/* The number the shell prints after name= when it runs command, which is followed by " end$((2+3))":
 * the typed line's echo holds neither the number nor "end5". 0 when it did not say. */
static pid_t shell_says_pid(struct ws_client *c, const char *command, const char *name)
{
    char line[256], key[32];
    snprintf(line, sizeof line, "%s end$((2+3))\n", command);
    snprintf(key, sizeof key, "%s=", name);
    if (!ws_client_send_bytes(c, line))
        return 0;
    char *out = read_until(c, " end5");
    pid_t pid = 0;
    for (const char *p = out; p && (p = strstr(p, key)); p += strlen(key))
        if (p[strlen(key)] >= '0' && p[strlen(key)] <= '9')
            pid = (pid_t)atoi(p + strlen(key));
    free(out);
    return pid;
}

/* The shell's pid, as it says with echo. */
static pid_t shell_pid(struct ws_client *c) { return shell_says_pid(c, "echo pid=$$", "pid"); }

static void refuses_without_the_token(void)
{
    struct term t;
    REQUIRE(term_start(&t, NULL) == 0);
    int code;
    char *a = http_get(&t, BASE, "", &code);
    CHECK_INT(code, 403);
    free(a);
    a = http_get(&t, BASE, "Authorization: token wrong-" TOKEN "\r\n", &code);
    CHECK_INT(code, 403);
    free(a);
    a = http_get(&t, BASE "?token=" TOKEN "x", "", &code);
    CHECK_INT(code, 403);
    free(a);
    a = http_get(&t, BASE "api/status", "Cookie: caldera-terminal-token=nope\r\n", &code);
    CHECK_INT(code, 403);
    free(a);
    a = http_get(&t, BASE "static/xterm.js", "", &code);
    CHECK_INT(code, 403);
    free(a);
    struct ws_client c;
    CHECK_INT(ws_open(&t, &c, NULL, NULL), 1);
    CHECK_INT(c.http_code, 403);
    ws_client_drop(&c);
    CHECK_INT(ws_open(&t, &c, "token=wrong", "token also-wrong"), 1);
    CHECK_INT(c.http_code, 403);
    ws_client_drop(&c);
    CHECK_INT(term_stop(&t), 0);
}

static void serves_the_page_and_its_assets(void)
{
    struct term t;
    REQUIRE(term_start(&t, NULL) == 0);
    int code;
    char *a = http_get(&t, BASE "?token=" TOKEN, "", &code);
    CHECK_INT(code, 200);
    CHECK_CONTAINS(a, "static/xterm.js");
    CHECK_CONTAINS(a, "set-cookie: caldera-terminal-token=" TOKEN "; Path=" BASE "; HttpOnly");
    free(a);
    /* The cookie alone opens the rest, as a browser sends it. */
    a = http_get(&t, BASE "static/terminal.js", "Cookie: other=1; caldera-terminal-token=" TOKEN "\r\n", &code);
    CHECK_INT(code, 200);
    CHECK_CONTAINS(a, "new WebSocket");
    free(a);
    a = http_get(&t, BASE "static/xterm.js", "Authorization: token " TOKEN "\r\n", &code);
    if (code == 404) /* built without npm: it must say so */
        CHECK_CONTAINS(a, "terminal assets are missing");
    else {
        CHECK_INT(code, 200);
        CHECK_CONTAINS(a, "Terminal");
        CHECK(a && strlen(a) > 100000);
    }
    free(a);
    a = http_get(&t, BASE "static/nothing.js", "Authorization: token " TOKEN "\r\n", &code);
    CHECK_INT(code, 404);
    free(a);
    a = http_get(&t, "/elsewhere/", "Authorization: token " TOKEN "\r\n", &code);
    CHECK_INT(code, 404);
    free(a);
    CHECK_INT(term_stop(&t), 0);
}

/* api/status: an RFC 3339 last_activity and the open terminals. */
static void reports_status(void)
{
    struct term t;
    REQUIRE(term_start(&t, NULL) == 0);
    int code;
    char *a = http_get(&t, BASE "api/status", "Authorization: token " TOKEN "\r\n", &code);
    CHECK_INT(code, 200);
    CHECK_CONTAINS(a, "content-type: application/json");
    const char *body = a ? strstr(a, "\r\n\r\n") : NULL;
    json_t *j = body ? json_loads(body + 4, 0, NULL) : NULL;
    REQUIRE(j);
    const char *when = json_string_value(json_object_get(j, "last_activity"));
    struct tm tm = {0};
    const char *rest = when ? strptime(when, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;
    CHECK(rest && (rest[0] == 'Z' || rest[0] == '.') && rest[strlen(rest) - 1] == 'Z');
    CHECK_INT(json_integer_value(json_object_get(j, "connections")), 0);
    CHECK(json_is_integer(json_object_get(j, "connections")));
    json_decref(j);
    free(a);

    struct ws_client c;
    REQUIRE(ws_open(&t, &c, "token=" TOKEN, NULL) == 0);
    a = http_get(&t, BASE "api/status", "Authorization: token " TOKEN "\r\n", &code);
    CHECK_CONTAINS(a, "\"connections\": 1");
    free(a);
    ws_client_close(&c);
    int64_t deadline = clock_mono_ms() + WAIT_MS;
    bool zero = false;
    while (!zero && clock_mono_ms() < deadline) {
        a = http_get(&t, BASE "api/status", "Authorization: token " TOKEN "\r\n", &code);
        zero = a && strstr(a, "\"connections\": 0");
        free(a);
        if (!zero)
            usleep(50 * 1000);
    }
    CHECK(zero);
    CHECK_INT(term_stop(&t), 0);
}

/* A shell that computes, runs in --cwd and takes a resize; closing the socket kills it. */
static void runs_a_shell_over_the_websocket(void)
{
    struct term t;
    REQUIRE(term_start(&t, NULL) == 0);
    struct ws_client c;
    REQUIRE(ws_open(&t, &c, NULL, "token " TOKEN) == 0);
    CHECK_STR(c.protocol, "caldera-terminal.v1");
    CHECK(ws_client_send_bytes(&c, "echo caldera-$((6*7))\n"));
    char *out = read_until(&c, "caldera-42");
    CHECK(out);
    free(out);

    /* Only pwd's answer holds the directory (the prompt may come after the typed line's echo). */
    CHECK(ws_client_send_bytes(&c, "pwd\n"));
    char want[80];
    snprintf(want, sizeof want, "%s\r\n", t.cwd);
    out = read_until(&c, want);
    CHECK(out);
    free(out);

    static const char resize[] = "{\"type\":\"resize\",\"cols\":100,\"rows\":30}";
    CHECK(ws_client_send(&c, WS_OPCODE_TEXT, resize, strlen(resize)));
    CHECK(ws_client_send_bytes(&c, "stty size\n"));
    out = read_until(&c, "30 100");
    CHECK(out);
    free(out);

    pid_t pid = shell_pid(&c);
    CHECK(pid > 0 && kill(pid, 0) == 0);
    ws_client_close(&c);
    REQUIRE(pid > 0);
    CHECK(gone_within(pid, WAIT_MS));
    CHECK_INT(term_stop(&t), 0);
}

/* A dropped connection (no close frame) kills the shell and its background jobs too. */
static void a_dropped_socket_kills_the_session(void)
{
    struct term t;
    REQUIRE(term_start(&t, NULL) == 0);
    int fds = proc_open_fds(t.pid);
    struct ws_client c;
    REQUIRE(ws_open(&t, &c, "token=" TOKEN, NULL) == 0);
    pid_t bg = shell_says_pid(&c, "(trap '' HUP; exec sleep 300) & echo bg=$!", "bg");
    pid_t pid = shell_pid(&c);
    ws_client_drop(&c);
    REQUIRE(pid > 0 && bg > 0);
    CHECK(gone_within(pid, WAIT_MS));
    CHECK(gone_within(bg, WAIT_MS));
    /* Neither the socket nor the pty's master is left open. */
    int64_t deadline = clock_mono_ms() + WAIT_MS;
    while (proc_open_fds(t.pid) != fds && clock_mono_ms() < deadline)
        usleep(20 * 1000);
    CHECK_INT(proc_open_fds(t.pid), fds);
    CHECK_INT(term_stop(&t), 0);
}

/* The shell's exit closes the socket, with its last words sent first. */
static void the_shells_exit_closes_the_socket(void)
{
    struct term t;
    REQUIRE(term_start(&t, NULL) == 0);
    struct ws_client c;
    REQUIRE(ws_open(&t, &c, NULL, "Bearer " TOKEN) == 0);
    /* More than the pty holds, so the hang-up comes while output still waits to be read. */
    CHECK(ws_client_send_bytes(&c, "seq 1 40000; echo bye-$((1+1)); exit 3\n"));
    char *out = read_until(&c, "\n40000\r\nbye-2");
    CHECK(out);
    free(out);
    CHECK_INT(closed_with(&c), 1000);
    ws_client_drop(&c);
    CHECK_INT(term_stop(&t), 0);
}

/* Bad text messages and too many terminals are refused. */
static void refuses_what_is_out_of_bounds(void)
{
    struct term t;
    static const char *const extra[] = {"--max-terminals", "1", NULL};
    REQUIRE(term_start(&t, extra) == 0);
    struct ws_client c, second;
    REQUIRE(ws_open(&t, &c, "token=" TOKEN, NULL) == 0);
    CHECK_INT(ws_open(&t, &second, "token=" TOKEN, NULL), 1);
    CHECK_INT(second.http_code, 503);
    ws_client_drop(&second);
    char big[600];
    memset(big, ' ', sizeof big);
    big[0] = '{';
    big[sizeof big - 1] = '}';
    CHECK(ws_client_send(&c, WS_OPCODE_TEXT, big, sizeof big));
    CHECK_INT(closed_with(&c), 1009);
    ws_client_drop(&c);
    /* Its session gone, another terminal may open. */
    int64_t deadline = clock_mono_ms() + WAIT_MS;
    int rc = 1;
    while (rc != 0 && clock_mono_ms() < deadline) {
        rc = ws_open(&t, &c, "token=" TOKEN, NULL);
        if (rc != 0) {
            ws_client_drop(&c);
            usleep(50 * 1000);
        }
    }
    REQUIRE(rc == 0);
    CHECK(ws_client_send(&c, WS_OPCODE_TEXT, "{\"type\":\"paste\"}", 16));
    CHECK_INT(closed_with(&c), 1008);
    ws_client_drop(&c);
    CHECK_INT(term_stop(&t), 0);
}

/* CPU time process pid has used, in clock ticks (utime + stime), -1 when unknown. */
static long cpu_ticks(pid_t pid)
{
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(line, 1, sizeof line - 1, f) : 0;
    if (f)
        fclose(f);
    line[n] = '\0';
    const char *p = strrchr(line, ')');
    long utime, stime;
    if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %ld %ld", &utime, &stime) != 2)
        return -1;
    return utime + stime;
}

/* A reader that stops reading while the shell writes without end: the server stops reading the pty
 * (its memory stays flat), and the output flows again once the reader reads. */
static void a_slow_reader_pauses_the_shell(void)
{
    struct term t;
    REQUIRE(term_start(&t, NULL) == 0);
    struct ws_client c;
    struct ws_client_options o = {.authorization = "token " TOKEN, .rcvbuf = 4096};
    char url[128];
    snprintf(url, sizeof url, "ws://127.0.0.1:%d" BASE "ws", t.port);
    REQUIRE(ws_client_connect(&c, url, NULL, &o, WAIT_MS) == 0);
    CHECK(ws_client_send_bytes(&c, "yes caldera-flowing\n"));
    usleep(1000 * 1000);
    long before = proc_status_kib(t.pid, "VmRSS"), cpu_before = cpu_ticks(t.pid);
    usleep(2000 * 1000);
    long after = proc_status_kib(t.pid, "VmRSS"), cpu_after = cpu_ticks(t.pid);
    CHECK(before > 0 && after > 0 && cpu_before >= 0 && cpu_after >= 0);
    if (after - before >= 16 * 1024)
        test_fail(__FILE__, __LINE__, "the server grew by %ld KiB in 2 s while its reader did not read",
                  after - before);
    /* Paused, it does not even read the pty: next to no CPU (under 100 ms in 2 s). */
    long hz = sysconf(_SC_CLK_TCK);
    if (cpu_after - cpu_before > hz / 10)
        test_fail(__FILE__, __LINE__, "the server used %ld ticks of %ld in 2 s while its reader did not read",
                  cpu_after - cpu_before, hz);
    char *out = read_until(&c, "caldera-flowing\r\ncaldera-flowing");
    CHECK(out);
    free(out);
    ws_client_drop(&c);
    CHECK_INT(term_stop(&t), 0);
}

/* A handshake authenticated by the cookie alone opens a terminal only from this server's own page:
 * another site's page (its Origin) is refused. */
static void cookie_handshakes_need_this_origin(void)
{
    struct term t;
    REQUIRE(term_start(&t, NULL) == 0);
    const char *origins[] = {"http://evil.example", NULL};
    char ours[64];
    snprintf(ours, sizeof ours, "http://127.0.0.1:%d", t.port);
    origins[1] = ours;
    for (int i = 0; i < 2; i++) {
        int fd = raw_connect(NULL, t.port);
        REQUIRE(fd >= 0);
        char req[1024];
        snprintf(req, sizeof req,
                 "GET " BASE
                 "ws HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                 "Cookie: caldera-terminal-token=" TOKEN "\r\nOrigin: %s\r\n\r\n",
                 t.port, origins[i]);
        CHECK(raw_send_text(fd, req));
        char *answer = raw_read_until_closed(fd, 1500); /* NULL: still open, upgraded */
        if (i == 0)
            CHECK(answer && strncmp(answer, "HTTP/1.", 7) == 0 && strncmp(answer + 8, " 403 ", 5) == 0);
        else
            CHECK(!answer);
        free(answer);
        close(fd);
    }
    CHECK_INT(term_stop(&t), 0);
}

/* SIGTERM with a terminal open: exit 0, the shell gone. */
static void stops_on_sigterm(void)
{
    struct term t;
    REQUIRE(term_start(&t, NULL) == 0);
    struct ws_client c;
    REQUIRE(ws_open(&t, &c, "token=" TOKEN, NULL) == 0);
    pid_t pid = shell_pid(&c);
    CHECK_INT(term_stop(&t), 0);
    CHECK(pid > 0 && gone_within(pid, WAIT_MS));
    int code = closed_with(&c);
    CHECK(code == 1001 || code == -1);
    ws_client_drop(&c);
}

/* --token-file: its first line is the token (a later flag wins over --token). */
static void reads_the_token_from_a_file(void)
{
    char file[] = "/tmp/caldera-test-term-token-XXXXXX";
    int fd = mkstemp(file);
    REQUIRE(fd >= 0);
    static const char token[] = "from-a-file-91b3\n";
    CHECK(write(fd, token, sizeof token - 1) == (ssize_t)(sizeof token - 1));
    close(fd);
    const char *const extra[] = {"--token-file", file, NULL};
    struct term t;
    int started = term_start(&t, extra);
    unlink(file);
    REQUIRE(started == 0);
    int code;
    char *a = http_get(&t, BASE "api/status", "Authorization: token from-a-file-91b3\r\n", &code);
    CHECK_INT(code, 200);
    free(a);
    a = http_get(&t, BASE "api/status", "Authorization: token " TOKEN "\r\n", &code);
    CHECK_INT(code, 403);
    free(a);
    CHECK_INT(term_stop(&t), 0);
}

/* Only loopback addresses, and the token is required. */
static void refuses_bad_options(void)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/caldera-terminal", bin_dir());
    const char *cases[][8] = {
        {path, "--listen", "0.0.0.0:0", "--base-url", BASE, "--token", TOKEN, NULL},
        {path, "--listen", "10.1.2.3:8000", "--base-url", BASE, "--token", TOKEN, NULL},
        {path, "--listen", "127.0.0.1:0", "--base-url", BASE, NULL},
        {path, "--listen", "127.0.0.1:0", "--base-url", "no-slash", "--token", TOKEN, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            int null = open("/dev/null", O_WRONLY);
            dup2(null, 1);
            dup2(null, 2);
            execv(path, (char **)cases[i]);
            _exit(127);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        CHECK(WIFEXITED(status));
        CHECK_INT(WEXITSTATUS(status), 2);
    }
}

TEST_MAIN(TEST_CASE(refuses_without_the_token), TEST_CASE(serves_the_page_and_its_assets), TEST_CASE(reports_status),
          TEST_CASE(runs_a_shell_over_the_websocket), TEST_CASE(a_dropped_socket_kills_the_session),
          TEST_CASE(the_shells_exit_closes_the_socket), TEST_CASE(refuses_what_is_out_of_bounds),
          TEST_CASE(cookie_handshakes_need_this_origin), TEST_CASE(a_slow_reader_pauses_the_shell),
          TEST_CASE(stops_on_sigterm), TEST_CASE(reads_the_token_from_a_file), TEST_CASE(refuses_bad_options))
