/* Room kept in a job's exits file, so a supervisor that ends while the disk is full can still
 * append its task's exit status (and a restarted server read it instead of Unknown). */
#ifndef CALDERA_EXITS_RESERVE_H
#define CALDERA_EXITS_RESERVE_H

/* Bytes allocated beyond the exits file's end (about a hundred lines of a supervisor's). */
#define EXITS_RESERVE_BYTES 8192

/* Makes sure at least half of EXITS_RESERVE_BYTES is allocated past the end of the open file fd,
 * allocating EXITS_RESERVE_BYTES there when not (fallocate with FALLOC_FL_KEEP_SIZE: the size stays,
 * and O_APPEND writes fill the allocated blocks without asking the file system for more). One
 * fstat when the room is there. Returns 0, or -1 with errno (a file system without fallocate: the
 * file simply has no reserve). */
int exits_file_reserve(int fd);

#endif
