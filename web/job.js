// One job's page (#/jobs/{ns}/{name}): its spec, pending reason, tasks and pods, a timeline of every
// attempt, the phase history, events, companions, a log viewer and the actions. It follows the
// job's own WebSocket stream and reads the job, pods and history again after each burst of events
// and each time the stream (re)connects.

import {ApiError, get, paths, request, session} from './api.js';
import {follow} from './stream.js';
import {age, debounce, duration, el, localTime, ms, phaseClass} from './util.js';
import {banner, confirmAction} from './app.js';
import {timeline} from './timeline.js';
import {logViewer} from './logs.js';

const ACTIONS = [
    ['suspend', 'Suspend', 'Suspend the job? Its running pods are stopped; resume brings it back.'],
    ['resume', 'Resume', 'Resume the job?'],
    ['restart', 'Restart', 'Restart the job? Every pod is stopped and started again.'],
    ['terminate', 'Terminate', 'Terminate the job? Its pods are stopped and it ends Terminated.'],
    ['delete', 'Delete', 'Delete the job? Its pods are stopped and it leaves the list (its history stays).'],
];
/** An argument as a shell would need it written. */
const shellQuote = (a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${String(a).replace(/'/g, `'\\''`)}'`);
/** A companion's URL; with a token, ?token= once, as the proxy asks (it then keeps a cookie). */
const companionLink = (url) => (session.token ? `${url}${url.includes('?') ? '&' : '?'}token=${encodeURIComponent(session.token)}` : url);
const FINISHED = new Set(['Completed', 'Failed', 'Terminated', 'Aborted']);

export function jobView(root, namespace, name) {
    let stopped = false, stream = null;
    const state = {job: null, pods: [], history: null, events: [], companions: [], group: null};

    const title = el('h1', {}, name, ' ', el('small', {}, namespace));
    const phase = el('span', {class: 'phase'});
    const actions = el('div', {class: 'actions'}, ACTIONS.map(([action, label, question]) =>
        el('button', {type: 'button', class: action === 'delete' || action === 'terminate' ? 'danger' : '', dataset: {action},
            onclick: () => act(action, label, question)}, label)));
    const live = el('span', {class: 'live'});
    const reason = el('div', {class: 'reason', hidden: true});
    const summary = el('dl', {class: 'summary'});
    const tasks = el('div', {class: 'tasks'});
    const chart = el('div', {class: 'timeline'});
    const phases = el('div', {class: 'scroll-x'});
    const events = el('div', {class: 'scroll-x'});
    const companions = el('div', {class: 'companions'});
    const logs = logViewer(namespace, () => state);
    const section = (heading, ...body) => el('section', {class: 'card'}, el('h2', {}, heading), body);

    root.append(el('article', {class: 'job'},
        el('div', {class: 'jobhead'}, el('a', {href: '#/jobs', class: 'back'}, '← Jobs'), title, phase, live, actions),
        reason,
        el('div', {class: 'grid'},
            section('Spec', summary),
            section('Companions', companions)),
        section('Tasks and pods', tasks),
        section('Timeline', chart),
        section('Logs', logs.node),
        el('div', {class: 'grid'}, section('Phase history', phases), section('Events', events))));

    async function act(action, label, question) {
        if (!(await confirmAction(`${question}\n\n${namespace}/${name}`, label))) return;
        try {
            if (action === 'delete') {
                await request('DELETE', paths.job(namespace, name));
                location.hash = '#/jobs';
                return;
            }
            await request('POST', paths.jobAction(namespace, name, action));
            banner(`${label}: sent`, 'info');
            setTimeout(() => banner(''), 2500);
            reload();
        } catch (e) { banner(`${label} failed: ${e.message}`); }
    }

    async function load() {
        const [job, pods, history, evs, comps, group] = await Promise.allSettled([
            get(paths.job(namespace, name)), get(paths.pods(namespace, name)), get(paths.history(namespace, name)),
            get(paths.events(namespace, name)), get(`${paths.companions(namespace)}?labelSelector=${encodeURIComponent(`volcano.sh/job-name=${name}`)}`),
            get(paths.podGroup(namespace, name))]);
        if (stopped) return;
        if (job.status === 'rejected') {
            if (job.reason instanceof ApiError && job.reason.code === 404 && history.status === 'fulfilled') state.job = null;
            else { banner(job.reason.message); return; }
        } else state.job = job.value;
        state.pods = pods.status === 'fulfilled' ? pods.value.items : [];
        state.history = history.status === 'fulfilled' ? history.value : null;
        state.events = evs.status === 'fulfilled' ? evs.value.items : [];
        state.companions = comps.status === 'fulfilled' ? comps.value.items.filter((c) => c.spec?.jobName === name) : [];
        state.group = group.status === 'fulfilled' ? group.value : null;
        render();
    }
    const reload = debounce(load, 250);

    function render() {
        const job = state.job, s = job?.status || {}, st = s.state || {};
        const ph = job ? st.phase || 'Pending' : state.history?.phase || 'Deleted';
        phase.textContent = ph;
        phase.className = phaseClass(ph);
        for (const b of actions.children) {
            const a = b.dataset.action;
            b.disabled = !job || (a === 'resume' ? ph !== 'Aborted' : a === 'suspend' ? FINISHED.has(ph) || ph === 'Aborting' :
                a !== 'delete' && FINISHED.has(ph));
        }
        const why = ph === 'Pending' ? st.message || state.group?.status?.conditions?.find((c) => c.type === 'Unschedulable')?.message : '';
        reason.hidden = !why;
        reason.replaceChildren(el('strong', {}, 'Pending: '), why || '');
        renderSummary(job, s, st);
        renderTasks(job);
        drawTimeline();
        renderPhases();
        renderEvents();
        renderCompanions();
        logs.refresh();
    }

    function drawTimeline() {
        chart.replaceChildren(timeline(state.history, chart.clientWidth || 800, (pod, attempt) => logs.open(pod, attempt)));
    }
    const redraw = debounce(drawTimeline, 150);
    window.addEventListener('resize', redraw);

    /** From the first start to the end (or now), in ms from the history's transitions when it has them. */
    function runTime(s, end) {
        const moves = state.history?.transitions || [];
        const started = moves.find((t) => t.to === 'Running')?.time || s.runningSince;
        if (!started) return '';
        const last = moves[moves.length - 1];
        const finished = end ? (last && FINISHED.has(last.to) ? last.time : end) : null;
        return duration((finished ? ms(finished) : Date.now()) - ms(started));
    }

    function renderSummary(job, s, st) {
        const spec = job?.spec || {};
        const created = job?.metadata.creationTimestamp || state.history?.metadata?.creationTimestamp;
        const end = FINISHED.has(st.phase) ? st.lastTransitionTime : null;
        const rows = [
            ['Queue', spec.queue || 'default'],
            ['Min available', spec.minAvailable ?? ''],
            ['Replicas', `${s.running || 0} running, ${s.pending || 0} pending, ${s.succeeded || 0} succeeded, ${s.failed || 0} failed`],
            ['Created', created ? `${localTime(created)} (${age(created)} ago)` : ''],
            ['Running since', s.runningSince ? localTime(s.runningSince) : ''],
            ['Duration', runTime(s, end)],
            ['Retries', `${s.retryCount || 0} of ${spec.maxRetry ?? 3}`],
            ['Priority class', spec.priorityClassName || ''],
            ['Scheduler', spec.schedulerName || ''],
            ['Policies', (spec.policies || []).map((p) => `${p.event || p.exitCode}→${p.action}`).join(', ')],
            ['Plugins', Object.keys(spec.plugins || {}).join(', ')],
            ['Last change', st.reason ? `${st.reason}${st.message ? `: ${st.message}` : ''}` : ''],
        ].filter(([, v]) => v !== '' && v !== undefined);
        summary.replaceChildren(...rows.flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, String(v))]));
    }

    function renderTasks(job) {
        const specTasks = job?.spec?.tasks || (state.history?.tasks || []).map((t) => ({name: t.name, replicas: t.replicas}));
        const pods = state.pods;
        tasks.replaceChildren(...specTasks.map((task) => {
            const c = task.template?.spec?.containers?.[0] || {};
            const requests = Object.entries(c.resources?.requests || {}).map(([k, v]) => `${k} ${v}`).join(', ');
            const own = pods.filter((p) => p.metadata.labels?.['volcano.sh/task-spec'] === task.name);
            return el('div', {class: 'task'},
                el('h3', {}, task.name, ' ', el('small', {}, `${task.replicas} replica${task.replicas === 1 ? '' : 's'}`,
                    task.minAvailable !== undefined ? `, min ${task.minAvailable}` : '', requests ? ` · ${requests}` : '')),
                c.command ? el('code', {class: 'command'}, [...(c.command || []), ...(c.args || [])].map(shellQuote).join(' ')) : null,
                el('div', {class: 'scroll-x'}, el('table', {class: 'pods'},
                    el('thead', {}, el('tr', {}, ['Pod', 'Phase', 'Node', 'Restarts', 'Started', 'Exit', ''].map((h) => el('th', {}, h)))),
                    el('tbody', {}, own.map(podRow)))));
        }));
    }

    function podRow(pod) {
        const cs = pod.status?.containerStatuses?.[0] || {};
        const term = cs.state?.terminated || cs.lastState?.terminated;
        return el('tr', {dataset: {pod: pod.metadata.name}},
            el('td', {}, pod.metadata.name),
            el('td', {}, el('span', {class: phaseClass(pod.status?.phase)}, pod.status?.phase || '')),
            el('td', {}, pod.spec?.nodeName || ''),
            el('td', {}, cs.restartCount ?? 0),
            el('td', {title: pod.status?.startTime || ''}, pod.status?.startTime ? localTime(pod.status.startTime) : ''),
            el('td', {}, term ? `${term.exitCode}${term.reason ? ` ${term.reason}` : ''}` : ''),
            el('td', {}, el('button', {type: 'button', class: 'small', onclick: () => logs.open(pod.metadata.name, null)}, 'Log')));
    }

    function renderPhases() {
        const rows = state.history?.transitions || [];
        phases.replaceChildren(el('table', {},
            el('thead', {}, el('tr', {}, ['Time', 'Phase', 'Reason'].map((h) => el('th', {}, h)))),
            el('tbody', {}, rows.map((t) => el('tr', {},
                el('td', {title: t.time}, localTime(t.time)),
                el('td', {}, t.from ? `${t.from} → ` : '', el('span', {class: phaseClass(t.to)}, t.to)),
                el('td', {}, [t.reason, t.message].filter(Boolean).join(': ')))))));
    }

    function renderEvents() {
        const rows = state.events.slice(-200).reverse();
        events.replaceChildren(el('table', {},
            el('thead', {}, el('tr', {}, ['Time', 'Object', 'Reason', 'Message'].map((h) => el('th', {}, h)))),
            el('tbody', {}, rows.map((e) => el('tr', {class: e.type === 'Warning' ? 'warning' : ''},
                el('td', {title: e.eventTime || ''}, localTime(e.eventTime || e.lastTimestamp)),
                el('td', {}, e.involvedObject?.kind || ''),
                el('td', {}, e.reason || ''),
                el('td', {class: 'message'}, e.message || ''))))));
    }

    function renderCompanions() {
        if (!state.companions.length) {
            companions.replaceChildren(el('p', {class: 'hint'}, 'None. Add ', el('code', {}, 'caldera.io/companions: jupyter'),
                ' to the job\'s annotations for a notebook beside its task.'));
            return;
        }
        companions.replaceChildren(el('ul', {}, state.companions.map((c) => el('li', {},
            el('strong', {}, c.spec?.type || c.metadata.name), ' ',
            el('span', {class: phaseClass(c.status?.phase)}, c.status?.phase || 'Pending'), ' ',
            c.status?.url ? el('a', {href: companionLink(c.status.url), target: '_blank', rel: 'noopener'}, 'open') : '',
            c.status?.reason ? el('small', {}, ` ${c.status.reason}${c.status.message ? `: ${c.status.message}` : ''}`) : '',
            c.status?.lastActivity ? el('small', {}, ` · active ${age(c.status.lastActivity)} ago`) : ''))));
    }

    load().then(() => {
        if (stopped) return;
        stream = follow({namespace, job: name}, () => reload(), (s, detail) => {
            live.textContent = s === 'live' ? '● live' : s === 'reconnecting' ? '○ reconnecting' : '';
            live.className = `live ${s}`;
            live.title = detail || '';
            // Read again once it listens: a change between the reads above and the subscription (or
            // while it was down, before any event gave it a seq to resume from) sends no event.
            if (s === 'live') reload();
        });
    });
    const ticker = setInterval(() => { // durations and running bars move on between events
        if (state.job) renderSummary(state.job, state.job.status || {}, state.job.status?.state || {});
        if ((state.history?.attempts || []).some((a) => a.startTime && !a.finishTime)) drawTimeline();
    }, 5000);
    return {
        unmount() { stopped = true; window.removeEventListener('resize', redraw); if (stream) stream.close(); logs.close(); clearInterval(ticker); },
    };
}

