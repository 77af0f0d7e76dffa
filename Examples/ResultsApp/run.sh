#!/usr/bin/env bash
# Builds the example app under the thread sanitizer, in a build directory of its own, and runs it:
# a report of the sanitizer, or a callback off the main actor, fails it.
set -euo pipefail
cd "$(dirname "$0")"
swift build -q --sanitize=thread --build-path .build-tsan
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" .build-tsan/debug/ResultsApp
