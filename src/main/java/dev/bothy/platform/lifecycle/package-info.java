/**
 * The process lifecycle: named start steps in order, stop phases with time budgets, readiness
 * checks, and {@link dev.bothy.platform.lifecycle.Lifecycle#fail(Throwable)} that ends the process
 * with exit code 1.
 *
 * <p>Framework-free; {@code dev.bothy.wire} runs it from a Dropwizard {@code Managed}.
 */
package dev.bothy.platform.lifecycle;
