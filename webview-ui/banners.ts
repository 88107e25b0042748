import '@vscode-elements/elements/dist/vscode-button/index.js';
import type { BannerAction, BannerView, NoticeView } from '../src/protocol/messages';
import { h, icon, iconButton } from './dom';
import type { RequestResult } from './ipc';

export const BANNER_ACTION_LABELS: Record<BannerAction, string> = {
  setApiKey: 'Set API Key',
  openSettings: 'Open Settings',
  editBaseUrl: 'Edit Base URL',
  retry: 'Retry',
  selectModel: 'Select Model',
  showLog: 'Show Log',
  undo: 'Undo',
  attachOutline: 'Attach Outline',
  attachHead: 'Attach First Lines',
  raiseLimit: 'Raise Limit…',
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
  /**
   * Watches the banners' heights: the area never cuts the first (see `fit`). Fitted at the next
   * frame, since fitting changes the area's height, which the observer would report in the same one.
   */
  private readonly sizer = new ResizeObserver(() => {
    if (this.fitFrame !== undefined) return;
    this.fitFrame = requestAnimationFrame(() => {
      this.fitFrame = undefined;
      this.fit();
    });
  });
  private fitFrame: number | undefined;

  constructor(private readonly action: (bannerId: string, action: BannerAction) => Promise<RequestResult>) {
    this.noticeList = h('div', { class: 'notices' });
    this.bannerList = h('div', { class: 'banners' });
    this.el = h('div', { class: 'banner-area' }, this.noticeList, this.bannerList);
    this.bannerList.addEventListener('click', (e) => void this.onClick(e));
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
    this.sizer.disconnect();
    for (const el of [this.noticeList, ...els]) this.sizer.observe(el);
    this.fit();
  }

  /**
   * Marks the messages cut to their first lines as expandable, and keeps the area's cap (40% of the
   * view) from cutting the first banner: its actions are in sight without scrolling, as long as the
   * input fits beside it. The cap is set as the height from the area's top to that banner's end.
   */
  private fit(): void {
    for (const msg of this.bannerList.querySelectorAll<HTMLElement>('.banner-message')) markExpandable(msg);
    const first = [...this.bannerList.children].find((el): el is HTMLElement => el instanceof HTMLElement && !el.hidden);
    if (!first || this.bannerList.hidden) {
      this.el.style.removeProperty('--strata-first-banner');
      return;
    }
    const need = first.getBoundingClientRect().bottom - this.el.getBoundingClientRect().top + this.el.scrollTop;
    this.el.style.setProperty('--strata-first-banner', `${Math.ceil(need) + 1}px`);
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
    const more = h(
      'button',
      {
        type: 'button',
        class: 'banner-more',
        'data-testid': 'strata-banner-more',
        'aria-expanded': 'false',
        'aria-controls': `banner-message-${b.id}`,
        hidden: true,
      },
      'More',
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
        messageElement(b.message, `banner-message-${b.id}`),
        h('div', { class: 'banner-actions', hidden: buttons.length === 0 }, ...buttons, more),
      ),
      dismiss,
    );
  }

  private async onClick(e: MouseEvent): Promise<void> {
    // More (or a click on a cut message) shows the whole message; it is not an action: the banner stays.
    const toggle = e.target instanceof Element ? e.target.closest<HTMLElement>('.banner-more, .banner-message.expandable') : null;
    if (toggle) {
      const msg = toggle.closest('.banner')?.querySelector<HTMLElement>('.banner-message');
      if (msg) toggleMessage(msg);
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
    if (action === 'dismiss') {
      banner.hidden = true;
      this.fit();
    }
    const result = await this.action(id, action);
    if (!result.ok && action === 'dismiss') {
      banner.hidden = false;
      this.fit();
    }
  }
}

/**
 * A message shows its first three lines, so a banner in a short view still shows its action buttons
 * without scrolling; one that has more (`markExpandable`) offers More, which shows the whole text.
 */
function messageElement(message: string, id: string): HTMLElement {
  return h('div', { class: 'banner-message clamped', id, 'data-testid': 'strata-banner-message' }, message);
}

function moreOf(msg: HTMLElement): HTMLElement | null {
  return msg.closest('.banner')?.querySelector<HTMLElement>('.banner-more') ?? null;
}

/** Shows More under a message cut to its first lines (and hides it again for one that fits whole). */
function markExpandable(el: HTMLElement): void {
  const more = moreOf(el);
  if (!more || more.getAttribute('aria-expanded') === 'true' || el.getClientRects().length === 0) return;
  const cut = el.scrollHeight > el.clientHeight + 1;
  if (cut === !more.hidden) return;
  more.hidden = !cut;
  el.classList.toggle('expandable', cut);
  const row = more.parentElement;
  if (row) row.hidden = !cut && row.querySelector('.banner-action') === null;
}

function toggleMessage(el: HTMLElement): void {
  const more = moreOf(el);
  const expand = el.classList.contains('clamped');
  el.classList.toggle('clamped', !expand);
  if (!more) return;
  more.setAttribute('aria-expanded', expand ? 'true' : 'false');
  more.textContent = expand ? 'Less' : 'More';
}
