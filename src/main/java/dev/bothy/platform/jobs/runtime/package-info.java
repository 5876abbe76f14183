/**
 * The job runtime behind the port: the jOOQ store (every statement a job costs), the queue fetchers
 * and workers, the batched completer and the maintenance (rescuer, cleaner, periodic jobs) that
 * runs on one worker at a time.
 */
package dev.bothy.platform.jobs.runtime;
