/* Keys from snarkjs .zkey files, as the zkey-based kinds (synthetic, snarkjs) hold them: a
 * struct cuzk_kind_key whose zkey member owns the arrays the pk views.
 * Thread-safety: functions on one key belong to its owner's thread. */
#ifndef CUZK_KINDS_ZKEY_KEY_H
#define CUZK_KINDS_ZKEY_KEY_H

#include <stdint.h>

#include "engine/kind.h"

/* Host bytes of a loaded zkey of these sizes (the arrays struct cuzk_zkey holds), its
 * prepared pk (CSR of the A/B coefficients) and vk: what key_sizes reports for a zkey. */
uint64_t cuzk_kind_zkey_bytes(uint32_t n_vars, uint32_t n_public, uint32_t domain_size,
                              uint64_t n_coefs);
/* Of those, the prepared pk's rows (CSR of A and B, row pointers of the three matrices): what
 * cuzk_kind_key_trim_zkey keeps when key->keep_rows. */
uint64_t cuzk_kind_zkey_rows_bytes(uint32_t domain_size, uint64_t n_coefs);
/* What of such a key stays after cuzk_kind_key_trim_zkey: IC twice (zkey and vk) and the vk. */
uint64_t cuzk_kind_zkey_hot_bytes(uint32_t n_public);

/* Fills key->pk and key->vk from key->zkey (already loaded). Returns CUZK_OK or CUZK_ENOMEM /
 * CUZK_EFORMAT (from cuzk_groth16_pk_prepare), freeing nothing on error but what it made. */
int cuzk_kind_key_prepare(struct cuzk_kind_key *key);
/* key_trim for zkey-based keys: frees the zkey's point and coefficient arrays and the pk's
 * prepared rows (the devices hold them); the header, IC and vk stay. */
void cuzk_kind_key_trim_zkey(struct cuzk_kind_key *key);
/* Frees zkey, pk and vk (not priv) and zeroes them. */
void cuzk_kind_key_release(struct cuzk_kind_key *key);

#endif
