/* cuzk error codes: the one error enum of the project.
 *
 * Contract: every fallible cuzk function returns int: CUZK_OK (0) on success or one of the
 * negative codes below. cuzk_strerror() maps any int to a static, human-readable string and
 * never returns NULL. Codes are stable: scripts and clients may rely on their values.
 * Thread-safety: all functions here are pure and thread-safe. */
#ifndef CUZK_ERROR_H
#define CUZK_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

enum cuzk_err {
    CUZK_OK = 0,
    CUZK_EINVAL = -1,         /* an argument is out of its documented domain */
    CUZK_ENOMEM = -2,         /* host memory could not be allocated */
    CUZK_EIO = -3,            /* a read, write or open failed (see errno) */
    CUZK_EFORMAT = -4,        /* malformed input: truncated, bad magic, bad size or layout */
    CUZK_ENONCANON = -5,      /* an encoded field element is not below its modulus */
    CUZK_ENOTONCURVE = -6,    /* an encoded point does not satisfy the curve equation */
    CUZK_ENOTINSUBGROUP = -7, /* an encoded point is on the curve but not in the r-order group */
    CUZK_EFLAGS = -8,         /* the flag bits of a point encoding are inconsistent */
    CUZK_ENOSQRT = -9,        /* no square root exists (e.g. an x with no curve point) */
    CUZK_EUNSUPPORTED = -10,  /* a valid input asks for something cuzk does not do */
    CUZK_ENODEV = -11,        /* no usable GPU */
    CUZK_EGPU = -12,          /* a GPU call failed */
    CUZK_EGPUOOM = -13,       /* GPU memory is exhausted */
    CUZK_ETIMEOUT = -14,      /* a wait ran past its deadline; the work itself is unharmed */
    CUZK_ECANCELLED = -15,    /* the work was cancelled */
    CUZK_ENOTFOUND = -16,     /* no such job, key or entry */
    CUZK_EEXIST = -17,        /* the entry exists already */
    CUZK_EBUSY = -18,         /* the resource is in use */
    CUZK_ESHUTDOWN = -19,     /* the service is shutting down */
    CUZK_EVERIFY = -20,       /* a proof failed verification */
    CUZK_ERANGE = -21,        /* a number does not fit where it must go */
};

/* Returns a static description of err (any int; unknown codes get a generic string). */
const char *cuzk_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif
