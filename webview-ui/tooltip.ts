import { h } from './dom';

export type TooltipContent = () => Node;

/**
 * One hover/focus tooltip for the whole panel, filled on demand (the per-message bars do not each
 * carry a hidden tooltip tree). Targets register a content builder; hovering (after a short delay,
 * like VS Code's hovers) or focusing a target shows it; leaving, blurring, Escape or scrolling hides it.
 */
export class Tooltips {
  readonly el: HTMLDivElement;
  private readonly builders = new WeakMap<Element, TooltipContent>();
  private current: Element | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(root: HTMLElement) {
    this.el = h('div', { id: 'strata-tooltip', class: 'tooltip', role: 'tooltip', 'data-testid': 'strata-tooltip' });
    this.el.hidden = true;
    document.body.append(this.el);

    root.addEventListener('mouseover', (e) => {
      const target = this.targetOf(e.target);
      if (target === this.current) return;
      if (!target) {
        this.hide();
        return;
      }
      this.schedule(target, 350);
    });
    root.addEventListener('mouseleave', () => this.hide());
    root.addEventListener('focusin', (e) => {
      const target = this.targetOf(e.target);
      if (target) this.show(target);
      else this.hide();
    });
    root.addEventListener('focusout', () => this.hide());
    document.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && !this.el.hidden) {
        // Dismissing a tooltip is all this Escape does (it does not also stop a reply).
        e.preventDefault();
        this.hide();
      }
    });
    // A scroll that moves the target hides the tooltip (the stream's auto-scroll does not move the meter).
    document.addEventListener(
      'scroll',
      (e) => {
        if (this.current && e.target instanceof Node && e.target.contains(this.current)) this.hide();
      },
      true,
    );
  }

  /** `target` shows `build()` as its tooltip; it becomes described by the tooltip while shown. */
  register(target: Element, build: TooltipContent): void {
    this.builders.set(target, build);
    target.setAttribute('data-has-tooltip', '');
  }

  private targetOf(node: EventTarget | null): Element | undefined {
    if (!(node instanceof Element)) return undefined;
    const el = node.closest('[data-has-tooltip]');
    return el && this.builders.has(el) ? el : undefined;
  }

  private schedule(target: Element, delay: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.show(target), delay);
  }

  show(target: Element): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const build = this.builders.get(target);
    if (!build || !target.isConnected) return;
    this.current?.removeAttribute('aria-describedby');
    this.current = target;
    this.el.replaceChildren(build());
    this.el.hidden = false;
    target.setAttribute('aria-describedby', this.el.id);
    this.place(target);
  }

  hide(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.current?.removeAttribute('aria-describedby');
    this.current = undefined;
    this.el.hidden = true;
  }

  /** Below the target when it fits, else above; kept inside the viewport horizontally. */
  private place(target: Element): void {
    const r = target.getBoundingClientRect();
    const tip = this.el.getBoundingClientRect();
    const vw = document.documentElement.clientWidth;
    const vh = document.documentElement.clientHeight;
    const margin = 4;
    let top = r.bottom + margin;
    if (top + tip.height > vh - margin && r.top - margin - tip.height >= margin) top = r.top - margin - tip.height;
    let left = Math.min(r.left, vw - tip.width - margin);
    left = Math.max(margin, left);
    top = Math.max(margin, Math.min(top, vh - tip.height - margin));
    this.el.style.left = `${Math.round(left)}px`;
    this.el.style.top = `${Math.round(top)}px`;
  }
}

/** A two-column table for tooltips: label, value (right-aligned numbers). */
export function tooltipTable(rows: readonly (readonly [string, string, string?])[]): HTMLTableElement {
  return h(
    'table',
    { class: 'tooltip-table' },
    h(
      'tbody',
      null,
      ...rows.map(([label, value, cls]) => h('tr', cls ? { class: cls } : null, h('th', { scope: 'row' }, label), h('td', null, value))),
    ),
  );
}
