/* The companions' runtime pieces: a token is 32 random bytes in hex, written to a new 0600 file that
 * replaces (never follows) what held the name; a port is one nobody claims and a bind accepts; a
 * companion spawned in no cgroup runs its program with its log and is signalled by pid and start time. */
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fs.h"
#include "runtime/companion.h"
#include "tests/lib/test.h"

static void tokens_are_random_hex_in_private_files(void)
{
    char a[COMPANION_TOKEN_LEN + 1], b[COMPANION_TOKEN_LEN + 1];
    REQUIRE(companion_token_new(a) == 0 && companion_token_new(b) == 0);
    CHECK_INT((long)strlen(a), 64);
    CHECK(strspn(a, "0123456789abcdef") == 64);
    CHECK(strcmp(a, b) != 0);
    char dir[] = "/tmp/caldera-token-XXXXXX", path[128], target[128], why[256];
    REQUIRE(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/t.token", dir);
    snprintf(target, sizeof target, "%s/elsewhere", dir);
    REQUIRE(symlink(target, path) == 0); /* a planted link is replaced, not written through */
    CHECK(companion_token_write(path, a, -1, -1, why, sizeof why) == 0);
    struct stat st;
    CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600);
    CHECK(access(target, F_OK) != 0);
    char *data = NULL;
    CHECK(read_file(path, 1024, &data, NULL) == 0);
    CHECK_STR(data, a);
    free(data);
    unlink(path);
    rmdir(dir);
}

static bool claim_45001(void *ctx, int port)
{
    (void)ctx;
    return port == 45001;
}

static void ports_skip_claimed_and_bound_ones(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(45000)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    SKIP_IF(bind(fd, (struct sockaddr *)&a, sizeof a) != 0, "port 45000 is taken on this machine");
    listen(fd, 1);
    int next = 0;
    int port = companion_port_alloc(45000, 45010, &next, claim_45001, NULL);
    CHECK(port >= 45002 && port <= 45010);
    CHECK_INT(next, port + 1);
    CHECK_INT(companion_port_alloc(45000, 45001, &next, claim_45001, NULL), -1);
    close(fd);
}

static void a_spawned_companion_logs_and_is_signalled(void)
{
    char dir[] = "/tmp/caldera-companion-XXXXXX", log[128];
    REQUIRE(mkdtemp(dir));
    snprintf(log, sizeof log, "%s/companions/x.log", dir);
    char *argv[] = {"sh", "-c", "echo started; exec sleep 30", NULL};
    char *envp[] = {"PATH=/usr/bin:/bin", NULL};
    struct companion_spec spec = {
        .program = "/bin/sh", .argv = argv, .envp = envp, .chdir_to = dir, .log_path = log, .uid = -1, .gid = -1};
    struct companion_proc p;
    char why[256] = "";
    REQUIRE(companion_spawn(&spec, &p, why, sizeof why) == 0);
    CHECK(p.pid > 0 && p.pidfd >= 0 && p.start_ticks > 0);
    int status;
    CHECK(!companion_exited(&p, &status));
    char *data = NULL; /* its output reaches the log before it is signalled (bounded: 5 s) */
    for (int i = 0; i < 500 && (!data || !strstr(data, "started")); i++) {
        free(data);
        data = NULL;
        read_file(log, 1 << 16, &data, NULL);
        if (!data || !strstr(data, "started"))
            usleep(10000);
    }
    CHECK_CONTAINS(data, "started");
    free(data);
    struct companion_proc stale = {.pid = p.pid, .pidfd = -1, .start_ticks = p.start_ticks + 1};
    CHECK(!companion_signal(&stale, SIGKILL)); /* another start time: another process */
    CHECK(companion_signal(&p, SIGTERM));
    bool exited = false;
    for (int i = 0; i < 200 && !exited; i++) {
        exited = companion_exited(&p, &status);
        if (!exited)
            usleep(10000);
    }
    CHECK(exited);
    CHECK_INT(status, 128 + SIGTERM);
    companion_release(&p);
    unlink(log);
    snprintf(log, sizeof log, "%s/companions", dir);
    rmdir(log);
    rmdir(dir);
}

TEST_MAIN(TEST_CASE(tokens_are_random_hex_in_private_files), TEST_CASE(ports_skip_claimed_and_bound_ones),
          TEST_CASE(a_spawned_companion_logs_and_is_signalled))
