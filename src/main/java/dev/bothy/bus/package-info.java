/**
 * The bus module: Bothy's event log carried to NATS JetStream (DESIGN.md section 14).
 *
 * <p>Port: the wiring entry {@link dev.bothy.bus.BusModule} and its settings ({@link
 * dev.bothy.bus.NatsSettings}, {@link dev.bothy.bus.Credential}, {@link
 * dev.bothy.bus.StreamSettings}, {@link dev.bothy.bus.RelaySettings}), and {@link
 * dev.bothy.bus.Streams}, the one place the streams and their subjects are declared, built only
 * when {@code bus.nats.url} is set: the embedded default needs no NATS. Dispatch of bus consumers:
 * the wiring entry {@link dev.bothy.bus.BusDispatchModule}, built in every role, a module's
 * declarations {@link dev.bothy.bus.BusConsumer} and {@link dev.bothy.bus.BusHandler}, what a
 * handler receives ({@link dev.bothy.bus.BusEvent}, {@link dev.bothy.bus.Tx}), and the dead letters
 * ({@link dev.bothy.bus.DeadLetter}, {@link dev.bothy.bus.DeadLetters}).
 */
package dev.bothy.bus;
