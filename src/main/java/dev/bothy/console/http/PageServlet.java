package dev.bothy.console.http;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Serves the console page and its files from the jar, exactly as they are (no template, no build
 * step): {@code /console} and {@code /console/} answer {@code index.html}, {@code /console/<file>}
 * one of {@link #FILES}; anything else is a 404. The files are read once, when the servlet is
 * built. The page needs no token: it holds no data, and every request for data carries one.
 */
public final class PageServlet extends HttpServlet {
  /** The files of the page and their media types; the first is the page itself. */
  static final Map<String, String> FILES =
      Map.of(
          "index.html", "text/html; charset=utf-8",
          "console.css", "text/css; charset=utf-8",
          "app.js", "text/javascript; charset=utf-8",
          "api.js", "text/javascript; charset=utf-8",
          "charts.js", "text/javascript; charset=utf-8",
          "dom.js", "text/javascript; charset=utf-8",
          "letters.js", "text/javascript; charset=utf-8",
          "webhooks.js", "text/javascript; charset=utf-8");

  private static final long serialVersionUID = 1L;
  private static final String ROOT = "/dev/bothy/console/web/";

  private final Map<String, byte[]> bodies = new LinkedHashMap<>();

  /**
   * Reads the files.
   *
   * @throws IllegalStateException when a file is missing from the jar (a broken build)
   */
  public PageServlet() {
    for (String name : FILES.keySet()) {
      try (InputStream in = PageServlet.class.getResourceAsStream(ROOT + name)) {
        if (in == null) {
          throw new IllegalStateException("the console file " + name + " is not in the jar");
        }
        bodies.put(name, in.readAllBytes());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  @Override
  protected void doGet(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    String path = request.getPathInfo();
    String name = path == null || path.equals("/") ? "index.html" : path.substring(1);
    byte[] body = bodies.get(name);
    if (body == null) {
      response.sendError(HttpServletResponse.SC_NOT_FOUND);
      return;
    }
    response.setContentType(FILES.get(name));
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
  }
}
