import { el } from './dom.js';

/**
 * The JSON-RPC calls the embedded local chain answered (packages/localnet/src/call-log.ts), as the watch
 * page reads them from /watch/chain-reads?since=<seq> and shows them: one row a call, the demo
 * addresses in its params named. Browser-side.
 */
export interface ChainCall {
  seq: number;
  httpRequest: number;
  method: string;
  params: unknown;
  answer: string;
}

export async function chainCallsSince(since: number): Promise<{ last: number; calls: ChainCall[] }> {
  const response = await fetch(`/watch/chain-reads?since=${since}`);
  return (await response.json()) as { last: number; calls: ChainCall[] };
}

/** The sequence number of the last call answered so far (no calls are sent back). */
export async function chainMark(): Promise<number> {
  return (await chainCallsSince(Number.MAX_SAFE_INTEGER)).last;
}

export function chainCallsTable(calls: readonly ChainCall[], labels: Record<string, string>): HTMLElement {
  const rows = calls.map((call) =>
    el(
      'tr',
      { 'data-method': call.method },
      el('td', {}, String(call.seq)),
      el('td', {}, String(call.httpRequest)),
      el('td', { class: 'method' }, call.method),
      el('td', {}, paramsNode(call.params, labels)),
      el('td', { class: 'answer' }, call.answer),
    ),
  );
  return el('table', {}, el('thead', {}, el('tr', {}, el('th', {}, '#'), el('th', {}, 'HTTP request'), el('th', {}, 'method'), el('th', {}, 'params'), el('th', {}, 'answer'))), el('tbody', {}, ...rows));
}

/** "3 JSON-RPC calls in 2 HTTP requests". */
export function callCount(calls: readonly ChainCall[]): string {
  const requests = new Set(calls.map((call) => call.httpRequest)).size;
  return `${calls.length} JSON-RPC ${calls.length === 1 ? 'call' : 'calls'} in ${requests} HTTP ${requests === 1 ? 'request' : 'requests'}`;
}

/** An address with its demo name, when it has one. */
export function addressNode(address: string, labels: Record<string, string>): HTMLElement {
  const label = labels[address];
  return el('div', {}, el('code', {}, address), label ? el('span', { class: 'label' }, ` ${label}`) : undefined);
}

/** A call's params with the demo addresses named. */
function paramsNode(params: unknown, labels: Record<string, string>): Node {
  const box = el('div');
  for (const param of Array.isArray(params) ? params : [params]) {
    if (typeof param === 'string') box.append(param.length > 100 ? el('div', {}, el('code', {}, `${param.slice(0, 60)}… (${param.length} characters)`)) : addressNode(param, labels));
    else if (Array.isArray(param) && param.every((entry) => typeof entry === 'string')) param.forEach((entry: string) => box.append(addressNode(entry, labels)));
    else {
      // getTokenAccountsByOwner's filter: {mint} or {programId}, named too.
      const filter = param !== null && typeof param === 'object' ? (param as Record<string, unknown>) : {};
      const named = [filter.mint, filter.programId].find((value): value is string => typeof value === 'string' && labels[value] !== undefined);
      box.append(el('div', {}, el('code', {}, JSON.stringify(param)), named ? el('span', { class: 'label' }, ` ${labels[named]}`) : undefined));
    }
  }
  return box;
}
