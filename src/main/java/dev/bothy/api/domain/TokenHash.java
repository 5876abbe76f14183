package dev.bothy.api.domain;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.OptionalInt;

/**
 * The SHA-256 of bearer tokens and request bodies, and the constant-time match of a presented token
 * against the configured hashes. The configuration holds hashes only, so a leaked configuration
 * file grants nothing.
 */
public final class TokenHash {
  private TokenHash() {}

  /**
   * Hashes bytes.
   *
   * @param bytes the bytes
   * @return their SHA-256, 32 bytes
   */
  public static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      // Every Java platform must offer SHA-256 (MessageDigest's documentation).
      throw new IllegalStateException(e);
    }
  }

  /**
   * Hashes a token as the configuration writes it.
   *
   * @param token the token
   * @return the SHA-256 of its UTF-8 bytes in lower-case hex
   */
  public static String sha256Hex(String token) {
    return HexFormat.of().formatHex(sha256(token.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * Finds which configured hash a presented token has. Every hash is compared with {@link
   * MessageDigest#isEqual}, whose time does not depend on where the bytes differ, and the loop
   * never stops early, so the time tells nothing about the configured hashes.
   *
   * @param token the presented token
   * @param hashes the configured hashes, 32 bytes each
   * @return the index of the matching hash, or empty
   */
  public static OptionalInt match(String token, List<byte[]> hashes) {
    byte[] presented = sha256(token.getBytes(StandardCharsets.UTF_8));
    int found = -1;
    for (int i = 0; i < hashes.size(); i++) {
      if (MessageDigest.isEqual(presented, hashes.get(i)) && found < 0) {
        found = i;
      }
    }
    return found < 0 ? OptionalInt.empty() : OptionalInt.of(found);
  }
}
