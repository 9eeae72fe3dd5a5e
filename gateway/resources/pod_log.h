/* An attempt's log read for the log API: kubelet's CRI records (as caldera-shim writes them) or a
 * raw file (a task run without the supervisor), with PodLogOptions' limitBytes, tailLines,
 * sinceSeconds/sinceTime and timestamps; read in blocks, never the whole file in memory. */
#ifndef CALDERA_POD_LOG_H
#define CALDERA_POD_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/api_status.h"

struct http_req;

#define POD_LOG_ALL_LINES (-1)

struct pod_log_options {
    int64_t limit_bytes; /* stop after this many bytes of the answer; 0: no limit */
    int64_t tail_lines;  /* the last N lines only; POD_LOG_ALL_LINES: all */
    int64_t since_ms;    /* only records written at or after this time; INT64_MIN: all */
    bool timestamps;     /* each line prefixed with its time (RFC3339Nano) and a space */
};

/* The query parameters as given (NULL: absent). */
struct pod_log_query {
    const char *limit_bytes, *tail_lines, *since_seconds, *since_time, *timestamps;
};

/* Reads the parameters into *o (sinceSeconds counted back from now_ms). Returns 0, or -1 with a
 * 400 Status naming the parameter in st. */
int pod_log_options_parse(const struct pod_log_query *q, int64_t now_ms, struct pod_log_options *o,
                          struct api_status *st);

/* One CRI record: "<RFC3339Nano> <stdout|stderr> <F|P> <message>" (without its newline). */
struct cri_record {
    const char *time; /* its text, time_len bytes */
    size_t time_len;
    int64_t time_ms;
    bool is_stderr;
    bool partial; /* P: the line goes on in the next record */
    const char *message;
    size_t message_len;
};
/* Parses line (len bytes, no newline). Returns false when it is not a CRI record. */
bool pod_log_parse_cri(const char *line, size_t len, struct cri_record *rec);

struct pod_log_reader;
/* Opens path (O_NOFOLLOW: a regular file with a single link, else refused with a Status) and
 * finds where the answer starts. Returns 0, or -1 with a Status in st. */
int pod_log_open(const char *path, const struct pod_log_options *o, struct pod_log_reader **out, struct api_status *st);
/* True when the file is not in CRI form: served as it is (since and timestamps do not apply). */
bool pod_log_is_raw(const struct pod_log_reader *r);
/* The next bytes of the answer into buf (at most max). Returns how many, or -1 at the end. */
long pod_log_read(struct pod_log_reader *r, char *buf, size_t max);
/* Following a log that still grows: the answer goes on to the file's size now, and while following
 * is true an unfinished last record waits for its end (false once the writer is done: it is sent). */
void pod_log_follow(struct pod_log_reader *r, bool following);
void pod_log_close(struct pod_log_reader *r);

/* True once limitBytes were sent: nothing more comes, however the file grows. */
bool pod_log_limit_reached(const struct pod_log_reader *r);

/* The pieces of an answer (pod_log_http.c): ?container= checked against the pod's container (NULL:
 * not checked), the PodLogOptions of the query, the warning for a log without timestamps, and the
 * answer streamed from an open reader (taken). The checks return 0, or -1 with a 400 Status in st. */
int pod_log_check_container(struct http_req *req, const char *container, struct api_status *st);
int pod_log_query_options(struct http_req *req, struct pod_log_options *o, struct api_status *st);
void pod_log_warn_raw(struct http_req *req, const struct pod_log_reader *r, const struct pod_log_options *o);
void pod_log_respond_reader(struct http_req *req, struct pod_log_reader *r);

/* A live pod's attempt, as the core found it. */
struct pod_log_live {
    const char *path;      /* its log file */
    const char *container; /* the pod's container (NULL: not checked) */
    const char *ns, *pod, *job, *uid;
    int attempt;  /* 1, 2, ... */
    bool running; /* the attempt still runs: ?follow=true streams it until it ends */
};
/* Answers req with the attempt's log (pod_log_live.c): as pod_log_respond, plus ?follow=true, and a
 * Status naming the start error when the attempt left no log. */
void pod_log_respond_live(struct http_req *req, const struct pod_log_live *live);

/* Answers req with the log of a pod a backend runs (pod_log_remote.c): found is the core's answer
 * (backend, ref, uid, pod, container); the engine's text, limitBytes and tailLines applied by it. */
void pod_log_respond_remote(struct http_req *req, const json_t *found);

/* Answers req with the log at path: the query's PodLogOptions applied, streamed as text/plain;
 * container (NULL: not checked) is the pod's container, the only name ?container= may give. */
void pod_log_respond(struct http_req *req, const char *path, const char *container);

#endif
