/* Unit tests for the patches PATCH applies: JSON merge patch (RFC 7386's own examples), JSON patch
 * (RFC 6902: pointers with escapes, "-", test/move/copy, errors naming the operation) and the
 * strategic merge patch (lists by merge key, $patch directives, $retainKeys, primitive deletions). */
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/strategic_merge.h"
#include "common/json_patch.h"
#include "tests/lib/test.h"

static json_t *parse(const char *text)
{
    json_error_t err;
    json_t *v = json_loads(text, JSON_DECODE_ANY, &err);
    if (!v)
        test_fail(__FILE__, __LINE__, "bad JSON in the test: %s: %s", text, err.text);
    return v;
}

/* Whether got (taken) equals the JSON text want; says both when not. */
static bool same(json_t *got, const char *want)
{
    json_t *w = parse(want);
    bool eq = got && w && json_equal(got, w);
    if (!eq) {
        char *text = got ? json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        test_fail(__FILE__, __LINE__, "got %s, expected %s", text ? text : "NULL", want);
        free(text);
    }
    json_decref(got);
    json_decref(w);
    return eq;
}

static json_t *merge(const char *target, const char *patch)
{
    json_t *t = parse(target), *p = parse(patch);
    json_t *out = json_merge_patch(t, p);
    json_decref(t);
    json_decref(p);
    return out;
}

/* RFC 7386, appendix A. */
static void merge_patch_follows_the_rfc(void)
{
    CHECK(same(merge("{\"a\":\"b\"}", "{\"a\":\"c\"}"), "{\"a\":\"c\"}"));
    CHECK(same(merge("{\"a\":\"b\"}", "{\"b\":\"c\"}"), "{\"a\":\"b\",\"b\":\"c\"}"));
    CHECK(same(merge("{\"a\":\"b\"}", "{\"a\":null}"), "{}"));
    CHECK(same(merge("{\"a\":\"b\",\"b\":\"c\"}", "{\"a\":null}"), "{\"b\":\"c\"}"));
    CHECK(same(merge("{\"a\":[\"b\"]}", "{\"a\":\"c\"}"), "{\"a\":\"c\"}"));
    CHECK(same(merge("{\"a\":\"c\"}", "{\"a\":[\"b\"]}"), "{\"a\":[\"b\"]}"));
    CHECK(same(merge("{\"a\":{\"b\":\"c\"}}", "{\"a\":{\"b\":\"d\",\"c\":null}}"), "{\"a\":{\"b\":\"d\"}}"));
    CHECK(same(merge("{\"a\":[{\"b\":\"c\"}]}", "{\"a\":[1]}"), "{\"a\":[1]}"));
    CHECK(same(merge("[\"a\",\"b\"]", "[\"c\",\"d\"]"), "[\"c\",\"d\"]"));
    CHECK(same(merge("{\"a\":\"b\"}", "[\"c\"]"), "[\"c\"]"));
    CHECK(same(merge("{\"a\":\"foo\"}", "null"), "null"));
    CHECK(same(merge("{\"e\":null}", "{\"a\":1}"), "{\"e\":null,\"a\":1}"));
    CHECK(same(merge("[1,2]", "{\"a\":\"b\",\"c\":null}"), "{\"a\":\"b\"}"));
    CHECK(same(merge("{}", "{\"a\":{\"bb\":{\"ccc\":null}}}"), "{\"a\":{\"bb\":{}}}"));
}

static json_t *jpatch(const char *doc, const char *ops, struct api_status *st)
{
    json_t *d = parse(doc), *o = parse(ops);
    *st = (struct api_status){0};
    json_t *out = json_patch_apply(d, o, st);
    json_decref(d);
    json_decref(o);
    return out;
}

