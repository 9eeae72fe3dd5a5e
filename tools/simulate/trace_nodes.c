/* A trace's Node documents go through the nodes-file parser (adapters/node) in one piece: the other
 * documents are blanked out line for line, so its messages carry the trace's own line numbers. */
#include <stdlib.h>

#include "adapters/objects/node.h"
#include "common/clock.h"
#include "common/sbuf.h"
#include "runtime/host.h"
#include "tools/simulate/trace_internal.h"

static void append_newlines(struct sbuf *b, const char *data, size_t start, size_t end)
{
    for (size_t i = start; i < end; i++)
        if (data[i] == '\n')
            sbuf_append(b, "\n", 1);
}

char *trace_keep_documents(const char *data, size_t len, const struct intake *in, const bool *keep, size_t *out_len)
{
    struct sbuf b = {0};
    size_t at = 0;
    for (int d = 0; d < in->ndocs; d++) {
        const struct intake_doc *doc = &in->docs[d];
        sbuf_append(&b, data + at, doc->start_offset - at); /* comments, skipped empty documents */
        if (keep[d]) {
            sbuf_append(&b, data + doc->start_offset, doc->end_offset - doc->start_offset);
        } else {
            /* "---" keeps its neighbours apart, whether or not they start with a marker themselves. */
            sbuf_puts(&b, "---");
            append_newlines(&b, data, doc->start_offset, doc->end_offset);
        }
        at = doc->end_offset;
    }
    sbuf_append(&b, data + at, len - at);
    if (b.failed) {
        sbuf_free(&b);
        return NULL;
    }
    *out_len = b.len;
    return sbuf_take(&b);
}

int trace_doc_at_line(const char *data, const struct intake *in, int line)
{
    int found = 0, at_line = 1;
    size_t at = 0;
    for (int d = 0; d < in->ndocs; d++) {
        for (; at < in->docs[d].start_offset; at++)
            at_line += data[at] == '\n';
        if (at_line > line)
            break;
        found = d + 1;
    }
    return found;
}

int trace_load_nodes(const char *data, size_t len, const struct intake *in, const bool *keep, struct node **nodes,
                     int *count, struct api_status *st)
{
    size_t text_len = 0;
    char *text = trace_keep_documents(data, len, in, keep, &text_len);
    if (!text)
        return api_fail(st, 500, "InternalError", "out of memory");
    struct machine m = {0};
    host_identify(&m);
    int rc = nodes_from_yaml(text, text_len, m.arch, clock_wall_ms(), nodes, count, st);
    free(text);
    return rc;
}
