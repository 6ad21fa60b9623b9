/**
 * Transaction errors as a node reports them. The JSON is serde's form of agave's TransactionError
 * (solana-transaction-error): a unit variant is its name (`"BlockhashNotFound"`), the others are
 * objects (`{"InstructionError":[1,"MissingRequiredSignature"]}`, `{"InstructionError":[0,{"Custom":4}]}`,
 * `{"InsufficientFundsForRent":{"account_index":2}}`). The text is its Display, which
 * sendTransaction puts after "Transaction simulation failed: " in a -32002 preflight failure.
 *
 * LiteSVM (litesvm/dist/internal.d.ts) hands errors back as the index of a fieldless variant or as
 * small classes; the two name lists below follow its enums' order (TransactionErrorFieldless,
 * InstructionErrorFieldless), which is close to agave's declaration order but not the same (BorshIoError, ResanitizationNeeded
 * moved): test/unit/localnet-transactions.test.ts checks these lists against litesvm's declarations.
 */
export type TransactionErrorJson = string | Record<string, unknown>;

/** [name, Display] of agave's TransactionError variants without fields, in LiteSVM's index order. */
const TRANSACTION_ERRORS: readonly (readonly [string, string])[] = [
  ['AccountInUse', 'Account in use'],
  ['AccountLoadedTwice', 'Account loaded twice'],
  ['AccountNotFound', 'Attempt to debit an account but found no record of a prior credit.'],
  ['ProgramAccountNotFound', 'Attempt to load a program that does not exist'],
  ['InsufficientFundsForFee', 'Insufficient funds for fee'],
  ['InvalidAccountForFee', 'This account may not be used to pay transaction fees'],
  ['AlreadyProcessed', 'This transaction has already been processed'],
  ['BlockhashNotFound', 'Blockhash not found'],
  ['CallChainTooDeep', 'Loader call chain is too deep'],
  ['MissingSignatureForFee', 'Transaction requires a fee but has no signature present'],
  ['InvalidAccountIndex', 'Transaction contains an invalid account reference'],
  ['SignatureFailure', 'Transaction did not pass signature verification'],
  ['InvalidProgramForExecution', 'This program may not be used for executing instructions'],
  ['SanitizeFailure', 'Transaction failed to sanitize accounts offsets correctly'],
  ['ClusterMaintenance', 'Transactions are currently disabled due to cluster maintenance'],
  ['AccountBorrowOutstanding', 'Transaction processing left an account with an outstanding borrowed reference'],
  ['WouldExceedMaxBlockCostLimit', 'Transaction would exceed max Block Cost Limit'],
  ['UnsupportedVersion', 'Transaction version is unsupported'],
  ['InvalidWritableAccount', 'Transaction loads a writable account that cannot be written'],
  ['WouldExceedMaxAccountCostLimit', 'Transaction would exceed max account limit within the block'],
  ['WouldExceedAccountDataBlockLimit', 'Transaction would exceed account data limit within the block'],
  ['TooManyAccountLocks', 'Transaction locked too many accounts'],
  ['AddressLookupTableNotFound', "Transaction loads an address table account that doesn't exist"],
  ['InvalidAddressLookupTableOwner', 'Transaction loads an address table account with an invalid owner'],
  ['InvalidAddressLookupTableData', 'Transaction loads an address table account with invalid data'],
  ['InvalidAddressLookupTableIndex', 'Transaction address table lookup uses an invalid index'],
  ['InvalidRentPayingAccount', 'Transaction leaves an account with a lower balance than rent-exempt minimum'],
  ['WouldExceedMaxVoteCostLimit', 'Transaction would exceed max Vote Cost Limit'],
  ['WouldExceedAccountDataTotalLimit', 'Transaction would exceed total account data limit'],
  ['MaxLoadedAccountsDataSizeExceeded', 'Transaction exceeded max loaded accounts data size cap'],
  ['ResanitizationNeeded', 'ResanitizationNeeded'],
  ['InvalidLoadedAccountsDataSizeLimit', 'LoadedAccountsDataSizeLimit set for transaction must be greater than 0.'],
  ['UnbalancedTransaction', 'Sum of account balances before and after transaction do not match'],
  ['ProgramCacheHitMaxLimit', 'Program cache hit max limit'],
  ['CommitCancelled', 'CommitCancelled'],
];

