/* Checks a conformance table row against a running server: sends each of its probes and says whether
 * the answers bear out the row's claim (served, partly served, not served, pending a branch). */
#ifndef CALDERA_TEST_CONFORMANCE_PROBE_H
#define CALDERA_TEST_CONFORMANCE_PROBE_H

#include <stdbool.h>
#include <stddef.h>

#include "tests/lib/conformance_table.h"

/* The message of the router's 404, as kube-apiserver words it for a path it does not serve. */
#define CONF_ROUTER_404 "the server could not find the requested resource"

struct conf_answer {
    long code;     /* 0: no answer */
    bool unserved; /* the router's 404 (CONF_ROUTER_404), a 405 or a 501: the server lacks it */
    char excerpt[160];
};

/* Sends p to base_url ("http://127.0.0.1:PORT"), with its Accept, Content-Type and body. */
struct conf_answer conf_probe_send(const char *base_url, const struct conf_probe *p);

/* Whether answer a bears out probe p of a row served as `served`: on a served (yes, partly) row, a
 * probe must not be unserved and must answer 2xx, or its `=> CODE`; on a row not served, and for a
 * refused: probe, it must be unserved, or answer its `=> CODE` (a documented refusal). */
bool conf_probe_holds(enum conf_served served, const struct conf_probe *p, const struct conf_answer *a);

/* Sends every probe of row. Returns 0 when each answer bears the row out; -1 with why naming the
 * first that does not (the row's line, the request and the answer). A row pending a branch whose
 * probes are all unserved is *skipped (and 0); once one of them answers, it is checked as served. */
int conf_row_check(const char *base_url, const struct conf_row *row, bool *skipped, char *why, size_t why_len);

#endif
