pragma circom 2.0.0;

// A multiplication chain of N steps, v[i+1] = v[i]^2 + y: one constraint per step, so N sets
// the constraint count exactly and the witness is made of full-size field elements.
template MulChain(N) {
    signal input x;
    signal input y;
    signal output out;
    signal v[N + 1];
    v[0] <== x;
    for (var i = 0; i < N; i++) {
        v[i + 1] <== v[i] * v[i] + y;
    }
    out <== v[N];
}
