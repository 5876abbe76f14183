/**
 * The instance module: the identity of this installation and the gapless, commit-ordered sequence
 * counters.
 *
 * <p>Port: {@link dev.bothy.instance.Counters} (for the phase hooks only), {@link
 * dev.bothy.instance.InstanceState}, {@link dev.bothy.instance.InstanceRecord}, {@link
 * dev.bothy.instance.CounterName}. Tables: {@code instance}, {@code sequence_counters}; no other
 * module reads or writes them.
 */
package dev.bothy.instance;
