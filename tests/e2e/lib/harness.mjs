// The browser tests' harness: a jobserver on a free loopback port in a temporary data directory,
// its API, headless Chromium through playwright-core, and a runner printing run-tests' ok/not ok lines.
//
// A test file (tests/e2e/test_NAME.mjs, executable) imports this and ends with
//     runTests([{name: 'what_it_shows', fn: async () => {...}}, ...]);
// Each case throws to fail, or throws new Skip('why') to skip. Servers and browsers started through
// this module are stopped when the run ends, whatever happened; screenshots go to build/e2e/screenshots/.
import {spawn} from 'node:child_process';
import {
    accessSync, chmodSync, closeSync, constants as fsConstants, copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync,
    openSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync,
} from 'node:fs';
import {createRequire} from 'node:module';
import {constants as osConstants, tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const BIN_DIR = process.env.CALDERA_BIN_DIR || path.join(ROOT, 'build/asan/bin');
export const NPM_PREFIX = path.join(ROOT, 'build/npm');
export const PLAYWRIGHT_VERSION = '1.65.1'; // the Makefile's PLAYWRIGHT_VERSION
export const CHROMIUM = process.env.CALDERA_CHROMIUM || '/usr/bin/chromium';
const TEST_NAME = path.basename(process.argv[1] || 'e2e', '.mjs');
const START_TIMEOUT_MS = 30000; // an ASan server on a loaded 2-core machine
const STOP_TIMEOUT_MS = 30000;
const CASE_TIMEOUT_MS = Number(process.env.CALDERA_E2E_CASE_TIMEOUT_MS) || 120000;

/** Thrown by a case (or launchBrowser) to skip it: runTests prints "ok - name # SKIP reason". */
export class Skip extends Error {}

const servers = new Set();
const browsers = new Set();

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls fn (sync or async) every intervalMs until it returns a truthy value, which is returned.
 * Throws after timeoutMs, naming `what` and the last value or error seen.
 */
export async function waitFor(fn, {timeoutMs = 20000, intervalMs = 100, what = 'a condition'} = {}) {
    const deadline = Date.now() + timeoutMs;
    let last;
    for (;;) {
        try {
            const value = await fn();
            if (value)
                return value;
            last = value;
        } catch (e) {
            last = e;
        }
        if (Date.now() >= deadline)
            throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${describe(last)}`);
        await sleep(intervalMs);
    }
}

function describe(value) {
    if (value instanceof Error)
        return value.message;
    try {
        return JSON.stringify(value);
    } catch {
        return String(value);
    }
}

function logTail(server, bytes = 3000) {
    try {
        const text = readFileSync(server.logPath, 'utf8');
        return text.slice(-bytes);
    } catch (e) {
        return `(no log: ${e.message})`;
    }
}

/**
 * Starts $CALDERA_BIN_DIR/jobserver on 127.0.0.1 with a free port in a new data directory under
 * /tmp, with --shutdown-grace 2 and 100 companion ports in 44000-45999 unless args sets them, then `args`;
 * `env` is added to its environment; `programs` ({name: path}) are companion programs it should find
 * (see privateBinDir). auth: with --auth, and server.token is the admin token
 * (DIR/admin.token). Waits for DIR/jobserver.url and GET /healthz. Returns
 * {url, dataDir, logPath, token, proc, stop()}; stop() ends it (SIGTERM, SIGKILL after 30 s) and
 * removes the directory. Every server still running when the process exits is killed.
 */
export async function startServer({args = [], env = {}, auth = false, programs = {}} = {}) {
    if (!existsSync(path.join(BIN_DIR, 'jobserver')))
        throw new Error(`${BIN_DIR}/jobserver is missing: build it first (make build/asan/bin/jobserver)`);
    const dataDir = mkdtempSync(path.join(tmpdir(), 'caldera-e2e-'));
    const jobserver = path.join(Object.keys(programs).length ? privateBinDir(dataDir, programs) : BIN_DIR, 'jobserver');
    const logPath = path.join(dataDir, 'jobserver.log');
    const defaults = [];
    if (!args.includes('--shutdown-grace'))
        defaults.push('--shutdown-grace', '2');
    if (!args.includes('--companion-ports')) { // 100 of 44000-45999 at random: servers side by side rarely meet
        const first = 44000 + 100 * Math.floor(Math.random() * 20);
        defaults.push('--companion-ports', `${first}-${first + 99}`);
    }
    const argv = ['--listen', '127.0.0.1:0', '--data', dataDir, ...defaults, ...(auth ? ['--auth'] : []), ...args];
    const logFd = openSync(logPath, 'a');
    // setpriv --pdeathsig: the server dies with this process even when it is SIGKILLed (a timeout)
    const setpriv = findExecutable('setpriv');
    const [file, fileArgs] = setpriv ? [setpriv, ['--pdeathsig', 'KILL', '--', jobserver, ...argv]] : [jobserver, argv];
    const proc = spawn(file, fileArgs, {stdio: ['ignore', logFd, logFd], env: {...process.env, ...env}});
    closeSync(logFd);
    const server = {url: '', dataDir, logPath, token: undefined, proc, exited: false};
    proc.on('exit', () => { server.exited = true; });
    server.stop = () => stopServer(server);
    servers.add(server);
    try {
        server.url = await waitFor(async () => {
            if (server.exited)
                throw new Error(`jobserver exited (${proc.exitCode ?? proc.signalCode}) before it was ready`);
            const url = readIfExists(path.join(dataDir, 'jobserver.url')).trim();
            if (!url.startsWith('http://'))
                return '';
            const r = await fetch(`${url}/healthz`, {signal: AbortSignal.timeout(2000)});
            return r.status === 200 ? url : '';
        }, {timeoutMs: START_TIMEOUT_MS, intervalMs: 50, what: 'the jobserver to answer /healthz'});
        if (auth)
            server.token = readFileSync(path.join(dataDir, 'admin.token'), 'utf8').trim();
    } catch (e) {
        const tail = logTail(server);
        await stopServer(server);
        throw new Error(`${e.message}\n---- jobserver log ----\n${tail}`);
    }
    return server;
}

/**
 * A bin directory of its own for a server whose companions need programs that are not installed
 * system-wide: the server finds companion programs in its own directory (/proc/self/exe) before
 * /usr/local/bin:/usr/bin:/bin, not in its PATH. Holds a link (or copy) of the jobserver, links to
 * the rest of BIN_DIR, and one link per program ({name: path}). Removed with the data directory.
 */
function privateBinDir(dataDir, programs) {
    const dir = path.join(dataDir, 'bin');
    mkdirSync(dir);
    for (const name of readdirSync(BIN_DIR)) {
        if (name !== 'jobserver')
            symlinkSync(path.join(BIN_DIR, name), path.join(dir, name));
    }
    try {
        linkSync(path.join(BIN_DIR, 'jobserver'), path.join(dir, 'jobserver'));
    } catch {
        copyFileSync(path.join(BIN_DIR, 'jobserver'), path.join(dir, 'jobserver'));
        chmodSync(path.join(dir, 'jobserver'), 0o755);
    }
    for (const [name, program] of Object.entries(programs))
        symlinkSync(path.resolve(program), path.join(dir, name));
    return dir;
}

function readIfExists(file) {
    try {
        return readFileSync(file, 'utf8');
    } catch {
        return '';
    }
}

async function stopServer(server) {
    if (!servers.delete(server))
        return;
    if (!server.exited) {
        server.proc.kill('SIGTERM');
        const deadline = Date.now() + STOP_TIMEOUT_MS;
        while (!server.exited && Date.now() < deadline)
            await sleep(20);
        if (!server.exited) {
            console.error(`# jobserver pid ${server.proc.pid} still running ${STOP_TIMEOUT_MS} ms after SIGTERM; killed`);
            server.proc.kill('SIGKILL');
        }
    }
    rmSync(server.dataDir, {recursive: true, force: true});
}

