/* The one clock of elapsed times: milliseconds of CLOCK_MONOTONIC (not the wall clock, which
 * may jump), for stage timings, timeouts and rates. Thread-safety: reentrant. */
#ifndef CUZK_UTIL_CLOCK_H
#define CUZK_UTIL_CLOCK_H

double cuzk_clock_ms(void);

#endif
