/**
 * The webhooks module: outgoing webhooks, signed per Standard Webhooks.
 *
 * <p>Port: {@link dev.bothy.webhooks.WebhooksModule} (the wiring entry), {@link
 * dev.bothy.webhooks.WebhookSubscriptions} (the operator's verbs behind {@code
 * /v1/webhooks/subscriptions}) and its records. Tables: {@code webhook_subscriptions} and {@code
 * webhook_attempts}; no other module reads or writes them.
 */
package dev.bothy.webhooks;
