;; Legendre symbol (a/p) for p = 2^255 - 19 and 0 <= a < p, by the binary Jacobi algorithm on four
;; 64-bit limbs held in locals. a is read little-endian from memory bytes 0..31.
;; Returns 1 (a is a non-zero square), -1 (a non-square) or 0 (a = 0).
;;
;; The source of the bytes in src/chain/legendre.ts: after a change, regenerate them with
;;   X404_WRITE_WASM=1 npx vitest run test/unit/legendre.test.ts
;; (the test assembles this file with wabt and fails while the two differ).
;;
;; Invariant: the answer is sign * (a/n), n odd and positive. Each step keeps it:
;;   a = 2^k a'      (a/n) = (2/n)^k (a'/n), and (2/n) = -1 iff n = 3 or 5 (mod 8)
;;   a < n, both odd  swap: (a/n) = (n/a), times -1 iff a = n = 3 (mod 4) (quadratic reciprocity)
;;   a >= n, both odd (a/n) = ((a - n)/n), a - n even
;; until a = 0, when (0/n) is 1 for n = 1 (a and p coprime) and 0 otherwise.
(module
  (memory (export "memory") 1)
  (func (export "legendre") (result i32)
    (local $a0 i64) (local $a1 i64) (local $a2 i64) (local $a3 i64)
    (local $n0 i64) (local $n1 i64) (local $n2 i64) (local $n3 i64)
    (local $k i64) (local $back i64) (local $x i64) (local $borrow i64) (local $sign i32)
    (local.set $a0 (i64.load offset=0 (i32.const 0)))
    (local.set $a1 (i64.load offset=8 (i32.const 0)))
    (local.set $a2 (i64.load offset=16 (i32.const 0)))
    (local.set $a3 (i64.load offset=24 (i32.const 0)))
    ;; n = p: 0xffffffffffffffed, 0xffffffffffffffff, 0xffffffffffffffff, 0x7fffffffffffffff
    (local.set $n0 (i64.const -19))
    (local.set $n1 (i64.const -1))
    (local.set $n2 (i64.const -1))
    (local.set $n3 (i64.const 0x7fffffffffffffff))
    (local.set $sign (i32.const 1))
    (block $done
      (loop $step
        (br_if $done (i64.eqz (i64.or (i64.or (local.get $a0) (local.get $a1)) (i64.or (local.get $a2) (local.get $a3)))))
        ;; A zero low limb: shift by 64, an even power of two, so (2/n)^64 = 1.
        (if (i64.eqz (local.get $a0))
          (then
            (local.set $a0 (local.get $a1))
            (local.set $a1 (local.get $a2))
            (local.set $a2 (local.get $a3))
            (local.set $a3 (i64.const 0))
            (br $step)))
        ;; a = 2^k a', 0 <= k < 64: (a/n) = (2/n)^k (a'/n), (2/n) = -1 iff n = 3, 5 (mod 8).
        (local.set $k (i64.ctz (local.get $a0)))
        (if (i64.ne (local.get $k) (i64.const 0))
          (then
            (local.set $back (i64.sub (i64.const 64) (local.get $k)))
            (local.set $a0 (i64.or (i64.shr_u (local.get $a0) (local.get $k)) (i64.shl (local.get $a1) (local.get $back))))
            (local.set $a1 (i64.or (i64.shr_u (local.get $a1) (local.get $k)) (i64.shl (local.get $a2) (local.get $back))))
            (local.set $a2 (i64.or (i64.shr_u (local.get $a2) (local.get $k)) (i64.shl (local.get $a3) (local.get $back))))
            (local.set $a3 (i64.shr_u (local.get $a3) (local.get $k)))
            (if (i32.wrap_i64 (i64.and (local.get $k) (i64.const 1)))
              (then
                (local.set $x (i64.and (local.get $n0) (i64.const 7)))
                (if (i32.or (i64.eq (local.get $x) (i64.const 3)) (i64.eq (local.get $x) (i64.const 5)))
                  (then (local.set $sign (i32.sub (i32.const 0) (local.get $sign)))))))))
        ;; Both odd. a < n: swap them; reciprocity: (a/n) = -(n/a) iff a = n = 3 (mod 4).
        (if (if (result i32) (i64.ne (local.get $a3) (local.get $n3))
              (then (i64.lt_u (local.get $a3) (local.get $n3)))
              (else (if (result i32) (i64.ne (local.get $a2) (local.get $n2))
                (then (i64.lt_u (local.get $a2) (local.get $n2)))
                (else (if (result i32) (i64.ne (local.get $a1) (local.get $n1))
                  (then (i64.lt_u (local.get $a1) (local.get $n1)))
                  (else (i64.lt_u (local.get $a0) (local.get $n0))))))))
          (then
            (if (i32.and
                  (i64.eq (i64.and (local.get $a0) (i64.const 3)) (i64.const 3))
                  (i64.eq (i64.and (local.get $n0) (i64.const 3)) (i64.const 3)))
              (then (local.set $sign (i32.sub (i32.const 0) (local.get $sign)))))
            (local.set $x (local.get $a0)) (local.set $a0 (local.get $n0)) (local.set $n0 (local.get $x))
            (local.set $x (local.get $a1)) (local.set $a1 (local.get $n1)) (local.set $n1 (local.get $x))
            (local.set $x (local.get $a2)) (local.set $a2 (local.get $n2)) (local.set $n2 (local.get $x))
            (local.set $x (local.get $a3)) (local.set $a3 (local.get $n3)) (local.set $n3 (local.get $x))))
        ;; a >= n, both odd: (a/n) = ((a - n)/n), and a - n is even.
        (local.set $borrow (i64.extend_i32_u (i64.lt_u (local.get $a0) (local.get $n0))))
        (local.set $a0 (i64.sub (local.get $a0) (local.get $n0)))
        (local.set $x (i64.sub (i64.sub (local.get $a1) (local.get $n1)) (local.get $borrow)))
        (local.set $borrow (i64.extend_i32_u (i32.or (i64.lt_u (local.get $a1) (local.get $n1))
          (i32.and (i64.eq (local.get $a1) (local.get $n1)) (i32.wrap_i64 (local.get $borrow))))))
        (local.set $a1 (local.get $x))
        (local.set $x (i64.sub (i64.sub (local.get $a2) (local.get $n2)) (local.get $borrow)))
        (local.set $borrow (i64.extend_i32_u (i32.or (i64.lt_u (local.get $a2) (local.get $n2))
          (i32.and (i64.eq (local.get $a2) (local.get $n2)) (i32.wrap_i64 (local.get $borrow))))))
        (local.set $a2 (local.get $x))
        (local.set $a3 (i64.sub (i64.sub (local.get $a3) (local.get $n3)) (local.get $borrow)))
        (br $step)))
    ;; a = 0: the symbol is 0 unless n = 1, i.e. gcd(a, p) = 1.
    (if (result i32)
      (i64.eqz (i64.or (i64.xor (local.get $n0) (i64.const 1)) (i64.or (local.get $n1) (i64.or (local.get $n2) (local.get $n3)))))
      (then (local.get $sign))
      (else (i32.const 0)))))
