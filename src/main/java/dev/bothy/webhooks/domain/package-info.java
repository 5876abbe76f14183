/**
 * The webhooks module's pure rules: the Standard Webhooks secret and signature, the retry schedule,
 * the {@code Retry-After} reading, the verdict on one delivery attempt, and the network policy that
 * decides which targets and addresses may be called. No I/O: the transport resolves and connects.
 */
package dev.bothy.webhooks.domain;
