/**
 * Preloaded into a gate process by tests (NODE_OPTIONS=--import, see test/e2e/nonce-replay.test.ts):
 * the process's wall clock reads X404_TEST_CLOCK_OFFSET_MS milliseconds off the machine's, as on a
 * host whose clock is wrong. Date.now() and `new Date()` shift; the monotonic clock
 * (performance.now()) does not, as it does not for a wrong wall clock. The gate itself has no such
 * setting: this file is never loaded outside the tests.
 */
const offsetMs = Number(process.env.X404_TEST_CLOCK_OFFSET_MS ?? '0');
const MachineDate = Date;
const machineNow = MachineDate.now.bind(MachineDate);

class SkewedDate extends MachineDate {
  constructor(...args) {
    if (args.length === 0) super(machineNow() + offsetMs);
    else super(...args);
  }

  static now() {
    return machineNow() + offsetMs;
  }
}

globalThis.Date = SkewedDate;
