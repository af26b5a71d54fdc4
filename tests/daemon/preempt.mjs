// Curio's preemption, through the daemon (CPU backend): a PoRep task preempted by a PoSt task
// has its context cancelled, which cancels its Prove call mid-proof; the task is retried later
// with the same request_id and body. By default the job goes on and the retry attaches to it:
// it gets the proof no later than the job's end (at once when the job has ended), and the
// daemon's counters show the partitions proved once. With daemon.cancel_on_disconnect the
// departed call cancels its job, unless another call still waits for it.
//   node tests/daemon/preempt.mjs <cuzk-daemon binary>
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  Status, call, check, getJson, getText, parseMetrics, sleep, startDaemon, summary,
} from './lib.mjs';

const bin = path.resolve(process.argv[2] || '');
if (!process.argv[2] || !fs.existsSync(bin)) {
  console.error('usage: node tests/daemon/preempt.mjs <cuzk-daemon binary>');
  process.exit(2);
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cuzk-preempt-test-'));
const daemons = [];
const PARTS = 48; // long enough (1-2 s on two cores) to be cancelled mid-proof
const CIRCUIT = `4096x${PARTS}`;

// Curio's request shape for a synthetic stand-in of its PoRep: the same id and body each time.
const req = (id, seed) => ({
  request_id: id, proof_kind: 0, vanilla_proofs: [Buffer.from(`synthetic:${CIRCUIT}`)],
  sector_number: seed,
});

const config = (extra) => `[daemon]
listen = "127.0.0.1:0"
status_listen = "127.0.0.1:0"
shutdown = "cancel"
${extra}
[srs]
setup_allow = "synthetic:*"
[memory]
total_budget = "4GiB"
[logging]
timeline = false
level = "${process.env.CUZK_TEST_VERBOSE ? 'debug' : 'info'}"
`;

// The job's live entry in /status, or null once it has ended.
async function liveJob(d, id) {
  const s = await getJson(`${d.http}/status`);
  return (s.body && s.body.pipelines && s.body.pipelines.find((x) => x.job_id === id)) || null;
}

// Waits until a partition of the job has left the queues (the job is running).
async function waitRunning(d, id) {
  for (let i = 0; i < 600; i++) {
    const j = await liveJob(d, id);
    if (j && j.partitions && j.partitions.some((p) => p.state !== 'pending')) return true;
    await sleep(50);
  }
  return false;
}

async function waitEnded(d, id) {
  for (let i = 0; i < 1200; i++) {
    if (!(await liveJob(d, id))) return true;
    await sleep(50);
  }
  return false;
}

// Partition proofs and completed / cancelled jobs so far (/metrics).
async function counters(d) {
  const m = parseMetrics((await getText(`${d.http}/metrics`)).body);
  let partitions = 0; // summed over the devices (labelled)
  for (const [k, v] of m) if (k.startsWith('cuzk_gpu_proofs_total{')) partitions += v;
  return {
    partitions,
    completed: m.get('cuzk_proofs_completed_total') || 0,
    cancelled: m.get('cuzk_proofs_cancelled_total') || 0,
  };
}

// A Prove call that the client cancels once the job runs, as a preempted Curio task does.
// Resolves the call's gRPC error code.
async function proveThenCancel(d, r) {
  let resolveDone;
  const done = new Promise((res) => { resolveDone = res; });
  const callObj = d.client.Prove({ submit: r }, (err) => resolveDone(err ? err.code : Status.OK));
  const running = await waitRunning(d, r.request_id);
  callObj.cancel();
  return { running, code: await done };
}

function proofsOk(res, what) {
  const r = res && res.result;
  return check(r && r.status === 'COMPLETED' && r.proof.length === 192 * PARTS, what, r ? { status: r.status, bytes: r.proof.length, err: r.error_message } : res);
}

async function main() {
  // ---- the default: the job goes on, a retry attaches ------------------------------------------
  const A = await startDaemon(bin, config(''), dir);
  daemons.push(A);
  let r = await call(A.client, 'PreloadSRS', { circuit_id: `synthetic:4096` });
  check(!r.err, 'the key is set up before the jobs', r.err && r.err.details);
  let c0 = await counters(A);

  // retried while the job still runs
  const id1 = 'porep-1000-7';
  let p = await proveThenCancel(A, req(id1, 7));
  check(p.running && p.code === Status.CANCELLED, 'Prove cancelled by its client mid-proof: CANCELLED',
    p);
  await sleep(300); // Curio retries after a pause
  r = await call(A.client, 'Prove', { submit: req(id1, 7) });
  proofsOk(r.res, 'the retry with the same id and body gets the proof');
  check(!(await liveJob(A, id1)), 'and no later than the job\'s end (the job is over when it answers)');
  let c1 = await counters(A);
  check(c1.partitions - c0.partitions === PARTS && c1.completed - c0.completed === 1 &&
    c1.cancelled === c0.cancelled, `the job went on: its partitions proved once (${PARTS}), ` +
    'one job completed, none cancelled', { before: c0, after: c1 });

  // retried after the job has ended
  const id2 = 'porep-1000-8';
  p = await proveThenCancel(A, req(id2, 8));
  check(p.running && p.code === Status.CANCELLED, 'a second Prove cancelled mid-proof', p);
  check(await waitEnded(A, id2), 'its job ends without its caller');
  const c2 = await counters(A);
  const t0 = Date.now();
  r = await call(A.client, 'Prove', { submit: req(id2, 8) });
  const dt = Date.now() - t0;
  proofsOk(r.res, 'the retry after the job\'s end gets its proof');
  check(dt < 2000, 'at once', `${dt} ms`);
  const c3 = await counters(A);
  check(c2.partitions - c1.partitions === PARTS && c3.partitions === c2.partitions &&
    c3.completed === c2.completed, 'the retry proved nothing again', { c1, c2, c3 });

  // ---- daemon.cancel_on_disconnect = true ------------------------------------------------------
  const B = await startDaemon(bin, config('cancel_on_disconnect = true'), dir);
  daemons.push(B);
  r = await call(B.client, 'PreloadSRS', { circuit_id: `synthetic:4096` });
  check(!r.err, 'daemon B: the key is set up', r.err && r.err.details);
  c0 = await counters(B);
  const id3 = 'porep-1000-9';
  p = await proveThenCancel(B, req(id3, 9));
  check(p.running && p.code === Status.CANCELLED, 'cancel_on_disconnect: Prove cancelled mid-proof', p);
  // (an AwaitProof sent before the daemon notices the departure would keep the job alive)
  const said = await B.waitFor(/Prove porep-1000-9: the client left; its job is cancelled/, 10000)
    .then(() => true, () => false);
  check(said, 'the daemon cancels its job and says why');
  r = await call(B.client, 'AwaitProof', { job_id: id3 });
  check(r.res && r.res.status === 'CANCELLED', 'its job is cancelled with it',
    r.err ? r.err.details : r.res && r.res.status);
  r = await call(B.client, 'Prove', { submit: req(id3, 9) });
  proofsOk(r.res, 'a retry then starts the job again and gets the proof');
  c1 = await counters(B);
  check(c1.cancelled - c0.cancelled === 1 && c1.completed - c0.completed === 1,
    'one job cancelled, one completed', { before: c0, after: c1 });

  // another caller waits for the same job: the departed one does not cancel it
  const id4 = 'porep-1000-10';
  const other = call(B.client, 'Prove', { submit: req(id4, 10) });
  p = await proveThenCancel(B, req(id4, 10));
  check(p.running && p.code === Status.CANCELLED, 'a second Prove of the same job leaves', p);
  r = await other;
  proofsOk(r.res, 'the first one still gets the proof: the job went on for it');
}

main()
  .catch((e) => check(false, 'the test ran to its end', e.stack || String(e)))
  .finally(async () => {
    for (const d of daemons) await d.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(summary('preempt'));
  });
