#!/usr/bin/env node
// The browser UI's jobs list with 10,000 jobs, in headless Chromium against a release jobserver
// (bin/jobserver) whose one node is too small for any of them, so they all stay Pending and the
// machine stays idle:
//   ui_first_paint_ms        - navigation to the first page of rows on screen (median of 5 loads)
//   ui_jobs_10000_render_ms  - navigation to all 10,000 jobs listed, filterable and live (median of 5)
//   ui_jobs_10000_script_ms  - of that, the page's own work on the 10,000 (rows read and drawn; the
//                              rest is loading the page and the server answering the list as a
//                              Kubernetes Table: 250 rows for the first screen, then the rest in one page)
//   ui_filter_10000_ms       - a text filter over the 10,000 applied and drawn (median of 5)
//   ui_ws_updates_per_s      - WebSocket events the open page applied per second while 2,000 of the
//                              jobs were suspended at once, counted until it had seen the last one
//   ui_ws_catch_up_ms        - from the last command's answer to the page having applied the last event
//   ui_ws_apply_capacity_per_s - events the page applies and draws per second when fed 100,000 pod
//                              events in batches of 2,000 (one per frame), the stream's ceiling
// Needs playwright-core (build/npm) and Chromium; says why on stderr and prints nothing without them.
import {existsSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';

const JOBS = 10000;
const SUSPENDED = 2000;
const RUNS = 5;
const only = process.env.BENCH_ONLY || '';
const wanted = (name) => name.startsWith(only);
const WS = ['ui_ws_updates_per_s', 'ui_ws_catch_up_ms', 'ui_ws_apply_capacity_per_s'];
if (![...WS, 'ui_first_paint_ms', 'ui_jobs_10000_render_ms', 'ui_jobs_10000_script_ms', 'ui_filter_10000_ms'].some(wanted))
    process.exit(0);

/** The source tree: the first folder above this file (or the working directory) holding web/index.html. */
function sourceRoot() {
    for (let dir of [path.dirname(fileURLToPath(import.meta.url)), process.cwd()]) {
        for (; dir !== path.dirname(dir); dir = path.dirname(dir))
            if (existsSync(path.join(dir, 'web/index.html')) && existsSync(path.join(dir, 'tests/e2e/lib/harness.mjs')))
                return dir;
    }
    throw new Error('cannot find the source tree (web/index.html)');
}
const ROOT = sourceRoot();
process.env.CALDERA_BIN_DIR ||= path.join(ROOT, 'bin');
const {Skip, api, launchBrowser, startServer} = await import(pathToFileURL(path.join(ROOT, 'tests/e2e/lib/harness.mjs')).href);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const print = (name, value, unit) => { if (wanted(name)) console.log(`bench: ${name} ${value} ${unit}`); };

/** Runs `work(i)` for i in [0, n) with `width` of them in flight. */
async function parallel(n, width, work) {
    let next = 0;
    await Promise.all(Array.from({length: width}, async () => { while (next < n) await work(next++); }));
}

const work = mkdtempSync(path.join(tmpdir(), 'caldera-bench-ui-'));
const nodes = path.join(work, 'nodes.yaml');
writeFileSync(nodes, `apiVersion: v1
kind: Node
metadata: {name: tiny}
status:
  allocatable: {cpu: "1", memory: 1Gi, pods: "110"}
`);
let server, browser;
try {
    try {
        browser = await launchBrowser();
    } catch (e) {
        if (e instanceof Skip) {
            console.error(`bench_ui: skipped: ${e.message}`);
            process.exit(0);
        }
        throw e;
    }
    server = await startServer({args: ['--nodes', nodes, '--web', path.join(ROOT, 'web'), '--schedule-period', '1000', '--commit-delay', '5ms']});

    const jobsPath = '/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs';
    await parallel(JOBS, 16, async (i) => {
        const r = await api(server, 'POST', jobsPath, {
            apiVersion: 'batch.volcano.sh/v1alpha1', kind: 'Job', metadata: {name: `ui-${String(i).padStart(5, '0')}`},
            spec: {minAvailable: 1, tasks: [{name: 'w', replicas: 1, template: {spec: {restartPolicy: 'Never',
                containers: [{name: 'c', command: ['true'], resources: {requests: {cpu: '2'}}}]}}}]},
        });
        if (r.status !== 201)
            throw new Error(`creating job ${i}: HTTP ${r.status} ${r.text.slice(0, 300)}`);
    });

    const context = await browser.newContext({viewport: {width: 1280, height: 900}});
    const firstPaint = [], render = [], script = [], filter = [];
    let page;
    for (let run = 0; run < RUNS; run++) {
        if (page)
            await page.close();
        page = await context.newPage();
        await page.goto(`${server.url}/ui/#/jobs`);
        await page.waitForFunction(() => window.calderaJobs?.allLoaded != null, null, {timeout: 120000});
        const t = await page.evaluate(() => ({first: window.calderaJobs.firstPaint, all: window.calderaJobs.allLoaded,
            script: window.calderaJobs.scriptMs,
            count: window.calderaJobs.jobs.size, rows: document.querySelectorAll('.vlist .jobrow:not([hidden])').length}));
        if (t.count !== JOBS || t.rows === 0)
            throw new Error(`the page lists ${t.count} jobs in ${t.rows} rows`);
        firstPaint.push(t.first);
        render.push(t.all);
        script.push(t.script);
        filter.push(await page.evaluate(() => new Promise((resolve) => {
            const input = document.querySelector('.jobs input[type=search]');
            const start = performance.now();
            input.value = 'ui-0999';
            input.dispatchEvent(new Event('input'));
            requestAnimationFrame(() => requestAnimationFrame(() => {
                const shown = document.querySelector('.jobs .count').textContent;
                input.value = '';
                input.dispatchEvent(new Event('input'));
                resolve(shown.startsWith('10 of') ? performance.now() - start : NaN);
            }));
        })));
    }
    print('ui_first_paint_ms', median(firstPaint).toFixed(1), 'ms');
    print('ui_jobs_10000_render_ms', median(render).toFixed(1), 'ms');
    print('ui_jobs_10000_script_ms', median(script).toFixed(1), 'ms');
    print('ui_filter_10000_ms', median(filter).toFixed(1), 'ms');

    if (WS.some(wanted)) {
        await page.waitForFunction(() => document.querySelector('.jobs .live')?.textContent.includes('live'), null, {timeout: 60000});
        const before = await page.evaluate(() => window.calderaJobs.events);
        const start = Date.now();
        await parallel(SUSPENDED, 64, async (i) => {
            const r = await api(server, 'POST', `/apis/caldera.io/v1/namespaces/default/jobs/ui-${String(i).padStart(5, '0')}/suspend`);
            if (r.status !== 200)
                throw new Error(`suspending job ${i}: HTTP ${r.status} ${r.text.slice(0, 300)}`);
        });
        const sent = Date.now();
        // Quiet: the newest event once every suspended job is Aborted.
        let newest = 0;
        for (let quiet = 0; quiet < 3;) {
            await new Promise((resolve) => setTimeout(resolve, 500));
            const rv = +(await api(server, 'GET', '/api/v1/namespaces/default/events?limit=1')).json.metadata.resourceVersion;
            quiet = rv === newest ? quiet + 1 : 0;
            newest = rv;
        }
        await page.waitForFunction((seq) => window.calderaJobs.lastSeq >= seq, newest, {timeout: 120000, polling: 20});
        const done = await page.evaluate(() => ({events: window.calderaJobs.events, at: window.calderaJobs.appliedAt}));
        const caught = done.at;
        const applied = done.events - before;
        const aborted = await page.evaluate(() => [...window.calderaJobs.jobs.values()].filter((j) => j.phase === 'Aborted').length);
        if (aborted !== SUSPENDED)
            throw new Error(`the page shows ${aborted} jobs Aborted of ${SUSPENDED} suspended`);
        print('ui_ws_updates_per_s', Math.round(applied / ((caught - start) / 1000)), 'events/s');
        console.error(`bench_ui: ${applied} events in ${caught - start} ms; the ${SUSPENDED} commands took ${sent - start} ms`);
        print('ui_ws_catch_up_ms', Math.max(0, caught - sent), 'ms');
        const capacity = await page.evaluate(async () => {
            const stats = window.calderaJobs, names = [...stats.jobs.keys()];
            let seq = stats.lastSeq + 1e9; // above every job's resourceVersion, as new events are
            const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
            const start = performance.now();
            for (let b = 0; b < 50; b++) {
                const batch = [];
                for (let i = 0; i < 2000; i++) {
                    const up = (b + i) % 2 === 0;
                    batch.push({seq: seq++, kind: 'Pod', namespace: 'default', name: 'x', job: names[(b * 2000 + i) % names.length],
                        from: up ? 'Pending' : 'Running', to: up ? 'Running' : 'Pending', reason: '', message: ''});
                }
                stats.apply(batch);
                await frame();
            }
            return 100000 / ((performance.now() - start) / 1000);
        });
        print('ui_ws_apply_capacity_per_s', Math.round(capacity), 'events/s');
    }
} finally {
    if (browser)
        await browser.close().catch(() => {});
    if (server)
        await server.stop();
    rmSync(work, {recursive: true, force: true});
}
