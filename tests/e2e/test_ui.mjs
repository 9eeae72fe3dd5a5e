#!/usr/bin/env node
// The browser UI (web/) in headless Chromium against an --auth server: signing in with a token, a
// job submitted from the editor followed live to Completed, a pod's log, a pending job's reason,
// the server's field error at its line, suspend and resume from the job page, a change made before
// the job page's stream listens shown once it does, the timeline's
// hover, the queue and node boards, at laptop (1280 px) and phone (390 px) widths, and a list of
// hundreds of jobs read as a Kubernetes Table, drawn lazily and filtered on its data.
import {readdirSync} from 'node:fs';
import path from 'node:path';

import {ROOT, api, createToken, launchBrowser, pageErrors, runTests, screenshot, startServer, waitFor} from './lib/harness.mjs';

const NS = 'team-ui';
const SLOW = 60000; // an ASan server on a loaded 2-core machine
let server, token, browser, page, errors;

function jobYaml(name, command, cpu = '1') {
    return `apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: ${name}
spec:
  minAvailable: 1
  tasks:
  - name: worker
    replicas: 1
    template:
      spec:
        restartPolicy: Never
        containers:
        - name: main
          command: [sh, -c, ${JSON.stringify(command)}]
          resources: {requests: {cpu: "${cpu}"}}
`;
}

async function submitByApi(name, command, cpu) {
    const r = await api(server, 'POST', `/apis/batch.volcano.sh/v1alpha1/namespaces/${NS}/jobs`, jobYaml(name, command, cpu),
        {token});
    if (r.status !== 201)
        throw new Error(`creating ${name}: HTTP ${r.status} ${r.text}`);
}

/** The list row of job `name` as the page shows it: {phase, reason}, or null while it has none. */
function row(name) {
    return page.evaluate((n) => {
        for (const r of document.querySelectorAll('.vlist .jobrow')) {
            if (!r.hidden && r.querySelector('.c0 a')?.textContent === n)
                return {phase: r.querySelector('.c1').textContent, reason: r.querySelector('.c5').textContent};
        }
        return null;
    }, name);
}

async function openJob(name) {
    await page.evaluate((h) => { location.hash = h; }, `#/jobs/${NS}/${name}`);
    await page.locator('.jobhead h1', {hasText: name}).waitFor({timeout: SLOW});
}

const jobPhase = () => page.locator('.jobhead .phase').textContent();

async function confirmDialog() {
    await page.locator('#confirm[open]').waitFor();
    await page.click('#confirm-ok');
}

async function bothWidths(name) {
    await screenshot(page, `${name}-1280`);
    await page.setViewportSize({width: 390, height: 844});
    await page.waitForTimeout(300);
    await screenshot(page, `${name}-390`);
    await page.setViewportSize({width: 1280, height: 900});
}

const TYPES = {'.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
    '.svg': 'image/svg+xml'};