// A timeout's SIGTERM: servers stop as at the end (their tasks and companions with them), then exit.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
        console.log(`not ok - ${TEST_NAME}: stopped by ${signal}`);
        Promise.all([...servers].map((server) => stopServer(server)))
            .finally(() => process.exit(128 + osConstants.signals[signal]));
    });
}
process.on('exit', () => {
    for (const server of servers) {
        if (!server.exited)
            server.proc.kill('SIGKILL');
        rmSync(server.dataDir, {recursive: true, force: true});
    }
});

/**
 * One request to the server's API: `body` a string goes as YAML, anything else as JSON. The bearer
 * token is `token` when given (null: none), else server.token. Returns {status, json, text}
 * (json null when the answer is not JSON).
 */
/** A Volcano Job of one task that writes `<marker>.txt` in its working directory and sleeps, with
 * the companion of type `companion` (annotation caldera.io/companions), as YAML. */
export function companionJob(name, companion, marker) {
    return `apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: ${name}
  annotations: {caldera.io/companions: ${companion}}
spec:
  minAvailable: 1
  tasks:
  - name: main
    replicas: 1
    template:
      spec:
        restartPolicy: Never
        containers:
        - name: c
          image: x
          command: [sh, -c, 'echo from the task > ${marker}.txt; sleep 600']
`;
}

export async function api(server, method, urlPath, body, {token} = {}) {
    const headers = {};
    const bearer = token === undefined ? server.token : token;
    if (bearer)
        headers.Authorization = `Bearer ${bearer}`;
    if (body !== undefined)
        headers['Content-Type'] = typeof body === 'string' ? 'application/yaml' : 'application/json';
    const r = await fetch(server.url + urlPath, {
        method,
        headers,
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
        redirect: 'manual',
        signal: AbortSignal.timeout(20000),
    });
    const text = await r.text();
    let json = null;
    try {
        json = JSON.parse(text);
    } catch {
        // not JSON: text has it
    }
    return {status: r.status, json, text};
}