static void json_patch_operations(void)
{
    struct api_status st;
    CHECK(same(jpatch("{\"foo\":\"bar\"}", "[{\"op\":\"add\",\"path\":\"/baz\",\"value\":\"qux\"}]", &st),
               "{\"foo\":\"bar\",\"baz\":\"qux\"}"));
    CHECK(same(jpatch("{\"foo\":[\"bar\",\"baz\"]}", "[{\"op\":\"add\",\"path\":\"/foo/1\",\"value\":\"qux\"}]", &st),
               "{\"foo\":[\"bar\",\"qux\",\"baz\"]}"));
    CHECK(same(jpatch("{\"foo\":[1]}", "[{\"op\":\"add\",\"path\":\"/foo/-\",\"value\":2}]", &st), "{\"foo\":[1,2]}"));
    CHECK(same(jpatch("{\"baz\":\"qux\",\"foo\":\"bar\"}", "[{\"op\":\"remove\",\"path\":\"/baz\"}]", &st),
               "{\"foo\":\"bar\"}"));
    CHECK(same(jpatch("{\"foo\":[\"bar\",\"qux\",\"baz\"]}", "[{\"op\":\"remove\",\"path\":\"/foo/1\"}]", &st),
               "{\"foo\":[\"bar\",\"baz\"]}"));
    CHECK(same(jpatch("{\"baz\":\"qux\"}", "[{\"op\":\"replace\",\"path\":\"/baz\",\"value\":\"boo\"}]", &st),
               "{\"baz\":\"boo\"}"));
    CHECK(same(jpatch("{\"foo\":{\"bar\":\"baz\",\"waldo\":\"fred\"},\"qux\":{\"corge\":\"grault\"}}",
                      "[{\"op\":\"move\",\"from\":\"/foo/waldo\",\"path\":\"/qux/thud\"}]", &st),
               "{\"foo\":{\"bar\":\"baz\"},\"qux\":{\"corge\":\"grault\",\"thud\":\"fred\"}}"));
    CHECK(same(jpatch("{\"foo\":[\"all\",\"grass\",\"cows\",\"eat\"]}",
                      "[{\"op\":\"move\",\"from\":\"/foo/1\",\"path\":\"/foo/3\"}]", &st),
               "{\"foo\":[\"all\",\"cows\",\"eat\",\"grass\"]}"));
    CHECK(same(jpatch("{\"a\":{\"b\":1}}", "[{\"op\":\"copy\",\"from\":\"/a\",\"path\":\"/c\"}]", &st),
               "{\"a\":{\"b\":1},\"c\":{\"b\":1}}"));
    /* escapes: ~1 is '/', ~0 is '~' (a label key with a slash) */
    CHECK(same(jpatch("{\"labels\":{\"a/b\":\"x\",\"m~n\":\"y\"}}",
                      "[{\"op\":\"replace\",\"path\":\"/labels/a~1b\",\"value\":\"z\"},"
                      "{\"op\":\"test\",\"path\":\"/labels/m~0n\",\"value\":\"y\"}]",
                      &st),
               "{\"labels\":{\"a/b\":\"z\",\"m~n\":\"y\"}}"));
    /* the whole document */
    CHECK(same(jpatch("{\"a\":1}", "[{\"op\":\"replace\",\"path\":\"\",\"value\":{\"b\":2}}]", &st), "{\"b\":2}"));
    CHECK(same(jpatch("{\"a\":[1,{\"b\":2}]}", "[{\"op\":\"test\",\"path\":\"/a\",\"value\":[1,{\"b\":2}]}]", &st),
               "{\"a\":[1,{\"b\":2}]}"));
}

static void json_patch_errors_name_the_operation(void)
{
    struct api_status st;
    CHECK(jpatch("{\"a\":1}",
                 "[{\"op\":\"add\",\"path\":\"/b\",\"value\":2},{\"op\":\"test\",\"path\":\"/a\",\"value\":"
                 "2}]",
                 &st) == NULL);
    CHECK_INT(st.code, 422);
    CHECK_CONTAINS(st.message, "operation 1 (test /a)");
    CHECK(jpatch("{\"a\":1}", "[{\"op\":\"remove\",\"path\":\"/nothing\"}]", &st) == NULL);
    CHECK_INT(st.code, 422);
    CHECK_CONTAINS(st.message, "operation 0 (remove /nothing) fails: the path does not exist");
    CHECK(jpatch("{\"a\":[1]}", "[{\"op\":\"add\",\"path\":\"/a/5\",\"value\":2}]", &st) == NULL);
    CHECK_CONTAINS(st.message, "out of range");
    CHECK(jpatch("{\"a\":[1]}", "[{\"op\":\"add\",\"path\":\"/a/01\",\"value\":2}]", &st) == NULL); /* leading 0 */
    CHECK(jpatch("{\"a\":{}}", "[{\"op\":\"move\",\"from\":\"/a\",\"path\":\"/a/b\"}]", &st) == NULL);
    CHECK_CONTAINS(st.message, "its own members");
    CHECK(jpatch("{\"a\":1}", "[{\"op\":\"replace\",\"path\":\"/b\",\"value\":2}]", &st) == NULL);
    CHECK(jpatch("{\"a\":1}", "[{\"op\":\"frobnicate\",\"path\":\"/a\"}]", &st) == NULL);
    CHECK_INT(st.code, 400);
    CHECK(jpatch("{\"a\":1}", "[{\"op\":\"add\",\"path\":\"a\",\"value\":1}]", &st) == NULL);
    CHECK_INT(st.code, 400);
    CHECK(jpatch("{\"a\":1}", "[{\"op\":\"add\",\"path\":\"/b\"}]", &st) == NULL);
    CHECK_CONTAINS(st.message, "has no \"value\"");
    CHECK(jpatch("{\"a\":1}", "{\"op\":\"add\"}", &st) == NULL);
    CHECK_CONTAINS(st.message, "a list of operations");
    CHECK(jpatch("{\"a\":\"~\"}", "[{\"op\":\"test\",\"path\":\"/a~2\",\"value\":1}]", &st) == NULL); /* bad escape */
}

