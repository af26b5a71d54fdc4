// Known-answer vector generator for the cuzk BLS12-381 arithmetic tests.
//
// Usage (from the repository root, after `npm ci`):
//
//     node tests/vectors/gen.mjs OUT_DIR
//
// The script writes the *.txt vector files into OUT_DIR (the build writes them into
// build/vectors; they are not committed). Every value is
// produced by the pinned @noble/curves release; all inputs come from a seeded
// SHA-256 counter-mode stream, so a rerun reproduces the files byte for byte.
// The file format is specified in tests/vectors/README.md.

import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bls12_381 as bls } from '@noble/curves/bls12-381.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
if (process.argv.length !== 3) {
  console.error('usage: node tests/vectors/gen.mjs OUT_DIR');
  process.exit(2);
}
const OUT_DIR = path.resolve(process.argv[2]);
mkdirSync(OUT_DIR, { recursive: true });
const NOBLE_VERSION = JSON.parse(
  readFileSync(path.join(REPO_ROOT, 'node_modules', '@noble', 'curves', 'package.json'), 'utf8')
).version;

const SEED = 'cuzk known-answer vectors v1';
const N_RANDOM = 1000; // random cases per op
const N_FINALEXP = 200; // random cases for the slow Fp12 final exponentiation
const N_NONSUB = 200; // off-subgroup points per group

const { Fp, Fp2, Fp6, Fp12, Fr } = bls.fields;
const G1 = bls.G1.Point;
const G2 = bls.G2.Point;
const P_MOD = Fp.ORDER;
const R_MOD = Fr.ORDER;
const TWO_256 = 1n << 256n;

// ---------------------------------------------------------------------------
// Deterministic randomness: SHA-256(seed | label | counter) blocks.

class Rng {
  constructor(label) {
    this.prefix = Buffer.from(`${SEED}/${label}/`, 'utf8');
    this.counter = 0n;
    this.buf = Buffer.alloc(0);
  }
  bytes(n) {
    while (this.buf.length < n) {
      const ctr = Buffer.alloc(8);
      ctr.writeBigUInt64BE(this.counter++);
      const block = createHash('sha256').update(this.prefix).update(ctr).digest();
      this.buf = Buffer.concat([this.buf, block]);
    }
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    return out;
  }
  bits(n) {
    const nb = Math.ceil(n / 8);
    const v = BigInt('0x' + this.bytes(nb).toString('hex'));
    return v & ((1n << BigInt(n)) - 1n);
  }
  below(m) {
    // Uniform in [0, m) by rejection sampling.
    const n = m.toString(2).length;
    for (;;) {
      const v = this.bits(n);
      if (v < m) return v;
    }
  }
  nonzeroBelow(m) {
    for (;;) {
      const v = this.below(m);
      if (v !== 0n) return v;
    }
  }
  bool() {
    return (this.bytes(1)[0] & 1) === 1;
  }
}

// ---------------------------------------------------------------------------
// Token encoders.

function hexFixed(x, width) {
  if (typeof x !== 'bigint' || x < 0n) throw new Error('hexFixed: expected a non-negative bigint');
  const s = x.toString(16);
  if (s.length > width) throw new Error(`hexFixed: value does not fit in ${width} hex chars`);
  return s.padStart(width, '0');
}
const frTok = (x) => {
  if (x >= R_MOD) throw new Error('Fr value not canonical');
  return hexFixed(x, 64);
};
const fpTok = (x) => {
  if (x >= P_MOD) throw new Error('Fp value not canonical');
  return hexFixed(x, 96);
};
const scalarTok = (x) => hexFixed(x, 64);
const fp2Tok = (a) => `${fpTok(a.c0)},${fpTok(a.c1)}`;
const fp6Tok = (a) => `${fp2Tok(a.c0)},${fp2Tok(a.c1)},${fp2Tok(a.c2)}`;
const fp12Tok = (a) => `${fp6Tok(a.c0)},${fp6Tok(a.c1)}`;
const bytesHex = (b) => Buffer.from(b).toString('hex');
// A sum such as P + (-P) yields a projective identity (X, Y, 0) that noble's
// encoder only accepts in its canonical form, so map every identity to ZERO.
const g1Tok = (P) => (P.is0() ? G1.ZERO : P).toHex(false);
const g2Tok = (P) => (P.is0() ? G2.ZERO : P).toHex(false);

