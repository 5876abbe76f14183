package dev.bothy.wire;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * {@code /healthz} on the admin port: 200 while the process runs. It checks nothing else on
 * purpose: a liveness probe that follows the database would restart healthy processes during a
 * database outage.
 */
final class LivenessServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;

  @Override
  protected void doGet(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    response.setStatus(200);
    response.setContentType("application/json");
    response.setHeader("Cache-Control", "no-store");
    response.getWriter().write("{\"status\":\"alive\"}");
  }
}
