/* Logging: one line per event, a fixed format, a level check before any formatting.
 *
 * Contract: CUZK_LOG(level, module, fmt, ...) formats and writes one line only when level is
 * at or above the current threshold (error < warn < info < debug in verbosity; the check is
 * one relaxed atomic load, so a disabled debug line costs nothing but that). Lines are never
 * interleaved: each is formatted into a buffer and written whole under one mutex.
 *   text: "2025-01-31T12:34:56.789Z INFO  engine: message"    (UTC, milliseconds)
 *   json: {"ts":"2025-01-31T12:34:56.789Z","level":"info","module":"engine","msg":"message"}
 * A text line holds no control character: the message's are escaped (\n, \t, \xNN, \u00NN
 * for C1), so strings from requests cannot forge a line. A message longer than
 * CUZK_LOG_LINE_MAX is truncated. Output goes to a FILE* (default
 * stderr) or to a sink callback, which then receives the finished line without the newline.
 * Thread-safety: every function is thread-safe; the setters apply to lines started after
 * they return. */
#ifndef CUZK_UTIL_LOG_H
#define CUZK_UTIL_LOG_H

#include <stdatomic.h>
#include <stdio.h>

#define CUZK_LOG_LINE_MAX 2048

enum cuzk_log_level {
    CUZK_LOG_ERROR = 0,
    CUZK_LOG_WARN = 1,
    CUZK_LOG_INFO = 2,
    CUZK_LOG_DEBUG = 3,
};

enum cuzk_log_format { CUZK_LOG_TEXT = 0, CUZK_LOG_JSON = 1 };

typedef void (*cuzk_log_sink)(void *ctx, int level, const char *line);

/* The current threshold (do not write it directly: cuzk_log_set_level). */
extern _Atomic int cuzk_log_threshold;

void cuzk_log_set_level(enum cuzk_log_level level);
void cuzk_log_set_format(enum cuzk_log_format format);
/* NULL = stderr. */
void cuzk_log_set_output(FILE *f);
/* A sink replaces the FILE output while set; NULL restores it. */
void cuzk_log_set_sink(cuzk_log_sink sink, void *ctx);
/* "error", "warn", "info", "debug" (case-insensitive; "warning" too) and "text" / "json".
 * Return CUZK_OK or CUZK_EINVAL. */
int cuzk_log_level_parse(const char *s, enum cuzk_log_level *out);
int cuzk_log_format_parse(const char *s, enum cuzk_log_format *out);
const char *cuzk_log_level_name(enum cuzk_log_level level);

/* Writes one line unconditionally (use the macros, which check the level first). */
void cuzk_log_write(int level, const char *module, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define cuzk_log_enabled(level)                                                                    \
    ((int)(level) <= atomic_load_explicit(&cuzk_log_threshold, memory_order_relaxed))
#define CUZK_LOG(level, module, ...)                                                               \
    do {                                                                                           \
        if (cuzk_log_enabled(level)) cuzk_log_write((level), (module), __VA_ARGS__);               \
    } while (0)
/* Shorthands, e.g. cuzk_log_warn("engine", "job %s failed: %s", id, msg). */
#define cuzk_log_error(module, ...) CUZK_LOG(CUZK_LOG_ERROR, module, __VA_ARGS__)
#define cuzk_log_warn(module, ...) CUZK_LOG(CUZK_LOG_WARN, module, __VA_ARGS__)
#define cuzk_log_info(module, ...) CUZK_LOG(CUZK_LOG_INFO, module, __VA_ARGS__)
#define cuzk_log_debug(module, ...) CUZK_LOG(CUZK_LOG_DEBUG, module, __VA_ARGS__)

#endif
