import * as vscode from 'vscode';
import { Disposable } from '../../common/lifecycle';

export const REQUEST_SCHEME = 'strata-request';

/**
 * Read-only virtual documents for "Strata: Show Last Request" (and the Context Layers tree's
 * "Show Content"): the text is produced by the session when the document is opened; nothing is
 * written to disk. Each open gets a fresh URI so the editor never shows stale content.
 */
export class RequestDocuments extends Disposable implements vscode.TextDocumentContentProvider {
  private readonly contents = new Map<string, string>();
  private counter = 0;
  private readonly onDidChangeEmitter = this._register(new vscode.EventEmitter<vscode.Uri>());
  readonly onDidChange = this.onDidChangeEmitter.event;

  constructor() {
    super();
    this._register(vscode.workspace.registerTextDocumentContentProvider(REQUEST_SCHEME, this));
    this._register(
      vscode.workspace.onDidCloseTextDocument((doc) => {
        if (doc.uri.scheme === REQUEST_SCHEME) this.contents.delete(doc.uri.toString());
      }),
    );
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? '// This Strata document is no longer available; run the command again.\n';
  }

  /** Opens `text` as a read-only document named `name` (its extension picks the language). */
  async open(name: string, text: string, language?: string): Promise<vscode.TextDocument> {
    const uri = vscode.Uri.from({ scheme: REQUEST_SCHEME, path: `/${name}`, query: `n=${++this.counter}` });
    this.contents.set(uri.toString(), text);
    let doc = await vscode.workspace.openTextDocument(uri);
    if (language && doc.languageId !== language) doc = await vscode.languages.setTextDocumentLanguage(doc, language);
    await vscode.window.showTextDocument(doc, { preview: true });
    return doc;
  }

  /** Markdown shown rendered (the editor's Markdown preview); as source where the preview is not available. */
  async openRendered(name: string, markdown: string): Promise<vscode.TextDocument> {
    const uri = vscode.Uri.from({ scheme: REQUEST_SCHEME, path: `/${name}`, query: `n=${++this.counter}` });
    this.contents.set(uri.toString(), markdown);
    let doc = await vscode.workspace.openTextDocument(uri);
    if (doc.languageId !== 'markdown') doc = await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
    try {
      await vscode.commands.executeCommand('markdown.showPreview', uri);
    } catch {
      // The built-in Markdown extension is disabled: the source is still readable.
      await vscode.window.showTextDocument(doc, { preview: true });
    }
    return doc;
  }
}