// Point encoder written from the format rules, used for points that noble
// refuses to serialize (off the prime-order subgroup). It is checked against
// noble's own encoder on every valid point this script writes.
function fpBytes(x) {
  return Buffer.from(hexFixed(x, 96), 'hex');
}
function encodePoint(isG2, affine, isZero, compressed) {
  const width = isG2 ? 96 : 48;
  let out;
  if (isZero) {
    out = Buffer.alloc(compressed ? width : 2 * width);
    out[0] |= 0x40;
  } else {
    const { x, y } = affine;
    const xb = isG2 ? Buffer.concat([fpBytes(x.c1), fpBytes(x.c0)]) : fpBytes(x);
    if (compressed) {
      out = xb;
    } else {
      const yb = isG2 ? Buffer.concat([fpBytes(y.c1), fpBytes(y.c0)]) : fpBytes(y);
      out = Buffer.concat([xb, yb]);
    }
    if (compressed) {
      // Sort flag: y is the lexicographically larger of y and -y.
      const parts = isG2 ? [y.c1, y.c0] : [y];
      let larger = false;
      for (const part of parts) {
        if (part !== 0n) {
          larger = part > (P_MOD - 1n) / 2n;
          break;
        }
      }
      if (larger) out[0] |= 0x20;
    }
  }
  if (compressed) out[0] |= 0x80;
  return out.toString('hex');
}
function encodeWith(isG2, P, compressed) {
  const zero = P.is0();
  return encodePoint(isG2, zero ? null : P.toAffine(), zero, compressed);
}

// ---------------------------------------------------------------------------
// Helpers.

function assert(cond, msg) {
  if (!cond) throw new Error('self-check failed: ' + msg);
}
const mod = (a, m) => ((a % m) + m) % m;
function modPow(b, e, m) {
  let r = 1n;
  b = mod(b, m);
  while (e > 0n) {
    if (e & 1n) r = (r * b) % m;
    b = (b * b) % m;
    e >>= 1n;
  }
  return r % m;
}

class VectorFile {
  constructor(name, description, opsDoc) {
    this.name = name;
    this.lines = [
      `# cuzk known-answer vectors: ${description}`,
      `# Generated by tests/vectors/gen.mjs with @noble/curves ${NOBLE_VERSION}. Do not edit by hand;`,
      '# rerun `node tests/vectors/gen.mjs OUT_DIR` instead. Format: tests/vectors/README.md',
      ...opsDoc.map((l) => '# ' + l),
    ];
    this.counts = new Map();
  }
  add(op, ...tokens) {
    this.lines.push([op, ...tokens].join(' '));
    this.counts.set(op, (this.counts.get(op) || 0) + 1);
  }
  write() {
    const text = this.lines.join('\n') + '\n';
    writeFileSync(path.join(OUT_DIR, this.name), text);
    const summary = [...this.counts].map(([op, n]) => `${op}=${n}`).join(' ');
    console.log(`${this.name}: ${text.length} bytes; ${summary}`);
  }
}

// ---------------------------------------------------------------------------
// Prime fields: fr.txt and fp.txt.

function primeFieldEdges(m) {
  return [0n, 1n, 2n, m - 1n, m - 2n];
}

