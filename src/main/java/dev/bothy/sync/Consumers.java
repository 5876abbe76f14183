package dev.bothy.sync;

import java.util.List;

/**
 * The worker consumers of the event log: each registered name has one cursor row; the {@code
 * worker} and {@code all} roles run its rounds. Not the agent consumers of the API.
 */
public interface Consumers {
  /**
   * Registers the handler of a consumer; only the assembly calls it, before the runner starts.
   *
   * @param name one of {@link ConsumerName#names()}
   * @param handler its handler
   * @throws IllegalArgumentException for an unknown name or a null handler
   * @throws IllegalStateException for a second registration of a name or one after the start
   */
  void register(ConsumerName name, ConsumerHandler handler);

  /**
   * Returns the consumers whose handlers are registered in this process, whether or not this role
   * runs their rounds, in registration order: the names the lag gauges report on. Read from memory,
   * never from the database.
   *
   * @return the names, in registration order
   */
  List<ConsumerName> registered();

  /**
   * Reads where every consumer with a cursor row stands, in one unit of work.
   *
   * @return one state per row, by name
   */
  List<ConsumerState> states();
}
