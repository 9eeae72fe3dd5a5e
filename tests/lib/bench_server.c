/* The end-to-end benchmarks' server: started on loopback with a big virtual node, removed with its
 * data once the figures are taken. */
#include "tests/lib/bench_server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fs.h"

int bench_server_start(struct bench_server *b, const char *tag) { return bench_server_start_with(b, tag, NULL); }

int bench_server_start_with(struct bench_server *b, const char *tag, const char *const *extra_args)
{
    snprintf(b->nodes, sizeof b->nodes, "/tmp/caldera-bench-nodes-XXXXXX");
    int fd = mkstemp(b->nodes);
    const char *yaml =
        "apiVersion: v1\nkind: Node\nmetadata: {name: bench}\nstatus:\n  allocatable: {cpu: \"1000\", "
        "memory: 1Ti, pods: \"100000\"}\n";
    if (fd < 0 || write(fd, yaml, strlen(yaml)) < 0) {
        fprintf(stderr, "bench: cannot write the node file %s\n", b->nodes);
        return -1;
    }
    close(fd);
    const char *args[22] = {"--nodes", b->nodes, "--log-level", "warn"};
    for (int i = 0; extra_args && extra_args[i] && i < 16; i++)
        args[4 + i] = extra_args[i];
    /* A data directory of its own in the build tree, removed only after the measurements. On an
     * ext4 without a journal (this machine's) the kernel skips inodes deleted in the last minutes
     * when it allocates one, reading their blocks as it goes: after the test suite or a previous
     * run has deleted thousands of files nearby, creating a task's log costs it 0.5-0.8 ms. */
    snprintf(b->data_dir, sizeof b->data_dir, "%s/bench-%s.%d",
             getenv("BENCH_DATA_PARENT") ? getenv("BENCH_DATA_PARENT") : "build", tag, (int)getpid());
    if (server_start(&b->s, b->data_dir, (const char *const *)args) != 0) {
        unlink(b->nodes);
        return -1;
    }
    return 0;
}

void bench_server_finish(struct bench_server *b)
{
    server_stop(&b->s);
    server_cleanup(&b->s);
    remove_tree(b->data_dir);
    unlink(b->nodes);
}
