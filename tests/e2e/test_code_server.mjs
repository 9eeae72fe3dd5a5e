#!/usr/bin/env node
// The code-server companion in headless Chromium through the gateway's proxy: VS Code's workbench
// loads on the job's directory with no login page (the proxy adds the session cookie), while its own
// port still asks for the password. Skipped unless code-server is in build/npm,
// $CALDERA_CODE_SERVER or PATH.
import path from 'node:path';

import {api, companionJob, findExecutable, launchBrowser, NPM_PREFIX, runTests, screenshot, Skip, startServer, waitFor} from './lib/harness.mjs';

export const CODE_SERVER_VERSION = '4.100.3'; // the Makefile's CODE_SERVER_VERSION: the last for Node 20
const READY_MS = 90000; // code-server's first start writes its settings; ~3 s here
const marker = `e2e-${process.pid}-${Math.floor(Math.random() * 1e6)}`;

async function the_workbench_loads_through_the_proxy() {
    const program = findExecutable(process.env.CALDERA_CODE_SERVER || path.join(NPM_PREFIX, 'node_modules/.bin/code-server')) ||
        findExecutable('code-server');
    if (!program)
        throw new Skip(`code-server is not installed under build/npm (CALDERA_E2E_CODE_SERVER=1 make e2e-deps, or: ` +
            `npm install --unsafe-perm --prefix build/npm code-server@${CODE_SERVER_VERSION})`);
    const browser = await launchBrowser();
    const server = await startServer({programs: {'code-server': program}});
    const r = await api(server, 'POST', '/apis/batch.volcano.sh/v1alpha1/namespaces/default/jobs', companionJob('vs', 'code-server', marker));
    if (r.status !== 201)
        throw new Error(`submitting the job: HTTP ${r.status}: ${r.text}`);
    const companion = await waitFor(async () => {
        const c = await api(server, 'GET', '/apis/caldera.io/v1/namespaces/default/companions/vs-code-server');
        if (c.json?.status?.phase === 'Failed')
            throw new Error(`the code-server companion failed: ${c.text}`);
        return c.json?.status?.phase === 'Ready' && c.json;
    }, {timeoutMs: READY_MS, what: 'the code-server companion to be Ready'});

    // another local process going round the proxy, straight to its port, gets the login page
    const direct = await fetch(`http://127.0.0.1:${companion.status.port}/`, {redirect: 'manual'});
    if (direct.status !== 302 || !/login/.test(direct.headers.get('location') || ''))
        throw new Error(`code-server's own port answered ${direct.status} ${direct.headers.get('location')}, not its login`);

    const page = await browser.newPage();
    const answer = await page.goto(`${server.url}/proxy/default/vs-code-server/`);
    if (answer.status() !== 200)
        throw new Error(`code-server's page answered ${answer.status()}`);
    if (page.url().includes('/login'))
        throw new Error(`code-server asked for a password: ${page.url()}`);
    await page.locator('.monaco-workbench').waitFor({timeout: 60000});
    // the explorer shows the job's working directory, where the task wrote its file
    await page.getByText(`${marker}.txt`).first().waitFor({timeout: 60000});
    if (!page.url().startsWith(`${server.url}/proxy/default/vs-code-server/`))
        throw new Error(`the workbench left the proxy: ${page.url()}`);
    await screenshot(page, 'workbench');
    await page.close();
}

await runTests([{name: 'the_workbench_loads_through_the_proxy', fn: the_workbench_loads_through_the_proxy}]);
