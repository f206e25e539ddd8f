/* The host's limit for issue 48's end-to-end goal: independent random
 * 8-byte reads over 1 GiB, as many per second as a plain loop makes.
 * Prints reads per second. Built and run by benchsuite/end-to-end.sh. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(void) {
    const size_t bytes = (size_t)1 << 30, words = bytes / 8, reads = 200000000;
    uint64_t *a = malloc(bytes);
    if (!a) return 1;
    for (size_t i = 0; i < words; i++) a[i] = i;  /* touch every page */
    uint64_t x = 88172645463325252ull, sum = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (size_t i = 0; i < reads; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;  /* xorshift64: independent addresses */
        sum += a[x & (words - 1)];
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("%.0f\n", reads / s);
    return sum == 42;  /* keeps the reads */
}
