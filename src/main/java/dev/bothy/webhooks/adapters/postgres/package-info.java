/**
 * The PostgreSQL stores of outgoing webhooks: {@code webhook_subscriptions} and {@code
 * webhook_attempts}, written with jOOQ.
 */
package dev.bothy.webhooks.adapters.postgres;
