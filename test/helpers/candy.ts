import { createRequire } from 'node:module';
import { ComputeBudgetProgram, Keypair, PublicKey, TransactionInstruction } from '@solana/web3.js';
import { signWith } from './mint.js';

/**
 * Candy Machine v3 and Core Candy Machine mint transactions and guard accounts built with the
 * official Metaplex clients from npm (@metaplex-foundation/mpl-candy-machine 6.1.0,
 * @metaplex-foundation/mpl-core-candy-machine 0.3.0), not with the gate's own code. Umi runs with
 * its program repository and a PDA finder over web3.js (no RPC, no network); the clients' builders
 * make the instruction, web3.js compiles and the wallet signs it.
 */
const require = createRequire(import.meta.url);
type Umi = import('@metaplex-foundation/umi').Umi;
const umiCore = require('@metaplex-foundation/umi') as typeof import('@metaplex-foundation/umi');
const { defaultProgramRepository } = require('@metaplex-foundation/umi-program-repository') as typeof import('@metaplex-foundation/umi-program-repository');
const candyMachine = require('@metaplex-foundation/mpl-candy-machine') as typeof import('@metaplex-foundation/mpl-candy-machine');
const coreCandyMachine = require('@metaplex-foundation/mpl-core-candy-machine') as typeof import('@metaplex-foundation/mpl-core-candy-machine');

export type CandyProgram = 'candy-guard' | 'core-candy-guard';

function makeUmi(program: CandyProgram): Umi {
  const umi = umiCore.createUmi();
  umi.use(defaultProgramRepository());
  umi.use({
    install(context) {
      // The program repository asks which cluster it is on; nothing is ever sent.
      context.rpc = { ...context.rpc, getCluster: () => 'localnet', getEndpoint: () => 'http://127.0.0.1:0' } as never;
      // Only what the builders use: PDAs (web3.js derives them) and the on-curve test.
      context.eddsa = {
        ...context.eddsa,
        findPda: (programId, seeds) => {
          const [address, bump] = PublicKey.findProgramAddressSync(seeds.map((seed) => Buffer.from(seed)), new PublicKey(programId));
          return [umiCore.publicKey(address.toBase58()), bump] as never;
        },
        isOnCurve: (key) => PublicKey.isOnCurve(new PublicKey(key).toBytes()),
      };
    },
  });
  umi.use(program === 'candy-guard' ? candyMachine.mplCandyMachine() : coreCandyMachine.mplCandyMachine());
  return umi;
}

const umis = new Map<CandyProgram, Umi>();
export const umiFor = (program: CandyProgram): Umi => {
  let umi = umis.get(program);
  if (!umi) umis.set(program, (umi = makeUmi(program)));
  return umi;
};

export const { some, none, sol, publicKey: umiKey, dateTime } = umiCore;

/** Guard set arguments as the clients take them (`some(...)` per guard). */
export type GuardArgs = Record<string, unknown>;

/** Each guard's serialized size, as the client's guard manifests say (in guard order). */
export function clientGuardSizes(program: CandyProgram): (number | null)[] {
  type Repository = { forProgram(program: unknown): { serializer(): { fixedSize: number | null } }[] };
  const umi = umiFor(program) as unknown as { programs: Umi['programs']; guards?: Repository; coreGuards?: Repository };
  const record = umi.programs.get(program === 'candy-guard' ? 'mplCandyGuard' : 'mplCoreCandyGuard');
  // The Core client keeps its guards under their own name.
  const repository = (program === 'candy-guard' ? umi.guards : umi.coreGuards)!;
  return repository.forProgram(record).map((manifest) => manifest.serializer().fixedSize);
}

