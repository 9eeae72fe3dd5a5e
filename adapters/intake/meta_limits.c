/* Kubernetes' validation of object metadata (k8s.io/apimachinery/pkg/util/validation and
 * ValidateObjectMeta), with its messages word for word, so a client sees what a cluster would say; and
 * the C identifiers configuration files name environment variables with. */
#include "adapters/intake/meta_limits.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define LABEL_MSG                                                                                     \
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must " \
    "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "    \
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
#define SUBDOMAIN_MSG                                                                             \
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "  \
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used " \
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
#define QNAME_MSG                                                                                     \
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "       \
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation " \
    "is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
#define LABEL_VALUE_MSG                                                                         \
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or " \
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "          \
    "'my_value',  or '12345', regex used for validation is "                                    \
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
#define SHOWN_MAX 48 /* bytes of an offending value quoted in a cause: a 7 MB label is not echoed */

/* [a-z0-9]([-a-z0-9]*[a-z0-9])? of any length. */
static bool label_format(const char *s, size_t n)
{
    if (n == 0 || !(islower((unsigned char)s[0]) || isdigit((unsigned char)s[0])) || s[n - 1] == '-')
        return false;
    for (size_t i = 0; i < n; i++)
        if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '-'))
            return false;
    return true;
}

static bool subdomain_format(const char *s)
{
    const char *start = s;
    for (const char *p = s;; p++) {
        if (*p != '.' && *p != '\0')
            continue;
        if (!label_format(start, (size_t)(p - start)))
            return false;
        if (*p == '\0')
            return true;
        start = p + 1;
    }
}

/* ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], non-empty. */
static bool qname_format(const char *s, size_t n)
{
    if (n == 0 || !isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '-' || s[i] == '_' || s[i] == '.'))
            return false;
    return true;
}

static const char *max_len_error(char *buf, size_t len, int max)
{
    snprintf(buf, len, "must be no more than %d characters", max);
    return buf;
}

int meta_dns1123_label_problems(const char *s, const char *why[4], char *buf, size_t len)
{
    int n = 0;
    size_t slen = strlen(s);
    if (slen > META_DNS1123_LABEL_MAX)
        why[n++] = max_len_error(buf, len, META_DNS1123_LABEL_MAX);
    if (!label_format(s, slen))
        why[n++] = LABEL_MSG;
    return n;
}

int meta_dns1123_subdomain_problems(const char *s, const char *why[4], char *buf, size_t len)
{
    int n = 0;
    if (strlen(s) > META_DNS1123_SUBDOMAIN_MAX)
        why[n++] = max_len_error(buf, len, META_DNS1123_SUBDOMAIN_MAX);
    if (!subdomain_format(s))
        why[n++] = SUBDOMAIN_MSG;
    return n;
}

int meta_qualified_name_problems(const char *s, const char *why[4], char *buf, size_t len)
{
    int n = 0;
    const char *slash = strchr(s, '/'), *name = s;
    if (slash && strchr(slash + 1, '/')) {
        why[n++] = "a qualified name " QNAME_MSG
                   " with an optional DNS subdomain prefix and '/' (e.g. "
                   "'example.com/MyName')";
        return n;
    }
    if (slash) {
        size_t plen = (size_t)(slash - s);
        name = slash + 1;
        if (plen == 0) {
            why[n++] = "prefix part must be non-empty";
        } else {
            char prefix[META_DNS1123_SUBDOMAIN_MAX + 2];
            if (plen > META_DNS1123_SUBDOMAIN_MAX) {
                snprintf(buf, len, "prefix part must be no more than %d characters", META_DNS1123_SUBDOMAIN_MAX);
                why[n++] = buf;
                plen = META_DNS1123_SUBDOMAIN_MAX; /* its format is still checked, on what fits */
            }
            memcpy(prefix, s, plen);
            prefix[plen] = '\0';
            if (!subdomain_format(prefix))
                why[n++] = "prefix part " SUBDOMAIN_MSG;
        }
    }
    size_t nlen = strlen(name);
    if (nlen == 0)
        why[n++] = "name part must be non-empty";
    else if (nlen > META_QUALIFIED_NAME_MAX)
        why[n++] = "name part must be no more than 63 characters";
    if (!qname_format(name, nlen))
        why[n++] = "name part " QNAME_MSG;
    return n;
}

int meta_label_value_problems(const char *s, const char *why[4], char *buf, size_t len)
{
    int n = 0;
    size_t slen = strlen(s);
    if (slen > META_LABEL_VALUE_MAX)
        why[n++] = max_len_error(buf, len, META_LABEL_VALUE_MAX);
    if (slen > 0 && !qname_format(s, slen))
        why[n++] = LABEL_VALUE_MSG;
    return n;
}

