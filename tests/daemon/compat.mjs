// The operator surface of the reference cuzk daemon, checked name by name against the list in
// shared/reference/cuzk-behaviour.md (sections 2.1, 2.7 and 2.10), so that a dashboard or a
// client made for cuzk works with ours unchanged: its Prometheus families (names, types, label
// sets, proof_kind label values), its /status JSON (every field, its type, its value names), its
// GetStatus fields and kind names, and its circuit ids in PreloadSRS / EvictSRS (each mapped to
// our profile, or refused with a reason naming the id). A missing name fails the test.
//   usage: node tests/daemon/compat.mjs <cuzk-daemon binary>
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  Status, startDaemon, call, getJson, getText, check, summary, sleep,
} from './lib.mjs';

const bin = path.resolve(process.argv[2] || '');
if (!process.argv[2] || !fs.existsSync(bin)) {
  console.error('usage: node tests/daemon/compat.mjs <cuzk-daemon binary>');
  process.exit(2);
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cuzk-compat-test-'));

// ---- the reference's names --------------------------------------------------------------------
const LABELS = ['porep_c2', 'snap_update', 'window_post', 'winning_post'];
const DISPLAY = ['porep-c2', 'snap-update', 'window-post', 'winning-post'];
// family -> [type, labelled by proof_kind]
const FAMILIES = {
  cuzk_proofs_completed_total: ['counter', false],
  cuzk_proofs_failed_total: ['counter', false],
  cuzk_uptime_seconds: ['gauge', false],
  cuzk_queue_depth: ['gauge', false],
  cuzk_proofs_completed: ['counter', true],
  cuzk_proofs_failed: ['counter', true],
  cuzk_proof_duration_seconds: ['summary', true],
  cuzk_running_jobs: ['gauge', false],
  cuzk_gpu_workers: ['gauge', false],
};
// the circuit ids of srs_manager, each with the key id it names here (null: no circuit here)
const IDS = {
  'porep-32g': 'porep:porep-c18',
  'snap-32g': 'snap:snap-c86',
  'wpost-32g': 'wpost:wpost-s2349',
  'winning-32g': 'winning:winning-s66',
  'porep-64g': null,
  'snap-64g': null,
};

const isInt = (x) => Number.isInteger(x);
const isNum = (x) => typeof x === 'number';
const isStr = (x) => typeof x === 'string';
const orNull = (f) => (x) => x === null || f(x);
// Checks that obj has every field of spec (name -> predicate); names the missing or mistyped.
function fields(obj, spec, what) {
  const bad = Object.keys(spec).filter((k) => !(obj && k in obj && spec[k](obj[k])));
  check(bad.length === 0, `${what}: ${Object.keys(spec).join(', ')}`,
    bad.length ? { missing_or_mistyped: bad, got: obj } : undefined);
}

// Prometheus text -> {families: name -> {type, help}, samples: [{name, labels, value}]}.
function parseProm(text) {
  const families = new Map();
  const samples = [];
  for (const line of text.split('\n')) {
    let m;
    if ((m = line.match(/^# (HELP|TYPE) (\S+) (.*)$/))) {
      const f = families.get(m[2]) || {};
      f[m[1].toLowerCase()] = m[3];
      families.set(m[2], f);
    } else if ((m = line.match(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$/))) {
      const labels = {};
      for (const l of (m[2] || '').slice(1, -1).split(',').filter(Boolean)) {
        const [k, v] = l.split('=');
        labels[k] = JSON.parse(v);
      }
      samples.push({ name: m[1], labels, value: Number(m[3]) });
    }
  }
  return { families, samples };
}

async function main() {
  const sock = path.join(dir, 'cuzk.sock');
  const d = await startDaemon(bin, `
[daemon]
listen = "unix://${sock}"
status_listen = "127.0.0.1:0"
[srs]
param_cache = "${path.join(dir, 'params')}"
setup_allow = "synthetic:*"
[memory]
total_budget = "2GiB"
[logging]
timeline = false
`, dir);
  const c = d.client;
  try {
    // ---- a job to show: live while /status is read, then completed ---------------------------
    let r = await call(c, 'SubmitProof', {
      request_id: 'compat-1', proof_kind: 0, vanilla_proofs: [Buffer.from('synthetic:4096x6')],
      sector_number: 3,
    });
    check(!r.err, 'a synthetic job is accepted', r.err && r.err.details);
    let live = null;
    for (let i = 0; i < 600 && !live; i++) {
      const s = await getJson(`${d.http}/status`);
      live = s.body.pipelines && s.body.pipelines.find((p) => p.job_id === 'compat-1' &&
        p.partitions.some((q) => q.state !== 'pending'));
      if (!live) await sleep(20);
    }
    check(live, '/status shows the job in pipelines with a partition started');
    if (live) {
      fields(live, {
        job_id: isStr, proof_kind: isStr, started_secs_ago: isNum, total_partitions: isInt,
        partitions_done: isInt, partitions: Array.isArray,
      }, '/status pipelines[]');
      check(live.proof_kind === 'synthetic' && live.total_partitions === 6,
        'pipelines[]: proof_kind and total_partitions', live);
      for (const p of live.partitions) {
        fields(p, { index: isInt, state: isStr, synth_ms: orNull(isInt), gpu_ms: orNull(isInt) },
          `/status pipelines[].partitions[${p.index}]`);
      }
      const states = new Set(['pending', 'synthesizing', 'synth_done', 'gpu', 'done', 'failed']);
      check(live.partitions.every((p) => states.has(p.state)),
        'partition states are pending|synthesizing|synth_done|gpu|done|failed',
        live.partitions.map((p) => p.state));
    }
    r = await call(c, 'AwaitProof', { job_id: 'compat-1', timeout_ms: 300000 });
    check(r.res && r.res.status === 'COMPLETED', 'the job completes', r.err ? r.err.details : r.res);

    // ---- /metrics -----------------------------------------------------------------------------
    const m = await getText(`${d.http}/metrics`);
    const prom = parseProm(m.body);
    for (const [name, [type, byKind]] of Object.entries(FAMILIES)) {
      const f = prom.families.get(name);
      check(f && f.type === type && f.help, `/metrics: ${name} (${type}) with # HELP and # TYPE`, f);
      const names = type === 'summary' ? [`${name}_sum`, `${name}_count`] : [name];
      for (const n of names) {
        const ss = prom.samples.filter((s) => s.name === n);
        if (byKind) {
          check(ss.length > 0 && ss.every((s) => Object.keys(s.labels).join() === 'proof_kind'),
            `/metrics: ${n} is labelled by proof_kind only`, ss);
          for (const l of LABELS) {
            check(ss.some((s) => s.labels.proof_kind === l), `/metrics: ${n}{proof_kind="${l}"}`);
          }
        } else {
          check(ss.length === 1 && Object.keys(ss[0].labels).length === 0,
            `/metrics: ${n} is one sample without labels`, ss);
        }
      }
    }
    const val = (n, l) => (prom.samples.find((s) => s.name === n &&
      (l === undefined || s.labels.proof_kind === l)) || {}).value;
    check(val('cuzk_proofs_completed_total') === 1 && val('cuzk_proofs_completed', 'synthetic') === 1 &&
          val('cuzk_proof_duration_seconds_count', 'synthetic') === 1,
    '/metrics: the completed job is counted');
    check(val('cuzk_queue_depth') === 0 && val('cuzk_running_jobs') === 0 && val('cuzk_gpu_workers') >= 1,
      '/metrics: queue depth, running jobs and workers mean what they mean in cuzk',
      [val('cuzk_queue_depth'), val('cuzk_running_jobs'), val('cuzk_gpu_workers')]);
    const engineNames = ['porep', 'snap', 'wpost', 'winning'];
    check(!prom.samples.some((s) => engineNames.includes(s.labels.proof_kind)),
      '/metrics: no proof_kind label holds an engine kind name that cuzk names otherwise');
    const gm = await call(c, 'GetMetrics', {});
    check(gm.res && Object.keys(FAMILIES).every((n) => gm.res.prometheus_text.includes(`# TYPE ${n} `)),
      'GetMetrics: the same families');

    // ---- /status ------------------------------------------------------------------------------
    const s = (await getJson(`${d.http}/status`)).body;
    fields(s, {
      uptime_secs: isNum, memory: (x) => typeof x === 'object', synthesis: (x) => typeof x === 'object',
      pipelines: Array.isArray, gpu_workers: Array.isArray, allocations: (x) => typeof x === 'object',
      counters: (x) => typeof x === 'object', buffers: (x) => typeof x === 'object',
    }, '/status top level');
    fields(s.memory, { total_bytes: isInt, used_bytes: isInt, available_bytes: isInt }, '/status memory');
    fields(s.synthesis, { max_concurrent: isInt, active: isInt }, '/status synthesis');
    check(s.gpu_workers.length >= 1, '/status gpu_workers lists the device workers', s.gpu_workers);
    for (const w of s.gpu_workers) {
      fields(w, {
        worker_id: isInt, gpu_ordinal: isInt, state: (x) => x === 'idle' || x === 'proving',
        current_job: orNull(isStr), current_partition: orNull(isInt), busy_secs: orNull(isNum),
      }, `/status gpu_workers[${w.worker_id}]`);
    }
    fields(s.allocations, { srs: Array.isArray, pce: Array.isArray }, '/status allocations');
    check(s.allocations.srs.length >= 1, '/status allocations.srs lists the loaded key');
    for (const a of s.allocations.srs) {
      fields(a, { circuit_id: isStr, bytes: isInt, last_used_secs_ago: isNum, evictable: (x) => typeof x === 'boolean' },
        `/status allocations.srs[${a.circuit_id}]`);
    }
    const byKind = (x) => x && typeof x === 'object' && Object.values(x).every(isInt);
    fields(s.counters, {
      total_completed: isInt, total_failed: isInt, completed_by_kind: byKind, failed_by_kind: byKind,
      queue_depth: isInt,
    }, '/status counters');
    check(s.counters.total_completed === 1 && s.counters.completed_by_kind.synthetic === 1,
      '/status counters: the completed job', s.counters);
    check(DISPLAY.every((k) => k in s.counters.completed_by_kind && k in s.counters.failed_by_kind),
      `/status counters by kind use cuzk's kind names (${DISPLAY.join(', ')})`, s.counters);
    fields(s.buffers, {
      synth_in_flight: isInt, provers_in_flight: isInt, aux_in_flight: isInt, shells_in_flight: isInt,
      pending_handles: isInt,
    }, '/status buffers');

    // ---- GetStatus ----------------------------------------------------------------------------
    r = await call(c, 'GetStatus', {});
    check(!r.err, 'GetStatus answers', r.err && r.err.details);
    const g = r.res || {};
    fields(g, {
      gpus: Array.isArray, loaded_srs: Array.isArray, queues: Array.isArray, total_proofs_completed: isInt,
      total_proofs_failed: isInt, uptime_seconds: isInt, pinned_memory_bytes: isInt,
      pinned_memory_limit_bytes: isInt,
    }, 'GetStatus');
    for (const x of g.gpus || []) {
      fields(x, {
        ordinal: isInt, name: isStr, vram_total_bytes: isInt, vram_free_bytes: isInt, current_job_id: isStr,
        current_proof_kind: isStr,
      }, 'GetStatus gpus[]');
    }
    for (const x of g.loaded_srs || []) {
      fields(x, { circuit_id: isStr, tier: isStr, size_bytes: isInt, ref_count: isInt }, 'GetStatus loaded_srs[]');
    }
    for (const x of g.queues || []) fields(x, { proof_kind: isStr, pending: isInt, in_progress: isInt }, 'GetStatus queues[]');
    const qk = (g.queues || []).map((q) => q.proof_kind);
    check(DISPLAY.every((k) => qk.includes(k)), `GetStatus queues name cuzk's kinds (${DISPLAY.join(', ')})`, qk);

    // ---- cuzk's circuit ids in PreloadSRS and EvictSRS ------------------------------------------
    for (const [id, ours] of Object.entries(IDS)) {
      const p = await call(c, 'PreloadSRS', { circuit_id: id });
      const e = await call(c, 'EvictSRS', { circuit_id: id });
      if (ours) {
        // srs.setup_allow = "synthetic:*": the key is named and refused before any work is done
        check(p.err && p.err.code === Status.PERMISSION_DENIED && p.err.details.includes(`${id} = ${ours}`),
          `PreloadSRS ${id}: resolved to ${ours} (PERMISSION_DENIED here: no setup allowed)`,
          p.err ? p.err.details : p.res);
        check(e.res && e.res.was_loaded === false && e.res.freed_bytes === 0,
          `EvictSRS ${id}: OK, not loaded`, e.err ? e.err.details : e.res);
      } else {
        for (const [what, x] of [['PreloadSRS', p], ['EvictSRS', e]]) {
          check(x.err && x.err.code === Status.NOT_FOUND && x.err.details.includes(`"${id}"`) &&
                x.err.details.includes('8-8-2'),
          `${what} ${id}: NOT_FOUND, naming the id and why`, x.err ? x.err.details : x.res);
        }
      }
    }
    for (const id of ['porep-16g', 'porep32g', 'wpost-64g', '']) {
      const p = await call(c, 'PreloadSRS', { circuit_id: id });
      check(p.err && p.err.code === Status.INVALID_ARGUMENT && p.err.details.includes(`"${id}"`) &&
            p.err.details.includes('porep-32g'),
      `PreloadSRS "${id}": INVALID_ARGUMENT naming the id and the known ones`, p.err ? p.err.details : p.res);
    }
    r = await call(c, 'GetStatus', {});
    check(!r.err, 'the daemon still serves');
  } finally {
    d.proc.kill('SIGTERM');
    const ex = await d.exited;
    check(ex.code === 0, 'the daemon exits 0 after SIGTERM', ex);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().then(() => process.exit(summary('daemon_compat')), (e) => {
  console.error(e);
  process.exit(1);
});
