package dev.bothy.kernel;

import java.util.Objects;
import java.util.Optional;

/**
 * The one exception type of Bothy's own errors: a message and an {@link ErrorKind}.
 *
 * <p>Messages are constant English sentences that name what went wrong (a configuration key, a
 * counter, a phase) and never carry a secret or a payload.
 *
 * <pre>{@code
 * throw BothyException.invalid("n must be at least 1, got " + n);
 * }</pre>
 */
public final class BothyException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final ErrorKind kind;
  private final String pointer;

  /**
   * Creates an exception of a kind.
   *
   * @param kind the error kind, not null
   * @param message what went wrong, not null
   * @param cause the underlying failure, or null
   */
  public BothyException(ErrorKind kind, String message, Throwable cause) {
    this(kind, message, cause, null);
  }

  private BothyException(ErrorKind kind, String message, Throwable cause, String pointer) {
    super(Objects.requireNonNull(message, "message"), cause);
    this.kind = Objects.requireNonNull(kind, "kind");
    this.pointer = pointer;
  }

  /**
   * Returns the kind of this error.
   *
   * @return the kind, never null
   */
  public ErrorKind kind() {
    return kind;
  }

  /**
   * Creates a {@link ErrorKind#NOT_FOUND} error.
   *
   * @param message what was not found
   * @return the exception, to be thrown by the caller
   */
  public static BothyException notFound(String message) {
    return new BothyException(ErrorKind.NOT_FOUND, message, null);
  }

  /**
   * Creates an {@link ErrorKind#INVALID} error.
   *
   * @param message which rule the input breaks
   * @return the exception, to be thrown by the caller
   */
  public static BothyException invalid(String message) {
    return new BothyException(ErrorKind.INVALID, message, null);
  }

  /**
   * Creates an {@link ErrorKind#INVALID} error about one member of a request, so that an API can
   * point at it.
   *
   * @param pointer the member as a JSON Pointer (RFC 6901) into the request, such as {@code
   *     /event_types/2}
   * @param message which rule the member breaks
   * @return the exception, to be thrown by the caller
   */
  public static BothyException invalidAt(String pointer, String message) {
    return new BothyException(
        ErrorKind.INVALID, message, null, Objects.requireNonNull(pointer, "pointer"));
  }

  /**
   * The request member at fault, when the error is about one.
   *
   * @return its JSON Pointer, or empty
   */
  public Optional<String> pointer() {
    return Optional.ofNullable(pointer);
  }

  /**
   * Creates a {@link ErrorKind#CONFLICT} error.
   *
   * @param message what the input clashes with
   * @return the exception, to be thrown by the caller
   */
  public static BothyException conflict(String message) {
    return new BothyException(ErrorKind.CONFLICT, message, null);
  }

  /**
   * Creates an {@link ErrorKind#UNAVAILABLE} error.
   *
   * @param message which dependency cannot serve
   * @param cause the underlying failure, or null
   * @return the exception, to be thrown by the caller
   */
  public static BothyException unavailable(String message, Throwable cause) {
    return new BothyException(ErrorKind.UNAVAILABLE, message, cause);
  }

  /**
   * Creates an {@link ErrorKind#INTERNAL} error.
   *
   * @param message which invariant broke
   * @return the exception, to be thrown by the caller
   */
  public static BothyException internal(String message) {
    return new BothyException(ErrorKind.INTERNAL, message, null);
  }
}
