pragma circom 2.0.0;

include "sha256/sha256.circom";

// SHA-256 of NBITS message bits (circomlib's gadget; field independent, so the digest is the
// standard one even over BLS12-381).
template Sha256Of(NBITS) {
    signal input in[NBITS];
    signal output out[256];
    component h = Sha256(NBITS);
    for (var i = 0; i < NBITS; i++) h.in[i] <== in[i];
    for (var i = 0; i < 256; i++) out[i] <== h.out[i];
}
