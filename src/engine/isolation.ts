import { binaryKind } from '../common/binaryKind';
import { GlobSet } from '../common/glob';
import { formatBytes, formatInt } from '../common/numberFormat';

/** Why an attachment was refused. */
/** `not-regular`: a FIFO, socket or device (reading one can block forever), never read. */
export type RejectionReason = 'outside-workspace' | 'not-found' | 'excluded' | 'binary' | 'too-large' | 'not-regular';

export interface Rejection {
  /** What the user tried to attach, as a short label (path, range). */
  attachment: string;
  reason: RejectionReason;
  /** A clear, user-facing sentence. */
  message: string;
  /** `too-large`: the file's size and the limit it is over, in bytes (what can be done about it is offered from these). */
  bytes?: number;
  limit?: number;
  /** `binary`: what the file is ("PNG image"), when its first bytes or its name say. */
  binaryKind?: string;
}

/**
 * A size and its limit as a user compares them: "20 MB (limit 8 MB)"; exact bytes when the rounded
 * figures would read the same ("8,388,609 bytes (limit 8,388,608 bytes)").
 */
export function sizeOverLimit(bytes: number, limit: number): string {
  const [a, b] = [formatBytes(bytes), formatBytes(limit)];
  return a === b ? `${formatInt(bytes)} bytes (limit ${formatInt(limit)} bytes)` : `${a} (limit ${b})`;
}

/** `too-large`, in one wording everywhere: "app.log is 20 MB (limit 8 MB); nothing of it was sent." */
export function tooLargeRejection(label: string, bytes: number, limit: number): Rejection {
  return {
    attachment: label,
    reason: 'too-large',
    message: `${label} is ${sizeOverLimit(bytes, limit)}; nothing of it was sent.`,
    bytes,
    limit,
  };
}

/** `binary`: "logo.png is binary (PNG image); only text files can be attached." `head`: the file's first bytes, when read. */
export function binaryRejection(label: string, path: string = label, head?: Uint8Array): Rejection {
  const kind = binaryKind(path, head);
  return {
    attachment: label,
    reason: 'binary',
    message: `${label} is binary${kind ? ` (${kind})` : ''}; only text files can be attached.`,
    ...(kind ? { binaryKind: kind } : {}),
  };
}

export const DEFAULT_EXCLUDES: readonly string[] = [
  '**/.env',
  '**/.env.*',
  '**/*.pem',
  '**/*.key',
  '**/*.p12',
  '**/*.pfx',
  '**/id_rsa*',
  '**/id_ed25519*',
  '**/id_ecdsa*',
  '**/.ssh/**',
  '**/.aws/**',
  '**/.npmrc',
  '**/.netrc',
  '**/.git/**',
  '**/.envrc',
  '**/*.env',
  '**/.git-credentials',
  '**/.pgpass',
  '**/.pypirc',
  '**/.docker/config.json',
  '**/.kube/config',
  '**/*.tfstate',
  '**/*.jks',
  '**/*.keystore',
  '**/id_dsa*',
  '**/credentials.json',
  '**/.dockercfg',
  '**/.htpasswd',
  '**/*.tfstate.backup',
  '**/service-account*.json',
  '**/.yarnrc.yml',
  '**/.terraformrc',
];

export const DEFAULT_MAX_FILE_BYTES = 8 * 1024 * 1024;

/**
 * Normalizes a workspace-relative path ('/' separators, no '.' segments, no empty segments).
 * Returns undefined when the path is absolute or climbs out of the workspace.
 */
export function normalizeRelativePath(path: string): string | undefined {
  if (path.length === 0) return undefined;
  const p = path.replace(/\\/g, '/');
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p) || p.startsWith('~')) return undefined;
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length === 0) return undefined;
      out.pop();
      continue;
    }
    out.push(seg);
  }
  return out.length === 0 ? undefined : out.join('/');
}

export interface ContentCheckOptions {
  maxFileBytes: number;
}

/** UTF-8 byte length without allocating. */
export function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

export function looksBinary(content: string): boolean {
  return content.includes('\u0000');
}

/**
 * The pure part of workspace isolation: path shape, excludes and content checks. The host adds
 * real-path (symlink) resolution against the workspace folders before calling this.
 */
export class IsolationPolicy {
  private readonly excludes: GlobSet;
  constructor(
    excludes: readonly string[] = DEFAULT_EXCLUDES,
    readonly maxFileBytes: number = DEFAULT_MAX_FILE_BYTES,
  ) {
    // Case-insensitive: on a file system that ignores case (and a real path that keeps the case it
    // was given) `.ENV` is `.env`. An exclude whose alternatives cannot be expanded refuses everything.
    this.excludes = new GlobSet(excludes, { caseInsensitive: true, unusable: 'matches-everything' });
  }

  /** Checks a path; on success returns the normalized path. */
  checkPath(path: string, label = path): { ok: true; path: string } | { ok: false; rejection: Rejection } {
    const norm = normalizeRelativePath(path);
    if (norm === undefined) {
      return {
        ok: false,
        rejection: {
          attachment: label,
          reason: 'outside-workspace',
          message: `${label} is outside the workspace; only files inside this window's workspace folders can be attached.`,
        },
      };
    }
    const pattern = this.excludes.match(norm);
    if (pattern !== undefined) {
      return {
        ok: false,
        rejection: {
          attachment: label,
          reason: 'excluded',
          message: `${label} matches the exclude pattern ${pattern} (strata.context.exclude) and was not attached.`,
        },
      };
    }
    return { ok: true, path: norm };
  }

  checkContent(content: string, label: string): Rejection | undefined {
    if (looksBinary(content)) return binaryRejection(label);
    const bytes = utf8Length(content);
    if (bytes > this.maxFileBytes) return tooLargeRejection(label, bytes, this.maxFileBytes);
    return undefined;
  }
}
