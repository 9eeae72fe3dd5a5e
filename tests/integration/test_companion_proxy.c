/* Companions end to end through the gateway's proxy only (never their own ports), on a real jobserver
 * with the real programs: a Jupyter kernel runs a cell in the job's directory over the tunnelled
 * WebSocket, the terminal runs a shell there, `jobctl debug` prints a URL that answers, --auth refuses
 * other namespaces and anonymous callers, turns ?token= into a cookie that opens pages and same-origin
 * WebSockets, deleting the job ends the companions' processes and the kernel, and a relative --data
 * works. code-server is skipped when absent; tests/e2e/test_terminal.mjs types into the terminal in
 * headless Chromium. */
#include <curl/curl.h>
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fs.h"
#include "common/sbuf.h"
#include "tests/lib/job_client.h"
#include "tests/lib/server.h"
#include "tests/lib/test.h"
#include "tests/lib/ws_client.h"
#include "tests/lib/ws_client_send.h"
#include "tests/lib/http_fetch.h"

#define READY_MS 90000 /* jupyter under ASan on a loaded machine; ~2-5 s otherwise */
#define WAIT_MS 20000
#define CELL_MS 60000
#define NOBODY 65534
#define NS_PATH(ns, what) "/apis/caldera.io/v1/namespaces/" ns "/" what
#define VCJOBS(ns) "/apis/batch.volcano.sh/v1alpha1/namespaces/" ns "/jobs"
#define TOKEN_MAX 128
#define SCRIPT "echo caldera-$((6*7)) > seen.txt; sleep 600"

static struct test_server server; /* without --auth: loopback is the anonymous admin */
static bool server_up;
static long jupyter_pid, terminal_pid, kernel_pid; /* seen while the job "nb" ran */

static bool start(void)
{
    if (!server_up) {
        const char *args[] = {"--shutdown-grace", "2", "--companion-ports", "43700-43799", NULL};
        server_up = server_start(&server, NULL, args) == 0;
    }
    return server_up;
}

/* A job "name" in namespace ns whose task runs SCRIPT as nobody beside companions, posted with token
 * (NULL: none). Returns the HTTP code. */
static long submit(const struct test_server *s, const char *token, const char *ns, const char *name,
                   const char *companions)
{
    char yaml[2048], path[256];
    snprintf(yaml, sizeof yaml,
             "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata:\n  name: %s\n  annotations:\n"
             "    caldera.io/companions: \"%s\"\nspec:\n  minAvailable: 1\n  tasks:\n  - name: main\n"
             "    replicas: 1\n    template:\n      spec:\n        restartPolicy: Never\n"
             "        securityContext: {runAsUser: %d, runAsGroup: %d}\n        containers:\n"
             "        - name: c\n          image: x\n          command: [sh, -c, '" SCRIPT "']\n",
             name, companions, NOBODY, NOBODY);
    snprintf(path, sizeof path, "/apis/batch.volcano.sh/v1alpha1/namespaces/%s/jobs", ns);
    long code = 0;
    json_t *answer = server_request_as(s, token, "POST", path, yaml, "application/yaml", &code);
    if (code != 201) {
        char *text = json_dumps(answer, JSON_COMPACT);
        fprintf(stderr, "# submit %s: %ld %s\n", name, code, text ? text : "");
        free(text);
    }
    json_decref(answer);
    return code;
}

static int wait_ready(const struct test_server *s, const char *token, const char *ns, const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "/apis/caldera.io/v1/namespaces/%s/companions/%s", ns, name);
    return server_wait_field_as(s, token, path, "status.phase", "Ready", READY_MS);
}

/* The pid in the message of the last CompanionStarting event of name ("... pid N ..."); 0 when none. */
static long started_pid(const struct test_server *s, const char *name)
{
    json_t *list = server_request(s, "GET", "/api/v1/namespaces/default/events", NULL, NULL, NULL);
    long pid = 0;
    size_t i;
    json_t *ev;
    json_array_foreach(json_object_get(list, "items"), i, ev)
    {
        const char *n = jv_str(ev, "involvedObject.name"), *r = jv_str(ev, "reason"), *m = jv_str(ev, "message");
        const char *p = m ? strstr(m, "pid ") : NULL;
        if (n && r && p && strcmp(n, name) == 0 && strcmp(r, "CompanionStarting") == 0)
            pid = strtol(p + 4, NULL, 10);
    }
    json_decref(list);
    return pid;
}

