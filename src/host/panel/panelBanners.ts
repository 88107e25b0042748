/**
 * The panel's banners: at most four, newest last, one per message; each offers Dismiss, and its Open
 * Settings opens the setting given or the one its message names. Every change is posted whole.
 */
import type { BannerAction, BannerView, HostToWebviewMessage } from '../../protocol/messages';
import { settingNamedIn } from '../settings/bannerSettings';

/** Banners shown at once; an older one leaves when a fifth arrives. */
const MAX_BANNERS = 4;

export class PanelBanners {
  private banners: BannerView[] = [];
  private counter = 0;

  constructor(private readonly post: (message: HostToWebviewMessage) => void) {}

  /** The banners shown now (the panel state carries them). */
  get shown(): BannerView[] {
    return this.banners;
  }

  find(id: string): BannerView | undefined {
    return this.banners.find((b) => b.id === id);
  }

  /** Shows a banner (replacing one with the same message); returns its id. `path`: what a refusal's actions act on. */
  show(severity: BannerView['severity'], message: string, actions: BannerAction[] = [], setting?: string, path?: string): string {
    const id = `b${++this.counter}`;
    const withDismiss = actions.includes('dismiss') ? actions : [...actions, 'dismiss' as const];
    const named = actions.includes('openSettings') ? (setting ?? settingNamedIn(message)) : undefined;
    const banner: BannerView = {
      id,
      severity,
      message,
      actions: withDismiss,
      ...(named ? { setting: named } : {}),
      ...(path !== undefined ? { path } : {}),
    };
    this.banners = [...this.banners.filter((b) => b.message !== message), banner].slice(-MAX_BANNERS);
    this.post({ type: 'banners', banners: this.banners });
    return id;
  }

  /** Takes away the banners `pred` picks (all by default); posts only when one went. */
  clear(pred: (b: BannerView) => boolean = () => true): void {
    const kept = this.banners.filter((b) => !pred(b));
    if (kept.length === this.banners.length) return;
    this.banners = kept;
    this.post({ type: 'banners', banners: this.banners });
  }
}