static json_t *smp(const char *target, const char *patch, struct api_status *st)
{
    json_t *t = parse(target), *p = parse(patch);
    *st = (struct api_status){0};
    json_t *out = strategic_merge_patch(t, p, st);
    json_decref(t);
    json_decref(p);
    return out;
}

static const char *const pod =
    "{\"containers\":[{\"name\":\"a\",\"image\":\"x\",\"env\":[{\"name\":\"E\",\"value\":\"1\"},{\"name\":\"F\","
    "\"value\":\"2\"}],\"ports\":[{\"containerPort\":80,\"name\":\"http\"}],\"args\":[\"p\",\"q\"]},"
    "{\"name\":\"b\",\"image\":\"y\"}],\"tolerations\":[{\"key\":\"k\"}]}";

static void strategic_merge_uses_the_merge_keys(void)
{
    struct api_status st;
    /* containers by name, env by name, ports by containerPort; args (no key) replaced */
    CHECK(same(smp(pod,
                   "{\"containers\":[{\"name\":\"a\",\"env\":[{\"name\":\"F\",\"value\":\"3\"},{\"name\":\"G\","
                   "\"value\":\"4\"}],\"ports\":[{\"containerPort\":80,\"protocol\":\"TCP\"}],\"args\":[\"r\"]}]}",
                   &st),
               "{\"containers\":[{\"name\":\"a\",\"image\":\"x\",\"env\":[{\"name\":\"E\",\"value\":\"1\"},{\"name\":"
               "\"F\",\"value\":\"3\"},{\"name\":\"G\",\"value\":\"4\"}],\"ports\":[{\"containerPort\":80,\"name\":"
               "\"http\",\"protocol\":\"TCP\"}],\"args\":[\"r\"]},{\"name\":\"b\",\"image\":\"y\"}],\"tolerations\":["
               "{\"key\":\"k\"}]}"));
    /* a list without a merge key is replaced */
    CHECK(same(smp(pod, "{\"tolerations\":[{\"key\":\"j\"}]}", &st),
               "{\"containers\":[{\"name\":\"a\",\"image\":\"x\",\"env\":[{\"name\":\"E\",\"value\":\"1\"},{\"name\":"
               "\"F\",\"value\":\"2\"}],\"ports\":[{\"containerPort\":80,\"name\":\"http\"}],\"args\":[\"p\",\"q\"]},"
               "{\"name\":\"b\",\"image\":\"y\"}],\"tolerations\":[{\"key\":\"j\"}]}"));
    /* a Volcano Job's tasks by name */
    CHECK(same(smp("{\"spec\":{\"tasks\":[{\"name\":\"ps\",\"replicas\":1},{\"name\":\"worker\",\"replicas\":2}]}}",
                   "{\"spec\":{\"tasks\":[{\"name\":\"worker\",\"replicas\":4}]}}", &st),
               "{\"spec\":{\"tasks\":[{\"name\":\"ps\",\"replicas\":1},{\"name\":\"worker\",\"replicas\":4}]}}"));
    /* finalizers merge as a set; null deletes a member */
    CHECK(same(smp("{\"metadata\":{\"finalizers\":[\"a\"],\"labels\":{\"x\":\"1\",\"y\":\"2\"}}}",
                   "{\"metadata\":{\"finalizers\":[\"a\",\"b\"],\"labels\":{\"x\":null}}}", &st),
               "{\"metadata\":{\"finalizers\":[\"a\",\"b\"],\"labels\":{\"y\":\"2\"}}}"));
}