/* How many processes (zombies aside) have a command line naming path: a job's companions name its
 * directory (Jupyter's notebook_dir, the terminal's token file). */
static int processes_naming(const char *path)
{
    DIR *d = opendir("/proc");
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9' || pid_gone(strtol(e->d_name, NULL, 10)))
            continue;
        char file[64], *data = NULL;
        size_t len = 0;
        snprintf(file, sizeof file, "/proc/%s/cmdline", e->d_name);
        if (read_file(file, 1 << 16, &data, &len) != 0)
            continue;
        for (size_t i = 0; i < len; i++)
            if (data[i] == '\0')
                data[i] = ' ';
        n += strstr(data, path) != NULL;
        free(data);
    }
    if (d)
        closedir(d);
    return n;
}

/* --- HTTP through the proxy ------------------------------------------------------------------------ */

/* The server's URL with path appended, in a static buffer. */
static const char *at(const struct test_server *s, const char *path)
{
    static char url[1024];
    snprintf(url, sizeof url, "%s%s", s->url, path);
    return url;
}

/* A WebSocket through the proxy: ws://<server>path. */
static int ws_open_with(const struct test_server *s, struct ws_client *c, const char *path, const char *authorization,
                        const char *protocols, const char *headers)
{
    char url[1024];
    snprintf(url, sizeof url, "ws://%s%s", s->url + strlen("http://"), path);
    struct ws_client_options o = {.authorization = authorization, .protocols = protocols, .headers = headers};
    memset(c, 0, sizeof *c);
    return ws_client_connect(c, url, NULL, &o, WAIT_MS);
}

static int ws_open(const struct test_server *s, struct ws_client *c, const char *path, const char *authorization,
                   const char *protocols)
{
    return ws_open_with(s, c, path, authorization, protocols, NULL);
}

/* --- Jupyter ------------------------------------------------------------------------------------- */

/* An execute_request on the shell channel, Jupyter's messaging protocol 5.3, as one JSON text. */
static char *execute_request(const char *msg_id, const char *code)
{
    json_t *msg = json_pack("{s:{s:s,s:s,s:s,s:s,s:s,s:s},s:{},s:{},s:{s:s,s:b,s:b,s:{},s:b},s:s,s:[]}", "header",
                            "msg_id", msg_id, "msg_type", "execute_request", "session", "caldera-test-session",
                            "username", "caldera", "version", "5.3", "date", "2026-11-26T00:00:00.000000Z",
                            "parent_header", "metadata", "content", "code", code, "silent", 0, "store_history", 0,
                            "user_expressions", "allow_stdin", 0, "channel", "shell", "buffers");
    char *text = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    return text;
}

/* Reads the kernel's messages until a stream (stdout) or execute_result answering msg_id holds want;
 * returns that output (caller frees), NULL after CELL_MS or a closed socket. */
static char *cell_output(struct ws_client *c, const char *msg_id, const char *want)
{
    int64_t deadline = clock_mono_ms() + CELL_MS;
    char *found = NULL;
    while (!found && clock_mono_ms() < deadline) {
        struct ws_frame f = ws_client_next(c, (int)(deadline - clock_mono_ms()));
        if (f.kind == WS_CLOSE || f.kind == WS_BROKEN) {
            fprintf(stderr, "# the kernel's channels closed (%d %s)\n", f.close_code, f.close_reason);
            ws_frame_clear(&f);
            break;
        }
        json_t *msg = f.kind == WS_TEXT ? json_loads(f.text, 0, NULL) : NULL;
        const char *type = jv_str(msg, "msg_type"), *parent = jv_str(msg, "parent_header.msg_id");
        const char *out = NULL;
        if (type && parent && strcmp(parent, msg_id) == 0) {
            if (strcmp(type, "stream") == 0)
                out = jv_str(msg, "content.text");
            else if (strcmp(type, "execute_result") == 0)
                out = json_string_value(json_object_get(jv_at(msg, "content.data"), "text/plain"));
            else if (strcmp(type, "error") == 0)
                fprintf(stderr, "# the cell failed: %s\n", f.text);
        }
        if (out && strstr(out, want))
            found = strdup(out);
        json_decref(msg);
        ws_frame_clear(&f);
    }
    return found;
}

