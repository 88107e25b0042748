/**
 * "Strata: Export Chat": before writing, says how many attached files the export embeds and offers
 * an export without them; after writing, says where it wrote, with Open and Reveal. Run with a
 * target URI it asks only whether to write there (an argument never stands in for the user's yes):
 * `{ withoutAttachments: true }` as the second argument leaves the attached files out.
 */
import * as vscode from 'vscode';
import type { ChatSession } from '../../services/chatSession';
import { embeddedAttachments } from '../../services/store/markdownExport';
import type { ProviderResolver } from '../providers/providerResolver';
import { CommandConsent } from './commandConsent';
import { fileCommandQuestion } from './consentRules';

export interface ExportDeps {
  session: ChatSession;
  resolver: ProviderResolver;
  consent: CommandConsent;
}

function defaultTarget(title: string): vscode.Uri | undefined {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) return undefined;
  const name =
    title
      .replace(/[^A-Za-z0-9 _-]+/g, '')
      .trim()
      .slice(0, 40) || 'strata-chat';
  return vscode.Uri.joinPath(folder.uri, `${name}.md`);
}

/** Asks whether to embed the attached files (only when there are some); undefined: cancelled. */
async function askAttachments(count: number): Promise<{ withoutAttachments: boolean } | undefined> {
  if (count === 0) return { withoutAttachments: false };
  const files = count === 1 ? '1 attached file' : `${count} attached files`;
  const pick = await vscode.window.showQuickPick(
    [
      {
        label: vscode.l10n.t('Export with attached files'),
        description: vscode.l10n.t('{0} embedded: the chat imports complete', files),
        without: false,
      },
      {
        label: vscode.l10n.t('Export without attached files'),
        description: vscode.l10n.t('lists what each turn attached; an import continues without them'),
        without: true,
      },
    ],
    { title: vscode.l10n.t('Export Chat: {0} embedded', files), placeHolder: vscode.l10n.t('The export embeds {0}.', files) },
  );
  return pick ? { withoutAttachments: pick.without } : undefined;
}

/** Where it wrote, with Open and a Reveal that fits where the file is. */
function announce(target: vscode.Uri, omitted: number | undefined): void {
  const inWorkspace = !!vscode.workspace.getWorkspaceFolder(target);
  const reveal = inWorkspace
    ? vscode.l10n.t('Reveal in Explorer')
    : target.scheme === 'file' && vscode.env.uiKind === vscode.UIKind.Desktop
      ? vscode.l10n.t('Reveal in OS')
      : undefined;
  const where = vscode.workspace.asRelativePath(target, true);
  const message =
    omitted !== undefined
      ? vscode.l10n.t('Strata: exported the chat to {0}, without its {1} attached file(s).', where, omitted)
      : vscode.l10n.t('Strata: exported the chat to {0}.', where);
  const open = vscode.l10n.t('Open');
  void vscode.window.showInformationMessage(message, ...[open, reveal].filter((x): x is string => !!x)).then(async (choice) => {
    if (choice === open) await vscode.window.showTextDocument(target);
    else if (choice && inWorkspace) await vscode.commands.executeCommand('revealInExplorer', target);
    else if (choice) await vscode.commands.executeCommand('revealFileInOS', target);
  });
}

export async function exportChat(d: ExportDeps, arg?: unknown, options?: unknown): Promise<vscode.Uri | undefined> {
  const { session } = d;
  const chat = { id: session.activeChatId, title: session.title };
  if (!session.store.hasChat(chat.id)) throw new Error('This chat has no saved turns to export yet.');
  const count = embeddedAttachments(session.engine.state).length;
  let target: vscode.Uri | undefined;
  let choice: { withoutAttachments: boolean } | undefined;
  if (!(await d.consent.confirm(fileCommandQuestion('export', CommandConsent.fileArgument(arg))))) return undefined;
  if (arg instanceof vscode.Uri) {
    target = arg;
    const without = !!options && typeof options === 'object' && (options as { withoutAttachments?: unknown }).withoutAttachments === true;
    choice = { withoutAttachments: without };
  } else {
    choice = await askAttachments(count);
    if (!choice) return undefined;
    target = await vscode.window.showSaveDialog({ filters: { Markdown: ['md'] }, defaultUri: defaultTarget(chat.title) });
  }
  if (!target) return undefined;
  const markdown = session.store.exportMarkdown(chat.id, await d.resolver.knownSecrets(), choice);
  await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(markdown));
  announce(target, choice.withoutAttachments ? count : undefined);
  return target;
}
