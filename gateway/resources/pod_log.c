/* An attempt's log read for the log API: kubelet's CRI records (as caldera-shim writes them) or a
 * raw file, with limitBytes, tailLines, since and timestamps, in blocks (tailLines from the end). */
#include "gateway/resources/pod_log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"
#include "gateway/http/query_params.h"

#define BLOCK 65536
#define HEAD_MAX 64 /* a record's time, stream and tag fit in this */

struct pod_log_reader {
    int fd;
    struct pod_log_options opt;
    bool raw;
    off_t pos, end; /* the next offset to read; the file's size when opened (the answer stops there) */
    int64_t sent;
    bool line_start;  /* the next message begins a line of the answer (for timestamps) */
    bool long_record; /* inside a record longer than the buffer: copied as it is up to its newline */
    bool following;   /* the file still grows: an unfinished last record waits for the rest */
    char in[BLOCK];
    size_t in_off, in_len;
    char out[2 * BLOCK + HEAD_MAX];
    size_t out_off, out_len;
};

/* ---- options ------------------------------------------------------------------------------------ */

int pod_log_options_parse(const struct pod_log_query *q, int64_t now_ms, struct pod_log_options *o,
                          struct api_status *st)
{
    *o = (struct pod_log_options){.limit_bytes = 0, .tail_lines = POD_LOG_ALL_LINES, .since_ms = INT64_MIN};
    long limit = 0, tail = POD_LOG_ALL_LINES, since_s = 0;
    if (q->since_seconds && q->since_time) {
        api_add_cause(st, "sinceSeconds", "FieldValueInvalid", 0, 0,
                      "Invalid value: at most one of sinceTime or sinceSeconds may be given");
        return api_fail(st, 400, "BadRequest", "sinceSeconds: at most one of sinceTime or sinceSeconds may be given");
    }
    if (query_int("limitBytes", q->limit_bytes, 1, LONG_MAX, &limit, st) != 0 ||
        query_int("tailLines", q->tail_lines, 0, LONG_MAX, &tail, st) != 0 ||
        query_int("sinceSeconds", q->since_seconds, 1, LONG_MAX / 1000, &since_s, st) != 0 ||
        query_time("sinceTime", q->since_time, &o->since_ms, st) != 0 ||
        query_bool("timestamps", q->timestamps, &o->timestamps, st) != 0)
        return -1;
    o->limit_bytes = limit;
    o->tail_lines = tail;
    if (q->since_seconds)
        o->since_ms = now_ms - (int64_t)since_s * 1000;
    return 0;
}

/* ---- records ------------------------------------------------------------------------------------ */

bool pod_log_parse_cri(const char *line, size_t len, struct cri_record *rec)
{
    const char *sp = memchr(line, ' ', len < 40 ? len : 40);
    if (!sp || sp - line < 20)
        return false;
    char text[40];
    size_t tlen = (size_t)(sp - line);
    memcpy(text, line, tlen);
    text[tlen] = '\0';
    if (rfc3339_parse(text, &rec->time_ms) != 0)
        return false;
    const char *p = sp + 1;
    size_t left = len - tlen - 1;
    if (left < 8 || (memcmp(p, "stdout ", 7) != 0 && memcmp(p, "stderr ", 7) != 0) || (p[7] != 'F' && p[7] != 'P') ||
        (left > 8 && p[8] != ' '))
        return false;
    rec->time = line;
    rec->time_len = tlen;
    rec->is_stderr = p[3] == 'e';
    rec->partial = p[7] == 'P';
    rec->message = left > 8 ? p + 9 : p + 8;
    rec->message_len = left > 8 ? left - 9 : 0;
    return true;
}

/* ---- tailLines: from the end -------------------------------------------------------------------- */

/* Does the record starting at off end its line (F, or not a record at all)? Its head is read from
 * [in, in_end) when it is there, else from the file. */
