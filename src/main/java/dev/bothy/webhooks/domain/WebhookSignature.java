package dev.bothy.webhooks.domain;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The {@code webhook-signature} header of Standard Webhooks 1.0.0: for each secret, {@code v1,}
 * followed by the base64 of HMAC-SHA256 over {@code id.timestamp.body}, the signatures separated by
 * one space. During a secret rotation the sender signs with the new and the old secret, so a
 * receiver holding either verifies.
 */
public final class WebhookSignature {
  /** The version tag of an HMAC-SHA256 signature. */
  public static final String VERSION = "v1";

  private static final String HMAC = "HmacSHA256";

  private WebhookSignature() {}

  /**
   * Signs one message with each secret.
   *
   * @param messageId the {@code webhook-id} header, the same on every attempt of a message
   * @param timestampSeconds the {@code webhook-timestamp} header, Unix seconds of this attempt
   * @param body the exact bytes sent as the request body
   * @param secrets one or more secrets, newest first; each gives one signature in that order
   * @return the header value, for example {@code v1,K5oZ...= v1,3Ab1...=}
   * @throws IllegalArgumentException when there is no secret or the id is blank or holds a dot
   */
  public static String sign(
      String messageId, long timestampSeconds, byte[] body, List<WebhookSecret> secrets) {
    requireValidId(messageId);
    Objects.requireNonNull(body, "body");
    if (secrets == null || secrets.isEmpty()) {
      throw new IllegalArgumentException("at least one webhook secret is needed to sign");
    }
    byte[] content = signedContent(messageId, timestampSeconds, body);
    StringBuilder header = new StringBuilder();
    for (WebhookSecret secret : secrets) {
      if (header.length() > 0) {
        header.append(' ');
      }
      header.append(VERSION).append(',').append(base64Hmac(secret, content));
    }
    return header.toString();
  }

  /**
   * Tells whether a {@code webhook-signature} header holds a valid {@code v1} signature of the
   * message by the secret, as a receiver checks it: signatures of other versions are skipped and
   * the comparison takes constant time. The timestamp's age is the receiver's own check.
   *
   * @param messageId the {@code webhook-id} header
   * @param timestampSeconds the {@code webhook-timestamp} header
   * @param body the raw request body
   * @param signatureHeader the {@code webhook-signature} header, possibly several signatures
   * @param secret the secret the receiver holds
   * @return true when one of the header's {@code v1} signatures matches
   */
  public static boolean verify(
      String messageId,
      long timestampSeconds,
      byte[] body,
      String signatureHeader,
      WebhookSecret secret) {
    if (signatureHeader == null || messageId == null || body == null || secret == null) {
      return false;
    }
    byte[] expected =
        base64Hmac(secret, signedContent(messageId, timestampSeconds, body))
            .getBytes(StandardCharsets.US_ASCII);
    boolean matched = false;
    for (String part : signatureHeader.trim().split(" +")) {
      int comma = part.indexOf(',');
      if (comma < 0 || !part.substring(0, comma).equals(VERSION)) {
        continue;
      }
      byte[] candidate = part.substring(comma + 1).getBytes(StandardCharsets.US_ASCII);
      // No early exit: every v1 signature is compared, so the time does not tell which matched.
      matched |= MessageDigest.isEqual(expected, candidate);
    }
    return matched;
  }

  private static void requireValidId(String messageId) {
    if (messageId == null || messageId.isBlank() || messageId.indexOf('.') >= 0) {
      // A dot would make id.timestamp.body ambiguous.
      throw new IllegalArgumentException("a webhook message id must be non-blank and hold no dot");
    }
  }

  private static byte[] signedContent(String messageId, long timestampSeconds, byte[] body) {
    byte[] prefix = (messageId + "." + timestampSeconds + ".").getBytes(StandardCharsets.UTF_8);
    byte[] content = new byte[prefix.length + body.length];
    System.arraycopy(prefix, 0, content, 0, prefix.length);
    System.arraycopy(body, 0, content, prefix.length, body.length);
    return content;
  }

  private static String base64Hmac(WebhookSecret secret, byte[] content) {
    try {
      Mac mac = Mac.getInstance(HMAC);
      mac.init(new SecretKeySpec(secret.key(), HMAC));
      return Base64.getEncoder().encodeToString(mac.doFinal(content));
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      // Every Java 17 runtime ships HmacSHA256, and any non-empty key is valid for it.
      throw new IllegalStateException("HmacSHA256 is not available", e);
    }
  }
}
