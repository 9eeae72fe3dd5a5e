/* Companion types: the built-ins and a companions file read with every mistake located, placeholders
 * checked and expanded, and a type's program found on PATH or reported NotInstalled. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adapters/objects/companion_types.h"
#include "common/strv.h"
#include "model/companion.h"
#include "runtime/companion_program.h"
#include "tests/lib/causes.h"
#include "tests/lib/test.h"

/* A vector as one string, its elements joined by single spaces, into buf. */
static const char *joined(char *const *v, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; v && v[i] && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? " " : "", v[i]);
    return buf;
}

static const struct companion_values values = {
    .port = 41234,
    .base_url = "/proxy/team-a/nb",
    .token = "t0k",
    .token_file = "/run/caldera/c/token",
    .workdir = "/home/ann/work",
    .logdir = "/home/ann/work/logs",
    .job = "train",
    .ns = "team-a",
    .companion = "nb",
};

static void builtins_parse(void)
{
    struct companion_types set;
    struct api_status st = {0};
    char buf[1024];
    REQUIRE(companion_types_load(NULL, 0, &set, &st) == 0);
    CHECK_INT(set.n, 4);
    const struct companion_type *j = companion_types_find(&set, "jupyter");
    REQUIRE(j != NULL);
    CHECK(j->builtin);
    CHECK_STR(j->argv[0], "jupyter-notebook");
    CHECK_STR(joined(j->env, buf, sizeof buf), "JUPYTER_TOKEN={token}");
    CHECK_STR(joined(j->headers, buf, sizeof buf), "Authorization: token {token}");
    CHECK_STR(j->readiness_path, "{base_url}api/status");
    CHECK_INT(j->start_timeout_ms, 120000);
    CHECK_INT(j->idle_timeout_ms, 3600000);
    CHECK(!j->strip_prefix);
    CHECK_INT(j->activity.source, COMPANION_ACTIVITY_JUPYTER);
    CHECK_STR(j->activity.path, "{base_url}api/status");
    CHECK_STR(j->activity.field, "last_activity");
    CHECK_STR(j->activity.busy_path, "{base_url}api/kernels?no_track_activity=1");
    const struct companion_type *tb = companion_types_find(&set, "tensorboard");
    REQUIRE(tb != NULL);
    CHECK_INT(tb->activity.source, COMPANION_ACTIVITY_PROXY);
    CHECK(tb->activity.path == NULL && tb->env == NULL && tb->headers == NULL);
    const struct companion_type *cs = companion_types_find(&set, "code-server");
    REQUIRE(cs != NULL);
    CHECK(cs->strip_prefix);
    CHECK_STR(cs->readiness_path, "/healthz");
    const struct companion_type *term = companion_types_find(&set, "terminal");
    REQUIRE(term != NULL);
    CHECK_INT(term->activity.source, COMPANION_ACTIVITY_JSON);
    CHECK_STR(term->activity.path, "{base_url}api/status");
    CHECK_STR(term->activity.field, "last_activity");
    CHECK(term->activity.busy_path == NULL);
    CHECK_INT(term->start_timeout_ms, 30000);
    CHECK(companion_types_find(&set, "wetty") == NULL);
    companion_types_free(&set);
}

