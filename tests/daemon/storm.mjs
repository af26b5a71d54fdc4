// A bounded storm against one daemon (CPU backend, loopback TCP), then SIGTERM:
//   - 200 requests at once from 4 gRPC channels: snarkjs and synthetic jobs, every priority,
//     one request in five reusing an earlier request's id with the same body (an attach),
//     SubmitProof + AwaitProof or Prove, one job in eight cancelled at a random moment, one call
//     in eight abandoned by its client (cancelled on the client's side after a random delay) and
//     one client process killed (SIGKILL) in the middle of its calls;
//   - every job is answered exactly once: each request id ends in one final state, every caller
//     of an id gets the same answer (the same proof bytes), and the daemon's counters of
//     completed and cancelled jobs equal the distinct ids the clients saw end that way;
//   - every snarkjs proof verifies with snarkjs (the synthetic ones are verified by the daemon
//     itself, pipeline.self_verify, and must have the right length);
//   - the daemon's RSS returns near its baseline (after a warm-up) once the storm is over: at
//     most 64 MiB or a quarter above it (not checked in a sanitizer build, whose quarantine
//     keeps freed memory);
//   - a last wave is cut by SIGTERM (shutdown = "finish"): every call it accepted is answered
//     COMPLETED, the later ones refused (UNAVAILABLE, or CANCELLED by the gRPC core as the
//     listener closes) with no job made for them, and the daemon exits 0.
//   usage: node tests/daemon/storm.mjs <cuzk-daemon binary>
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as snarkjs from 'snarkjs';
import grpc from '@grpc/grpc-js';
import {
  ROOT, cuzk, Status, startDaemon, call, proofToSnarkjs, check, summary, sleep, snarkjsFixtures,
} from './lib.mjs';

