#!/usr/bin/env python3
"""Writes a multiplication-chain circuit and its witness in circom's formats, without circom:

    scripts/gen_mulchain.py N OUT_DIR     ->  OUT_DIR/circuit.r1cs, OUT_DIR/witness.wtns

The circuit is the one tests/circom/mulchain.circom describes (v[i+1] = v[i]^2 + y, public
input y, public output v[N], private input x = v[0]), with the same wire order circom uses:
[1, out, y, x, v1 .. v(N-1)]. circom2 did not finish compiling a million-step chain in 20
minutes on two cores; this writes the same shape of .r1cs (version 1, sections 1, 2, 3) and
.wtns (version 2) in seconds, for the large prover benchmarks.
"""
import os
import struct
import sys

R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
X, Y = 5, 7


def section(sid, payload):
    return struct.pack("<IQ", sid, len(payload)) + payload


def fe(v):
    return (v % R).to_bytes(32, "little")


def main():
    n, out = int(sys.argv[1]), sys.argv[2]
    os.makedirs(out, exist_ok=True)
    n_wires = 4 + (n - 1)
    wire_v = lambda i: 3 if i == 0 else (1 if i == n else 3 + i)  # noqa: E731
    one, minus_one = fe(1), fe(R - 1)
    cons = bytearray()
    for i in range(n):
        v, nxt = struct.pack("<I", wire_v(i)), struct.pack("<I", wire_v(i + 1))
        cons += struct.pack("<I", 1) + v + one  # A = v_i
        cons += struct.pack("<I", 1) + v + one  # B = v_i
        cons += struct.pack("<I", 2) + nxt + one + struct.pack("<I", 2) + minus_one  # C = v_(i+1) - y
    header = struct.pack("<I", 32) + R.to_bytes(32, "little")
    header += struct.pack("<IIIIQI", n_wires, 1, 1, 1, n_wires, n)
    labels = b"".join(struct.pack("<Q", w) for w in range(n_wires))
    body = section(1, header) + section(2, bytes(cons)) + section(3, labels)
    with open(os.path.join(out, "circuit.r1cs"), "wb") as f:
        f.write(b"r1cs" + struct.pack("<II", 1, 3) + body)

    w = [0] * n_wires
    w[0], w[2], w[3] = 1, Y, X
    v = X
    for i in range(n):
        v = (v * v + Y) % R
        w[wire_v(i + 1)] = v
    wh = struct.pack("<I", 32) + R.to_bytes(32, "little") + struct.pack("<I", n_wires)
    body = section(1, wh) + section(2, b"".join(fe(x) for x in w))
    with open(os.path.join(out, "witness.wtns"), "wb") as f:
        f.write(b"wtns" + struct.pack("<II", 2, 2) + body)


if __name__ == "__main__":
    main()