/* The exact command lines the built-ins give one companion. */
static void builtin_command_lines(void)
{
    struct companion_types set;
    struct api_status st = {0};
    REQUIRE(companion_types_load(NULL, 0, &set, &st) == 0);
    static const struct {
        const char *type, *argv, *env, *headers, *ready;
    } want[] = {
        {"jupyter",
         "jupyter-notebook --no-browser --allow-root --ip=127.0.0.1 --port=41234 --NotebookApp.port_retries=0 "
         "--NotebookApp.base_url=/proxy/team-a/nb/ --NotebookApp.notebook_dir=/home/ann/work "
         "--NotebookApp.allow_remote_access=True --NotebookApp.trust_xheaders=True",
         "JUPYTER_TOKEN=t0k", "Authorization: token t0k", "/proxy/team-a/nb/api/status"},
        {"tensorboard",
         "tensorboard --logdir /home/ann/work/logs --host 127.0.0.1 --port 41234 --path_prefix /proxy/team-a/nb", "",
         "", "/proxy/team-a/nb/"},
        {"code-server",
         "code-server --bind-addr 127.0.0.1:41234 --auth password --disable-telemetry --disable-update-check "
         "/home/ann/work",
         "HASHED_PASSWORD=t0k", "Cookie: code-server-session=t0k", "/healthz"},
        {"terminal",
         "caldera-terminal --listen 127.0.0.1:41234 --base-url /proxy/team-a/nb/ --token-file /run/caldera/c/token "
         "--cwd /home/ann/work",
         "", "Authorization: Bearer t0k", "/proxy/team-a/nb/api/status"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const struct companion_type *t = companion_types_find(&set, want[i].type);
        REQUIRE(t != NULL);
        char **argv, **env, **headers, *ready, why[256], buf[1024];
        REQUIRE(companion_command(t, &values, &argv, &env, why, sizeof why) == 0);
        CHECK_STR(joined(argv, buf, sizeof buf), want[i].argv);
        CHECK_STR(joined(env, buf, sizeof buf), want[i].env);
        REQUIRE(companion_headers(t, &values, &headers, why, sizeof why) == 0);
        CHECK_STR(joined(headers, buf, sizeof buf), want[i].headers);
        REQUIRE(companion_expand(t->readiness_path, &values, &ready, why, sizeof why) == 0);
        CHECK_STR(ready, want[i].ready);
        strv_free(argv);
        strv_free(env);
        strv_free(headers);
        free(ready);
    }
    companion_types_free(&set);
}

static void file_overrides_and_adds(void)
{
    const char *yaml =
        "# a site's companions\n"
        "companions:\n"
        "  jupyter:\n"
        "    idleTimeout: 4h\n"
        "    env: {JUPYTER_TOKEN: \"{token}\", JUPYTER_CONFIG_DIR: \"{workdir}/.jupyter\"}\n"
        "  code-server:\n"
        "    activity: {source: json, path: /status, field: seen}\n"
        "  lab:\n"
        "    command: [/opt/conda/bin/jupyter-lab, --no-browser, \"--port={port}\",\n"
        "              \"--ServerApp.base_url={base_url}\", \"--ServerApp.root_dir={workdir}\"]\n"
        "    env: {JUPYTER_TOKEN: \"{token}\"}\n"
        "    readinessPath: \"{base_url}api/status\"\n"
        "    idleTimeout: 0\n"
        "    activity: jupyter\n";
    struct companion_types set;
    struct api_status st = {0};
    char buf[1024];
    REQUIRE(companion_types_load(yaml, strlen(yaml), &set, &st) == 0);
    CHECK_INT(set.n, 5);
    const struct companion_type *j = companion_types_find(&set, "jupyter");
    REQUIRE(j != NULL);
    CHECK(j->builtin);
    CHECK_INT(j->idle_timeout_ms, 4 * 3600000LL);
    CHECK_INT(j->start_timeout_ms, 120000); /* the built-in's, untouched */
    CHECK_STR(j->argv[0], "jupyter-notebook");
    CHECK_INT(strv_len(j->env), 2); /* env replaced as a whole */
    CHECK_CONTAINS(joined(j->env, buf, sizeof buf), "JUPYTER_CONFIG_DIR={workdir}/.jupyter");
    CHECK_INT(j->activity.source, COMPANION_ACTIVITY_JUPYTER);
    const struct companion_type *cs = companion_types_find(&set, "code-server");
    REQUIRE(cs != NULL);
    CHECK_INT(cs->activity.source, COMPANION_ACTIVITY_JSON);
    CHECK_STR(cs->activity.path, "/status");
    CHECK_STR(cs->activity.field, "seen");
    CHECK(cs->strip_prefix);
    const struct companion_type *lab = companion_types_find(&set, "lab");
    REQUIRE(lab != NULL);
    CHECK(!lab->builtin);
    CHECK_STR(lab->argv[0], "/opt/conda/bin/jupyter-lab");
    CHECK_INT(strv_len(lab->argv), 5);
    CHECK_INT(lab->start_timeout_ms, 120000); /* the default */
    CHECK_INT(lab->idle_timeout_ms, 0);
    CHECK(lab->headers == NULL);
    CHECK_STR(lab->activity.busy_path, "{base_url}api/kernels?no_track_activity=1");
    companion_types_free(&set);

    /* An empty file, or one of comments, changes nothing. */
    REQUIRE(companion_types_load("", 0, &set, &st) == 0);
    CHECK_INT(set.n, 4);
    companion_types_free(&set);
    const char *comments = "# nothing yet\n\n  # indented\n";
    REQUIRE(companion_types_load(comments, strlen(comments), &set, &st) == 0);
    CHECK_INT(set.n, 4);
    companion_types_free(&set);
}

/* The example in companion_types.h, as written there. */
static void documented_example_reads(void)
{
    const char *yaml =
        "companions:\n"
        "  jupyter:\n"
        "    idleTimeout: 4h\n"
        "  lab:\n"
        "    command: [\"/opt/conda/bin/jupyter-lab\", --no-browser, \"--port={port}\",\n"
        "              \"--ServerApp.base_url={base_url}\", \"--ServerApp.root_dir={workdir}\"]\n"
        "    env: {JUPYTER_TOKEN: \"{token}\"}\n"
        "    headers: {Authorization: \"token {token}\"}\n"
        "    readinessPath: \"{base_url}api/status\"\n"
        "    activity: jupyter\n";
    struct companion_types set;
    struct api_status st = {0};
    REQUIRE(companion_types_load(yaml, strlen(yaml), &set, &st) == 0);
    const struct companion_type *lab = companion_types_find(&set, "lab");
    REQUIRE(lab != NULL);
    char **argv, **env, why[256], buf[512];
    REQUIRE(companion_command(lab, &values, &argv, &env, why, sizeof why) == 0);
    CHECK_STR(joined(argv, buf, sizeof buf),
              "/opt/conda/bin/jupyter-lab --no-browser --port=41234 "
              "--ServerApp.base_url=/proxy/team-a/nb/ --ServerApp.root_dir=/home/ann/work");
    CHECK_STR(joined(env, buf, sizeof buf), "JUPYTER_TOKEN=t0k");
    strv_free(argv);
    strv_free(env);
    companion_types_free(&set);
}

static void mistakes_name_their_field_and_line(void)
{
    const char *yaml =
        "companions:\n"                                 /* 1 */
        "  lab:\n"                                      /* 2 */
        "    command: [lab, \"--port={prot}\"]\n"       /* 3 */
        "    readinessPath: api/status\n"               /* 4 */
        "    startTimeout: soon\n"                      /* 5 */
        "    idleTimeout: -5\n"                         /* 6 */
        "    colour: blue\n"                            /* 7 */
        "    env: {\"9LIVES\": x, GOOD: \"{token}\"}\n" /* 8 */
        "    headers: {X-Tok: \"a {nope}\"}\n"          /* 9 */
        "    activity: {source: json}\n"                /* 10 */
        "  empty:\n"                                    /* 11 */
        "    command: []\n"                             /* 12 */
        "    readinessPath: /\n"                        /* 13 */
        "  Bad_Name:\n"                                 /* 14 */
        "    command: [x]\n"                            /* 15 */
        "  tmpl:\n"                                     /* 16 */
        "    command: [\"{workdir}/bin/x\"]\n"          /* 17 */
        "    readinessPath: /\n"                        /* 18 */
        "  nocommand:\n"                                /* 19 */
        "    readinessPath: /\n    command: ~\n"        /* 20, 21 */
        "  jupyter:\n"                                  /* 22 */
        "    activity: {source: telepathy}\n"           /* 23 */
        "    startTimeout: 0\n";                        /* 24 */
    struct companion_types set;
    struct api_status st = {0};
    REQUIRE(companion_types_load(NULL, 0, &set, &st) == 0);
    CHECK(companion_types_parse(yaml, strlen(yaml), &set, &st) != 0);
    CHECK_INT(st.code, 422);
    CHECK_CONTAINS(st.message, "companions file");
    CHECK_CAUSE(&st, "companions.lab.command[1]", "FieldValueInvalid", 3, "unknown placeholder {prot}");
    CHECK_CAUSE(&st, "companions.lab.readinessPath", "FieldValueInvalid", 4, "must start with '/' or {base_url}");
    CHECK_CAUSE(&st, "companions.lab.startTimeout", "FieldValueInvalid", 5, "Invalid value: \"soon\"");
    CHECK_CAUSE(&st, "companions.lab.idleTimeout", "FieldValueInvalid", 6, "must not be negative");
    CHECK_CAUSE(&st, "companions.lab.colour", "FieldValueNotSupported", 7, "unknown field");
    CHECK_CAUSE(&st, "companions.lab.env[9LIVES]", "FieldValueInvalid", 8, "environment variable's name");
    CHECK_CAUSE(&st, "companions.lab.headers[X-Tok]", "FieldValueInvalid", 9, "unknown placeholder {nope}");
    CHECK_CAUSE(&st, "companions.lab.activity.path", "FieldValueRequired", 10, "Required value");
    CHECK_CAUSE(&st, "companions.empty.command", "FieldValueInvalid", 12, "names no program");
    CHECK_CAUSE(&st, "companions.Bad_Name", "FieldValueInvalid", 14, "DNS-1123 label");
    CHECK_CAUSE(&st, "companions.tmpl.command[0]", "FieldValueInvalid", 17, "without placeholders");
    CHECK_CAUSE(&st, "companions.nocommand.command", "FieldValueRequired", 21, "Required value");
    CHECK_CAUSE(&st, "companions.jupyter.activity.source", "FieldValueNotSupported", 23, "\"telepathy\"");
    CHECK_CAUSE(&st, "companions.jupyter.startTimeout", "FieldValueInvalid", 24, "must be more than 0");
    CHECK_INT(st.ncauses, 14);
    /* Nothing of a refused file is taken. */
    CHECK_INT(set.n, 4);
    CHECK(companion_types_find(&set, "lab") == NULL);
    CHECK_INT(companion_types_find(&set, "jupyter")->start_timeout_ms, 120000);
    CHECK_INT(companion_types_find(&set, "jupyter")->activity.source, COMPANION_ACTIVITY_JUPYTER);
    companion_types_free(&set);
}

static void file_shape_mistakes(void)
{
    struct companion_types set;
    struct api_status st = {0};
    const char *unknown_root = "companion:\n  jupyter: {idleTimeout: 1h}\n";
    CHECK(companion_types_load(unknown_root, strlen(unknown_root), &set, &st) != 0);
    /* Located, as every cause on a block mapping, where its value starts. */
    CHECK_CAUSE(&st, "companion", "FieldValueNotSupported", 2, "unknown field \"companion\"");
    CHECK_INT(set.n, 0);
    memset(&st, 0, sizeof st);
    const char *syntax = "companions:\n  jupyter: [\n";
    CHECK(companion_types_load(syntax, strlen(syntax), &set, &st) != 0);
    CHECK_INT(st.code, 400);
    CHECK_CONTAINS(st.message, "line");
    memset(&st, 0, sizeof st);
    const char *list = "- jupyter\n";
    CHECK(companion_types_load(list, strlen(list), &set, &st) != 0);
    CHECK_CONTAINS(st.message, "one YAML mapping with `companions:`");
    memset(&st, 0, sizeof st);
    const char *not_object =
        "companions:\n  jupyter: yes\n  tb:\n    command: [tensorboard]\n"
        "    readinessPath: /\n    activity: {source: proxy, path: /x}\n"
        "    stripPrefix: maybe\n    headers: {\"Bad Name\": x, Ok: \"a\\r\\nb\"}\n";
    CHECK(companion_types_load(not_object, strlen(not_object), &set, &st) != 0);
    CHECK_CAUSE(&st, "companions.jupyter", "FieldValueInvalid", 2, "must be an object");
    CHECK_CAUSE(&st, "companions.tb.activity.path", "FieldValueForbidden", 6, "reads nothing");
    CHECK_CAUSE(&st, "companions.tb.stripPrefix", "FieldValueInvalid", 7, "must be a boolean");
    CHECK_CAUSE(&st, "companions.tb.headers[Bad Name]", "FieldValueInvalid", 8, "HTTP token");
    CHECK_CAUSE(&st, "companions.tb.headers[Ok]", "FieldValueInvalid", 8, "no line breaks");
    memset(&st, 0, sizeof st);
    const char *fields =
        "companions:\n  jupyter:\n    activity: {source: jupyter, field: 3}\n"
        "  terminal:\n    activity: {source: json, path: /s, field: \"\", busyPath: /k}\n";
    CHECK(companion_types_load(fields, strlen(fields), &set, &st) != 0);
    CHECK_CAUSE(&st, "companions.jupyter.activity.field", "FieldValueInvalid", 3, "must be a string");
    CHECK_CAUSE(&st, "companions.terminal.activity.field", "FieldValueInvalid", 5, "names the member");
    CHECK_CAUSE(&st, "companions.terminal.activity.busyPath", "FieldValueForbidden", 5, "only the jupyter source");
    CHECK_INT(st.ncauses, 3);
}

static void every_placeholder_expands(void)
{
    char *out, why[256];
    REQUIRE(companion_expand("{port}|{base_url}|{base_path}|{token}|{token_file}|{workdir}|{logdir}|{job}|"
                             "{namespace}|{companion}|{{literal}}|a}b",
                             &values, &out, why, sizeof why) == 0);
    CHECK_STR(out,
              "41234|/proxy/team-a/nb/|/proxy/team-a/nb|t0k|/run/caldera/c/token|/home/ann/work|"
              "/home/ann/work/logs|train|team-a|nb|{literal}|a}b");
    free(out);
    REQUIRE(companion_expand("", &values, &out, why, sizeof why) == 0);
    CHECK_STR(out, "");
    free(out);
    /* A placeholder without a value fails at expansion, naming it. */
    struct companion_values partial = values;
    partial.token_file = NULL;
    CHECK(companion_expand("--token-file={token_file}", &partial, &out, why, sizeof why) != 0);
    CHECK(out == NULL);
    CHECK_CONTAINS(why, "no value for {token_file}");
    partial.port = 0;
    CHECK(companion_expand("{port}", &partial, &out, why, sizeof why) != 0);
    CHECK_CONTAINS(why, "no value for {port}");
}

static void base_url_slash_rules(void)
{
    static const struct {
        const char *base, *url, *path;
    } cases[] = {
        {"/proxy/a/b", "/proxy/a/b/", "/proxy/a/b"},
        {"/proxy/a/b/", "/proxy/a/b/", "/proxy/a/b"},
        {"/proxy/a/b//", "/proxy/a/b/", "/proxy/a/b"},
        {"/", "/", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct companion_values v = values;
        char *out, why[256];
        v.base_url = cases[i].base;
        REQUIRE(companion_expand("{base_url}", &v, &out, why, sizeof why) == 0);
        CHECK_STR(out, cases[i].url);
        free(out);
        REQUIRE(companion_expand("{base_path}", &v, &out, why, sizeof why) == 0);
        CHECK_STR(out, cases[i].path);
        free(out);
    }
    struct companion_values v = values;
    char *out, why[256];
    v.base_url = "proxy/a";
    CHECK(companion_expand("{base_url}", &v, &out, why, sizeof why) != 0);
    CHECK_CONTAINS(why, "must start with '/'");
    v.base_url = NULL;
    CHECK(companion_expand("x{base_path}", &v, &out, why, sizeof why) != 0);
}

static void unknown_placeholders_are_refused(void)
{
    char why[256];
    CHECK_INT(companion_template_check("--port={port}", why, sizeof why), 0);
    CHECK_INT(companion_template_check("{{port}}", why, sizeof why), 0);
    CHECK(companion_template_check("--port={Port}", why, sizeof why) != 0);
    CHECK_CONTAINS(why, "unknown placeholder {Port}");
    CHECK(companion_template_check("{}", why, sizeof why) != 0);
    CHECK_CONTAINS(why, "unknown placeholder {}");
    CHECK(companion_template_check("--x={port", why, sizeof why) != 0);
    CHECK_CONTAINS(why, "unclosed '{'");
    /* And at expansion too, should an unchecked template come by. */
    char *out;
    CHECK(companion_expand("{home}", &values, &out, why, sizeof why) != 0);
    CHECK_CONTAINS(why, "unknown placeholder {home}");
    /* The configuration refuses them when it is read, not when a companion starts. */
    const char *yaml = "companions:\n  terminal:\n    command: [caldera-terminal, --cwd, \"{cwd}\"]\n";
    struct companion_types set;
    struct api_status st = {0};
    CHECK(companion_types_load(yaml, strlen(yaml), &set, &st) != 0);
    CHECK_CAUSE_AT(&st, "companions.terminal.command[2]", "FieldValueInvalid", 3, 40, "unknown placeholder {cwd}");
}

static void header_values_stay_on_one_line(void)
{
    struct companion_types set;
    struct api_status st = {0};
    REQUIRE(companion_types_load(NULL, 0, &set, &st) == 0);
    struct companion_values v = values;
    v.token = "abc\r\nX-Evil: 1";
    char **headers, why[256];
    CHECK(companion_headers(companion_types_find(&set, "jupyter"), &v, &headers, why, sizeof why) != 0);
    CHECK(headers == NULL);
    CHECK_CONTAINS(why, "line break");
    companion_types_free(&set);
}

static void put_file(const char *dir, const char *name, mode_t mode)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("#!/bin/sh\nexit 0\n", f);
        fclose(f);
    }
    chmod(path, mode);
}

