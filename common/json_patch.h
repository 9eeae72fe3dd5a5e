/* Patches of JSON documents as Kubernetes takes them: a JSON merge patch (RFC 7386) and a JSON
 * patch (RFC 6902: add, remove, replace, move, copy, test). Pure functions over Jansson trees. */
#ifndef CALDERA_JSON_PATCH_H
#define CALDERA_JSON_PATCH_H

#include <jansson.h>

#include "common/api_status.h"

/* RFC 7386: a new tree, target (untouched) with patch merged in (null removes a member, an object
 * merges, anything else replaces). NULL only when out of memory. */
json_t *json_merge_patch(const json_t *target, const json_t *patch);

/* RFC 6902: a new tree, doc (untouched) with the operations of ops applied in order, or NULL with
 * why in st: 400 when ops is not a list of operations, 422 when an operation cannot apply (a path
 * that is not there, a test that fails), the message naming the operation's index, op and path. */
json_t *json_patch_apply(const json_t *doc, const json_t *ops, struct api_status *st);

/* The value a JSON pointer (RFC 6901: "", "/a/0/b~1c") names in doc, or NULL. */
json_t *json_pointer_get(const json_t *doc, const char *pointer);

#endif
