/* The intake fuzzers' checks: what intake.h promises about parsed documents (containers at the root,
 * a position for every YAML value, slices that parse alone to the same JSON) and what dialect.h
 * promises about adapting them (a job or a Status with a reason, accepted jobs that render and that
 * come back unchanged when posted again). */
#include "tests/fuzz/support/adapt_checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/dialects/dialect.h"
#include "adapters/dialects/volcano/job.h"
#include "tests/fuzz/support/fuzz.h"

#define MAX_DEPTH 64 /* intake.h: deeper nesting is refused */

/* Where a document's values may lie: lines [first_line, last_line], columns [1, max_column]. */
struct bounds {
    int first_line, last_line, max_column;
};

/* An upper bound of the line breaks libyaml sees in data[0, end): \n, \r, NEL, LS and PS. */
static int line_breaks(const uint8_t *data, size_t end)
{
    int n = 0;
    for (size_t i = 0; i < end; i++) {
        n += data[i] == '\n' || data[i] == '\r';
        n += i + 1 < end && data[i] == 0xC2 && data[i + 1] == 0x85;
        n += i + 2 < end && data[i] == 0xE2 && data[i + 1] == 0x80 && (data[i + 2] == 0xA8 || data[i + 2] == 0xA9);
    }
    return n;
}

static void check_pos(const struct bounds *b, bool found, const struct intake_pos *p, const char *what,
                      const char *name)
{
    FUZZ_CHECK(found, "no position for %s %s", what, name);
    FUZZ_CHECK(p->line >= b->first_line && p->line <= b->last_line && p->column >= 1 && p->column <= b->max_column,
               "%s %s at line %d, column %d: outside the document (lines %d-%d, columns 1-%d)", what, name, p->line,
               p->column, b->first_line, b->last_line, b->max_column);
}

/* Every value of a YAML document has a position inside the document, and nesting stays within the limit. */
static void walk_positions(const struct intake_doc *doc, const json_t *node, const struct bounds *b, int depth)
{
    if (!json_is_object(node) && !json_is_array(node))
        return;
    FUZZ_CHECK(depth <= MAX_DEPTH, "a document nested %d deep was accepted", depth);
    struct intake_pos p = {0};
    bool found = intake_node_pos(doc, node, &p);
    check_pos(b, found, &p, "container", "");
    if (json_is_object(node)) {
        const char *key;
        const json_t *value;
        json_object_foreach((json_t *)node, key, value)
        {
            found = intake_member_pos(doc, node, key, &p);
            check_pos(b, found, &p, "member", key);
            found = intake_key_pos(doc, node, key, &p);
            check_pos(b, found, &p, "key", key);
            walk_positions(doc, value, b, depth + 1);
        }
        return;
    }
    for (size_t i = 0; i < json_array_size(node); i++) {
        char index[32];
        snprintf(index, sizeof index, "[%zu]", i);
        found = intake_index_pos(doc, node, i, &p);
        check_pos(b, found, &p, "element", index);
        walk_positions(doc, json_array_get(node, i), b, depth + 1);
    }
}

/* intake.h: "Each slice parses on its own to the same JSON." */
static void check_slice(const uint8_t *data, const struct intake_doc *doc, int index)
{
    struct intake alone = {0};
    struct api_status st = {0};
    const char *slice = (const char *)data + doc->start_offset;
    size_t len = doc->end_offset - doc->start_offset;
    int rc = intake_parse(slice, len, INTAKE_YAML, &alone, &st);
    FUZZ_CHECK(rc == 0, "document %d, bytes [%zu, %zu), does not parse alone: %s", index, doc->start_offset,
               doc->end_offset, st.message);
    FUZZ_CHECK(alone.ndocs == 1, "document %d, bytes [%zu, %zu), parses alone into %d documents", index,
               doc->start_offset, doc->end_offset, alone.ndocs);
    FUZZ_CHECK(json_equal(alone.docs[0].root, doc->root), "document %d, bytes [%zu, %zu), parses alone to other JSON",
               index, doc->start_offset, doc->end_offset);
    intake_free(&alone);
}

static void check_documents(const uint8_t *data, size_t size, enum intake_format fmt, const struct intake *in)
{
    FUZZ_CHECK(in->ndocs >= 1, "a parsed body has %d documents", in->ndocs);
    FUZZ_CHECK(fmt == INTAKE_YAML || in->ndocs == 1, "a JSON body gave %d documents", in->ndocs);
    /* A slice of a UTF-16 body lacks the byte order mark that told libyaml its encoding, so it reads as
     * (invalid) UTF-8: the slices promise holds for UTF-8 bodies only (reported; jobctl submit cuts
     * UTF-16 files into such slices). */
    bool utf16 = size >= 2 && ((data[0] == 0xFF && data[1] == 0xFE) || (data[0] == 0xFE && data[1] == 0xFF));
    size_t prev_end = 0;
    for (int i = 0; i < in->ndocs; i++) {
        const struct intake_doc *doc = &in->docs[i];
        FUZZ_CHECK(json_is_object(doc->root) || json_is_array(doc->root), "document %d is not a mapping or a sequence",
                   i);
        FUZZ_CHECK(doc->start_offset <= doc->end_offset && doc->end_offset <= size && doc->start_offset >= prev_end,
                   "document %d has bytes [%zu, %zu) in a body of %zu, after a document ending at %zu", i,
                   doc->start_offset, doc->end_offset, size, prev_end);
        prev_end = doc->end_offset;
        if (fmt == INTAKE_JSON) {
            FUZZ_CHECK(doc->start_offset == 0 && doc->end_offset == size, "a JSON document is not the whole body");
            continue;
        }
        /* libyaml ends a stream that lacks a final line break with one: an implicit null at the very end
         * ("? key" with no value) is placed on that line. */
        struct bounds b = {doc->first_line, 2 + line_breaks(data, doc->end_offset), (int)size + 1};
        FUZZ_CHECK(doc->first_line >= 1 && doc->first_line <= b.last_line, "document %d starts on line %d", i,
                   doc->first_line);
        walk_positions(doc, doc->root, &b, 1);
        if (!utf16)
            check_slice(data, doc, i);
    }
}

