/* caldera-shim's log writer: what the task writes to its stdout and stderr pipes, copied into the
 * attempt's log as kubelet's CRI records, the file kept within --max-log-bytes. */
#ifndef CALDERA_SHIM_LOG_H
#define CALDERA_SHIM_LOG_H

#include <stddef.h>

/* Which pipe a chunk came from. */
enum shim_stream { SHIM_STDOUT, SHIM_STDERR };

/* The smallest bound the writer works with (the server refuses less). */
#define SHIM_LOG_MIN_BYTES 4096LL

/* Starts writing to fd (the attempt's log, opened for appending); max_bytes bounds the file (0:
 * unbounded; below SHIM_LOG_MIN_BYTES counts as that). */
void shim_log_open(int fd, long long max_bytes);
/* One chunk read from a pipe, as records "<RFC3339Nano> stdout|stderr F|P <line>": F for each line
 * that ends in the chunk, P for what follows the chunk's last newline. */
void shim_log_chunk(enum shim_stream stream, const char *data, size_t len);
/* The supervisor's own message, one stderr record. */
void shim_log_message(const char *text);
/* At the end: what is buffered, and after a truncation the marker and the kept tail. */
void shim_log_finish(void);

#endif