function genPrimeField(name, F, tok, withSqrt) {
  const m = F.ORDER;
  const rng = new Rng(name);
  const label = name === 'fr.txt' ? 'Fr (scalar field, modulus r)' : 'Fp (base field, modulus p)';
  const ops = [
    'add a b c | sub a b c | mul a b c | sqr a c | neg a c | inv a c | pow a e c',
  ];
  if (withSqrt) ops.push('sqrt a s   (s = a^((p+1)/4), or the word none when a is a non-residue)');
  const out = new VectorFile(name, label, ops);
  const E = primeFieldEdges(m);
  const rnd = () => rng.below(m);

  // Binary ops: edge x edge, edge x random, random x edge, a x a, then random x random.
  const binaryInputs = () => {
    const pairs = [];
    for (const a of E) for (const b of E) pairs.push([a, b]);
    for (const e of E) {
      for (let i = 0; i < 2; i++) {
        pairs.push([e, rnd()]);
        pairs.push([rnd(), e]);
      }
    }
    for (let i = 0; i < 3; i++) {
      const a = rnd();
      pairs.push([a, a]);
      pairs.push([a, F.neg(a)]);
    }
    for (let i = 0; i < N_RANDOM; i++) pairs.push([rnd(), rnd()]);
    return pairs;
  };
  for (const [a, b] of binaryInputs()) {
    const c = F.add(a, b);
    assert(c === (a + b) % m, `${name} add`);
    out.add('add', tok(a), tok(b), tok(c));
  }
  for (const [a, b] of binaryInputs()) {
    const c = F.sub(a, b);
    assert(c === mod(a - b, m), `${name} sub`);
    out.add('sub', tok(a), tok(b), tok(c));
  }
  for (const [a, b] of binaryInputs()) {
    const c = F.mul(a, b);
    assert(c === (a * b) % m, `${name} mul`);
    out.add('mul', tok(a), tok(b), tok(c));
  }
  const unaryInputs = (skipZero) => {
    const xs = E.filter((e) => !(skipZero && e === 0n));
    for (let i = 0; i < N_RANDOM; i++) xs.push(skipZero ? rng.nonzeroBelow(m) : rnd());
    return xs;
  };
  for (const a of unaryInputs(false)) {
    const c = F.sqr(a);
    assert(c === (a * a) % m, `${name} sqr`);
    out.add('sqr', tok(a), tok(c));
  }
  for (const a of unaryInputs(false)) {
    const c = F.neg(a);
    assert(c === mod(-a, m), `${name} neg`);
    out.add('neg', tok(a), tok(c));
  }
  for (const a of unaryInputs(true)) {
    const c = F.inv(a);
    assert((a * c) % m === 1n && c === modPow(a, m - 2n, m), `${name} inv`);
    out.add('inv', tok(a), tok(c));
  }
  // pow: exponents are arbitrary 256-bit integers (not reduced modulo anything).
  const expEdges = [0n, 1n, 2n, 3n, R_MOD - 1n, R_MOD, R_MOD + 1n, 1n << 255n, TWO_256 - 1n];
  const powInputs = [];
  for (const a of E) for (const e of expEdges) powInputs.push([a, e]);
  for (let i = 0; i < 4; i++) {
    const a = rnd();
    for (const e of expEdges) powInputs.push([a, e]);
  }
  for (let i = 0; i < N_RANDOM; i++) powInputs.push([rnd(), rng.bits(256)]);
  for (const [a, e] of powInputs) {
    const c = F.pow(a, e);
    assert(c === modPow(a, e, m) || (e === 0n && c === 1n), `${name} pow`);
    out.add('pow', tok(a), scalarTok(e), tok(c));
  }
  if (withSqrt) {
    let yes = 0;
    let no = 0;
    for (const a of unaryInputs(false)) {
      const isSquare = a === 0n || modPow(a, (m - 1n) / 2n, m) === 1n;
      let s = null;
      try {
        s = F.sqrt(a);
      } catch {
        s = null;
      }
      assert((s !== null) === isSquare, `${name} sqrt residuosity`);
      if (s === null) {
        no++;
        out.add('sqrt', tok(a), 'none');
      } else {
        assert((s * s) % m === a && s === modPow(a, (m + 1n) / 4n, m), `${name} sqrt value`);
        yes++;
        out.add('sqrt', tok(a), tok(s));
      }
    }
    console.log(`  ${name} sqrt: ${yes} roots, ${no} none`);
  }
  out.write();
}

// ---------------------------------------------------------------------------
// Extension fields.

