/* A release jobserver for the end-to-end benchmarks: one virtual node large enough for any of their
 * pods, warnings only in its log, and a data directory of its own in the build tree. */
#ifndef CALDERA_BENCH_SERVER_H
#define CALDERA_BENCH_SERVER_H

#include "tests/lib/server.h"

struct bench_server {
    struct test_server s;
    char nodes[64];     /* the node file */
    char data_dir[256]; /* <build or $BENCH_DATA_PARENT>/bench-<tag>.<pid> */
};

/* Starts it. Returns 0, or -1 after saying why. */
int bench_server_start(struct bench_server *b, const char *tag);
/* The same with more options for the server (NULL-terminated, at most 16; may be NULL). */
int bench_server_start_with(struct bench_server *b, const char *tag, const char *const *extra_args);
/* Stops it and removes its node file and data directory. */
void bench_server_finish(struct bench_server *b);

#endif
