pragma circom 2.0.0;

// A tiny test circuit for the snarkjs format fixtures: one output, one public input, one
// private input, a few multiplications and one linear constraint.
template Tiny() {
    signal input x;
    signal input y;
    signal output out;
    signal t;
    signal u;
    signal v;
    t <== x * x;
    u <== t * y;
    v <== u * x + y;
    out <== 3 * v + 2 * x + 7;
}

component main {public [y]} = Tiny();
