package dev.bothy.webhooks.domain;

import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * A Standard Webhooks 1.0.0 signing secret: {@value #PREFIX} followed by the base64 of 24 to 64
 * random bytes. The bytes are the HMAC-SHA256 key; the text is what a subscriber stores.
 *
 * <p>The secret never shows itself by accident: {@link #toString()} prints a fixed mask and no
 * error message of {@link #parse(String)} repeats its input. Only {@link #encoded()} gives the
 * text, for the one response that hands it to the subscriber and for storage.
 */
public final class WebhookSecret {
  /** The prefix of a secret's text form. */
  public static final String PREFIX = "whsec_";

  /** The fewest key bytes a secret may have (the specification's lower bound). */
  public static final int MIN_BYTES = 24;

  /** The most key bytes a secret may have (the specification's upper bound). */
  public static final int MAX_BYTES = 64;

  /** How many random bytes {@link #generate()} draws: above the minimum, the HMAC block's half. */
  public static final int GENERATED_BYTES = 32;

  private static final SecureRandom RANDOM = new SecureRandom();

  private final byte[] key;

  private WebhookSecret(byte[] key) {
    this.key = key;
  }

  /**
   * Draws a new secret of {@value #GENERATED_BYTES} bytes from {@link SecureRandom}.
   *
   * @return a fresh secret
   */
  public static WebhookSecret generate() {
    byte[] key = new byte[GENERATED_BYTES];
    RANDOM.nextBytes(key);
    return new WebhookSecret(key);
  }

  /**
   * Reads a secret's text form.
   *
   * @param text {@value #PREFIX} followed by standard base64 (with or without padding) of {@value
   *     #MIN_BYTES} to {@value #MAX_BYTES} bytes
   * @return the secret
   * @throws IllegalArgumentException when the text is null, lacks the prefix, is not base64 or has
   *     a key of the wrong length; the message never contains the text
   */
  public static WebhookSecret parse(String text) {
    if (text == null || !text.startsWith(PREFIX)) {
      throw new IllegalArgumentException(
          "a webhook secret must start with " + PREFIX + " followed by base64");
    }
    byte[] key;
    try {
      key = Base64.getDecoder().decode(text.substring(PREFIX.length()));
    } catch (IllegalArgumentException e) {
      // The decoder's message quotes the offending character: not passed on.
      throw new IllegalArgumentException(
          "a webhook secret must be " + PREFIX + " followed by standard base64");
    }
    if (key.length < MIN_BYTES || key.length > MAX_BYTES) {
      throw new IllegalArgumentException(
          "a webhook secret must hold "
              + MIN_BYTES
              + " to "
              + MAX_BYTES
              + " bytes; this one holds "
              + key.length);
    }
    return new WebhookSecret(key);
  }

  /**
   * Returns the text form, {@value #PREFIX} and the padded base64 of the key.
   *
   * @return the text a subscriber stores; never log it
   */
  public String encoded() {
    return PREFIX + Base64.getEncoder().encodeToString(key);
  }

  /**
   * Returns a copy of the key bytes, the HMAC key.
   *
   * @return a fresh copy
   */
  byte[] key() {
    return key.clone();
  }

  /** Compares the keys in constant time. */
  @Override
  public boolean equals(Object other) {
    return other instanceof WebhookSecret that && MessageDigest.isEqual(key, that.key);
  }

  @Override
  public int hashCode() {
    // A constant: a hash of the key would leak a little of it through timing or a heap dump.
    return WebhookSecret.class.hashCode();
  }

  /** Returns a fixed mask with the key's length; never the secret. */
  @Override
  public String toString() {
    return "WebhookSecret[" + PREFIX + "***, " + key.length + " bytes]";
  }
}