const randFp = (rng) => rng.below(P_MOD);
const randFp2 = (rng) => Fp2.create({ c0: randFp(rng), c1: randFp(rng) });
const randFp6 = (rng) => Fp6.create({ c0: randFp2(rng), c1: randFp2(rng), c2: randFp2(rng) });
const randFp12 = (rng) => Fp12.create({ c0: randFp6(rng), c1: randFp6(rng) });

const fp2 = (c0, c1 = 0n) => Fp2.create({ c0, c1 });
const fp6 = (c0, c1 = Fp2.ZERO, c2 = Fp2.ZERO) => Fp6.create({ c0, c1, c2 });
const fp12 = (c0, c1 = Fp6.ZERO) => Fp12.create({ c0, c1 });
const PM1 = P_MOD - 1n;
const PM2 = P_MOD - 2n;

function fp2Edges() {
  return [
    fp2(0n),
    fp2(1n),
    fp2(2n),
    fp2(PM1),
    fp2(PM2),
    fp2(0n, 1n), // u
    fp2(0n, PM1), // -u
    fp2(1n, 1n), // u + 1
    fp2(PM1, PM1),
    fp2(PM2, 1n),
  ];
}
function fp6Edges() {
  const u = fp2(0n, 1n);
  return [
    fp6(fp2(0n)),
    fp6(fp2(1n)),
    fp6(fp2(2n)),
    fp6(fp2(PM1)),
    fp6(fp2(PM2)),
    fp6(Fp2.ZERO, Fp2.ONE), // v
    fp6(Fp2.ZERO, Fp2.ZERO, Fp2.ONE), // v^2
    fp6(u, u, u),
    fp6(fp2(PM1, PM1), fp2(PM1, PM1), fp2(PM1, PM1)),
  ];
}
function fp12Edges() {
  const all = fp6(fp2(PM1, PM1), fp2(PM1, PM1), fp2(PM1, PM1));
  return [
    fp12(fp6(fp2(0n))),
    fp12(fp6(fp2(1n))),
    fp12(fp6(fp2(2n))),
    fp12(fp6(fp2(PM1))),
    fp12(fp6(fp2(PM2))),
    fp12(Fp6.ZERO, Fp6.ONE), // w
    fp12(fp6(Fp2.ZERO, Fp2.ONE)), // v
    fp12(fp6(fp2(0n, 1n))), // u
    fp12(all, all),
  ];
}

// Generic driver for the ring ops shared by the extension-field files.
function genRingOps(out, rng, F, tok, edges, randEl, opsWanted) {
  const isZero = (a) => F.is0(a);
  const binaryInputs = () => {
    const pairs = [];
    for (const a of edges) for (const b of edges) pairs.push([a, b]);
    for (const e of edges) {
      pairs.push([e, randEl(rng)]);
      pairs.push([randEl(rng), e]);
    }
    for (let i = 0; i < 3; i++) {
      const a = randEl(rng);
      pairs.push([a, a]);
      pairs.push([a, F.neg(a)]);
    }
    for (let i = 0; i < N_RANDOM; i++) pairs.push([randEl(rng), randEl(rng)]);
    return pairs;
  };
  const unaryInputs = (skipZero) => {
    const xs = edges.filter((e) => !(skipZero && isZero(e)));
    for (let i = 0; i < N_RANDOM; i++) xs.push(randEl(rng));
    return xs.filter((x) => !(skipZero && isZero(x)));
  };
  if (opsWanted.includes('add'))
    for (const [a, b] of binaryInputs()) out.add('add', tok(a), tok(b), tok(F.add(a, b)));
  if (opsWanted.includes('sub'))
    for (const [a, b] of binaryInputs()) {
      const c = F.sub(a, b);
      assert(F.eql(F.add(c, b), a), 'sub');
      out.add('sub', tok(a), tok(b), tok(c));
    }
  if (opsWanted.includes('mul'))
    for (const [a, b] of binaryInputs()) {
      const c = F.mul(a, b);
      assert(F.eql(c, F.mul(b, a)), 'mul commutes');
      out.add('mul', tok(a), tok(b), tok(c));
    }
  if (opsWanted.includes('sqr'))
    for (const a of unaryInputs(false)) {
      const c = F.sqr(a);
      assert(F.eql(c, F.mul(a, a)), 'sqr');
      out.add('sqr', tok(a), tok(c));
    }
  if (opsWanted.includes('neg'))
    for (const a of unaryInputs(false)) {
      const c = F.neg(a);
      assert(F.is0(F.add(a, c)), 'neg');
      out.add('neg', tok(a), tok(c));
    }
  if (opsWanted.includes('inv'))
    for (const a of unaryInputs(true)) {
      const c = F.inv(a);
      assert(F.eql(F.mul(a, c), F.ONE), 'inv');
      out.add('inv', tok(a), tok(c));
    }
  return { unaryInputs };
}

