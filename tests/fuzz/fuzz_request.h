/* The methods fuzz_request drives, in the order its input's first byte picks them (byte % 7):
 * shared with fuzz_seeds, which writes request seeds in that form. */
#ifndef CUZK_TESTS_FUZZ_REQUEST_H
#define CUZK_TESTS_FUZZ_REQUEST_H

enum fuzz_method { M_SUBMIT, M_AWAIT, M_PROVE, M_CANCEL, M_STATUS, M_METRICS, M_EVICT, M_COUNT };

static const char *const fuzz_method_path[M_COUNT] = {
    "/cuzk.v1.ProvingEngine/SubmitProof", "/cuzk.v1.ProvingEngine/AwaitProof",
    "/cuzk.v1.ProvingEngine/Prove",       "/cuzk.v1.ProvingEngine/CancelProof",
    "/cuzk.v1.ProvingEngine/GetStatus",   "/cuzk.v1.ProvingEngine/GetMetrics",
    "/cuzk.v1.ProvingEngine/EvictSRS",
};

#endif
