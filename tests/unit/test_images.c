/* The images file: environments read in order with venv, conda, PATH prefix, env and workingDir, every
 * mistake a cause with its field and line, and image names matched by glob, first match winning. */
#include <string.h>

#include "adapters/objects/images.h"
#include "tests/lib/causes.h"
#include "tests/lib/test.h"

static const char *const example =
    "unknownImages: refuse\n"
    "environments:\n"
    "  - name: torch\n"
    "    images: [\"pytorch/pytorch:*\", \"nvcr.io/nvidia/pytorch:*\"]\n"
    "    venv: /opt/venvs/torch\n"
    "    path: [/opt/cuda/bin]\n"
    "    env: {TORCH_HOME: /opt/torch-cache}\n"
    "    workingDir: /srv\n"
    "  - name: py311\n"
    "    images: [\"python:3.11*\"]\n"
    "    conda: /opt/conda\n"
    "  - name: anything\n"
    "    images: [\"*\"]\n";

static void example_reads(void)
{
    struct images_config c;
    struct api_status st = {0};
    REQUIRE(images_parse(example, strlen(example), &c, &st) == 0);
    CHECK(c.configured);
    CHECK(c.refuse_unknown);
    REQUIRE(c.n == 3);
    CHECK_STR(c.envs[0].name, "torch");
    CHECK_STR(c.envs[0].patterns[1], "nvcr.io/nvidia/pytorch:*");
    CHECK_STR(c.envs[0].venv, "/opt/venvs/torch");
    CHECK(c.envs[0].conda == NULL);
    CHECK_STR(c.envs[0].path_prefix[0], "/opt/cuda/bin");
    CHECK_STR(c.envs[0].env[0], "TORCH_HOME=/opt/torch-cache");
    CHECK_STR(c.envs[0].working_dir, "/srv");
    CHECK_STR(c.envs[1].conda, "/opt/conda");
    CHECK(c.envs[1].path_prefix == NULL && c.envs[1].env == NULL && c.envs[1].working_dir == NULL);
    images_free(&c);
}

static void first_match_wins(void)
{
    struct images_config c;
    struct api_status st = {0};
    REQUIRE(images_parse(example, strlen(example), &c, &st) == 0);
    CHECK_STR(images_environment_name(&c, "pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime"), "torch");
    CHECK_STR(images_environment_name(&c, "nvcr.io/nvidia/pytorch:24.01-py3"), "torch");
    CHECK_STR(images_environment_name(&c, "python:3.11-slim"), "py311");
    CHECK_STR(images_environment_name(&c, "python:3.12"), "anything");     /* the catch-all, last */
    CHECK_STR(images_environment_name(&c, "pytorch/pytorch"), "anything"); /* no tag: the pattern wants ':' */
    CHECK(!images_unknown(&c, "busybox"));
    CHECK(images_match(&c, NULL) == NULL); /* no image: the default environment */
    CHECK_STR(images_environment_name(&c, ""), IMAGES_DEFAULT_ENVIRONMENT);
    images_free(&c);
}

static void unknown_images(void)
{
    const char *yaml = "environments:\n  - name: torch\n    images: [\"pytorch/pytorch:*\"]\n";
    struct images_config c;
    struct api_status st = {0};
    REQUIRE(images_parse(yaml, strlen(yaml), &c, &st) == 0);
    CHECK(!c.refuse_unknown); /* warn is the default */
    CHECK(images_unknown(&c, "ubuntu:22.04"));
    CHECK_STR(images_environment_name(&c, "ubuntu:22.04"), IMAGES_DEFAULT_ENVIRONMENT);
    CHECK(!images_unknown(&c, "pytorch/pytorch:latest"));
    CHECK(!images_unknown(&c, NULL));
    images_free(&c);
    /* no --images at all: nothing is unknown */
    struct images_config none = {0};
    CHECK(!images_unknown(&none, "ubuntu:22.04"));
    CHECK(!images_unknown(NULL, "ubuntu:22.04"));
    /* an empty file is a configuration with no entries: every image is unknown */
    REQUIRE(images_parse("# nothing yet\n", 14, &c, &st) == 0);
    CHECK(c.configured && c.n == 0);
    CHECK(images_unknown(&c, "ubuntu:22.04"));
    images_free(&c);
}

