package dev.bothy.wire;

import com.codahale.metrics.Gauge;
import dev.bothy.platform.lifecycle.Readiness;
import dev.bothy.platform.lifecycle.Role;
import io.dropwizard.core.setup.Environment;
import io.prometheus.metrics.exporter.servlet.jakarta.PrometheusMetricsServlet;
import io.prometheus.metrics.instrumentation.dropwizard.DropwizardExports;
import io.prometheus.metrics.instrumentation.dropwizard5.labels.CustomLabelMapper;
import io.prometheus.metrics.instrumentation.dropwizard5.labels.MapperConfig;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.List;
import java.util.Map;

/**
 * The admin port's own endpoints beside Dropwizard's: {@code /prometheus} (the metric registry as
 * Prometheus text), {@code /healthz} (liveness) and {@code /readyz} (readiness), and the role gauge
 * {@code bothy_process_role{bothy_role}}.
 */
final class AdminEndpoints {
  /** The metric whose name carries the role; mapped to {@code bothy_process_role{bothy_role}}. */
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
    environment.metrics().register(ROLE_METRIC + "." + role.code(), (Gauge<Integer>) () -> 1);
    PrometheusRegistry prometheus = new PrometheusRegistry();
    DropwizardExports.builder()
        .dropwizardRegistry(environment.metrics())
        .metricFilter(LabelledDropwizardExports.UNLABELLED)
        .customLabelMapper(
            new CustomLabelMapper(
                List.of(
                    new MapperConfig(
                        ROLE_METRIC + ".*", "bothy_process_role", Map.of("bothy_role", "${0}")))))
        .register(prometheus);
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
