package dev.bothy.webhooks.domain;

import dev.bothy.webhooks.domain.WebhookTargetRefused.Reason;
import java.net.InetAddress;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Which webhook targets and addresses Bothy may call: the defence against server-side request
 * forgery. A subscriber chooses the URL, so without it a webhook could reach the metadata service,
 * the database or an admin port on Bothy's own network.
 *
 * <p>Refused unless an allowed network holds the address: "this network" {@code 0.0.0.0/8} (with
 * the unspecified address), loopback, private ({@code 10/8}, {@code 172.16/12}, {@code
 * 192.168/16}), CGNAT {@code 100.64/10}, link-local ({@code 169.254/16}, {@code fe80::/10}), IETF
 * protocol assignments ({@code 192.0.0.0/24}, {@code 2001::/23}), documentation ({@code
 * 192.0.2/24}, {@code 198.51.100/24}, {@code 203.0.113/24}, {@code 2001:db8::/32}, {@code
 * 3fff::/20}), benchmarking {@code 198.18/15}, multicast, reserved {@code 240/4} with the broadcast
 * address, unique-local {@code fc00::/7}, site-local {@code fec0::/10}, discard {@code 100::/64},
 * local NAT64 {@code 64:ff9b:1::/48} and the deprecated IPv4-compatible {@code ::/96}. Addresses
 * that carry an IPv4 address inside (IPv4-mapped {@code ::ffff:0:0/96}, NAT64 {@code 64:ff9b::/96},
 * 6to4 {@code 2002::/16}) are judged by that IPv4 address too, so {@code ::ffff:127.0.0.1} is
 * loopback.
 *
 * @param allowedNetworks blocks that are permitted even inside a refused range ({@code
 *     webhooks.allowedNetworks}); tests use {@code 127.0.0.0/8}
 * @param allowPlainHttp whether {@code http} targets are permitted ({@code
 *     webhooks.allowPlainHttp}); otherwise {@code https} only
 */
public record NetworkPolicy(List<Cidr> allowedNetworks, boolean allowPlainHttp) {
  private static final int MAX_PORT = 65_535;

  /** The refused blocks and the name of their range, checked in this order. */
  static final List<Map.Entry<Cidr, String>> REFUSED =
      List.of(
          range("0.0.0.0/8", "this_network"),
          range("10.0.0.0/8", "private"),
          range("100.64.0.0/10", "cgnat"),
          range("127.0.0.0/8", "loopback"),
          range("169.254.0.0/16", "link_local"),
          range("172.16.0.0/12", "private"),
          range("192.0.0.0/24", "ietf_protocol"),
          range("192.0.2.0/24", "documentation"),
          range("192.168.0.0/16", "private"),
          range("198.18.0.0/15", "benchmarking"),
          range("198.51.100.0/24", "documentation"),
          range("203.0.113.0/24", "documentation"),
          range("224.0.0.0/4", "multicast"),
          range("255.255.255.255/32", "broadcast"),
          range("240.0.0.0/4", "reserved"),
          range("::/128", "unspecified"),
          range("::1/128", "loopback"),
          range("::/96", "ipv4_compatible"),
          range("64:ff9b:1::/48", "nat64_local"),
          range("100::/64", "discard"),
          range("2001::/23", "ietf_protocol"),
          range("2001:db8::/32", "documentation"),
          range("3fff::/20", "documentation"),
          range("fc00::/7", "unique_local"),
          range("fe80::/10", "link_local"),
          range("fec0::/10", "site_local"),
          range("ff00::/8", "multicast"));

  // A name whose last label is a number is an IPv4 address in the WHATWG URL standard.
  private static final Pattern NUMERIC_LAST_LABEL =
      Pattern.compile("(^|\\.)(0[xX][0-9a-fA-F]*|[0-9]+)$");
  private static final Cidr IPV4_MAPPED = Cidr.parse("0:0:0:0:0:ffff:0:0/96");
  private static final Cidr NAT64 = Cidr.parse("64:ff9b::/96");
  private static final Cidr SIX_TO_FOUR = Cidr.parse("2002::/16");

  /** Copies the list. */
  public NetworkPolicy {
    allowedNetworks = List.copyOf(Objects.requireNonNull(allowedNetworks, "allowedNetworks"));
  }

  private static boolean httpScheme(URI target) {
    String scheme = target.getScheme();
    return scheme != null && (scheme.equalsIgnoreCase("https") || scheme.equalsIgnoreCase("http"));
  }