/** [name, Display] of agave's InstructionError variants without fields, in LiteSVM's index order. */
const INSTRUCTION_ERRORS: readonly (readonly [string, string])[] = [
  ['GenericError', 'generic instruction error'],
  ['InvalidArgument', 'invalid program argument'],
  ['InvalidInstructionData', 'invalid instruction data'],
  ['InvalidAccountData', 'invalid account data for instruction'],
  ['AccountDataTooSmall', 'account data too small for instruction'],
  ['InsufficientFunds', 'insufficient funds for instruction'],
  ['IncorrectProgramId', 'incorrect program id for instruction'],
  ['MissingRequiredSignature', 'missing required signature for instruction'],
  ['AccountAlreadyInitialized', 'instruction requires an uninitialized account'],
  ['UninitializedAccount', 'instruction requires an initialized account'],
  ['UnbalancedInstruction', 'sum of account balances before and after instruction do not match'],
  ['ModifiedProgramId', 'instruction illegally modified the program id of an account'],
  ['ExternalAccountLamportSpend', 'instruction spent from the balance of an account it does not own'],
  ['ExternalAccountDataModified', 'instruction modified data of an account it does not own'],
  ['ReadonlyLamportChange', 'instruction changed the balance of a read-only account'],
  ['ReadonlyDataModified', 'instruction modified data of a read-only account'],
  ['DuplicateAccountIndex', 'instruction contains duplicate accounts'],
  ['ExecutableModified', 'instruction changed executable bit of an account'],
  ['RentEpochModified', 'instruction modified rent epoch of an account'],
  ['NotEnoughAccountKeys', 'insufficient account keys for instruction'],
  ['AccountDataSizeChanged', "program other than the account's owner changed the size of the account data"],
  ['AccountNotExecutable', 'instruction expected an executable account'],
  ['AccountBorrowFailed', 'instruction tries to borrow reference for an account which is already borrowed'],
  ['AccountBorrowOutstanding', 'instruction left account with an outstanding borrowed reference'],
  ['DuplicateAccountOutOfSync', 'instruction modifications of multiply-passed account differ'],
  ['InvalidError', 'program returned invalid error code'],
  ['ExecutableDataModified', 'instruction changed executable accounts data'],
  ['ExecutableLamportChange', 'instruction changed the balance of an executable account'],
  ['ExecutableAccountNotRentExempt', 'executable accounts must be rent exempt'],
  ['UnsupportedProgramId', 'Unsupported program id'],
  ['CallDepth', 'Cross-program invocation call depth too deep'],
  ['MissingAccount', 'An account required by the instruction is missing'],
  ['ReentrancyNotAllowed', 'Cross-program invocation reentrancy not allowed for this instruction'],
  ['MaxSeedLengthExceeded', 'Length of the seed is too long for address generation'],
  ['InvalidSeeds', 'Provided seeds do not result in a valid address'],
  ['InvalidRealloc', 'Failed to reallocate account data'],
  ['ComputationalBudgetExceeded', 'Computational budget exceeded'],
  ['PrivilegeEscalation', 'Cross-program invocation with unauthorized signer or writable account'],
  ['ProgramEnvironmentSetupFailure', 'Failed to create program execution environment'],
  ['ProgramFailedToComplete', 'Program failed to complete'],
  ['ProgramFailedToCompile', 'Program failed to compile'],
  ['Immutable', 'Account is immutable'],
  ['IncorrectAuthority', 'Incorrect authority provided'],
  ['AccountNotRentExempt', 'An account does not have enough lamports to be rent-exempt'],
  ['InvalidAccountOwner', 'Invalid account owner'],
  ['ArithmeticOverflow', 'Program arithmetic overflowed'],
  ['UnsupportedSysvar', 'Unsupported sysvar'],
  ['IllegalOwner', 'Provided owner is not allowed'],
  ['MaxAccountsDataAllocationsExceeded', 'Accounts data allocations exceeded the maximum allowed per transaction'],
  ['MaxAccountsExceeded', 'Max accounts exceeded'],
  ['MaxInstructionTraceLengthExceeded', 'Max instruction trace length exceeded'],
  ['BuiltinProgramsMustConsumeComputeUnits', 'Builtin programs must consume compute units'],
  ['BorshIoError', 'Failed to serialize or deserialize account data'],
];

