/* The exits file's reserve: room allocated past the end without changing the size, kept at each
 * open, growing with the exits still to come, and taking appends once the file system is full. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/exits_reserve.h"
#include "tests/lib/test.h"

static off_t allocated(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 ? (off_t)st.st_blocks * 512 : -1;
}

static off_t size_of(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 ? st.st_size : -1;
}

static void append_lines(int fd, int n)
{
    for (int i = 0; i < n; i++) {
        char line[128];
        int len = snprintf(line, sizeof line, "job-worker-%d 1 %d exit 0 1763800000000\n", i, 4000 + i);
        CHECK_INT(write(fd, line, (size_t)len), len);
    }
}

static void room_is_kept_and_grows_with_pending_exits(void)
{
    char dir[] = "/tmp/caldera-exits-XXXXXX";
    REQUIRE(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/exits", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    REQUIRE(fd >= 0);
    if (exits_file_reserve(fd, 0) != 0 && errno == EOPNOTSUPP) {
        test_skip("no fallocate on %s", dir);
    } else {
        CHECK_INT(size_of(fd), 0);
        CHECK(allocated(fd) >= EXITS_RESERVE_BYTES);
        append_lines(fd, 100); /* past half the reserve: the next call tops it up */
        CHECK_INT(exits_file_reserve(fd, 0), 0);
        CHECK(allocated(fd) >= size_of(fd) + EXITS_RESERVE_BYTES / 2);
        CHECK_INT(exits_file_reserve(fd, 200), 0); /* a job with 200 attempts running */
        CHECK(allocated(fd) >= size_of(fd) + EXITS_RESERVE_BYTES / 2 + 200 * EXITS_LINE_BYTES);
        off_t before = allocated(fd);
        CHECK_INT(exits_file_reserve(fd, 200), 0); /* enough already: nothing more */
        CHECK_INT(allocated(fd), before);
    }
    close(fd);
    unlink(path);
    rmdir(dir);
}

/* On a full tmpfs, lines go into the reserve (root only: the mount). */
static void appends_fit_in_the_reserve_of_a_full_disk(void)
{
    char dir[] = "/tmp/caldera-exits-full-XXXXXX";
    REQUIRE(mkdtemp(dir));
    if (mount("tmpfs", dir, "tmpfs", 0, "size=1m") != 0) {
        test_skip("cannot mount a tmpfs here (%s)", strerror(errno));
        rmdir(dir);
        return;
    }
    char path[80], filler[80];
    snprintf(path, sizeof path, "%s/exits", dir);
    snprintf(filler, sizeof filler, "%s/filler", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    int fill = open(filler, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    REQUIRE(fd >= 0 && fill >= 0);
    CHECK_INT(exits_file_reserve(fd, 0), 0);
    static char block[4096];
    while (write(fill, block, sizeof block) > 0)
        ;
    CHECK_INT(errno, ENOSPC);
    append_lines(fd, 100); /* about 4.5 KiB: inside the 8 KiB */
    CHECK_INT(size_of(fd) > 4000, 1);
    close(fill);
    close(fd);
    umount2(dir, MNT_DETACH);
    rmdir(dir);
}

TEST_MAIN(TEST_CASE(room_is_kept_and_grows_with_pending_exits), TEST_CASE(appends_fit_in_the_reserve_of_a_full_disk))
