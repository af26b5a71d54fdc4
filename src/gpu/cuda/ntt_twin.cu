// The GPU NTT's host twin (contract: src/gpu/gpu_twin.h): the kernels' bodies (ntt_impl.cuh)
// run on the host, thread by thread, with the field checks' body for cuzk_gpu_twin_fr.
#include "gpu/cuda/ntt_impl.cuh"

// ---- host twin (gpu_twin.h) -----------------------------------------------------------------

extern "C" int cuzk_gpu_twin_fr(enum cuzk_gpu_fr_op op, const cuzk_fr *a, const cuzk_fr *b,
                                cuzk_fr *out, size_t n) {
    if (op < CUZK_GPU_FR_ADD || op > CUZK_GPU_FR_NEG ||
        (n && (!a || !out || (!b && op != CUZK_GPU_FR_SQR && op != CUZK_GPU_FR_NEG))))
        return CUZK_EINVAL;
    const fr_mem *fa = reinterpret_cast<const fr_mem *>(a);
    const fr_mem *fb = reinterpret_cast<const fr_mem *>(b ? b : a);
    for (size_t i = 0; i < n; i++) fr_eval_at(op, fa, fb, reinterpret_cast<fr_mem *>(out), i);
    return CUZK_OK;
}

// What the twin watches while it runs a block's phases: every tile access is noted with the
// thread making it. Within one phase (between two barriers) a slot must be touched by one
// thread only: a second thread reading or writing it would race on the device, where the
// phase's threads run concurrently (the twin, running them in turn, would hide that). And the
// k-th access of the threads of a quarter warp (lanes 8q .. 8q + 7: the threads whose 16-byte
// words one shared-memory wavefront serves) should fall in 8 different 16-byte bank groups
// (slot mod 8; plane1 repeats plane0's pattern, the tile size being a multiple of 8); each
// access to a group already used counts one collision.
struct twin_check {
    uint32_t *owner; // per slot: 1 + the thread that touched it in this phase, 0: none
    uint32_t *count; // per thread: its accesses so far in this phase
    uint8_t *banks;  // per (quarter warp, access number): bank groups used
    uint32_t kmax;   // access numbers per quarter warp in banks
    uint32_t tid;    // the thread running
    uint64_t races, accesses, collisions;
    CUZK_HD void note(uint32_t s) {
        if (owner[s] != 0 && owner[s] != tid + 1) races++;
        owner[s] = tid + 1;
        const uint32_t k = count[tid]++;
        uint8_t &used = banks[static_cast<size_t>(tid / 8) * kmax + (k < kmax ? k : kmax - 1)];
        const uint8_t bit = static_cast<uint8_t>(1u << (s & 7));
        if (used & bit) collisions++;
        used |= bit;
        accesses++;
    }
};

// The kernel's tile accessors on host memory, each access noted.
struct twin_tile {
    dev_tile mem;
    twin_check *chk;
    CUZK_HD fr_t get(uint32_t s) const {
        chk->note(s);
        return mem.get(s);
    }
    CUZK_HD void put(uint32_t s, const fr_t &v) const {
        chk->note(s);
        mem.put(s, v);
    }
};

