/**
 * The JAX-RS side of the HTTP API: resources, the token filter, the metrics filter, the problem
 * mapper and the JSON shapes. Resources call the ports of {@code sync} and the services of {@code
 * api.app} only.
 */
package dev.bothy.api.http;
