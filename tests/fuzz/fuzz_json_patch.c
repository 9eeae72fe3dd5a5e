/* libFuzzer target: the patches PATCH applies. The input is a target document and a patch, split at
 * the first NUL. What must hold: no patch changes its target tree; a JSON merge patch applied twice
 * gives what it gave once, a strategic merge patch too up to the order of list elements (both are
 * idempotent); a JSON patch either
 * applies or says which operation failed, and a patch of only tests that pass leaves the document
 * as it was. */
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/strategic_merge.h"
#include "common/json_patch.h"
#include "tests/fuzz/support/fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

static void check_merge(const json_t *target, const json_t *patch)
{
    json_t *once = json_merge_patch(target, patch);
    json_t *twice = once ? json_merge_patch(once, patch) : NULL;
    FUZZ_CHECK(once && twice && json_equal(once, twice), "a merge patch applied twice differs from once");
    json_decref(once);
    json_decref(twice);
}

/* v with every list's elements in the order of their text: a patch that removes and adds the same
 * key moves that element to the end each time, as Kubernetes' does. */
static int by_text(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static json_t *canonical(const json_t *v)
{
    if (json_is_object(v)) {
        json_t *out = json_object();
        const char *key;
        json_t *m;
        json_object_foreach((json_t *)v, key, m) json_object_set_new(out, key, canonical(m));
        return out;
    }
    if (!json_is_array(v))
        return json_deep_copy(v);
    size_t n = json_array_size(v);
    char **texts = calloc(n + 1, sizeof *texts);
    for (size_t i = 0; texts && i < n; i++) {
        json_t *c = canonical(json_array_get(v, i));
        texts[i] = json_dumps(c, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
        json_decref(c);
    }
    if (texts)
        qsort(texts, n, sizeof *texts, by_text);
    json_t *out = json_array();
    for (size_t i = 0; texts && i < n; i++) {
        json_array_append_new(out, json_loads(texts[i] ? texts[i] : "null", JSON_DECODE_ANY, NULL));
        free(texts[i]);
    }
    free(texts);
    return out;
}

static bool same_up_to_order(const json_t *a, const json_t *b)
{
    json_t *x = canonical(a), *y = canonical(b);
    bool same = json_equal(x, y);
    json_decref(x);
    json_decref(y);
    return same;
}

static void check_strategic(const json_t *target, const json_t *patch)
{
    struct api_status st = {0};
    json_t *once = strategic_merge_patch(target, patch, &st);
    FUZZ_CHECK(once || st.code == 400, "a strategic merge patch failed with %d", st.code);
    if (!once)
        return;
    st = (struct api_status){0};
    json_t *twice = strategic_merge_patch(once, patch, &st);
    FUZZ_CHECK(twice && same_up_to_order(once, twice), "a strategic merge patch applied twice differs from once");
    json_decref(once);
    json_decref(twice);
}

static bool only_tests(const json_t *ops)
{
    size_t i;
    json_t *op;
    json_array_foreach(ops, i, op)
    {
        const char *name = json_string_value(json_object_get(op, "op"));
        if (!name || strcmp(name, "test") != 0)
            return false;
    }
    return true;
}

static void check_json_patch(const json_t *target, const json_t *ops)
{
    struct api_status st = {0};
    json_t *out = json_patch_apply(target, ops, &st);
    FUZZ_CHECK(out || (st.code >= 400 && st.message[0]), "a JSON patch failed without saying why");
    if (out && json_is_array(ops) && only_tests(ops))
        FUZZ_CHECK(json_equal(out, target), "a JSON patch of tests changed the document");
    json_decref(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    if (!nul)
        return 0;
    size_t target_len = (size_t)(nul - data);
    json_t *target = json_loadb((const char *)data, target_len, JSON_DECODE_ANY, NULL);
    json_t *patch = json_loadb((const char *)nul + 1, size - target_len - 1, JSON_DECODE_ANY, NULL);
    if (target && patch) {
        json_t *before = json_deep_copy(target), *patch_before = json_deep_copy(patch);
        check_merge(target, patch);
        check_strategic(target, patch);
        check_json_patch(target, patch);
        FUZZ_CHECK(json_equal(before, target) && json_equal(patch_before, patch), "a patch changed its inputs");
        json_decref(before);
        json_decref(patch_before);
    }
    json_decref(target);
    json_decref(patch);
    return 0;
}