function genFp2() {
  const rng = new Rng('fp2.txt');
  const out = new VectorFile('fp2.txt', 'Fp2 = Fp[u]/(u^2+1), token a,b = a + b*u', [
    'add a b c | sub a b c | mul a b c | sqr a c | neg a c | inv a c',
    'frob a c    (c = a^p, the conjugate a.c0 - a.c1*u)',
    'sqrt a s    (s = the root returned by @noble/curves, or the word none for a non-square)',
    'mulnr a c   (c = a*(u+1))',
  ]);
  const edges = fp2Edges();
  const { unaryInputs } = genRingOps(out, rng, Fp2, fp2Tok, edges, randFp2, [
    'add', 'sub', 'mul', 'sqr', 'neg', 'inv',
  ]);
  const inputs = unaryInputs(false);
  for (const [i, a] of inputs.entries()) {
    const c = Fp2.frobeniusMap(a, 1);
    if (i < 12) assert(Fp2.eql(c, Fp2.pow(a, P_MOD)), 'fp2 frob = pow p');
    out.add('frob', fp2Tok(a), fp2Tok(c));
  }
  // sqrt: random elements are squares about half the time; also exercise the
  // c1 = 0 and c0 = 0 shapes (every Fp element is a square in Fp2).
  const sqrtIn = unaryInputs(false);
  for (let i = 0; i < 6; i++) {
    sqrtIn.push(fp2(randFp(rng)));
    sqrtIn.push(fp2(0n, randFp(rng)));
  }
  let yes = 0;
  let no = 0;
  for (const a of sqrtIn) {
    // a is a square in Fp2 iff its norm a0^2 + a1^2 is a square in Fp.
    const norm = (a.c0 * a.c0 + a.c1 * a.c1) % P_MOD;
    const isSquare = norm === 0n || modPow(norm, (P_MOD - 1n) / 2n, P_MOD) === 1n;
    let s = null;
    try {
      s = Fp2.sqrt(a);
    } catch {
      s = null;
    }
    assert((s !== null) === isSquare, 'fp2 sqrt residuosity');
    if (s === null) {
      no++;
      out.add('sqrt', fp2Tok(a), 'none');
    } else {
      assert(Fp2.eql(Fp2.sqr(s), a), 'fp2 sqrt value');
      yes++;
      out.add('sqrt', fp2Tok(a), fp2Tok(s));
    }
  }
  console.log(`  fp2.txt sqrt: ${yes} roots, ${no} none`);
  for (const a of unaryInputs(false)) {
    const c = Fp2.mulByNonresidue(a);
    assert(Fp2.eql(c, Fp2.mul(a, fp2(1n, 1n))), 'fp2 mulnr');
    out.add('mulnr', fp2Tok(a), fp2Tok(c));
  }
  out.write();
}

