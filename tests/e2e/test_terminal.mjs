#!/usr/bin/env node
// The web terminal companion in headless Chromium, through the gateway's proxy on an --auth server:
// a namespace's token opens it with ?token=, keys typed into xterm.js run in the job's directory, and
// another namespace's token gets 403 on the same URL.
import {readdirSync} from 'node:fs';
import path from 'node:path';

import {api, companionJob, createToken, launchBrowser, runTests, screenshot, startServer, waitFor} from './lib/harness.mjs';

const READY_MS = 60000; // the ASan-built terminal on a loaded 2-core machine; ~1 s otherwise
const marker = `e2e-${process.pid}-${Math.floor(Math.random() * 1e6)}`;
let server, alice, bob;

/** Whether a file named name exists anywhere under dir (a few levels deep). */
function fileUnder(dir, name, depth = 4) {
    let entries;
    try {
        entries = readdirSync(dir, {withFileTypes: true});
    } catch {
        return false;
    }
    return entries.some((e) => e.name === name || (e.isDirectory() && depth > 0 && fileUnder(path.join(dir, e.name), name, depth - 1)));
}

/** The terminal's screen as text: xterm.js's DOM renderer draws one div per row. */
async function screenText(page) {
    const text = await page.locator('.xterm-rows').innerText();
    return text.replace(/\u00a0/g, ' ');
}

async function setup() {
    server = await startServer({auth: true});
    alice = await createToken(server, {user: 'alice', namespaces: ['team-a']});
    bob = await createToken(server, {user: 'bob', namespaces: ['team-b']});
    const r = await api(server, 'POST', '/apis/batch.volcano.sh/v1alpha1/namespaces/team-a/jobs', companionJob('sh', 'terminal', marker), {token: alice});
    if (r.status !== 201)
        throw new Error(`submitting the job: HTTP ${r.status}: ${r.text}`);
    await waitFor(async () => {
        const c = await api(server, 'GET', '/apis/caldera.io/v1/namespaces/team-a/companions/sh-terminal', undefined, {token: alice});
        if (c.json?.status?.phase === 'Failed')
            throw new Error(`the terminal companion failed: ${c.text}`);
        return c.json?.status?.phase === 'Ready';
    }, {timeoutMs: READY_MS, what: 'the terminal companion to be Ready'});
    const job = await api(server, 'GET', '/apis/batch.volcano.sh/v1alpha1/namespaces/team-a/jobs/sh', undefined, {token: alice});
    const jobDir = path.join(server.dataDir, 'jobs', job.json.metadata.uid);
    await waitFor(() => fileUnder(jobDir, `${marker}.txt`), {what: `the task to write ${marker}.txt`});
}

async function typing_in_xterm_runs_commands_in_the_job_s_directory() {
    const browser = await launchBrowser();
    await setup();
    const page = await browser.newPage();
    const answer = await page.goto(`${server.url}/proxy/team-a/sh-terminal/?token=${alice}`);
    if (answer.status() !== 200)
        throw new Error(`the terminal's page answered ${answer.status()}`);
    if ((await page.title()) !== 'Terminal - Caldera')
        throw new Error(`the page's title is "${await page.title()}"`);
    if (page.url().includes('token='))
        throw new Error(`the token stayed in the address: ${page.url()}`);
    await page.locator('.xterm-rows').waitFor({timeout: 20000});
    await page.locator('#status').waitFor({state: 'hidden', timeout: 20000}); // the WebSocket is open
    await page.locator('.xterm').click();

    const n = Math.floor(Math.random() * 1e6);
    await page.keyboard.type(`echo caldera-$((${n}+1))\n`);
    await waitFor(async () => (await screenText(page)).includes(`caldera-${n + 1}`),
        {what: `caldera-${n + 1} on the terminal`, timeoutMs: 20000});
    await page.keyboard.type('ls\n');
    await waitFor(async () => (await screenText(page)).includes(`${marker}.txt`),
        {what: `ls to list ${marker}.txt`, timeoutMs: 20000});
    await screenshot(page, 'ls');
    await page.close();
}

async function another_namespace_s_token_gets_403() {
    const browser = await launchBrowser();
    if (!server)
        throw new Error('no terminal to open: the first case did not get that far');
    const context = await browser.newContext();
    const page = await context.newPage();
    const answer = await page.goto(`${server.url}/proxy/team-a/sh-terminal/?token=${bob}`);
    if (answer.status() !== 403)
        throw new Error(`bob's token got ${answer.status()} on team-a's terminal`);
    if ((await page.content()).includes('xterm'))
        throw new Error(`bob's answer holds the terminal's page`);
    await screenshot(page, 'forbidden');
    await context.close();
}

await runTests([
    {name: 'typing_in_xterm_runs_commands_in_the_job_s_directory', fn: typing_in_xterm_runs_commands_in_the_job_s_directory},
    {name: 'another_namespace_s_token_gets_403', fn: another_namespace_s_token_gets_403},
]);
