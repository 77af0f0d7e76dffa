#pragma once

// The thread sanitizer's annotations of a lock it cannot see. Swift's `Mutex` on Linux waits with the
// futex system call, which the sanitizer does not intercept, so two threads taking the same `Mutex` in
// turn look to it like a race (a two-thread loop over a `Mutex<Int>` under `-sanitize=thread` is
// reported on Swift 6.3.1). Code that holds such a lock calls acquire after taking it and release
// before giving it back. The sanitizer's runtime defines the two functions; they are weak, so in a
// build without it they are null and the calls do nothing.

void __tsan_acquire(void *address) __attribute__((weak));
void __tsan_release(void *address) __attribute__((weak));

static inline void wellkit_tsan_acquire(void *address) {
    if (__tsan_acquire) __tsan_acquire(address);
}

static inline void wellkit_tsan_release(void *address) {
    if (__tsan_release) __tsan_release(address);
}
