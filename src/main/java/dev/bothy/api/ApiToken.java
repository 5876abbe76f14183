package dev.bothy.api;

import dev.bothy.api.domain.TokenHash;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * A configured bearer token, known by its SHA-256 only.
 *
 * @param name the token's name: what logs and metrics show instead of the token
 * @param sha256 the SHA-256 of the token, 32 bytes
 * @param scopes what the token may do
 */
public record ApiToken(String name, byte[] sha256, Set<Scope> scopes) {
  /** Checks the fields and copies the mutable ones. */
  public ApiToken {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(sha256, "sha256");
    if (sha256.length != 32) {
      throw new IllegalArgumentException("a SHA-256 has 32 bytes");
    }
    sha256 = sha256.clone();
    scopes = Set.copyOf(scopes);
  }

  /**
   * Creates a token from its configuration form.
   *
   * @param name the name
   * @param sha256Hex the SHA-256 in hex
   * @param scopes the scopes
   * @return the token
   * @throws IllegalArgumentException when the hex is not 32 bytes
   */
  public static ApiToken ofHex(String name, String sha256Hex, Set<Scope> scopes) {
    return new ApiToken(name, HexFormat.of().parseHex(sha256Hex), scopes);
  }

  /**
   * Finds the configured token a client presented, comparing its SHA-256 with every configured hash
   * in constant time (the time tells nothing about which hash is close).
   *
   * @param presented the token as the client sent it
   * @param tokens the configured tokens
   * @return the matching token, or empty
   */
  public static Optional<ApiToken> match(String presented, List<ApiToken> tokens) {
    OptionalInt at = TokenHash.match(presented, tokens.stream().map(t -> t.sha256).toList());
    return at.isPresent() ? Optional.of(tokens.get(at.getAsInt())) : Optional.empty();
  }

  /**
   * Returns a copy of the hash.
   *
   * @return the 32 bytes
   */
  @Override
  public byte[] sha256() {
    return sha256.clone();
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ApiToken t
        && name.equals(t.name)
        && java.util.Arrays.equals(sha256, t.sha256)
        && scopes.equals(t.scopes);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, java.util.Arrays.hashCode(sha256), scopes);
  }

  /** Shows the name and scopes only. */
  @Override
  public String toString() {
    return "ApiToken[name=" + name + ", scopes=" + scopes + "]";
  }
}
