package dev.bothy.wire;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bothy.platform.lifecycle.Readiness;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code /readyz} on the admin port: 200 when every readiness check passes, else 503 with the names
 * of the failing checks and nothing else (no error text, which could carry internals).
 */
final class ReadinessServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;

  private final transient Readiness readiness;
  private final transient ObjectMapper json;

  ReadinessServlet(Readiness readiness, ObjectMapper json) {
    this.readiness = readiness;
    this.json = json;
  }

  @Override
  protected void doGet(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    List<String> failing = readiness.failing();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", failing.isEmpty() ? "ready" : "not_ready");
    if (!failing.isEmpty()) {
      body.put("failing", failing);
    }
    response.setStatus(failing.isEmpty() ? 200 : 503);
    response.setContentType("application/json");
    response.setHeader("Cache-Control", "no-store");
    json.writeValue(response.getOutputStream(), body);
  }
}
