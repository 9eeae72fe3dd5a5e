/* The companions file (`jobserver --companions FILE`, YAML) into the companion types, on top of the
 * built-in ones, which are written in the same format and read by the same code. Pure: no I/O.
 *
 * The format: one mapping with `companions:`, a mapping from type name (a DNS-1123 label) to
 *
 *   command:       [program, arg, ...]  templates; the program is a bare name (looked up on PATH and in
 *                                       Caldera's bin dir) or an absolute path, without placeholders
 *   env:           {NAME: template}     added to the job's environment
 *   headers:       {Name: template}     added by the proxy and the probes to every request to it
 *   readinessPath: template             GET answering 2xx/3xx = ready; starts with '/' or {base_url}
 *   startTimeout:  duration             default 2m; "90s", "1h30m" or a number of seconds
 *   idleTimeout:   duration             default 1h; 0: never stopped for idleness
 *   stripPrefix:   bool                 default false: the proxy forwards paths without the base URL
 *   image:         image reference     a real cluster's pod (`-o manifest`); default: the task's image
 *   port:          1-65535             the port it listens on in that pod (default 8080; locally the
 *                                       ports come from --companion-ports)
 *   activity:      proxy | json | jupyter, or {source, path, field, busyPath}
 *                  proxy: only the proxy's traffic; json: GET path (required), RFC3339 time in field
 *                  (default last_activity); jupyter: path {base_url}api/status, field last_activity,
 *                  busyPath {base_url}api/kernels?no_track_activity=1 (kernels "busy" are active)
 *
 * Placeholders: {port} {base_url} (ends with '/') {base_path} (the same without it) {token}
 * {token_file} {workdir} {logdir} {job} {namespace} {companion}; {{ and }} are literal braces.
 * An entry named like a built-in changes only the fields it sets (activity as a whole); a new one
 * needs command and readinessPath. Example:
 *
 *   companions:
 *     jupyter:
 *       idleTimeout: 4h
 *     lab:
 *       command: ["/opt/conda/bin/jupyter-lab", --no-browser, "--port={port}",
 *                 "--ServerApp.base_url={base_url}", "--ServerApp.root_dir={workdir}"]
 *       env: {JUPYTER_TOKEN: "{token}"}
 *       headers: {Authorization: "token {token}"}
 *       readinessPath: "{base_url}api/status"
 *       activity: jupyter
 */
#ifndef CALDERA_COMPANION_TYPES_H
#define CALDERA_COMPANION_TYPES_H

#include <stddef.h>

#include "common/api_status.h"
#include "model/companion.h"

/* The built-in types (jupyter, tensorboard, code-server, terminal) in the format above. */
extern const char companion_types_builtin_yaml[];

/* Reads a companions file on top of the types in set (changing or adding). Every mistake is a cause
 * with its field path and line ("companions.jupyter.startTimeout"); then the whole is a 422 Invalid
 * and set is left as it was. An empty file (or only comments) changes nothing. Returns 0 or -1. */
int companion_types_parse(const char *data, size_t len, struct companion_types *set, struct api_status *st);

/* The built-in types, then the file's on top (data NULL: the built-ins alone). On failure *set is
 * empty. Returns 0 or -1. */
int companion_types_load(const char *data, size_t len, struct companion_types *set, struct api_status *st);

#endif
