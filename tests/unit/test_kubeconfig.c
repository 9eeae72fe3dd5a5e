/* Kubeconfigs read as kubectl reads them (adapters/objects/kubeconfig.c): the current or a named context,
 * inline and file credentials, paths relative to the file, and mistakes named with their field and line;
 * plus the kube client's pure parts: resource paths and Status answers read back (runtime/kube/). */
#include <stdlib.h>
#include <string.h>

#include "adapters/objects/kubeconfig.h"
#include "runtime/kube/kube_client.h"
#include "runtime/kube/kube_status.h"
#include "tests/lib/test.h"

/* "hello" and "key" in base64. */
#define CONFIG_HEAD                                                                   \
    "apiVersion: v1\nkind: Config\ncurrent-context: dev\n"                            \
    "clusters:\n- name: other\n  cluster: {server: 'https://other:6443'}\n"           \
    "- name: c1\n  cluster:\n    server: https://10.0.0.1:6443/\n"                    \
    "    certificate-authority-data: aGVsbG8=\n"                                      \
    "contexts:\n- name: dev\n  context: {cluster: c1, user: u1, namespace: team-a}\n" \
    "- name: ops\n  context: {cluster: other, user: u2}\n"

static int parse(const char *yaml, const char *context, struct kubeconfig *kc, struct api_status *st)
{
    memset(st, 0, sizeof *st);
    return kubeconfig_parse(yaml, strlen(yaml), "/etc/kube", context, kc, st);
}

static void current_context_token(void)
{
    static const char yaml[] = CONFIG_HEAD
        "users:\n- name: u1\n  user: {token: abc.def}\n"
        "- name: u2\n  user:\n    tokenFile: tok\n";
    struct kubeconfig kc;
    struct api_status st;
    REQUIRE(parse(yaml, NULL, &kc, &st) == 0);
    CHECK_STR(kc.context, "dev");
    CHECK_STR(kc.server, "https://10.0.0.1:6443");
    CHECK_STR(kc.ns, "team-a");
    CHECK_STR(kc.token, "abc.def");
    CHECK_INT(kc.ca.len, 5);
    CHECK_STR(kc.ca.data, "hello");
    CHECK(kc.ca.file == NULL && !kc.insecure);
    kubeconfig_free(&kc);
    REQUIRE(parse(yaml, "ops", &kc, &st) == 0);
    CHECK_STR(kc.server, "https://other:6443");
    CHECK_STR(kc.ns, "default");
    CHECK_STR(kc.token_file, "/etc/kube/tok");
    CHECK(kc.token == NULL && kc.ca.data == NULL);
    kubeconfig_free(&kc);
}

static void client_certificate(void)
{
    static const char yaml[] = CONFIG_HEAD
        "users:\n- name: u1\n  user:\n    client-certificate: certs/me.crt\n"
        "    client-key-data: a2V5\n";
    struct kubeconfig kc;
    struct api_status st;
    REQUIRE(parse(yaml, NULL, &kc, &st) == 0);
    CHECK_STR(kc.cert.file, "/etc/kube/certs/me.crt");
    CHECK_STR(kc.key.data, "key");
    kubeconfig_free(&kc);
}

