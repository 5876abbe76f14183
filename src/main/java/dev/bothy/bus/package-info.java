/**
 * The bus module: Bothy's event log carried to NATS JetStream (DESIGN.md section 14).
 *
 * <p>Port: the wiring entry {@link dev.bothy.bus.BusModule} and its settings ({@link
 * dev.bothy.bus.NatsSettings}, {@link dev.bothy.bus.Credential}, {@link
 * dev.bothy.bus.StreamSettings}, {@link dev.bothy.bus.RelaySettings}), and {@link
 * dev.bothy.bus.Streams}, the one place the streams and their subjects are declared. The module is
 * built only when {@code bus.nats.url} is set: the embedded default needs no NATS.
 */
package dev.bothy.bus;
