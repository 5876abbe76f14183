package dev.bothy.sync.domain;

import dev.bothy.kernel.BothyException;

/**
 * What may be appended: the payload must be the type's payload record, the resource must be the
 * type's resource type, and the encoded payload must fit {@code sync.maxPayloadBytes}.
 */
public final class AppendRules {
  private AppendRules() {}

  /**
   * Checks a draft against its type, before encoding.
   *
   * @param type the type name
   * @param payloadType the type's payload record
   * @param resourceType the type's resource type
   * @param payload the draft's payload
   * @param draftResourceType the draft's resource type
   * @throws BothyException {@code invalid} naming the type and what does not fit
   */
  public static void checkShape(
      String type,
      Class<?> payloadType,
      String resourceType,
      Object payload,
      String draftResourceType) {
    if (!payloadType.isInstance(payload)) {
      throw BothyException.invalid(
          "event type "
              + type
              + " takes a "
              + payloadType.getSimpleName()
              + " payload, not a "
              + payload.getClass().getSimpleName());
    }
    if (!resourceType.equals(draftResourceType)) {
      throw BothyException.invalid(
          "event type "
              + type
              + " is about a resource of type "
              + resourceType
              + ", not "
              + draftResourceType);
    }
  }

  /**
   * Checks the size of an encoded payload.
   *
   * @param type the type name
   * @param bytes the payload's size in UTF-8 bytes
   * @param maxBytes {@code sync.maxPayloadBytes}
   * @throws BothyException {@code invalid} when the payload is larger
   */
  public static void checkSize(String type, long bytes, long maxBytes) {
    if (bytes > maxBytes) {
      throw BothyException.invalid(
          "the payload of a "
              + type
              + " event has "
              + bytes
              + " bytes, more than sync.maxPayloadBytes allows ("
              + maxBytes
              + ")");
    }
  }

  /**
   * The resync rule of reads: a reader whose next number is below the minimum retained one lost
   * events to retention.
   *
   * @param afterSeq the reader's last number
   * @param minRetained the log's smallest number, 0 when empty
   * @return true when the reader must resync
   */
  public static boolean mustResync(long afterSeq, long minRetained) {
    // Not afterSeq + 1 < minRetained: that overflows at the largest long, a position past the head
    // that means "nothing yet". minRetained is at least 1 here, so minRetained - 1 cannot.
    return minRetained > 0 && afterSeq < minRetained - 1;
  }
}
