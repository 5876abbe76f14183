/**
 * The sync module: the global, gapless, commit-ordered event log.
 *
 * <p>Port: {@link dev.bothy.sync.Appender} (any use case appends events inside its unit of work),
 * {@link dev.bothy.sync.EventLog} (head, minimum retained number, pages after a number, the resync
 * rule), {@link dev.bothy.sync.Event}, {@link dev.bothy.sync.EventDraft}, the event type catalogue
 * {@link dev.bothy.sync.EventTypes} and the payload codec port {@link dev.bothy.sync.PayloadCodec}.
 * Table: {@code event_log}; no other module reads or writes it.
 */
package dev.bothy.sync;