function genFrobenius(out, rng, F, tok, edges, randEl, checks) {
  // Edge elements for every k, then N_RANDOM random elements with k cycling 1,2,3.
  const cases = [];
  for (const k of [1, 2, 3]) for (const a of edges) cases.push([k, a]);
  for (let i = 0; i < N_RANDOM; i++) cases.push([(i % 3) + 1, randEl(rng)]);
  const checked = { 1: 0, 2: 0, 3: 0 };
  for (const [k, a] of cases) {
    const c = F.frobeniusMap(a, k);
    if (!F.is0(a) && checked[k] < checks && !edges.includes(a)) {
      assert(F.eql(c, F.pow(a, P_MOD ** BigInt(k))), `frob ${k} = pow p^${k}`);
      checked[k]++;
    }
    out.add('frob', String(k), tok(a), tok(c));
  }
}

function genFp6() {
  const rng = new Rng('fp6.txt');
  const out = new VectorFile(
    'fp6.txt',
    'Fp6 = Fp2[v]/(v^3-(u+1)), token = c0.c0,c0.c1,c1.c0,c1.c1,c2.c0,c2.c1',
    [
      'add a b c | sub a b c | mul a b c | sqr a c | neg a c | inv a c',
      'frob k a c  (k in 1,2,3; c = a^(p^k))',
    ]
  );
  const edges = fp6Edges();
  genRingOps(out, rng, Fp6, fp6Tok, edges, randFp6, ['add', 'sub', 'mul', 'sqr', 'neg', 'inv']);
  genFrobenius(out, rng, Fp6, fp6Tok, edges, randFp6, 4);
  out.write();
}

function genFp12() {
  const rng = new Rng('fp12.txt');
  const out = new VectorFile(
    'fp12.txt',
    'Fp12 = Fp6[w]/(w^2-v), token = the 6 Fp of c0 then the 6 Fp of c1',
    [
      'mul a b c | sqr a c | inv a c',
      'frob k a c  (k in 1,2,3; c = a^(p^k))',
      'conj a c    (c = c0 - c1*w, equal to a^(p^6))',
      'finalexp a c (c = @noble/curves Fp12.finalExponentiate(a) = a^(3*(p^12-1)/r), see README)',
    ]
  );
  const edges = fp12Edges();
  const { unaryInputs } = genRingOps(out, rng, Fp12, fp12Tok, edges, randFp12, [
    'mul', 'sqr', 'inv',
  ]);
  genFrobenius(out, rng, Fp12, fp12Tok, edges, randFp12, 2);
  for (const [i, a] of unaryInputs(false).entries()) {
    const c = Fp12.conjugate(a);
    if (i < 16) assert(Fp12.eql(c, Fp12.frobeniusMap(a, 6)), 'conj = frob 6');
    out.add('conj', fp12Tok(a), fp12Tok(c));
  }
  // Final exponentiation: non-zero edges, a couple of elements already in GT,
  // then N_FINALEXP random elements.
  const feIn = edges.filter((e) => !Fp12.is0(e));
  const gt = bls.pairing(G1.BASE, G2.BASE);
  feIn.push(gt, Fp12.conjugate(gt));
  for (let i = 0; i < N_FINALEXP; i++) feIn.push(randFp12(rng));
  const hardExp = (3n * (P_MOD ** 12n - 1n)) / R_MOD;
  for (const [i, a] of feIn.entries()) {
    const c = Fp12.finalExponentiate(a);
    if (i < 3 || i === feIn.length - 1) assert(Fp12.eql(c, Fp12.pow(a, hardExp)), 'finalexp power');
    out.add('finalexp', fp12Tok(a), fp12Tok(c));
  }
  out.write();
}

// ---------------------------------------------------------------------------
// Groups: g1.txt and g2.txt.

function naiveMul(P, k) {
  // Independent double-and-add over the full (unreduced) integer k.
  let acc = P.constructor.ZERO;
  for (let i = BigInt(k.toString(2).length) - 1n; i >= 0n; i--) {
    acc = acc.double();
    if ((k >> i) & 1n) acc = acc.add(P);
  }
  return acc;
}

