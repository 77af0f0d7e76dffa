"""Reads Prometheus' text format on standard input with the reference client's parser
(prometheus-client's text_string_to_metric_families) and prints every sample as JSON:
[{"family": ..., "type": ..., "name": ..., "labels": {...}, "value": ...}, ...].
A text the parser refuses exits non-zero with its error. Used by wells' ServeOperationsTests."""
import json
import sys

from prometheus_client.parser import text_string_to_metric_families

samples = []
for family in text_string_to_metric_families(sys.stdin.read()):
    for sample in family.samples:
        samples.append({"family": family.name, "type": family.type, "name": sample.name,
                        "labels": dict(sample.labels), "value": sample.value})
json.dump(samples, sys.stdout)
