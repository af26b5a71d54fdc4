#include "cuzk/error.h"

#include <stdarg.h>
#include <stdio.h>

int cuzk_errf(char *err, size_t errlen, int code, const char *fmt, ...) {
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return code;
}

const char *cuzk_strerror(int err) {
    switch (err) {
#define CUZK_ERR_TEXT_(name, value, text, grpc)                                                    \
    case name: return text;
        CUZK_ERRORS(CUZK_ERR_TEXT_)
#undef CUZK_ERR_TEXT_
    default: return "unknown error";
    }
}
