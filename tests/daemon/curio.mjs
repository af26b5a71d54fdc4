// A client that is Curio: the Prove requests of Curio's six callers, built as Curio builds them
// (curio e0294b0f: lib/cuzk/client.go, lib/ffi/cuzk_funcs.go, tasks/proofshare/task_prove.go,
// tasks/window/compute_do.go, tasks/winning/winning_task.go), sent over Curio's channel (a
// plaintext unix socket, 256 MiB send and receive limits, a 30-minute deadline, Prove only, all
// in flight at once as a busy Curio has them) to the daemon on the CPU backend, with the real
// 2 KiB sectors of tests/data/realdata:
//   PoRep              porep-<miner>-<sector>            kind 1, NORMAL, registered_proof 5,
//                      sector_size 2048, vanilla_proof = {"SectorNum","Phase1Out","SectorSize"}
//                      wrapping a gen-c1 output (Rust's field order), sector_number, miner_id;
//   proof-share PoRep  ps-porep-<miner>-<sector>-<task>  the same with the C1 re-marshalled by
//                      Go's encoding/json (Curio's Commit1OutRaw field order) and the registered
//                      proof from the C1: a V1 sector, so registered_proof and sector_number 0,
//                      which Go leaves off the wire;
//   SnapDeals          snap-<miner>-<sector>             kind 2, NORMAL, registered_proof 0
//                      (2 KiB), sector_size 2048, vanilla_proofs = bincode PartitionProofs
//                      (gen-vanilla), raw 32-byte comm_r_old / comm_r_new / comm_d_new;
//   proof-share Snap   ps-snap-<miner>-<sector>-<task>   the same, sector_size 0 (not set);
//   WindowPoSt         wdpost-<miner>-<partition>-[b0 b1 ... b7] (Go's %d of a byte slice)
//                      kind 3, HIGH, registered_proof 10, one bincode entry per sector
//                      (gen-post), miner_id, randomness (byte 31 masked to an Fr, as Curio does),
//                      partition_index; one full partition and one short one (padded);
//   WinningPoSt        winpost-<miner>-<hex of randomness[:8]>  kind 4, CRITICAL,
//                      registered_proof 0 (also off the wire), one entry, miner_id, randomness.
// Every answer must be OK and COMPLETED with the job id and the proof bytes of its partitions;
// then each request's vanilla bytes are read as the verifier derives them (curio_vanilla.c),
// their public values compared with the sectors' known ones (sectors-2k.json), and the proof
// checked by `cuzk-bench verify-fc` against the daemon's key; a proof checked against another
// request's inputs, and a corrupted proof, must be refused.
//   node tests/daemon/curio.mjs <cuzk-daemon> <cuzk-bench> <curio_vanilla> [<key dir>]
// The key dir (default: a temporary one) keeps the keys between runs: the real 2 KiB PoRep
// circuit (2.7 M constraints) takes minutes to set up on the CPU, seconds to load.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import grpc from '@grpc/grpc-js';
import { ROOT, Status, check, cuzk, startDaemon, summary } from './lib.mjs';

