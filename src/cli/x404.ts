#!/usr/bin/env node
import { checkCommand, CHECK_HELP } from './check.js';
import { keysCommand, KEYS_HELP } from './keys.js';
import { loginCommand, LOGIN_HELP } from './login.js';
import { mintCommand, MINT_HELP, mintStatusCommand, MINT_STATUS_HELP } from './mint.js';
import { airdropCommand, AIRDROP_HELP, mintCreateCommand, MINT_CREATE_HELP } from './launch.js';
import { EXIT, printProgress, printResult, UsageError } from './io.js';
import { verifyCommand, VERIFY_HELP } from './verify.js';

const HELP = `x404: sign in to an x404 gate, check its tokens, make its keys, ask why a rule refused a wallet, mint through it.

${LOGIN_HELP}

${VERIFY_HELP}

${CHECK_HELP}

${KEYS_HELP}

${MINT_HELP}

${MINT_STATUS_HELP}

${MINT_CREATE_HELP}

${AIRDROP_HELP}

Exit codes: 0 success; 1 the gate refused the wallet or the token is invalid; 2 usage error;
3 the gate could not be reached, was rate limiting or could not read the chain (try again).`;

const COMMANDS: Record<string, (argv: string[]) => Promise<number>> = {
  login: loginCommand,
  verify: verifyCommand,
  keys: keysCommand,
  check: checkCommand,
  mint: mintCommand,
  'mint-status': mintStatusCommand,
  'mint-create': mintCreateCommand,
  airdrop: airdropCommand,
};

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined) {
    printProgress(HELP);
    return EXIT.usage;
  }
  if (command === 'help' || command === '--help' || command === '-h') {
    printResult(HELP);
    return EXIT.ok;
  }
  const run = COMMANDS[command];
  if (!run) throw new UsageError(`unknown command "${command}"; use login, verify, keys, check, mint, mint-status, mint-create or airdrop (x404 --help)`);
  return run(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // parseArgs reports unknown or malformed options with code ERR_PARSE_ARGS_*.
    const isUsage = error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    if (isUsage) {
      printProgress(`x404: ${(error as Error).message}\nRun x404 --help for usage.`);
      process.exitCode = EXIT.usage;
    } else {
      printProgress(`x404: unexpected failure: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = EXIT.refused;
    }
  },
);
