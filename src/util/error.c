#include "cuzk/error.h"

const char *cuzk_strerror(int err) {
    switch (err) {
#define CUZK_ERR_TEXT_(name, value, text, grpc)                                                    \
    case name: return text;
        CUZK_ERRORS(CUZK_ERR_TEXT_)
#undef CUZK_ERR_TEXT_
    default: return "unknown error";
    }
}
