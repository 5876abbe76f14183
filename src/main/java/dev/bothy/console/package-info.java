/**
 * The operator console: a page and its JSON API on the admin port under {@code /console}.
 *
 * <p>Port: {@link dev.bothy.console.ConsoleModule} (the wiring entry) and {@link
 * dev.bothy.console.ConsoleSettings}. It owns no table: it reads and acts through the ports of the
 * other modules (the event log, the worker consumers, the relay, the jobs admin).
 */
package dev.bothy.console;
