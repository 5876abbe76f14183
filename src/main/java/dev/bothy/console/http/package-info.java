/**
 * The console's HTTP layer: its JAX-RS resources, token filter and problem mapper, mounted on the
 * admin port by the assembly, and the servlet filter of its security headers. Resources call module
 * ports only.
 */
package dev.bothy.console.http;
