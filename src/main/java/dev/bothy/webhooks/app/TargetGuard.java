package dev.bothy.webhooks.app;

import dev.bothy.webhooks.domain.NetworkPolicy;
import dev.bothy.webhooks.domain.WebhookTargetRefused;
import dev.bothy.webhooks.domain.WebhookTargetRefused.Reason;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Checks a webhook target and resolves its host once, for the API at creation (a target the rules
 * refuse is refused with a problem response) and for the transport at each attempt (DNS answers
 * change, so the check is repeated, and the transport connects to the address returned here).
 *
 * <p>If any answer of the lookup lies in a refused range, the target is refused, even when other
 * answers are public: a name that answers both is either misconfigured or an attack, and choosing
 * the public answer would leave the choice to whoever controls the DNS (decision D-WHN-03).
 */
public final class TargetGuard {
  private final NetworkPolicy policy;
  private final HostResolver resolver;

  /**
   * Creates a guard.
   *
   * @param policy the network rules
   * @param resolver the lookup, {@link HostResolver#system()} in production
   */
  public TargetGuard(NetworkPolicy policy, HostResolver resolver) {
    this.policy = Objects.requireNonNull(policy, "policy");
    this.resolver = Objects.requireNonNull(resolver, "resolver");
  }

  /**
   * Returns the network rules.
   *
   * @return the policy
   */
  public NetworkPolicy policy() {
    return policy;
  }

  /**
   * Checks the target's form, resolves its host once and checks every address.
   *
   * @param target the subscription's URL
   * @return the resolved addresses, all permitted, in the resolver's order; the first is the one to
   *     connect to
   * @throws WebhookTargetRefused when the form is refused ({@code scheme}, {@code plain_http},
   *     {@code no_host}, {@code userinfo}), any address is refused ({@code refused_address}) or the
   *     host does not resolve ({@code unresolved})
   */
  public List<InetAddress> resolveChecked(URI target) {
    policy.checkTarget(target);
    String host = target.getHost();
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    List<InetAddress> addresses;
    try {
      addresses = List.copyOf(resolver.resolve(host));
    } catch (UnknownHostException e) {
      throw new WebhookTargetRefused(
          Reason.UNRESOLVED, "a webhook target's host must resolve to an address");
    }
    if (addresses.isEmpty()) {
      throw new WebhookTargetRefused(
          Reason.UNRESOLVED, "a webhook target's host must resolve to an address");
    }
    for (InetAddress address : addresses) {
      Optional<String> range = policy.refusedRange(address);
      if (range.isPresent()) {
        throw NetworkPolicy.refusedAddress(range.get());
      }
    }
    return addresses;
  }
}
