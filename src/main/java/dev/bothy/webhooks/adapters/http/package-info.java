/**
 * The HTTP side of webhook delivery: {@link dev.bothy.webhooks.adapters.http.PinnedHttpTransport},
 * Apache HttpClient 5 connecting to the address {@link dev.bothy.webhooks.app.TargetGuard} checked.
 */
package dev.bothy.webhooks.adapters.http;
