/**
 * A code-intelligence port for tests with exact, hand-written answers: `MemoryWorkspace` (the real
 * isolation rules) plus the outline, imports and definitions given to it; optionally answering with
 * promises, as the editor does.
 */
import { MemoryWorkspace, type MemoryWorkspaceOptions } from '../../../../src/services/memoryWorkspace';
import type { CodeIntelPort, CodeLocation, CodeSymbol, WorkspaceSymbol } from '../../../../src/services/codeIntel/codeIntelPort';

export interface FakeAnswers {
  outlines?: Record<string, CodeSymbol[]>;
  imports?: Record<string, string[]>;
  /** `path:line:column` → locations. */
  definitions?: Record<string, CodeLocation[]>;
}

export class FakeIntel extends MemoryWorkspace implements CodeIntelPort {
  readonly calls: string[] = [];

  constructor(
    files: Record<string, string>,
    private readonly answers: FakeAnswers,
    options: MemoryWorkspaceOptions = {},
  ) {
    super(files, options);
  }

  outline(path: string): CodeSymbol[] | undefined {
    this.calls.push(`outline ${path}`);
    return this.answers.outlines?.[path];
  }

  definitions(path: string, line: number, column: number): CodeLocation[] {
    this.calls.push(`definitions ${path}:${line}:${column}`);
    return this.answers.definitions?.[`${path}:${line}:${column}`] ?? [];
  }

  references(): CodeLocation[] {
    return [];
  }

  workspaceSymbols(): WorkspaceSymbol[] {
    return [];
  }

  imports(path: string): string[] {
    this.calls.push(`imports ${path}`);
    return this.answers.imports?.[path] ?? [];
  }
}

/** The same port answering every code-intelligence and read call with a promise. */
export function asyncPort(port: FakeIntel | (CodeIntelPort & MemoryWorkspace)): CodeIntelPort & MemoryWorkspace {
  return new Proxy(port, {
    get(target, key, receiver) {
      const v = Reflect.get(target, key, receiver);
      if (
        typeof v !== 'function' ||
        !['outline', 'definitions', 'imports', 'resolve', 'references', 'workspaceSymbols'].includes(String(key))
      )
        return typeof v === 'function' ? v.bind(target) : v;
      return (...args: unknown[]) => Promise.resolve().then(() => (v as (...a: unknown[]) => unknown).apply(target, args));
    },
  }) as CodeIntelPort & MemoryWorkspace;
}

/** A file of `n` lines `line 1` … `line n`. */
export function lines(n: number, prefix = 'line'): string {
  return Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`).join('\n');
}
