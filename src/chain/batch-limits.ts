import { classOf, CLASS_NAMES, type MethodClass } from './method-class.js';

/** The validator answers larger bodies with HTTP 413 (docs/solana-wire-format.md). */
export const MAX_BODY_BYTES = 51_200;
/** Keeps one reply a manageable size (and under the batch caps some providers set); not a validator limit. */
export const MAX_CALLS_PER_BODY = 100;

/**
 * How many calls one JSON-RPC array may carry at one endpoint: the operator's caps (RPC_BATCH,
 * RPC_BATCH_CAPS) and what the endpoint taught the client by refusing arrays.
 *
 * Learning (provider-answers.ts says what a refusal looks like): when an array is refused, the
 * classes (method-class.ts) it carried more calls of than the endpoint has accepted lately get a
 * limit of half that count; if every class stayed within what was accepted before, the total is what
 * was too much, and the total gets half. Each refusal lowers a limit below what the refused array
 * had, so the calls are sent again in smaller arrays — halves, then single calls — and the process
 * ends. An accepted array raises what is known to pass. A learned limit is tried higher (doubled)
 * every `reprobeMs`: providers change plans, and a limit learned from a transient refusal should
 * not stay forever.
 */
export interface BatchPolicy {
  /** RPC_BATCH=off: never send an array (every call alone; getMultipleAccounts still reads up to 100 keys per call). */
  enabled: boolean;
  /** RPC_BATCH_CAPS: most calls per array of a class or of one method. */
  caps: Readonly<Record<string, number>>;
  /** The most calls of any array (MAX_CALLS_PER_BODY). */
  maxCalls: number;
  /** How long a learned limit holds before a larger array is tried (RPC_REPROBE_MS). */
  reprobeMs: number;
}

interface Learned {
  limit: number;
  at: number;
}

export class BatchLimits {
  /** Limits learned from refusals, per class and for the whole array. */
  private readonly learned = new Map<MethodClass | 'total', Learned>();
  /** The most calls of a class (or in all) an accepted array carried lately. */
  private readonly accepted = new Map<MethodClass | 'total', Learned>();

  constructor(
    private readonly policy: BatchPolicy,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The most calls of class `kind` one array may carry now (RPC_BATCH_CAPS and what was learned). */
  classCap(kind: MethodClass): number {
    if (!this.policy.enabled) return 1;
    return Math.max(1, Math.min(this.policy.maxCalls, this.policy.caps[kind] ?? Infinity, this.learnedLimit(kind)));
  }

  /** The most calls of `method` itself one array may carry (RPC_BATCH_CAPS naming the method). */
  methodCap(method: string): number {
    if (!this.policy.enabled) return 1;
    return Math.max(1, Math.min(this.policy.maxCalls, this.policy.caps[method] ?? Infinity));
  }

  /** The most calls of any kind one array may carry now. */
  totalCap(): number {
    if (!this.policy.enabled) return 1;
    return Math.max(1, Math.min(this.policy.maxCalls, this.learnedLimit('total')));
  }

  /** The endpoint refused an array of these methods. */
  refused(methods: readonly string[]): void {
    const at = this.now();
    const counts = countByClass(methods);
    let blamed = false;
    for (const [kind, n] of counts) {
      if (n < 2 || n <= this.recentlyAccepted(kind, at)) continue;
      this.lower(kind, n, at);
      blamed = true;
    }
    if (!blamed) this.lower('total', methods.length, at);
  }

  /** The endpoint answered an array of these methods. */
  answered(methods: readonly string[]): void {
    if (methods.length < 2) return;
    const at = this.now();
    for (const [kind, n] of [...countByClass(methods), ['total', methods.length] as const]) {
      if (n > this.recentlyAccepted(kind, at)) this.accepted.set(kind, { limit: n, at });
    }
  }

  /** What was learned, for stats and logs: class → limit (absent: none learned). */
  snapshot(): Partial<Record<MethodClass | 'total', number>> {
    const out: Partial<Record<MethodClass | 'total', number>> = {};
    for (const kind of [...CLASS_NAMES, 'total'] as const) {
      const limit = this.learnedLimit(kind);
      if (Number.isFinite(limit)) out[kind] = limit;
    }
    return out;
  }

  private lower(kind: MethodClass | 'total', refusedCount: number, at: number): void {
    const limit = Math.max(1, Math.floor(refusedCount / 2));
    const current = this.learned.get(kind);
    if (current === undefined || limit < current.limit || at - current.at >= this.policy.reprobeMs) this.learned.set(kind, { limit, at });
    else current.at = at;
  }

  /** The learned limit, doubled for every `reprobeMs` since it was learned (Infinity once past maxCalls). */
  private learnedLimit(kind: MethodClass | 'total'): number {
    const learned = this.learned.get(kind);
    if (learned === undefined) return Infinity;
    const periods = Math.floor((this.now() - learned.at) / this.policy.reprobeMs);
    if (periods <= 0) return learned.limit;
    const probed = learned.limit * 2 ** Math.min(periods, 20);
    if (probed >= this.policy.maxCalls) {
      this.learned.delete(kind);
      return Infinity;
    }
    return probed;
  }

  private recentlyAccepted(kind: MethodClass | 'total', at: number): number {
    const seen = this.accepted.get(kind);
    return seen !== undefined && at - seen.at < this.policy.reprobeMs ? seen.limit : 0;
  }
}

function countByClass(methods: readonly string[]): Map<MethodClass, number> {
  const counts = new Map<MethodClass, number>();
  for (const method of methods) counts.set(classOf(method), (counts.get(classOf(method)) ?? 0) + 1);
  return counts;
}

/**
 * Greedy packing in order: a body closes when the next call would pass the byte limit, the total
 * cap, or its method's cap (per class and per method, counted within the body). Calls of a class
 * already full go to the next body that has room, keeping the order otherwise.
 */
export function packBodies<M extends { json: string; method: string }>(
  members: readonly M[],
  limits: Pick<BatchLimits, 'classCap' | 'methodCap' | 'totalCap'>,
  maxBytes: number,
): M[][] {
  const total = limits.totalCap();
  // Batches off (or learned so): every call alone.
  if (total === 1) return members.map((member) => [member]);
  type Body = { members: M[]; bytes: number; perClass: Map<string, number>; perMethod: Map<string, number> };
  const bodies: Body[] = [];
  /** Bodies that may still take a call (full ones leave, so packing stays linear in practice). */
  let open: Body[] = [];
  for (const member of members) {
    const size = Buffer.byteLength(member.json) + 1; // and its comma
    const kind = classOf(member.method);
    const classCap = limits.classCap(kind);
    const methodCap = limits.methodCap(member.method);
    const fits = (body: (typeof open)[number]): boolean =>
      body.members.length === 0 ||
      (body.bytes + size <= maxBytes &&
        body.members.length < total &&
        (body.perClass.get(kind) ?? 0) < classCap &&
        (body.perMethod.get(member.method) ?? 0) < methodCap);
    let body = open.find(fits);
    if (body === undefined) {
      body = { members: [], bytes: 2, perClass: new Map(), perMethod: new Map() };
      bodies.push(body);
      open.push(body);
    }
    body.members.push(member);
    body.bytes += size;
    body.perClass.set(kind, (body.perClass.get(kind) ?? 0) + 1);
    body.perMethod.set(member.method, (body.perMethod.get(member.method) ?? 0) + 1);
    if (body.members.length >= total) open = open.filter((other) => other !== body);
  }
  return bodies.map((body) => body.members);
}
