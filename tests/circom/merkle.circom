pragma circom 2.0.0;

include "poseidon.circom";

// A Poseidon Merkle inclusion path of depth D: the leaf is hashed with its siblings, left or
// right as the index bits say, up to the root (public output).
template MerklePath(D) {
    signal input leaf;
    signal input siblings[D];
    signal input index[D];
    signal output root;

    signal cur[D + 1];
    signal left[D];
    signal right[D];
    component h[D];
    cur[0] <== leaf;
    for (var i = 0; i < D; i++) {
        index[i] * (1 - index[i]) === 0;
        left[i] <== cur[i] + index[i] * (siblings[i] - cur[i]);
        right[i] <== siblings[i] + cur[i] - left[i];
        h[i] = Poseidon(2);
        h[i].inputs[0] <== left[i];
        h[i].inputs[1] <== right[i];
        cur[i + 1] <== h[i].out;
    }
    root <== cur[D];
}
