/* Room kept in a job's exits file, so a supervisor that ends while the disk is full can still
 * append its task's exit status (and a restarted server read it instead of Unknown). */
#ifndef CALDERA_EXITS_RESERVE_H
#define CALDERA_EXITS_RESERVE_H

/* The fixed part of the room, and the room of one line still to come ("<pod> <attempt> <pid> exit
 * <code> <ms>": a pod name of up to 253 characters and a few numbers). */
#define EXITS_RESERVE_BYTES 8192
#define EXITS_LINE_BYTES 320

/* Makes sure the open file fd has at least half of EXITS_RESERVE_BYTES plus a line for each of
 * `pending` exits allocated past its end; when not, allocates EXITS_RESERVE_BYTES plus two lines for
 * each there (so a job whose running attempts grow tops up rarely). fallocate with
 * FALLOC_FL_KEEP_SIZE: the size stays, and O_APPEND writes fill the allocated blocks without asking
 * the file system for more. One fstat when the room is there. Returns 0, or -1 with errno (a file
 * system without fallocate: the file simply has no reserve). */
int exits_file_reserve(int fd, int pending);

#endif
