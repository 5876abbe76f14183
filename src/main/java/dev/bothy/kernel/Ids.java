package dev.bothy.kernel;

import java.security.SecureRandom;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

/**
 * UUIDv7 identifiers (RFC 9562, section 5.7), monotonic within one process.
 *
 * <p>Layout: 48 bits of Unix milliseconds, the version {@code 7}, a 12-bit counter in {@code
 * rand_a} (RFC 9562 section 6.2, method 1), the variant {@code 10} and 62 random bits. Within one
 * millisecond the counter increases; when it would overflow, the timestamp field moves one
 * millisecond ahead of the wall clock, so every id is greater than the one before it, even when the
 * wall clock steps back. Ids therefore sort by creation order within a process, and approximately
 * by time across processes.
 *
 * <pre>{@code
 * UUID id = Ids.newId();
 * }</pre>
 */
public final class Ids {
  private static final Ids DEFAULT = new Ids(System::currentTimeMillis, new SecureRandom());
  private static final Pattern CANONICAL =
      Pattern.compile(
          "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
  private static final int COUNTER_BITS = 12;
  private static final int COUNTER_MAX = (1 << COUNTER_BITS) - 1;

  private final LongSupplier millis;
  private final Random random;
  private long lastMillis = -1;
  private int counter;

  /**
   * Creates a generator over a millisecond source; the process-wide one is {@link #newId()}.
   *
   * @param millis the current Unix time in milliseconds
   * @param random the source of the counter start and the random bits
   */
  public Ids(LongSupplier millis, Random random) {
    this.millis = millis;
    this.random = random;
  }

  /**
   * Parses a UUID in its canonical text form only: 8-4-4-4-12 hexadecimal digits with hyphens, in
   * either case. {@link UUID#fromString} also takes signs, short groups and an extra digit, and
   * changes them into another id, so a typed id could name a row the user never meant.
   *
   * @param text the text, possibly null
   * @return the id, or empty for anything else
   */
  public static Optional<UUID> parse(String text) {
    if (text == null || !CANONICAL.matcher(text).matches()) {
      return Optional.empty();
    }
    return Optional.of(UUID.fromString(text));
  }

  /**
   * Returns a new UUIDv7 from the process-wide generator.
   *
   * @return a fresh id, greater than every id this process returned before
   */
  public static UUID newId() {
    return DEFAULT.next();
  }

  /**
   * Returns the lowest UUIDv7 of a millisecond: every UUIDv7 made at or after {@code instant}'s
   * millisecond sorts at or above it, every one made before sorts below (PostgreSQL compares {@code
   * uuid} bytewise). A range of ids between two of these is a range of creation times, which a
   * primary key index can count without a time column.
   *
   * @param instant the time, at or after the Unix epoch
   * @return the id with that time, the version and variant bits and zeros elsewhere
   * @throws IllegalArgumentException for a time before the epoch
   */
  public static UUID lowestAt(java.time.Instant instant) {
    long ms = instant.toEpochMilli();
    if (ms < 0) {
      throw new IllegalArgumentException("a UUIDv7 has no time before the epoch: " + instant);
    }
    return new UUID((ms << 16) | 0x7000L, Long.MIN_VALUE);
  }

  /**
   * Returns the next UUIDv7 of this generator.
   *
   * @return a fresh id, greater than every id this generator returned before
   */
  public synchronized UUID next() {
    long now = millis.getAsLong();
    if (now > lastMillis) {
      lastMillis = now;
      // Starting the counter in the lower half leaves room for at least 2048 ids per
      // millisecond before the timestamp has to be borrowed.
      counter = random.nextInt(1 << (COUNTER_BITS - 1));
    } else if (counter < COUNTER_MAX) {
      counter++;
    } else {
      lastMillis++;
      counter = 0;
    }
    long msb = (lastMillis & 0xFFFF_FFFF_FFFFL) << 16 | 0x7000L | counter;
    long lsb = (random.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
    return new UUID(msb, lsb);
  }
}
