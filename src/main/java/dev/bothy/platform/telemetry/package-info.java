/**
 * The closed set of telemetry names (DESIGN.md section 10): span names and attribute keys that
 * manual spans and labelled metrics may use, so no ad hoc key (or a payload in one) reaches a trace
 * backend.
 */
package dev.bothy.platform.telemetry;
