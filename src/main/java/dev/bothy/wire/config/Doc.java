package dev.bothy.wire.config;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The documentation of a configuration key or section, rendered into {@code
 * docs/operations/configuration.md} by {@link ConfigurationReference}.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.TYPE})
public @interface Doc {

  /**
   * Returns what the key means, in one or two sentences.
   *
   * @return the description
   */
  String value();
}
