#include "cuzk/error.h"

const char *cuzk_strerror(int err) {
    switch (err) {
    case CUZK_OK: return "success";
    case CUZK_EINVAL: return "invalid argument";
    case CUZK_ENOMEM: return "out of host memory";
    case CUZK_EIO: return "input/output error";
    case CUZK_EFORMAT: return "malformed input";
    case CUZK_ENONCANON: return "field element not below its modulus";
    case CUZK_ENOTONCURVE: return "point not on the curve";
    case CUZK_ENOTINSUBGROUP: return "point not in the prime-order subgroup";
    case CUZK_EFLAGS: return "inconsistent point encoding flags";
    case CUZK_ENOSQRT: return "no square root exists";
    case CUZK_EUNSUPPORTED: return "unsupported";
    case CUZK_ENODEV: return "no usable GPU";
    case CUZK_EGPU: return "GPU call failed";
    case CUZK_EGPUOOM: return "out of GPU memory";
    case CUZK_ETIMEOUT: return "timed out";
    case CUZK_ECANCELLED: return "cancelled";
    case CUZK_ENOTFOUND: return "not found";
    case CUZK_EEXIST: return "already exists";
    case CUZK_EBUSY: return "busy";
    case CUZK_ESHUTDOWN: return "shutting down";
    case CUZK_EVERIFY: return "proof verification failed";
    case CUZK_ERANGE: return "value out of range";
    default: return "unknown error";
    }
}
