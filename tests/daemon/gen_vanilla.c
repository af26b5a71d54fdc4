/* Writes a Filecoin vanilla-proof file of a (small) profile for the daemon test:
 *   gen_vanilla <profile> <seed> <out>      e.g. gen_vanilla winning-s1-r1 7 winning.bin
 * Exit 0 on success, 1 with a message otherwise. */
#include <stdio.h>
#include <stdlib.h>

#include "cuzk/error.h"
#include "filecoin/tools.h"

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: gen_vanilla <profile> <seed> <out>\n");
        return 1;
    }
    char err[256] = "";
    struct cuzk_vanilla_gen_info info;
    int rc = cuzk_vanilla_generate(argv[1], 0, strtoull(argv[2], NULL, 10), argv[3], &info, err,
                                   sizeof err);
    if (rc != CUZK_OK) {
        fprintf(stderr, "gen_vanilla: %s\n", err[0] ? err : cuzk_strerror(rc));
        return 1;
    }
    printf("%s %u\n", info.profile, info.partitions);
    return 0;
}
