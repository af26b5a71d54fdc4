// daemon.max_input_bytes counts every request in flight: a request's bytes from its arrival
// until its job holds none of them. The snarkjs kind keeps its witness with the job, so a
// snarkjs job queued behind a long one holds its bytes: two requests that together pass the
// cap, each below it, sent at once, give one RESOURCE_EXHAUSTED answer and one proof, and no
// other job is lost; and a request sent while the first one's job is queued (its Prove still
// waiting) is refused: before the cap counted jobs' bytes, it was let in. Deterministic: a
// CRITICAL synthetic job of about a second holds the one synthesis worker and the one device
// worker, so the first snarkjs job (LOW) is still queued when the second request arrives,
// milliseconds later. Once the jobs end their bytes are given back: the refused request then
// goes through, and so do several more one after the other.
//   node tests/daemon/input_cap.mjs <cuzk-daemon binary>
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Status, call, check, cuzk, sleep, snarkjsFixtures, startDaemon, summary } from './lib.mjs';

const bin = path.resolve(process.argv[2] || '');
if (!process.argv[2] || !fs.existsSync(bin)) {
  console.error('usage: node tests/daemon/input_cap.mjs <cuzk-daemon binary>');
  process.exit(2);
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cuzk-input-cap-test-'));
const { circuits, wtns } = snarkjsFixtures(dir);
let d = null;

const snarkReq = (id, priority) => ({
  request_id: id, proof_kind: 0, priority, vanilla_proofs: [Buffer.from('snarkjs:circuit')],
  vanilla_proof: wtns,
});
const synthReq = (id, circuit, seed, priority) => ({
  request_id: id, proof_kind: 0, priority, vanilla_proofs: [Buffer.from(`synthetic:${circuit}`)],
  sector_number: seed,
});
const brief = (r) => (r.err ? `${Status[r.err.code] || r.err.code}: ${r.err.details}` : 'OK');
const proveStatus = (r) => (r.err ? brief(r) : r.res.result.status);

// The message sizes as the daemon counts them (the encoded ProveRequest).
const ser = cuzk.ProvingEngine.service.Prove.requestSerialize;
const size = (req) => ser({ submit: req }).length;
const one = Math.max(size(snarkReq('cap-a', 1)), size(snarkReq('cap-b', 1)));
const CAP = Math.floor(one * 1.6); // each request below it, two together above it

async function main() {
  check(one < CAP && 2 * one > CAP, `two ${one}-byte requests pass a ${CAP}-byte cap, one does not`);
  d = await startDaemon(bin, `[daemon]
listen = "127.0.0.1:0"
shutdown = "cancel"
max_input_bytes = ${CAP}
[snarkjs]
dir = "${circuits}"
[srs]
setup_allow = "synthetic:*"
[pipeline]
max_parallel_synthesis = 1
[gpus]
gpu_workers_per_device = 1
[memory]
total_budget = "2GiB"
[logging]
timeline = false
level = "${process.env.CUZK_TEST_VERBOSE ? 'debug' : 'info'}"
`, dir);

  let r = await call(d.client, 'PreloadSRS', { circuit_id: 'synthetic:4096' });
  check(!r.err, 'the blocker key is set up', brief(r));
  r = await call(d.client, 'Prove', { submit: snarkReq('cap-warm', 1) });
  check(proveStatus(r) === 'COMPLETED', 'a snarkjs Prove alone is under the cap', proveStatus(r));

  // The blocker, then the two requests at once.
  r = await call(d.client, 'SubmitProof', synthReq('cap-blocker', '4096x32', 1, 'CRITICAL'));
  check(!r.err, 'a CRITICAL synthetic job of about a second is queued', brief(r));
  const pair = await Promise.all([
    call(d.client, 'Prove', { submit: snarkReq('cap-a', 'LOW') }),
    call(d.client, 'Prove', { submit: snarkReq('cap-b', 'LOW') }),
  ]);
  const blocker = await call(d.client, 'AwaitProof', { job_id: 'cap-blocker', timeout_ms: 120000 });
  const refused = pair.filter((x) => x.err && x.err.code === Status.RESOURCE_EXHAUSTED);
  const proved = pair.filter((x) => !x.err && x.res.result.status === 'COMPLETED');
  check(refused.length === 1 && proved.length === 1,
    'of two requests sent at once that together pass the cap, one is refused and one proved',
    pair.map(proveStatus));
  check(refused.length === 1 && /daemon\.max_input_bytes/.test(refused[0].err.details) &&
    /held already/.test(refused[0].err.details), 'the refusal says why', refused[0] && refused[0].err.details);
  check(!blocker.err && blocker.res.status === 'COMPLETED', 'the blocker job is not lost', brief(blocker));

  // The same with the second request sent once the first one's job is queued (its Prove still
  // waiting): the first one's bytes are the job's now, and still counted.
  r = await call(d.client, 'SubmitProof', synthReq('cap-blocker-2', '4096x32', 2, 'CRITICAL'));
  check(!r.err, 'a second blocker is queued', brief(r));
  const first = call(d.client, 'Prove', { submit: snarkReq('cap-c', 'LOW') });
  let queued = false;
  for (let i = 0; i < 500 && !queued; i++) {
    const a = await call(d.client, 'AwaitProof', { job_id: 'cap-c', timeout_ms: 1 });
    queued = !a.err && a.res.status === 'TIMEOUT';
    if (!queued) await sleep(10);
  }
  check(queued, 'the first request\'s job is queued behind the blocker');
  const second = await call(d.client, 'Prove', { submit: snarkReq('cap-d', 'LOW') });
  check(second.err && second.err.code === Status.RESOURCE_EXHAUSTED &&
    /held already/.test(second.err.details),
    'a second request while the first one\'s job holds its bytes is refused', proveStatus(second));
  r = await first;
  check(proveStatus(r) === 'COMPLETED', 'the first request is proved', proveStatus(r));
  r = await call(d.client, 'AwaitProof', { job_id: 'cap-blocker-2', timeout_ms: 120000 });
  check(!r.err && r.res.status === 'COMPLETED', 'the second blocker job is not lost', brief(r));

  // Every byte is given back when the jobs end: the refused request now goes through, and so
  // do more, one after the other (a ticket never returned would refuse them).
  const again = pair.indexOf(refused[0]) === 0 ? 'cap-a' : 'cap-b';
  r = await call(d.client, 'Prove', { submit: snarkReq(again, 'LOW') });
  check(proveStatus(r) === 'COMPLETED', 'the refused request, sent again once the other job has ended, is proved', proveStatus(r));
  let ok = 0;
  for (let i = 0; i < 5; i++) {
    r = await call(d.client, 'Prove', { submit: snarkReq(`cap-seq-${i}`, 'NORMAL') });
    ok += proveStatus(r) === 'COMPLETED';
  }
  check(ok === 5, 'five more requests one after the other are proved', `${ok} of 5`);
  // a request that fails to decode gives its bytes back too
  r = await call(d.client, 'Prove', { submit: { ...snarkReq('cap-bad', 'NORMAL'), priority: 9 } });
  check(r.err && r.err.code === Status.INVALID_ARGUMENT, 'a bad request is refused', brief(r));
  r = await call(d.client, 'Prove', { submit: snarkReq('cap-last', 'NORMAL') });
  check(proveStatus(r) === 'COMPLETED', 'and its bytes are given back', proveStatus(r));
}

const t0 = Date.now();
main()
  .catch((e) => check(false, 'the test ran to its end', e.stack || String(e)))
  .finally(async () => {
    if (d) await d.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    console.log(`input_cap: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    process.exit(summary('input_cap'));
  });
