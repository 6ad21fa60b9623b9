/**
 * The faucet behind requestAirdrop: each airdrop is a System transfer from the faucet's address,
 * with its own signature, recorded in both addresses' history and credited when it lands (the
 * transaction methods decide when: now, or `landingBlocks` later, cluster.ts).
 */
import { createHash } from 'node:crypto';
import bs58 from 'bs58';
import { SYSTEM_PROGRAM } from './programs.js';
import { systemTransferData } from './recipes.js';
import { RpcError, RPC_INTERNAL_ERROR } from './rpc-error.js';
import { labelAddress, type ChainState } from './state.js';

/** The faucet's address; what it holds at start (it shows only in history); the fee of its transfer. */
export const FAUCET = labelAddress('faucet');
const FAUCET_START_LAMPORTS = 2 ** 52;
const FAUCET_FEE = 5000;

export interface Airdrop {
  signature: string;
  to: string;
  lamports: number;
}

export class Faucet {
  private requests = 0;
  /** Lamports left once every accepted airdrop lands: a request beyond them fails, as a drained faucet's does. */
  private unreserved = FAUCET_START_LAMPORTS;
  /** What the faucet holds after the airdrops that have landed (its balances in history). */
  private held = FAUCET_START_LAMPORTS;

  constructor(
    private readonly state: ChainState,
    private readonly blockTime: () => number,
  ) {}

  /** Accepts an airdrop: its signature, unique per request. A faucet that cannot pay answers -32603, as agave does. */
  reserve(to: string, lamports: number): Airdrop {
    if (lamports + FAUCET_FEE > this.unreserved) throw new RpcError(RPC_INTERNAL_ERROR, 'Internal error');
    this.unreserved -= lamports + FAUCET_FEE;
    this.requests += 1;
    const signature = bs58.encode(createHash('sha512').update(`x404-localnet:airdrop:${this.requests}:${to}:${lamports}`).digest());
    return { signature, to, lamports };
  }

  /** The transfer lands in `slot`: lamports credited (a system account created if absent), the transfer in history. */
  land({ signature, to, lamports }: Airdrop, slot: number): void {
    const before = this.state.getAccount(to)?.lamports ?? 0n;
    this.state.setLamports(to, before + BigInt(lamports));
    const faucetBefore = this.held;
    this.held -= lamports + FAUCET_FEE;
    this.state.addTransaction({
      signature,
      slot,
      blockTime: this.blockTime(),
      err: null,
      memo: null,
      feePayer: FAUCET,
      fee: FAUCET_FEE,
      instructions: [{ programId: SYSTEM_PROGRAM, accounts: [FAUCET, to], data: systemTransferData(BigInt(lamports)) }],
      lamportChanges: [
        { address: FAUCET, pre: faucetBefore, post: this.held },
        { address: to, pre: Number(before), post: Number(before) + lamports },
      ],
    });
  }
}
