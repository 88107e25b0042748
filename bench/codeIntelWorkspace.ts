/**
 * The replay's virtual workspace with code intelligence: `VirtualWorkspace` (the trajectory's files,
 * isolation, the tools' port) answering the `CodeIntelPort` calls through the TypeScript language
 * service over the same files (`tsCodeIntel.ts`), synchronously.
 */
import type { CodeIntelPort, CodeLocation, CodeSymbol, WorkspaceSymbol } from '../src/services/codeIntel/codeIntelPort';
import type { MemoryWorkspaceOptions } from '../src/services/memoryWorkspace';
import { TsCodeIntel } from './tsCodeIntel';
import { VirtualWorkspace, type FileValue } from './trajectory';

export class CodeIntelWorkspace extends VirtualWorkspace implements CodeIntelPort {
  private readonly intel = new TsCodeIntel({ paths: () => this.files.keys(), read: (p) => this.files.get(p) });

  constructor(files: Record<string, FileValue>, options: MemoryWorkspaceOptions = {}) {
    super(files, options);
  }

  outline(path: string): CodeSymbol[] | undefined {
    return this.intel.outline(path);
  }

  definitions(path: string, line: number, column: number): CodeLocation[] {
    return this.intel.definitions(path, line, column);
  }

  references(path: string, line: number, column: number): CodeLocation[] {
    return this.intel.references(path, line, column);
  }

  workspaceSymbols(query: string, limit: number): WorkspaceSymbol[] {
    return this.intel.workspaceSymbols(query, limit);
  }

  imports(path: string): string[] {
    return this.intel.imports(path);
  }
}
