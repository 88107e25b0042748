"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.installNetworkGuard = installNetworkGuard;
/**
 * Test guard: records every outgoing network attempt (fetch, http/https requests, raw sockets, DNS
 * lookups) and blocks any whose host is not allowed (default: 127.0.0.1 only), before a packet or a
 * DNS query leaves the machine. Tests assert `foreign` stays empty; `local` is the positive control
 * that shows the guard really sees the traffic.
 */
// `import x = require()` gives the real module objects (a namespace import would be a frozen copy).
const dns = require("dns");
const http = require("http");
const https = require("https");
const net = require("net");
const tls = require("tls");
function installNetworkGuard(allowedHosts = ['127.0.0.1']) {
    const allowed = new Set(allowedHosts.map((h) => h.toLowerCase()));
    const foreign = [];
    const local = [];
    const restore = [];
    const blocked = (layer, host) => {
        const h = (host ?? 'localhost').replace(/^\[|\]$/g, '').toLowerCase();
        if (allowed.has(h)) {
            local.push(`${layer} ${h}`);
            return undefined;
        }
        foreign.push(`${layer} ${h}`);
        const e = new Error(`network guard: blocked ${layer} to ${h}`);
        e.code = 'ENETUNREACH';
        return e;
    };
    const patch = (obj, key, wrap) => {
        const orig = obj[key];
        obj[key] = wrap(orig);
        restore.push(() => (obj[key] = orig));
    };
    // fetch (undici)
    if (typeof globalThis.fetch === 'function') {
        patch(globalThis, 'fetch', (orig) => function guardedFetch(input, init) {
            let url;
            if (typeof input === 'string')
                url = input;
            else if (input instanceof URL)
                url = input.href;
            else
                url = input.url;
            let host;
            try {
                host = new URL(url).hostname;
            }
            catch {
                host = url;
            }
            const e = blocked('fetch', host);
            if (e)
                return Promise.reject(new TypeError('fetch failed', { cause: e }));
            return orig.call(this, input, init);
        });
    }
    // http / https
    const hostOfRequestArgs = (args) => {
        const a = args[0];
        if (typeof a === 'string')
            return new URL(a).hostname;
        if (a instanceof URL)
            return a.hostname;
        const o = (typeof args[1] === 'object' && args[1] ? args[1] : a);
        return o?.hostname ?? o?.host?.replace(/:\d+$/, '');
    };
    for (const [name, mod] of [['http', http], ['https', https]]) {
        for (const fn of ['request', 'get']) {
            patch(mod, fn, (orig) => function guardedRequest(...args) {
                const e = blocked(`${name}.${fn}`, hostOfRequestArgs(args));
                if (e)
                    throw e;
                return orig.apply(this, args);
            });
        }
    }
    // raw sockets
    const hostOfConnectArgs = (args) => {
        const a = args[0];
        if (typeof a === 'object' && a !== null) {
            const o = a;
            return o.path ? 'localhost' : o.host;
        }
        if (typeof a === 'number')
            return typeof args[1] === 'string' ? args[1] : 'localhost';
        if (typeof a === 'string')
            return 'localhost'; // a unix socket path
        return undefined;
    };
    for (const fn of ['connect', 'createConnection']) {
        patch(net, fn, (orig) => function guardedConnect(...args) {
            const e = blocked(`net.${fn}`, hostOfConnectArgs(args));
            if (e)
                throw e;
            return orig.apply(this, args);
        });
    }
    patch(tls, 'connect', (orig) => function guardedTls(...args) {
        const e = blocked('tls.connect', hostOfConnectArgs(args));
        if (e)
            throw e;
        return orig.apply(this, args);
    });
    // DNS
    patch(dns, 'lookup', (orig) => function guardedLookup(host, ...rest) {
        const e = blocked('dns.lookup', host);
        if (e) {
            const cb = rest[rest.length - 1];
            if (typeof cb === 'function') {
                process.nextTick(() => cb(e));
                return undefined;
            }
            throw e;
        }
        return orig.call(this, host, ...rest);
    });
    patch(dns.promises, 'lookup', (orig) => function guardedLookupP(host, ...rest) {
        const e = blocked('dns.promises.lookup', host);
        if (e)
            return Promise.reject(e);
        return orig.call(this, host, ...rest);
    });
    return {
        foreign,
        local,
        uninstall() {
            while (restore.length)
                restore.pop()();
        },
    };
}
//# sourceMappingURL=networkGuard.js.map