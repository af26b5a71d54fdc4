// The max_blocking_calls slot race, made deterministic: a blocking call's slot must be free
// before its answer is sent, or a client that sends its next call as soon as the answer comes
// finds its own last call's slot still taken and is refused (RESOURCE_EXHAUSTED). The daemon
// runs with max_blocking_calls = 1 and the service's test hook CUZK_TEST_PAUSE_AFTER_ANSWER_MS
// (server/service.h), which keeps each blocking call's record PAUSE ms after its answer: a
// slot given back when the record ends would be held through that pause, so every call below, sent at
// once after the previous answer, would be refused; given back before the answer, none is.
// Every kind of answer of a blocking call is covered: Prove, AwaitProof, SubmitProof (attached),
// PreloadSRS, EvictSRS replies and an AwaitProof failure (NOT_FOUND).
//   node tests/daemon/slot_race.mjs <cuzk-daemon binary>
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Status, call, check, sleep, startDaemon, summary } from './lib.mjs';

const bin = path.resolve(process.argv[2] || '');
if (!process.argv[2] || !fs.existsSync(bin)) {
  console.error('usage: node tests/daemon/slot_race.mjs <cuzk-daemon binary>');
  process.exit(2);
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cuzk-slot-race-test-'));
const PAUSE = 1500; // ms: far longer than an answer's way to the client and the next call's back
process.env.CUZK_TEST_PAUSE_AFTER_ANSWER_MS = String(PAUSE); // the daemon inherits it
let d = null;

const config = `[daemon]
listen = "127.0.0.1:0"
status_listen = "127.0.0.1:0"
shutdown = "cancel"
max_blocking_calls = 1
[srs]
setup_allow = "synthetic:*"
[memory]
total_budget = "2GiB"
[logging]
timeline = false
level = "${process.env.CUZK_TEST_VERBOSE ? 'debug' : 'info'}"
`;

const req = (id, circuit, seed) => ({
  request_id: id, proof_kind: 0, vanilla_proofs: [Buffer.from(`synthetic:${circuit}`)],
  sector_number: seed,
});
const brief = (r) => (r.err ? `${Status[r.err.code] || r.err.code}: ${r.err.details}` : 'OK');

async function main() {
  d = await startDaemon(bin, config, dir);
  const hook = d.lines.some((l) => l.includes('CUZK_TEST_PAUSE_AFTER_ANSWER_MS=1500: test hook on'));
  check(hook, 'the daemon says the test hook is on');

  // The limit is in force: while one call waits (a Prove of about half a second), another is
  // refused. So a slot held by an answered call would be seen.
  let r = await call(d.client, 'PreloadSRS', { circuit_id: 'synthetic:4096' });
  check(!r.err, 'PreloadSRS sets up the key', brief(r));
  await sleep(PAUSE + 500); // its record's pause is over (with either order)
  const slow = call(d.client, 'Prove', { submit: req('slot-race-slow', '4096x16', 1) });
  await sleep(20);
  const second = await call(d.client, 'AwaitProof', { job_id: 'slot-race-slow', timeout_ms: 1 });
  check(second.err && second.err.code === Status.RESOURCE_EXHAUSTED,
    'a call while another waits is refused (max_blocking_calls = 1)', brief(second));
  r = await slow;
  check(!r.err && r.res.result.status === 'COMPLETED', 'the waiting Prove completes',
    r.err ? brief(r) : r.res.result.status);

  // Each call sent as soon as the previous one's answer came (the previous call's record is
  // still in its pause): none may be refused.
  const seq = [
    ['Prove', { submit: req('slot-race-1', '4096', 2) }, (x) => x.result.status === 'COMPLETED'],
    ['AwaitProof', { job_id: 'slot-race-1' }, (x) => x.status === 'COMPLETED'],
    ['AwaitProof', { job_id: 'slot-race-1' }, (x) => x.status === 'COMPLETED'],
    ['SubmitProof', req('slot-race-1', '4096', 2), (x) => x.job_id === 'slot-race-1'],
    ['AwaitProof', { job_id: 'slot-race-none' }, null, Status.NOT_FOUND],
    ['AwaitProof', { job_id: 'slot-race-1' }, (x) => x.status === 'COMPLETED'],
    ['EvictSRS', { circuit_id: 'synthetic:4096' }, (x) => x.was_loaded],
    ['PreloadSRS', { circuit_id: 'synthetic:4096' }, () => true],
    ['Prove', { submit: req('slot-race-2', '4096', 3) }, (x) => x.result.status === 'COMPLETED'],
  ];
  let refused = 0;
  let prev = Date.now(); // the slow Prove's answer: its record is in its pause too
  for (const [method, body, ok, code] of seq) {
    const t0 = Date.now();
    r = await call(d.client, method, body);
    const what = `${method} sent ${t0 - prev} ms after the previous answer`;
    if (r.err && r.err.code === Status.RESOURCE_EXHAUSTED) {
      // refused: say so, then let the slot's holder end and send it again, so that the next
      // call follows this kind of answer (each answer path is tried, with either order)
      refused++;
      check(false, `${what}: not refused`, brief(r));
      await sleep(PAUSE + 300);
      r = await call(d.client, method, body);
    }
    const good = code !== undefined ? r.err && r.err.code === code : !r.err && ok(r.res);
    check(good, `${what}: ${code !== undefined ? Status[code] : 'answered'}`, brief(r));
    prev = Date.now();
  }
  check(refused === 0, `none of the ${seq.length} calls refused (RESOURCE_EXHAUSTED)`, `${refused} refused`);
}

const t0 = Date.now();
main()
  .catch((e) => check(false, 'the test ran to its end', e.stack || String(e)))
  .finally(async () => {
    if (d) await d.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    console.log(`slot_race: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    process.exit(summary('slot_race'));
  });
