/** The sync module's jOOQ store over {@code event_log}; the only code that touches the table. */
package dev.bothy.sync.adapters.postgres;
