/* The spare stock: files and directories made ahead, renamed into place, never over an existing
 * path, refilled after takes, and read back by a later start. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fs.h"
#include "runtime/spare_files.h"
#include "tests/lib/test.h"

static char root[64];

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int mode_of(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 ? (int)(st.st_mode & 07777) : -1;
}

/* Waits (bounded) until a take succeeds: the refiller makes spares in the background. */
static int take_file_soon(const char *path)
{
    for (int i = 0; i < 200; i++) {
        if (spare_take_file(path) == 0)
            return 0;
        usleep(5000);
    }
    return -1;
}

static void setup(void)
{
    snprintf(root, sizeof root, "/tmp/caldera-spare-XXXXXX");
    REQUIRE(mkdtemp(root));
}

static void files_and_dirs_are_renamed_into_place(void)
{
    setup();
    mode_t old_umask = umask(077); /* the server's: spares still get their modes */
    char spare[128], path[256];
    snprintf(spare, sizeof spare, "%s/spare", root);
    static const char *const subdirs[] = {"work", "logs", NULL};
    REQUIRE(spare_files_start(spare, 4, 2, subdirs, NULL) == 0);
    snprintf(path, sizeof path, "%s/a.log", root);
    CHECK_INT(take_file_soon(path), 0);
    CHECK(exists(path));
    CHECK_INT(mode_of(path), 0600); /* the server's alone: a file becomes a log */
    CHECK_INT(mode_of(spare), 0700);
    /* an existing path is never replaced */
    FILE *f = fopen(path, "w");
    REQUIRE(f);
    fputs("kept", f);
    fclose(f);
    CHECK_INT(spare_take_file(path), -1);
    char *data = NULL;
    CHECK(read_file(path, 64, &data, NULL) == 0);
    CHECK_STR(data, "kept");
    free(data);
    /* a directory comes with its subdirectories */
    snprintf(path, sizeof path, "%s/job", root);
    int rc = -1;
    for (int i = 0; i < 200 && rc != 0; i++, usleep(5000))
        rc = spare_take_dir(path);
    CHECK_INT(rc, 0);
    CHECK_INT(mode_of(path), 0711); /* a job's directory: tasks pass through to their work directory */
    snprintf(path, sizeof path, "%s/job/work", root);
    CHECK_INT(mode_of(path), 0700);
    snprintf(path, sizeof path, "%s/job/logs", root);
    CHECK_INT(mode_of(path), 0700);
    /* beneath a directory descriptor */
    snprintf(path, sizeof path, "%s/job/logs", root);
    int logs_fd = open(path, O_RDONLY | O_DIRECTORY);
    REQUIRE(logs_fd >= 0);
    rc = -1;
    for (int i = 0; i < 200 && rc != 0; i++, usleep(5000))
        rc = spare_take_file_at(logs_fd, "p.1.log");
    CHECK_INT(rc, 0);
    close(logs_fd);
    snprintf(path, sizeof path, "%s/job/logs/p.1.log", root);
    CHECK_INT(mode_of(path), 0600);
    /* a missing parent directory keeps the spare for the next take */
    snprintf(path, sizeof path, "%s/nowhere/b.log", root);
    CHECK_INT(spare_take_file(path), -1);
    /* takes beyond the stock are refilled */
    for (int i = 0; i < 10; i++) {
        snprintf(path, sizeof path, "%s/many-%d.log", root, i);
        CHECK_INT(take_file_soon(path), 0);
    }
    spare_files_stop();
    CHECK_INT(spare_take_file(path), -1); /* stopped: the caller makes its own */
    /* a later start uses what is left on disk and tops it up */
    REQUIRE(spare_files_start(spare, 4, 2, subdirs, NULL) == 0);
    snprintf(path, sizeof path, "%s/after.log", root);
    CHECK_INT(take_file_soon(path), 0);
    spare_files_stop();
    umask(old_umask);
    remove_tree(root);
}

TEST_MAIN(TEST_CASE(files_and_dirs_are_renamed_into_place))