/* The namespace the document names, else "default" (as jobctl submit posts it). */
static const char *doc_namespace(const json_t *root)
{
    const char *ns = json_string_value(json_object_get(json_object_get(root, "metadata"), "namespace"));
    return ns && *ns ? ns : "default";
}

/* An accepted manifest posted again as a Volcano Job is accepted and becomes the same manifest: the
 * defaults Volcano's admission writes are written once. */
static void check_resubmit(const struct job *job)
{
    struct intake_doc again = {.root = json_deep_copy(job_manifest(job)), .first_line = 1};
    struct api_status st = {0};
    struct job *job2 = NULL;
    int rc = dialect_job_from_doc(NULL, &again, job->ns, &job2, &st);
    if (rc != 0) {
        char *text = json_dumps(job_manifest(job), JSON_COMPACT | JSON_SORT_KEYS);
        fuzz_fail("the accepted manifest %s is refused when posted again: %s", text, st.message);
    }
    if (!json_equal(job_manifest(job2), job_manifest(job))) {
        char *a = json_dumps(job_manifest(job), JSON_COMPACT | JSON_SORT_KEYS);
        char *b = json_dumps(job_manifest(job2), JSON_COMPACT | JSON_SORT_KEYS);
        fuzz_fail("the accepted manifest %s becomes %s when posted again", a, b);
    }
    job_free(job2);
    json_decref(again.root);
}

static void check_accepted(const struct dialect *d, struct job *job, const struct api_status *st)
{
    FUZZ_CHECK(job != NULL && st->code == 0, "accepted, but no job or a Status %d: %s", st->code, st->message);
    FUZZ_CHECK(json_is_object(job_manifest(job)), "an accepted job has no manifest");
    FUZZ_CHECK(job->name && *job->name && job->ns && *job->ns, "an accepted job has no name or namespace");
    FUZZ_CHECK((d != NULL) == (job->source != NULL), "a %s became a job %s a source", d ? d->kind : "Volcano Job",
               d ? "without" : "with");
    json_t *rendered = volcano_job_render(job);
    FUZZ_CHECK(json_is_object(rendered), "an accepted job does not render");
    if (d) {
        json_t *own = dialect_render(d, job->source, rendered);
        FUZZ_CHECK(json_is_object(own), "an accepted %s does not render in its own shape", d->kind);
        json_decref(own);
    }
    json_decref(rendered);
    check_resubmit(job);
}

static void check_refused(const struct job *job, const struct api_status *st)
{
    FUZZ_CHECK(job == NULL, "refused, but a job was given");
    FUZZ_CHECK(st->code >= 400 && st->code <= 599 && st->reason[0] && st->message[0],
               "refused with Status %d, reason \"%s\", message \"%s\"", st->code, st->reason, st->message);
    FUZZ_CHECK(st->code < 500 || strstr(st->message, "out of memory"), "refused as a server error: %d %s", st->code,
               st->message);
    FUZZ_CHECK(st->code != 422 || st->ncauses > 0, "422 without causes: %s", st->message);
    int shown = st->ncauses < API_MAX_CAUSES ? st->ncauses : API_MAX_CAUSES;
    for (int i = 0; i < shown; i++)
        FUZZ_CHECK(st->causes[i].message[0] && st->causes[i].reason[0], "cause %d of \"%s\" has no reason or message",
                   i, st->message);
}

/* Each document as the gateway posts it: to the path of the dialect its apiVersion and kind name
 * (NULL: the Volcano Job's). */
static void adapt_document(const struct intake_doc *doc)
{
    const json_t *root = doc->root;
    const struct dialect *d = dialect_by_kind(json_string_value(json_object_get(root, "apiVersion")),
                                              json_string_value(json_object_get(root, "kind")));
    char ns[256]; /* the translation may change the document */
    snprintf(ns, sizeof ns, "%s", doc_namespace(root));
    struct api_status st = {0};
    struct job *job = NULL;
    if (dialect_job_from_doc(d, doc, ns, &job, &st) == 0)
        check_accepted(d, job, &st);
    else
        check_refused(job, &st);
    job_free(job);
}

void fuzz_adapt_body(const uint8_t *data, size_t size, enum intake_format fmt)
{
    struct intake in = {0};
    struct api_status st = {0};
    if (intake_parse((const char *)data, size, fmt, &in, &st) != 0) {
        FUZZ_CHECK(in.ndocs == 0 && in.docs == NULL, "a failed parse left documents");
        FUZZ_CHECK(st.code == 400 || (st.code == 500 && strstr(st.message, "out of memory")),
                   "a body refused with Status %d: %s", st.code, st.message);
        FUZZ_CHECK(st.message[0] != 0, "a body refused without a message");
        return;
    }
    check_documents(data, size, fmt, &in);
    for (int i = 0; i < in.ndocs; i++)
        adapt_document(&in.docs[i]);
    intake_free(&in);
}
