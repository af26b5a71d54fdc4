/* The device-memory ledger: one per device, the one owner of its budget (gpus.vram_budget).
 * Every byte the CUDA backend keeps on the device is charged to one of its parts before it is
 * allocated and uncharged when it is freed, and every decision whether something fits is asked
 * of it, with the parts being replaced left out. It allocates nothing itself (the GPU modules
 * allocate what they were sized for); it is the device's account, as engine/budget.c is the
 * host's, so that its rules (what fits, what a refusal says) are tested on machines without a
 * GPU (tests/test_cuda_vram.c).
 *
 * Parts: KEYS (the resident keys: their points, rows, wire lists and folds), WORK (the work
 * objects: the NTT and MSM contexts without the presum space, the work area, the streamer) and
 * PRESUM (the MSM context's presum space, the one part that yields to the others: see the CUDA
 * backend's DESIGN).
 *
 * Invariants: a part never goes below zero (an uncharge of more than the part holds is a bug:
 * the part is set to zero and CUZK_EINVAL returned); the sum of the parts may exceed the limit
 * only after the limit was lowered below it (nothing is freed by that).
 *
 * Thread-safety: the owner changes it under its lock (the backend's dev_mu); the part and limit
 * reads are atomic, so status readers never wait. */
#ifndef CUZK_GROTH16_VRAM_H
#define CUZK_GROTH16_VRAM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

enum cuzk_vram_part { CUZK_VRAM_KEYS = 0, CUZK_VRAM_WORK = 1, CUZK_VRAM_PRESUM = 2 };
#define CUZK_VRAM_PARTS 3
/* A set of parts, for cuzk_vram_fits' `without`. */
#define CUZK_VRAM_BIT(p) (1u << (p))

struct cuzk_vram {
    _Atomic uint64_t limit;
    _Atomic uint64_t part[CUZK_VRAM_PARTS];
};

void cuzk_vram_init(struct cuzk_vram *v, uint64_t limit);
void cuzk_vram_set_limit(struct cuzk_vram *v, uint64_t limit);
uint64_t cuzk_vram_limit(const struct cuzk_vram *v);
uint64_t cuzk_vram_part(const struct cuzk_vram *v, enum cuzk_vram_part p);
/* The sum of the parts. */
uint64_t cuzk_vram_used(const struct cuzk_vram *v);

/* 1 when `more` bytes fit beside the parts charged, the parts in `without` (CUZK_VRAM_BIT
 * or'ed: those the caller is about to replace or free) not counted; else 0. */
int cuzk_vram_fits(const struct cuzk_vram *v, uint64_t more, unsigned without);

/* Part p += bytes; -= bytes (CUZK_EINVAL, the part set to 0, when it holds less); = bytes. */
void cuzk_vram_charge(struct cuzk_vram *v, enum cuzk_vram_part p, uint64_t bytes);
int cuzk_vram_uncharge(struct cuzk_vram *v, enum cuzk_vram_part p, uint64_t bytes);
void cuzk_vram_set(struct cuzk_vram *v, enum cuzk_vram_part p, uint64_t bytes);

/* The refusal of `need` bytes for `what` (a noun phrase: "a key", "the work space"), with the
 * budget and what each part holds: CUZK_EGPUOOM and err = "<what> needs N bytes of device
 * memory; the budget of L holds K of keys, W of work space and P of presum space". */
int cuzk_vram_refuse(const struct cuzk_vram *v, const char *what, uint64_t need, char *err,
                     size_t errlen);

/* One line for logs: "keys 37.95 GiB, work 37.17, presum 0.00 of 76.18 GiB". */
void cuzk_vram_describe(const struct cuzk_vram *v, char *buf, size_t len);

#endif
