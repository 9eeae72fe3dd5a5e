/* The stock of cgroups made ahead (runtime/cgroup/stock.c) on real cgroup v1 hierarchies: it holds as
 * many as attempts were made, a take renames one to the attempt's name with its limits, and none outlive it. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/cgroup/cgroup.h"
#include "tests/lib/test.h"

#define WAIT_STEPS 500 /* 10 ms each: the refill runs at nice 10 on a shared machine */

/* The stock as the server starts it, whatever $CALDERA_CGROUP_STOCK says in this environment. */
static int start_stock(int most)
{
    unsetenv("CALDERA_CGROUP_STOCK");
    return cgroup_stock_start(most);
}

static bool not_v1(void) { return cgroup_layout()->mode != CGROUP_V1; }

static void name_for(const char *what, char *out, size_t len)
{
    snprintf(out, len, "stock-test-%s.%d", what, (int)getpid());
}

/* Directories of the server's own stock (".stock-<pid>-") in hierarchy i, or of pid when > 0. */
static int stock_dirs(int i, int pid)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, ".stock-%d-", pid > 0 ? pid : (int)getpid());
    DIR *d = opendir(cgroup_layout()->h[i].parent);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    if (d)
        closedir(d);
    return n;
}

/* The inode of the one stock directory in hierarchy 0 (0: none or several). */
static ino_t stock_inode(void)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, ".stock-%d-", (int)getpid());
    const char *parent = cgroup_layout()->h[0].parent;
    DIR *d = opendir(parent);
    ino_t ino = 0;
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
            char dir[CGROUP_PATH_MAX];
            struct stat st;
            snprintf(dir, sizeof dir, "%s/%s", parent, e->d_name);
            ino = stat(dir, &st) == 0 ? st.st_ino : 0;
            n++;
        }
    if (d)
        closedir(d);
    return n == 1 ? ino : 0;
}

static bool exists_everywhere(const char *name)
{
    const struct cgroup_layout *L = cgroup_layout();
    for (int i = 0; i < L->count; i++) {
        char dir[CGROUP_PATH_MAX];
        struct stat st;
        snprintf(dir, sizeof dir, "%s/%s", L->h[i].parent, name);
        if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
            return false;
    }
    return true;
}

static bool wait_count(int want)
{
    for (int i = 0; i < WAIT_STEPS && cgroup_stock_count() != want; i++)
        usleep(10000);
    return cgroup_stock_count() == want;
}

static int make_and_remove(const char *what, const struct cgroup_limits *lim)
{
    char name[CGROUP_NAME_MAX], why[256];
    struct cgroup_join join;
    name_for(what, name, sizeof name);
    int rc = cgroup_create(name, lim, &join, why, sizeof why);
    if (rc == 0) {
        cgroup_join_close(&join);
        cgroup_remove(name);
    }
    return rc;
}

static void test_holds_as_many_as_were_made(void)
{
    SKIP_IF(getuid() != 0 || not_v1(), "needs root and cgroup v1");
    REQUIRE(start_stock(4) == 0);
    CHECK_INT(cgroup_stock_count(), 0); /* nothing made yet: a server that starts no task makes none */
    struct cgroup_limits none = {0};
    for (int i = 0; i < 6; i++) {
        char what[16];
        snprintf(what, sizeof what, "fill%d", i);
        REQUIRE(make_and_remove(what, &none) == 0);
    }
    CHECK(wait_count(4)); /* six made, at most four kept */
    const struct cgroup_layout *L = cgroup_layout();
    for (int i = 0; i < L->count; i++)
        CHECK_INT(stock_dirs(i, 0), 4);
    cgroup_stock_stop();
    CHECK_INT(cgroup_stock_count(), 0);
    for (int i = 0; i < L->count; i++)
        CHECK_INT(stock_dirs(i, 0), 0); /* a stopped server leaves none behind */
}