/** The names alone, in LiteSVM's index order (checked against litesvm's own declarations in a test). */
export const TRANSACTION_ERROR_NAMES: readonly string[] = TRANSACTION_ERRORS.map(([name]) => name);
export const INSTRUCTION_ERROR_NAMES: readonly string[] = INSTRUCTION_ERRORS.map(([name]) => name);

const transactionText = new Map(TRANSACTION_ERRORS.map(([name, text]) => [name, text]));
const instructionText = new Map(INSTRUCTION_ERRORS.map(([name, text]) => [name, text]));

/** The node's Display of an error, for the -32002 message. */
export function describeTransactionError(err: TransactionErrorJson): string {
  if (typeof err === 'string') return transactionText.get(err) ?? err;
  const [variant, value] = Object.entries(err)[0] ?? ['', undefined];
  if (variant === 'InstructionError' && Array.isArray(value)) {
    const [index, inner] = value as [number, unknown];
    return `Error processing Instruction ${index}: ${describeInstructionError(inner)}`;
  }
  if (variant === 'DuplicateInstruction') return `Transaction contains a duplicate instruction (${String(value)}) that is not allowed`;
  const accountIndex = (value as { account_index?: number } | undefined)?.account_index;
  if (variant === 'InsufficientFundsForRent') return `Transaction results in an account (${accountIndex}) with insufficient funds for rent`;
  if (variant === 'ProgramExecutionTemporarilyRestricted') {
    return `Execution of the program referenced by account at index ${accountIndex} is temporarily restricted.`;
  }
  return variant;
}

function describeInstructionError(inner: unknown): string {
  if (typeof inner === 'string') return instructionText.get(inner) ?? inner;
  if (inner && typeof inner === 'object' && 'Custom' in inner) return `custom program error: 0x${(inner as { Custom: number }).Custom.toString(16)}`;
  if (inner && typeof inner === 'object' && 'BorshIoError' in inner) return 'Failed to serialize or deserialize account data';
  return JSON.stringify(inner);
}

/** Shapes of LiteSVM's error values (litesvm/dist/internal.d.ts), read structurally. */
interface LiteSvmInstructionError {
  index: number;
  err(): number | { code: number } | { msg: string };
}

/** LiteSVM's error value → the node's JSON. */
export function fromLiteSvmError(err: unknown): TransactionErrorJson {
  if (typeof err === 'number') return TRANSACTION_ERRORS[err]?.[0] ?? `UnknownTransactionError(${err})`;
  const name = (err as { constructor?: { name?: string } })?.constructor?.name ?? '';
  const fields = err as Record<string, unknown>;
  if (name === 'TransactionErrorInstructionError') {
    const { index } = err as LiteSvmInstructionError;
    const inner = (err as LiteSvmInstructionError).err();
    if (typeof inner === 'number') return { InstructionError: [index, INSTRUCTION_ERRORS[inner]?.[0] ?? `UnknownInstructionError(${inner})`] };
    if ('code' in inner) return { InstructionError: [index, { Custom: inner.code }] };
    return { InstructionError: [index, { BorshIoError: inner.msg }] };
  }
  if (name === 'TransactionErrorDuplicateInstruction') return { DuplicateInstruction: fields.index as number };
  if (name === 'TransactionErrorInsufficientFundsForRent') return { InsufficientFundsForRent: { account_index: fields.accountIndex as number } };
  if (name === 'TransactionErrorProgramExecutionTemporarilyRestricted') {
    return { ProgramExecutionTemporarilyRestricted: { account_index: fields.accountIndex as number } };
  }
  return String(err);
}
