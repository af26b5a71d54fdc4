// The daemon driven by an independent gRPC client (@grpc/grpc-js + @grpc/proto-loader):
// every RPC of cuzk.v1.ProvingEngine, the status codes of bad requests, the HTTP pages, and the
// shutdown with queued work.
//   usage: node tests/daemon/client.mjs <cuzk-daemon binary> [<gen_vanilla binary>]
// (gen_vanilla, tests/daemon/gen_vanilla.c, makes the small Filecoin input of the WinningPoSt
// check; without it that check is skipped.)
// Runs two daemons in a temporary directory: A on a unix socket (shutdown = "cancel") for the
// RPC tests and a SIGTERM with 50 queued jobs, B on TCP (shutdown = "finish").
import { spawnSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import * as snarkjs from 'snarkjs';
import grpc from '@grpc/grpc-js';
import {
  ROOT, cuzk, Status, startDaemon, call, callRaw, getJson, getText, parseMetrics, proofToSnarkjs,
  check, summary, sleep, snarkjsFixtures,
} from './lib.mjs';

const bin = path.resolve(process.argv[2] || '');
if (!process.argv[2] || !fs.existsSync(bin)) {
  console.error('usage: node tests/daemon/client.mjs <cuzk-daemon binary>');
  process.exit(2);
}
const genVanilla = process.argv[3] ? path.resolve(process.argv[3]) : null;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cuzk-daemon-test-'));
const { fixtures, circuits, wtns, vk } = snarkjsFixtures(dir);
const sock = path.join(dir, 'run', 'cuzk.sock');
const cleanup = [];

const snarkjsReq = (id, extra = {}) => ({
  request_id: id, proof_kind: 0, vanilla_proofs: [Buffer.from('snarkjs:circuit')],
  vanilla_proof: wtns, ...extra,
});
const synthReq = (id, circuit, seed = 1, extra = {}) => ({
  request_id: id, proof_kind: 0, vanilla_proofs: [Buffer.from(`synthetic:${circuit}`)],
  sector_number: seed, ...extra,
});
const codeName = (err) => (err ? Object.keys(Status).find((k) => Status[k] === err.code) : 'OK');
const expectCode = (r, code, what) => check(r.err && r.err.code === code, `${what}: ${codeName({ code })}`,
  r.err ? `${codeName(r.err)}: ${r.err.details}` : 'OK');

// What the test completed / cancelled, by kind, to compare with the daemon's counters.
const done = { completed: new Set(), cancelled: new Set(), failed: new Set() };
const kindOf = new Map();
function record(jobId, kind, status) {
  kindOf.set(jobId, kind);
  if (status === 'COMPLETED') done.completed.add(jobId);
  if (status === 'CANCELLED') done.cancelled.add(jobId);
  if (status === 'FAILED') done.failed.add(jobId);
}

async function main() {
  // ---- start-up: a stale socket file is replaced, the ready line comes once -------------------
  fs.mkdirSync(path.dirname(sock));
  spawnSync(process.execPath, ['-e',
    `require('net').createServer().listen(${JSON.stringify(sock)}, () => process.kill(process.pid, 'SIGKILL'))`]);
  check(fs.existsSync(sock) && fs.lstatSync(sock).isSocket(), 'a stale socket file is left behind');

  const confA = `# daemon A
[daemon]
listen = "unix://${sock}"
status_listen = "127.0.0.1:0"
max_message_size = "1MiB"
shutdown = "cancel"
[snarkjs]
dir = "${circuits}"
[srs]
setup_allow = "winning:winning-s1-r1, synthetic:*"
[memory]
total_budget = "4GiB"
[synthetic]
partitions = 2
[logging]
timeline = false
[pipeline]
enabled = true   # a deprecated key: warned about, ignored
`;
  const A = await startDaemon(bin, confA, dir);
  cleanup.push(A);
  check(A.address === `unix://${sock}`, 'daemon A serves on its unix socket', A.address);
  check((fs.statSync(sock).mode & 0o777) === 0o600, 'the socket file has mode 0600',
    (fs.statSync(sock).mode & 0o777).toString(8));
  check(fs.lstatSync(sock).isSocket(), 'daemon A started over the stale socket file');
  check(A.lines.filter((l) => /cuzk-daemon ready, serving on/.test(l)).length === 1,
    'the ready line is written once');
  check(A.lines.some((l) => /pipeline.enabled is no longer used/.test(l)),
    'a deprecated key is warned about');

  // a second daemon on the same live socket refuses to start
  const second = spawnSync(bin, ['--listen', `unix://${sock}`, '-c', '/dev/null',
    '--set', 'logging.timeline=false'], { encoding: 'utf8', timeout: 30000 });
  check(second.status === 1 && /another process is serving/.test(second.stderr),
    'a second daemon on a live socket exits 1', { status: second.status, err: second.stderr.slice(-300) });
  check(fs.existsSync(sock), 'and leaves the live socket alone');

  const c = A.client;

  // ---- GetStatus before any job ---------------------------------------------------------------
  let r = await call(c, 'GetStatus', {});
  check(!r.err, 'GetStatus answers', r.err && r.err.details);
  const kinds = r.res ? r.res.queues.map((q) => q.proof_kind).sort() : [];
  check(kinds.includes('snarkjs') && kinds.includes('synthetic'), 'GetStatus lists every kind, idle ones too', kinds);
  check(r.res && r.res.gpus.length >= 1 && r.res.pinned_memory_limit_bytes === 4 * 2 ** 30,
    'GetStatus: devices and the memory budget', r.res && { gpus: r.res.gpus, lim: r.res.pinned_memory_limit_bytes });

  // ---- a snarkjs proof, verified by snarkjs ---------------------------------------------------
  const w = await snarkjs.wtns.exportJson(path.join(fixtures, 'circuit.wtns'));
  const publicSignals = w.slice(1, 1 + vk.nPublic).map((x) => x.toString());
  r = await call(c, 'Prove', { submit: snarkjsReq('snarkjs-1') });
  const res1 = r.res && r.res.result;
  check(res1 && res1.status === 'COMPLETED' && res1.job_id === 'snarkjs-1' && res1.proof.length === 192,
    'Prove of a snarkjs circuit completes with one 192-byte proof', r.err ? r.err.details : res1);
  if (res1 && res1.proof.length === 192) {
    record('snarkjs-1', 'snarkjs', res1.status);
    const proof = proofToSnarkjs(res1.proof);
    check(await snarkjs.groth16.verify(vk, publicSignals, proof), 'snarkjs verifies the daemon\'s proof');
    const wrong = [...publicSignals];
    wrong[0] = (BigInt(wrong[0]) + 1n).toString();
    check(!(await snarkjs.groth16.verify(vk, wrong, proof)), 'snarkjs rejects it for other public inputs');
    check(res1.total_ms >= res1.gpu_compute_ms && res1.total_ms > 0, 'the result carries timings', res1);
  }

  // idempotent retry: the same request_id attaches to the finished job
  r = await call(c, 'Prove', { submit: snarkjsReq('snarkjs-1') });
  check(r.res && r.res.result.status === 'COMPLETED' && res1 && Buffer.compare(r.res.result.proof, res1.proof) === 0,
    'Prove retried with the same request_id returns the same proof');
  r = await call(c, 'SubmitProof', snarkjsReq('snarkjs-1'));
  check(r.res && r.res.job_id === 'snarkjs-1', 'SubmitProof retried with the same request_id names the same job', r.res);
  r = await call(c, 'AwaitProof', { job_id: 'snarkjs-1' });
  check(r.res && r.res.status === 'COMPLETED' && res1 && Buffer.compare(r.res.proof, res1.proof) === 0,
    'AwaitProof of a finished job returns its stored result');
  // the same request_id with another body is refused: the stored proof would not answer it
  const other = Buffer.from(wtns);
  other[other.length - 40] ^= 1;
  r = await call(c, 'SubmitProof', snarkjsReq('snarkjs-1', { vanilla_proof: other }));
  expectCode(r, Status.ALREADY_EXISTS, 'the same request_id with another witness');
  check(r.err && /snarkjs-1/.test(r.err.details) && /other input bytes/.test(r.err.details),
    'ALREADY_EXISTS names the id and what differs', r.err && r.err.details);
  expectCode(await call(c, 'Prove', { submit: synthReq('snarkjs-1', '256') }), Status.ALREADY_EXISTS,
    'the same request_id for another kind');

  // a job failure comes back inside the result (a witness that breaks the constraints)
  const bad = Buffer.from(wtns);
  bad[bad.length - 40] ^= 1;
  r = await call(c, 'Prove', { submit: snarkjsReq('snarkjs-bad', { vanilla_proof: bad }) });
  check(r.res && r.res.result.status === 'FAILED' && r.res.result.error_message.length > 0,
    'a failing job is answered FAILED with a message inside the result', r.err ? r.err.details : r.res && r.res.result);
  if (r.res) record('snarkjs-bad', 'snarkjs', r.res.result.status);

  // ---- SubmitProof + AwaitProof of synthetic jobs -----------------------------------------------
  r = await call(c, 'SubmitProof', synthReq('synth-1', '256x2', 5));
  check(r.res && r.res.job_id === 'synth-1', 'SubmitProof queues a synthetic job', r.err ? r.err.details : r.res);
  r = await call(c, 'AwaitProof', { job_id: 'synth-1' });
  check(r.res && r.res.status === 'COMPLETED' && r.res.proof.length === 384,
    'AwaitProof: the synthetic job completes with 2 partition proofs', r.err ? r.err.details : r.res && r.res.status);
  if (r.res) record('synth-1', 'synthetic', r.res.status);
  r = await call(c, 'SubmitProof', synthReq('', '256', 6));
  check(r.res && /^[0-9a-f-]{36}$/.test(r.res.job_id), 'without a request_id the job gets a UUID', r.res);
  if (r.res) {
    const id = r.res.job_id;
    r = await call(c, 'AwaitProof', { job_id: id, timeout_ms: 60000 });
    check(r.res && r.res.status === 'COMPLETED' && r.res.proof.length === 384 && r.res.job_id === id,
      'AwaitProof with a generous timeout gets the result (synthetic.partitions = 2)', r.res);
    if (r.res) record(id, 'synthetic', r.res.status);
  }

  // ---- AwaitProof timeout, CancelProof ------------------------------------------------------
  // a long job (fresh 4096-constraint key, 20 partitions) keeps the workers busy
  r = await call(c, 'SubmitProof', synthReq('slow-1', '4096x20', 1, { priority: 1 }));
  check(!r.err, 'SubmitProof of a long job', r.err && r.err.details);
  let t0 = Date.now();
  r = await call(c, 'AwaitProof', { job_id: 'slow-1', timeout_ms: 300 });
  let dt = Date.now() - t0;
  check(r.res && r.res.status === 'TIMEOUT' && r.res.job_id === 'slow-1' && dt >= 250 && dt < 5000,
    'AwaitProof with timeout_ms = 300 answers TIMEOUT in time', { res: r.res && r.res.status, dt });
  // queued-1 waits for a key of its own (16384 constraints, set up in over a second here), so
  // it is still queued at the cancel below: a job of slow-1's 4096 key was found running by
  // then on an idle development machine (3 runs of 5; never under load, as in CI)
  r = await call(c, 'SubmitProof', synthReq('queued-1', '16384x4', 2, { priority: 1 }));
  check(!r.err, 'SubmitProof of a job that waits in the queue', r.err && r.err.details);

  // GetStatus, /status and /metrics agree on what is live now
  {
    const [g, s, m] = await Promise.all([call(c, 'GetStatus', {}), getJson(`${A.http}/status`),
      getText(`${A.http}/metrics`)]);
    const q = g.res.queues.find((x) => x.proof_kind === 'synthetic');
    const sq = s.body.queues.find((x) => x.kind === 'synthetic');
    const mm = parseMetrics(m.body);
    check(q && q.pending + q.in_progress > 0 && q.pending + q.in_progress <= 24,
      'GetStatus: the synthetic queue holds the submitted partitions', q);
    check(sq && sq.jobs_live === 2 && mm.get('cuzk_jobs_live{proof_kind="synthetic"}') === 2,
      '/status and /metrics: 2 live synthetic jobs', { status: sq, metric: mm.get('cuzk_jobs_live{proof_kind="synthetic"}') });
    check(m.type && m.type.startsWith('text/plain; version=0.0.4'), '/metrics has the Prometheus content type', m.type);
  }

  // a client that goes away: Prove with a short deadline; the job goes on and can be awaited
  t0 = Date.now();
  r = await call(c, 'Prove', { submit: synthReq('left-1', '256', 3, { priority: 4 }) }, 50);
  check(r.err && r.err.code === Status.DEADLINE_EXCEEDED, 'Prove past its deadline: DEADLINE_EXCEEDED on the client', r.err && codeName(r.err));

  r = await call(c, 'CancelProof', { job_id: 'queued-1' });
  check(r.res && r.res.was_running === false, 'CancelProof of a queued job: was_running = false', r.err ? r.err.details : r.res);
  r = await call(c, 'AwaitProof', { job_id: 'queued-1' });
  check(r.res && r.res.status === 'CANCELLED', 'its waiters get CANCELLED', r.res);
  if (r.res) record('queued-1', 'synthetic', r.res.status);
  r = await call(c, 'CancelProof', { job_id: 'queued-1' });
  check(r.res && r.res.was_running === false, 'CancelProof of a final job: OK, was_running = false', r.err ? r.err.details : r.res);

  // a waiter of the slow job is answered when it is cancelled
  const slowWait = call(c, 'AwaitProof', { job_id: 'slow-1' });
  // wait until a partition has started: on a loaded machine (a sanitizer build beside other
  // tests) the key set-up and the queue ahead can take minutes, and a fixed 30 s here once
  // cancelled the job before it ran; the bound is only there so that a hang fails
  let started = false;
  for (let i = 0; i < 6000 && !started; i++) {
    const s = await getJson(`${A.http}/status`);
    const j = s.body && s.body.pipelines && s.body.pipelines.find((x) => x.job_id === 'slow-1');
    started = !!(j && j.partitions && j.partitions.some((p) => p.state !== 'pending'));
    if (!started) await sleep(100);
  }
  check(started, 'the slow job starts a partition');
  r = await call(c, 'CancelProof', { job_id: 'slow-1' });
  check(r.res && r.res.was_running === true, 'CancelProof of a running job: was_running = true', r.err ? r.err.details : r.res);
  r = await slowWait;
  check(r.res && r.res.status === 'CANCELLED', 'a waiting AwaitProof is answered CANCELLED', r.err ? r.err.details : r.res);
  if (r.res) record('slow-1', 'synthetic', r.res.status);

  r = await call(c, 'AwaitProof', { job_id: 'left-1', timeout_ms: 120000 });
  check(r.res && r.res.status === 'COMPLETED', 'the job of the departed client completed and can be awaited', r.err ? r.err.details : r.res);
  if (r.res) record('left-1', 'synthetic', r.res.status);

  // ---- a Filecoin kind: WinningPoSt of a small profile ---------------------------------------
  if (genVanilla) {
    const vf = path.join(dir, 'winning.bin');
    const g = spawnSync(genVanilla, ['winning-s1-r1', '7', vf], { encoding: 'utf8' });
    check(g.status === 0, 'gen_vanilla makes a WinningPoSt input', g.stderr);
    if (g.status === 0) {
      const v = fs.readFileSync(vf);
      // vanilla_proofs entries are concatenated: split the file in two
      r = await call(c, 'Prove', { submit: { request_id: 'winning-1', proof_kind: 4, vanilla_proofs: [v.subarray(0, 77), v.subarray(77)] } });
      check(r.res && r.res.result.status === 'COMPLETED' && r.res.result.proof.length === 192,
        'Prove of WINNING_POST (vanilla_proofs concatenated) completes', r.err ? r.err.details : r.res.result);
      if (r.res) record('winning-1', 'winning', r.res.result.status);
      expectCode(await call(c, 'SubmitProof', { request_id: 'wpost-x', proof_kind: 3, vanilla_proof: v }),
        Status.INVALID_ARGUMENT, 'WINDOW_POST_PARTITION with a WinningPoSt file');
    }
  } else {
    console.log('# skipped: the WinningPoSt check (no gen_vanilla binary given)');
  }

  // ---- PreloadSRS / EvictSRS ------------------------------------------------------------------
  r = await call(c, 'EvictSRS', { circuit_id: 'snarkjs:circuit' });
  check(r.res && r.res.was_loaded === true && r.res.freed_bytes > 0, 'EvictSRS of a loaded key frees its bytes', r.err ? r.err.details : r.res);
  r = await call(c, 'EvictSRS', { circuit_id: 'snarkjs:circuit' });
  check(r.res && r.res.was_loaded === false && r.res.freed_bytes === 0, 'EvictSRS of an evicted key: was_loaded = false', r.err ? r.err.details : r.res);
  r = await call(c, 'PreloadSRS', { circuit_id: 'snarkjs:circuit' });
  check(r.res && r.res.already_loaded === false, 'PreloadSRS loads it again', r.err ? r.err.details : r.res);
  r = await call(c, 'PreloadSRS', { circuit_id: 'snarkjs:circuit' });
  check(r.res && r.res.already_loaded === true && r.res.load_time_ms === 0, 'PreloadSRS of a loaded key: already_loaded', r.err ? r.err.details : r.res);
  r = await call(c, 'GetStatus', {});
  check(r.res && r.res.loaded_srs.some((s) => s.circuit_id === 'snarkjs:circuit' && s.size_bytes > 0),
    'GetStatus lists the key as "snarkjs:circuit"', r.res && r.res.loaded_srs);
  expectCode(await call(c, 'PreloadSRS', { circuit_id: 'porep32g' }), Status.INVALID_ARGUMENT, 'PreloadSRS of a malformed circuit id');
  // cuzk's circuit id of the real WinningPoSt (setup_allow does not name it: refused, named)
  r = await call(c, 'PreloadSRS', { circuit_id: 'winning-32g' });
  check(r.err && r.err.code === Status.PERMISSION_DENIED && r.err.details.includes('winning-32g = winning:winning-s66'),
    'PreloadSRS of cuzk\'s "winning-32g" names its key winning:winning-s66', r.err ? r.err.details : r.res);
  r = await call(c, 'PreloadSRS', { circuit_id: 'snarkjs:nosuch' });
  check(r.err && [Status.NOT_FOUND, Status.INVALID_ARGUMENT].includes(r.err.code), 'PreloadSRS of an unknown circuit fails', r.err ? codeName(r.err) : r.res);

  // ---- bad requests get the right codes, and the daemon keeps serving ------------------------
  expectCode(await call(c, 'SubmitProof', { request_id: 'x1', proof_kind: 0 }), Status.INVALID_ARGUMENT, 'PROOF_KIND_UNSPECIFIED without a selector');
  expectCode(await call(c, 'SubmitProof', { request_id: 'x2', proof_kind: 99 }), Status.INVALID_ARGUMENT, 'proof_kind 99');
  expectCode(await call(c, 'SubmitProof', synthReq('x3', '256', 1, { priority: 9 })), Status.INVALID_ARGUMENT, 'priority 9');
  expectCode(await call(c, 'SubmitProof', { request_id: 'x4', proof_kind: 0, vanilla_proofs: [Buffer.from('nokind:c')] }), Status.INVALID_ARGUMENT, 'an unknown engine kind');
  expectCode(await call(c, 'SubmitProof', { request_id: 'x5', proof_kind: 0, vanilla_proofs: [Buffer.from('snarkjs')] }), Status.INVALID_ARGUMENT, 'a selector without a circuit id');
  expectCode(await call(c, 'SubmitProof', { ...snarkjsReq('x6'), vanilla_proofs: [Buffer.from('snarkjs:nosuch')] }), Status.INVALID_ARGUMENT, 'an unknown snarkjs circuit');
  expectCode(await call(c, 'SubmitProof', synthReq('bad,id', '256')), Status.INVALID_ARGUMENT, 'a request_id with a comma');
  expectCode(await call(c, 'SubmitProof', { request_id: 'x7', proof_kind: 1, vanilla_proof: Buffer.from('not a vanilla proof') }),
    Status.INVALID_ARGUMENT, 'POREP_SEAL_COMMIT with a junk vanilla proof');
  expectCode(await call(c, 'SubmitProof', { request_id: 'x8', proof_kind: 4 }), Status.INVALID_ARGUMENT,
    'WINNING_POST without vanilla proofs');
  r = await call(c, 'SubmitProof', { request_id: 'x8b', proof_kind: 2, vanilla_proofs: [Buffer.from('v')], comm_r_old: Buffer.alloc(31) });
  expectCode(r, Status.INVALID_ARGUMENT, 'SNAP_DEALS_UPDATE with a 31-byte comm_r_old');
  check(r.err && /comm_r_old is 31 bytes/.test(r.err.details), 'the refusal names comm_r_old', r.err && r.err.details);
  r = await call(c, 'SubmitProof', { request_id: 'x8c', proof_kind: 3, vanilla_proofs: [Buffer.from('v')], randomness: Buffer.alloc(5) });
  expectCode(r, Status.INVALID_ARGUMENT, 'WINDOW_POST_PARTITION with a 5-byte randomness');
  check(r.err && /randomness is 5 bytes/.test(r.err.details), 'the refusal names randomness', r.err && r.err.details);
  expectCode(await call(c, 'Prove', {}), Status.INVALID_ARGUMENT, 'Prove without submit');
  expectCode(await call(c, 'AwaitProof', { job_id: 'no-such-job' }), Status.NOT_FOUND, 'AwaitProof of an unknown job');
  expectCode(await call(c, 'AwaitProof', { job_id: '' }), Status.INVALID_ARGUMENT, 'AwaitProof without a job_id');
  expectCode(await call(c, 'CancelProof', { job_id: 'no-such-job' }), Status.NOT_FOUND, 'CancelProof of an unknown job');
  // key setups only for what srs.setup_allow and synthetic.max_setup_constraints allow
  r = await call(c, 'SubmitProof', synthReq('big-setup', String((1 << 20) + 1)));
  expectCode(r, Status.PERMISSION_DENIED, 'a synthetic key above synthetic.max_setup_constraints');
  check(r.err && /max_setup_constraints/.test(r.err.details), 'the refusal names the setting', r.err && r.err.details);
  r = await call(c, 'PreloadSRS', { circuit_id: 'winning:winning-s2-r1' });
  expectCode(r, Status.PERMISSION_DENIED, 'PreloadSRS of a profile srs.setup_allow does not list');
  check(r.err && /winning:winning-s2-r1/.test(r.err.details) && /setup_allow/.test(r.err.details),
    'the refusal names the key and the setting', r.err && r.err.details);
  // ids hold no control characters: a NUL would cut an id short unseen, a newline forge a log line
  expectCode(await call(c, 'SubmitProof', synthReq('snarkjs-1\u0000tail', '256')), Status.INVALID_ARGUMENT,
    'a request_id with a NUL (it would name job "snarkjs-1")');
  expectCode(await call(c, 'AwaitProof', { job_id: 'snarkjs-1\u0000x' }), Status.INVALID_ARGUMENT, 'a job_id with a NUL');
  const forged = 'x\n2026-01-01T00:00:00.000Z ERROR engine: forged';
  expectCode(await call(c, 'AwaitProof', { job_id: forged }), Status.INVALID_ARGUMENT, 'a job_id with a newline');
  expectCode(await call(c, 'CancelProof', { job_id: '\u001b[2Jx' }), Status.INVALID_ARGUMENT, 'a job_id with an escape sequence');
  expectCode(await call(c, 'CancelProof', { job_id: 'j'.repeat(200) }), Status.INVALID_ARGUMENT, 'CancelProof with a job_id over 127 bytes');
  expectCode(await call(c, 'PreloadSRS', { circuit_id: 'snarkjs:circ\tuit' }), Status.INVALID_ARGUMENT, 'a circuit_id with a tab');
  expectCode(await call(c, 'SubmitProof', { request_id: 'x9', proof_kind: 0, vanilla_proofs: [Buffer.from('snarkjs:circ\nuit')] }),
    Status.INVALID_ARGUMENT, 'a selector with a newline');
  check(!A.lines.some((l) => /forged/.test(l) && !/^\d{4}-\d\d-\d\dT/.test(l)) &&
    !A.lines.some((l) => /^2026-01-01T00:00:00.000Z ERROR engine: forged/.test(l)) &&
    !A.lines.some((l) => l.includes('\u001b')),
    'no request string forged a log line or reached the log raw');
  expectCode(await callRaw(c, 'SubmitProof', Buffer.from([0x0a, 0xff, 0xff, 0xff])), Status.INVALID_ARGUMENT, 'a malformed message');
  expectCode(await call(c, 'SubmitProof', synthReq('big', '256', 1, { vanilla_proof: Buffer.alloc(2 << 20, 7) })),
    Status.RESOURCE_EXHAUSTED, 'a message over max_message_size (1 MiB)');
  r = await call(c, 'GetStatus', {});
  check(!r.err, 'the daemon still serves after the bad requests');

  // ---- the counters agree with what was done -----------------------------------------------
  {
    const [g, s, m, gm] = await Promise.all([call(c, 'GetStatus', {}), getJson(`${A.http}/status`),
      getText(`${A.http}/metrics`), call(c, 'GetMetrics', {})]);
    const mm = parseMetrics(m.body);
    const want = { completed: done.completed.size, failed: done.failed.size, cancelled: done.cancelled.size };
    check(g.res.total_proofs_completed === want.completed && g.res.total_proofs_failed === want.failed,
      'GetStatus totals match the jobs run', { got: [g.res.total_proofs_completed, g.res.total_proofs_failed], want });
    check(s.body.counters.total_completed === want.completed && s.body.counters.total_failed === want.failed &&
          s.body.counters.total_cancelled === want.cancelled, '/status counters match', { got: s.body.counters, want });
    check(mm.get('cuzk_proofs_completed_total') === want.completed && mm.get('cuzk_proofs_failed_total') === want.failed &&
          mm.get('cuzk_proofs_cancelled_total') === want.cancelled, '/metrics totals match',
    { got: [mm.get('cuzk_proofs_completed_total'), mm.get('cuzk_proofs_failed_total'), mm.get('cuzk_proofs_cancelled_total')], want });
    // proof_kind label values: the reference cuzk's for its kinds, the kind's name otherwise
    const label = { snarkjs: 'snarkjs', synthetic: 'synthetic', winning: 'winning_post' };
    for (const kind of genVanilla ? ['snarkjs', 'synthetic', 'winning'] : ['snarkjs', 'synthetic']) {
      const n = [...done.completed].filter((id) => kindOf.get(id) === kind).length;
      check(mm.get(`cuzk_proofs_completed{proof_kind="${label[kind]}"}`) === n &&
            mm.get(`cuzk_proof_duration_seconds_count{proof_kind="${label[kind]}"}`) === n &&
            s.body.queues.find((q) => q.kind === kind).completed === n, `completed ${kind} jobs: ${n} in /metrics and /status`);
    }
    check(mm.has('cuzk_gpu_busy_ratio{device="0",name="cpu"}') && mm.get('cuzk_memory_budget_bytes') === 4 * 2 ** 30 &&
          mm.has('cuzk_memory_used_bytes') && mm.has('cuzk_partitions_queued{proof_kind="synthetic",stage="gpu"}'),
    '/metrics has the device, memory and queue families');
    check(gm.res && gm.res.prometheus_text.includes('cuzk_proofs_completed_total'), 'GetMetrics returns the same families');
    const nf = await getText(`${A.http}/nope`);
    check(nf.status === 404, 'HTTP: an unknown path is 404', nf.status);
    const post = await getText(`${A.http}/status`, { method: 'POST', body: 'x' });
    check(post.status === 405, 'HTTP: POST /status is 405', post.status);
  }

  // ---- 100 slow HTTP clients (each trickles a header line every 3 s) do not starve /status -----
  {
    const url = new URL(A.http);
    const slow = [];
    await Promise.all(Array.from({ length: 100 }, () => new Promise((resolve) => {
      const sk = net.connect(Number(url.port), url.hostname, () => {
        sk.write('GET /status HTTP/1.1\r\nHost: x\r\n');
        resolve();
      });
      sk.on('error', () => resolve());
      slow.push(sk);
    })));
    const drip = setInterval(() => { for (const sk of slow) if (!sk.destroyed) sk.write('X-Slow: 1\r\n'); }, 3000);
    await sleep(3500); // every slow client has sent a second line: none is idle
    const t = Date.now();
    const s = await getJson(`${A.http}/status`);
    const ms = Date.now() - t;
    const open = slow.filter((sk) => !sk.destroyed).length;
    check(s.status === 200 && ms < 1000 && open === 100, '/status answers in < 1 s beside 100 slow clients', { ms, status: s.status, open });
    clearInterval(drip);
    for (const sk of slow) sk.destroy();
  }

  // ---- SIGTERM with 50 queued jobs (shutdown = "cancel") ------------------------------------
  r = await call(c, 'SubmitProof', synthReq('blocker', '4096x20', 9));
  const provers = [];
  for (let i = 0; i < 50; i++) provers.push(call(c, 'Prove', { submit: synthReq(`q50-${i}`, '256x1', 100 + i) }));
  for (let tries = 0; tries < 100; tries++) {
    const s = await getJson(`${A.http}/status`);
    if (s.body.queues.find((q) => q.kind === 'synthetic').jobs_live >= 51) break;
    await sleep(100);
  }
  const live = (await getJson(`${A.http}/status`)).body.queues.find((q) => q.kind === 'synthetic').jobs_live;
  check(live >= 40, 'jobs are queued before the signal', live);
  A.proc.kill('SIGTERM');
  const answers = await Promise.all(provers);
  const statuses = answers.map((a) => (a.err ? `err ${codeName(a.err)}` : a.res.result.status));
  check(statuses.every((s) => s === 'CANCELLED' || s === 'COMPLETED'),
    'every one of the 50 waiting Prove calls is answered (CANCELLED or COMPLETED)',
    Object.entries(statuses.reduce((h, s) => ({ ...h, [s]: (h[s] || 0) + 1 }), {})));
  const exitA = await A.exited;
  check(exitA.code === 0, 'daemon A exits 0 after SIGTERM', exitA);
  check(!fs.existsSync(sock), 'the unix socket file is removed');
  check(A.lines.some((l) => /cuzk-daemon stopped/.test(l)) || exitA.code === 0, 'daemon A logs its stop');
  cleanup.length = 0;

  // ---- daemon B: a unix socket in directories that do not exist yet, shutdown = "finish" -------
  const sockB = path.join(dir, 'new', 'deeper', 'b.sock');
  const confB = `[daemon]
listen = "unix://${sockB}"
shutdown = "finish"
[memory]
total_budget = "2GiB"
[logging]
timeline = false
format = "json"
level = "error"
`;
  const B = await startDaemon(bin, confB, dir);
  cleanup.push(B);
  check(fs.lstatSync(sockB).isSocket(), 'daemon B created the socket\'s parent directories');
  check(B.lines.some((l) => { try { return JSON.parse(l).msg.startsWith('cuzk-daemon ready, serving on'); } catch { return false; } }),
    'with format = "json" and level = "error" the ready line is a JSON log line');
  const finishing = [];
  for (let i = 0; i < 8; i++) finishing.push(call(B.client, 'Prove', { submit: synthReq(`fin-${i}`, '256x1', i) }));
  await sleep(300);
  B.proc.kill('SIGTERM');
  const fin = await Promise.all(finishing);
  check(fin.every((a) => a.res && a.res.result.status === 'COMPLETED' && a.res.result.proof.length === 192),
    'shutdown = "finish": every accepted job completes', fin.map((a) => (a.err ? codeName(a.err) : a.res.result.status)));
  const exitB = await B.exited;
  check(exitB.code === 0 && !fs.existsSync(sockB), 'daemon B exits 0 and removes its socket', exitB);
  cleanup.length = 0;

  // ---- daemon C: TCP on a port the system picks -----------------------------------------------
  const C = await startDaemon(bin, '[daemon]\nlisten = "127.0.0.1:0"\nmax_blocking_calls = 2\n' +
    '[logging]\ntimeline = false\nlevel = "debug"\n', dir);
  cleanup.push(C);
  check(/^127\.0\.0\.1:[1-9][0-9]*$/.test(C.address), 'daemon C: the ready line names the bound TCP port', C.address);
  r = await call(C.client, 'Prove', { submit: synthReq('tcp-1', '256x1', 1) });
  check(r.res && r.res.result.status === 'COMPLETED', 'daemon C proves over TCP', r.err ? r.err.details : r.res);
  // max_blocking_calls = 2: a third waiting call is refused while two wait
  r = await call(C.client, 'SubmitProof', synthReq('w-1', '8192x2', 1));
  check(r.res && r.res.job_id === 'w-1', 'daemon C queues a job to wait for', r.err ? r.err.details : r.res);
  const two = [call(C.client, 'AwaitProof', { job_id: 'w-1' }), call(C.client, 'AwaitProof', { job_id: 'w-1' })];
  // both are waiting once the daemon has logged its second slot taken (its debug line)
  await C.waitFor(/waiting \(2 of 2 blocking calls\)/, 60000);
  expectCode(await call(C.client, 'Prove', { submit: synthReq('w-2', '256x1', 2) }),
    Status.RESOURCE_EXHAUSTED, 'a third waiting call with max_blocking_calls = 2');
  const both = await Promise.all(two);
  check(both.every((a) => !a.err), 'the two waiting calls are answered', both.map((a) => (a.err ? codeName(a.err) : 'OK')));
  C.proc.kill('SIGINT');
  const exitC = await C.exited;
  check(exitC.code === 0, 'daemon C exits 0 after SIGINT', exitC);
  cleanup.length = 0;

  // ---- a drain that cannot finish: logged, and over by daemon.shutdown_timeout ----------------
  // A job whose key (synthetic 2^20) is still being set up when SIGTERM comes: the setup cannot
  // be interrupted, so the shutdown cannot finish. The daemon logs what it waits for (the job,
  // by id), cancels the job shortly before the timeout, and exits 3 when the timeout passes.
  {
    const D = await startDaemon(bin, '[daemon]\nlisten = "127.0.0.1:0"\nshutdown = "finish"\n' +
      'shutdown_timeout = "4s"\n[logging]\ntimeline = false\n', dir);
    cleanup.push(D);
    r = await call(D.client, 'SubmitProof', synthReq('drain-1', '1048576x2', 1));
    check(r.res && r.res.job_id === 'drain-1', 'the drain daemon queues a job whose key takes long to make', r.err && r.err.details);
    await sleep(300);
    const t0 = Date.now();
    D.proc.kill('SIGTERM');
    const ex = await D.exited;
    const took = Date.now() - t0;
    const waiting = D.lines.find((l) => /shutdown: waiting for: 1 live jobs/.test(l));
    check(waiting && /drain-1 \(synthetic\/1048576x2, /.test(waiting),
      'the shutdown logs what it waits for: the job by id, kind and circuit', waiting || D.lines.slice(-5));
    check(D.lines.some((l) => /cancelling 1 live jobs/.test(l) && /shutdown_timeout is near/.test(l)),
      'the live job is cancelled before the timeout');
    check(D.lines.some((l) => /daemon.shutdown_timeout passed; exiting without waiting for: .*key synthetic:1048576 being loaded/.test(l)),
      'when the timeout passes the daemon says what is left: the key being set up');
    check(ex.code === 3 && took < 4000 + 1500, 'the unfinished shutdown ends with exit 3 within daemon.shutdown_timeout',
      { code: ex.code, signal: ex.signal, ms: took });
    cleanup.length = 0;
  }

  // ---- a large request is held once: peak memory <= 1.5 x its size ----------------------------
  // 192 MiB of input bytes through SubmitProof (top level) and Prove (nested): the daemon's peak
  // RSS (VmHWM, reset through /proc/PID/clear_refs before each) may grow by at most 1.5 x the
  // message while the request is received, decoded, handed to the engine and proved.
  {
    const D = await startDaemon(bin, '[daemon]\nlisten = "127.0.0.1:0"\n[logging]\ntimeline = false\n', dir);
    cleanup.push(D);
    const d = D.client;
    const kib = (field) => Number((fs.readFileSync(`/proc/${D.proc.pid}/status`, 'utf8')
      .match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm')) || [0, 0])[1]);
    r = await call(d, 'Prove', { submit: synthReq('big-warm', '256x1', 1) }); // threads, pools, key
    check(r.res && r.res.result.status === 'COMPLETED', 'the memory daemon proves a small job first', r.err && r.err.details);
    const big = Buffer.alloc(192 << 20);
    for (let i = 0; i < big.length; i += 4096) big[i] = i & 0xff; // no page the kernel could share
    for (const [method, id] of [['SubmitProof', 'big-submit'], ['Prove', 'big-prove']]) {
      await sleep(200);
      fs.writeFileSync(`/proc/${D.proc.pid}/clear_refs`, '5'); // VmHWM := VmRSS
      const base = kib('VmHWM');
      const req = synthReq(id, '256x1', 2, { vanilla_proof: big });
      r = method === 'Prove' ? await call(d, 'Prove', { submit: req }) : await call(d, 'SubmitProof', req);
      let st = method === 'Prove' ? r.res && r.res.result.status : null;
      if (method === 'SubmitProof' && r.res) {
        const a = await call(d, 'AwaitProof', { job_id: id });
        st = a.res && a.res.status;
      }
      const grew = (kib('VmHWM') - base) * 1024;
      const ratio = grew / big.length;
      console.log(`  ${method} of ${big.length >> 20} MiB: peak RSS +${(grew / 1048576).toFixed(1)} MiB (${ratio.toFixed(2)} x)`);
      check(st === 'COMPLETED', `a ${big.length >> 20} MiB ${method} is proved`, r.err ? r.err.details : st);
      // a sanitizer build keeps freed memory in quarantine and adds shadow memory: the bound
      // holds for the release build, which CI runs too
      if (process.env.CUZK_TEST_SANITIZED) console.log('  (sanitizer build: the 1.5 x bound is checked by the release build)');
      else check(ratio <= 1.5, `a ${big.length >> 20} MiB ${method} raises peak memory by <= 1.5 x its size`, ratio.toFixed(2));
    }
    D.proc.kill('SIGTERM');
    await D.exited;
    cleanup.length = 0;
  }

  // ---- a slow SubmitProof does not delay the cheap calls -------------------------------------
  // The first job of a Filecoin profile runs the circuit's COUNT pass inside SubmitProof (about
  // a second for the real-shape porep-c2); a budget too small for its key refuses it after
  // that, so nothing is left to prove. GetStatus calls meanwhile answer in < 50 ms (median).
  if (genVanilla) {
    const vf = path.join(dir, 'porep-c2.bin');
    const g = spawnSync(genVanilla, ['porep-c2', '8', vf], { encoding: 'utf8' });
    check(g.status === 0, 'gen_vanilla makes a porep-c2 input', g.stderr);
    const D = await startDaemon(bin, `[daemon]\nlisten = "127.0.0.1:0"\nmax_input_bytes = "1MiB"\n` +
      '[memory]\ntotal_budget = "256MiB"\n' +
      '[srs]\nsetup_allow = "porep:porep-c2"\n', dir);
    cleanup.push(D);
    const d = D.client;
    await call(d, 'GetStatus', {}); // the channel is up before the timing starts
    r = await call(d, 'SubmitProof', synthReq('too-big', '256', 1, { vanilla_proof: Buffer.alloc(1536 << 10, 1) }));
    expectCode(r, Status.RESOURCE_EXHAUSTED, 'a request over daemon.max_input_bytes (1 MiB)');
    check(r.err && /max_input_bytes/.test(r.err.details), 'the refusal names daemon.max_input_bytes', r.err && r.err.details);
    const t0 = Date.now();
    let submitMs = -1;
    const slow = call(d, 'SubmitProof', { request_id: 'slow-submit', proof_kind: 1, vanilla_proof: fs.readFileSync(vf) })
      .then((res) => { submitMs = Date.now() - t0; return res; });
    const lat = [];
    while (submitMs < 0 && Date.now() - t0 < 120000) {
      const t = Date.now();
      const st = await call(d, 'GetStatus', {});
      if (submitMs < 0 && !st.err) lat.push(Date.now() - t);
      await sleep(20);
    }
    r = await slow;
    expectCode(r, Status.RESOURCE_EXHAUSTED, 'the porep-c2 submit is refused by the 256 MiB budget after its COUNT pass');
    check(submitMs > 200 && lat.length >= 5, 'the submit took long enough to measure beside it', { submitMs, calls: lat.length });
    // A call queued behind the submit would wait out most of it; the median shows the usual
    // answer, the worst bound leaves room for a scheduler pause on a loaded 2-core machine
    // (CI once saw 86 ms under ASan) while still failing a call that waited for the COUNT pass.
    const sorted = [...lat].sort((a, b) => a - b);
    const medianMs = sorted.length ? sorted[sorted.length >> 1] : -1;
    const worstMs = sorted.length ? sorted[sorted.length - 1] : -1;
    check(lat.length > 0 && medianMs < 50 && worstMs < submitMs / 4,
      'GetStatus answers in < 50 ms (median, worst < 1/4 of the submit) while a slow SubmitProof runs',
      { submitMs, medianMs, worstMs, calls: lat.length });
    D.proc.kill('SIGKILL');
    await D.exited;
    cleanup.length = 0;
  }

  // ---- TLS: a certificate made now (openssl), the server's alone, then mutual TLS ----------------
  {
    const tls = path.join(dir, 'tls');
    fs.mkdirSync(tls);
    const ssl = (args) => spawnSync('openssl', args, { cwd: tls, encoding: 'utf8' });
    const made = [
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=cuzk test CA',
        '-keyout', 'ca.key', '-out', 'ca.pem'],
      ['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-keyout', 'server.key', '-out', 'server.csr'],
      ['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '1',
        '-extfile', 'san.cnf', '-out', 'server.pem'],
      ['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=curio', '-keyout', 'client.key', '-out', 'client.csr'],
      ['x509', '-req', '-in', 'client.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '1',
        '-out', 'client.pem'],
    ];
    fs.writeFileSync(path.join(tls, 'san.cnf'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
    const ok = made.every((a) => ssl(a).status === 0);
    check(ok, 'openssl made a CA, a server and a client certificate');
    const f = (n) => path.join(tls, n);
    const rd = (n) => fs.readFileSync(f(n));
    const tryStatus = async (address, creds) => {
      const cl = new cuzk.ProvingEngine(address, creds, { 'grpc.ssl_target_name_override': 'localhost' });
      const res = await call(cl, 'GetStatus', {}, 5000);
      cl.close();
      return res;
    };
    const E = await startDaemon(bin, `[daemon]\nlisten = "127.0.0.1:0"\n` +
      `tls_cert = "${f('server.pem')}"\ntls_key = "${f('server.key')}"\n`, dir);
    cleanup.push(E);
    check(E.lines.some((l) => /TLS on 127\.0\.0\.1:/.test(l)), 'the daemon says its listener speaks TLS');
    r = await tryStatus(E.address, grpc.credentials.createSsl(rd('ca.pem')));
    check(!r.err, 'GetStatus over TLS with the CA', r.err && r.err.details);
    r = await tryStatus(E.address, grpc.credentials.createInsecure());
    check(r.err && r.err.code === Status.UNAVAILABLE, 'a plaintext client gets no answer from the TLS listener', r.err ? codeName(r.err) : 'OK');
    E.proc.kill('SIGKILL');
    await E.exited;
    const F = await startDaemon(bin, `[daemon]\nlisten = "127.0.0.1:0"\n` +
      `tls_cert = "${f('server.pem')}"\ntls_key = "${f('server.key')}"\ntls_client_ca = "${f('ca.pem')}"\n`, dir);
    cleanup.push(F);
    r = await tryStatus(F.address, grpc.credentials.createSsl(rd('ca.pem'), rd('client.key'), rd('client.pem')));
    check(!r.err, 'mutual TLS: a client with a certificate of the CA is served', r.err && r.err.details);
    r = await tryStatus(F.address, grpc.credentials.createSsl(rd('ca.pem')));
    check(r.err && r.err.code === Status.UNAVAILABLE, 'mutual TLS: a client without a certificate is refused', r.err ? codeName(r.err) : 'OK');
    F.proc.kill('SIGKILL');
    await F.exited;
    // a certificate without its key, or a missing file, stops the start with a clear message
    const bad = spawnSync(bin, ['--set', 'daemon.listen=127.0.0.1:0', '--set', `daemon.tls_cert=${f('server.pem')}`],
      { encoding: 'utf8', timeout: 30000 });
    check(bad.status === 1 && /certificate and its key/.test(bad.stderr), 'a TLS certificate without a key: exit 1 with a message', bad.stderr.slice(-300));
    // a plaintext listener reachable from other hosts is warned about
    const G = await startDaemon(bin, '[daemon]\nlisten = "0.0.0.0:0"\n', dir);
    cleanup.push(G);
    check(G.lines.some((l) => /without TLS or authentication/.test(l)), 'a plaintext listener on 0.0.0.0 logs a warning');
    G.proc.kill('SIGKILL');
    await G.exited;
    cleanup.length = 0;
  }
}

try {
  await main();
} catch (e) {
  check(false, 'the test ran to its end', e.stack);
} finally {
  for (const d of cleanup) if (d.exit === null) d.proc.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
}
process.exit(summary('daemon client'));
