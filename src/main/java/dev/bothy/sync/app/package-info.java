/**
 * The sync module's services: the appender, its sync phase hook and the log reads, over the
 * outgoing port {@link dev.bothy.sync.app.EventRepository}.
 */
package dev.bothy.sync.app;
