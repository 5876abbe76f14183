package dev.bothy.webhooks.app;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Turns a host name into its addresses: the one lookup of a delivery attempt. Tests give their own
 * to answer private or changing addresses.
 */
@FunctionalInterface
public interface HostResolver {
  /**
   * Resolves a host.
   *
   * @param host a name or an address literal (IPv6 without brackets)
   * @return every address, at least one
   * @throws UnknownHostException when the host does not resolve
   */
  List<InetAddress> resolve(String host) throws UnknownHostException;

  /**
   * Returns the operating system's resolver ({@link InetAddress#getAllByName(String)}, with the
   * JVM's address cache).
   *
   * @return the system resolver
   */
  static HostResolver system() {
    return host -> List.of(InetAddress.getAllByName(host));
  }
}