const bin = path.resolve(process.argv[2] || '');
if (!process.argv[2] || !fs.existsSync(bin)) {
  console.error('usage: node tests/daemon/storm.mjs <cuzk-daemon binary>');
  process.exit(2);
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cuzk-storm-'));
const { fixtures, circuits, wtns, vk } = snarkjsFixtures(dir);

// A small deterministic generator: the storm is the same at every run.
let seed = 0x5eed1234;
const rnd = (n) => {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed % n;
};

const N = 200;
const SYNTH = ['256x1', '512x2', '256x2'];

// Request i: its id, kind and body. One in five reuses the id (and body) of an earlier one that
// is not cancelled (the id of a cancelled job starts a new job when used again).
function plan() {
  const reqs = [];
  for (let i = 0; i < N; i++) {
    const how = ['prove', 'prove', 'submit', 'submit', 'submit', 'abandon', 'prove', 'submit'][rnd(8)];
    const keep = reqs.filter((q) => !q.cancel);
    if (i > 10 && keep.length && rnd(5) === 0) {
      const q = keep[rnd(keep.length)];
      reqs.push({ ...q, i, how, priority: 1 + rnd(4), dup: true, cancel: 0 });
      continue;
    }
    const kind = rnd(3) === 0 ? 'snarkjs' : 'synthetic';
    const circuit = kind === 'snarkjs' ? 'circuit' : SYNTH[rnd(SYNTH.length)];
    const cancel = rnd(8) === 0 ? 20 + rnd(400) : 0; // ms after its submit
    reqs.push({ i, id: `storm-${i}`, kind, circuit, seed: 1 + rnd(1000), priority: 1 + rnd(4), how, dup: false, cancel });
  }
  return reqs;
}

const body = (r) => ({
  request_id: r.id,
  proof_kind: 0,
  priority: r.priority,
  vanilla_proofs: [Buffer.from(`${r.kind}:${r.circuit}`)],
  ...(r.kind === 'snarkjs' ? { vanilla_proof: wtns } : { sector_number: r.seed }),
});

const rssKiB = (pid) => Number((fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  .match(/^VmRSS:\s+(\d+) kB/m) || [0, 0])[1]);

// A unary call that its client abandons after ms (the server sees the call cancelled).
function abandoned(client, method, req, ms) {
  return new Promise((resolve) => {
    const c = client[method](req, (err, res) => resolve({ err, res }));
    setTimeout(() => c.cancel(), ms);
  });
}

async function main() {
  const D = await startDaemon(bin, `[daemon]
listen = "127.0.0.1:0"
shutdown = "finish"
shutdown_timeout = "120s"
max_blocking_calls = 1024
[snarkjs]
dir = "${circuits}"
[memory]
total_budget = "4GiB"
[logging]
timeline = false
`, dir);
  const clients = [D.client];
  for (let k = 1; k < 4; k++) clients.push(new cuzk.ProvingEngine(D.address, grpc.credentials.createInsecure()));

  // warm-up: both keys loaded, threads and pools made; then the baseline
  for (const [id, kind, circuit] of [['warm-s', 'snarkjs', 'circuit'], ['warm-y', 'synthetic', '512x2']]) {
    const r = await call(D.client, 'Prove', { submit: body({ id, kind, circuit, seed: 1, priority: 2 }) });
    check(r.res && r.res.result.status === 'COMPLETED', `warm-up ${kind} proof`, r.err && r.err.details);
  }
  for (const c of SYNTH) await call(D.client, 'Prove', { submit: body({ id: `warm-${c}`, kind: 'synthetic', circuit: c, seed: 2, priority: 2 }) });
  await sleep(300);
  const baseline = rssKiB(D.proc.pid);

  // a client process killed in the middle of its calls: its jobs go on
  const killedIds = Array.from({ length: 6 }, (_, k) => `killed-${k}`);
  const child = spawn(process.execPath, ['--input-type=module', '-e', `
    import { cuzk } from ${JSON.stringify(path.join(ROOT, 'tests/daemon/lib.mjs'))};
    import grpc from '@grpc/grpc-js';
    const c = new cuzk.ProvingEngine(${JSON.stringify(D.address)}, grpc.credentials.createInsecure());
    for (const id of ${JSON.stringify(killedIds)})
      c.Prove({ submit: { request_id: id, proof_kind: 0, vanilla_proofs: [Buffer.from('synthetic:512x2')], sector_number: 7 } }, () => {});
    setInterval(() => {}, 1000);`], { cwd: ROOT, stdio: 'ignore' });

  // ---- the storm ----
  const reqs = plan();
  const t0 = Date.now();
  const outcomes = await Promise.all(reqs.map(async (r) => {
    await sleep(rnd(300));
    const cl = clients[r.i % clients.length];
    let res;
    if (r.how === 'prove') {
      const x = await (r.cancel ? Promise.all([call(cl, 'Prove', { submit: body(r) }),
        sleep(r.cancel).then(() => call(cl, 'CancelProof', { job_id: r.id }))]).then((a) => a[0])
        : call(cl, 'Prove', { submit: body(r) }));
      res = x.err ? { err: x.err } : { status: x.res.result.status, proof: x.res.result.proof };
    } else if (r.how === 'abandon') {
      const x = await abandoned(cl, 'Prove', { submit: body(r) }, 5 + rnd(200));
      res = x.err ? { err: x.err, abandoned: true } : { status: x.res.result.status, proof: x.res.result.proof };
    } else {
      const s = await call(cl, 'SubmitProof', body(r));
      if (s.err) return { r, err: s.err };
      if (r.cancel) await sleep(r.cancel), await call(cl, 'CancelProof', { job_id: r.id });
      const a = await call(cl, 'AwaitProof', { job_id: r.id });
      res = a.err ? { err: a.err } : { status: a.res.status, proof: a.res.proof };
    }
    return { r, ...res };
  }));
  child.kill('SIGKILL');
  console.log(`  storm of ${N} requests answered in ${Date.now() - t0} ms`);

  // an abandoned call's job went on: its final answer, by id (NOT_FOUND: the client left
  // before the daemon took the request; the counters below would show a job made and lost)
  let unsent = 0;
  for (const o of outcomes) {
    if (!o.abandoned) continue;
    const a = await call(D.client, 'AwaitProof', { job_id: o.r.id });
    if (!a.err) Object.assign(o, { err: null, status: a.res.status, proof: a.res.proof, reattached: true });
    else if (a.err.code === Status.NOT_FOUND && !outcomes.some((q) => q.r.id === o.r.id && q !== o)) {
      Object.assign(o, { err: null, unsent: true });
      unsent++;
    }
  }
  if (unsent) console.log(`  ${unsent} abandoned calls left before the daemon took them`);
  const abandonedN = outcomes.filter((o) => o.reattached).length;
  check(abandonedN > 0, 'calls abandoned by their clients happened, and their jobs are answered afterwards', abandonedN);
  const errs = outcomes.filter((o) => o.err);
  check(errs.length === 0, 'every storm call is answered with a result (no gRPC error)',
    errs.slice(0, 5).map((o) => `${o.r.id}: ${o.err.code} ${o.err.details}`));

  // one final state per id, the same for every caller
  const byId = new Map();
  let consistent = true;
  for (const o of outcomes) {
    if (o.err || o.unsent) continue;
    const prev = byId.get(o.r.id);
    if (!prev) byId.set(o.r.id, o);
    else if (prev.status !== o.status || (o.status === 'COMPLETED' && Buffer.compare(prev.proof, o.proof) !== 0)) {
      // a cancel can race an attach: an attach made before the cancel sees CANCELLED too
      consistent = false;
      console.log(`  ${o.r.id}: ${prev.status} vs ${o.status}`);
    }
  }
  check(consistent, 'every caller of one request id gets the same final answer (attached duplicates included)');
  const dups = outcomes.filter((o) => o.r.dup).length;
  check(dups >= 20, 'the storm reused request ids', dups);
  const states = [...byId.values()].map((o) => o.status);
  check(states.every((s) => s === 'COMPLETED' || s === 'CANCELLED'), 'every job ends COMPLETED or CANCELLED',
    [...new Set(states)]);
  const cancelled = [...byId.values()].filter((o) => o.status === 'CANCELLED').length;
  check(cancelled > 0, 'some jobs were cancelled', cancelled);

  // every proof verifies: snarkjs ones here, synthetic ones by the daemon (and their length)
  const w = await snarkjs.wtns.exportJson(path.join(fixtures, 'circuit.wtns'));
  const pub = w.slice(1, 1 + vk.nPublic).map((x) => x.toString());
  let verified = 0, bad = 0;
  for (const o of byId.values()) {
    if (o.status !== 'COMPLETED') continue;
    if (o.r.kind === 'snarkjs') {
      if (o.proof.length === 192 && await snarkjs.groth16.verify(vk, pub, proofToSnarkjs(o.proof))) verified++;
      else bad++;
    } else {
      const parts = Number(o.r.circuit.split('x')[1]);
      if (o.proof.length !== 192 * parts) bad++;
    }
  }
  check(bad === 0 && verified > 10, 'every snarkjs proof of the storm verifies with snarkjs; every synthetic proof has its partitions',
    { verified, bad });

  // the killed client's jobs went on
  let killedDone = 0;
  for (const id of killedIds) {
    const a = await call(D.client, 'AwaitProof', { job_id: id }, 60000);
    if (!a.err && a.res.status === 'COMPLETED') killedDone++;
  }
  check(killedDone === killedIds.length, 'the jobs of a client killed mid-call complete', killedDone);

  // the daemon's counters: exactly one final state per job
  const st = await call(D.client, 'GetStatus', {});
  const completedIds = [...byId.values()].filter((o) => o.status === 'COMPLETED').length;
  const warm = 2 + SYNTH.length;
  check(st.res && Number(st.res.total_proofs_completed) === completedIds + warm + killedIds.length,
    'completed jobs counted once each', { daemon: st.res && st.res.total_proofs_completed, clients: completedIds + warm + killedIds.length });
  check(st.res && Number(st.res.total_proofs_failed) === 0, 'no job failed', st.res && st.res.total_proofs_failed);
  check(st.res && st.res.queues.every((q) => q.pending === 0 && q.in_progress === 0),
    'nothing is left queued or in progress', st.res && st.res.queues);

  await sleep(500);
  const after = rssKiB(D.proc.pid);
  console.log(`  RSS: baseline ${(baseline / 1024).toFixed(1)} MiB, after the storm ${(after / 1024).toFixed(1)} MiB`);
  // (a sanitizer build keeps freed memory in quarantine: the release build checks the bound)
  if (!process.env.CUZK_TEST_SANITIZED)
    check(after <= baseline + Math.max(64 * 1024, baseline / 4), 'RSS returns near its baseline after the storm',
      { baselineKiB: baseline, afterKiB: after });

  // ---- a last wave cut by SIGTERM (shutdown = "finish") ----
  const wave = Array.from({ length: 40 }, (_, k) => (async () => {
    await sleep(k * 10);
    return call(clients[k % clients.length], 'Prove', { submit: body({ id: `last-${k}`, kind: 'synthetic', circuit: '256x1', seed: k, priority: 1 + (k % 4) }) });
  })());
  await sleep(150);
  D.proc.kill('SIGTERM');
  const last = await Promise.all(wave);
  const okN = last.filter((x) => !x.err && x.res.result.status === 'COMPLETED').length;
  // a call the daemon never took is UNAVAILABLE (refused while it shuts down), or CANCELLED by
  // the gRPC core when it arrives as the listener closes; neither made a job (checked below)
  const refused = last.filter((x) => x.err && (x.err.code === Status.UNAVAILABLE || x.err.code === Status.CANCELLED)).length;
  check(okN > 0 && okN + refused === last.length,
    'SIGTERM mid-wave: every accepted call completes, the later ones are refused', { okN, refused, n: last.length,
      other: last.filter((x) => x.err && x.err.code !== Status.UNAVAILABLE && x.err.code !== Status.CANCELLED)
        .map((x) => `${x.err.code} ${x.err.details}`).slice(0, 3) });
  const ex = await D.exited;
  check(ex.code === 0, 'the daemon exits 0 after finishing the wave', ex);
  // the engine's own count at its stop: the jobs before the wave and the wave's answered ones,
  // so no refused call had a job that went unanswered
  const stopLine = D.lines.find((l) => /engine stopped: \d+ completed/.test(l));
  const stopped = stopLine ? Number(stopLine.match(/engine stopped: (\d+) completed/)[1]) : -1;
  const before = st.res ? Number(st.res.total_proofs_completed) : -1;
  check(stopped === before + okN, 'every job the wave made is one of the answered calls',
    { stopped, before, okN });
  for (const c of clients.slice(1)) c.close();
}

main().then(() => {
  fs.rmSync(dir, { recursive: true, force: true });
  process.exit(summary('daemon storm'));
}, (e) => {
  console.error(e);
  process.exit(1);
});