static void mistakes_name_field_and_line(void)
{
    struct kubeconfig kc;
    struct api_status st;
    CHECK(parse(CONFIG_HEAD "users:\n- name: u1\n  user:\n    client-certificate-data: aGVsbG8=\n"
                            "    client-key-data: '!!!'\n",
                NULL, &kc, &st) != 0);
    CHECK_INT(st.code, 400);
    CHECK_STR(st.message,
              "kubeconfig is invalid: users[0].user.client-key-data: Invalid value: not base64 (line 20, column 22)");
    CHECK(parse(CONFIG_HEAD "users:\n- name: u1\n  user:\n    client-certificate-data: aGVsbG8=\n", NULL, &kc, &st) !=
          0);
    CHECK_CONTAINS(st.message, "users[0].user.client-key: Required value: a client certificate needs its key");
    CHECK(parse(CONFIG_HEAD "users:\n- name: u1\n  user:\n    exec: {command: aws}\n", NULL, &kc, &st) != 0);
    CHECK_CONTAINS(st.message, "users[0].user.exec: Forbidden: credential plugins are not supported");
    CHECK_CONTAINS(st.message, "(line 19, column 11)");
    CHECK(parse("kind: Config\ncurrent-context: nope\ncontexts: []\n", NULL, &kc, &st) != 0);
    CHECK_STR(st.message,
              "kubeconfig is invalid: current-context: Not found: \"nope\": no context of that name "
              "(line 2, column 18)");
    CHECK(parse("kind: Config\nclusters: []\n", NULL, &kc, &st) != 0);
    CHECK_CONTAINS(st.message, "current-context: Required value");
    CHECK(parse(CONFIG_HEAD "users: []\n", "missing", &kc, &st) != 0);
    CHECK_INT(st.code, 404);
    CHECK(parse(CONFIG_HEAD "users: []\n", NULL, &kc, &st) != 0);
    CHECK_CONTAINS(st.message, "contexts[0].context.user: Not found: \"u1\"");
    CHECK(parse("kind: Config\ncurrent-context: a\ncontexts: [{name: a, context: {cluster: c}}]\n"
                "clusters: [{name: c, cluster: {server: 'ftp://x', certificate-authority: ca.pem,\n"
                "  insecure-skip-tls-verify: true}}]\n",
                NULL, &kc, &st) != 0);
    CHECK_CONTAINS(st.message,
                   "clusters[0].cluster.server: Invalid value: \"ftp://x\": a server's URL starts with https://");
    CHECK(parse("kind: Config\ncurrent-context: a\ncontexts: [{name: a, context: {cluster: c}}]\n"
                "clusters: [{name: c, cluster: {server: 'https://x', certificate-authority: ca.pem,\n"
                "  insecure-skip-tls-verify: true}}]\n",
                NULL, &kc, &st) != 0);
    CHECK_CONTAINS(st.message, "insecure-skip-tls-verify: Invalid value: true: a certificate authority and");
    CHECK(parse("- a\n", NULL, &kc, &st) != 0);
    CHECK_STR(st.message, "a kubeconfig is one YAML mapping");
}

static void paths(void)
{
    char p[256];
    REQUIRE(kube_path(p, sizeof p, "v1", "team-a", "pods", "x-w-0", "log") == 0);
    CHECK_STR(p, "/api/v1/namespaces/team-a/pods/x-w-0/log");
    REQUIRE(kube_path(p, sizeof p, "batch.volcano.sh/v1alpha1", "default", "jobs", NULL, NULL) == 0);
    CHECK_STR(p, "/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs");
    REQUIRE(kube_path(p, sizeof p, "scheduling.volcano.sh/v1beta1", NULL, "queues", "q", NULL) == 0);
    CHECK_STR(p, "/apis/scheduling.volcano.sh/v1beta1/queues/q");
    CHECK(kube_path(p, 10, "v1", NULL, "nodes", NULL, NULL) != 0);
}

static void status_answers(void)
{
    static const char conflict[] =
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"jobs.batch."
        "volcano.sh \\\"x\\\" already exists\",\"reason\":\"AlreadyExists\",\"details\":{\"name\":\"x\",\"group\":"
        "\"batch.volcano.sh\",\"kind\":\"jobs\",\"causes\":[{\"reason\":\"FieldValueInvalid\",\"message\":\"m\","
        "\"field\":\"spec\"}]},\"code\":409}";
    struct api_status st = {0};
    CHECK(kube_status_from_answer(409, conflict, strlen(conflict), &st) == -1);
    CHECK_INT(st.code, 409);
    CHECK_STR(st.reason, "AlreadyExists");
    CHECK_STR(st.message, "jobs.batch.volcano.sh \"x\" already exists");
    CHECK_STR(st.name, "x");
    CHECK_STR(st.group, "batch.volcano.sh");
    CHECK_INT(st.ncauses, 1);
    CHECK_STR(st.causes[0].field, "spec");
    memset(&st, 0, sizeof st);
    kube_status_from_answer(502, "<html>Bad Gateway</html>\nmore", 30, &st);
    CHECK_INT(st.code, 502);
    CHECK_STR(st.reason, "Unknown");
    CHECK_STR(st.message, "the server answered 502: <html>Bad Gateway</html>");
    memset(&st, 0, sizeof st);
    kube_status_from_answer(410, "", 0, &st);
    CHECK_STR(st.reason, "Expired");
}

TEST_MAIN(TEST_CASE(current_context_token), TEST_CASE(client_certificate), TEST_CASE(mistakes_name_field_and_line),
          TEST_CASE(paths), TEST_CASE(status_answers))
