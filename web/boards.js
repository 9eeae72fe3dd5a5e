// The queue board (weight, deserved, allocated, capability and guarantee as bars; open or closed;
// the jobs waiting in each) and the node board (allocatable against allocated, GPUs included).
// Both read again, at most once a second, when the cluster's WebSocket stream reports a change.

import {get, paths, request, session} from './api.js';
import {follow} from './stream.js';
import {amount, debounce, el, quantity} from './util.js';
import {banner, confirmAction} from './app.js';

const ORDER = ['cpu', 'memory', 'nvidia.com/gpu', 'pods'];
const byOrder = (a, b) => (ORDER.indexOf(a) + 1 || 99) - (ORDER.indexOf(b) + 1 || 99) || (a < b ? -1 : 1);

/** One resource as a bar: `used` filled against `total`, with optional markers ({at, label, cls}). */
function bar(resource, used, total, markers = [], note = '') {
    const scale = Math.max(total || 0, used || 0, ...markers.map((m) => m.at || 0)) || 1;
    const pct = (v) => `${Math.min(100, (100 * v) / scale)}%`;
    const over = total && used > total;
    return el('div', {class: 'res'},
        el('span', {class: 'resname'}, resource),
        el('div', {class: 'track', title: `${amount(resource, used)} of ${total ? amount(resource, total) : 'unlimited'}`},
            el('div', {class: `fill${over ? ' over' : ''}`, style: `width:${pct(used || 0)}`}),
            markers.filter((m) => isFinite(m.at)).map((m) => el('div', {class: `marker ${m.cls}`, style: `left:${pct(m.at)}`, title: `${m.label} ${amount(resource, m.at)}`}))),
        el('span', {class: 'resval'}, `${amount(resource, used || 0)} / ${total ? amount(resource, total) : '∞'}${note}`));
}

function liveBoard(root, title, load) {
    const body = el('div', {class: 'board'});
    const live = el('span', {class: 'live'});
    root.append(el('section', {}, el('div', {class: 'toolbar'}, el('h1', {}, title), live,
        el('button', {type: 'button', class: 'ghost small', onclick: () => run()}, 'Refresh')), body));
    let stopped = false;
    async function run() {
        try { const nodes = await load(); if (!stopped) body.replaceChildren(...nodes); } catch (e) { banner(e.message); }
    }
    const again = debounce(run, 1000);
    run();
    // The cluster's events (queues, nodes, every namespace) are for a reader of every namespace;
    // anyone else follows the events of the namespace picked, which move the queues as they go.
    let stream = null, everywhere = true, opened = false;
    const show = (s) => {
        if (s === 'live') { // what moved before it listened (or while it was down) sent no event: read again
            opened = true;
            again();
        }
        live.textContent = s === 'live' ? (everywhere ? '● live' : `● live (${session.namespace})`) : '';
        live.className = `live ${s}`;
        if (s === 'reconnecting' && everywhere && !opened && !stopped) {
            everywhere = false;
            stream.close();
            stream = follow({namespace: session.namespace}, again, show);
        }
    };
    stream = follow({}, again, show);
    return {unmount() { stopped = true; stream.close(); }, run};
}

