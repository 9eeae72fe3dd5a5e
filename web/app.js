// The UI's entry point: the hash router (#/jobs, #/jobs/{ns}/{name}, #/submit, #/queues, #/nodes),
// sign-in with a bearer token, the namespace picker, and the confirmation dialog views share.

import {get, paths, session} from './api.js';
import {el} from './util.js';
import {jobsView} from './jobs.js';
import {jobView} from './job.js';
import {submitView} from './submit.js';
import {queuesView, nodesView} from './boards.js';

const view = document.getElementById('view');
let current = null; // the mounted view: {unmount()}

const routes = [
    [/^#\/jobs\/([^/]+)\/([^/]+)$/, (m) => jobView(view, decodeURIComponent(m[1]), decodeURIComponent(m[2]))],
    [/^#\/submit$/, () => submitView(view)],
    [/^#\/queues$/, () => queuesView(view)],
    [/^#\/nodes$/, () => nodesView(view)],
    [/^#\/jobs$|^#?\/?$/, () => jobsView(view, session.namespace)],
];

function route() {
    if (current?.unmount) current.unmount();
    current = null;
    view.replaceChildren();
    banner('');
    const hash = location.hash || '#/jobs';
    for (const [pattern, make] of routes) {
        const m = pattern.exec(hash);
        if (m) {
            document.querySelectorAll('[data-nav]').forEach((a) =>
                a.classList.toggle('active', hash.startsWith(`#/${a.dataset.nav}`)));
            const name = hash.startsWith('#/jobs/') ? decodeURIComponent(m[2] || '') : (hash.slice(2) || 'jobs');
            document.title = `${name} · Caldera`;
            current = make(m);
            return;
        }
    }
    view.append(el('p', {class: 'empty'}, 'Nothing here. ', el('a', {href: '#/jobs'}, 'Back to the jobs')));
}

/** A yes/no question in the page's dialog; resolves true on OK. */
export function confirmAction(text, okLabel = 'OK') {
    const dialog = document.getElementById('confirm');
    document.getElementById('confirm-text').textContent = text;
    document.getElementById('confirm-ok').textContent = okLabel;
    dialog.returnValue = '';
    dialog.showModal();
    return new Promise((resolve) => dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), {once: true}));
}

/** A message across the top of the page (an error, or who is signed in); '' hides it. */
export function banner(text, kind = 'error') {
    const node = document.getElementById('banner');
    node.textContent = text;
    node.className = `banner ${kind}`;
    node.hidden = !text;
}

function setupNamespace() {
    const input = document.getElementById('namespace');
    input.value = session.namespace;
    input.addEventListener('change', () => {
        session.namespace = input.value.trim() || 'default';
        input.value = session.namespace;
        if (!location.hash.startsWith('#/jobs/')) route();
        else location.hash = '#/jobs';
    });
    fillNamespaces();
}

/** The namespaces this token may use (from its Token objects), offered in the picker. */
async function fillNamespaces() {
    const names = new Set(['default', session.namespace]);
    try {
        const tokens = await get(paths.tokens());
        for (const t of tokens.items || []) for (const ns of t.spec?.namespaces || t.namespaces || []) if (ns !== '*') names.add(ns);
    } catch { /* a viewer may not list tokens: the picker still takes any name */ }
    document.getElementById('namespaces').replaceChildren(...[...names].sort().map((n) => el('option', {value: n})));
}

function setupSignIn() {
    const button = document.getElementById('signin');
    const dialog = document.getElementById('signin-dialog');
    const input = document.getElementById('token');
    const show = () => { button.textContent = session.token ? 'Signed in' : 'Sign in'; button.title = session.token ? 'with a bearer token' : ''; };
    show();
    button.addEventListener('click', () => { input.value = session.token; dialog.returnValue = ''; dialog.showModal(); input.focus(); });
    dialog.addEventListener('close', () => {
        if (dialog.returnValue === 'ok') session.token = input.value.trim();
        else if (dialog.returnValue === 'signout') session.token = '';
        else return;
        show();
        banner('');
        fillNamespaces();
        route();
    });
}

setupNamespace();
setupSignIn();
window.addEventListener('hashchange', route);
route();