  /**
   * Checks a target's form: an absolute {@code http} or {@code https} URL ({@code https} only
   * unless plain HTTP is allowed) with a host, no user information and no port outside 1 to 65535
   * (none stands for the scheme's). A host written as an address literal is also checked against
   * the ranges; a name is checked when it is resolved.
   *
   * @param target the subscription's URL
   * @throws WebhookTargetRefused with the reason, when refused
   */
  public void checkTarget(URI target) {
    if (target != null && target.isOpaque() && httpScheme(target)) {
      // "https:example.com/hook": the scheme is right, the "//" before the host is missing.
      throw new WebhookTargetRefused(
          Reason.NO_HOST, "a webhook target must name a host after its scheme: https://host/...");
    }
    if (target == null || !target.isAbsolute() || target.isOpaque()) {
      throw new WebhookTargetRefused(
          Reason.SCHEME, "a webhook target must be an absolute http or https URL");
    }
    String scheme = target.getScheme().toLowerCase(Locale.ROOT);
    if (!httpScheme(target)) {
      throw new WebhookTargetRefused(
          Reason.SCHEME, "a webhook target must be an http or https URL");
    }
    if (scheme.equals("http") && !allowPlainHttp) {
      throw new WebhookTargetRefused(
          Reason.PLAIN_HTTP, "a webhook target must use https (webhooks.allowPlainHttp is false)");
    }
    if (target.getRawUserInfo() != null) {
      throw new WebhookTargetRefused(
          Reason.USERINFO, "a webhook target must not carry user information");
    }
    String host = target.getHost();
    if (host == null || host.isEmpty()) {
      throw new WebhookTargetRefused(Reason.NO_HOST, "a webhook target must name a host");
    }
    // java.net.URI reads any run of digits as the port (-1 for none).
    if (target.getPort() == 0 || target.getPort() > MAX_PORT) {
      throw new WebhookTargetRefused(
          Reason.PORT, "a webhook target's port must be from 1 to 65535, or none for the default");
    }
    Optional<byte[]> literal = literal(host);
    literal
        .flatMap(this::refusedRange)
        .ifPresent(
            range -> {
              throw refusedAddress(range);
            });
    if (literal.isEmpty() && NUMERIC_LAST_LABEL.matcher(host).find()) {
      // 0177.0.0.1 is 127.0.0.1 to inet_aton and curl but 177.0.0.1 to the JDK: whatever Bothy
      // checked, a tool that reads the stored URL again could reach another address.
      throw new WebhookTargetRefused(
          Reason.AMBIGUOUS_ADDRESS,
          "a webhook target's host ends in a number but is not an IPv4 address of four decimal"
              + " numbers without leading zeros");
    }
  }

  /**
   * Tells whether Bothy may connect to an address.
   *
   * @param address a resolved address
   * @return false when the address lies in a refused range that no allowed network holds
   */
  public boolean permits(InetAddress address) {
    return refusedRange(address.getAddress()).isEmpty();
  }

  /**
   * Names the refused range of an address.
   *
   * @param address a resolved address
   * @return for example {@code loopback} or {@code private}; empty when the address is permitted
   */
  public Optional<String> refusedRange(InetAddress address) {
    return refusedRange(address.getAddress());
  }

  /**
   * Returns the refusal of an address in a range, for callers that resolve.
   *
   * @param range the name from {@link #refusedRange(InetAddress)}
   * @return the exception to throw
   */
  public static WebhookTargetRefused refusedAddress(String range) {
    return new WebhookTargetRefused(
        Reason.REFUSED_ADDRESS,
        "a webhook target must not resolve to a "
            + range
            + " address unless webhooks.allowedNetworks lists it");
  }

  private Optional<String> refusedRange(byte[] address) {
    Optional<byte[]> embedded = embeddedIpv4(address);
    if (allowed(address) || embedded.filter(this::allowed).isPresent()) {
      return Optional.empty();
    }
    Optional<String> own = namedRange(address);
    if (own.isPresent()) {
      return own;
    }
    return embedded.flatMap(NetworkPolicy::namedRange);
  }

  private boolean allowed(byte[] address) {
    return allowedNetworks.stream().anyMatch(c -> c.contains(address));
  }

  private static Optional<String> namedRange(byte[] address) {
    return REFUSED.stream()
        .filter(r -> r.getKey().contains(address))
        .map(Map.Entry::getValue)
        .findFirst();
  }

  private static Optional<byte[]> embeddedIpv4(byte[] address) {
    if (address.length != 16) {
      return Optional.empty();
    }
    if (IPV4_MAPPED.contains(address) || NAT64.contains(address)) {
      return Optional.of(java.util.Arrays.copyOfRange(address, 12, 16));
    }
    if (SIX_TO_FOUR.contains(address)) {
      return Optional.of(java.util.Arrays.copyOfRange(address, 2, 6));
    }
    return Optional.empty();
  }

  private static Optional<byte[]> literal(String host) {
    String bare =
        host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    try {
      return Optional.of(Cidr.parseLiteral(bare));
    } catch (IllegalArgumentException notALiteral) {
      return Optional.empty();
    }
  }

  private static Map.Entry<Cidr, String> range(String cidr, String name) {
    return Map.entry(Cidr.parse(cidr), name);
  }
}
