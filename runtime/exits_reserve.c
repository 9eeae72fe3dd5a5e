/* Preallocated room at the end of a job's exits file: an exit that happens while the disk is full
 * is still written, into blocks allocated earlier. */
#include "runtime/exits_reserve.h"

#include <fcntl.h>
#include <sys/stat.h>

int exits_file_reserve(int fd, int pending)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -1;
    off_t lines = (off_t)(pending > 0 ? pending : 0) * EXITS_LINE_BYTES;
    if ((off_t)st.st_blocks * 512 >= st.st_size + EXITS_RESERVE_BYTES / 2 + lines)
        return 0;
    return fallocate(fd, FALLOC_FL_KEEP_SIZE, st.st_size, EXITS_RESERVE_BYTES + 2 * lines);
}
