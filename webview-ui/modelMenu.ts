import type { ModelOption, ModelView } from '../src/protocol/messages';
import { h, icon } from './dom';
import type { RequestResult } from './ipc';
import { Popover } from './popover';

export interface ModelMenuHost {
  listModels(): Promise<RequestResult<ModelOption[]>>;
  selectModel(option?: ModelOption): void;
}

/** The model picker's menu: asks the host for the models each time it opens. */
export class ModelMenu {
  readonly el: HTMLElement;
  private popover: Popover | undefined;
  private model: ModelView | undefined;
  private options: ModelOption[] = [];
  private generation = 0;

  constructor(private readonly host: ModelMenuHost) {
    this.el = h('div', { class: 'model-menu', role: 'menu', 'aria-label': 'Models', 'data-testid': 'strata-model-menu' });
    this.el.hidden = true;
    this.el.addEventListener('click', (e) => this.onClick(e));
    this.el.addEventListener('keydown', (e) => this.onKey(e));
    document.body.append(this.el);
  }

  setModel(model: ModelView): void {
    this.model = model;
  }

  async toggle(anchor: HTMLElement): Promise<void> {
    this.popover ??= new Popover(this.el, anchor);
    if (this.popover.isOpen) {
      this.popover.close(false);
      return;
    }
    const generation = ++this.generation;
    this.render('loading');
    this.popover.show();
    const result = await this.host.listModels();
    if (generation !== this.generation || !this.popover.isOpen) return;
    if (!result.ok) {
      this.render('error', result.error);
    } else {
      this.options = result.value;
      this.render('list');
    }
    this.popover.place();
    this.el.querySelector<HTMLElement>('[aria-checked="true"], [role="menuitemradio"], [role="menuitem"]')?.focus();
  }

  private render(mode: 'loading' | 'list' | 'error', error?: string): void {
    const items: HTMLElement[] = [];
    if (mode === 'loading') {
      items.push(h('div', { class: 'popover-empty', role: 'status' }, icon('loading', 'codicon-modifier-spin'), ' Loading models…'));
    } else if (mode === 'error') {
      items.push(h('div', { class: 'popover-empty error' }, error ?? 'Could not list the models.'));
    } else if (this.options.length === 0) {
      items.push(h('div', { class: 'popover-empty' }, 'No models found. Configure a provider in the settings.'));
    } else {
      this.options.forEach((o, i) => {
        const current = this.model?.provider === o.provider && this.model.model === o.model;
        items.push(
          h(
            'button',
            {
              type: 'button',
              class: 'menu-item',
              role: 'menuitemradio',
              'aria-checked': String(current),
              'data-testid': 'strata-model-option',
              'data-index': i,
              'data-provider': o.provider,
              'data-model': o.model,
              title: o.detail ?? o.label,
            },
            icon(current ? 'check' : 'blank', 'menu-check'),
            h('span', { class: 'menu-label' }, o.label),
            o.detail ? h('span', { class: 'menu-detail' }, o.detail) : null,
          ),
        );
      });
    }
    items.push(h('div', { class: 'menu-separator', role: 'separator' }));
    items.push(
      h(
        'button',
        { type: 'button', class: 'menu-item', role: 'menuitem', 'data-testid': 'strata-model-more', 'data-more': '' },
        icon('settings-gear', 'menu-check'),
        h('span', { class: 'menu-label' }, 'More models and providers…'),
      ),
    );
    this.el.replaceChildren(...items);
  }

  private onClick(e: MouseEvent): void {
    const item = e.target instanceof Element ? e.target.closest<HTMLElement>('.menu-item') : null;
    if (!item) return;
    if (item.hasAttribute('data-more')) {
      this.host.selectModel();
    } else {
      const option = this.options[Number(item.getAttribute('data-index'))];
      if (option) this.host.selectModel(option);
    }
    this.popover?.close(true);
  }

  /** Up/Down move between items, Home/End jump. */
  private onKey(e: KeyboardEvent): void {
    const items = Array.from(this.el.querySelectorAll<HTMLElement>('.menu-item'));
    const i = items.indexOf(document.activeElement as HTMLElement);
    let next = -1;
    if (e.key === 'ArrowDown') next = (i + 1) % items.length;
    else if (e.key === 'ArrowUp') next = (i - 1 + items.length) % items.length;
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = items.length - 1;
    if (next >= 0 && items[next]) {
      e.preventDefault();
      items[next].focus();
    }
  }
}
