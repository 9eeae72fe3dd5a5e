// The jobs of a namespace, live: one paged list, then the WebSocket stream keeps every row up to
// date (phases, replica counts, pending reasons, new and deleted jobs). Rows are virtualised (only
// the visible ones exist in the DOM), so 10,000 jobs scroll and filter as fast as 10.

import {get, listAll, paths} from './api.js';
import {follow} from './stream.js';
import {age, el, localTime, phaseClass} from './util.js';
import {banner} from './app.js';

const PHASES = ['Pending', 'Running', 'Restarting', 'Completing', 'Completed', 'Aborting', 'Aborted',
    'Terminating', 'Terminated', 'Failed'];
const POD_COUNT = {Pending: 'pending', Running: 'running', Succeeded: 'succeeded', Failed: 'failed',
    Terminating: 'terminating', Unknown: 'unknown'};
const OVERSCAN = 8;

/** One row's data from a Job object. */
function summary(job) {
    const s = job.status || {};
    const state = s.state || {};
    const phase = state.phase || 'Pending';
    const replicas = (job.spec?.tasks || []).reduce((n, t) => n + (t.replicas || 0), 0);
    return {
        name: job.metadata.name, uid: job.metadata.uid, created: Date.parse(job.metadata.creationTimestamp),
        createdText: job.metadata.creationTimestamp, rv: +job.metadata.resourceVersion || 0,
        phase, queue: job.spec?.queue || 'default', replicas, min: s.minAvailable ?? job.spec?.minAvailable ?? 0,
        pending: s.pending || 0, running: s.running || 0, succeeded: s.succeeded || 0, failed: s.failed || 0,
        terminating: s.terminating || 0, unknown: s.unknown || 0,
        reason: phase === 'Pending' ? state.message || '' : '',
    };
}

/** The same from a row of the Jobs Table (the server's columns, found by name in `at`). */
function rowSummary(row, at) {
    const c = row.cells, meta = row.object.metadata;
    const cell = (name) => c[at[name]];
    const phase = cell('STATUS') || 'Pending';
    return {
        name: meta.name, uid: meta.uid, created: Date.parse(meta.creationTimestamp),
        createdText: meta.creationTimestamp, rv: +meta.resourceVersion || 0,
        phase, queue: cell('QUEUE') || 'default', replicas: cell('REPLICAS') || 0, min: cell('minAvailable') || 0,
        pending: cell('PENDING') || 0, running: cell('RUNNINGS') || 0, succeeded: cell('SUCCEEDED') || 0,
        failed: cell('FAILED') || 0, terminating: 0, unknown: 0,
        reason: phase === 'Pending' ? cell('PENDING REASON') || '' : '',
    };
}

/** Where each column of a Table is: {name: index}. */
const columnsOf = (table) => Object.fromEntries(table.columnDefinitions.map((d, i) => [d.name, i]));

