package dev.bothy.wire;

import com.codahale.metrics.Gauge;
import dev.bothy.platform.lifecycle.Readiness;
import dev.bothy.platform.lifecycle.Role;
import io.dropwizard.core.setup.Environment;
import io.prometheus.metrics.exporter.servlet.jakarta.PrometheusMetricsServlet;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * The admin port's own endpoints beside Dropwizard's: {@code /prometheus} (the metric registry as
 * Prometheus text), {@code /healthz} (liveness) and {@code /readyz} (readiness), and the role gauge
 * {@code bothy_process_role{bothy_role}}.
 */
final class AdminEndpoints {
  /** The family of the role gauge, {@code bothy_process_role{bothy_role}}. */
  static final String ROLE_METRIC = "bothy.process.role";

  private AdminEndpoints() {}

  /**
   * Registers the role gauge and the servlets on the admin port.
   *
   * @param environment Dropwizard's environment
   * @param role the process's role
   * @param readiness the readiness registry {@code /readyz} reports
   */
  static void register(Environment environment, Role role, Readiness readiness) {
    environment
        .metrics()
        .register(
            LabelledDropwizardExports.name(ROLE_METRIC, "bothy_role", role.code()),
            (Gauge<Integer>) () -> 1);
    PrometheusRegistry prometheus = new PrometheusRegistry();
    prometheus.register(new LabelledDropwizardExports(environment.metrics()));
    environment
        .admin()
        .addServlet("prometheus", new PrometheusMetricsServlet(prometheus))
        .addMapping("/prometheus");
    environment.admin().addServlet("healthz", new LivenessServlet()).addMapping("/healthz");
    environment
        .admin()
        .addServlet("readyz", new ReadinessServlet(readiness, environment.getObjectMapper()))
        .addMapping("/readyz");
  }
}