static void programs_are_found_or_not_installed(void)
{
    char root[] = "/tmp/caldera-companion-XXXXXX";
    REQUIRE(mkdtemp(root) != NULL);
    char a[600], b[600], bin[600], path_env[2048], out[1024], want[1024], why[256];
    snprintf(a, sizeof a, "%s/a", root);
    snprintf(b, sizeof b, "%s/b", root);
    snprintf(bin, sizeof bin, "%s/bin", root);
    REQUIRE(mkdir(a, 0755) == 0 && mkdir(b, 0755) == 0 && mkdir(bin, 0755) == 0);
    put_file(a, "notebook", 0644); /* not executable: passed over */
    put_file(b, "notebook", 0755);
    REQUIRE(mkdir(strcat(strcpy(want, a), "/dir-prog"), 0755) == 0); /* a directory: passed over */
    put_file(b, "dir-prog", 0755);
    put_file(bin, "caldera-terminal", 0755);
    put_file(b, "caldera-terminal", 0755);
    snprintf(path_env, sizeof path_env, "::relative:%s:%s/", a, b);

    REQUIRE(companion_program_resolve("notebook", path_env, bin, out, sizeof out, why, sizeof why) == 0);
    snprintf(want, sizeof want, "%s/notebook", b);
    CHECK_STR(out, want);
    REQUIRE(companion_program_resolve("dir-prog", path_env, NULL, out, sizeof out, why, sizeof why) == 0);
    snprintf(want, sizeof want, "%s/dir-prog", b);
    CHECK_STR(out, want);
    /* Caldera's own bin dir comes first. */
    REQUIRE(companion_program_resolve("caldera-terminal", path_env, bin, out, sizeof out, why, sizeof why) == 0);
    snprintf(want, sizeof want, "%s/caldera-terminal", bin);
    CHECK_STR(out, want);
    /* An absolute path is checked as it is. */
    REQUIRE(companion_program_resolve(want, "", NULL, out, sizeof out, why, sizeof why) == 0);
    CHECK_STR(out, want);

    CHECK(companion_program_resolve("jupyter-notebook-nope", path_env, bin, out, sizeof out, why, sizeof why) != 0);
    CHECK_STR(why, "not installed: jupyter-notebook-nope");
    CHECK_STR(out, "");
    snprintf(want, sizeof want, "%s/notebook", a);
    CHECK(companion_program_resolve(want, path_env, NULL, out, sizeof out, why, sizeof why) != 0);
    CHECK_CONTAINS(why, "not installed: ");
    CHECK(companion_program_resolve("notebook", "", NULL, out, sizeof out, why, sizeof why) != 0);
    CHECK(companion_program_resolve("b/notebook", root, NULL, out, sizeof out, why, sizeof why) != 0);
    CHECK_STR(why, "not installed: b/notebook");
    /* The current directory is never searched, even when PATH's empty entries say so. */
    char cwd[1024];
    REQUIRE(getcwd(cwd, sizeof cwd) != NULL);
    REQUIRE(chdir(b) == 0);
    CHECK(companion_program_resolve("notebook", ":", NULL, out, sizeof out, why, sizeof why) != 0);
    CHECK(companion_program_resolve("notebook", "relative:.", NULL, out, sizeof out, why, sizeof why) != 0);
    REQUIRE(chdir(cwd) == 0);
    char small[16];
    CHECK(companion_program_resolve("notebook", path_env, NULL, small, sizeof small, why, sizeof why) != 0);
    CHECK_CONTAINS(why, "too long");

    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK_INT(system(cmd), 0);
}