/* s as Go's %q would show it, cut at SHOWN_MAX bytes (on a UTF-8 boundary) with "..." after. */
static void quote(const char *s, char *out, size_t len)
{
    size_t n = strlen(s), at = 0;
    bool cut = n > SHOWN_MAX;
    if (cut) {
        n = SHOWN_MAX;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
    }
    out[at++] = '"';
    for (size_t i = 0; i < n && at + 6 < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            at += (size_t)snprintf(out + at, len - at, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            at += (size_t)snprintf(out + at, len - at, "\\x%02x", c);
        else
            out[at++] = (char)c;
    }
    out[at++] = '"';
    out[at] = '\0';
    if (cut)
        snprintf(out + at, len - at, "...");
}

typedef int (*problems_fn)(const char *s, const char *why[4], char *buf, size_t len);

/* One cause per problem of value (checked by fn) at obj[key], under path. */
static bool check(struct fields *f, const json_t *obj, const char *key, const char *path, const char *value,
                  problems_fn fn)
{
    const char *why[4];
    char buf[96], shown[SHOWN_MAX * 4 + 8];
    int n = fn(value, why, buf, sizeof buf);
    if (n == 0)
        return true;
    quote(value, shown, sizeof shown);
    for (int i = 0; i < n; i++)
        field_error(f, obj, key, path, "FieldValueInvalid", "Invalid value: %s: %s", shown, why[i]);
    return false;
}

bool meta_check_label_name(struct fields *f, const json_t *obj, const char *key, const char *path, const char *name)
{
    return f->admitted || check(f, obj, key, path, name, meta_dns1123_label_problems);
}

bool meta_check_subdomain_name(struct fields *f, const json_t *obj, const char *key, const char *path, const char *name)
{
    return f->admitted || check(f, obj, key, path, name, meta_dns1123_subdomain_problems);
}

bool meta_check_generate_name(struct fields *f, const json_t *obj, const char *path, const char *prefix, bool label)
{
    if (f->admitted || !prefix || !*prefix)
        return true;
    char masked[META_DNS1123_SUBDOMAIN_MAX + 2];
    size_t n = strlen(prefix);
    if (n > META_DNS1123_SUBDOMAIN_MAX) /* too long whatever it holds: say so on the text itself */
        return check(f, obj, "generateName", path, prefix,
                     label ? meta_dns1123_label_problems : meta_dns1123_subdomain_problems);
    memcpy(masked, prefix, n + 1);
    if (n > 1 && masked[n - 1] == '-') /* maskTrailingDash: the generated suffix ends the name */
        masked[n - 1] = 'a';
    const char *why[4];
    char buf[96], shown[SHOWN_MAX * 4 + 8];
    int count = label ? meta_dns1123_label_problems(masked, why, buf, sizeof buf)
                      : meta_dns1123_subdomain_problems(masked, why, buf, sizeof buf);
    if (count == 0)
        return true;
    quote(prefix, shown, sizeof shown);
    for (int i = 0; i < count; i++)
        field_error(f, obj, "generateName", path, "FieldValueInvalid", "Invalid value: %s: %s", shown, why[i]);
    return false;
}

bool meta_labels(struct fields *f, const json_t *meta, const char *path, json_t **out)
{
    if (!field_string_map(f, meta, "labels", path, out))
        return false;
    if (!*out || f->admitted)
        return true;
    bool ok = true;
    const char *k;
    json_t *v;
    json_object_foreach(*out, k, v)
    {
        ok = check(f, *out, k, path, k, meta_qualified_name_problems) && ok;
        ok = check(f, *out, k, path, json_string_value(v), meta_label_value_problems) && ok;
    }
    return ok;
}

bool meta_annotations(struct fields *f, const json_t *meta, const char *path, json_t **out)
{
    if (!field_string_map(f, meta, "annotations", path, out))
        return false;
    if (!*out || f->admitted)
        return true;
    bool ok = true;
    size_t total = 0;
    const char *k;
    json_t *v;
    json_object_foreach(*out, k, v)
    {
        size_t klen = strlen(k);
        total += klen + json_string_length(v);
        char lower[META_DNS1123_SUBDOMAIN_MAX + META_QUALIFIED_NAME_MAX + 8];
        if (klen >= sizeof lower) { /* too long for any qualified name: its own text says why */
            ok = check(f, *out, k, path, k, meta_qualified_name_problems) && ok;
            continue;
        }
        for (size_t i = 0; i <= klen; i++) /* the rule is a qualified name's, case aside */
            lower[i] = (char)tolower((unsigned char)k[i]);
        const char *why[4];
        char buf[96], shown[SHOWN_MAX * 4 + 8];
        int n = meta_qualified_name_problems(lower, why, buf, sizeof buf);
        if (n > 0)
            quote(k, shown, sizeof shown);
        for (int i = 0; i < n; i++)
            field_error(f, *out, k, path, "FieldValueInvalid", "Invalid value: %s: %s", shown, why[i]);
        ok = ok && n == 0;
    }
    if (total > META_ANNOTATIONS_MAX) {
        field_error(f, meta, "annotations", path, "FieldValueTooLong", "Too long: must have at most %d bytes",
                    META_ANNOTATIONS_MAX);
        ok = false;
    }
    return ok;
}

bool meta_c_identifier(const char *s)
{
    if (!*s || isdigit((unsigned char)*s))
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return false;
    return true;
}
