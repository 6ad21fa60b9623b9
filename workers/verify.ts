import { runVerifyTask, type VerifyTask, type VerifyTaskResult } from '../src/signature/verify-task.js';

/** Piscina worker: one batch of ed25519 verifications (and the valid signers' ATAs) in, the results out. */
export default function verify(task: VerifyTask): VerifyTaskResult {
  return runVerifyTask(task);
}