export function queuesView(root) {
    const board = liveBoard(root, 'Queues', async () => {
        const [queues, pending] = await Promise.all([get(paths.queues()),
            get('/apis/batch.volcano.sh/v1alpha1/jobs?fieldSelector=status.phase=Pending&limit=500').catch(() => ({items: []}))]);
        const totalWeight = queues.items.reduce((n, q) => n + (q.spec?.weight || 1), 0) || 1;
        return queues.items.map((q) => {
            const spec = q.spec || {}, st = q.status || {};
            const cap = spec.capability || {}, deserved = st.deserved || {}, alloc = st.allocated || {}, guar = spec.guarantee?.resource || {};
            const resources = [...new Set([...Object.keys(cap), ...Object.keys(deserved), ...Object.keys(alloc), ...Object.keys(guar)])].sort(byOrder);
            const waiting = pending.items.filter((j) => (j.spec?.queue || 'default') === q.metadata.name);
            const open = (st.state || 'Open') === 'Open';
            const toggle = el('button', {type: 'button', class: 'ghost small', onclick: async () => {
                const verb = open ? 'close' : 'open';
                if (!(await confirmAction(`${open ? 'Close' : 'Open'} queue ${q.metadata.name}?${open ? ' It takes no new jobs.' : ''}`, verb))) return;
                try { await request('POST', `/apis/caldera.io/v1/queues/${encodeURIComponent(q.metadata.name)}/${verb}`); board.run(); } catch (e) { banner(e.message); }
            }}, open ? 'Close' : 'Open');
            return el('div', {class: 'card queue', dataset: {queue: q.metadata.name}},
                el('h2', {}, q.metadata.name, ' ', el('span', {class: `state state-${(st.state || 'Open').toLowerCase()}`}, st.state || 'Open'), toggle),
                el('div', {class: 'res'}, el('span', {class: 'resname'}, 'weight'),
                    el('div', {class: 'track'}, el('div', {class: 'fill weight', style: `width:${(100 * (spec.weight || 1)) / totalWeight}%`})),
                    el('span', {class: 'resval'}, `${spec.weight || 1} of ${totalWeight}`)),
                resources.length ? resources.map((r) => bar(r, quantity(alloc[r] || 0), quantity(cap[r]),
                    [{at: quantity(deserved[r]), label: 'deserved', cls: 'deserved'}, {at: quantity(guar[r]), label: 'guarantee', cls: 'guarantee'}],
                    deserved[r] !== undefined ? ` · deserved ${amount(r, quantity(deserved[r]))}` : ''))
                    : el('p', {class: 'hint'}, 'Nothing allocated; no capability set.'),
                el('p', {class: 'counts'}, ['pending', 'inqueue', 'running', 'completed'].map((k) => `${st[k] || 0} ${k}`).join(' · ')),
                waiting.length ? el('details', {}, el('summary', {}, `${waiting.length} job${waiting.length === 1 ? '' : 's'} waiting`),
                    el('ul', {}, waiting.slice(0, 50).map((j) => el('li', {},
                        el('a', {href: `#/jobs/${encodeURIComponent(j.metadata.namespace)}/${encodeURIComponent(j.metadata.name)}`}, `${j.metadata.namespace}/${j.metadata.name}`),
                        j.status?.state?.message ? el('small', {}, ` ${j.status.state.message}`) : '')))) : null);
        }).concat(el('p', {class: 'legend hint'}, el('span', {}, el('i', {class: 'fill'}), 'allocated'),
            el('span', {}, el('i', {class: 'marker deserved'}), 'deserved'), el('span', {}, el('i', {class: 'marker guarantee'}), 'guarantee'),
            ' · the bar ends at the capability'));
    });
    return board;
}

export function nodesView(root) {
    return liveBoard(root, 'Nodes', async () => {
        const nodes = await get(paths.nodes());
        return nodes.items.map((n) => {
            const st = n.status || {}, alloc = st.allocatable || {}, used = st.allocated || n.allocated || {};
            const ready = (st.conditions || []).find((c) => c.type === 'Ready');
            const resources = [...new Set([...Object.keys(alloc), ...Object.keys(used)])].sort(byOrder);
            return el('div', {class: 'card node', dataset: {node: n.metadata.name}},
                el('h2', {}, n.metadata.name, ' ', el('span', {class: `state ${ready?.status === 'True' ? 'state-open' : 'state-closed'}`}, ready?.status === 'True' ? 'Ready' : 'NotReady')),
                resources.map((r) => bar(r, quantity(used[r] || 0), quantity(alloc[r]))),
                (n.spec?.taints || []).length ? el('p', {class: 'hint'}, 'taints: ', n.spec.taints.map((t) => `${t.key}=${t.value || ''}:${t.effect}`).join(', ')) : null,
                el('p', {class: 'hint'}, Object.entries(n.metadata.labels || {}).filter(([k]) => !k.startsWith('kubernetes.io/')).map(([k, v]) => `${k}=${v}`).join(' ')));
        });
    });
}
