/* What the trace loader's files share: one loader per document kind, the simulator's annotations
 * and the one-line error message. Not for use outside tools/simulate/trace*.c. */
#ifndef CALDERA_SIMULATE_TRACE_INTERNAL_H
#define CALDERA_SIMULATE_TRACE_INTERNAL_H

#include <stdbool.h>

#include "adapters/intake/intake.h"
#include "common/api_status.h"
#include "tools/simulate/trace.h"

#define ANNOTATION_ARRIVAL "caldera.io/arrival"
#define ANNOTATION_DURATION "caldera.io/duration"
#define ANNOTATION_EXIT_CODE "caldera.io/exit-code"
#define ANNOTATION_NAMESPACE "caldera.io/namespace"

/* The simulator's annotations on a Job (all four), or on a Queue, PriorityClass or ResourceQuota
 * (arrival only). */
struct trace_annotations {
    int64_t arrival_ms; /* default 0 */
    bool has_duration;
    int64_t duration_ms;
    int32_t exit_code; /* default 0 */
    const char *ns;    /* caldera.io/namespace, or NULL; points into the document */
};

/* Reads them from metadata.annotations, adding a cause to st for each bad one (a Job without
 * caldera.io/duration too), and rewrites the numbers among them as strings in place, since
 * annotations are strings to the adapters. Returns true when it added no cause. */
bool trace_read_annotations(const struct intake_doc *doc, bool job, struct trace_annotations *out,
                            struct api_status *st);

/* Per-kind loaders: 0, or -1 with st filled. */
int trace_load_settings(const struct intake_doc *doc, struct trace_settings *out, struct api_status *st);
int trace_load_queue(const struct intake_doc *doc, struct trace_queue *out, struct api_status *st);
int trace_load_object(const struct intake_doc *doc, enum trace_doc_kind kind, struct trace_object *out,
                      struct api_status *st);
int trace_load_job(const struct intake_doc *doc, struct trace_job *out, struct api_status *st);
/* Every Node and List document of the trace (keep[d] set) through the nodes-file parser, with the
 * trace's own line numbers. */
int trace_load_nodes(const char *data, size_t len, const struct intake *in, const bool *keep, struct node **nodes,
                     int *count, struct api_status *st);

/* A copy of data in which every document d with !keep[d] is replaced by "---" and as many newlines
 * as it had, so the kept documents parse alone with their own line numbers. Heap string (NULL when
 * memory runs out); *out_len gets its length. Pure. */
char *trace_keep_documents(const char *data, size_t len, const struct intake *in, const bool *keep, size_t *out_len);
/* The 1-based number of the document holding `line` (1-based), 0 when before the first. */
int trace_doc_at_line(const char *data, const struct intake *in, int line);

/* Writes `<file>: document <n> (<kind> <name>): <causes or message>` into err. */
void trace_format_error(char *err, size_t errlen, const char *file, int doc, const char *kind, const char *name,
                        const struct api_status *st);

#endif