/** A candy guard account's data, serialized by the client's own account serializer. */
export function candyGuardAccount(program: CandyProgram, guards: GuardArgs, groups: { label: string; guards: GuardArgs }[] = []): Uint8Array {
  const umi = umiFor(program);
  const client = program === 'candy-guard' ? candyMachine : coreCandyMachine;
  const programRecord = umi.programs.get(program === 'candy-guard' ? 'mplCandyGuard' : 'mplCoreCandyGuard');
  const empty = client.emptyDefaultGuardSetArgs as GuardArgs;
  return client.getCandyGuardAccountDataSerializer(umi as never, programRecord as never).serialize({
    base: umiKey(Keypair.generate().publicKey.toBase58()),
    bump: 255,
    authority: umiKey(Keypair.generate().publicKey.toBase58()),
    guards: { ...empty, ...guards },
    groups: groups.map((group) => ({ label: group.label, guards: { ...empty, ...group.guards } })),
  } as never);
}

export interface CandyMintBuild {
  program: CandyProgram;
  payer: Keypair;
  /** The new NFT mint (candy-guard) or Core asset (core-candy-guard): the wallet makes and signs it. */
  newAccount: Keypair;
  candyGuard: PublicKey;
  candyMachine: PublicKey;
  /** Mint arguments by guard, as the clients take them; the gate's key goes in thirdPartySigner. */
  mintArgs: GuardArgs;
  group?: string;
  blockhash: string;
  /** What a page does after the client built the instruction: the gate's key read-only (the client marks it writable). */
  demoteGate?: PublicKey;
  /** Different minter / payer than the fee payer (forbidden shapes). */
  minter?: PublicKey;
  payerAccount?: PublicKey;
  extra?: TransactionInstruction[];
  version?: 'legacy' | 0;
}

/** The client's mint instruction (mintV2 / Core mintV1) as web3.js instructions. */
export function candyMintInstruction(build: CandyMintBuild): TransactionInstruction {
  const umi = umiFor(build.program);
  const noop = (key: PublicKey) => umiCore.createNoopSigner(umiKey(key.toBase58()));
  const mintArgs = Object.fromEntries(
    Object.entries(build.mintArgs).map(([guard, value]) => {
      // A signer inside mint args (thirdPartySigner) is a placeholder: the gate signs later.
      if (guard === 'thirdPartySigner') return [guard, some({ signer: noop(value as PublicKey) })];
      return [guard, value];
    }),
  );
  const common = {
    candyMachine: umiKey(build.candyMachine.toBase58()),
    candyGuard: umiKey(build.candyGuard.toBase58()),
    payer: noop(build.payerAccount ?? build.payer.publicKey),
    minter: noop(build.minter ?? build.payer.publicKey),
    mintArgs,
    group: build.group === undefined ? none() : some(build.group),
  };
  const collection = umiKey(Keypair.generate().publicKey.toBase58());
  const builder =
    build.program === 'candy-guard'
      ? candyMachine.mintV2(umi as never, {
          ...common,
          nftMint: noop(build.newAccount.publicKey),
          // The client's default is the identity, which is the minter.
          nftMintAuthority: noop(build.minter ?? build.payer.publicKey),
          collectionMint: collection,
          collectionUpdateAuthority: umiKey(Keypair.generate().publicKey.toBase58()),
        } as never)
      : coreCandyMachine.mintV1(umi as never, { ...common, asset: noop(build.newAccount.publicKey), collection } as never);
  const [item] = builder.getInstructions();
  const instruction = item!;
  return new TransactionInstruction({
    programId: new PublicKey(instruction.programId),
    keys: instruction.keys.map((meta) => ({
      pubkey: new PublicKey(meta.pubkey),
      isSigner: meta.isSigner,
      isWritable: build.demoteGate && new PublicKey(meta.pubkey).equals(build.demoteGate) ? false : meta.isWritable,
    })),
    data: Buffer.from(instruction.data),
  });
}

/** Wire bytes signed by the wallet and the new account; the gate's slot zero. */
export function buildCandyMint(build: CandyMintBuild): Uint8Array {
  const instructions = [ComputeBudgetProgram.setComputeUnitLimit({ units: 800_000 }), candyMintInstruction(build), ...(build.extra ?? [])];
  return signWith(instructions, build.payer.publicKey, build.blockhash, [build.payer, build.newAccount], build.version ?? 'legacy');
}
