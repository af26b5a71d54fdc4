// Helpers of the daemon tests: start a cuzk-daemon, wait for its ready line, call it through
// @grpc/grpc-js with the proto loaded by @grpc/proto-loader (an independent implementation of
// gRPC and protobuf), convert proofs for snarkjs.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';
import { bls12_381 } from '@noble/curves/bls12-381.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PROTO = path.join(ROOT, 'proto/cuzk/v1/proving.proto');

const def = protoLoader.loadSync(PROTO, {
  keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true,
});
export const cuzk = grpc.loadPackageDefinition(def).cuzk.v1;
export const Status = grpc.status;

// A running daemon: its process, its log lines, its addresses.
export async function startDaemon(bin, configText, dir, { readyTimeoutMs = 60000 } = {}) {
  const conf = path.join(dir, `cuzk-${Date.now()}-${Math.random().toString(16).slice(2)}.toml`);
  fs.writeFileSync(conf, configText);
  const proc = spawn(bin, ['-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
  const d = { proc, lines: [], exit: null, address: null, http: null };
  d.exited = new Promise((resolve) => proc.on('exit', (code, signal) => {
    d.exit = { code, signal };
    resolve(d.exit);
  }));
  let buf = '';
  const waiters = [];
  proc.stderr.on('data', (chunk) => {
    buf += chunk.toString();
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      d.lines.push(line);
      if (process.env.CUZK_TEST_VERBOSE) process.stderr.write(`  daemon| ${line}\n`);
      for (const w of waiters.slice()) if (w.re.test(line)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  d.waitFor = (re, ms) => new Promise((resolve, reject) => {
    const hit = d.lines.find((l) => re.test(l));
    if (hit) return resolve(hit);
    const w = { re, resolve };
    waiters.push(w);
    const t = setTimeout(() => reject(new Error(`no log line ${re} within ${ms} ms`)), ms);
    const done = w.resolve;
    w.resolve = (l) => { clearTimeout(t); done(l); };
    d.exited.then(() => { clearTimeout(t); reject(new Error(`daemon exited (${JSON.stringify(d.exit)}) before ${re}`)); });
  });
  // a log line's message: the whole line (text format) or its "msg" (json format)
  const msg = (l) => { try { return JSON.parse(l).msg; } catch { return l; } };
  const ready = msg(await d.waitFor(/cuzk-daemon ready, serving on /, readyTimeoutMs));
  d.address = ready.match(/serving on (\S+)/)[1];
  const http = d.lines.find((l) => /status HTTP server listening on /.test(l));
  if (http) d.http = 'http://' + msg(http).match(/listening on (\S+)/)[1];
  d.client = new cuzk.ProvingEngine(d.address, grpc.credentials.createInsecure(), {
    'grpc.max_send_message_length': 512 << 20,
    'grpc.max_receive_message_length': 512 << 20,
  });
  // closes the client, sends SIGTERM, waits up to ms for the exit (then SIGKILL); resolves
  // d.exit, null when the daemon had to be killed
  d.stop = async (ms = 20000) => {
    d.client.close();
    d.proc.kill('SIGTERM');
    await Promise.race([d.exited, sleep(ms)]);
    if (!d.exit) d.proc.kill('SIGKILL');
    return d.exit;
  };
  return d;
}

// Calls method with req; resolves {err, res} (never rejects). deadlineMs bounds the call.
export function call(client, method, req, deadlineMs) {
  return new Promise((resolve) => {
    const opts = deadlineMs ? { deadline: new Date(Date.now() + deadlineMs) } : {};
    client[method](req, opts, (err, res) => resolve({ err, res }));
  });
}

// A raw call with the given request bytes (to send malformed messages).
export function callRaw(client, method, bytes) {
  return new Promise((resolve) => {
    client.makeUnaryRequest(`/cuzk.v1.ProvingEngine/${method}`, (b) => b, (b) => b, bytes,
      (err, res) => resolve({ err, res }));
  });
}

export async function getJson(url) {
  const r = await fetch(url);
  return { status: r.status, body: r.status === 200 ? await r.json() : await r.text() };
}

export async function getText(url, init) {
  const r = await fetch(url, init);
  return { status: r.status, body: await r.text(), type: r.headers.get('content-type') };
}

// Parses Prometheus text into a map "name{labels}" -> number.
export function parseMetrics(text) {
  const m = new Map();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const sp = line.lastIndexOf(' ');
    m.set(line.slice(0, sp), Number(line.slice(sp + 1)));
  }
  return m;
}

// A 192-byte partition proof (compressed A | B | C) as a snarkjs proof object.
export function proofToSnarkjs(bytes) {
  if (bytes.length !== 192) throw new Error(`proof of ${bytes.length} bytes`);
  const a = bls12_381.G1.Point.fromBytes(bytes.subarray(0, 48)).toAffine();
  const b = bls12_381.G2.Point.fromBytes(bytes.subarray(48, 144)).toAffine();
  const c = bls12_381.G1.Point.fromBytes(bytes.subarray(144, 192)).toAffine();
  return {
    pi_a: [a.x.toString(), a.y.toString(), '1'],
    pi_b: [[b.x.c0.toString(), b.x.c1.toString()], [b.y.c0.toString(), b.y.c1.toString()], ['1', '0']],
    pi_c: [c.x.toString(), c.y.toString(), '1'],
    protocol: 'groth16',
    curve: 'bls12381',
  };
}

// Minimal test bookkeeping: check() records, summary() prints and gives the exit code.
let passed = 0;
let failed = 0;
export function check(cond, what, detail) {
  if (cond) {
    passed++;
    console.log(`ok - ${what}`);
  } else {
    failed++;
    console.log(`not ok - ${what}${detail !== undefined ? `: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}` : ''}`);
  }
  return cond;
}
export function summary(name) {
  console.log(`${name}: ${passed} passed, ${failed} failed`);
  return failed ? 1 : 0;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The snarkjs test circuit of tests/data/formats, served from dir/circuits (the daemon's
// snarkjs.dir): its witness bytes and verification key.
export function snarkjsFixtures(dir) {
  const fixtures = path.join(ROOT, 'tests/data/formats');
  const circuits = path.join(dir, 'circuits');
  fs.mkdirSync(circuits);
  fs.copyFileSync(path.join(fixtures, 'circuit.zkey'), path.join(circuits, 'circuit.zkey'));
  fs.copyFileSync(path.join(fixtures, 'circuit.r1cs'), path.join(circuits, 'circuit.r1cs'));
  const wtns = fs.readFileSync(path.join(fixtures, 'circuit.wtns'));
  const vk = JSON.parse(fs.readFileSync(path.join(fixtures, 'verification_key.json')));
  return { fixtures, circuits, wtns, vk };
}
