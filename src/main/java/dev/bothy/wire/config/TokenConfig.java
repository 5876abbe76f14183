package dev.bothy.wire.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.util.ArrayList;
import java.util.List;

/**
 * One entry of {@code api.tokens}: a named bearer token, known only by its SHA-256, with its
 * scopes.
 *
 * <pre>{@code
 * api:
 *   tokens:
 *     - name: robin-ingest
 *       sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
 *       scopes: [events:append, events:read]
 * }</pre>
 */
public class TokenConfig {
  @NotNull
  @Pattern(regexp = "[A-Za-z0-9._-]{1,64}", message = "must be 1 to 64 of A-Z a-z 0-9 . _ -")
  @JsonProperty
  private String name;

  @NotNull
  @Pattern(regexp = "[0-9a-f]{64}", message = "must be 64 lower-case hex digits (tokens hash)")
  @JsonProperty
  private String sha256;

  @NotEmpty @JsonProperty
  private List<
          @NotNull
          @Pattern(
              regexp =
                  "events:append|events:read|admin:read|admin:write|webhooks:admin|system:write"
                      + "|system:read",
              message =
                  "must be events:append, events:read, admin:read, admin:write, webhooks:admin,"
                      + " system:write or system:read")
          String>
      scopes = new ArrayList<>();

  /** Creates an empty entry, for Jackson. */
  public TokenConfig() {}

  /**
   * Creates an entry.
   *
   * @param name the token's name, shown in logs and metrics instead of the token
   * @param sha256 the lower-case hex SHA-256 of the token
   * @param scopes the scopes
   */
  public TokenConfig(String name, String sha256, List<String> scopes) {
    this.name = name;
    this.sha256 = sha256;
    this.scopes = new ArrayList<>(scopes);
  }

  /**
   * Returns the name.
   *
   * @return the name
   */
  public String name() {
    return name;
  }

  /**
   * Returns the SHA-256 of the token.
   *
   * @return lower-case hex
   */
  public String sha256() {
    return sha256;
  }

  /**
   * Returns the scopes.
   *
   * @return the scope codes
   */
  public List<String> scopes() {
    return scopes;
  }
}