/* The built-ins' programs on this machine: found where installed, NotInstalled otherwise. */
static void builtin_programs_on_this_machine(void)
{
    struct companion_types set;
    struct api_status st = {0};
    REQUIRE(companion_types_load(NULL, 0, &set, &st) == 0);
    for (int i = 0; i < set.n; i++) {
        char out[1024], why[256];
        const char *prog = set.types[i].argv[0];
        int rc = companion_program_resolve(prog, getenv("PATH"), getenv("CALDERA_BIN_DIR"), out, sizeof out, why,
                                           sizeof why);
        if (rc == 0) {
            CHECK(access(out, X_OK) == 0);
        } else {
            char want[256];
            snprintf(want, sizeof want, "not installed: %s", prog);
            CHECK_STR(why, want);
        }
        printf("# %s: %s\n", set.types[i].name, rc == 0 ? out : why);
    }
    companion_types_free(&set);
}

TEST_MAIN(TEST_CASE(builtins_parse), TEST_CASE(builtin_command_lines), TEST_CASE(file_overrides_and_adds),
          TEST_CASE(documented_example_reads), TEST_CASE(mistakes_name_their_field_and_line),
          TEST_CASE(file_shape_mistakes), TEST_CASE(every_placeholder_expands), TEST_CASE(base_url_slash_rules),
          TEST_CASE(unknown_placeholders_are_refused), TEST_CASE(header_values_stay_on_one_line),
          TEST_CASE(programs_are_found_or_not_installed), TEST_CASE(builtin_programs_on_this_machine))
