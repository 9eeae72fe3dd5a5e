// Submit a job: YAML pasted, typed or uploaded into an editor with line numbers; the server's
// field errors (a Kubernetes Status whose causes say "(line L, column C)") are marked at their
// line. Any kind the API takes by namespace works: a Volcano Job, a PyTorchJob, a RayJob...

import {errorPlaces, paths, request, session} from './api.js';
import {el} from './util.js';

const EXAMPLE = `apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: hello
spec:
  minAvailable: 1
  queue: default
  tasks:
  - name: worker
    replicas: 2
    template:
      spec:
        restartPolicy: Never
        containers:
        - name: main
          command: [sh, -c, "echo hello from $VK_TASK_INDEX; sleep 10; echo done"]
          resources:
            requests: {cpu: "1", memory: 256Mi}
`;
const DRAFT_KEY = 'caldera-draft';

/** Where a manifest goes: /apis/{apiVersion}/namespaces/{ns}/{kinds}, from its top-level fields. */
export function endpointOf(yaml, namespace) {
    const top = (key) => (new RegExp(`^${key}:\\s*["']?([^"'\\s#]+)`, 'm').exec(yaml) || [])[1];
    const apiVersion = top('apiVersion'), kind = top('kind');
    if (!apiVersion || !kind || apiVersion === 'batch.volcano.sh/v1alpha1') return paths.jobs(namespace);
    const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    return `${base}/namespaces/${encodeURIComponent(namespace)}/${kind.toLowerCase()}s`;
}

export function submitView(root) {
    const namespace = session.namespace;
    const gutter = el('div', {class: 'gutter', 'aria-hidden': 'true'});
    const text = el('textarea', {class: 'code', spellcheck: 'false', wrap: 'off', 'aria-label': 'YAML',
        oninput: () => { localStorage.setItem(DRAFT_KEY, text.value); marks = []; numbers(); }});
    text.value = localStorage.getItem(DRAFT_KEY) || EXAMPLE;
    text.addEventListener('scroll', () => { gutter.scrollTop = text.scrollTop; });
    const file = el('input', {type: 'file', accept: '.yaml,.yml,.json,text/yaml,application/json', onchange: async () => {
        if (file.files[0]) { text.value = await file.files[0].text(); localStorage.setItem(DRAFT_KEY, text.value); marks = []; numbers(); }
    }});
    const errors = el('ul', {class: 'errors', 'aria-live': 'polite'});
    const send = el('button', {type: 'button', id: 'submit-job', onclick: submit}, 'Submit');
    const where = el('span', {class: 'hint'});
    let marks = [];

    root.append(el('section', {class: 'submit card'},
        el('h1', {}, 'Submit a job ', el('small', {}, `to namespace ${namespace}`)),
        el('div', {class: 'toolbar'}, el('label', {class: 'upload'}, 'Upload YAML ', file),
            el('button', {type: 'button', class: 'ghost', onclick: () => { text.value = EXAMPLE; marks = []; numbers(); }}, 'Example'),
            where),
        el('div', {class: 'editor'}, gutter, text),
        errors,
        el('div', {class: 'toolbar'}, send)));

    function numbers() {
        const count = text.value.split('\n').length;
        const byLine = new Map(marks.filter((m) => m.line).map((m) => [m.line, m]));
        const frag = document.createDocumentFragment();
        for (let i = 1; i <= count; i++) {
            const mark = byLine.get(i);
            frag.append(el('div', mark ? {class: 'err', title: mark.message} : {}, i));
        }
        gutter.replaceChildren(frag);
        gutter.scrollTop = text.scrollTop;
        where.textContent = `→ POST ${endpointOf(text.value, namespace)}`;
    }

    function goTo(line) {
        const lines = text.value.split('\n');
        const start = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
        text.focus();
        text.setSelectionRange(start, start + (lines[line - 1] || '').length);
        const lineHeight = parseFloat(getComputedStyle(text).lineHeight) || 18;
        text.scrollTop = Math.max(0, (line - 4) * lineHeight);
    }

    async function submit() {
        send.disabled = true;
        errors.replaceChildren();
        marks = [];
        try {
            const created = await request('POST', `${endpointOf(text.value, namespace)}?fieldValidation=Strict`, {body: text.value, contentType: 'application/yaml'});
            localStorage.removeItem(DRAFT_KEY);
            const ns = created.metadata?.namespace || namespace;
            location.hash = `#/jobs/${encodeURIComponent(ns)}/${encodeURIComponent(created.metadata.name)}`;
        } catch (e) {
            marks = e.status ? errorPlaces(e.status) : [{line: null, message: e.message}];
            errors.replaceChildren(el('li', {class: 'summaryline'}, e.message),
                ...marks.filter((m) => m.line || m.field).map((m) => el('li', {},
                    m.line ? el('a', {href: '#', onclick: (ev) => { ev.preventDefault(); goTo(m.line); }}, `line ${m.line}`) : '',
                    m.field ? el('code', {}, m.field) : '', ' ', m.message)));
            numbers();
            const first = marks.find((m) => m.line);
            if (first) goTo(first.line);
        } finally { send.disabled = false; }
    }

    numbers();
    return {unmount() {}};
}
