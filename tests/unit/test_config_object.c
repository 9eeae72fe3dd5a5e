/* ConfigMaps and Secrets: padded base64 both ways, config keys, validation with the field named (and
 * a Secret's value never repeated), stringData merged and dropped, immutability, the store round
 * trip and values read back as bytes. */
#include <stdlib.h>
#include <string.h>

#include "adapters/intake/intake.h"
#include "adapters/objects/config_object.h"
#include "common/base64.h"
#include "tests/lib/causes.h"
#include "tests/lib/test.h"

static struct config_object *parse(const char *yaml, enum config_kind kind, struct api_status *st)
{
    struct intake in;
    struct config_object *o = NULL;
    memset(st, 0, sizeof *st);
    if (intake_parse(yaml, strlen(yaml), INTAKE_YAML, &in, st) == 0 && in.ndocs == 1)
        config_object_from_doc(&in.docs[0], kind, "team", &o, st);
    intake_free(&in);
    return o;
}

static char *value_of(const struct config_object *o, const char *key, size_t *len)
{
    char *v = NULL;
    return config_object_value(o, key, &v, len) == 0 ? v : (free(v), NULL);
}

static void base64_both_ways(void)
{
    static const char *const plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    static const char *const coded[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (int i = 0; i < 7; i++) {
        char *e = base64_encode(plain[i], strlen(plain[i]));
        CHECK_STR(e, coded[i]);
        free(e);
        char *d;
        CHECK_INT(base64_decode(coded[i], strlen(coded[i]), &d), (long)strlen(plain[i]));
        CHECK_STR(d, plain[i]);
        free(d);
    }
    char *d;
    CHECK_INT(base64_decode("Zm9", 3, &d), -1);      /* not a multiple of 4 */
    CHECK_INT(base64_decode("Zm9v!A==", 8, &d), -1); /* not the alphabet */
    CHECK_INT(base64_decode("Zg=v", 4, &d), -1);     /* padding inside */
    CHECK(d == NULL);
    CHECK_INT(base64_decode("AP8=", 4, &d), 2); /* bytes, NUL included */
    CHECK_INT((unsigned char)d[1], 0xff);
    free(d);
}

static void config_keys(void)
{
    const char *why;
    CHECK(config_key_valid("a.b-c_D9", &why));
    CHECK(config_key_valid(".dockerconfigjson", &why));
    CHECK(!config_key_valid("a/b", &why));
    CHECK_CONTAINS(why, "a valid config key");
    CHECK(!config_key_valid(".", &why));
    CHECK(!config_key_valid("..x", &why));
    CHECK_STR(why, "must not start with '..'");
    char long_key[300];
    memset(long_key, 'k', 254), long_key[254] = '\0';
    CHECK(!config_key_valid(long_key, &why));
    CHECK_STR(why, "must be no more than 253 characters");
}

static void config_map_fields(void)
{
    struct api_status st;
    struct config_object *o = parse(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, labels: {a: b}}\n"
        "data: {k: v, k2: \"two\"}\nbinaryData: {bin: AP8=}\n",
        CONFIG_MAP, &st);
    REQUIRE(o);
    CHECK_STR(o->ns, "team");
    size_t len;
    char *v = value_of(o, "k2", &len);
    CHECK_STR(v, "two");
    free(v);
    v = value_of(o, "bin", &len);
    CHECK_INT((long)len, 2);
    free(v);
    CHECK(value_of(o, "nope", &len) == NULL);
    char *stored = config_object_to_store_json(o);
    struct config_object *back = config_object_from_store_json(stored, CONFIG_MAP);
    REQUIRE(back);
    CHECK(json_equal(back->manifest, o->manifest));
    free(stored);
    config_object_free(back);
    config_object_free(o);

    CHECK(parse("metadata: {name: cm}\n" /* 1 */
                "data: {\"a b\": x, k: 3}\n"
                "binaryData: {k: \"!!\", z: AA==}\n"
                "spec: {}\n",
                CONFIG_MAP, &st) == NULL);
    CHECK_INT(st.code, 422);
    CHECK_CAUSE(&st, "data[a b]", "FieldValueInvalid", 2, "a valid config key");
    CHECK_CAUSE(&st, "data[k]", "FieldValueInvalid", 2, "must be a string");
    CHECK_CAUSE(&st, "binaryData[k]", "FieldValueInvalid", 3, "not valid base64");
    CHECK_CAUSE(&st, "spec", "FieldValueNotSupported", 4, "unknown field");
}

