// caldera-terminal's client: a WebSocket to ./ws carrying the pty's bytes (binary frames both ways) and
// resize messages (text: {"type":"resize","cols":C,"rows":R}); xterm.js draws, else a line console.
(function () {
    'use strict';
    var statusEl = document.getElementById('status');
    function say(text) { statusEl.textContent = text; statusEl.hidden = !text; }

    // The token came in ?token= (the cookie now holds it): keep it out of the address bar and history.
    if (/[?&]token=/.test(location.search) && history.replaceState)
        history.replaceState(null, '', location.pathname);

    var url = new URL('ws', location.href);
    url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
    url.search = '';
    var ws = new WebSocket(url.href, ['caldera-terminal.v1']);
    ws.binaryType = 'arraybuffer';
    var encoder = new TextEncoder();
    function send(text) { if (ws.readyState === WebSocket.OPEN) ws.send(encoder.encode(text)); }
    function resize(cols, rows) {
        if (ws.readyState === WebSocket.OPEN)
            ws.send(JSON.stringify({type: 'resize', cols: cols, rows: rows}));
    }

    var write, onOpen;
    if (window.Terminal) {
        var term = new window.Terminal({cursorBlink: true, scrollback: 5000});
        var fit = window.FitAddon ? new window.FitAddon.FitAddon() : null;
        if (fit) term.loadAddon(fit);
        term.open(document.getElementById('terminal'));
        var refit = function () {
            if (fit) fit.fit();
            resize(term.cols, term.rows);
        };
        window.addEventListener('resize', refit);
        term.onData(send);
        term.onBinary(function (data) {
            var bytes = new Uint8Array(data.length);
            for (var i = 0; i < data.length; i++) bytes[i] = data.charCodeAt(i) & 255;
            if (ws.readyState === WebSocket.OPEN) ws.send(bytes);
        });
        write = function (bytes) { term.write(bytes); };
        onOpen = function () { refit(); term.focus(); };
    } else {
        // No xterm.js in this build: lines in, text out, escape sequences dropped.
        document.getElementById('console').hidden = false;
        var out = document.getElementById('console-out'), input = document.getElementById('console-in');
        var decoder = new TextDecoder();
        document.getElementById('console-form').addEventListener('submit', function (e) {
            e.preventDefault();
            send(input.value + '\n');
            input.value = '';
        });
        write = function (bytes) {
            var text = decoder.decode(bytes, {stream: true})
                .replace(/\x1b\][^\x07\x1b]*(\x07|\x1b\\)/g, '')
                .replace(/\x1b\[[0-9;?<>=]*[ -\/]*[@-~]/g, '')
                .replace(/\x1b[()][0-9A-Za-z]|\x1b[=>78]|\r/g, '');
            out.textContent = (out.textContent + text).slice(-200000);
            out.scrollTop = out.scrollHeight;
        };
        onOpen = function () {
            say('xterm.js is missing from this build of caldera-terminal: a line console stands in');
            resize(120, 40);
            input.focus();
        };
    }

    ws.onopen = function () { say(''); onOpen(); };
    ws.onmessage = function (e) {
        write(typeof e.data === 'string' ? encoder.encode(e.data) : new Uint8Array(e.data));
    };
    ws.onclose = function (e) {
        say('terminal closed' + (e.reason ? ': ' + e.reason : '') + ' (reload to open a new one)');
    };
})();
