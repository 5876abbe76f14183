package dev.bothy.console.http;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Sets the security headers of every {@code /console} response, the page and its API alike, before
 * the response is written: a strict Content-Security-Policy (scripts, styles and requests only from
 * the admin port itself, no inline script, no framing, no form posts), no MIME sniffing, no
 * referrer and no caching.
 */
public final class SecurityHeaders implements Filter {
  /**
   * The Content-Security-Policy: everything from the page's own origin, nothing inline (inline SVG
   * is markup and allowed), no plugin, no base URI, no form action, no frame ancestor.
   */
  public static final String CONTENT_SECURITY_POLICY =
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
          + " connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

  /** Creates the filter. */
  public SecurityHeaders() {}

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    HttpServletResponse http = (HttpServletResponse) response;
    http.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    http.setHeader("X-Content-Type-Options", "nosniff");
    http.setHeader("Referrer-Policy", "no-referrer");
    http.setHeader("X-Frame-Options", "DENY");
    http.setHeader("Cache-Control", "no-store");
    chain.doFilter(request, response);
  }
}