static void strategic_merge_directives(void)
{
    struct api_status st;
    /* $patch: delete of a list element, by key */
    CHECK(same(smp("{\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"}]}",
                   "{\"containers\":[{\"name\":\"a\",\"$patch\":\"delete\"}]}", &st),
               "{\"containers\":[{\"name\":\"b\"}]}"));
    /* ... every element of that key, where the list holds it twice */
    CHECK(same(smp("{\"containers\":[{\"name\":\"a\",\"image\":\"x\"},{\"name\":\"b\"},{\"name\":\"a\"}]}",
                   "{\"containers\":[{\"name\":\"a\",\"$patch\":\"delete\"}]}", &st),
               "{\"containers\":[{\"name\":\"b\"}]}"));
    /* $patch: replace in a list: the patch's other elements are the list */
    CHECK(same(smp("{\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"}]}",
                   "{\"containers\":[{\"name\":\"c\"},{\"$patch\":\"replace\"}]}", &st),
               "{\"containers\":[{\"name\":\"c\"}]}"));
    /* $patch: replace in a map */
    CHECK(same(smp("{\"resources\":{\"limits\":{\"cpu\":\"1\"},\"requests\":{\"cpu\":\"1\"}}}",
                   "{\"resources\":{\"$patch\":\"replace\",\"limits\":{\"memory\":\"1Gi\"}}}", &st),
               "{\"resources\":{\"limits\":{\"memory\":\"1Gi\"}}}"));
    /* $patch: delete of a map */
    CHECK(same(smp("{\"a\":{\"b\":1},\"c\":2}", "{\"a\":{\"$patch\":\"delete\"}}", &st), "{\"c\":2}"));
    /* $retainKeys: only those keys stay */
    CHECK(same(smp("{\"strategy\":{\"type\":\"RollingUpdate\",\"rollingUpdate\":{\"maxSurge\":1}}}",
                   "{\"strategy\":{\"$retainKeys\":[\"type\"],\"type\":\"Recreate\"}}", &st),
               "{\"strategy\":{\"type\":\"Recreate\"}}"));
    /* $deleteFromPrimitiveList and $setElementOrder (a hint, dropped) */
    CHECK(same(smp("{\"metadata\":{\"finalizers\":[\"a\",\"b\",\"c\"]},\"containers\":[{\"name\":\"a\"}]}",
                   "{\"metadata\":{\"$deleteFromPrimitiveList/finalizers\":[\"b\"]},"
                   "\"$setElementOrder/containers\":[{\"name\":\"a\"}]}",
                   &st),
               "{\"metadata\":{\"finalizers\":[\"a\",\"c\"]},\"containers\":[{\"name\":\"a\"}]}"));
    /* directives never reach the result of an element added */
    CHECK(same(smp("{\"containers\":[]}", "{\"containers\":[{\"name\":\"n\",\"$patch\":\"merge\"}]}", &st),
               "{\"containers\":[{\"name\":\"n\"}]}"));
    CHECK(smp("{}", "{\"$frob\":1}", &st) == NULL);
    CHECK_INT(st.code, 400);
    CHECK(smp("{}", "{\"a\":{\"$patch\":\"explode\"}}", &st) == NULL);
    CHECK(smp("{}", "[1]", &st) == NULL);
    /* a keyed list's element must carry its key, as Kubernetes requires */
    CHECK(smp("{\"containers\":[]}", "{\"containers\":[{\"image\":\"x\"}]}", &st) == NULL);
    CHECK_CONTAINS(st.message, "containers[0] has no merge key \"name\"");
    CHECK(smp("{\"containers\":[]}", "{\"containers\":[1]}", &st) == NULL);
    /* also within an element the list did not have yet, since a second patch would merge into it */
    CHECK(smp("{}", "{\"tasks\":[{\"name\":\"a\",\"template\":{\"spec\":{\"containers\":[{\"image\":\"x\"}]}}}]}",
              &st) == NULL);
    CHECK_CONTAINS(st.message, "containers[0] has no merge key \"name\"");
}

TEST_MAIN(TEST_CASE(merge_patch_follows_the_rfc), TEST_CASE(json_patch_operations),
          TEST_CASE(json_patch_errors_name_the_operation), TEST_CASE(strategic_merge_uses_the_merge_keys),
          TEST_CASE(strategic_merge_directives))