static void config_map_size_and_duplicates(void)
{
    struct api_status st;
    CHECK(parse("metadata: {name: cm}\ndata: {k: x}\nbinaryData: {k: AA==}\n", CONFIG_MAP, &st) == NULL);
    CHECK_CAUSE(&st, "data[k]", "FieldValueInvalid", 2, "duplicate of key present in binaryData");
    size_t n = CONFIG_SIZE_MAX + 64;
    char *yaml = malloc(n + 64);
    strcpy(yaml, "metadata: {name: big}\ndata:\n  k: ");
    size_t at = strlen(yaml);
    memset(yaml + at, 'x', CONFIG_SIZE_MAX + 1);
    strcpy(yaml + at + CONFIG_SIZE_MAX + 1, "\n");
    CHECK(parse(yaml, CONFIG_MAP, &st) == NULL);
    CHECK_INT(st.code, 422);
    CHECK_CONTAINS(st.message, "Too long: must have at most 1048576 bytes");
    free(yaml);
}

static void secret_fields(void)
{
    struct api_status st;
    struct config_object *o = parse(
        "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n"
        "data: {user: YWRtaW4=, pass: b2xk}\nstringData: {pass: hunter2, extra: e}\n",
        CONFIG_SECRET, &st);
    REQUIRE(o);
    json_t *shown = config_object_render(o);
    CHECK_STR(json_string_value(json_object_get(shown, "type")), "Opaque");
    CHECK(json_object_get(shown, "stringData") == NULL); /* write-only */
    CHECK_STR(json_string_value(json_object_get(json_object_get(shown, "data"), "pass")), "aHVudGVyMg==");
    json_decref(shown);
    size_t len;
    char *v = value_of(o, "user", &len);
    CHECK_STR(v, "admin");
    free(v);
    v = value_of(o, "extra", &len);
    CHECK_STR(v, "e");
    free(v);
    config_object_free(o);

    CHECK(parse("metadata: {name: s}\ndata: {pw: \"hunter2-not-base64\"}\n", CONFIG_SECRET, &st) == NULL);
    CHECK_INT(st.code, 422);
    CHECK_CAUSE(&st, "data[pw]", "FieldValueInvalid", 2, "not valid base64");
    CHECK(strstr(st.message, "hunter2") == NULL); /* the value is never repeated */
    for (int i = 0; i < st.ncauses; i++)
        CHECK(strstr(st.causes[i].message, "hunter2") == NULL);

    CHECK(parse("metadata: {name: tls}\ntype: kubernetes.io/tls\ndata: {tls.crt: AA==}\n", CONFIG_SECRET, &st) == NULL);
    CHECK_CAUSE(&st, "data[tls.key]", "FieldValueRequired", 3, "Required value");
}

static void immutable_updates(void)
{
    struct api_status st;
    struct config_object *old = parse("metadata: {name: c}\ndata: {k: v}\nimmutable: true\n", CONFIG_MAP, &st);
    struct config_object *same = parse("metadata: {name: c}\ndata: {k: v}\nimmutable: true\n", CONFIG_MAP, &st);
    struct config_object *changed = parse("metadata: {name: c}\ndata: {k: w}\nimmutable: true\n", CONFIG_MAP, &st);
    struct config_object *mutable = parse("metadata: {name: c}\ndata: {k: v}\n", CONFIG_MAP, &st);
    REQUIRE(old && same && changed && mutable);
    memset(&st, 0, sizeof st);
    CHECK_INT(config_object_check_update(old, same, &st), 0);
    CHECK_INT(config_object_check_update(old, changed, &st), -1);
    CHECK_INT(st.code, 422);
    CHECK_CAUSE(&st, "data", "FieldValueForbidden", 0, "field is immutable when `immutable` is set");
    memset(&st, 0, sizeof st);
    CHECK_INT(config_object_check_update(old, mutable, &st), -1);
    CHECK_CAUSE(&st, "immutable", "FieldValueForbidden", 0, "field is immutable");
    memset(&st, 0, sizeof st);
    CHECK_INT(config_object_check_update(mutable, changed, &st), 0);
    struct config_object *a = parse("metadata: {name: s}\n", CONFIG_SECRET, &st);
    struct config_object *b = parse("metadata: {name: s}\ntype: other\n", CONFIG_SECRET, &st);
    REQUIRE(a && b);
    memset(&st, 0, sizeof st);
    CHECK_INT(config_object_check_update(a, b, &st), -1);
    CHECK_CAUSE(&st, "type", "FieldValueInvalid", 0, "field is immutable");
    config_object_free(a), config_object_free(b);
    config_object_free(old), config_object_free(same), config_object_free(changed), config_object_free(mutable);
}

TEST_MAIN(TEST_CASE(base64_both_ways), TEST_CASE(config_keys), TEST_CASE(config_map_fields),
          TEST_CASE(config_map_size_and_duplicates), TEST_CASE(secret_fields), TEST_CASE(immutable_updates))
