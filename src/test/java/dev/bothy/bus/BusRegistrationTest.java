package dev.bothy.bus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bothy.bus.app.HandlerRegistry;
import dev.bothy.sync.EventType;
import dev.bothy.sync.EventTypes;
import dev.bothy.sync.SettingsUpdated;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Registration of bus consumers: names are checked where a module declares them, and duplicates
 * across modules fail before the start with a message naming both declarations.
 */
class BusRegistrationTest {
  private static final BusHandler.Function<SettingsUpdated> NOOP = (tx, e, at) -> {};

  private static BusHandler<SettingsUpdated> handler(String name) {
    return BusHandler.of(name, EventTypes.SETTINGS_UPDATED, NOOP);
  }

  @Test
  void a_malformed_handler_or_durable_name_fails_at_the_declaration() {
    assertThatThrownBy(() -> handler("Echo"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("<module>.<name>")
        .hasMessageContaining("Echo");
    assertThatThrownBy(() -> new BusConsumer("system-echo", List.of(handler("system.echo"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("<module>_<name>")
        .hasMessageContaining("system-echo");
    assertThatThrownBy(() -> new BusConsumer("system_echo", List.of()))
        .hasMessageContaining("no handler");
  }

  @Test
  void a_consumer_holds_only_its_module_s_handlers_each_once() {
    assertThatThrownBy(() -> new BusConsumer("system_echo", List.of(handler("webhooks.echo"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("webhooks.echo")
        .hasMessageContaining("is not of system");
    assertThatThrownBy(
            () ->
                new BusConsumer(
                    "system_echo", List.of(handler("system.echo"), handler("system.echo"))))
        .hasMessageContaining("declares the handler system.echo twice");
    assertThat(new BusConsumer("system_echo", List.of(handler("system.echo"))).module())
        .isEqualTo("system");
  }

  @Test
  void duplicate_names_across_consumers_fail_naming_both() {
    HandlerRegistry registry = new HandlerRegistry();
    registry.register(
        "system", List.of(new BusConsumer("system_echo", List.of(handler("system.echo")))));

    assertThatThrownBy(
            () ->
                registry.register(
                    "system",
                    List.of(new BusConsumer("system_echo", List.of(handler("system.other"))))))
        .hasMessageContaining("the bus consumer system_echo is declared twice");
    assertThatThrownBy(
            () ->
                registry.register(
                    "system",
                    List.of(new BusConsumer("system_audit", List.of(handler("system.echo"))))))
        .hasMessageContaining("system.echo of system_audit is declared by system_echo already");
    assertThatThrownBy(
            () ->
                registry.register(
                    "webhooks",
                    List.of(new BusConsumer("system_more", List.of(handler("system.more"))))))
        .hasMessageContaining("the module webhooks declares the bus consumer system_more");
    assertThat(registry.consumers())
        .extracting(BusConsumer::durable)
        .containsExactly("system_echo");
  }

  @Test
  void handlers_are_found_by_type_and_by_a_stable_id() {
    HandlerRegistry registry = new HandlerRegistry();
    registry.register(
        "system",
        List.of(
            new BusConsumer(
                "system_echo", List.of(handler("system.echo"), handler("system.audit")))));

    assertThat(registry.interested("settings.updated"))
        .extracting(r -> r.handler().name())
        .containsExactly("system.echo", "system.audit");
    assertThat(registry.interested("system.pinged")).isEmpty();
    assertThat(HandlerRegistry.idOf("system.echo"))
        .isEqualTo(HandlerRegistry.idOf("system.echo"))
        .isNotEqualTo(HandlerRegistry.idOf("system.audit"));
    assertThat(registry.byId(HandlerRegistry.idOf("system.audit")))
        .map(r -> r.handler().name())
        .contains("system.audit");
  }

  /** A payload record the catalogue does not know. */
  record Unknown(String note) {}

  @Test
  void the_start_fails_for_a_type_the_catalogue_lacks_and_registrations_end_at_the_start() {
    HandlerRegistry registry = new HandlerRegistry();
    EventType<Unknown> unknown =
        new EventType<>(
            "system.unknown",
            1,
            Unknown.class,
            "system",
            "Not in the catalogue.",
            EventType.Origin.MODULE);
    registry.register(
        "system",
        List.of(
            new BusConsumer(
                "system_echo", List.of(BusHandler.of("system.echo", unknown, (tx, e, at) -> {})))));

    assertThatThrownBy(() -> registry.freeze(EventTypes.withBuiltIns()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("system.echo")
        .hasMessageContaining("system.unknown")
        .hasMessageContaining("does not have");

    HandlerRegistry ok = new HandlerRegistry();
    ok.register("system", List.of(new BusConsumer("system_echo", List.of(handler("system.echo")))));
    ok.freeze(EventTypes.withBuiltIns());
    assertThatThrownBy(
            () ->
                ok.register(
                    "system",
                    List.of(new BusConsumer("system_late", List.of(handler("system.late"))))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("after the start");
  }

  @Test
  void a_projection_declares_its_tables_and_reset_and_others_are_none() {
    Projection view = new Projection(List.of("system_views"), () -> 0L);
    BusConsumer projection =
        BusConsumer.projection("system_view", List.of(handler("system.view")), view);

    assertThat(projection.isProjection()).isTrue();
    assertThat(projection.projection()).contains(view);
    assertThat(projection.handlerNames()).containsExactly("system.view");
    assertThat(new BusConsumer("system_echo", List.of(handler("system.echo"))).isProjection())
        .isFalse();
    assertThatThrownBy(() -> new Projection(List.of(), () -> 0L))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one table");
  }
}
