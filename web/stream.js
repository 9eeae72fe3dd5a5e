// The WebSocket stream of events (README "Live status over WebSocket"): asks the API where it
// listens, sends the token as the bearer subprotocol, and after any drop reconnects with
// since=<last seq> so no event is missed or seen twice. No polling anywhere.

import {get, paths, session} from './api.js';

let streamUrl = null;
async function whereStreamListens() {
    if (!streamUrl) {
        // A server listening on every address names it 0.0.0.0 or [::]: the page's host reaches it.
        const url = new URL((await get(paths.streamInfo())).url);
        if (url.hostname === '0.0.0.0' || url.hostname === '[::]') url.hostname = location.hostname;
        streamUrl = url.href;
    }
    return streamUrl;
}

function bearerProtocol(token) {
    const b64 = btoa(unescape(encodeURIComponent(token)));
    return 'base64url.bearer.authorization.k8s.io.' + b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
  * follow({namespace, job, pod, since}, onEvents, onState) opens the stream; events arrive in
  * batches (one per animation frame at most) so a burst costs one render. onState('live' |
  * 'reconnecting' | 'closed', detail). Returns {close(), get lastSeq()}.
  */
export function follow(filter, onEvents, onState = () => {}) {
    let last = filter.since ?? null;
    let socket = null;
    let closed = false;
    let retry = 0;
    let pending = [];
    let frame = 0;

    const flush = () => {
        frame = 0;
        const batch = pending;
        pending = [];
        if (batch.length) onEvents(batch);
    };

    async function connect() {
        if (closed) return;
        let base;
        try { base = await whereStreamListens(); } catch (e) { onState('reconnecting', e.message); return later(); }
        const query = new URLSearchParams();
        if (filter.namespace) query.set('namespace', filter.namespace);
        if (filter.job) query.set('job', filter.job);
        if (filter.pod) query.set('pod', filter.pod);
        if (last !== null) query.set('since', last);
        const protocols = ['caldera.events.v1'];
        if (session.token) protocols.push(bearerProtocol(session.token));
        const q = query.toString();
        socket = new WebSocket(q ? `${base}?${q}` : base, protocols);
        socket.onopen = () => { retry = 0; onState('live'); };
        socket.onmessage = (message) => {
            const event = JSON.parse(message.data);
            last = event.seq;
            pending.push(event);
            if (!frame) frame = requestAnimationFrame(flush);
        };
        socket.onclose = (e) => {
            socket = null;
            if (closed) return;
            if (pending.length) flush();
            onState('reconnecting', e.reason || `closed (${e.code})`);
            later(e.code === 1008 ? 0 : undefined);
        };
    }

    function later(wait) {
        const delay = wait ?? Math.min(1000 * 2 ** retry++, 15000);
        setTimeout(connect, delay);
    }

    let held = false;
    connect();
    return {
        close() { closed = true; if (socket) socket.close(1000); cancelAnimationFrame(frame); onState('closed'); },
        /** Drops the connection and stays away until resume() (a network outage, for the tests). */
        hold() { held = true; closed = true; if (socket) socket.close(1000); onState('reconnecting', 'held'); },
        resume() { if (held) { held = false; closed = false; connect(); } },
        get lastSeq() { return last; },
    };
}