static bool record_ends_line(struct pod_log_reader *r, off_t off, const char *in, const char *in_end)
{
    if (r->raw)
        return true;
    char copy[HEAD_MAX];
    const char *head = in;
    ssize_t n = in_end - in;
    if (n < HEAD_MAX) {
        head = copy;
        n = pread(r->fd, copy, sizeof copy, off);
        if (n <= 0)
            return true;
    }
    const char *nl = memchr(head, '\n', (size_t)(n < HEAD_MAX ? n : HEAD_MAX));
    struct cri_record rec;
    return !pod_log_parse_cri(head, nl ? (size_t)(nl - head) : (size_t)(n < HEAD_MAX ? n : HEAD_MAX), &rec) ||
           !rec.partial;
}

/* Where the last `lines` lines start. A line is a run of records ending with an F one (in a raw
 * file, each newline ends one); the last line may be unfinished. Walking back, each F record but the
 * last closes the lines after it. Reads blocks backwards, and the head of each record it passes. */
static off_t tail_start(struct pod_log_reader *r, int64_t lines)
{
    if (lines == 0)
        return r->end;
    char last;
    off_t scan_end = r->end;
    if (r->end > 0 && pread(r->fd, &last, 1, r->end - 1) == 1 && last == '\n')
        scan_end--; /* the newline that ends the last record separates nothing */
    int64_t found = 0;
    off_t pending = -1; /* a newline whose record's start is still to be found */
    for (off_t block_end = scan_end; block_end > 0;) {
        off_t block_start = block_end > BLOCK ? block_end - BLOCK : 0;
        ssize_t n = pread(r->fd, r->in, (size_t)(block_end - block_start), block_start);
        if (n != block_end - block_start)
            return 0; /* the file shrank: all of it */
        for (const char *p = r->in + n; (p = memrchr(r->in, '\n', (size_t)(p - r->in)));) {
            off_t at = block_start + (p - r->in);
            if (pending >= 0 && record_ends_line(r, at + 1, p + 1, r->in + n) && ++found == lines)
                return pending + 1;
            pending = at;
        }
        block_end = block_start;
    }
    if (pending >= 0 && record_ends_line(r, 0, NULL, NULL) && ++found == lines)
        return pending + 1;
    return 0;
}

/* ---- open, read --------------------------------------------------------------------------------- */

int pod_log_open(const char *path, const struct pod_log_options *o, struct pod_log_reader **out, struct api_status *st)
{
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ENOENT)
            return api_fail(st, 404, "NotFound", "the log %s is not there", name);
        if (errno == ELOOP)
            return api_fail(st, 403, "Forbidden", "the log %s is a symbolic link: it is not served", name);
        return api_fail(st, 500, "InternalError", "cannot open the log %s: %s", name, strerror(errno));
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_nlink != 1) {
        close(fd);
        return api_fail(st, 403, "Forbidden", "the log %s is not a regular file with a single link: it is not served",
                        name);
    }
    struct pod_log_reader *r = malloc(sizeof *r);
    if (!r) {
        close(fd);
        return api_fail(st, 500, "InternalError", "out of memory");
    }
    r->fd = fd;
    r->opt = *o;
    r->end = sb.st_size;
    r->pos = 0;
    r->sent = 0;
    r->line_start = true;
    r->long_record = false;
    r->following = false;
    r->in_off = r->in_len = r->out_off = r->out_len = 0;
    char head[HEAD_MAX];
    ssize_t n = pread(fd, head, sizeof head, 0);
    struct cri_record rec;
    const char *nl = n > 0 ? memchr(head, '\n', (size_t)n) : NULL;
    r->raw = n > 0 && !pod_log_parse_cri(head, nl ? (size_t)(nl - head) : (size_t)n, &rec);
    if (o->tail_lines != POD_LOG_ALL_LINES)
        r->pos = tail_start(r, o->tail_lines);
    *out = r;
    return 0;
}

bool pod_log_is_raw(const struct pod_log_reader *r) { return r->raw; }

static void put(struct pod_log_reader *r, const char *p, size_t n)
{
    memcpy(r->out + r->out_len, p, n);
    r->out_len += n;
}