static void jupyter_runs_a_cell_in_the_job_s_directory(void)
{
    SKIP_IF(!test_program_installed("jupyter-notebook"),
            "jupyter-notebook is not installed (apt-get install jupyter-notebook)");
    REQUIRE(start());
    REQUIRE(submit(&server, NULL, "default", "nb", "jupyter,terminal") == 201);
    REQUIRE(wait_ready(&server, NULL, "default", "nb-jupyter") == 0);
    jupyter_pid = started_pid(&server, "nb-jupyter");
    CHECK(jupyter_pid > 0);
    json_t *c = server_request(&server, "GET", NS_PATH("default", "companions/nb-jupyter"), NULL, NULL, NULL);
    CHECK_STR(jv_str(c, "status.url"), "/proxy/default/nb-jupyter/");
    json_decref(c);

    struct http_answer a = http_fetch("GET", at(&server, "/proxy/default/nb-jupyter/api/status"), NULL, NULL);
    CHECK_INT(a.code, 200);
    CHECK_CONTAINS(sbuf_str(&a.body), "\"started\"");
    http_answer_free(&a);
    const char *json[] = {"Content-Type: application/json", NULL};
    a = http_fetch("POST", at(&server, "/proxy/default/nb-jupyter/api/kernels"), json, "{\"name\":\"python3\"}");
    CHECK_INT(a.code, 201);
    json_t *kernel = json_loads(sbuf_str(&a.body), 0, NULL);
    http_answer_free(&a);
    const char *id = jv_str(kernel, "id");
    if (!id) {
        json_decref(kernel);
        REQUIRE(id != NULL);
    }

    char path[256];
    snprintf(path, sizeof path, "/proxy/default/nb-jupyter/api/kernels/%s/channels", id);
    json_decref(kernel);
    struct ws_client ws;
    CHECK_INT(ws_open(&server, &ws, path, NULL, NULL), 0);
    CHECK_INT(ws.http_code, 101);
    char *request = execute_request("caldera-cell-1",
                                    "import os\nprint(open('seen.txt').read().strip(), 'pid=%d' % os.getpid())");
    REQUIRE(request);
    CHECK(ws_client_send(&ws, WS_OPCODE_TEXT, request, strlen(request)));
    free(request);
    char *out = cell_output(&ws, "caldera-cell-1", "caldera-42");
    CHECK_CONTAINS(out, "caldera-42 pid=");
    const char *p = out ? strstr(out, "pid=") : NULL;
    kernel_pid = p ? strtol(p + 4, NULL, 10) : 0;
    CHECK(kernel_pid > 0);
    free(out);

    /* an expression's value comes back as an execute_result */
    request = execute_request("caldera-cell-2", "open('seen.txt').read().strip()");
    REQUIRE(request);
    CHECK(ws_client_send(&ws, WS_OPCODE_TEXT, request, strlen(request)));
    free(request);
    out = cell_output(&ws, "caldera-cell-2", "caldera-42");
    CHECK_STR(out, "'caldera-42'");
    free(out);
    ws_client_close(&ws);
}

/* --- the terminal -------------------------------------------------------------------------------- */

/* The terminal's output until it holds want (true) or WAIT_MS pass or the socket closes (false, after
 * saying what came). */
static bool terminal_says(struct ws_client *c, const char *want)
{
    struct sbuf seen = {0};
    int64_t deadline = clock_mono_ms() + WAIT_MS;
    bool found = false;
    while (!found && clock_mono_ms() < deadline) {
        struct ws_frame f = ws_client_next(c, (int)(deadline - clock_mono_ms()));
        bool over = f.kind == WS_CLOSE || f.kind == WS_BROKEN;
        if (f.kind == WS_TEXT)
            sbuf_append(&seen, f.text, f.len);
        ws_frame_clear(&f);
        found = seen.len && strstr(sbuf_str(&seen), want);
        if (over)
            break;
    }
    if (!found)
        fprintf(stderr, "# wanted \"%s\" from the terminal; it said \"%s\"\n", want, seen.len ? sbuf_str(&seen) : "");
    sbuf_free(&seen);
    return found;
}

