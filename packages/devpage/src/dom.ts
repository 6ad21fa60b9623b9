/**
 * What both views of the watch page (the sign-in, page.ts; the co-signed mint, mint-view.ts) build
 * their steps with: elements, JSON shown as text, a status badge, and a step card filled in place.
 * Runs in the browser as compiled (no bundler, no Node builtins).
 */

export type StepState = 'waiting' | 'running' | 'done' | 'failed' | 'skipped';

export const $ = <E extends HTMLElement>(selector: string): E => {
  const found = document.querySelector<E>(selector);
  if (!found) throw new Error(`the page has no ${selector}`);
  return found;
};

export function el(tag: string, props: Record<string, string> = {}, ...children: (Node | string | undefined)[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) element.setAttribute(name, value);
  for (const child of children) if (child !== undefined) element.append(child);
  return element;
}

export const pre = (text: string, className = ''): HTMLElement => el('pre', className ? { class: className } : {}, text);
export const pretty = (value: unknown): string => JSON.stringify(value, null, 2);
export const prettyText = (text: string): string => {
  try {
    return pretty(JSON.parse(text));
  } catch {
    return text;
  }
};
export const statusBadge = (status: number): HTMLElement => el('span', { class: `status ${status >= 200 && status < 300 ? 'ok' : 'bad'}` }, `HTTP ${status}`);

/** Fills the step card `data-step="<name>"`: its state (the colour of its number), summary line and body. */
export function step(name: string, state: StepState, summary: string | Node = '', ...body: Node[]): void {
  const card = $(`.step[data-step="${name}"]`);
  card.dataset.state = state;
  card.querySelector('.summary')!.replaceChildren(summary);
  card.querySelector('.body')!.replaceChildren(...body);
}

export function headerTable(headers: Record<string, string>): HTMLElement {
  return el('table', { class: 'headers' }, el('tbody', {}, ...Object.entries(headers).map(([name, value]) => el('tr', {}, el('th', {}, name), el('td', {}, el('code', {}, value))))));
}

/** Two side-by-side blocks, each a heading over its content. */
export function columns(...blocks: [heading: string, content: Node][]): HTMLElement {
  return el('div', { class: 'columns' }, ...blocks.map(([heading, content]) => el('div', {}, el('h3', {}, heading), content)));
}
