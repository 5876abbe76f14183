package dev.bothy.platform.jobs;

/**
 * How many jobs of a queue are in a state.
 *
 * @param queue the queue
 * @param state the state
 * @param count the jobs
 */
public record QueueCount(String queue, JobState state, long count) {}
