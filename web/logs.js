// The log viewer of a job page: pick a pod and an attempt; the current attempt of a running pod is
// followed (GET .../log?follow=true read as a stream with fetch; where the server ends the answer
// at once, as before follow=true existed, the view re-reads the log every 2 s instead), an earlier
// attempt is read once with ?attempt=N.

import {authHeaders, paths} from './api.js';
import {el} from './util.js';

const KEEP = 2 * 1024 * 1024; // characters kept on screen; older lines go

export function logViewer(namespace, getState) {
    const podSelect = el('select', {'aria-label': 'pod', onchange: () => { attemptSelect.value = ''; start(); }});
    const attemptSelect = el('select', {'aria-label': 'attempt', onchange: () => start()});
    const followBox = el('input', {type: 'checkbox', checked: true, onchange: () => start()});
    const stamps = el('input', {type: 'checkbox', onchange: () => start()});
    const status = el('span', {class: 'hint logstate'});
    const pre = el('pre', {class: 'log', tabindex: 0}, '');
    const node = el('div', {class: 'logviewer'},
        el('div', {class: 'toolbar'}, podSelect, attemptSelect,
            el('label', {}, followBox, ' follow'), el('label', {}, stamps, ' timestamps'), status),
        pre);
    let controller = null, poll = 0, mode = '';

    const pod = () => getState().pods.find((p) => p.metadata.name === podSelect.value);
    const running = () => pod()?.status?.phase === 'Running';
    const attemptsOf = (name) => (getState().history?.attempts || []).filter((a) => a.pod === name);

    function fillSelects() {
        const {pods} = getState();
        const names = [...new Set([...pods.map((p) => p.metadata.name), ...(getState().history?.attempts || []).map((a) => a.pod)])];
        const chosen = podSelect.value;
        podSelect.replaceChildren(...names.map((n) => el('option', {value: n}, n)));
        if (names.includes(chosen)) podSelect.value = chosen;
        const attempt = attemptSelect.value;
        const list = attemptsOf(podSelect.value);
        attemptSelect.replaceChildren(el('option', {value: ''}, 'current attempt'),
            ...list.map((a) => el('option', {value: a.attempt}, `attempt ${a.attempt}${a.finishTime ? ` (exit ${a.exitCode})` : ' (running)'}`)));
        attemptSelect.value = list.some((a) => String(a.attempt) === attempt) ? attempt : '';
    }

    function stop() {
        if (controller) controller.abort();
        controller = null;
        clearInterval(poll);
        poll = 0;
        mode = '';
    }

    function show(text, append) {
        const atBottom = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 24;
        let all = append ? pre.textContent + text : text;
        if (all.length > KEEP) all = all.slice(all.length - KEEP);
        pre.textContent = all;
        if (atBottom || !append) pre.scrollTop = pre.scrollHeight;
    }

    function url(extra) {
        const q = new URLSearchParams(extra);
        if (stamps.checked) q.set('timestamps', 'true');
        const s = q.toString();
        return `${paths.podLog(namespace, podSelect.value)}${s ? `?${s}` : ''}`;
    }

    async function readOnce(address, signal) {
        const answer = await fetch(address, {headers: authHeaders(), signal});
        const text = await answer.text();
        if (!answer.ok) {
            let message = text;
            try { message = JSON.parse(text).message; } catch { /* plain text */ }
            throw new Error(message || `HTTP ${answer.status}`);
        }
        return text;
    }

    async function follow(signal) {
        mode = 'follow';
        status.textContent = 'following…';
        const began = Date.now();
        const answer = await fetch(url({follow: 'true'}), {headers: authHeaders(), signal});
        if (!answer.ok) throw new Error((await answer.json().catch(() => ({}))).message || `HTTP ${answer.status}`);
        const reader = answer.body.getReader();
        const decoder = new TextDecoder();
        let first = true; // the text on screen stays until the new answer's first bytes replace it
        for (;;) {
            const {done, value} = await reader.read();
            if (done) break;
            show(decoder.decode(value, {stream: true}), !first);
            first = false;
        }
        if (first) show('', false);
        if (signal.aborted) return;
        if (running()) {
            // The answer ended while the pod runs: no follow on this server (or it was cut); re-read.
            mode = 'poll';
            status.textContent = Date.now() - began < 1500 ? 're-reading every 2 s' : 'reconnecting…';
            poll = setInterval(() => readOnce(url({}), signal).then((t) => { if (t !== pre.textContent) show(t, false); })
                .catch(() => {}), 2000);
        } else status.textContent = 'ended';
    }

    async function start() {
        stop();
        fillSelects();
        if (!podSelect.value) { pre.textContent = ''; status.textContent = 'no pod yet'; return; }
        controller = new AbortController();
        const {signal} = controller;
        const attempt = attemptSelect.value;
        try {
            if (!attempt && followBox.checked && running()) await follow(signal);
            else {
                status.textContent = 'reading…';
                show(await readOnce(url(attempt ? {attempt} : {}), signal), false);
                status.textContent = attempt ? `attempt ${attempt}` : running() ? 'snapshot' : 'ended';
            }
        } catch (e) {
            if (!signal.aborted) { status.textContent = ''; pre.textContent = e.message; }
        }
    }

    return {
        node,
        /** Shows `podName`'s log: `attempt` a number, or null for the current one. */
        open(podName, attempt) {
            podSelect.replaceChildren(el('option', {value: podName}, podName));
            podSelect.value = podName;
            fillSelects();
            podSelect.value = podName;
            fillSelects();
            attemptSelect.value = attempt ? String(attempt) : '';
            start();
            node.scrollIntoView({behavior: 'smooth', block: 'nearest'});
        },
        /** The job changed: new pods or attempts in the pickers; a polled view stops once its pod ends. */
        refresh() {
            const first = !podSelect.value;
            fillSelects();
            if (first && podSelect.value) start();
            else if (mode === 'poll' && !running()) { stop(); start(); }
            else if (mode === '' && !attemptSelect.value && running() && followBox.checked) start();
        },
        close: stop,
    };
}
