package dev.bothy.webhooks.domain;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.regex.Pattern;

/**
 * A block of IPv4 or IPv6 addresses, such as {@code 127.0.0.0/8} or {@code fd00::/8}: the form of
 * {@code webhooks.allowedNetworks}. Parsing never looks a name up: only address literals are read.
 */
public final class Cidr {
  private static final Pattern IPV4 =
      Pattern.compile("(0|[1-9][0-9]{0,2})(\\.(0|[1-9][0-9]{0,2})){3}");
  private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*");

  private final byte[] network;
  private final int prefixLength;

  private Cidr(byte[] network, int prefixLength) {
    this.network = network;
    this.prefixLength = prefixLength;
  }

  /**
   * Reads a block written as an address, a slash and a prefix length; an address alone is a block
   * of one.
   *
   * @param text for example {@code 10.0.0.0/8}, {@code 2001:db8::/32} or {@code 127.0.0.1}
   * @return the block
   * @throws IllegalArgumentException when the text is not an address literal with a prefix length
   *     in range, or sets bits after the prefix ({@code 10.0.0.1/8}: probably a typing error)
   */
  public static Cidr parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("a network must be written as address/prefix");
    }
    String trimmed = text.trim();
    int slash = trimmed.indexOf('/');
    byte[] address = parseLiteral(slash < 0 ? trimmed : trimmed.substring(0, slash));
    int bits = address.length * 8;
    int prefix = bits;
    if (slash >= 0) {
      String length = trimmed.substring(slash + 1);
      if (!length.matches("[0-9]{1,3}") || Integer.parseInt(length) > bits) {
        throw new IllegalArgumentException(
            "a network's prefix length must be a number from 0 to " + bits);
      }
      prefix = Integer.parseInt(length);
    }
    byte[] masked = mask(address, prefix);
    if (!Arrays.equals(masked, address)) {
      throw new IllegalArgumentException(
          "a network's address must have no bits set after its prefix length");
    }
    return new Cidr(masked, prefix);
  }

  /**
   * Reads an IPv4 (four decimal numbers, no leading zeros) or IPv6 literal without any lookup.
   *
   * @param literal the address text, without brackets or zone
   * @return 4 or 16 bytes; IPv4-mapped IPv6 literals keep their 16-byte form
   * @throws IllegalArgumentException when the text is not such a literal
   */
  static byte[] parseLiteral(String literal) {
    if (IPV4.matcher(literal).matches()) {
      String[] parts = literal.split("\\.");
      byte[] bytes = new byte[4];
      for (int i = 0; i < 4; i++) {
        int part = Integer.parseInt(parts[i]);
        if (part > 255) {
          throw new IllegalArgumentException("an IPv4 address has four numbers from 0 to 255");
        }
        bytes[i] = (byte) part;
      }
      return bytes;
    }
    if (IPV6.matcher(literal).matches()) {
      try {
        // A text with a colon is read as an IPv6 literal and never looked up (InetAddress).
        InetAddress parsed = InetAddress.getByName(literal);
        byte[] bytes = parsed.getAddress();
        return bytes.length == 16 ? bytes : mapped(bytes);
      } catch (UnknownHostException e) {
        throw new IllegalArgumentException("not a valid IPv6 address");
      }
    }
    throw new IllegalArgumentException("a network must be an IPv4 or IPv6 address literal");
  }

  /**
   * Tells whether the block holds the address (of the same family).
   *
   * @param address an address
   * @return true when the first prefix-length bits match
   */
  public boolean contains(InetAddress address) {
    return contains(address.getAddress());
  }

  /**
   * Tells whether the block holds the address given as 4 or 16 bytes (of the same family).
   *
   * @param address the raw address
   * @return true when the first prefix-length bits match
   */
  public boolean contains(byte[] address) {
    return address.length == network.length && Arrays.equals(mask(address, prefixLength), network);
  }

  /**
   * Tells whether the block is of IPv4 addresses.
   *
   * @return true for IPv4, false for IPv6
   */
  public boolean isIpv4() {
    return network.length == 4;
  }

  private static byte[] mask(byte[] address, int prefix) {
    byte[] out = address.clone();
    for (int bit = prefix; bit < out.length * 8; bit++) {
      out[bit / 8] &= (byte) ~(0x80 >>> (bit % 8));
    }
    return out;
  }

  private static byte[] mapped(byte[] ipv4) {
    // InetAddress turns ::ffff:a.b.c.d into an IPv4 address; the block keeps the IPv6 form.
    byte[] bytes = new byte[16];
    bytes[10] = (byte) 0xff;
    bytes[11] = (byte) 0xff;
    System.arraycopy(ipv4, 0, bytes, 12, 4);
    return bytes;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Cidr that
        && prefixLength == that.prefixLength
        && Arrays.equals(network, that.network);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(network) + prefixLength;
  }

  /** Returns the block as {@link #parse(String)} reads it, for example {@code 10.0.0.0/8}. */
  @Override
  public String toString() {
    try {
      return InetAddress.getByAddress(network).getHostAddress() + "/" + prefixLength;
    } catch (UnknownHostException e) {
      throw new IllegalStateException("a block holds 4 or 16 bytes", e);
    }
  }
}
