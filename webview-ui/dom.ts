/** Small DOM helpers: the panel builds its DOM by hand (no framework), so these keep it readable. */

export type AttrValue = string | number | boolean | undefined | null;
export type Child = Node | string | null | undefined | false;

/**
 * Creates an element. `class` sets the class name; `true` sets an empty attribute; `false`,
 * `undefined` and `null` leave an attribute out. Children that are strings become text nodes.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Record<string, AttrValue> | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (attrs) setAttrs(el, attrs);
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child);
  }
  return el;
}

export function setAttrs(el: Element, attrs: Record<string, AttrValue>): void {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) {
      el.removeAttribute(name);
    } else if (name === 'class') {
      el.className = String(value);
    } else {
      el.setAttribute(name, value === true ? '' : String(value));
    }
  }
}

/** A codicon glyph (decorative: hidden from screen readers; the control carries the label). */
export function icon(name: string, extraClass = ''): HTMLSpanElement {
  return h('span', { class: `codicon codicon-${name}${extraClass ? ` ${extraClass}` : ''}`, 'aria-hidden': 'true' });
}

/**
 * A compact native icon button styled like VS Code's action bar items. Used where there are many
 * (per message, per chip, per code block): a native button costs far less than a web component.
 */
export function iconButton(opts: {
  icon: string;
  label: string;
  testid?: string;
  action?: string;
  extraClass?: string;
}): HTMLButtonElement {
  return h(
    'button',
    {
      type: 'button',
      class: `icon-btn${opts.extraClass ? ` ${opts.extraClass}` : ''}`,
      'aria-label': opts.label,
      title: opts.label,
      'data-testid': opts.testid,
      'data-action': opts.action,
    },
    icon(opts.icon),
  );
}
