/**
 * The kernel: the few types every module shares and that depend on nothing but the JDK.
 *
 * <p>{@link dev.bothy.kernel.Clock} (time), {@link dev.bothy.kernel.Ids} (UUIDv7), {@link
 * dev.bothy.kernel.BothyException} with its {@link dev.bothy.kernel.ErrorKind}, {@link
 * dev.bothy.kernel.BuildInfo}, and the unit of work API in {@code txn}.
 */
package dev.bothy.kernel;