// Runs one launch the way the device does: for each block, each phase for every thread in
// turn, a barrier (the end of a phase's loop) clearing the per-phase records.
static void twin_pass(const pass_launch &l, twin_check &chk) {
    const uint32_t elems = static_cast<uint32_t>(l.smem / sizeof(fr_mem));
    std::vector<uint4> sm(2 * static_cast<size_t>(elems));
    std::vector<uint32_t> owner(elems), count(l.threads);
    chk.kmax = 2 * elems + 2; // above any thread's accesses in a phase
    std::vector<uint8_t> banks(static_cast<size_t>((l.threads + 7) / 8) * chk.kmax);
    chk.owner = owner.data();
    chk.count = count.data();
    chk.banks = banks.data();
    const auto barrier = [&]() {
        std::fill(owner.begin(), owner.end(), 0);
        std::fill(count.begin(), count.end(), 0);
        std::fill(banks.begin(), banks.end(), 0);
    };
    const int nsteps = pass_nsteps(l.a.g, l.a.last);
    for (unsigned blk = 0; blk < l.blocks; blk++) {
        const pass_block b(l.a, blk);
        const twin_tile t = {{sm.data(), sm.data() + elems}, &chk};
        for (chk.tid = 0; chk.tid < l.threads; chk.tid++) b.load(t, chk.tid, l.threads);
        barrier();
        for (int k = 0; k < nsteps; k++) {
            for (chk.tid = 0; chk.tid < l.threads; chk.tid++) b.step(t, k, chk.tid, l.threads);
            barrier();
        }
        for (chk.tid = 0; chk.tid < l.threads; chk.tid++) b.store(t, chk.tid, l.threads);
        barrier();
    }
}

extern "C" int cuzk_gpu_twin_ntt(cuzk_fr *data, int log_n, enum cuzk_gpu_ntt_kind kind,
                                 const cuzk_fr *shift, int log_block, int log_cols, int threads,
                                 struct cuzk_gpu_twin_ntt_report *report) {
    if (log_block == 0) {
        log_block = NTT_LOG_BLOCK;
        log_cols = -1;
        threads = NTT_THREADS;
    }
    const bool coset = kind_shifted(kind);
    if (!data || log_n < 1 || log_n > CUZK_GPU_TWIN_NTT_MAX_LOG || kind < CUZK_GPU_NTT_FORWARD ||
        kind > CUZK_GPU_NTT_INVERSE_TO_COSET || (coset && (!shift || cuzk_fr_is_zero(shift))) ||
        !shape_ok(log_block, log_cols, threads))
        return CUZK_EINVAL;
    // the context's tables for max_log = log_n, built by the kernels' bodies
    const size_t n = static_cast<size_t>(1) << log_n, half = n / 2;
    const size_t s_hi_len = n >> SHIFT_LO_LOG ? n >> SHIFT_LO_LOG : 1;
    std::vector<fr_mem> tw(n), scratch(n), s_lo(SHIFT_LO_N), s_hi(s_hi_len);
    cuzk_fr omega;
    cuzk_fr_root_of_unity(&omega, log_n);
    const fr_t one = cuzk_cuda::fr_one();
    const size_t hi_len = (half + SHIFT_LO_N - 1) / SHIFT_LO_N;
    for (size_t j = 0; j < SHIFT_LO_N; j++) pow_table_at(s_lo.data(), to_dev(omega), 1, one, j);
    for (size_t j = 0; j < hi_len; j++)
        pow_table_at(s_hi.data(), to_dev(omega), SHIFT_LO_N, one, j);
    for (size_t i = 0; i < half; i++) twiddle_top_at(tw.data() + half, s_hi.data(), s_lo.data(), i);
    for (size_t e = 0; e < half; e++) twiddle_lower_at(tw.data(), half, e);
    if (coset) {
        fr_t t, c;
        shift_params(log_n, shift, kind, &t, &c);
        for (size_t j = 0; j < SHIFT_LO_N; j++) pow_table_at(s_lo.data(), t, 1, one, j);
        for (size_t j = 0; j < (n + SHIFT_LO_N - 1) / SHIFT_LO_N; j++)
            pow_table_at(s_hi.data(), t, SHIFT_LO_N, c, j);
    }
    pass_launch l[CUZK_GPU_NTT_MAX_LOG + 1];
    const int np =
        plan_transform(reinterpret_cast<fr_mem *>(data), scratch.data(), tw.data(), s_lo.data(),
                       s_hi.data(), log_n, kind, log_block, log_cols, threads, l);
    twin_check chk = {};
    for (int p = 0; p < np; p++) twin_pass(l[p], chk);
    if (report) {
        report->passes = np;
        report->races = chk.races;
        report->accesses = chk.accesses;
        report->collisions = chk.collisions;
    }
    return CUZK_OK;
}
