/* The built-in companion types, written in the companions file's format (companion_types.h) and read
 * by the same code, so a built-in is what an administrator could have written. */
#include "adapters/objects/companion_types.h"

/* jupyter: Debian 12's jupyter-notebook 6.4. The token goes in the environment, not on the command
 * line, where `ps` shows it to every local user; the proxy and the probes send it as a header. A
 * token-authenticated request skips 6.4's XSRF and WebSocket Origin checks (tried: a kernel's channels
 * upgrade with Origin https://evil.example gets 101), so the proxy must refuse cross-site WebSocket
 * upgrades and unsafe methods itself; allow_origin is left unset. port_retries=0: a taken port fails
 * instead of moving silently to another. allow_remote_access: the proxy forwards the browser's Host,
 * not a loopback name (6.4 answers 403 otherwise); it is still bound to 127.0.0.1 and needs the token.
 * trust_xheaders: links and logs use X-Forwarded-Proto/For. allow-root: Caldera, not Jupyter, decides
 * the user (6.4 refuses to start as root without it).
 * Polling api/kernels would count as activity without ?no_track_activity=1; api/status does not.
 *
 * tensorboard: no base URL option but --path_prefix (leading '/', no final one needed); no
 * authentication at all, so only the loopback binding and the proxy protect it.
 *
 * code-server (npm): takes no base path, uses relative links: the proxy strips the prefix. Password
 * authentication, which the proxy passes by sending the session cookie: code-server 4.x takes a
 * HASHED_PASSWORD that is not an argon2 hash as the cookie's expected value (its "SHA256" method
 * compares the two), so a browser through the proxy never sees the login page while a local process
 * going round the proxy to the port still does (tests/e2e/test_code_server.mjs checks both).
 * /healthz answers without it.
 *
 * terminal: Caldera's caldera-terminal, which reads the token from a file and reports its activity. */
const char companion_types_builtin_yaml[] =
    "companions:\n"
    "  jupyter:\n"
    "    command: [jupyter-notebook, --no-browser, --allow-root, --ip=127.0.0.1, \"--port={port}\",\n"
    "              --NotebookApp.port_retries=0, \"--NotebookApp.base_url={base_url}\",\n"
    "              \"--NotebookApp.notebook_dir={workdir}\", --NotebookApp.allow_remote_access=True,\n"
    "              --NotebookApp.trust_xheaders=True]\n"
    "    env: {JUPYTER_TOKEN: \"{token}\"}\n"
    "    headers: {Authorization: \"token {token}\"}\n"
    "    readinessPath: \"{base_url}api/status\"\n"
    "    startTimeout: 2m\n"
    "    idleTimeout: 1h\n"
    "    activity: jupyter\n"
    "  tensorboard:\n"
    "    command: [tensorboard, --logdir, \"{logdir}\", --host, 127.0.0.1, --port, \"{port}\",\n"
    "              --path_prefix, \"{base_path}\"]\n"
    "    readinessPath: \"{base_url}\"\n"
    "    startTimeout: 2m\n"
    "    idleTimeout: 1h\n"
    "    activity: proxy\n"
    "  code-server:\n"
    "    command: [code-server, --bind-addr, \"127.0.0.1:{port}\", --auth, password, --disable-telemetry,\n"
    "              --disable-update-check, \"{workdir}\"]\n"
    "    env: {HASHED_PASSWORD: \"{token}\"}\n"
    "    headers: {Cookie: \"code-server-session={token}\"}\n"
    "    readinessPath: /healthz\n"
    "    stripPrefix: true\n"
    "    startTimeout: 2m\n"
    "    idleTimeout: 1h\n"
    "    activity: proxy\n"
    "  terminal:\n"
    "    command: [caldera-terminal, --listen, \"127.0.0.1:{port}\", --base-url, \"{base_url}\",\n"
    "              --token-file, \"{token_file}\", --cwd, \"{workdir}\"]\n"
    "    headers: {Authorization: \"Bearer {token}\"}\n"
    "    readinessPath: \"{base_url}api/status\"\n"
    "    startTimeout: 30s\n"
    "    idleTimeout: 1h\n"
    "    activity: {source: json, path: \"{base_url}api/status\", field: last_activity}\n";
