// The HTTP API as the UI uses it: the bearer token and namespace kept in localStorage, requests
// that throw an ApiError carrying the server's Kubernetes Status, and the paths of every resource.

const TOKEN_KEY = 'caldera-token';
const NAMESPACE_KEY = 'caldera-namespace';

export const session = {
    get token() { return localStorage.getItem(TOKEN_KEY) || ''; },
    set token(value) { value ? localStorage.setItem(TOKEN_KEY, value) : localStorage.removeItem(TOKEN_KEY); },
    get namespace() { return localStorage.getItem(NAMESPACE_KEY) || 'default'; },
    set namespace(value) { localStorage.setItem(NAMESPACE_KEY, value || 'default'); },
};

/** A refused request: `status` is the server's Status object (or one made from the HTTP answer). */
export class ApiError extends Error {
    constructor(code, status) {
        super(status.message || `HTTP ${code}`);
        this.code = code;
        this.status = status;
    }
}

export function authHeaders() {
    return session.token ? {Authorization: `Bearer ${session.token}`} : {};
}

/** fetch with the token; resolves to the parsed JSON (or text), throws ApiError on any non-2xx. */
export async function request(method, path, {body, contentType, text, signal, accept} = {}) {
    const headers = {...authHeaders()};
    if (accept) headers.Accept = accept;
    if (body !== undefined) headers['Content-Type'] = contentType || 'application/json';
    const answer = await fetch(path, {method, headers, signal,
        body: body === undefined || typeof body === 'string' ? body : JSON.stringify(body)});
    if (!answer.ok) {
        let status;
        try { status = await answer.json(); } catch { status = {message: `${answer.status} ${answer.statusText}`}; }
        throw new ApiError(answer.status, status);
    }
    if (text) return answer.text();
    return answer.status === 204 ? null : answer.json();
}

export const get = (path, opts) => request('GET', path, opts);
const enc = encodeURIComponent;

export const paths = {
    jobs: (ns) => `/apis/batch.volcano.sh/v1alpha1/namespaces/${enc(ns)}/jobs`,
    job: (ns, name) => `/apis/batch.volcano.sh/v1alpha1/namespaces/${enc(ns)}/jobs/${enc(name)}`,
    jobAction: (ns, name, action) => `/apis/caldera.io/v1/namespaces/${enc(ns)}/jobs/${enc(name)}/${action}`,
    history: (ns, name) => `/apis/caldera.io/v1/namespaces/${enc(ns)}/jobs/${enc(name)}/history`,
    pods: (ns, job) => `/api/v1/namespaces/${enc(ns)}/pods?labelSelector=${enc(`volcano.sh/job-name=${job}`)}`,
    podLog: (ns, pod) => `/api/v1/namespaces/${enc(ns)}/pods/${enc(pod)}/log`,
    podGroup: (ns, name) => `/apis/scheduling.volcano.sh/v1beta1/namespaces/${enc(ns)}/podgroups/${enc(name)}`,
    events: (ns, name) => `/api/v1/namespaces/${enc(ns)}/events?fieldSelector=${enc(`involvedObject.name=${name}`)}`,
    companions: (ns) => `/apis/caldera.io/v1/namespaces/${enc(ns)}/companions`,
    queues: () => '/apis/scheduling.volcano.sh/v1beta1/queues',
    nodes: () => '/api/v1/nodes',
    tokens: () => '/apis/caldera.io/v1/tokens',
    streamInfo: () => '/apis/caldera.io/v1/stream',
};

/** Kubernetes' Table of a list (kubectl's Accept): a few cells and the metadata of each object. */
export const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

/**
 * Every page of a list (following metadata.continue); `onPage(items, list)` sees each as it comes,
 * while the next page is already being fetched. The first page is small (`first` items) so the
 * screen fills at once; the rest come `limit` at a time. With `table`, pages are Tables and
 * `items` their rows (list.columnDefinitions says what each cell is).
 */
export async function listAll(path, onPage, {first = 250, limit = 1000, signal, table = false} = {}) {
    const sep = path.includes('?') ? '&' : '?';
    const accept = table ? TABLE : undefined;
    const page = (size, token) => get(`${path}${sep}limit=${size}${token ? `&continue=${enc(token)}` : ''}`, {signal, accept});
    let list = await page(first, '');
    const resourceVersion = list.metadata?.resourceVersion;
    let count = 0;
    for (;;) {
        const token = list.metadata?.continue || '';
        const next = token ? page(limit, token) : null;
        const items = (list.kind === 'Table' ? list.rows : list.items) || [];
        count += items.length;
        if (onPage) onPage(items, list);
        if (!next) break;
        list = await next;
    }
    return {count, resourceVersion};
}

/** Where the server's parse or validation error points: [{line, column, field, message}]. */
export function errorPlaces(status) {
    const places = [];
    const read = (message, field) => {
        const m = /line (\d+)(?:, column (\d+))?/.exec(message || '');
        places.push({line: m ? +m[1] : null, column: m && m[2] ? +m[2] : null, field: field || '', message: message || ''});
    };
    const causes = status?.details?.causes || [];
    for (const cause of causes) read(cause.message, cause.field);
    if (!causes.length) read(status?.message, '');
    return places;
}
