import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { renderPanelPage } from './webviewPage';

/** Folders a Strata webview may load from: the webview bundle and media/. Nothing else. */
export function webviewResourceRoots(extensionUri: vscode.Uri): vscode.Uri[] {
  return [vscode.Uri.joinPath(extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(extensionUri, 'media')];
}

/**
 * The chat panel's HTML: a strict CSP (scripts only with this load's nonce, no inline script or
 * style, resources only from the webview's own roots) and the bundle as the only script.
 */
export function renderWebviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, title: string): string {
  const uri = (...segments: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...segments)).toString();
  return renderPanelPage({
    cspSource: webview.cspSource,
    nonce: randomBytes(18).toString('base64'),
    scriptUri: uri('dist', 'webview', 'main.js'),
    styleUri: uri('media', 'webview.css'),
    // Copied next to the bundle by webpack.config.js (from @vscode/codicons).
    codiconUri: uri('dist', 'webview', 'codicons', 'codicon.css'),
    title,
  });
}
