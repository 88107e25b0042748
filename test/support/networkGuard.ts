/**
 * Test guard: records every outgoing network attempt (fetch, http/https requests, raw sockets, DNS
 * lookups) and blocks any whose host is not allowed (default: 127.0.0.1 only), before a packet or a
 * DNS query leaves the machine. Tests assert `foreign` stays empty; `local` is the positive control
 * that shows the guard really sees the traffic.
 */
// `import x = require()` gives the real module objects (a namespace import would be a frozen copy).
import dns = require('dns');
import http = require('http');
import https = require('https');
import net = require('net');
import tls = require('tls');

export interface NetworkGuard {
  /** Attempts to hosts outside the allow-list: `layer host`. */
  readonly foreign: string[];
  /** Allowed attempts: `layer host[:port]`. */
  readonly local: string[];
  uninstall(): void;
}

type AnyFn = (...args: any[]) => any; // eslint-disable-line @typescript-eslint/no-explicit-any

export function installNetworkGuard(allowedHosts: string[] = ['127.0.0.1']): NetworkGuard {
  const allowed = new Set(allowedHosts.map((h) => h.toLowerCase()));
  const foreign: string[] = [];
  const local: string[] = [];
  const restore: (() => void)[] = [];

  const blocked = (layer: string, host: string | undefined) => {
    const h = (host ?? 'localhost').replace(/^\[|\]$/g, '').toLowerCase();
    if (allowed.has(h)) {
      local.push(`${layer} ${h}`);
      return undefined;
    }
    foreign.push(`${layer} ${h}`);
    const e = new Error(`network guard: blocked ${layer} to ${h}`) as NodeJS.ErrnoException;
    e.code = 'ENETUNREACH';
    return e;
  };

  const patch = <T extends object>(obj: T, key: keyof T, wrap: (orig: AnyFn) => AnyFn) => {
    const orig = obj[key] as unknown as AnyFn;
    (obj as Record<keyof T, unknown>)[key] = wrap(orig);
    restore.push(() => ((obj as Record<keyof T, unknown>)[key] = orig));
  };

  // fetch (undici)
  if (typeof globalThis.fetch === 'function') {
    patch(
      globalThis,
      'fetch',
      (orig) =>
        function guardedFetch(this: unknown, input: unknown, init?: unknown) {
          let url: string;
          if (typeof input === 'string') url = input;
          else if (input instanceof URL) url = input.href;
          else url = (input as { url: string }).url;
          let host: string | undefined;
          try {
            host = new URL(url).hostname;
          } catch {
            host = url;
          }
          const e = blocked('fetch', host);
          if (e) return Promise.reject(new TypeError('fetch failed', { cause: e }));
          return orig.call(this, input, init);
        },
    );
  }

  // http / https
  const hostOfRequestArgs = (args: unknown[]): string | undefined => {
    const a = args[0];
    if (typeof a === 'string') return new URL(a).hostname;
    if (a instanceof URL) return a.hostname;
    const o = (typeof args[1] === 'object' && args[1] ? args[1] : a) as { hostname?: string; host?: string } | undefined;
    return o?.hostname ?? o?.host?.replace(/:\d+$/, '');
  };
  for (const [name, mod] of [
    ['http', http],
    ['https', https],
  ] as const) {
    for (const fn of ['request', 'get'] as const) {
      patch(
        mod,
        fn,
        (orig) =>
          function guardedRequest(this: unknown, ...args: unknown[]) {
            const e = blocked(`${name}.${fn}`, hostOfRequestArgs(args));
            if (e) throw e;
            return orig.apply(this, args);
          },
      );
    }
  }

  // raw sockets
  const hostOfConnectArgs = (args: unknown[]): string | undefined => {
    const a = args[0];
    if (typeof a === 'object' && a !== null) {
      const o = a as { host?: string; path?: string };
      return o.path ? 'localhost' : o.host;
    }
    if (typeof a === 'number') return typeof args[1] === 'string' ? args[1] : 'localhost';
    if (typeof a === 'string') return 'localhost'; // a unix socket path
    return undefined;
  };
  for (const fn of ['connect', 'createConnection'] as const) {
    patch(
      net,
      fn,
      (orig) =>
        function guardedConnect(this: unknown, ...args: unknown[]) {
          const e = blocked(`net.${fn}`, hostOfConnectArgs(args));
          if (e) throw e;
          return orig.apply(this, args);
        },
    );
  }
  patch(
    tls,
    'connect',
    (orig) =>
      function guardedTls(this: unknown, ...args: unknown[]) {
        const e = blocked('tls.connect', hostOfConnectArgs(args));
        if (e) throw e;
        return orig.apply(this, args);
      },
  );

  // DNS
  patch(
    dns,
    'lookup',
    (orig) =>
      function guardedLookup(this: unknown, host: string, ...rest: unknown[]) {
        const e = blocked('dns.lookup', host);
        if (e) {
          const cb = rest[rest.length - 1];
          if (typeof cb === 'function') {
            process.nextTick(() => (cb as AnyFn)(e));
            return undefined;
          }
          throw e;
        }
        return orig.call(this, host, ...rest);
      },
  );
  patch(
    dns.promises,
    'lookup',
    (orig) =>
      function guardedLookupP(this: unknown, host: string, ...rest: unknown[]) {
        const e = blocked('dns.promises.lookup', host);
        if (e) return Promise.reject(e);
        return orig.call(this, host, ...rest);
      },
  );

  return {
    foreign,
    local,
    uninstall() {
      while (restore.length) restore.pop()!();
    },
  };
}
