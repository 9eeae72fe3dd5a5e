// Small helpers every view shares: building DOM nodes, readable times and durations,
// Kubernetes quantities as numbers, and HTML-safe text.

/** el('div', {class: 'x', onclick: f}, child, 'text', ...) builds an element; null children are skipped. */
export function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
        if (value === null || value === undefined || value === false) continue;
        if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
        else if (key === 'class') node.className = value;
        else if (key === 'dataset') Object.assign(node.dataset, value);
        else node.setAttribute(key, value === true ? '' : value);
    }
    for (const child of children.flat()) {
        if (child === null || child === undefined || child === false) continue;
        node.append(child instanceof Node ? child : String(child));
    }
    return node;
}

const SVG_NS = 'http://www.w3.org/2000/svg';
/** The same for SVG elements. */
export function svg(tag, attrs, ...children) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [key, value] of Object.entries(attrs || {})) {
        if (value === null || value === undefined) continue;
        if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
        else node.setAttribute(key, value);
    }
    for (const child of children.flat()) if (child !== null && child !== undefined) node.append(child);
    return node;
}

/** 3m12s, 1h04m, 2d3h, 450ms: a duration in milliseconds, two units at most. */
export function duration(ms) {
    if (ms === null || ms === undefined || !isFinite(ms)) return '';
    if (ms < 0) ms = 0;
    if (ms < 1000) return `${Math.round(ms)}ms`;
    let s = Math.floor(ms / 1000);
    const d = Math.floor(s / 86400); s -= d * 86400;
    const h = Math.floor(s / 3600); s -= h * 3600;
    const m = Math.floor(s / 60); s -= m * 60;
    if (d) return `${d}d${h}h`;
    if (h) return `${h}h${String(m).padStart(2, '0')}m`;
    if (m) return `${m}m${String(s).padStart(2, '0')}s`;
    return `${s}s`;
}

/** Milliseconds since the epoch of an RFC 3339 time, or NaN. */
export const ms = (time) => (time ? Date.parse(time) : NaN);

/** The age of something created at `time`, as a duration. */
export const age = (time, now = Date.now()) => duration(now - ms(time));

/** An RFC 3339 time as this browser's local date and time, with seconds. */
export function localTime(time) {
    const t = ms(time);
    if (!isFinite(t)) return '';
    const d = new Date(t);
    const today = new Date();
    const sameDay = d.toDateString() === today.toDateString();
    const clock = d.toLocaleTimeString(undefined, {hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false});
    return sameDay ? clock : `${d.toLocaleDateString(undefined, {year: 'numeric', month: 'short', day: 'numeric'})} ${clock}`;
}

const SUFFIX = {n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, K: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
    Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4, Pi: 1024 ** 5, Ei: 1024 ** 6};
/** A Kubernetes quantity ("500m", "8Gi", 4) as a number (cores, bytes, counts); NaN when unreadable. */
export function quantity(q) {
    if (typeof q === 'number') return q;
    const m = /^([+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?)([a-zA-Z]*)$/.exec(String(q ?? '').trim());
    if (!m || !(m[2] in SUFFIX)) return NaN;
    return parseFloat(m[1]) * SUFFIX[m[2]];
}

/** A resource amount for people: cores with up to 2 decimals, bytes in Ki/Mi/Gi, counts as they are. */
export function amount(resource, value) {
    if (!isFinite(value)) return '';
    if (resource === 'memory' || resource.endsWith('storage')) {
        const units = ['B', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi'];
        let v = value, i = 0;
        while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
        return `${+v.toFixed(v < 10 && i ? 1 : 0)}${units[i]}`;
    }
    return String(+value.toFixed(2));
}

/** Bytes for people. */
export const bytes = (n) => amount('memory', n);

/** A debounced function: runs `fn` once, `wait` ms after the last call. */
export function debounce(fn, wait) {
    let timer = 0;
    return (...args) => { clearTimeout(timer); timer = setTimeout(() => fn(...args), wait); };
}

/** The CSS class of a phase, for its colour. */
export const phaseClass = (phase) => `phase phase-${(phase || 'none').toLowerCase()}`;
