#!/usr/bin/env bash
# The consumer scaffold (issue 20): writes a bus handler <module>.<name> with a placeholder event
# type, its test (failing with "not implemented" until written), its chaos test on the testkit, and
# the registration line in the module's wiring <Module>Module.busConsumers().
#
#   bash scripts/new-consumer.sh <module> <name>
#   bash scripts/new-consumer.sh system beacon
#
# It runs dev.bothy.testkit.NewConsumer from its source with the JDK alone (no Maven, no build);
# the bus README's "Add a consumer" says what to do next.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
exec java "$root/src/test/java/dev/bothy/testkit/NewConsumer.java" --root "$root" "$@"
