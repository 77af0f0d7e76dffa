#ifndef WELLKIT_ALLOCATION_COUNTER_H
#define WELLKIT_ALLOCATION_COUNTER_H

/// Starts or stops counting heap allocations in this process.
void wk_allocation_counting(int enabled);
/// Allocations (malloc, calloc, realloc of a new block, memalign family) counted so far.
unsigned long wk_allocation_count(void);

#endif