static void mistakes_name_their_field_and_line(void)
{
    const char *yaml =
        "unknownImages: shout\n"       /* 1 */
        "colour: blue\n"               /* 2 */
        "environments:\n"              /* 3 */
        "  - name: Torch\n"            /* 4 */
        "    images: []\n"             /* 5 */
        "    venv: relative/venv\n"    /* 6 */
        "  - name: two\n"              /* 7 */
        "    venv: /a\n"               /* 8 */
        "    conda: /b\n"              /* 9 */
        "    path: [/ok, \"/x:/y\"]\n" /* 10 */
        "    env: {\"9X\": z}\n"       /* 11 */
        "    workingDir: here\n"       /* 12 */
        "    shell: zsh\n"             /* 13 */
        "  - name: two\n"              /* 14 */
        "    images: [\"a b\"]\n"      /* 15 */
        "  - just-a-string\n";         /* 16 */
    struct images_config c;
    struct api_status st = {0};
    CHECK(images_parse(yaml, strlen(yaml), &c, &st) != 0);
    CHECK_INT(st.code, 422);
    CHECK_CAUSE_AT(&st, "unknownImages", "FieldValueNotSupported", 1, 0, "\"warn\", \"refuse\"");
    CHECK_CAUSE_AT(&st, "colour", "FieldValueNotSupported", 2, 0, "unknown field");
    CHECK_CAUSE_AT(&st, "environments[0].name", "FieldValueInvalid", 4, 0, "DNS-1123");
    CHECK_CAUSE_AT(&st, "environments[0].images", "FieldValueInvalid", 5, 0, "at least one");
    CHECK_CAUSE_AT(&st, "environments[0].venv", "FieldValueInvalid", 6, 0, "absolute");
    CHECK_CAUSE_AT(&st, "environments[1].images", "FieldValueRequired", 7, 0, "Required");
    CHECK_CAUSE_AT(&st, "environments[1].conda", "FieldValueForbidden", 9, 0, "not both");
    CHECK_CAUSE_AT(&st, "environments[1].path[1]", "FieldValueInvalid", 10, 0, "without ':'");
    CHECK_CAUSE_AT(&st, "environments[1].env[9X]", "FieldValueInvalid", 11, 0, "letters, digits");
    CHECK_CAUSE_AT(&st, "environments[1].workingDir", "FieldValueInvalid", 12, 0, "absolute");
    CHECK_CAUSE_AT(&st, "environments[1].shell", "FieldValueNotSupported", 13, 0, "unknown field");
    CHECK_CAUSE_AT(&st, "environments[2].images[0]", "FieldValueInvalid", 15, 0, "no spaces");
    CHECK_CAUSE_AT(&st, "environments[3]", "FieldValueInvalid", 16, 0, "must be an object");
    CHECK(c.n == 0 && c.envs == NULL);
}

static void duplicate_names(void)
{
    const char *yaml =
        "environments:\n"
        "  - {name: a, images: [\"x*\"]}\n"
        "  - {name: a, images: [\"y*\"]}\n";
    struct images_config c;
    struct api_status st = {0};
    CHECK(images_parse(yaml, strlen(yaml), &c, &st) != 0);
    CHECK_CAUSE_AT(&st, "environments[1].name", "FieldValueDuplicate", 3, 0, "\"a\"");
}

static void file_shape_mistakes(void)
{
    struct images_config c;
    struct api_status st = {0};
    CHECK(images_parse("- a\n- b\n", 8, &c, &st) != 0);
    CHECK_INT(st.code, 400);
    st = (struct api_status){0};
    CHECK(images_parse("environments: {a: 1}\n", 21, &c, &st) != 0);
    CHECK(cause_on(&st, "environments") != NULL);
}

TEST_MAIN(TEST_CASE(example_reads), TEST_CASE(first_match_wins), TEST_CASE(unknown_images),
          TEST_CASE(mistakes_name_their_field_and_line), TEST_CASE(duplicate_names), TEST_CASE(file_shape_mistakes))