function genGroup(isG2) {
  const name = isG2 ? 'g2.txt' : 'g1.txt';
  const Point = isG2 ? G2 : G1;
  const tok = isG2 ? g2Tok : g1Tok;
  const rng = new Rng(name);
  const out = new VectorFile(
    name,
    `${isG2 ? 'G2' : 'G1'} points, uncompressed ${isG2 ? 192 : 96}-byte encoding`,
    [
      'add P Q R  (R = P + Q)',
      'dbl P R    (R = 2P)',
      'neg P R    (R = -P)',
      'mul P k R  (R = k*P; k any 256-bit integer, computed as multiplyUnsafe(k mod r))',
      `enc P C    (C = the ${isG2 ? 96 : 48}-byte compressed encoding of P)`,
    ]
  );
  const G = Point.BASE;
  const O = Point.ZERO;
  const randPoint = () => G.multiply(rng.nonzeroBelow(R_MOD));
  const checkEnc = (P) => {
    const Pc = P.is0() ? Point.ZERO : P;
    assert(encodeWith(isG2, P, false) === Pc.toHex(false), 'uncompressed encoder agrees');
    assert(encodeWith(isG2, P, true) === Pc.toHex(true), 'compressed encoder agrees');
  };

  // add
  const addIn = [];
  {
    const P = randPoint();
    const Q = randPoint();
    addIn.push([O, O], [O, G], [G, O], [O, P], [P, O], [G, G], [G, G.negate()], [G.negate(), G]);
    addIn.push([P, P], [P, P.negate()], [P.negate(), P], [G, G.double()], [G.double(), G]);
    addIn.push([P, Q], [Q, P], [P, G], [G, P]);
    for (let i = 0; i < N_RANDOM; i++) addIn.push([randPoint(), randPoint()]);
  }
  for (const [P, Q] of addIn) {
    const R = P.add(Q);
    checkEnc(R);
    out.add('add', tok(P), tok(Q), tok(R));
  }
  // dbl
  const unaryIn = () => {
    const xs = [O, G, G.negate(), G.double()];
    for (let i = 0; i < N_RANDOM; i++) xs.push(randPoint());
    return xs;
  };
  for (const P of unaryIn()) {
    const R = P.double();
    assert(R.equals(P.add(P)), 'dbl');
    checkEnc(R);
    out.add('dbl', tok(P), tok(R));
  }
  for (const P of unaryIn()) {
    const R = P.negate();
    assert(R.add(P).is0(), 'neg');
    checkEnc(R);
    out.add('neg', tok(P), tok(R));
  }
  // mul: noble's multiply() rejects k = 0 and k >= r and multiplyUnsafe()
  // rejects k >= r, so R is computed as multiplyUnsafe(k mod r). This is the
  // true k*P because every point here lies in the order-r subgroup.
  const kEdges = [0n, 1n, 2n, 3n, R_MOD - 1n, R_MOD, R_MOD + 1n, 2n * R_MOD, 1n << 255n, TWO_256 - 1n];
  const mulIn = [];
  {
    const P = randPoint();
    for (const k of kEdges) mulIn.push([G, k], [P, k]);
    for (let i = 0; i < 4; i++) mulIn.push([O, rng.bits(256)]);
    mulIn.push([O, 0n], [O, R_MOD]);
    for (let i = 0; i < N_RANDOM; i++) mulIn.push([randPoint(), rng.bits(256)]);
  }
  for (const [i, [P, k]] of mulIn.entries()) {
    const R = P.multiplyUnsafe(k % R_MOD);
    if (i < 2 * kEdges.length + 6 || i % 100 === 0) assert(R.equals(naiveMul(P, k)), 'mul');
    checkEnc(R);
    out.add('mul', tok(P), scalarTok(k), tok(R));
  }
  for (const P of unaryIn()) {
    checkEnc(P);
    const C = (P.is0() ? Point.ZERO : P).toHex(true);
    assert(Point.fromHex(C).equals(P), 'enc roundtrip');
    out.add('enc', tok(P), C);
  }
  out.write();
}

