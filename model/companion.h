/* Companion types: the programs Caldera starts beside a job (Jupyter, TensorBoard, code-server, a web
 * terminal), as templates with placeholders, and how to probe, reach and watch them. Pure. */
#ifndef CALDERA_COMPANION_H
#define CALDERA_COMPANION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define COMPANION_NAME_MAX 64
/* The container port of a type that names none (a real cluster's pod; locally ports are allocated). */
#define COMPANION_DEFAULT_PORT 8080
/* The reason of a companion whose program is not there: Failed, NotInstalled, "not installed: <program>". */
#define COMPANION_NOT_INSTALLED "NotInstalled"

/* Where a companion's last activity comes from, for its idle timeout. */
enum companion_activity_source {
    COMPANION_ACTIVITY_PROXY,   /* only the proxy's own traffic to it */
    COMPANION_ACTIVITY_JSON,    /* GET path: the member `field` holds an RFC3339 time */
    COMPANION_ACTIVITY_JUPYTER, /* as json ({base_url}api/status, last_activity), and GET busy_path (the
                                   kernels' list): a kernel whose execution_state is "busy" is active now */
};

/* Every path is a template (see companion_template_check) that expands to one starting with '/', sent
 * to 127.0.0.1:{port} with the type's headers; the reader fills the defaults, so none is NULL where
 * its source needs it. The proxy's traffic counts as activity whatever the source. */
struct companion_activity {
    enum companion_activity_source source;
    char *path;      /* json, jupyter: "{base_url}api/status"; proxy: NULL */
    char *field;     /* json, jupyter: "last_activity"; proxy: NULL */
    char *busy_path; /* jupyter: "{base_url}api/kernels?no_track_activity=1"; else NULL */
};

struct companion_type {
    char name[COMPANION_NAME_MAX]; /* a DNS-1123 label: "jupyter" */
    /* Templates, NULL-ended, at least one; argv[0] (no placeholders) is the program: a bare name looked
     * up on PATH and in Caldera's bin dir, or an absolute path. */
    char **argv;
    /* "NAME=template", NULL-ended, or NULL: added to the job's environment. */
    char **env;
    /* "Name: template", NULL-ended, or NULL: what the proxy and the probes add to every request to the
     * companion (its credentials: "Authorization: token {token}"). */
    char **headers;
    /* Template: a GET answering 2xx or 3xx means ready ("{base_url}api/status"). */
    char *readiness_path;
    int64_t start_timeout_ms; /* not ready by then: Failed */
    int64_t idle_timeout_ms;  /* no activity for this long: stopped; 0: never */
    /* The proxy forwards paths without the companion's base URL (programs that take no base URL and
     * use relative links: code-server); else as they came. */
    bool strip_prefix;
    struct companion_activity activity;
    /* For a real cluster (adapters/dialects/volcano/companion_manifest.h): the container image that has
     * the program, NULL for the image of the task it serves; the port it listens on in its pod. */
    char *image;
    int port;     /* 1-65535; 0: COMPANION_DEFAULT_PORT */
    bool builtin; /* Caldera's own definition, perhaps changed by the configuration */
};

/* The configured types, looked up by name. */
struct companion_types {
    int n;
    struct companion_type *types;
};

const struct companion_type *companion_types_find(const struct companion_types *set, const char *name);
/* The type named name, added (zeroed, named) when missing; NULL when out of memory. */
struct companion_type *companion_types_get(struct companion_types *set, const char *name);
/* Deep copy; returns 0 or -1 (out of memory, *out cleared). */
int companion_type_copy(struct companion_type *out, const struct companion_type *t);
void companion_type_clear(struct companion_type *t);
void companion_types_free(struct companion_types *set);

const char *companion_activity_source_name(enum companion_activity_source s);
/* Returns false for a name that is none of "proxy", "json", "jupyter". */
bool companion_activity_source_parse(const char *name, enum companion_activity_source *out);

/* --- placeholders (model/companion_expand.c) ------------------------------------------------------ */

/* The values of one companion's placeholders. NULL: none (a template using it cannot be expanded). */
struct companion_values {
    int port;               /* {port}: the loopback port it listens on */
    const char *base_url;   /* {base_url}: "/proxy/ns/name/": must start with '/'; a missing final '/' is
                              added. {base_path} is the same without the final '/' ("" for "/") */
    const char *token;      /* {token} */
    const char *token_file; /* {token_file}: a file holding the token */
    const char *workdir;    /* {workdir}: the job's working directory */
    const char *logdir;     /* {logdir}: the job's log directory, or the directory the request names */
    const char *job;        /* {job}: the job's name */
    const char *ns;         /* {namespace} */
    const char *companion;  /* {companion}: the companion's own name */
};

/* The placeholders, NULL-ended: "port", "base_url", "base_path", "token", "token_file", "workdir",
 * "logdir", "job", "namespace", "companion". */
extern const char *const companion_placeholders[];

/* Checks a template: text with {placeholder}s from the list above; "{{" and "}}" are a literal brace.
 * Returns 0, or -1 with why ("unknown placeholder {tokn}", "unclosed '{'"). */
int companion_template_check(const char *tmpl, char *why, size_t why_len);
/* Expands a template into a new string (*out, the caller frees). Returns 0, or -1 with why (a
 * placeholder without a value, a base URL not starting with '/', a bad template, out of memory). */
int companion_expand(const char *tmpl, const struct companion_values *v, char **out, char *why, size_t why_len);
/* One companion's argv and the environment it adds (NULL-ended vectors the caller frees with
 * strv_free; *env is NULL when the type has none). Returns 0, or -1 with why, both left NULL. */
int companion_command(const struct companion_type *t, const struct companion_values *v, char ***argv, char ***env,
                      char *why, size_t why_len);
/* The headers ("Name: value") for the proxy and the probes; *headers is NULL when the type has none. A
 * value with a CR or LF is refused. Returns 0, or -1 with why. */
int companion_headers(const struct companion_type *t, const struct companion_values *v, char ***headers, char *why,
                      size_t why_len);

#endif
