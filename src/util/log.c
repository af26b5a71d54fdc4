#define _GNU_SOURCE
#include "util/log.h"

#include <pthread.h>
#include <stdarg.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cuzk/error.h"

_Atomic int cuzk_log_threshold = CUZK_LOG_INFO;

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static enum cuzk_log_format log_format = CUZK_LOG_TEXT; /* guarded by log_mu */
static FILE *log_out;                                   /* NULL = stderr; guarded by log_mu */
static cuzk_log_sink log_sink;
static void *log_sink_ctx;

static const char *const level_names[] = {"error", "warn", "info", "debug"};
static const char *const level_tags[] = {"ERROR", "WARN ", "INFO ", "DEBUG"};

void cuzk_log_set_level(enum cuzk_log_level level) {
    if ((int)level < CUZK_LOG_ERROR) level = CUZK_LOG_ERROR;
    if ((int)level > CUZK_LOG_DEBUG) level = CUZK_LOG_DEBUG;
    atomic_store_explicit(&cuzk_log_threshold, (int)level, memory_order_relaxed);
}

void cuzk_log_set_format(enum cuzk_log_format format) {
    pthread_mutex_lock(&log_mu);
    log_format = format == CUZK_LOG_JSON ? CUZK_LOG_JSON : CUZK_LOG_TEXT;
    pthread_mutex_unlock(&log_mu);
}

void cuzk_log_set_output(FILE *f) {
    pthread_mutex_lock(&log_mu);
    log_out = f;
    pthread_mutex_unlock(&log_mu);
}

void cuzk_log_set_sink(cuzk_log_sink sink, void *ctx) {
    pthread_mutex_lock(&log_mu);
    log_sink = sink;
    log_sink_ctx = ctx;
    pthread_mutex_unlock(&log_mu);
}

int cuzk_log_level_parse(const char *s, enum cuzk_log_level *out) {
    if (!s) return CUZK_EINVAL;
    for (int i = 0; i < 4; i++)
        if (!strcasecmp(s, level_names[i])) return *out = (enum cuzk_log_level)i, CUZK_OK;
    if (!strcasecmp(s, "warning")) return *out = CUZK_LOG_WARN, CUZK_OK;
    return CUZK_EINVAL;
}

int cuzk_log_format_parse(const char *s, enum cuzk_log_format *out) {
    if (s && !strcasecmp(s, "text")) return *out = CUZK_LOG_TEXT, CUZK_OK;
    if (s && !strcasecmp(s, "json")) return *out = CUZK_LOG_JSON, CUZK_OK;
    return CUZK_EINVAL;
}

const char *cuzk_log_level_name(enum cuzk_log_level level) {
    return (unsigned)level < 4 ? level_names[level] : "unknown";
}

/* Appends s to buf[*n .. cap) as the inside of a JSON string (quotes, backslashes and control
 * characters escaped); stops early when full. */
static void json_escape(char *buf, size_t *n, size_t cap, const char *s) {
    static const char hex[] = "0123456789abcdef";
    for (; *s && *n + 7 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            buf[(*n)++] = '\\';
            buf[(*n)++] = (char)c;
        } else if (c == '\n') {
            buf[(*n)++] = '\\';
            buf[(*n)++] = 'n';
        } else if (c < 0x20) {
            memcpy(buf + *n, "\\u00", 4);
            buf[*n + 4] = hex[c >> 4];
            buf[*n + 5] = hex[c & 15];
            *n += 6;
        } else {
            buf[(*n)++] = (char)c;
        }
    }
    buf[*n] = 0;
}

/* Copies s into buf[0 .. cap) for a text line: every control character (below 0x20, 0x7f, and
 * the UTF-8 encoded C1 controls U+0080..U+009F) written as an escape (\n, \r, \t, \xNN,
 * \u00NN), so a string that came with a request can neither end the line nor drive a
 * terminal; stops early when full. */
static void text_escape(char *buf, size_t cap, const char *s) {
    static const char hex[] = "0123456789abcdef";
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p && n + 7 < cap; p++) {
        unsigned char c = *p;
        if (c == '\n' || c == '\r' || c == '\t') {
            buf[n++] = '\\';
            buf[n++] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
        } else if (c < 0x20 || c == 0x7f) {
            buf[n++] = '\\';
            buf[n++] = 'x';
            buf[n++] = hex[c >> 4];
            buf[n++] = hex[c & 15];
        } else if (c == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
            memcpy(buf + n, "\\u00", 4);
            buf[n + 4] = hex[p[1] >> 4];
            buf[n + 5] = hex[p[1] & 15];
            n += 6;
            p++;
        } else {
            buf[n++] = (char)c;
        }
    }
    buf[n] = 0;
}

void cuzk_log_write(int level, const char *module, const char *fmt, ...) {
    if (level < CUZK_LOG_ERROR) level = CUZK_LOG_ERROR;
    if (level > CUZK_LOG_DEBUG) level = CUZK_LOG_DEBUG;
    char msg[CUZK_LOG_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);

    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char stamp[64];
    snprintf(stamp, sizeof stamp, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
             tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
             (int)(ts.tv_nsec / 1000000));

    char line[CUZK_LOG_LINE_MAX + 256];
    pthread_mutex_lock(&log_mu);
    if (log_format == CUZK_LOG_JSON) {
        size_t n =
            (size_t)snprintf(line, sizeof line, "{\"ts\":\"%s\",\"level\":\"%s\",\"module\":\"",
                             stamp, level_names[level]);
        json_escape(line, &n, sizeof line - 4, module ? module : "");
        n += (size_t)snprintf(line + n, sizeof line - n, "\",\"msg\":\"");
        json_escape(line, &n, sizeof line - 4, msg);
        memcpy(line + n, "\"}", 3);
    } else {
        char safe[CUZK_LOG_LINE_MAX];
        text_escape(safe, sizeof safe, msg);
        snprintf(line, sizeof line, "%s %s %s: %s", stamp, level_tags[level], module ? module : "-",
                 safe);
    }
    if (log_sink) {
        log_sink(log_sink_ctx, level, line);
    } else {
        FILE *f = log_out ? log_out : stderr;
        fputs(line, f);
        fputc('\n', f);
        fflush(f);
    }
    pthread_mutex_unlock(&log_mu);
}
