// The timeline chart of a job page: one row per pod, one SVG bar per attempt from its start to its
// end (or now), coloured by outcome; hovering a bar shows its exit code, reason, node and times, and
// a click opens that attempt's log. Data: the job's history (README: .../jobs/{name}/history).

import {bytes, duration, el, localTime, ms, svg} from './util.js';

const STOPPED = /stop|kill|evict|preempt|abort|terminat|delet|suspend|restart|deadline|shutdown/i;

/** The outcome class of an attempt: run, ok, fail, oom or stopped. */
export function outcome(a) {
    if (!a.finishTime) return 'run';
    if (a.exitCode === 0 && !/fail|error/i.test(a.reason || '')) return 'ok';
    if (/oom/i.test(a.reason || '')) return 'oom';
    if (STOPPED.test(a.reason || '')) return 'stopped';
    return 'fail';
}

function describe(a) {
    const end = a.finishTime ? localTime(a.finishTime) : 'running';
    const took = duration((a.finishTime ? ms(a.finishTime) : Date.now()) - ms(a.startTime));
    return [
        `${a.pod} · attempt ${a.attempt}`,
        a.finishTime ? `exit code ${a.exitCode ?? '?'}${a.reason ? ` · ${a.reason}` : ''}` : 'running',
        a.message || '',
        `${localTime(a.startTime)} → ${end} (${took})`,
        [a.node && `node ${a.node}`, a.pid && `pid ${a.pid}`].filter(Boolean).join(' · '),
        [a.peakMemoryBytes ? `peak ${bytes(a.peakMemoryBytes)}` : '', a.cpuSeconds ? `${a.cpuSeconds.toFixed(2)} CPU s` : ''].filter(Boolean).join(' · '),
    ].filter(Boolean);
}

/** An element holding the chart for `history` drawn `width` pixels wide; onPick(pod, attempt). */
export function timeline(history, width, onPick) {
    const attempts = (history?.attempts || []).filter((a) => a.startTime);
    if (!attempts.length) return el('p', {class: 'hint'}, 'No attempt has started yet.');
    const pods = [...new Set(attempts.map((a) => a.pod))];
    const now = Date.now();
    const t0 = Math.min(...attempts.map((a) => ms(a.startTime)));
    const t1 = Math.max(...attempts.map((a) => (a.finishTime ? ms(a.finishTime) : now)), t0 + 1000);
    const label = Math.min(170, Math.max(90, width * 0.3));
    const plot = Math.max(60, width - label - 12);
    const row = 24, top = 22;
    const fits = Math.floor((label - 8) / 6.7); // characters of a pod's name the label column holds
    const height = top + pods.length * row + 6;
    const x = (t) => label + ((t - t0) / (t1 - t0)) * plot;

    const tip = el('div', {class: 'tip', hidden: true});
    const chart = svg('svg', {width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': 'attempts over time'});
    const ticks = plot < 320 ? 2 : 4;
    for (let i = 0; i <= ticks; i++) {
        const t = t0 + ((t1 - t0) * i) / ticks;
        chart.append(svg('line', {x1: x(t), x2: x(t), y1: top - 4, y2: height, class: 'grid'}),
            svg('text', {x: x(t), y: 12, class: 'axis', 'text-anchor': i === 0 ? 'start' : i === ticks ? 'end' : 'middle'},
                i === 0 ? localTime(new Date(t).toISOString()) : `+${duration(t - t0)}`));
    }
    pods.forEach((pod, i) => {
        const y = top + i * row;
        chart.append(svg('text', {x: 4, y: y + 16, class: 'label'}, pod.length > fits ? `…${pod.slice(-(fits - 1))}` : pod));
        for (const a of attempts.filter((b) => b.pod === pod)) {
            const x1 = x(ms(a.startTime)), x2 = x(a.finishTime ? ms(a.finishTime) : now);
            const lines = describe(a);
            const bar = svg('rect', {x: x1, y: y + 4, width: Math.max(3, x2 - x1), height: row - 8, rx: 3,
                class: `bar ${outcome(a)}`, 'data-pod': pod, 'data-attempt': a.attempt, tabindex: 0},
            svg('title', {}, lines.join('\n')));
            const show = (e) => {
                tip.replaceChildren(...lines.map((l, k) => el('div', {class: k === 0 ? 'tiphead' : ''}, l)));
                tip.hidden = false;
                const box = chart.getBoundingClientRect();
                const px = (e.clientX ?? box.left + x1) - box.left, py = (e.clientY ?? box.top + y) - box.top;
                tip.style.left = `${Math.min(px + 12, Math.max(0, width - 260))}px`;
                tip.style.top = `${py + 14}px`;
            };
            bar.addEventListener('mousemove', show);
            bar.addEventListener('focus', show);
            bar.addEventListener('mouseleave', () => { tip.hidden = true; });
            bar.addEventListener('blur', () => { tip.hidden = true; });
            bar.addEventListener('click', () => onPick(pod, a.attempt));
            chart.append(bar);
        }
    });
    const legend = el('div', {class: 'legend'}, [['run', 'running'], ['ok', 'succeeded'], ['fail', 'failed'],
        ['oom', 'out of memory'], ['stopped', 'stopped']].map(([c, t]) => el('span', {}, el('i', {class: `bar ${c}`}), t)));
    return el('div', {class: 'chartbox'}, chart, tip, legend);
}