static void the_terminal_runs_a_shell_in_the_job_s_directory(void)
{
    REQUIRE(start());
    if (!test_program_installed("jupyter-notebook")) /* the first case skipped: the job is made here */
        REQUIRE(submit(&server, NULL, "default", "nb", "terminal") == 201);
    REQUIRE(wait_ready(&server, NULL, "default", "nb-terminal") == 0);
    terminal_pid = started_pid(&server, "nb-terminal");
    CHECK(terminal_pid > 0);
    struct http_answer a = http_fetch("GET", at(&server, "/proxy/default/nb-terminal/"), NULL, NULL);
    CHECK_INT(a.code, 200);
    CHECK_CONTAINS(sbuf_str(&a.body), "<title>Terminal - Caldera</title>");
    http_answer_free(&a);

    struct ws_client ws;
    CHECK_INT(ws_open(&server, &ws, "/proxy/default/nb-terminal/ws", NULL, "caldera-terminal.v1"), 0);
    CHECK_INT(ws.http_code, 101);
    CHECK_STR(ws.protocol, "caldera-terminal.v1");
    CHECK(ws_client_send_bytes(&ws, "echo caldera-$((6*7))\n"));
    CHECK(terminal_says(&ws, "caldera-42"));
    /* the task's file, read where the shell starts: the job's working directory */
    CHECK(ws_client_send_bytes(&ws, "sed s/caldera/from-file/ seen.txt\n"));
    CHECK(terminal_says(&ws, "from-file-42"));
    ws_client_close(&ws);
}

static void code_server(void)
{
    SKIP_IF(!test_program_installed("code-server"), "code-server is not installed (npm install -g code-server)");
    REQUIRE(start());
    REQUIRE(submit(&server, NULL, "default", "vs", "code-server") == 201);
    REQUIRE(wait_ready(&server, NULL, "default", "vs-code-server") == 0);
    struct http_answer a = http_fetch("GET", at(&server, "/proxy/default/vs-code-server/healthz"), NULL, NULL);
    CHECK_INT(a.code, 200);
    http_answer_free(&a);
    long code = 0;
    json_decref(server_request(&server, "DELETE", VCJOBS("default") "/vs", NULL, NULL, &code));
    CHECK_INT(code, 200);
}

/* --- the end ------------------------------------------------------------------------------------- */

static void deleting_the_job_ends_the_companions_and_the_kernel(void)
{
    REQUIRE(start());
    REQUIRE(terminal_pid > 0);
    if (jupyter_pid > 0)
        CHECK(!pid_gone(jupyter_pid));
    CHECK(!pid_gone(terminal_pid));
    if (kernel_pid > 0)
        CHECK(!pid_gone(kernel_pid));
    json_t *job = job_get(&server, "nb");
    char job_dir[512];
    snprintf(job_dir, sizeof job_dir, "%s/jobs/%s/", server.data_dir,
             jv_str(job, "metadata.uid") ? jv_str(job, "metadata.uid") : "?");
    json_decref(job);
    CHECK(processes_naming(job_dir) >= (jupyter_pid > 0 ? 2 : 1)); /* jupyter's notebook dir, the terminal's token */
    long code = 0;
    json_decref(server_request(&server, "DELETE", VCJOBS("default") "/nb", NULL, NULL, &code));
    CHECK_INT(code, 200);
    if (jupyter_pid > 0)
        CHECK(pid_gone_within(jupyter_pid, WAIT_MS));
    CHECK(pid_gone_within(terminal_pid, WAIT_MS));
    if (kernel_pid > 0)
        CHECK(pid_gone_within(kernel_pid, WAIT_MS)); /* Jupyter's child, in the task's cgroup */
    int left = -1;
    for (int waited = 0; waited < WAIT_MS && (left = processes_naming(job_dir)) > 0; waited += 50)
        usleep(50000);
    CHECK_INT(left, 0);
    /* once its Companion objects are gone, the proxy knows no such companion */
    CHECK(server_wait_field(&server, NS_PATH("default", "companions/nb-terminal"), "code", "404", WAIT_MS) == 0);
    if (jupyter_pid > 0)
        CHECK(server_wait_field(&server, NS_PATH("default", "companions/nb-jupyter"), "code", "404", WAIT_MS) == 0);
    struct http_answer a = http_fetch("GET", at(&server, "/proxy/default/nb-terminal/"), NULL, NULL);
    CHECK_INT(a.code, 404);
    http_answer_free(&a);
}