export function jobsView(root, namespace) {
    const jobs = new Map(); // name -> summary
    let order = [];         // every job, newest first
    let shown = [];         // the filtered ones
    let orderDirty = true, filterDirty = true, frame = 0, stream = null, stopped = false;
    const queues = new Set();
    let arrivals = 0;
    const stats = {scriptMs: 0, loaded: false, events: 0, lastSeq: null, firstPaint: null, allLoaded: null};
    window.calderaJobs = stats; // read by the browser tests and the bench
    stats.jobs = jobs;
    stats.apply = (events) => apply(events); // the bench feeds it synthetic events

    const phaseSelect = el('select', {'aria-label': 'phase', onchange: refilter},
        el('option', {value: ''}, 'All phases'), PHASES.map((p) => el('option', {value: p}, p)));
    const queueSelect = el('select', {'aria-label': 'queue', onchange: refilter}, el('option', {value: ''}, 'All queues'));
    const text = el('input', {type: 'search', placeholder: 'Filter by name, queue or reason', 'aria-label': 'filter', oninput: refilter});
    const count = el('span', {class: 'count'}, 'loading…');
    const live = el('span', {class: 'live', title: 'the WebSocket stream'}, '');
    const head = el('div', {class: 'jobrow head', role: 'row'},
        ['Job', 'Phase', 'Replicas', 'Queue', 'Age', 'Pending reason'].map((h, i) => el('span', {class: `c${i}`, role: 'columnheader'}, h)));
    const spacer = el('div', {class: 'spacer'});
    const scroller = el('div', {class: 'vlist', role: 'table', 'aria-label': 'jobs'}, spacer);
    const empty = el('p', {class: 'empty', hidden: true}, 'No jobs here yet. ', el('a', {href: '#/submit'}, 'Submit one'), '.');
    root.append(el('section', {class: 'jobs'},
        el('div', {class: 'toolbar'}, el('h1', {}, 'Jobs ', el('small', {}, namespace)), phaseSelect, queueSelect, text, count, live),
        head, scroller, empty));

    const pool = [];
    const rowHeight = () => (matchMedia('(max-width: 700px)').matches ? 58 : 36);

    function makeRow() {
        const cells = [0, 1, 2, 3, 4, 5].map((i) => el('span', {class: `c${i}`, role: 'cell'}));
        cells[0].append(el('a'));
        const row = el('div', {class: 'jobrow', role: 'row'}, cells);
        row.cells_ = cells;
        spacer.append(row);
        return row;
    }

    function fill(row, job) {
        const c = row.cells_;
        const link = c[0].firstChild;
        if (row.job_ !== job.name) {
            row.job_ = job.name;
            link.href = `#/jobs/${encodeURIComponent(namespace)}/${encodeURIComponent(job.name)}`;
            link.textContent = job.name;
            c[4].title = localTime(job.createdText);
        }
        c[1].textContent = job.phase;
        c[1].className = `c1 ${phaseClass(job.phase)}`;
        c[2].textContent = `${job.running}/${job.replicas} run · ${job.pending} pend · ${job.succeeded} ok · ${job.failed} fail`;
        c[3].textContent = job.queue;
        c[4].textContent = age(job.createdText);
        c[5].textContent = job.reason;
        c[5].title = job.reason;
    }

    function render() {
        frame = 0;
        if (stopped) return;
        if (orderDirty) {
            order = [...jobs.values()].sort((a, b) => b.arrival - a.arrival); // newest first
            orderDirty = false;
            filterDirty = true;
        }
        if (filterDirty) {
            const phase = phaseSelect.value, queue = queueSelect.value, needle = text.value.trim().toLowerCase();
            shown = phase || queue || needle ? order.filter((j) => (!phase || j.phase === phase) && (!queue || j.queue === queue) &&
                (!needle || j.name.includes(needle) || j.queue.includes(needle) || j.reason.toLowerCase().includes(needle))) : order;
            filterDirty = false;
            count.textContent = `${shown.length === order.length ? '' : `${shown.length} of `}${order.length} job${order.length === 1 ? '' : 's'}${stats.loaded ? '' : ' (loading…)'}`;
            empty.hidden = !(stats.loaded && order.length === 0);
        }
        const h = rowHeight();
        spacer.style.height = `${shown.length * h}px`;
        const top = scroller.scrollTop, height = scroller.clientHeight || 600;
        const first = Math.max(0, Math.floor(top / h) - OVERSCAN);
        const last = Math.min(shown.length, Math.ceil((top + height) / h) + OVERSCAN);
        while (pool.length < last - first) pool.push(makeRow());
        for (let i = 0; i < pool.length; i++) {
            const row = pool[i], job = shown[first + i];
            if (first + i < last && job) {
                row.hidden = false;
                row.style.transform = `translateY(${(first + i) * h}px)`;
                fill(row, job);
            } else row.hidden = true;
        }
    }
    const schedule = () => { if (!frame) frame = requestAnimationFrame(render); };
    function refilter() { filterDirty = true; schedule(); }

    function addQueue(q) {
        if (queues.has(q)) return;
        queues.add(q);
        queueSelect.append(el('option', {value: q}, q));
    }

    function put(job, at) {
        const s = at ? rowSummary(job, at) : summary(job);
        const old = jobs.get(s.name);
        if (old && old.rv > s.rv) return;
        s.arrival = old ? old.arrival : arrivals++; // the server lists by creation (ms) then uid: keep its order
        jobs.set(s.name, s);
        addQueue(s.queue);
        if (!old) orderDirty = true;
        else if (old.phase !== s.phase) filterDirty = true;
    }

    // Jobs to read (new ones, and any the page has not seen yet), a few requests at a time.
    const toRead = new Set();
    let reading = false;
    async function readQueued() {
        if (reading || stopped) return;
        reading = true;
        while (toRead.size && !stopped) {
            const names = [...toRead].slice(0, 8);
            names.forEach((n) => toRead.delete(n));
            await Promise.all(names.map(async (name) => {
                try { put(await get(paths.job(namespace, name))); } catch (e) { if (e.code === 404) { jobs.delete(name); orderDirty = true; } }
            }));
            schedule();
        }
        reading = false;
    }
    const reread = (name) => { toRead.add(name); readQueued(); };

    function apply(events) {
        stats.appliedAt = Date.now(); // wall clock, for the bench's catch-up time
        for (const ev of events) {
            stats.events++;
            stats.lastSeq = ev.seq;
            if (ev.kind === 'Job') {
                const job = jobs.get(ev.name);
                if (ev.reason === 'Deleted' && !ev.to) { if (jobs.delete(ev.name)) orderDirty = true; continue; }
                if (!job || !ev.from) { reread(ev.name); continue; }
                if (ev.seq <= job.rv) continue;
                if (job.phase !== ev.to) filterDirty = true; // counts follow the pods' own events
                job.phase = ev.to;
                job.reason = ev.to === 'Pending' ? ev.message || job.reason : '';
            } else if (ev.kind === 'Pod' && ev.job) {
                const job = jobs.get(ev.job);
                if (!job || ev.seq <= job.rv) continue;
                if (POD_COUNT[ev.from]) job[POD_COUNT[ev.from]] = Math.max(0, job[POD_COUNT[ev.from]] - 1);
                if (POD_COUNT[ev.to]) job[POD_COUNT[ev.to]]++;
            }
        }
        schedule();
    }

    function streamState(state, detail) {
        live.textContent = state === 'live' ? '● live' : state === 'reconnecting' ? '○ reconnecting' : '';
        live.className = `live ${state}`;
        live.title = detail || 'the WebSocket stream';
    }

    async function load() {
        try {
            const {resourceVersion} = await listAll(paths.jobs(namespace), (items, list) => {
                const began = performance.now();
                const at = list.kind === 'Table' ? columnsOf(list) : null;
                for (const job of items) put(job, at);
                render();
                stats.scriptMs += performance.now() - began;
                if (stats.firstPaint === null) { stats.firstPaint = performance.now(); performance.mark('caldera-jobs-first-paint'); }
            }, {table: true, limit: 10000});
            stats.loaded = true;
            filterDirty = true;
            render();
            stats.allLoaded = performance.now();
            performance.mark('caldera-jobs-loaded');
            if (!stopped) stream = stats.stream = follow({namespace, since: resourceVersion}, apply, streamState);
        } catch (e) {
            count.textContent = '';
            banner(e.code === 401 || e.code === 403 ? `${e.message} — sign in with a token for namespace ${namespace}` : e.message);
        }
    }

    scroller.addEventListener('scroll', schedule, {passive: true});
    window.addEventListener('resize', schedule);
    const ticker = setInterval(schedule, 15000); // ages move on
    load();
    return {
        unmount() {
            stopped = true;
            if (stream) stream.close();
            clearInterval(ticker);
            window.removeEventListener('resize', schedule);
            cancelAnimationFrame(frame);
        },
    };
}
