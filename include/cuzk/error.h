/* cuzk error codes: the one error enum of the project.
 *
 * Contract: every fallible cuzk function returns int: CUZK_OK (0) on success or one of the
 * negative codes below. cuzk_strerror() maps any int to a static, human-readable string and
 * never returns NULL. Codes are stable: scripts and clients may rely on their values.
 *
 * One list (CUZK_ERRORS) yields the enum, the strings and the gRPC status each code maps to
 * (the last column: a google.rpc.Code name; the server pastes it onto its CUZK_RPC_ prefix),
 * so that a new code cannot be added to one of them and forgotten in the others.
 * Thread-safety: all functions here are pure and thread-safe. */
#ifndef CUZK_ERROR_H
#define CUZK_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* X(name, value, description, gRPC status) */
#define CUZK_ERRORS(X)                                                                             \
    X(CUZK_OK, 0, "success", OK)                                                                   \
    /* an argument is out of its documented domain */                                              \
    X(CUZK_EINVAL, -1, "invalid argument", INVALID_ARGUMENT)                                       \
    /* host memory could not be allocated, or a memory budget cannot hold a request */             \
    X(CUZK_ENOMEM, -2, "out of host memory", RESOURCE_EXHAUSTED)                                   \
    /* a read, write or open failed (see errno) */                                                 \
    X(CUZK_EIO, -3, "input/output error", INTERNAL)                                                \
    /* malformed input: truncated, bad magic, bad size or layout */                                \
    X(CUZK_EFORMAT, -4, "malformed input", INVALID_ARGUMENT)                                       \
    /* an encoded field element is not below its modulus */                                        \
    X(CUZK_ENONCANON, -5, "field element not below its modulus", INVALID_ARGUMENT)                 \
    /* an encoded point does not satisfy the curve equation */                                     \
    X(CUZK_ENOTONCURVE, -6, "point not on the curve", INVALID_ARGUMENT)                            \
    /* an encoded point is on the curve but not in the r-order group */                            \
    X(CUZK_ENOTINSUBGROUP, -7, "point not in the prime-order subgroup", INVALID_ARGUMENT)          \
    /* the flag bits of a point encoding are inconsistent */                                       \
    X(CUZK_EFLAGS, -8, "inconsistent point encoding flags", INVALID_ARGUMENT)                      \
    /* no square root exists (e.g. an x with no curve point) */                                    \
    X(CUZK_ENOSQRT, -9, "no square root exists", INVALID_ARGUMENT)                                 \
    /* a valid input asks for something cuzk does not do */                                        \
    X(CUZK_EUNSUPPORTED, -10, "unsupported", UNIMPLEMENTED)                                        \
    X(CUZK_ENODEV, -11, "no usable GPU", UNAVAILABLE)                                              \
    X(CUZK_EGPU, -12, "GPU call failed", INTERNAL)                                                 \
    /* GPU memory is exhausted, or a device's memory budget cannot hold a key */                   \
    X(CUZK_EGPUOOM, -13, "out of GPU memory", RESOURCE_EXHAUSTED)                                  \
    /* a wait ran past its deadline; the work itself is unharmed */                                \
    X(CUZK_ETIMEOUT, -14, "timed out", DEADLINE_EXCEEDED)                                          \
    X(CUZK_ECANCELLED, -15, "cancelled", CANCELLED)                                                \
    X(CUZK_ENOTFOUND, -16, "not found", NOT_FOUND)                                                 \
    X(CUZK_EEXIST, -17, "already exists", ALREADY_EXISTS)                                          \
    X(CUZK_EBUSY, -18, "busy", FAILED_PRECONDITION)                                                \
    X(CUZK_ESHUTDOWN, -19, "shutting down", UNAVAILABLE)                                           \
    X(CUZK_EVERIFY, -20, "proof verification failed", INTERNAL)                                    \
    /* a number does not fit where it must go */                                                   \
    X(CUZK_ERANGE, -21, "value out of range", INVALID_ARGUMENT)                                    \
    /* not ready yet (a key still loading): ask again later */                                     \
    X(CUZK_EAGAIN, -22, "not ready yet", UNAVAILABLE)                                              \
    /* the configuration does not allow it (a key setup a client asked for) */                     \
    X(CUZK_EDENIED, -23, "not allowed by the configuration", PERMISSION_DENIED)

enum cuzk_err {
#define CUZK_ERR_ENUM_(name, value, text, grpc) name = value,
    CUZK_ERRORS(CUZK_ERR_ENUM_)
#undef CUZK_ERR_ENUM_
};

/* Returns a static description of err (any int; unknown codes get a generic string). */
const char *cuzk_strerror(int err);

/* Writes the printf-style sentence into err (truncated to errlen - 1 bytes, always
 * NUL-terminated) when err is not NULL and errlen > 0, and returns code: the one helper every
 * module uses to fail with a sentence. */
int cuzk_errf(char *err, size_t errlen, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#ifdef __cplusplus
}
#endif

#endif