/* --- jobctl debug -------------------------------------------------------------------------------- */

static void jobctl_debug_prints_a_terminal_url_that_answers(void)
{
    REQUIRE(start());
    char *out = NULL, *err = NULL;
    const char *const args[] = {"debug",    "--cpu",  "100m", "--memory",  "64Mi", "--companion",
                                "terminal", "--name", "dbg",  "--timeout", "60s",  NULL};
    CHECK_INT(server_jobctl(&server, args, &out, &err), 0);
    char want[256];
    snprintf(want, sizeof want, "terminal     %s/proxy/default/dbg-terminal/\n", server.url);
    CHECK_CONTAINS(out, want);
    if (test_failed_checks)
        fprintf(stderr, "# jobctl said: %s%s\n", out ? out : "", err ? err : "");
    free(out);
    free(err);
    long pid = started_pid(&server, "dbg-terminal");
    CHECK(pid > 0);
    struct http_answer a = http_fetch("GET", at(&server, "/proxy/default/dbg-terminal/"), NULL, NULL);
    CHECK_INT(a.code, 200);
    CHECK_CONTAINS(sbuf_str(&a.body), "Terminal - Caldera");
    http_answer_free(&a);
    const char *const del[] = {"delete", "debugsession", "dbg", NULL};
    CHECK_INT(server_jobctl(&server, del, &out, &err), 0);
    free(out);
    free(err);
    if (pid > 0)
        CHECK(pid_gone_within(pid, WAIT_MS));
    server_stop(&server);
    server_cleanup(&server);
    server_up = false;
}

/* A server given a relative --data hands its companions absolute paths: Jupyter takes its notebook
 * directory and the terminal its token file from where they run, the job's working directory (with
 * "build/x" Jupyter looked for "<workdir>/build/x/...", exited 1, and the companion Failed). */
static void a_relative_data_directory_still_gets_companions_ready(void)
{
    SKIP_IF(!test_program_installed("jupyter-notebook"),
            "jupyter-notebook is not installed (apt-get install jupyter-notebook)");
    char dir[] = "build/caldera-companion-rel-XXXXXX";
    REQUIRE(mkdtemp(dir));
    struct test_server s;
    const char *args[] = {"--shutdown-grace", "2", "--companion-ports", "43800-43899", NULL};
    if (server_start(&s, dir, args) != 0) {
        remove_tree(dir);
        REQUIRE(false);
    }
    CHECK_INT(submit(&s, NULL, "default", "rel", "jupyter,terminal"), 201);
    CHECK(wait_ready(&s, NULL, "default", "rel-jupyter") == 0);
    CHECK(wait_ready(&s, NULL, "default", "rel-terminal") == 0);
    struct http_answer a = http_fetch("GET", at(&s, "/proxy/default/rel-jupyter/api/status"), NULL, NULL);
    CHECK_INT(a.code, 200);
    http_answer_free(&a);
    a = http_fetch("GET", at(&s, "/proxy/default/rel-terminal/api/status"), NULL, NULL);
    CHECK_INT(a.code, 200);
    http_answer_free(&a);
    server_stop(&s);
    server_cleanup(&s);
    remove_tree(dir);
}

/* --- --auth ------------------------------------------------------------------------------------------- */

static long make_token(const struct test_server *s, const char *admin, const char *body, char out[TOKEN_MAX])
{
    long code = 0;
    json_t *answer = server_request_as(s, admin, "POST", "/apis/caldera.io/v1/tokens", body, "application/json", &code);
    const char *token = jv_str(answer, "status.token");
    snprintf(out, TOKEN_MAX, "%s", token ? token : "");
    json_decref(answer);
    return code;
}

