package dev.bothy.platform.jobs;

/**
 * What happened to jobs in a span of time: the console's job rates.
 *
 * @param created jobs whose id (UUIDv7) was made in the span, so inserted then, whatever became of
 *     them since
 * @param completed jobs that completed in the span and are still in the table
 * @param discarded jobs discarded in the span (dead letters of the job runtime) still in the table
 */
public record JobActivity(long created, long completed, long discarded) {}
