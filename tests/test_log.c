/* The log's line formats: a text line holds no control character whatever the message holds
 * (a string from a request cannot forge a line or drive a terminal), a JSON line escapes them
 * as JSON does, and the level threshold applies. */
#include <stdio.h>
#include <string.h>

#include "test_util.h"
#include "util/log.h"

static char last[CUZK_LOG_LINE_MAX + 256];
static int lines;

static void sink(void *ctx, int level, const char *line) {
    (void)ctx;
    (void)level;
    snprintf(last, sizeof last, "%s", line);
    lines++;
}

static int has_control(const char *s) {
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)) return 1;
    return 0;
}

int main(void) {
    test_init("test_log");
    cuzk_log_set_sink(sink, NULL);
    cuzk_log_set_level(CUZK_LOG_INFO);
    cuzk_log_set_format(CUZK_LOG_TEXT);

    const char *hostile = "job x\n2026-01-01T00:00:00.000Z ERROR engine: forged\r\t\x1b[2J\x7f"
                          "\xc2\x9b"
                          "31m é";
    cuzk_log_info("rpc", "AwaitProof %s: not found", hostile);
    CHECK(lines == 1);
    CHECK(!has_control(last));
    CHECK(strstr(last, " INFO  rpc: AwaitProof job x\\n2026-01-01T00:00:00.000Z ERROR engine: "
                       "forged\\r\\t\\x1b[2J\\x7f\\u009b31m é: not found") != NULL);
    CHECK(strchr(last, '\n') == NULL);

    cuzk_log_set_format(CUZK_LOG_JSON);
    cuzk_log_info("rpc", "id %s", "a\"b\nc\x01");
    CHECK(lines == 2 && !has_control(last));
    CHECK(strstr(last, "\"msg\":\"id a\\\"b\\nc\\u0001\"") != NULL);

    cuzk_log_debug("rpc", "not written at info");
    CHECK(lines == 2);
    cuzk_log_set_sink(NULL, NULL);
    return test_finish();
}