/* One record (or a line that is not one) into out, the options applied. */
static void put_record(struct pod_log_reader *r, const char *line, size_t len)
{
    struct cri_record rec;
    if (!pod_log_parse_cri(line, len, &rec)) {
        put(r, line, len);
        put(r, "\n", 1);
        r->line_start = true;
        return;
    }
    if (rec.time_ms < r->opt.since_ms)
        return;
    if (r->opt.timestamps && r->line_start) {
        put(r, rec.time, rec.time_len);
        put(r, " ", 1);
    }
    put(r, rec.message, rec.message_len);
    if (!rec.partial)
        put(r, "\n", 1);
    r->line_start = !rec.partial;
}

/* More of the file into in; false at the end (the size it had when opened). */
static bool fill_in(struct pod_log_reader *r)
{
    if (r->in_off > 0) {
        memmove(r->in, r->in + r->in_off, r->in_len - r->in_off);
        r->in_len -= r->in_off;
        r->in_off = 0;
    }
    size_t room = sizeof r->in - r->in_len;
    if (room > (size_t)(r->end - r->pos))
        room = (size_t)(r->end - r->pos);
    if (room == 0)
        return false;
    ssize_t n = pread(r->fd, r->in + r->in_len, room, r->pos);
    if (n <= 0)
        return false;
    r->in_len += (size_t)n;
    r->pos += n;
    return true;
}

/* Makes more of the answer in out. Returns false when there is no more. */
static bool fill_out(struct pod_log_reader *r)
{
    r->out_off = r->out_len = 0;
    if (r->raw) {
        size_t room = BLOCK < r->end - r->pos ? BLOCK : (size_t)(r->end - r->pos);
        ssize_t n = room ? pread(r->fd, r->out, room, r->pos) : 0;
        if (n <= 0)
            return false;
        r->pos += n;
        r->out_len = (size_t)n;
        return true;
    }
    while (r->out_len < BLOCK) {
        const char *start = r->in + r->in_off;
        const char *nl = memchr(start, '\n', r->in_len - r->in_off);
        if (nl) {
            size_t len = (size_t)(nl - start);
            if (r->long_record) {
                put(r, start, len + 1);
                r->long_record = false;
            } else {
                put_record(r, start, len);
            }
            r->in_off += len + 1;
            continue;
        }
        if (r->in_len - r->in_off == sizeof r->in || (r->long_record && r->in_len > r->in_off)) {
            put(r, r->in + r->in_off, r->in_len - r->in_off); /* longer than a block: as it is */
            r->in_off = r->in_len;
            r->long_record = true;
            continue;
        }
        if (!fill_in(r)) {
            if (r->in_len > r->in_off && !r->following) { /* the last record, unfinished */
                put_record(r, r->in + r->in_off, r->in_len - r->in_off);
                r->in_off = r->in_len;
            }
            break;
        }
    }
    return r->out_len > 0;
}

long pod_log_read(struct pod_log_reader *r, char *buf, size_t max)
{
    size_t n = 0;
    while (n < max) {
        int64_t allowed = r->opt.limit_bytes ? r->opt.limit_bytes - r->sent : INT64_MAX;
        if (allowed <= 0)
            break;
        if (r->out_off == r->out_len && !fill_out(r))
            break;
        size_t take = r->out_len - r->out_off;
        if (take > max - n)
            take = max - n;
        if ((int64_t)take > allowed)
            take = (size_t)allowed;
        memcpy(buf + n, r->out + r->out_off, take);
        r->out_off += take;
        r->sent += (int64_t)take;
        n += take;
    }
    return n > 0 ? (long)n : -1;
}

bool pod_log_limit_reached(const struct pod_log_reader *r)
{
    return r->opt.limit_bytes && r->sent >= r->opt.limit_bytes;
}

void pod_log_follow(struct pod_log_reader *r, bool following)
{
    struct stat sb;
    r->following = following;
    if (fstat(r->fd, &sb) == 0 && sb.st_size > r->end)
        r->end = sb.st_size;
}

void pod_log_close(struct pod_log_reader *r)
{
    if (!r)
        return;
    close(r->fd);
    free(r);
}
