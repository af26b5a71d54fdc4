#!/bin/bash
# cuzk-bench sector-commit on a real sealed sector (tests/data/realdata): the five lines equal
# the values of sectors-2k.json, with and without --data; a wrong --comm-d exits 1 (the replica
# was not sealed from those inputs); bad input exits 2 or 3 with a message, never a crash.
# usage: sector_commit.sh CUZK_BENCH_BINARY
set -u
bench=$1
dir=$(cd "$(dirname "$0")" && pwd)/data/realdata
tmp=$(mktemp -d /tmp/cuzk_sector_commit.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# lotus-mir-t01000-1 (api 1.1) and venus-t0106-0 (api 1.0), inputs as in sectors-2k.json
ticket=79ac3dd7defaad6d40e033a1c89124df3cbefdf072868b1924e562f0d4204189
lotus=(--replica "$dir/lotus-mir-t01000-1.sealed" --sector-size 2048
       --porep-id 0500000000000000000000000000000000000000000000000000000000000000
       --prover-id e807000000000000000000000000000000000000000000000000000000000000
       --sector-id 1 --ticket $ticket --api 1.1)
lotus_comm_d=40dacdaed73bc8f0f32b40e933787f44d86026ff8da3b3c05b9979ebaceced06
lotus_want="replica_id 5369798cb376b2e2cafab4d595f30bf5c20e8bff4070fcdc328cddb8eddd451b
comm_c 0abd30cc017ca3645159ccc53bd54ed8147fbd5254e3685d8c61059ccfa9401e
comm_r_last f8c92aacab215b9d2f83674e59f260b73830e2af8ddd9b5438cb359df2fedc32
comm_r 89582b7170c3551ab81417324630646e03f0911f16f3ff8d82a591742233e663
comm_d_of_data $lotus_comm_d"
venus=(--replica "$dir/venus-t0106-0.sealed" --sector-size 2048
       --porep-id 0000000000000000000000000000000000000000000000000000000000000000
       --prover-id 6a00000000000000000000000000000000000000000000000000000000000000
       --sector-id 0 --ticket $ticket --api 1.0)
venus_comm_d=2d8cd21509618ffea50330291ea4a23523e1e3a5f74ceed0dd66bd327bf51a21
venus_want="replica_id 61f89482291a9dd662e9232342fbe197fb999de622060bbe5284bf4e020fe012
comm_c e9350a1119790bec053bf22023cb64528f1a0663d29c7a30e4f0748fbd0cd82f
comm_r_last dbdb6c12b571ac6dcbf370eaf8e8f762d3ab04d1f680957789aaa98b4b901c21
comm_r 6500105a4dd7673f82730262d8dcffe9edccd3cbceac7bd3c943696a09071257
comm_d_of_data $venus_comm_d"

# expect CODE DESCRIPTION ARGS...: runs the tool, checks the exit code, keeps its output
expect() {
    local code=$1 what=$2
    shift 2
    "$bench" sector-commit "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ $rc -ne "$code" ]; then
        fail "$what: exit $rc, want $code"
        sed 's/^/  stderr: /' "$tmp/err"
    elif [ "$code" -ge 2 ] && ! grep -q "cuzk-bench" "$tmp/err"; then
        fail "$what: exit $rc without a message"
    fi
}

expect 0 "lotus sector" "${lotus[@]}" --comm-d $lotus_comm_d
[ "$(cat "$tmp/out")" = "$lotus_want" ] || { fail "lotus output"; diff <(echo "$lotus_want") "$tmp/out"; }
expect 0 "venus sector" "${venus[@]}" --comm-d $venus_comm_d
[ "$(cat "$tmp/out")" = "$venus_want" ] || { fail "venus output"; diff <(echo "$venus_want") "$tmp/out"; }

# --data names the unsealed data instead of replica - labels (test_fc_real checks it with the
# sector's real data); other data (here the replica's own bytes) has another comm_d
expect 1 "--data that is not the sector's" "${lotus[@]}" --comm-d $lotus_comm_d \
    --data "$dir/lotus-mir-t01000-1.sealed"
# a wrong comm_d: another replica id, other labels, other data
wrong=${lotus_comm_d:0:63}7
expect 1 "wrong --comm-d" "${lotus[@]}" --comm-d $wrong
grep -q "not sealed from these inputs" "$tmp/err" || fail "wrong --comm-d: no explanation"
grep -q "^comm_r_last f8c92aac" "$tmp/out" || fail "wrong --comm-d: tree R is the replica's"
# the wrong api: other parents
expect 1 "wrong --api" "${lotus[@]/1.1/1.0}" --comm-d $lotus_comm_d

# bad input
expect 2 "bad hex" "${lotus[@]}" --comm-d "zz${lotus_comm_d:2}"
expect 2 "short hex" "${lotus[@]}" --comm-d 40dacd
expect 2 "missing option" --replica "$dir/lotus-mir-t01000-1.sealed" --sector-size 2048
expect 2 "bad api" "${lotus[@]}" --api 2.0 --comm-d $lotus_comm_d
expect 2 "bad sector id" "${lotus[@]}" --sector-id -1 --comm-d $lotus_comm_d
expect 3 "missing replica" "${lotus[@]}" --replica "$tmp/none" --comm-d $lotus_comm_d
expect 3 "unknown sector size" "${lotus[@]}" --sector-size 3000 --comm-d $lotus_comm_d
expect 3 "too large a sector" "${lotus[@]}" --sector-size 34359738368 --comm-d $lotus_comm_d
head -c 1024 "$dir/lotus-mir-t01000-1.sealed" >"$tmp/short"
expect 3 "short replica" "${lotus[@]}" --replica "$tmp/short" --comm-d $lotus_comm_d
head -c 4096 /dev/zero >"$tmp/long"
expect 3 "long replica" "${lotus[@]}" --replica "$tmp/long" --comm-d $lotus_comm_d
head -c 2048 /dev/zero | tr '\0' '\377' >"$tmp/ff"
expect 3 "replica nodes >= r" "${lotus[@]}" --replica "$tmp/ff" --comm-d $lotus_comm_d
expect 3 "a directory" "${lotus[@]}" --replica "$tmp" --comm-d $lotus_comm_d

if [ $fails -ne 0 ]; then
    echo "sector_commit: $fails failed"
    exit 1
fi
echo "sector_commit: ok"
