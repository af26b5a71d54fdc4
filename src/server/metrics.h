/* Prometheus text exposition (format 0.0.4) of an engine status snapshot: served by GET /metrics
 * and returned by the GetMetrics RPC, so both always agree.
 *
 * Every family of the reference cuzk daemon is here with its name, type, labels and meaning, so
 * that its dashboards work unchanged; proof_kind is its label value (porep_c2, snap_update,
 * window_post, winning_post; the kinds it does not have: the engine's kind name). Families
 * (labels in braces; device the device index):
 *   the reference's:
 *   cuzk_uptime_seconds                      gauge
 *   cuzk_proofs_{completed,failed}_total     counter, all kinds
 *   cuzk_proofs_{completed,failed}{proof_kind}                counter
 *   cuzk_proof_duration_seconds{proof_kind}  summary (_sum, _count) of completed jobs' total time
 *   cuzk_queue_depth                         gauge, jobs queued with no partition started
 *   cuzk_running_jobs                        gauge, device workers holding a partition
 *   cuzk_gpu_workers                         gauge, device workers of all devices
 *   ours:
 *   cuzk_proofs_cancelled_total, cuzk_proofs_cancelled{proof_kind}      counter
 *   cuzk_partitions_queued{proof_kind,stage} gauge, partitions queued; stage synthesis | gpu
 *   cuzk_partitions_in_progress{proof_kind}  gauge
 *   cuzk_jobs_live{proof_kind}, cuzk_jobs_live_all                      gauge
 *   cuzk_gpu_busy_ratio{device,name}         gauge, busy / wall over the engine's window
 *   cuzk_gpu_busy_ratio_all                  gauge, all devices together
 *   cuzk_gpu_busy_seconds_total{device,name} counter
 *   cuzk_gpu_proofs_total{device,name}, cuzk_gpu_errors_total{device,name}  counter
 *   cuzk_gpu_in_flight{device,name}, cuzk_gpu_device_workers{device,name}   gauge
 *   cuzk_memory_budget_bytes, cuzk_memory_used_bytes, cuzk_memory_available_bytes  gauge
 *   cuzk_memory_used_by_owner_bytes{owner}, cuzk_memory_waiters               gauge
 *   cuzk_srs_bytes{proof_kind,circuit_id,tier}                                 gauge
 * Thread-safety: pure function of its argument. */
#ifndef CUZK_SERVER_METRICS_H
#define CUZK_SERVER_METRICS_H

#include <stddef.h>

#include "cuzk/engine.h"

/* Returns the text (malloc'd, NUL-terminated, *len bytes without the NUL) or NULL when out of
 * memory. */
char *cuzk_metrics_render(const struct cuzk_engine_status *s, size_t *len);

#endif
