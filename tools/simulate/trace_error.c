/* The one line a bad trace gets on stderr: the file, the document (number, kind and name) and each
 * field cause with its line, or the adapter's message when it names no field. */
#include <stdio.h>

#include "common/sbuf.h"
#include "tools/simulate/trace_internal.h"

void trace_format_error(char *err, size_t errlen, const char *file, int doc, const char *kind, const char *name,
                        const struct api_status *st)
{
    struct sbuf b = {0};
    sbuf_printf(&b, "%s: ", file);
    if (doc > 0)
        sbuf_printf(&b, "document %d (%s%s%s): ", doc, kind, name && *name ? " " : "", name ? name : "");
    int shown = st->ncauses < API_MAX_CAUSES ? st->ncauses : API_MAX_CAUSES;
    for (int i = 0; i < shown; i++) {
        const struct api_cause *c = &st->causes[i];
        sbuf_printf(&b, "%s%s: %s", i ? "; " : "", c->field, c->message);
        if (c->line > 0)
            sbuf_printf(&b, " (line %d, column %d)", c->line, c->column);
    }
    if (st->ncauses > shown)
        sbuf_printf(&b, "; and %d more", st->ncauses - shown);
    if (shown == 0)
        sbuf_puts(&b, st->message);
    snprintf(err, errlen, "%s", b.failed ? "out of memory" : sbuf_str(&b));
    sbuf_free(&b);
}