await runTests([
    {
        name: 'signs_in_with_a_bearer_token',
        fn: async () => {
            server = await startServer({auth: true, args: ['--nodes', path.join(ROOT, 'examples/nodes.yaml'),
                '--web', path.join(ROOT, 'web'), '--restart-backoff', '200']});
            token = await createToken(server, {user: 'ui-user', namespaces: [NS]});
            browser = await launchBrowser();
            page = await browser.newPage({viewport: {width: 1280, height: 900}});
            errors = pageErrors(page);
            await page.goto(`${server.url}/ui/`);
            // --auth: no token, no jobs; the page says so instead of showing an empty list.
            await waitFor(async () => !(await page.locator('#banner').isHidden()), {what: 'the sign-in banner'});
            const refused = await page.locator('#banner').textContent();
            if (!/sign in/i.test(refused))
                throw new Error(`the banner without a token says: ${refused}`);
            await page.fill('#namespace', NS);
            await page.press('#namespace', 'Enter');
            await page.click('#signin');
            await page.fill('#token', token);
            await page.click('#signin-ok');
            await waitFor(async () => (await page.locator('.jobs .count').textContent()) === '0 jobs',
                {timeoutMs: SLOW, what: 'the empty list of the namespace'});
            await waitFor(async () => (await page.locator('.jobs .live').textContent()).includes('live'),
                {timeoutMs: SLOW, what: 'the WebSocket stream to be live'});
            if (await page.evaluate(() => localStorage.getItem('caldera-token')) !== token)
                throw new Error('the token is not kept in localStorage');
            if (!(await page.locator('#banner').isHidden()))
                throw new Error(`a banner stays after signing in: ${await page.locator('#banner').textContent()}`);
        },
    },
    {
        name: 'every_ui_file_is_served_with_its_type',
        fn: async () => {
            for (const file of readdirSync(path.join(ROOT, 'web'))) {
                const want = TYPES[path.extname(file)];
                if (!want)
                    throw new Error(`web/${file}: a type this test does not know; add it here and to the server`);
                const r = await fetch(`${server.url}/ui/${file}`); // no token: the UI's files are public
                if (r.status !== 200 || r.headers.get('content-type') !== want)
                    throw new Error(`/ui/${file}: ${r.status} ${r.headers.get('content-type')}, not ${want}`);
            }
            for (const bad of ['/ui/.hidden', '/ui/%2e%2e%2fMakefile', '/ui/nothere.js']) {
                const r = await fetch(`${server.url}${bad}`);
                if (r.status !== 404 && r.status !== 401) // 401: not a UI file, so not public either
                    throw new Error(`${bad}: ${r.status}, not 404`);
            }
        },
    },
    {
        name: 'field_error_is_marked_at_its_line',
        fn: async () => {
            await page.evaluate(() => { location.hash = '#/submit'; });
            const bad = jobYaml('typo', 'true').replace('  minAvailable: 1', '  minAvaliable: 1');
            const line = bad.split('\n').findIndex((l) => l.includes('minAvaliable')) + 1;
            await page.fill('textarea.code', bad);
            await page.click('#submit-job');
            await page.locator('.gutter div.err').waitFor({timeout: SLOW});
            const marked = await page.locator('.gutter div.err').allTextContents();
            if (marked.join(',') !== String(line))
                throw new Error(`lines marked: ${marked.join(',')}; the unknown field is on line ${line}`);
            const listed = await page.locator('ul.errors').textContent();
            if (!listed.includes('spec.minAvaliable'))
                throw new Error(`the errors list does not name the field: ${listed}`);
            await bothWidths('submit-error');
        },
    },
    {
        name: 'submitted_job_goes_running_then_completed_live',
        fn: async () => {
            await page.fill('textarea.code', jobYaml('from-ui', 'echo hello from the ui; sleep 6; echo done'));
            await page.click('#submit-job');
            await page.waitForFunction(() => location.hash === '#/jobs/team-ui/from-ui', null, {timeout: SLOW});
            await page.click('a.back');
            await page.evaluate(() => { window.notReloaded = true; });
            await waitFor(async () => (await row('from-ui'))?.phase === 'Running', {timeoutMs: SLOW, what: 'from-ui Running'});
            await screenshot(page, 'list-running');
            await waitFor(async () => (await row('from-ui'))?.phase === 'Completed', {timeoutMs: SLOW, what: 'from-ui Completed'});
            if (!(await page.evaluate(() => window.notReloaded)))
                throw new Error('the page was reloaded');
            if (await page.evaluate(() => window.calderaJobs.events) === 0)
                throw new Error('no event came over the WebSocket stream');
        },
    },
    {
        name: 'stream_resumes_after_a_drop_without_losing_events',
        fn: async () => {
            await page.evaluate(() => { location.hash = '#/jobs'; });
            await waitFor(async () => (await page.locator('.jobs .live').textContent()).includes('● live'),
                {timeoutMs: SLOW, what: 'the stream to be live'});
            const before = await page.evaluate(() => { window.calderaJobs.stream.hold(); return window.calderaJobs.lastSeq; });
            await submitByApi('while-away', 'true');
            await waitFor(async () => (await api(server, 'GET', `/apis/batch.volcano.sh/v1alpha1/namespaces/${NS}/jobs/while-away`,
                undefined, {token})).json?.status?.state?.phase === 'Completed', {timeoutMs: SLOW, what: 'while-away Completed'});
            if (await row('while-away'))
                throw new Error('the page showed a job created while its stream was down');
            await page.evaluate(() => window.calderaJobs.stream.resume());
            await waitFor(async () => (await row('while-away'))?.phase === 'Completed', {timeoutMs: SLOW, what: 'while-away listed'});
            const seqs = await page.evaluate(() => window.calderaJobs.lastSeq);
            if (!(seqs > before))
                throw new Error(`the stream did not resume after seq ${before}`);
        },
    },
    {
        name: 'pod_log_and_timeline_hover',
        fn: async () => {
            await openJob('from-ui');
            await page.locator('tr[data-pod="from-ui-worker-0"] button', {hasText: 'Log'}).click();
            await waitFor(async () => (await page.locator('pre.log').textContent()).includes('hello from the ui\ndone'),
                {timeoutMs: SLOW, what: 'the pod log'});
            await page.locator('rect.bar').first().hover();
            const tip = await page.locator('.tip').textContent();
            if (!/exit code 0/.test(tip) || !/Completed/.test(tip))
                throw new Error(`the timeline's hover says: ${tip}`);
            await bothWidths('job-completed');
        },
    },
    {
        name: 'earlier_attempt_in_the_timeline_and_its_log',
        fn: async () => {
            // Fails once (exit 3), then succeeds in place: two attempts of one pod.
            const yaml = jobYaml('twice', 'if [ -e tried ]; then echo second try; else touch tried; echo first try; exit 3; fi')
                .replace('restartPolicy: Never', 'restartPolicy: OnFailure');
            const r = await api(server, 'POST', `/apis/batch.volcano.sh/v1alpha1/namespaces/${NS}/jobs`, yaml, {token});
            if (r.status !== 201)
                throw new Error(`creating twice: HTTP ${r.status} ${r.text}`);
            await openJob('twice');
            await waitFor(async () => (await jobPhase()) === 'Completed', {timeoutMs: SLOW, what: 'twice Completed'});
            await page.locator('rect.bar.ok').waitFor({timeout: SLOW});
            const failed = page.locator('rect.bar.fail[data-attempt="1"]');
            await failed.hover();
            const tip = await page.locator('.tip').textContent();
            if (!/attempt 1/.test(tip) || !/exit code 3/.test(tip))
                throw new Error(`the first attempt's hover says: ${tip}`);
            await failed.click();
            await waitFor(async () => (await page.locator('pre.log').textContent()).trim() === 'first try',
                {timeoutMs: SLOW, what: "the first attempt's log"});
            await page.selectOption('select[aria-label=attempt]', '2');
            await waitFor(async () => (await page.locator('pre.log').textContent()).trim() === 'second try',
                {timeoutMs: SLOW, what: "the second attempt's log"});
            await bothWidths('job-two-attempts');
        },
    },
    {
        // The job page reads the job and then subscribes to its stream: a change in between (CI's
        // loaded machine widened that gap to seconds), or while the stream is down before it saw an
        // event to resume from, sends it no event. A second page with the same sign-in opens the job
        // with its stream held off, the job is terminated through the API, then the stream is let
        // through: the page must read the job again once it listens.
        name: 'a_change_before_the_stream_listens_reaches_the_job_page',
        fn: async () => {
            await submitByApi('gap', 'sleep 300');
            const jobPath = `/apis/batch.volcano.sh/v1alpha1/namespaces/${NS}/jobs/gap`;
            const phaseByApi = async () => (await api(server, 'GET', jobPath, undefined, {token})).json?.status?.state?.phase;
            await waitFor(async () => (await phaseByApi()) === 'Running', {timeoutMs: SLOW, what: 'gap Running'});
            const signedIn = await browser.newContext({viewport: {width: 1280, height: 900}});
            const stored = await page.evaluate(() => ({...localStorage}));
            await signedIn.addInitScript((kept) => { for (const [k, v] of Object.entries(kept)) localStorage.setItem(k, v); }, stored);
            const second = await signedIn.newPage();
            let held = true;
            await second.routeWebSocket(/\/stream/, (ws) => {
                if (held) ws.close({code: 1011, reason: 'held by the test'});
                else ws.connectToServer();
            });
            try {
                await second.goto(`${server.url}/ui/#/jobs/${NS}/gap`);
                const shown = second.locator('.jobhead .phase');
                await waitFor(async () => (await shown.textContent()) === 'Running', {timeoutMs: SLOW, what: 'gap Running on the page'});
                const r = await api(server, 'POST', `/apis/caldera.io/v1/namespaces/${NS}/jobs/gap/terminate`, undefined, {token});
                if (r.status >= 300)
                    throw new Error(`terminating gap: HTTP ${r.status} ${r.text}`);
                await waitFor(async () => (await phaseByApi()) === 'Terminated', {timeoutMs: SLOW, what: 'gap Terminated'});
                if ((await shown.textContent()) !== 'Running')
                    throw new Error(`the page moved on without its stream: ${await shown.textContent()}`);
                held = false;
                await waitFor(async () => (await shown.textContent()) === 'Terminated',
                    {timeoutMs: SLOW, what: 'gap Terminated on the page once its stream listens'});
            } finally {
                await signedIn.close();
            }
        },
    },
    {
        name: 'running_pod_log_is_followed',
        fn: async () => {
            await submitByApi('ticker', 'i=0; while [ $i -lt 40 ]; do i=$((i+1)); echo tick $i; sleep 0.5; done');
            await openJob('ticker');
            await waitFor(async () => (await jobPhase()) === 'Running', {timeoutMs: SLOW, what: 'ticker Running'});
            await page.locator('tr[data-pod="ticker-worker-0"] button', {hasText: 'Log'}).click();
            await waitFor(async () => /tick [1-9]/.test(await page.locator('pre.log').textContent()),
                {timeoutMs: SLOW, what: 'the first lines'});
            const ticks = async () => ((await page.locator('pre.log').textContent()).match(/tick \d+/g) || []).length;
            const seen = await ticks();
            await waitFor(async () => (await ticks()) >= seen + 4,
                {timeoutMs: SLOW, what: `more than ${seen + 3} lines without asking again`});
            // "following…" where the server streams ?follow=true, "re-reading every 2 s" where it cannot
            console.error(`# the log view: ${await page.locator('.logstate').textContent()}`);
        },
    },
    {
        name: 'pending_job_shows_its_reason',
        fn: async () => {
            await submitByApi('too-big', 'true', '64'); // no node has 64 CPUs
            await page.evaluate(() => { location.hash = '#/jobs'; });
            const r = await waitFor(async () => { const x = await row('too-big'); return x?.reason ? x : null; },
                {timeoutMs: SLOW, what: 'the pending reason in the list'});
            if (r.phase !== 'Pending' || !/cpu/.test(r.reason))
                throw new Error(`the row says ${JSON.stringify(r)}`);
            await page.selectOption('select[aria-label=phase]', 'Pending');
            await waitFor(async () => (await page.locator('.jobs .count').textContent()).startsWith('1 of'),
                {what: 'the phase filter to keep one job'});
            await bothWidths('list-pending');
            await page.selectOption('select[aria-label=phase]', '');
            await openJob('too-big');
            await page.locator('.reason:not([hidden])').waitFor({timeout: SLOW});
            const reason = await page.locator('.reason').textContent();
            if (!/cpu 64 needed|insufficient cpu/.test(reason))
                throw new Error(`the job page's reason: ${reason}`);
        },
    },
    {
        name: 'suspend_and_resume_from_the_job_page',
        fn: async () => {
            await submitByApi('sleeper', 'sleep 300');
            await openJob('sleeper');
            await waitFor(async () => (await jobPhase()) === 'Running', {timeoutMs: SLOW, what: 'sleeper Running'});
            await page.click('button[data-action=suspend]');
            await confirmDialog();
            await waitFor(async () => (await jobPhase()) === 'Aborted', {timeoutMs: SLOW, what: 'sleeper Aborted'});
            await page.click('button[data-action=resume]');
            await confirmDialog();
            await waitFor(async () => (await jobPhase()) === 'Running', {timeoutMs: SLOW, what: 'sleeper Running again'});
            const history = await page.locator('.card', {hasText: 'Phase history'}).textContent();
            if (!history.includes('Aborted'))
                throw new Error(`the phase history lacks the suspension: ${history}`);
            await bothWidths('job-resumed');
            await page.click('button[data-action=terminate]');
            await confirmDialog();
            await waitFor(async () => (await jobPhase()) === 'Terminated', {timeoutMs: SLOW, what: 'sleeper Terminated'});
        },
    },
    {
        name: 'companion_link_on_the_job_page',
        fn: async () => {
            const yaml = jobYaml('with-terminal', 'sleep 300').replace('  name: with-terminal\n',
                '  name: with-terminal\n  annotations: {caldera.io/companions: terminal}\n');
            const r = await api(server, 'POST', `/apis/batch.volcano.sh/v1alpha1/namespaces/${NS}/jobs`, yaml, {token});
            if (r.status !== 201)
                throw new Error(`creating with-terminal: HTTP ${r.status} ${r.text}`);
            await openJob('with-terminal');
            const card = page.locator('.card', {hasText: 'Companions'});
            await waitFor(async () => /terminal\s+Ready/.test(await card.textContent()), {timeoutMs: SLOW, what: 'the terminal Ready'});
            const href = await card.locator('a', {hasText: 'open'}).getAttribute('href');
            if (!href.startsWith(`/proxy/${NS}/`) || !href.endsWith(`?token=${token}`))
                throw new Error(`the companion's link is ${href}`);
            const opened = await browser.newPage();
            const answer = await opened.goto(`${server.url}${href}`);
            if (!answer.ok())
                throw new Error(`opening the companion's link: HTTP ${answer.status()}`);
            await opened.close();
            await screenshot(page, 'job-companion');
            await api(server, 'DELETE', `/apis/batch.volcano.sh/v1alpha1/namespaces/${NS}/jobs/with-terminal`, undefined, {token});
        },
    },
    {
        name: 'queue_and_node_boards',
        fn: async () => {
            // Queues and nodes are read by anyone; the cluster's stream is an admin's, so this user's
            // boards follow the namespace's events instead.
            await page.evaluate(() => { location.hash = '#/queues'; });
            await waitFor(async () => (await page.locator('.live').textContent()) === `● live (${NS})`,
                {timeoutMs: SLOW, what: "the namespace's stream for a user's board"});
            await page.locator('.queue[data-queue=default]').waitFor({timeout: SLOW});
            const queue = await page.locator('.queue[data-queue=default]').textContent();
            if (!/weight/.test(queue) || !/Open/.test(queue))
                throw new Error(`the default queue's card: ${queue}`);
            await bothWidths('queues');
            await page.evaluate(() => { location.hash = '#/nodes'; });
            await page.locator('.node[data-node=node-c]').waitFor({timeout: SLOW});
            const node = await page.locator('.node[data-node=node-c]').textContent();
            if (!/nvidia\.com\/gpu/.test(node) || !/0 \/ 4/.test(node))
                throw new Error(`node-c's card: ${node}`);
            await bothWidths('nodes');
        },
    },
    {
        name: 'filter_over_many_jobs_finds_one_out_of_view',
        fn: async () => {
            // Enough jobs that most rows are out of view, listed afresh: read as a Kubernetes Table in
            // two pages (the first screen, then the rest), drawn lazily, filtered on the data.
            const BULK = 300;
            let next = 0;
            await Promise.all(Array.from({length: 8}, async () => {
                while (next < BULK) await submitByApi(`bulk-${String(next++).padStart(3, '0')}`, 'true', '64');
            }));
            const lists = [];
            const onRequest = (r) => { if (/\/jobs\?limit=/.test(r.url())) lists.push({url: r.url(), accept: r.headers().accept || ''}); };
            page.on('request', onRequest);
            await page.evaluate(() => { location.hash = '#/queues'; });
            await page.evaluate(() => { location.hash = '#/jobs'; });
            await page.waitForFunction((n) => window.calderaJobs?.loaded && window.calderaJobs.jobs.size >= n, BULK,
                {timeout: SLOW});
            page.off('request', onRequest);
            if (lists.length !== 2 || !lists.every((l) => l.accept.includes('as=Table')) || !lists[1].url.includes('continue='))
                throw new Error(`the list was read as ${JSON.stringify(lists)}`);
            const inDom = await page.evaluate(() => document.querySelectorAll('.vlist .jobrow:not([hidden])').length);
            const total = await page.evaluate(() => window.calderaJobs.jobs.size);
            if (!(inDom > 0 && inDom < total / 2))
                throw new Error(`${inDom} rows in the page for ${total} jobs: not drawn lazily`);
            if (await row('bulk-000'))
                throw new Error('the oldest job is drawn though it is out of view');
            await page.fill('.jobs input[type=search]', 'bulk-000');
            await waitFor(async () => (await page.locator('.jobs .count').textContent()).startsWith('1 of'),
                {what: 'the text filter to keep one job of many'});
            const found = await row('bulk-000');
            if (found?.phase !== 'Pending' || !/cpu/.test(found.reason))
                throw new Error(`the filtered row says ${JSON.stringify(found)}`);
            const href = await page.locator('.vlist .jobrow:not([hidden]) .c0 a').first().getAttribute('href');
            if (href !== `#/jobs/${NS}/bulk-000`)
                throw new Error(`the row links to ${href}`);
            await page.fill('.jobs input[type=search]', '');
            await waitFor(async () => !(await page.locator('.jobs .count').textContent()).includes(' of '),
                {what: 'the filter to be cleared'});
        },
    },
    {
        name: 'no_uncaught_error_in_the_page',
        fn: async () => {
            // Refused requests (401 before signing in) and aborted log reads are expected; exceptions are not.
            const uncaught = errors.filter((e) => e.startsWith('uncaught'));
            if (uncaught.length)
                throw new Error(uncaught.join('; '));
        },
    },
]);
