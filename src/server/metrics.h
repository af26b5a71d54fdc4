/* Prometheus text exposition (format 0.0.4) of an engine status snapshot: served by GET /metrics
 * and returned by the GetMetrics RPC, so both always agree.
 *
 * Families (labels in braces; proof_kind is the engine's kind name, device the device index):
 *   cuzk_uptime_seconds                      gauge
 *   cuzk_proofs_{completed,failed,cancelled}_total            counter, all kinds
 *   cuzk_proofs_{completed,failed,cancelled}{proof_kind}      counter
 *   cuzk_proof_duration_seconds{proof_kind}  summary (_sum, _count) of completed jobs' total time
 *   cuzk_queue_depth{proof_kind,stage}       gauge, partitions queued; stage synthesis | gpu
 *   cuzk_partitions_in_progress{proof_kind}  gauge
 *   cuzk_jobs_live{proof_kind}, cuzk_running_jobs            gauge
 *   cuzk_gpu_busy_ratio{device,name}         gauge, busy / wall over the engine's window
 *   cuzk_gpu_busy_ratio_all                  gauge, all devices together
 *   cuzk_gpu_busy_seconds_total{device,name} counter
 *   cuzk_gpu_proofs_total{device,name}, cuzk_gpu_errors_total{device,name}  counter
 *   cuzk_gpu_in_flight{device,name}, cuzk_gpu_workers{device,name}          gauge
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
