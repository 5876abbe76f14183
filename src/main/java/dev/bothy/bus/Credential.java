package dev.bothy.bus;

import java.nio.file.Path;
import java.util.Objects;

/**
 * How Bothy proves itself to the NATS server: nothing, a token ({@code bus.nats.token}) or a
 * credentials file ({@code bus.nats.credsFile}). A token is a secret: {@link #toString()} never
 * shows it, and errors name its key, never its value.
 */
public sealed interface Credential {
  /**
   * Returns the configuration key this credential comes from, for error messages.
   *
   * @return the key, or {@code bus.nats.url} for {@link None}
   */
  String key();

  /** No credential: the server accepts anonymous clients. */
  record None() implements Credential {
    @Override
    public String key() {
      return "bus.nats.url";
    }
  }

  /**
   * A token, {@code bus.nats.token}.
   *
   * @param value the token; never logged, never shown
   */
  record Token(String value) implements Credential {
    /** Checks that the token is not blank. */
    public Token {
      Objects.requireNonNull(value, "value");
      if (value.isBlank()) {
        throw new IllegalArgumentException("bus.nats.token is blank");
      }
    }

    @Override
    public String key() {
      return "bus.nats.token";
    }

    /** Returns the key only: the token stays out of logs and messages. */
    @Override
    public String toString() {
      return "Token[bus.nats.token]";
    }
  }

  /**
   * A NATS credentials file (a user JWT and its NKey seed), {@code bus.nats.credsFile}.
   *
   * @param path the file
   */
  record CredsFile(Path path) implements Credential {
    /** Checks that the path is present. */
    public CredsFile {
      Objects.requireNonNull(path, "path");
    }

    @Override
    public String key() {
      return "bus.nats.credsFile";
    }
  }
}
