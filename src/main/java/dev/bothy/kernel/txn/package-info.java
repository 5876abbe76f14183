/**
 * The unit of work API: one database transaction with ordered phases.
 *
 * <p>A unit runs {@link dev.bothy.kernel.txn.Phase#RIGHTS_BEGIN}, then the caller's {@link
 * dev.bothy.kernel.txn.Phase#WORK}, then {@link dev.bothy.kernel.txn.Phase#SYNC} and {@link
 * dev.bothy.kernel.txn.Phase#AUDIT}, then commits. Modules register {@link
 * dev.bothy.kernel.txn.PhaseHook}s per phase at start; the implementation lives in {@code
 * dev.bothy.platform.pg}.
 */
package dev.bothy.kernel.txn;
