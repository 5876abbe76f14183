/**
 * The pure rules of the job runtime: which args types may travel in a job row, the retry backoff
 * and the names of kinds and queues.
 */
package dev.bothy.platform.jobs.domain;
