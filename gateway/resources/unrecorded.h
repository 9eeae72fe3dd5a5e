/* Answers to changes the core made that the store did not record in time, so that no answer says a
 * change did not happen when it did (gateway/resources/answer.c calls it). */
#ifndef CALDERA_UNRECORDED_H
#define CALDERA_UNRECORDED_H

#include "gateway/http/http.h"
#include "scheduler/core/core.h"

/* unrecorded.c: answers to changes the core made that the store did not record in time (kind: the
 * store's failure, why: its sentence; a read that waited in vain for a slow commit gets 503). A job's creation is withdrawn when it can be (507 or 503: it
 * was not created), or answered 201 when its commit landed meanwhile; any other change, and a
 * creation that cannot be withdrawn (its tasks started), gets 504 Timeout: it was made and is
 * recorded once the database takes writes, unless the server stops first. Never a status that
 * says a change did not happen when it did. */
void gateway_answer_unrecorded(struct http_req *req, struct core_request *creq, enum store_failure kind,
                               const char *why);

#endif
