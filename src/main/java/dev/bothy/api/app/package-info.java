/**
 * The services of the HTTP API: appending with idempotency keys in one unit of work, and the
 * cleaner of expired keys.
 */
package dev.bothy.api.app;