const [daemonBin, bench, curioVanilla] = process.argv.slice(2, 5).map((p) => p && path.resolve(p));
if (![daemonBin, bench, curioVanilla].every((p) => p && fs.existsSync(p))) {
  console.error('usage: node tests/daemon/curio.mjs <cuzk-daemon> <cuzk-bench> <curio_vanilla> ' +
    '[<key dir>]');
  process.exit(2);
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cuzk-curio-test-'));
const keys = process.argv[5] ? path.resolve(process.argv[5]) : path.join(dir, 'keys');
fs.mkdirSync(keys, { recursive: true });
const REAL = path.join(ROOT, 'tests/data/realdata');
const t0 = Date.now();
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;


// ---- Go's encodings --------------------------------------------------------------------------

// A SubmitProofRequest as Go's protobuf sends it: proto3 leaves zero and empty fields off the
// wire (registered_proof 0 is StackedDrgWinning2KiBV1 or StackedDrg2KiBV1; sector_size 0 is
// "not set"), so they are not set here either.
function goRequest(fields) {
  const r = {};
  for (const [k, v] of Object.entries(fields)) {
    if (v === 0 || v === undefined || (v.length === 0)) continue;
    r[k] = v;
  }
  return r;
}

// fmt.Sprintf("%d", b) of a []byte: "[1 2 3]"; "%x": lower-case hex.
const goBytesD = (b) => `[${[...b].join(' ')}]`;
const goBytesX = (b) => Buffer.from(b).toString('hex');

// Go's json.Marshal of Curio's Commit1OutRaw (lib/proof/porep_vproof_types.go, merkle.go): the
// proof-share task unmarshals the C1 into it and marshals it again. Fields in the structs'
// order, maps by sorted key, [32]byte as arrays of numbers, Column's `_h` always written.
const goPath = (p) => ({
  path: p.path === null ? null : p.path.map((e) => ({ hashes: e.hashes, index: e.index })),
});
function goMerkle(m) {
  const d = m.data;
  const out = {};
  if (d.Single) {
    out.Single = { root: d.Single.root, leaf: d.Single.leaf, path: goPath(d.Single.path) };
  }
  if (d.Sub) {
    out.Sub = { base_proof: goPath(d.Sub.base_proof), sub_proof: goPath(d.Sub.sub_proof),
      root: d.Sub.root, leaf: d.Sub.leaf };
  }
  if (d.Top) {
    out.Top = { base_proof: goPath(d.Top.base_proof), sub_proof: goPath(d.Top.sub_proof),
      top_proof: goPath(d.Top.top_proof), root: d.Top.root, leaf: d.Top.leaf };
  }
  return { data: out };
}
const goColumn = (c) => ({
  column: { index: c.column.index, rows: c.column.rows, _h: c.column._h ?? null },
  inclusion_proof: goMerkle(c.inclusion_proof),
});
const goLabeling = (l) => ({ parents: l.parents, layer_index: l.layer_index, node: l.node });
const goStacked = (p) => ({
  comm_d_proofs: goMerkle(p.comm_d_proofs),
  comm_r_last_proof: goMerkle(p.comm_r_last_proof),
  replica_column_proofs: {
    c_x: goColumn(p.replica_column_proofs.c_x),
    drg_parents: p.replica_column_proofs.drg_parents.map(goColumn),
    exp_parents: p.replica_column_proofs.exp_parents.map(goColumn),
  },
  labeling_proofs: p.labeling_proofs.map(goLabeling),
  encoding_proof: goLabeling(p.encoding_proof),
});
function goC1(c1) {
  const vp = {};
  for (const k of Object.keys(c1.vanilla_proofs).sort()) {
    vp[k] = c1.vanilla_proofs[k].map((part) => part.map(goStacked));
  }
  return JSON.stringify({
    comm_d: c1.comm_d, comm_r: c1.comm_r, registered_proof: c1.registered_proof,
    replica_id: c1.replica_id, seed: c1.seed, ticket: c1.ticket, vanilla_proofs: vp,
  });
}

// wrapC1Output (lib/ffi/cuzk_funcs.go): Phase1Out is a []byte, so base64.
const wrapC1 = (c1Json, sectorNum, sectorSize) => Buffer.from(JSON.stringify({
  SectorNum: sectorNum, Phase1Out: Buffer.from(c1Json).toString('base64'), SectorSize: sectorSize,
}));

// ---- the sectors and their inputs --------------------------------------------------------------

const sectors = Object.fromEntries(
  JSON.parse(fs.readFileSync(path.join(REAL, 'sectors-2k.json'), 'utf8')).map((s) => [s.name, s]));
// The miner of a prover id: its ID address's payload, unsigned LEB128.
function minerOf(s) {
  const b = Buffer.from(s.prover_id, 'hex');
  let m = 0;
  for (let i = 0, shift = 1; i < b.length; i++, shift *= 128) {
    m += (b[i] & 0x7f) * shift;
    if (!(b[i] & 0x80)) break;
  }
  return m;
}

function run(bin, args, what) {
  const r = spawnSync(bin, args, { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`${what}: exit ${r.status}: ${(r.stderr || '').trim()}`);
  return r.stdout;
}

// The PoRep C1 (SealCommitPhase1Output, Rust's serde JSON) of a real sector.
function c1Of(s, seed, file) {
  const out = run(bench, ['gen-c1', '--registered-proof', String(s.registered_seal_proof),
    '--replica', path.join(REAL, s.realdata_files.replica), '--miner-id', String(minerOf(s)),
    '--sector-id', String(s.sector_id), '--ticket', s.ticket, '--comm-d', s.expected.comm_d,
    '--seed', seed.toString('hex'), '--bare', '-o', file], `gen-c1 ${s.name}`);
  check(out.includes(`replica_id ${s.expected.replica_id}`),
    `gen-c1 ${s.name}: the sector's real replica id`, out.trim());
  return fs.readFileSync(file, 'utf8');
}

// The PoSt vanilla proofs (one bincode FallbackPoStSectorProof per sector) of real sectors.
function postOf(registered, randomness, list, file) {
  const args = ['gen-post', '--registered-proof', String(registered), '--randomness',
    randomness.toString('hex'), '-o', file];
  for (const s of list) {
    args.push('--replica', path.join(REAL, s.realdata_files.replica), '--p-aux',
      path.join(REAL, s.realdata_files.p_aux), '--sector-id', String(s.sector_id));
  }
  run(bench, args, `gen-post ${registered}`);
  return JSON.parse(fs.readFileSync(file, 'utf8')).map((b) => Buffer.from(b, 'base64'));
}

// Synthetic SnapDeals entries of the update proof `registered` (one bincode PartitionProof per
// partition) and the sector's raw commitments; {refused: gen-vanilla's sentence} when it
// refuses.
function snapOf(registered, seed, file) {
  const r = spawnSync(bench, ['gen-vanilla', 'snap', '--registered-proof', String(registered),
    '--seed', String(seed), '-o', file], { encoding: 'utf8' });
  if (r.status !== 0) return { refused: (r.stderr || '').trim() };
  const hex = (name) => Buffer.from(r.stdout.match(new RegExp(`${name} ([0-9a-f]{64})`))[1], 'hex');
  return {
    entries: JSON.parse(fs.readFileSync(file, 'utf8')).map((b) => Buffer.from(b, 'base64')),
    comm_r_old: hex('comm_r_old'), comm_r_new: hex('comm_r_new'), comm_d_new: hex('comm_d_new'),
  };
}

// Curio's PoSt randomness: chain randomness with its top two bits cleared ("make into fr").
function postRandomness(label) {
  const r = createHash('sha256').update(label).digest();
  r[31] &= 0x3f;
  return r;
}

// ---- checking an answer ------------------------------------------------------------------------

const codeName = (err) => Object.keys(Status).find((k) => Status[k] === err.code);

// verify-fc of proof against van and the daemon's key: {rc, out}.
function verifyFc(van, proof, name) {
  const pf = path.join(dir, `${name}.proof`);
  fs.writeFileSync(pf, proof);
  const r = spawnSync(bench, ['verify-fc', '--vanilla', van, '--proof', pf, '--cache-dir', keys],
    { encoding: 'utf8' });
  return { rc: r.status, out: `${r.stdout}${r.stderr}` };
}

// The request of a PoRep caller: Curio's wrapper around a C1 of sector s.
const porepReq = (id, s, c1Json) => goRequest({
  request_id: id, proof_kind: 1, sector_size: s.sector_size,
  registered_proof: s.registered_seal_proof, priority: 'NORMAL',
  vanilla_proof: wrapC1(c1Json, s.sector_id, s.sector_size), sector_number: s.sector_id,
  miner_id: minerOf(s),
});

// The request of a SnapDeals caller (sn from snapOf); with no entries (gen-vanilla refused the
// sector size) a placeholder, since the registered proof alone then decides the answer.
const snapReq = (id, sector, sectorSize, sn) => goRequest({
  request_id: id, proof_kind: 2, sector_size: sectorSize, registered_proof: 0,
  priority: 'NORMAL', vanilla_proofs: sn.entries || [Buffer.alloc(32)], sector_number: sector,
  miner_id: 1000, comm_r_old: sn.comm_r_old, comm_r_new: sn.comm_r_new,
  comm_d_new: sn.comm_d_new,
});

// The request of a WindowPoSt partition of miner m.
const wdpostReq = (m, part, rnd, entries) => goRequest({
  request_id: `wdpost-${m}-${part}-${goBytesD(rnd.subarray(0, 8))}`, proof_kind: 3,
  sector_size: 2048, registered_proof: 10, priority: 'HIGH', vanilla_proofs: entries,
  miner_id: m, randomness: rnd, partition_index: part,
});

// Checks one answer: OK and COMPLETED with one partition's proof; then the request's bytes as
// the verifier reads them (curio_vanilla), their public values (expect: curio_vanilla's
// values, in its line's order), and verify-fc. Returns {proof, van} or null.
function checkAnswer(r, { err, res, ms }, n) {
  const id = r.submit.request_id;
  const what = `${r.caller} ${id}`;
  const refusal = err ? `${codeName(err)}: ${err.details}` : null;
  const out = res && res.result;
  const done = !err && out && out.status === 'COMPLETED' && out.job_id === id &&
    out.proof.length === 192 && out.error_message === '';
  if (!check(done, `${what}: COMPLETED, one 192-byte partition proof`, refusal || (out && {
    status: out.status, job_id: out.job_id, bytes: out.proof.length, error: out.error_message,
  }))) return null;
  console.log(`#   ${what}: ${secs(ms)} (daemon: total ${out.total_ms} ms, key ` +
    `${out.srs_load_ms} ms, prove ${out.gpu_compute_ms} ms)`);

  const s = r.submit;
  const input = path.join(dir, `${n}.in`);
  fs.writeFileSync(input, s.vanilla_proof || Buffer.concat(s.vanilla_proofs));
  const van = path.join(dir, `${n}.van`);
  const cv = spawnSync(curioVanilla, [r.kind, input, van, String(s.registered_proof || 0),
    String(s.miner_id || 0), String(s.sector_number || 0), String(s.partition_index || 0),
    s.randomness ? s.randomness.toString('hex') : '-'], { encoding: 'utf8' });
  const line = cv.stdout.trim();
  const values = line.split(' ').filter((_, k) => k >= 5 && k % 2 === 1);
  check(cv.status === 0 && JSON.stringify(values) === JSON.stringify(r.expect),
    `${what}: the public values are the sector's`,
    cv.status === 0 ? { line, expect: r.expect } : cv.stderr.trim());
  const v = verifyFc(van, out.proof, `${n}`);
  check(v.rc === 0 && /^partition 0: valid$/m.test(v.out) && !/invalid/.test(v.out),
    `${what}: verify-fc: valid`, v.out.trim());
  return { proof: out.proof, van };
}

async function main() {
  // Inputs: real sectors (two lotus sectors of miner 1000, api 1.1; a venus sector of miner
  // 106, api 1.0), Curio's randomness, synthetic SnapDeals sectors.
  const lotus0 = sectors['lotus-mir-t01000-0'];
  const lotus1 = sectors['lotus-mir-t01000-1'];
  const venus0 = sectors['venus-t0106-0'];
  const seed = createHash('sha256').update('curio interactive seed').digest();
  const c1 = c1Of(lotus1, seed, path.join(dir, 'porep.c1.json'));
  const psC1 = goC1(JSON.parse(c1Of(venus0, seed, path.join(dir, 'ps-porep.c1.json'))));
  check(psC1.startsWith('{"comm_d":[') && psC1.includes('"_h":null'),
    'the proof-share C1 is re-marshalled in Go\'s field order');
  const wdRand = postRandomness('curio window randomness');
  const winRand = postRandomness('curio winning randomness');
  const wd0 = postOf(10, wdRand, [lotus0, lotus1], path.join(dir, 'wdpost0.json'));
  const wd1 = postOf(10, wdRand, [venus0], path.join(dir, 'wdpost1.json'));
  const win = postOf(0, winRand, [lotus1], path.join(dir, 'winning.json'));
  const snap = snapOf(0, 1, path.join(dir, 'snap.json'));
  const psSnap = snapOf(0, 2, path.join(dir, 'ps-snap.json'));
  if (snap.refused) console.log(`# ${snap.refused}`);
  console.log(`# inputs made in ${secs(Date.now() - t0)}`);

  const snapValues = (sn) => sn.entries &&
    [sn.comm_r_old, sn.comm_r_new, sn.comm_d_new].map((b) => b.toString('hex'));
  const porepValues = (x) => [x.expected.replica_id, x.expected.comm_d, x.expected.comm_r];
  const req = {
    porep: { caller: 'PoRep', kind: 'porep', expect: porepValues(lotus1),
      submit: porepReq(`porep-1000-${lotus1.sector_id}`, lotus1, c1) },
    // the registered proof from the C1: a V1 sector's 0, and sector 0, both off the wire
    psPorep: { caller: 'proof-share PoRep', kind: 'porep', expect: porepValues(venus0),
      submit: porepReq(`ps-porep-106-${venus0.sector_id}-4711`, venus0, psC1) },
    snap: { caller: 'SnapDeals', kind: 'snap', expect: snapValues(snap),
      submit: snapReq('snap-1000-2', 2, 2048, snap) },
    // the proof-share task sets no sector_size
    psSnap: { caller: 'proof-share Snap', kind: 'snap', expect: snapValues(psSnap),
      submit: snapReq('ps-snap-1000-3-4712', 3, 0, psSnap) },
    wdpost0: { caller: 'WindowPoSt (2 sectors)', kind: 'wpost',
      expect: [`${lotus0.expected.comm_r},${lotus1.expected.comm_r}`],
      submit: wdpostReq(1000, 0, wdRand, wd0) },
    // a short partition, padded by the daemon; partition_index 1
    wdpost1: { caller: 'WindowPoSt (1 sector)', kind: 'wpost', expect: [venus0.expected.comm_r],
      submit: wdpostReq(106, 1, wdRand, wd1) },
    // registered_proof 0 is StackedDrgWinning2KiBV1, off the wire too
    winning: { caller: 'WinningPoSt', kind: 'winning', expect: [lotus1.expected.comm_r],
      submit: goRequest({
        request_id: `winpost-1000-${goBytesX(winRand.subarray(0, 8))}`, proof_kind: 4,
        sector_size: 2048, registered_proof: 0, priority: 'CRITICAL', vanilla_proofs: win,
        miner_id: 1000, randomness: winRand }) },
  };
  check(/^wdpost-1000-0-\[\d+( \d+){7}\]$/.test(req.wdpost0.submit.request_id) &&
    req.wdpost0.submit.request_id.endsWith(`-[${wdRand[0]} ${wdRand[1]} ${wdRand[2]} ` +
      `${wdRand[3]} ${wdRand[4]} ${wdRand[5]} ${wdRand[6]} ${wdRand[7]}]`),
  'the WindowPoSt id is Go\'s %d of a byte slice', req.wdpost0.submit.request_id);
  check(!('sector_size' in req.psSnap.submit) && !('registered_proof' in req.psSnap.submit) &&
    !('registered_proof' in req.psPorep.submit) && !('sector_number' in req.psPorep.submit) &&
    !('registered_proof' in req.winning.submit) && req.wdpost1.submit.partition_index === 1,
  'zero fields stay off the wire, as Go sends them');

  // ---- the daemon, as a storage provider runs it for a 2 KiB devnet ----------------------------
  const d = await startDaemon(daemonBin, `[daemon]
listen = "unix://${dir}/run/cuzk.sock"
shutdown = "cancel"
[srs]
param_cache = "${keys}"
# the 2 KiB circuits (the default allows the 32 GiB ones)
setup_allow = "porep:porep-c2-l2-d6-r2, snap:snap-c10-d6-r2-a8-p0, wpost:wpost-s2-r2, winning:winning-s66-r2"
[logging]
timeline = false
level = "${process.env.CUZK_TEST_VERBOSE ? 'debug' : 'info'}"
`, dir);
  daemon = d;
  d.client.close();
  // Curio's channel (lib/cuzk/client.go)
  d.curio = new cuzk.ProvingEngine(d.address, grpc.credentials.createInsecure(), {
    'grpc.max_send_message_length': 256 << 20,
    'grpc.max_receive_message_length': 256 << 20,
  });

  // ---- every caller at once, Prove only, Curio's 30-minute deadline ----------------------------
  const tSend = Date.now();
  const list = Object.values(req);
  const answers = await Promise.all(list.map((r) => new Promise((resolve) => {
    const started = Date.now();
    d.curio.Prove({ submit: r.submit }, { deadline: new Date(Date.now() + 30 * 60 * 1000) },
      (err, res) => resolve({ err, res, ms: Date.now() - started }));
  })));
  console.log(`# ${list.length} Prove calls answered in ${secs(Date.now() - tSend)}`);
  const got = {};
  Object.keys(req).forEach((k, n) => { got[k] = checkAnswer(req[k], answers[n], n); });

  // ---- the checks can fail: another request's inputs, a corrupted proof ------------------------
  if (got.porep && got.psPorep) {
    const v = verifyFc(got.psPorep.van, got.porep.proof, 'swapped');
    check(v.rc === 1 && /^partition 0: invalid$/m.test(v.out),
      'verify-fc refuses the PoRep proof for the proof-share sector\'s inputs', v.out.trim());
  }
  if (got.wdpost0) {
    const bad = Buffer.from(got.wdpost0.proof);
    bad[191] ^= 1; // C's last byte: a point that does not decode, or another point
    const v = verifyFc(got.wdpost0.van, bad, 'corrupted');
    check(v.rc === 1 && /^partition 0: invalid/m.test(v.out), 'verify-fc refuses a corrupted proof',
      v.out.trim());
  }
}

let daemon = null;
main()
  .catch((e) => check(false, 'the test ran to its end', e.stack || String(e)))
  .finally(async () => {
    if (daemon) {
      daemon.curio.close();
      const exit = await daemon.stop();
      check(exit && exit.code === 0, 'the daemon exits 0 after SIGTERM', exit);
    }
    fs.rmSync(dir, { recursive: true, force: true });
    console.log(`# whole test: ${secs(Date.now() - t0)}`);
    process.exit(summary('curio'));
  });
