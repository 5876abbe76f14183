/**
 * The instance module's jOOQ stores over {@code instance} and {@code sequence_counters}; the only
 * code that touches those tables.
 */
package dev.bothy.instance.adapters.postgres;