static void test_take_renames_with_limits(void)
{
    SKIP_IF(getuid() != 0 || not_v1(), "needs root and cgroup v1");
    REQUIRE(start_stock(2) == 0);
    struct cgroup_limits none = {0};
    REQUIRE(make_and_remove("seed", &none) == 0);
    REQUIRE(wait_count(1));
    ino_t stocked = stock_inode();
    CHECK(stocked != 0);
    char name[CGROUP_NAME_MAX], why[256];
    name_for("taken", name, sizeof name);
    struct cgroup_limits lim = {.memory = 64 << 20, .pids = 17};
    struct cgroup_join join;
    REQUIRE(cgroup_create(name, &lim, &join, why, sizeof why) == 0);
    CHECK(exists_everywhere(name));
    const struct cgroup_layout *L = cgroup_layout();
    char first[CGROUP_PATH_MAX];
    struct stat named;
    snprintf(first, sizeof first, "%s/%s", L->h[0].parent, name);
    CHECK(stat(first, &named) == 0 && named.st_ino == stocked); /* the stock's directory, renamed */
    for (int i = 0; i < L->count; i++) {
        char dir[CGROUP_PATH_MAX];
        snprintf(dir, sizeof dir, "%s/%s", L->h[i].parent, name);
        if (L->h[i].controllers & CG_MEMORY)
            CHECK_INT(cgroup_read_number(dir, "memory.limit_in_bytes"), 64 << 20);
        if (L->h[i].controllers & CG_PIDS)
            CHECK_INT(cgroup_read_number(dir, "pids.max"), 17);
        struct stat st;
        CHECK(stat(dir, &st) == 0 && (st.st_mode & 07777) == CGROUP_DIR_MODE);
    }
    CHECK_INT(join.count, L->count);
    /* the child's join: this process goes in and comes back out to the parent */
    cgroup_join_close(&join);
    cgroup_remove(name);
    CHECK(!exists_everywhere(name));
    cgroup_stock_stop();
}

/* A name an earlier run left behind: the take puts its stock entry away and the mkdir path starts clean. */
static void test_taken_name_that_exists_falls_back(void)
{
    SKIP_IF(getuid() != 0 || not_v1(), "needs root and cgroup v1");
    REQUIRE(start_stock(2) == 0);
    struct cgroup_limits none = {0};
    REQUIRE(make_and_remove("seed2", &none) == 0);
    REQUIRE(wait_count(1));
    char name[CGROUP_NAME_MAX], why[256];
    name_for("left", name, sizeof name);
    const struct cgroup_layout *L = cgroup_layout();
    char dir[CGROUP_PATH_MAX];
    snprintf(dir, sizeof dir, "%s/%s", L->h[L->count - 1].parent, name); /* in the last hierarchy only */
    REQUIRE(cgroup_make_dir(dir) == 0);
    struct cgroup_join join;
    CHECK(cgroup_create(name, &none, &join, why, sizeof why) == 0);
    CHECK(exists_everywhere(name));
    cgroup_join_close(&join);
    cgroup_remove(name);
    CHECK(wait_count(2)); /* two made: the stock is full again */
    for (int i = 0; i < L->count; i++)
        CHECK_INT(stock_dirs(i, 0), 2); /* and no half-renamed entry is left */
    cgroup_stock_stop();
}

/* Stock of a server killed with its stock in place goes at the next start; a live server's stays. */
static void test_leftovers_of_a_gone_server_go(void)
{
    SKIP_IF(getuid() != 0 || not_v1(), "needs root and cgroup v1");
    pid_t gone = fork();
    REQUIRE(gone >= 0);
    if (gone == 0)
        _exit(0);
    waitpid(gone, NULL, 0);
    const struct cgroup_layout *L = cgroup_layout();
    for (int i = 0; i < L->count; i++) {
        char dir[CGROUP_PATH_MAX];
        snprintf(dir, sizeof dir, "%s/.stock-%d-1", L->h[i].parent, (int)gone);
        REQUIRE(cgroup_make_dir(dir) == 0);
        snprintf(dir, sizeof dir, "%s/.stock-%d-99", L->h[i].parent, (int)getppid()); /* alive */
        REQUIRE(cgroup_make_dir(dir) == 0 || errno == EEXIST);
    }
    REQUIRE(start_stock(1) == 0);
    bool went = false;
    for (int i = 0; i < WAIT_STEPS && !went; i++) {
        went = stock_dirs(0, gone) == 0;
        if (!went)
            usleep(10000);
    }
    CHECK(went);
    cgroup_stock_stop();
    for (int i = 0; i < L->count; i++) {
        CHECK_INT(stock_dirs(i, gone), 0);
        CHECK_INT(stock_dirs(i, (int)getppid()), 1);
        char dir[CGROUP_PATH_MAX];
        snprintf(dir, sizeof dir, "%s/.stock-%d-99", L->h[i].parent, (int)getppid());
        rmdir(dir);
    }
}

TEST_MAIN(TEST_CASE(test_holds_as_many_as_were_made), TEST_CASE(test_take_renames_with_limits),
          TEST_CASE(test_taken_name_that_exists_falls_back), TEST_CASE(test_leftovers_of_a_gone_server_go))
