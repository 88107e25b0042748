import '@vscode-elements/elements/dist/vscode-button/index.js';
import type { BannerAction, BannerView, NoticeView } from '../src/protocol/messages';
import { h, icon, iconButton } from './dom';
import type { RequestResult } from './ipc';

export const BANNER_ACTION_LABELS: Record<BannerAction, string> = {
  setApiKey: 'Set API Key',
  openSettings: 'Open Settings',
  retry: 'Retry',
  selectModel: 'Select Model',
  showLog: 'Show Log',
  undo: 'Undo',
  dismiss: 'Dismiss',
};

const SEVERITY_ICON: Record<BannerView['severity'], string> = { error: 'error', warning: 'warning', info: 'info' };

/**
 * Banners (errors and warnings with actions) and notices (standing facts such as Restricted Mode),
 * above the conversation. Banners are keyed by id: an unchanged banner keeps its element, so a
 * screen reader announces a banner once, when it appears.
 */
export class Banners {
  readonly el: HTMLElement;
  private readonly noticeList: HTMLElement;
  private readonly bannerList: HTMLElement;
  private readonly shown = new Map<string, { key: string; el: HTMLElement }>();
  /** Local banners (the panel's own problems, such as a protocol mismatch). */
  private local: BannerView[] = [];
  private hostBanners: BannerView[] = [];

  constructor(private readonly action: (bannerId: string, action: BannerAction) => Promise<RequestResult>) {
    this.noticeList = h('div', { class: 'notices' });
    this.bannerList = h('div', { class: 'banners' });
    this.el = h('div', { class: 'banner-area' }, this.noticeList, this.bannerList);
    this.bannerList.addEventListener('click', (e) => void this.onClick(e));
    this.bannerList.addEventListener('keydown', (e) => {
      const msg = e.target instanceof Element ? e.target.closest<HTMLElement>('.banner-message[aria-expanded]') : null;
      if (msg && (e.key === 'Enter' || e.key === ' ')) {
        e.preventDefault();
        toggleMessage(msg);
      }
    });
  }

  setNotices(notices: readonly NoticeView[]): void {
    this.noticeList.replaceChildren(
      ...notices.map((n) =>
        h('div', { class: 'notice', 'data-testid': 'strata-notice', 'data-notice-id': n.id }, icon('info'), h('span', null, n.message)),
      ),
    );
    this.noticeList.hidden = notices.length === 0;
  }

  setBanners(banners: readonly BannerView[]): void {
    this.hostBanners = [...banners];
    this.render();
  }

  addLocal(banner: BannerView): void {
    this.local = [...this.local.filter((b) => b.id !== banner.id), banner];
    this.render();
  }

  private render(): void {
    const all = [...this.local, ...this.hostBanners];
    const keep = new Set<string>();
    const els: HTMLElement[] = [];
    for (const b of all) {
      const key = JSON.stringify([b.severity, b.message, b.actions]);
      const prev = this.shown.get(b.id);
      const el = prev && prev.key === key ? prev.el : this.bannerElement(b);
      this.shown.set(b.id, { key, el });
      keep.add(b.id);
      els.push(el);
    }
    for (const id of [...this.shown.keys()]) if (!keep.has(id)) this.shown.delete(id);
    this.bannerList.replaceChildren(...els);
    this.bannerList.hidden = els.length === 0;
  }

  private bannerElement(b: BannerView): HTMLElement {
    const buttons = b.actions
      .filter((a) => a !== 'dismiss')
      .map((a) =>
        h(
          'vscode-button',
          { secondary: b.actions[0] !== a, 'data-testid': 'strata-banner-action', 'data-action': a, class: 'banner-action' },
          BANNER_ACTION_LABELS[a],
        ),
      );
    const dismiss =
      b.actions.includes('dismiss') || b.id.startsWith('local:')
        ? iconButton({ icon: 'close', label: 'Dismiss', testid: 'strata-banner-dismiss', action: 'dismiss', extraClass: 'banner-dismiss' })
        : null;
    return h(
      'div',
      {
        class: `banner banner-${b.severity}`,
        role: b.severity === 'info' ? 'status' : 'alert',
        'data-testid': b.severity === 'error' ? 'strata-error' : `strata-${b.severity}`,
        'data-banner-id': b.id,
        'data-severity': b.severity,
      },
      icon(SEVERITY_ICON[b.severity], 'banner-icon'),
      h(
        'div',
        { class: 'banner-main' },
        messageElement(b.message),
        buttons.length > 0 ? h('div', { class: 'banner-actions' }, ...buttons) : null,
      ),
      dismiss,
    );
  }

  private async onClick(e: MouseEvent): Promise<void> {
    const clamped = e.target instanceof Element ? e.target.closest<HTMLElement>('.banner-message[aria-expanded]') : null;
    if (clamped) {
      toggleMessage(clamped);
      return;
    }
    const target = e.target instanceof Element ? e.target.closest<HTMLElement>('[data-action]') : null;
    const banner = target?.closest<HTMLElement>('[data-banner-id]');
    if (!target || !banner) return;
    const id = banner.getAttribute('data-banner-id') ?? '';
    const action = target.getAttribute('data-action') as BannerAction;
    if (id.startsWith('local:')) {
      this.local = this.local.filter((b) => b.id !== id);
      this.render();
      return;
    }
    // Dismiss hides at once; the host's next `banners` message is the truth (it comes back if refused).
    if (action === 'dismiss') banner.hidden = true;
    const result = await this.action(id, action);
    if (!result.ok && action === 'dismiss') banner.hidden = false;
  }
}

/** Past this many characters a banner's message shows its first lines; a click shows all of it. */
const CLAMP_CHARS = 140;

/**
 * A long message is cut to its first three lines, so a banner in a short view still shows its
 * action buttons without scrolling; clicking it (or Enter) shows the whole text.
 */
function messageElement(message: string): HTMLElement {
  if (message.length <= CLAMP_CHARS) return h('div', { class: 'banner-message', 'data-testid': 'strata-banner-message' }, message);
  return h(
    'div',
    {
      class: 'banner-message clamped',
      'data-testid': 'strata-banner-message',
      'aria-expanded': 'false',
      tabindex: '0',
      title: 'Show the whole message',
    },
    message,
  );
}

function toggleMessage(el: HTMLElement): void {
  const expand = el.getAttribute('aria-expanded') !== 'true';
  el.setAttribute('aria-expanded', expand ? 'true' : 'false');
  el.classList.toggle('clamped', !expand);
  el.title = expand ? 'Show less' : 'Show the whole message';
}