// Points on the curve but outside the prime-order subgroup.
function genNonSubgroup(isG2) {
  const name = isG2 ? 'g2_nonsub.txt' : 'g1_nonsub.txt';
  const rng = new Rng(name);
  const F = isG2 ? Fp2 : Fp;
  const Point = isG2 ? G2 : G1;
  const b = isG2 ? fp2(4n, 4n) : 4n; // y^2 = x^3 + b
  const out = new VectorFile(
    name,
    `${isG2 ? 'G2' : 'G1'} points on the curve but NOT in the prime-order subgroup`,
    ['pt U C    (U uncompressed, C compressed encoding of the same point)']
  );
  let made = 0;
  let sortSet = 0;
  while (made < N_NONSUB) {
    const x = isG2 ? randFp2(rng) : randFp(rng);
    const rhs = F.add(F.mul(F.sqr(x), x), b);
    let y;
    try {
      y = F.sqrt(rhs);
    } catch {
      continue;
    }
    if (rng.bool()) y = F.neg(y);
    const P = Point.fromAffine({ x, y });
    if (P.isTorsionFree()) continue; // (practically never happens)
    assert(!P.multiplyUnsafe(R_MOD - 1n).add(P).is0(), 'off-subgroup');
    const U = encodePoint(isG2, { x, y }, false, false);
    const C = encodePoint(isG2, { x, y }, false, true);
    let rejected = false;
    try {
      Point.fromHex(U);
    } catch {
      rejected = true;
    }
    assert(rejected, 'noble rejects off-subgroup point');
    if (Buffer.from(C, 'hex')[0] & 0x20) sortSet++;
    out.add('pt', U, C);
    made++;
  }
  console.log(`  ${name}: ${sortSet} of ${made} have the sort flag set`);
  out.write();
}

// ---------------------------------------------------------------------------
// Pairing.

function genPairing() {
  const rng = new Rng('pairing.txt');
  const out = new VectorFile('pairing.txt', 'optimal ate pairing e: G1 x G2 -> Fp12', [
    'pair P Q E  (P in G1 and Q in G2 uncompressed; E = @noble/curves pairing(P, Q), an Fp12 token)',
    'E includes the final exponentiation, which @noble/curves computes as f^(3*(p^12-1)/r); see README.',
    'When P or Q is the identity, E is Fp12 one (noble refuses identity inputs; the value is exact).',
  ]);
  const pairing = (P, Q) => (P.is0() || Q.is0() ? Fp12.ONE : bls.pairing(P, Q));
  const g1 = G1.BASE;
  const g2 = G2.BASE;
  const cases = [
    [G1.ZERO, g2],
    [g1, G2.ZERO],
    [G1.ZERO, G2.ZERO],
    [g1, g2],
    [g1.negate(), g2],
    [g1, g2.negate()],
    [g1.double(), g2],
    [g1, g2.double()],
  ];
  const scalars = [];
  for (let i = 0; i < N_RANDOM; i++) {
    const a = rng.nonzeroBelow(R_MOD);
    const bb = rng.nonzeroBelow(R_MOD);
    scalars.push([a, bb]);
    cases.push([g1.multiply(a), g2.multiply(bb)]);
  }
  const base = pairing(g1, g2);
  for (const [i, [P, Q]] of cases.entries()) {
    const E = pairing(P, Q);
    const j = i - 8;
    if (j >= 0 && j < 4) {
      // Bilinearity: e(aG1, bG2) = e(G1, G2)^(ab).
      const [a, bb] = scalars[j];
      assert(Fp12.eql(E, Fp12.pow(base, (a * bb) % R_MOD)), 'bilinear');
    }
    out.add('pair', g1Tok(P), g2Tok(Q), fp12Tok(E));
  }
  assert(Fp12.eql(Fp12.mul(pairing(g1, g2), pairing(g1.negate(), g2)), Fp12.ONE), 'e(-P,Q) e(P,Q) = 1');
  out.write();
}

// ---------------------------------------------------------------------------

const started = Date.now();
genPrimeField('fr.txt', Fr, frTok, false);
genPrimeField('fp.txt', Fp, fpTok, true);
genFp2();
genFp6();
genFp12();
genGroup(false);
genGroup(true);
genNonSubgroup(false);
genNonSubgroup(true);
genPairing();
console.log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
