/* Opening beneath a directory descriptor (common/fs_at.c) and removing trees (remove_tree): a planted
 * symbolic link, hard link or fifo is replaced, never followed or written through; exact modes. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fs.h"
#include "common/fs_at.h"
#include "tests/lib/test.h"

#define SECRET "root's secret\n"

static char root[64];
static int root_fd = -1;

/* A fresh directory with a "secret" file outside the one the opens happen in: root/secret (0640). */
static void setup(void)
{
    if (root_fd >= 0) {
        close(root_fd);
        remove_tree(root);
    }
    snprintf(root, sizeof root, "/tmp/caldera-fs-at-XXXXXX");
    if (!mkdtemp(root))
        abort();
    char path[128];
    snprintf(path, sizeof path, "%s/dir", root);
    mkdir(path, 0700);
    root_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    snprintf(path, sizeof path, "%s/secret", root);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0640);
    if (fd < 0 || write(fd, SECRET, strlen(SECRET)) != (ssize_t)strlen(SECRET))
        abort();
    fchmod(fd, 0640);
    close(fd);
}

static bool secret_untouched(void)
{
    char path[128], *data = NULL;
    struct stat st;
    snprintf(path, sizeof path, "%s/secret", root);
    bool same = lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0640 &&
                st.st_uid == geteuid() && read_file(path, 1024, &data, NULL) == 0 && strcmp(data, SECRET) == 0;
    free(data);
    return same;
}

/* Writes a line through file_open_append_at(name) and checks what holds the name afterwards. */
static void append_is_safe(const char *name)
{
    int fd = file_open_append_at(root_fd, name, 0600);
    REQUIRE(fd >= 0);
    CHECK(write(fd, "log line\n", 9) == 9);
    struct stat st;
    CHECK(fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1 && (st.st_mode & 07777) == 0600);
    CHECK((fcntl(fd, F_GETFL) & O_NONBLOCK) == 0);
    close(fd);
    CHECK(fstatat(root_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1);
    CHECK(secret_untouched());
}

static void a_planted_symlink_is_replaced_not_followed(void)
{
    setup();
    char target[128];
    snprintf(target, sizeof target, "%s/secret", root);
    REQUIRE(symlinkat(target, root_fd, "a.log") == 0);
    append_is_safe("a.log");
    REQUIRE(symlinkat("../nowhere", root_fd, "dangling.log") == 0); /* would be created through */
    append_is_safe("dangling.log");
    char missing[128];
    snprintf(missing, sizeof missing, "%s/nowhere", root);
    CHECK(access(missing, F_OK) != 0);
}

static void a_planted_hard_link_is_replaced_not_written(void)
{
    setup();
    char target[128];
    snprintf(target, sizeof target, "%s/secret", root);
    REQUIRE(linkat(AT_FDCWD, target, root_fd, "b.log", 0) == 0);
    append_is_safe("b.log");
}

static void a_planted_fifo_or_directory_does_not_block(void)
{
    setup();
    REQUIRE(mkfifoat(root_fd, "c.log", 0666) == 0);
    append_is_safe("c.log");
    REQUIRE(mkdirat(root_fd, "d.log", 0755) == 0);
    append_is_safe("d.log");
}

static void the_servers_own_file_is_appended_to(void)
{
    setup();
    int fd = openat(root_fd, "exits", O_WRONLY | O_CREAT, 0644);
    REQUIRE(fd >= 0);
    CHECK(write(fd, "first\n", 6) == 6);
    fchmod(fd, 0644);
    close(fd);
    fd = file_open_append_at(root_fd, "exits", 0600);
    REQUIRE(fd >= 0);
    CHECK(write(fd, "second\n", 7) == 7);
    close(fd);
    char path[128], *data = NULL;
    snprintf(path, sizeof path, "%s/dir/exits", root);
    CHECK(read_file(path, 64, &data, NULL) == 0);
    CHECK_STR(data, "first\nsecond\n");
    free(data);
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600); /* the old mode is put right */
}

