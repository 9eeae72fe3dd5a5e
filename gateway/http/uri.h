/* A request's URI as the client sent it, checked before libmicrohttpd decodes it: percent-encodings
 * that decode to nothing (%zz, a cut-off %f), to a NUL or to bytes that are not UTF-8, and queries
 * with more parameters than the server reads. */
#ifndef CALDERA_HTTP_URI_H
#define CALDERA_HTTP_URI_H

#include <stddef.h>

/* A query with more parameters is refused (414) before they are parsed: libmicrohttpd keeps each in
 * the connection's fixed memory, and runs out of it without an answer near a thousand. */
#define HTTP_MAX_QUERY_PARAMS 100

/* Checks raw (the request target: path, then ?query). Returns 0 when it may be decoded, else the HTTP
 * code to answer (400 for an encoding, 414 for too many parameters) with a sentence in why naming the
 * part of the URL at fault. *nparams gets the query's parameter count. */
int http_uri_check(const char *raw, size_t *nparams, char *why, size_t whylen);

#endif
