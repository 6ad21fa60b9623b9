/**
 * The demo launch of `npm run dev`: mints whose mint authority is the gate's co-signing key, so
 * that a mint configuration (`"program": "spl-token"` / `"token-2022"`, `"signer"`: the keypair
 * file below) can co-sign the `MintTo` a wallet builds, and a `MintTo` without that signature
 * fails on-chain.
 *
 * Like every demo key (fixture.ts), the signer is derived from a name, so it is the same on every
 * machine and its secret is public: a demo key, never a key to launch with. `npm run dev` writes it
 * as a solana-keygen keypair file (a JSON array of 64 numbers) to DEMO_MINT_SIGNER_FILE.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import type { TokenProgramName } from './programs.js';
import type { ChainState } from './state.js';

export interface DemoLaunchMint {
  /** The mint's address. */
  address: string;
  /** Its program, as the local chain names it ('token' is SPL Token). */
  program: TokenProgramName;
  decimals: number;
}

function keypairFromName(name: string): Keypair {
  return Keypair.fromSeed(createHash('sha256').update(`x404-localnet:${name}`).digest());
}

const signer = keypairFromName('gate-mint-signer');

/** The gate's co-signing key of the demo launch: mint authority of both demo launch mints. */
export const DEMO_MINT_SIGNER = {
  publicKey: signer.publicKey.toBase58(),
  /** 64 bytes: seed || public key, as keypair files store it. A fresh copy on each read. */
  get secretKey(): Uint8Array {
    return Uint8Array.from(signer.secretKey);
  },
};

/** Where `npm run dev` writes the signer's keypair file. */
export const DEMO_MINT_SIGNER_FILE = join(tmpdir(), 'x404-demo-mint-signer.json');

/** The demo launch's mints, supply 0, one token a mint (decimals 0), authority DEMO_MINT_SIGNER. */
export const DEMO_LAUNCH_MINTS = {
  genesis: { address: keypairFromName('mint:genesis').publicKey.toBase58(), program: 'token', decimals: 0 },
  'genesis-t22': { address: keypairFromName('mint:genesis-t22').publicKey.toBase58(), program: 'token2022', decimals: 0 },
} as const satisfies Record<string, DemoLaunchMint>;

export type DemoLaunchMintName = keyof typeof DEMO_LAUNCH_MINTS;

/** Adds the demo launch mints to a state (buildDemoState does). */
export function addDemoLaunchMints(state: ChainState): void {
  for (const mint of Object.values(DEMO_LAUNCH_MINTS)) {
    state.addMint({ address: mint.address, decimals: mint.decimals, program: mint.program, supply: 0, mintAuthority: DEMO_MINT_SIGNER.publicKey });
  }
}

/** Writes the signer's keypair file (solana-keygen format); returns its path. */
export function writeDemoMintSigner(path = DEMO_MINT_SIGNER_FILE): string {
  writeFileSync(path, JSON.stringify([...DEMO_MINT_SIGNER.secretKey]), { mode: 0o600 });
  return path;
}