static void directories_are_opened_without_following(void)
{
    setup();
    mode_t old = umask(077);
    REQUIRE(symlinkat("..", root_fd, "logs") == 0);
    int fd = dir_open_own_at(root_fd, "logs", 0711); /* the server's: the link goes, the directory comes */
    CHECK(fd >= 0);
    struct stat st;
    CHECK(fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0711);
    if (fd >= 0)
        close(fd);
    REQUIRE(symlinkat("..", root_fd, "work") == 0);
    bool made = true;
    CHECK_INT(dir_open_at(root_fd, "work", 0700, &made), -1); /* a task's: refused */
    CHECK_INT(errno, ELOOP);
    CHECK(!made);
    fd = dir_open_at(root_fd, "fresh", 0700, &made);
    CHECK(fd >= 0 && made);
    if (fd >= 0)
        close(fd);
    umask(old);
}

static void mkdir_p_and_atomic_writes_set_exact_modes(void)
{
    setup();
    mode_t old = umask(077);
    char path[128];
    snprintf(path, sizeof path, "%s/a/b", root);
    CHECK_INT(mkdir_p(path, 0711), 0);
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0711);
    snprintf(path, sizeof path, "%s/a", root);
    CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0711);
    snprintf(path, sizeof path, "%s/a/url", root);
    CHECK_INT(write_file_atomic(path, "x\n", 2, 0644), 0);
    CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0644);
    umask(old);
}

/* A link inside a tree to a directory outside it: the link goes, the directory and its files stay. */
static void remove_tree_never_follows_a_link(void)
{
    setup();
    char tree[128], outside[128], path[256];
    snprintf(tree, sizeof tree, "%s/tree", root);
    snprintf(outside, sizeof outside, "%s/outside", root);
    REQUIRE(mkdir_p(tree, 0700) == 0 && mkdir(outside, 0700) == 0);
    snprintf(path, sizeof path, "%s/keep", outside);
    REQUIRE(write_file_atomic(path, "kept\n", 5, 0600) == 0);
    snprintf(path, sizeof path, "%s/to-dir", tree);
    REQUIRE(symlink(outside, path) == 0);
    snprintf(path, sizeof path, "%s/to-secret", tree);
    REQUIRE(symlink("../secret", path) == 0);
    snprintf(path, sizeof path, "%s/sub/deeper", tree);
    REQUIRE(mkdir_p(path, 0700) == 0);
    snprintf(path, sizeof path, "%s/sub/deeper/link", tree);
    REQUIRE(symlink(outside, path) == 0);
    CHECK_INT(remove_tree(tree), 0);
    CHECK(access(tree, F_OK) != 0);
    snprintf(path, sizeof path, "%s/keep", outside);
    CHECK(access(path, F_OK) == 0);
    CHECK(secret_untouched());
    /* a path that is itself a link: the link goes */
    snprintf(path, sizeof path, "%s/link-to-outside", root);
    REQUIRE(symlink(outside, path) == 0);
    CHECK_INT(remove_tree(path), 0);
    CHECK(access(path, F_OK) != 0 && access(outside, F_OK) == 0);
}

/* Deeper than the descriptors a removal holds: still removed whole. */
static void remove_tree_takes_any_depth(void)
{
    setup();
    char tree[128];
    snprintf(tree, sizeof tree, "%s/deep", root);
    REQUIRE(mkdir(tree, 0700) == 0);
    int fd = open(tree, O_RDONLY | O_DIRECTORY);
    for (int i = 0; fd >= 0 && i < 300; i++) {
        REQUIRE(mkdirat(fd, "d", 0700) == 0);
        int next = openat(fd, "d", O_RDONLY | O_DIRECTORY);
        close(fd);
        fd = next;
    }
    REQUIRE(fd >= 0);
    close(openat(fd, "file", O_WRONLY | O_CREAT, 0600));
    close(fd);
    CHECK_INT(remove_tree(tree), 0);
    CHECK(access(tree, F_OK) != 0);
    close(root_fd);
    root_fd = -1;
    remove_tree(root);
}

TEST_MAIN(TEST_CASE(a_planted_symlink_is_replaced_not_followed), TEST_CASE(a_planted_hard_link_is_replaced_not_written),
          TEST_CASE(a_planted_fifo_or_directory_does_not_block), TEST_CASE(the_servers_own_file_is_appended_to),
          TEST_CASE(directories_are_opened_without_following), TEST_CASE(mkdir_p_and_atomic_writes_set_exact_modes),
          TEST_CASE(remove_tree_never_follows_a_link), TEST_CASE(remove_tree_takes_any_depth))
