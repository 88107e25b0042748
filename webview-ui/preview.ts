import '@vscode-elements/elements/dist/vscode-collapsible/index.js';
import type { RequestPreviewView } from '../src/protocol/messages';
import { h, icon, iconButton } from './dom';
import { formatInt } from '../src/common/numberFormat';
import { renderMarkdown, type CodeBlock } from './markdown';

export interface PreviewHost {
  copy(text: string, button: HTMLButtonElement): void;
  insert(code: string): void;
  collapsedChanged(collapsed: boolean): void;
}

/**
 * With no provider configured, Send shows the exact request that would have gone out
 * (monospace, scrollable, collapsible) and how to configure a provider (sanitized markdown).
 */
export class PreviewCard {
  readonly el: HTMLElement;
  private preview: RequestPreviewView | undefined;
  private codes: CodeBlock[] = [];

  constructor(
    private readonly host: PreviewHost,
    private collapsed: boolean,
  ) {
    this.el = h('section', { class: 'preview', 'data-testid': 'strata-request-preview', 'aria-label': 'Request preview' });
    this.el.addEventListener('click', (e) => this.onClick(e));
  }

  get visible(): boolean {
    return this.preview !== undefined;
  }

  update(preview: RequestPreviewView | undefined): void {
    this.preview = preview;
    if (!preview) {
      this.el.replaceChildren();
      this.el.remove();
      return;
    }
    const pre = h(
      'pre',
      { class: 'preview-request', tabindex: 0, 'data-testid': 'strata-preview-request', 'aria-label': 'Request that would be sent' },
      preview.request,
    );
    const collapsible = h(
      'vscode-collapsible',
      {
        class: 'preview-collapsible',
        title: `Request · ${formatInt(preview.promptTokens)} prompt tokens`,
        'data-testid': 'strata-preview-toggle',
      },
      pre,
    );
    collapsible.open = !this.collapsed;
    collapsible.addEventListener('vsc-collapsible-toggle', () => {
      this.collapsed = !collapsible.open;
      this.host.collapsedChanged(this.collapsed);
    });
    const copy = iconButton({ icon: 'copy', label: 'Copy Request', testid: 'strata-preview-copy' });
    copy.slot = 'actions';
    // The collapsible stops clicks in its header slots from bubbling: listen on the button itself.
    copy.addEventListener('click', () => this.host.copy(preview.request, copy));
    collapsible.append(copy);

    const howTo = renderMarkdown(preview.howTo, { apply: false });
    this.codes = howTo.codes;
    this.el.replaceChildren(
      h(
        'div',
        { class: 'preview-head' },
        icon('eye'),
        h(
          'span',
          null,
          h('strong', null, 'Nothing was sent.'),
          ' No model provider is configured; this is the exact request Strata would send.',
        ),
      ),
      collapsible,
      h('div', { class: 'preview-howto markdown', 'data-testid': 'strata-preview-howto' }, howTo.fragment),
    );
  }

  private onClick(e: MouseEvent): void {
    const target = e.target instanceof Element ? e.target.closest<HTMLButtonElement>('button[data-action]') : null;
    if (!target || !this.preview) return;
    const action = target.getAttribute('data-action');
    const pre = target.closest('.code-block')?.querySelector('pre[data-code]');
    const block = pre ? this.codes[Number(pre.getAttribute('data-code'))] : undefined;
    if (!block) return;
    if (action === 'copy-code') this.host.copy(block.code, target);
    if (action === 'insert-code') this.host.insert(block.code);
  }
}
