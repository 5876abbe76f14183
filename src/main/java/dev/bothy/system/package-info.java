/**
 * The system module: flow 00, the worked example of a module with a bus consumer.
 *
 * <p>Port: {@link dev.bothy.system.SystemModule} (the wiring entry), {@link dev.bothy.system.Pings}
 * (record and read a ping, behind {@code /v1/system/pings}), {@link dev.bothy.system.SystemEvents}
 * (its event registration file) and their records. Table: {@code system_pings}; no other module
 * reads or writes it.
 */
package dev.bothy.system;