/** A token for user in namespaces, its tasks run as uid/gid (admin only, on an --auth server). */
export async function createToken(server, {user, namespaces, uid = 65534, gid = 65534, role}) {
    const r = await api(server, 'POST', '/apis/caldera.io/v1/tokens', {user, namespaces, uid, gid, ...(role ? {role} : {})});
    if (r.status !== 201 || !r.json?.status?.token)
        throw new Error(`creating a token for ${user}: HTTP ${r.status}: ${r.text}`);
    return r.json.status.token;
}

/** The path of program (a path, or a name looked up in PATH) when it is an executable file, else ''. */
export function findExecutable(program) {
    const dirs = program.includes('/') ? [''] : (process.env.PATH || '').split(':').filter(Boolean);
    for (const dir of dirs) {
        const file = dir ? path.join(dir, program) : program;
        try {
            accessSync(file, fsConstants.X_OK);
            if (statSync(file).isFile())
                return path.resolve(file);
        } catch {
            // not here
        }
    }
    return '';
}

/** playwright-core from build/npm, or a Skip saying how to install it. */
async function loadPlaywright() {
    const require = createRequire(path.join(NPM_PREFIX, 'package.json'));
    let entry;
    try {
        entry = require.resolve('playwright-core');
    } catch {
        throw new Skip(`playwright-core is not installed under build/npm ` +
            `(make e2e-deps, or: npm install --prefix build/npm playwright-core@${PLAYWRIGHT_VERSION})`);
    }
    const mod = await import(pathToFileURL(entry).href);
    return mod.chromium ? mod : mod.default;
}

/**
 * Headless Chromium ($CALDERA_CHROMIUM, default Debian's /usr/bin/chromium) driven by
 * playwright-core; throws Skip naming what to install when either is missing. Closed by runTests.
 */
export async function launchBrowser() {
    const executable = findExecutable(CHROMIUM);
    if (!executable)
        throw new Skip(`Chromium is not installed at ${CHROMIUM} (tools/ensure-deps chromium, ` +
            `or: apt-get install chromium; or set CALDERA_CHROMIUM)`);
    const {chromium} = await loadPlaywright();
    const browser = await chromium.launch({
        executablePath: executable,
        headless: true,
        args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
        timeout: 60000,
    });
    browsers.add(browser);
    return browser;
}

/**
 * Collects what goes wrong in page from now on: uncaught exceptions, console.error() calls and
 * failed requests, as strings in the array returned (check it is empty at the end of a case).
 */
export function pageErrors(page) {
    const errors = [];
    page.on('pageerror', (e) => errors.push(`uncaught: ${e.message}`));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(`console.error: ${m.text()}`); });
    page.on('requestfailed', (r) => errors.push(`request failed: ${r.method()} ${r.url()}: ${r.failure()?.errorText}`));
    return errors;
}

/** Saves a PNG of page to build/e2e/screenshots/<test>-<name>.png; returns its path. */
export async function screenshot(page, name) {
    const dir = path.join(ROOT, 'build/e2e/screenshots');
    mkdirSync(dir, {recursive: true});
    const file = path.join(dir, `${TEST_NAME}-${name}.png`);
    await page.screenshot({path: file, fullPage: true});
    return file;
}

function withTimeout(promise, ms, name) {
    let timer;
    const timeout = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${name} took longer than ${ms} ms`)), ms);
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Runs cases ([{name, fn, timeoutMs?}]) in order, each within its timeout (default 120 s,
 * $CALDERA_E2E_CASE_TIMEOUT_MS), printing "ok - name", "ok - name # SKIP reason" or
 * "not ok - name: error" (details on stderr as # lines). Then closes every browser and stops every
 * server started here, and exits: 1 when a case failed, else 0.
 */
export async function runTests(cases) {
    let failed = 0;
    for (const c of cases) {
        try {
            await withTimeout(Promise.resolve().then(c.fn), c.timeoutMs || CASE_TIMEOUT_MS, c.name);
            console.log(`ok - ${c.name}`);
        } catch (e) {
            if (e instanceof Skip) {
                console.log(`ok - ${c.name} # SKIP ${e.message}`);
                continue;
            }
            failed++;
            const message = e?.message ?? String(e);
            console.log(`not ok - ${c.name}: ${message.split('\n')[0]}`);
            console.error(String(e?.stack ?? e).split('\n').map((l) => `# ${l}`).join('\n'));
            for (const server of servers)
                console.error(`# ---- ${server.logPath} (tail) ----\n${logTail(server).replace(/^/gm, '# ')}`);
        }
    }
    for (const browser of browsers)
        await withTimeout(browser.close(), 20000, 'closing the browser').catch((e) => console.error(`# ${e.message}`));
    browsers.clear();
    for (const server of [...servers])
        await stopServer(server).catch((e) => console.error(`# stopping a server: ${e.message}`));
    process.exit(failed ? 1 : 0);
}
