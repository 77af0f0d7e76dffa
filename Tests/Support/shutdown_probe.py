#!/usr/bin/env python3
"""SIGTERM under load: does a graceful shutdown of `wells serve` lose a request it accepted?

Keeps --connections keep-alive connections busy with GET --path, sends SIGTERM to --pid after
--term-after seconds, and goes on until every connection is refused (the listener closed). Each
request ends in one of three ways, told apart by http.client as a client library sees them:

- answered: a whole response (its status is counted);
- unanswered: the connection closed before any byte of a response (http.client's
  RemoteDisconnected, or a reset). Sent after SIGTERM, or within --margin seconds before it, the
  request may not have been read yet: the server closed a keep-alive connection that it saw idle,
  and RFC 9112 section 9.3.1 lets a client send such an idempotent request again, which the probe
  does, on a new connection. Sent earlier, the server had it and dropped it: lost;
- truncated: the response began and then the connection closed (IncompleteRead): lost.

A graceful shutdown loses none: `lost_unanswered` and `truncated` are 0.

Prints one JSON object. Standard library only.
"""
import argparse
import http.client
import json
import os
import signal
import threading
import time


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--path", required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--term-after", type=float, default=2.0)
    parser.add_argument("--deadline", type=float, default=60.0, help="give up this many seconds after SIGTERM")
    parser.add_argument("--margin", type=float, default=0.2,
                        help="a request sent this many seconds before SIGTERM has been read by a working server")
    parser.add_argument("--vary-offset", type=int, default=0,
                        help="append &offset=N, N counting up to this and round again, so that answers are not the cache's")
    args = parser.parse_args()

    lock = threading.Lock()
    counts = {"answered": 0, "answered_after_term": 0, "lost_unanswered": 0, "unanswered_near_term": 0,
              "truncated": 0, "refused_before_term": 0, "statuses": {}, "errors": []}
    term_sent = threading.Event()
    term_time = [0.0]
    sent = [0]

    def next_path():
        if not args.vary_offset:
            return args.path
        with lock:
            sent[0] += 1
            return "%s&offset=%d" % (args.path, sent[0] % args.vary_offset)

    def count(key, amount=1):
        with lock:
            counts[key] += amount

    def client():
        connection = None
        while True:
            if term_sent.is_set() and time.monotonic() - term_time[0] > args.deadline:
                count_error("still connected %.0f s after SIGTERM" % args.deadline)
                return
            if connection is None:
                connection = http.client.HTTPConnection("127.0.0.1", args.port, timeout=30)
                try:
                    connection.connect()
                except ConnectionRefusedError:
                    if term_sent.is_set():
                        return  # the listener closed: done
                    count("refused_before_term")
                    time.sleep(0.05)
                    connection = None
                    continue
            sent_at = time.monotonic()
            try:
                connection.request("GET", next_path(), headers={"Connection": "keep-alive"})
                response = connection.getresponse()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                term = term_time[0] if term_sent.is_set() else None
                count("lost_unanswered" if term is None or sent_at < term - args.margin else "unanswered_near_term")
                connection.close()
                connection = None
                continue
            try:
                response.read()
            except (http.client.IncompleteRead, ConnectionResetError):
                count("truncated")
                connection.close()
                connection = None
                continue
            with lock:
                counts["answered"] += 1
                if term_sent.is_set():
                    counts["answered_after_term"] += 1
                counts["statuses"][str(response.status)] = counts["statuses"].get(str(response.status), 0) + 1
            if response.will_close:
                connection.close()
                connection = None

    def count_error(message):
        with lock:
            counts["errors"].append(message)

    def guarded():
        try:
            client()
        except Exception as error:  # anything else is reported, not hidden
            count_error("%s: %s" % (type(error).__name__, error))

    threads = [threading.Thread(target=guarded) for _ in range(args.connections)]
    for thread in threads:
        thread.start()
    time.sleep(args.term_after)
    term_time[0] = time.monotonic()
    term_sent.set()
    os.kill(args.pid, signal.SIGTERM)
    for thread in threads:
        thread.join()
    print(json.dumps(counts, sort_keys=True))


if __name__ == "__main__":
    main()
