/* Sends a conformance row's probes to a server and judges the answers against the row's claim: the
 * router's 404 and 405 mean not served, a handler's answer (its own 404 included) means served. */
#include "tests/lib/conformance_probe.h"

#include <stdio.h>
#include <string.h>

#include "common/sbuf.h"
#include "tests/lib/http_fetch.h"

struct conf_answer conf_probe_send(const char *base_url, const struct conf_probe *p)
{
    struct conf_answer a = {0};
    char url[768], accept[200], type[140];
    snprintf(url, sizeof url, "%s%s", base_url, p->path);
    const char *headers[3] = {NULL};
    int n = 0;
    if (p->accept[0]) {
        snprintf(accept, sizeof accept, "Accept: %s", p->accept);
        headers[n++] = accept;
    }
    if (p->type[0]) {
        snprintf(type, sizeof type, "Content-Type: %s", p->type);
        headers[n++] = type;
    }
    struct http_answer h = http_fetch(p->method, url, headers, p->body[0] ? p->body : NULL);
    a.code = h.code;
    const char *body = sbuf_str(&h.body);
    a.unserved = a.code == 405 || a.code == 501 || (a.code == 404 && strstr(body, CONF_ROUTER_404));
    snprintf(a.excerpt, sizeof a.excerpt, "%s", body);
    for (char *c = a.excerpt; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
    http_answer_free(&h);
    return a;
}

bool conf_probe_holds(enum conf_served served, const struct conf_probe *p, const struct conf_answer *a)
{
    if (a->code == 0)
        return false;
    if (served == CONF_NO || p->refused)
        return p->expect ? a->code == p->expect : a->unserved;
    if (a->unserved)
        return false;
    return p->expect ? a->code == p->expect : a->code / 100 == 2;
}

/* What a probe should have got, for the message. */
static void wanted(enum conf_served served, const struct conf_probe *p, char *buf, size_t len)
{
    bool refuse = served == CONF_NO || p->refused;
    if (p->expect)
        snprintf(buf, len, "%d%s", p->expect, refuse ? "" : " from a handler");
    else
        snprintf(buf, len, "%s", refuse ? "the router's 404 or a 405 (not served)" : "2xx");
}

int conf_row_check(const char *base_url, const struct conf_row *row, bool *skipped, char *why, size_t why_len)
{
    *skipped = false;
    struct conf_answer answers[CONF_MAX_PROBES];
    bool all_unserved = row->nprobes > 0;
    for (int i = 0; i < row->nprobes; i++) {
        answers[i] = conf_probe_send(base_url, &row->probes[i]);
        all_unserved = all_unserved && answers[i].unserved;
    }
    if (row->pending[0] && all_unserved) {
        *skipped = true;
        return 0;
    }
    for (int i = 0; i < row->nprobes; i++) {
        const struct conf_probe *p = &row->probes[i];
        if (conf_probe_holds(row->served, p, &answers[i]))
            continue;
        char want[64];
        wanted(row->served, p, want, sizeof want);
        snprintf(why, why_len, "README.md:%d \"%s\" (served: %s): %s%s %s answered %ld%s, not %s: %s", row->line,
                 row->feature, conf_served_name(row->served), p->refused ? "refused: " : "", p->method, p->path,
                 answers[i].code, answers[i].unserved ? " (not served)" : "", want, answers[i].excerpt);
        return -1;
    }
    return 0;
}
