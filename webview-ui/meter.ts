import type { MeterView } from '../src/protocol/messages';
import { h, icon } from './dom';
import { budgetText, formatInt, formatPercent } from '../src/common/numberFormat';
import { meterTooltip } from './layers';
import type { Tooltips } from './tooltip';

const LEVEL_LABEL: Record<MeterView['level'], string> = { ok: '', warn: 'near the limit', pruned: 'pruned', over: 'over budget' };

/** The always-visible context meter: used ÷ budget, the warn/compact marks, the last cached share. */
export class Meter {
  readonly el: HTMLElement;
  private readonly fill: HTMLElement;
  private readonly warnMark: HTMLElement;
  private readonly compactMark: HTMLElement;
  private readonly usedText: HTMLElement;
  private readonly cachedText: HTMLElement;
  private readonly levelText: HTMLElement;
  private readonly estimatedText: HTMLElement;
  /** "cache likely expired — the next message costs ~$X (N tokens uncached)", while it is. */
  private readonly expiredText: HTMLElement;
  /** Mounted below the meter (not inside it: the meter's text stays its figures). */
  readonly expired: HTMLElement;
  /** The meter and, beside it, the chat's cost so far ("Chat $0.052 · saved $0.024"). */
  readonly row: HTMLElement;
  private readonly chatCost: HTMLElement;
  private readonly chatCostText: HTMLElement;
  private readonly setPrice: HTMLButtonElement;
  private meter: MeterView | undefined;

  constructor(tooltips: Tooltips, onSetPrice: () => void = () => undefined) {
    this.fill = h('div', { class: 'meter-fill' });
    this.warnMark = h('div', { class: 'meter-mark', 'aria-hidden': 'true' });
    this.compactMark = h('div', { class: 'meter-mark', 'aria-hidden': 'true' });
    this.usedText = h('span', { class: 'meter-used', 'data-testid': 'strata-meter-used' });
    this.cachedText = h('span', { class: 'meter-cached' });
    this.levelText = h('span', { class: 'meter-level' });
    this.estimatedText = h('span', { class: 'meter-estimated', 'data-testid': 'strata-meter-estimated' }, 'estimated');
    this.expiredText = h('span', null);
    this.expired = h(
      'div',
      { class: 'meter-expired', 'data-testid': 'strata-cache-expired', role: 'status' },
      icon('history'),
      this.expiredText,
    );
    this.expired.hidden = true;
    this.el = h(
      'div',
      { class: 'meter', 'data-testid': 'strata-meter', 'data-level': 'ok', role: 'meter', tabindex: 0, 'aria-valuemin': 0 },
      h('div', { class: 'meter-track' }, this.fill, this.warnMark, this.compactMark),
      h('div', { class: 'meter-text' }, this.usedText, this.levelText, this.cachedText, this.estimatedText),
    );
    this.el.hidden = true;
    this.chatCostText = h('span', { class: 'chat-cost-text' });
    this.setPrice = h(
      'button',
      { type: 'button', class: 'link-btn', 'data-testid': 'strata-chat-set-price', title: 'Set a price for this model (strata.prices)' },
      'Set price…',
    );
    this.setPrice.addEventListener('click', onSetPrice);
    this.setPrice.hidden = true;
    this.chatCost = h(
      'div',
      {
        class: 'chat-cost',
        'data-testid': 'strata-chat-cost',
        title: 'What this chat has cost so far, from the usage the provider reported (Show Chat Cost for each turn).',
      },
      this.chatCostText,
      ' ',
      this.setPrice,
    );
    this.chatCost.hidden = true;
    this.row = h('div', { class: 'meter-row' }, this.el, this.chatCost);
    tooltips.register(this.el, () =>
      this.meter
        ? meterTooltip(this.meter)
        : h(
            'span',
            null,
            'Counting the tokens of this chat’s next request (its first build in this window); the figures follow in a moment.',
          ),
    );
  }

  /** A long chat was just opened: its meter is being counted (a `meter` message follows). */
  pending(): void {
    this.meter = undefined;
    this.el.hidden = false;
    this.el.setAttribute('data-level', 'pending');
    this.el.setAttribute('aria-busy', 'true');
    this.fill.style.width = '0%';
    this.usedText.textContent = 'Counting tokens…';
    this.levelText.textContent = '';
    this.cachedText.textContent = '';
    this.estimatedText.hidden = true;
    this.expired.hidden = true;
    this.el.removeAttribute('aria-valuemax');
    this.el.removeAttribute('aria-valuenow');
    this.el.setAttribute('aria-label', 'Context: counting the tokens of this chat');
    this.el.setAttribute('aria-valuetext', 'counting');
  }

  update(m: MeterView): void {
    this.meter = m;
    this.el.hidden = false;
    this.el.removeAttribute('aria-busy');
    this.el.setAttribute('data-level', m.level);
    const share = m.budget > 0 ? m.used / m.budget : 1;
    this.fill.style.width = `${Math.min(100, Math.max(0, share * 100))}%`;
    this.warnMark.style.left = `${m.warnPercent}%`;
    this.compactMark.style.left = `${m.compactPercent}%`;
    this.usedText.textContent = budgetText(m.used, m.budget, m.contextWindow);
    this.levelText.textContent = LEVEL_LABEL[m.level] ? ` · ${LEVEL_LABEL[m.level]}` : '';
    this.cachedText.textContent = m.lastCachedShare !== undefined ? ` · ${formatPercent(m.lastCachedShare)} cached` : '';
    this.estimatedText.hidden = !m.estimated;
    this.expired.hidden = !m.cacheExpired;
    this.expiredText.textContent = m.cacheExpired ?? '';
    // A short view shows the notice on one line; the whole of it is on hover.
    this.expired.title = m.cacheExpired ?? '';
    this.el.setAttribute('aria-valuemax', String(m.budget));
    this.el.setAttribute('aria-valuenow', String(Math.min(m.used, m.budget)));
    this.el.setAttribute(
      'aria-label',
      `Context: ${formatInt(m.used)} of ${formatInt(m.budget)} budget tokens (${formatPercent(m.used, m.budget)}; ${formatInt(m.contextWindow)}-token window)${LEVEL_LABEL[m.level] ? `, ${LEVEL_LABEL[m.level]}` : ''}${m.estimated ? ', estimated' : ''}${m.cacheExpired ? `; ${m.cacheExpired}` : ''}`,
    );
    this.el.setAttribute('aria-valuetext', `${formatInt(m.used)} of ${formatInt(m.budget)} tokens`);
    this.chatCost.hidden = !m.chatCost;
    this.chatCostText.textContent = m.chatCost ?? '';
    this.setPrice.hidden = m.chatPriceMissing !== true;
  }
}
