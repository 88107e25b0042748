import { GlobSet } from '../common/glob';

/** Why an attachment was refused. */
/** `not-regular`: a FIFO, socket or device (reading one can block forever), never read. */
export type RejectionReason = 'outside-workspace' | 'not-found' | 'excluded' | 'binary' | 'too-large' | 'not-regular';

export interface Rejection {
  /** What the user tried to attach, as a short label (path, range). */
  attachment: string;
  reason: RejectionReason;
  /** A clear, user-facing sentence. */
  message: string;
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
    if (looksBinary(content)) {
      return { attachment: label, reason: 'binary', message: `${label} looks like a binary file and was not attached.` };
    }
    const bytes = utf8Length(content);
    if (bytes > this.maxFileBytes) {
      return {
        attachment: label,
        reason: 'too-large',
        message: `${label} is ${bytes} bytes, over strata.context.maxFileBytes (${this.maxFileBytes}); nothing of it was sent.`,
      };
    }
    return undefined;
  }
}
