import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_LAUNCH_MINTS, DEMO_MINT_SIGNER } from 'x404-localnet/demo-mint.js';
import { login } from '../helpers/client.js';
import { startStack, type Stack } from '../helpers/gate.js';
import { ataOf, createAta, keypair, legacyTransaction, localnetAdmin, memo, mintTo, rpcCall } from '../helpers/token-transactions.js';
import { expectRefusal, expectToken } from './features-kit.js';

/**
 * The gate's own reads see what the local chain executed: a wallet with nothing mints one `genesis`
 * token co-signed by the demo launch's key (sendTransaction, the real SPL Token program), and the
 * gate — reading over HTTP as against any node — then counts the token (multitoken) and the
 * transaction (activity).
 */
let stack: Stack;
const genesis = DEMO_LAUNCH_MINTS.genesis.address;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
});

async function mintGenesis(wallet: Keypair): Promise<string> {
  const owner = wallet.publicKey.toBase58();
  const { blockhash } = (await rpcCall(stack.localnet.url, 'getLatestBlockhash')).result.value;
  const tx = legacyTransaction(
    [createAta(owner, owner, genesis, 'token'), mintTo(genesis, ataOf(owner, genesis, 'token'), DEMO_MINT_SIGNER.publicKey, 1n, 'token'), memo('genesis')],
    blockhash,
    [wallet, keypair(DEMO_MINT_SIGNER.secretKey)],
  );
  const sent = await rpcCall(stack.localnet.url, 'sendTransaction', [tx, { encoding: 'base64' }]);
  expect(sent.error).toBeUndefined();
  return sent.result as string;
}

describe('the gate reads what the local chain executed', () => {
  it('a minted token counts for multitoken, and the mint transaction for activity', async () => {
    const wallet = Keypair.generate();
    await localnetAdmin(stack.localnet.url, 'lamports', { address: wallet.publicKey.toBase58(), lamports: '1000000000' });
    const holdsGenesis = { required_tokens: JSON.stringify([{ mint: genesis, amount: '1' }]) };
    const active = { min_transactions: '1', time_period_days: '1' };

    expectRefusal(await login(stack.gateUrl, 'multitoken', wallet.secretKey, holdsGenesis), 500, 'INSUFFICIENT_TOKENS');
    expectRefusal(await login(stack.gateUrl, 'activity', wallet.secretKey, active), 500, 'INSUFFICIENT_ACTIVITY');

    await mintGenesis(wallet);

    expectToken(await login(stack.gateUrl, 'multitoken', wallet.secretKey, holdsGenesis), 'multitoken', wallet.secretKey, { requirementsMet: 1 });
    expectToken(await login(stack.gateUrl, 'activity', wallet.secretKey, active), 'activity', wallet.secretKey);
  });
});