static bool read_admin_token(const struct test_server *s, char out[TOKEN_MAX])
{
    char path[400], *data = NULL;
    size_t len = 0;
    snprintf(path, sizeof path, "%s/admin.token", s->data_dir);
    if (read_file(path, TOKEN_MAX, &data, &len) != 0)
        return false;
    while (len > 0 && (data[len - 1] == '\n' || data[len - 1] == ' '))
        data[--len] = '\0';
    snprintf(out, TOKEN_MAX, "%s", data);
    free(data);
    return len > 0;
}

/* The value of the cookie caldera_proxy in a Set-Cookie of head ("" when none). */
static void proxy_cookie(const char *head, char *out, size_t len)
{
    out[0] = '\0';
    for (const char *p = head; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (strncasecmp(p, "Set-Cookie: caldera_proxy=", 26) == 0) {
            size_t n = strcspn(p + 26, ";\r\n");
            snprintf(out, len, "%.*s", (int)n, p + 26);
            return;
        }
}

static void auth_admits_the_namespace_s_writers_only(void)
{
    struct test_server s;
    const char *args[] = {"--auth", "--shutdown-grace", "2", "--companion-ports", "43800-43899", NULL};
    REQUIRE(server_start(&s, NULL, args) == 0);
    char admin[TOKEN_MAX], alice[TOKEN_MAX], bob[TOKEN_MAX], bearer[200];
    REQUIRE(read_admin_token(&s, admin));
    REQUIRE(make_token(&s, admin, "{\"user\":\"alice\",\"namespaces\":[\"team-a\"],\"uid\":65534,\"gid\":65534}",
                       alice) == 201);
    REQUIRE(make_token(&s, admin, "{\"user\":\"bob\",\"namespaces\":[\"team-b\"],\"uid\":65534,\"gid\":65534}", bob) ==
            201);
    REQUIRE(submit(&s, alice, "team-a", "sh", "terminal") == 201);
    REQUIRE(wait_ready(&s, alice, "team-a", "sh-terminal") == 0);
    const char *page = "/proxy/team-a/sh-terminal/";

    snprintf(bearer, sizeof bearer, "Authorization: Bearer %s", alice);
    const char *as_alice[] = {bearer, NULL};
    struct http_answer a = http_fetch("GET", at(&s, page), as_alice, NULL);
    CHECK_INT(a.code, 200);
    http_answer_free(&a);
    char bob_bearer[200];
    snprintf(bob_bearer, sizeof bob_bearer, "Authorization: Bearer %s", bob);
    const char *as_bob[] = {bob_bearer, NULL};
    a = http_fetch("GET", at(&s, page), as_bob, NULL);
    CHECK_INT(a.code, 403);
    CHECK(!strstr(sbuf_str(&a.body), "Terminal - Caldera"));
    http_answer_free(&a);
    a = http_fetch("GET", at(&s, page), NULL, NULL);
    CHECK_INT(a.code, 401);
    http_answer_free(&a);
    char url[1024];
    snprintf(url, sizeof url, "%s%s?token=%s", s.url, page, bob);
    a = http_fetch("GET", url, NULL, NULL);
    CHECK_INT(a.code, 403);
    http_answer_free(&a);

    /* ?token= once: a redirect without it, setting the cookie; then the cookie alone */
    snprintf(url, sizeof url, "%s%s?token=%s", s.url, page, alice);
    a = http_fetch("GET", url, NULL, NULL);
    CHECK_INT(a.code, 302);
    CHECK_CONTAINS(sbuf_str(&a.head), "Location: /proxy/team-a/sh-terminal/\r");
    char cookie[TOKEN_MAX + 32], value[TOKEN_MAX];
    proxy_cookie(sbuf_str(&a.head), value, sizeof value);
    CHECK_STR(value, alice);
    http_answer_free(&a);
    snprintf(cookie, sizeof cookie, "Cookie: caldera_proxy=%s", value);
    const char *with_cookie[] = {cookie, NULL};
    a = http_fetch("GET", at(&s, page), with_cookie, NULL);
    CHECK_INT(a.code, 200);
    CHECK_CONTAINS(sbuf_str(&a.body), "Terminal - Caldera");
    http_answer_free(&a);

    /* the WebSocket with the bearer token; none is 401, another namespace's 403 */
    struct ws_client ws;
    CHECK_INT(
        ws_open(&s, &ws, "/proxy/team-a/sh-terminal/ws", bearer + strlen("Authorization: "), "caldera-terminal.v1"), 0);
    CHECK(ws_client_send_bytes(&ws, "echo caldera-$((6*7)) as $(id -u)\n"));
    CHECK(terminal_says(&ws, "caldera-42 as 65534"));
    ws_client_close(&ws);
    CHECK_INT(ws_open(&s, &ws, "/proxy/team-a/sh-terminal/ws", NULL, "caldera-terminal.v1"), 1);
    CHECK_INT(ws.http_code, 401);
    ws_client_close(&ws);
    CHECK_INT(
        ws_open(&s, &ws, "/proxy/team-a/sh-terminal/ws", bob_bearer + strlen("Authorization: "), "caldera-terminal.v1"),
        1);
    CHECK_INT(ws.http_code, 403);
    ws_client_close(&ws);

    /* the cookie, as the terminal's page opens its socket in a browser: from the page's own origin it
     * is upgraded and the shell runs; from another site it is refused (the cookie is ambient) */
    char headers[512];
    snprintf(headers, sizeof headers, "%s\r\nOrigin: %s\r\n", cookie, s.url);
    CHECK_INT(ws_open_with(&s, &ws, "/proxy/team-a/sh-terminal/ws", NULL, "caldera-terminal.v1", headers), 0);
    CHECK_INT(ws.http_code, 101);
    CHECK(ws_client_send_bytes(&ws, "echo cookie-$((6*7))\n"));
    CHECK(terminal_says(&ws, "cookie-42"));
    ws_client_close(&ws);
    snprintf(headers, sizeof headers, "%s\r\nOrigin: http://evil.example\r\n", cookie);
    CHECK_INT(ws_open_with(&s, &ws, "/proxy/team-a/sh-terminal/ws", NULL, "caldera-terminal.v1", headers), 1);
    CHECK_INT(ws.http_code, 403);
    ws_client_close(&ws);

    /* a tenant's jobctl debug: the URL it prints, opened with ?token= as it says, then by the cookie */
    char *out = NULL, *err = NULL;
    const char *const debug[] = {"debug", "--token",   alice,  "-n",          "team-a",   "--cpu",
                                 "100m",  "--memory",  "64Mi", "--companion", "terminal", "--name",
                                 "dbg-a", "--timeout", "60s",  NULL};
    CHECK_INT(server_jobctl(&s, debug, &out, &err), 0);
    char want[256];
    snprintf(want, sizeof want, "terminal     %s/proxy/team-a/dbg-a-terminal/\n", s.url);
    CHECK_CONTAINS(out, want);
    CHECK_CONTAINS(out, "?token=<your token>");
    CHECK(!strstr(out ? out : "", alice) && !strstr(err ? err : "", alice));
    free(out);
    free(err);
    snprintf(url, sizeof url, "%s/proxy/team-a/dbg-a-terminal/?token=%s", s.url, alice);
    a = http_fetch("GET", url, NULL, NULL);
    CHECK_INT(a.code, 302);
    proxy_cookie(sbuf_str(&a.head), value, sizeof value);
    CHECK_STR(value, alice);
    CHECK_CONTAINS(sbuf_str(&a.head), "; Path=/proxy/team-a/dbg-a-terminal/; HttpOnly; SameSite=Strict");
    http_answer_free(&a);
    a = http_fetch("GET", at(&s, "/proxy/team-a/dbg-a-terminal/"), with_cookie, NULL);
    CHECK_INT(a.code, 200);
    CHECK_CONTAINS(sbuf_str(&a.body), "Terminal - Caldera");
    http_answer_free(&a);
    server_stop(&s);
    server_cleanup(&s);
}

TEST_MAIN(TEST_CASE(jupyter_runs_a_cell_in_the_job_s_directory),
          TEST_CASE(the_terminal_runs_a_shell_in_the_job_s_directory), TEST_CASE(code_server),
          TEST_CASE(deleting_the_job_ends_the_companions_and_the_kernel),
          TEST_CASE(jobctl_debug_prints_a_terminal_url_that_answers),
          TEST_CASE(auth_admits_the_namespace_s_writers_only),
          TEST_CASE(a_relative_data_directory_still_gets_companions_ready))
