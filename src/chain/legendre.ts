/**
 * The Legendre symbol (a/p) for p = 2^255 − 19, in WebAssembly: the binary Jacobi algorithm on four
 * 64-bit limbs held in locals (source: src/chain/legendre.wat, whose assembly the bytes below are —
 * test/unit/legendre.test.ts assembles it with wabt and compares). It decides every on-curve test
 * of a PDA search (ed25519-on-curve.ts): ~3 µs here against ~17–25 µs for the same algorithm's
 * Euclid-like form in BigInt, whose every step allocates (bench/ata.ts). Cross-checked against
 * Euler's criterion and that BigInt form.
 */
export const LEGENDRE_WASM_BASE64 =
  'AGFzbQEAAAABBQFgAAF/AwIBAAUDAQABBxUCBm1lbW9yeQIACGxlZ2VuZHJlAAAKxQMBwgMCDH4Bf0EAKQMAIQBBACkDCCEBQQApAxAhAkEAKQMYIQNCbSEEQn8hBUJ/IQZC////////////ACEHQQEhDAJAA0AgACABhCACIAOEhFANASAAUARAIAEhACACIQEgAyECQgAhAwwBCyAAeiEIIAhCAFIEQELAACAIfSEJIAAgCIggASAJhoQhACABIAiIIAIgCYaEIQEgAiAIiCADIAmGhCECIAMgCIghAyAIQgGDpwRAIARCB4MhCiAKQgNRIApCBVFyBEBBACAMayEMCwsLIAMgB1IEfyADIAdUBSACIAZSBH8gAiAGVAUgASAFUgR/IAEgBVQFIAAgBFQLCwsEQCAAQgODQgNRIARCA4NCA1FxBEBBACAMayEMCyAAIQogBCEAIAohBCABIQogBSEBIAohBSACIQogBiECIAohBiADIQogByEDIAohBwsgACAEVK0hCyAAIAR9IQAgASAFfSALfSEKIAEgBVQgASAFUSALp3FyrSELIAohASACIAZ9IAt9IQogAiAGVCACIAZRIAuncXKtIQsgCiECIAMgB30gC30hAwwACwsgBEIBhSAFIAYgB4SEhFAEfyAMBUEACws=';

const instance = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(LEGENDRE_WASM_BASE64, 'base64')));
const exported = instance.exports as { memory: WebAssembly.Memory; legendre(): number };
/** a, little-endian, as the module reads it. */
const limbs = new BigUint64Array(exported.memory.buffer, 0, 4);
const LIMB = (1n << 64n) - 1n;

/** 1 when a is a non-zero square mod p, −1 when it is not a square, 0 for a = 0; requires 0 ≤ a < p. */
export function legendre(a: bigint): number {
  limbs[0] = a & LIMB;
  limbs[1] = (a >> 64n) & LIMB;
  limbs[2] = (a >> 128n) & LIMB;
  limbs[3] = a >> 192n;
  return exported.legendre();
}
