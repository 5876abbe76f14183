/**
 * The webhooks module's services and their outgoing ports. The network side of a delivery is the
 * port {@link dev.bothy.webhooks.app.WebhookTransport} (one POST, never throwing for the network,
 * only {@link dev.bothy.webhooks.app.ReceiverBusy} when the receiver's connections stay busy) with
 * {@link dev.bothy.webhooks.app.HostResolver} and {@link dev.bothy.webhooks.app.TargetGuard}, which
 * resolves a target's host once and refuses it when any answer lies in a refused range.
 */
package dev.bothy.webhooks.app;
