package dev.bothy.webhooks.app;

import dev.bothy.webhooks.Subscription;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A subscription with its secrets, as the store holds it; only the delivery job and the rotation
 * see the secrets.
 *
 * @param view what operators see
 * @param secret the current secret, {@code whsec_...}
 * @param previousSecret the secret before the last rotation, while it still signs
 * @param generation raised by every enable and recover; part of the jobs' unique keys, so a new
 *     chain of deliveries is not mistaken for an old one
 */
public record StoredSubscription(
    Subscription view, String secret, Optional<String> previousSecret, int generation) {
  /** Checks that no component is null. */
  public StoredSubscription {
    Objects.requireNonNull(view, "view");
    Objects.requireNonNull(secret, "secret");
    Objects.requireNonNull(previousSecret, "previousSecret");
  }

  /**
   * The secrets that sign a delivery at {@code now}: the current one, and the previous one until
   * its expiry.
   *
   * @param now the time of the delivery
   * @return one or two encoded secrets, the current first
   */
  public List<String> signingSecrets(Instant now) {
    List<String> secrets = new ArrayList<>(2);
    secrets.add(secret);
    previousSecret
        .filter(p -> view.previousSecretExpiresAt().filter(now::isBefore).isPresent())
        .ifPresent(secrets::add);
    return secrets;
  }

  /** Leaves the secrets out, so a logged or printed value never shows them. */
  @Override
  public String toString() {
    return "StoredSubscription[" + view.id() + "]";
  }
}
