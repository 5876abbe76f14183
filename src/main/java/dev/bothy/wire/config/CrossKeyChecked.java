package dev.bothy.wire.config;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** Runs {@link CrossKeyChecks} when the configuration is validated at load. */
@Documented
@Constraint(validatedBy = CrossKeyValidator.class)
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
public @interface CrossKeyChecked {

  /**
   * Returns the fallback message; each failed check reports its own.
   *
   * @return the message
   */
  String message() default "configuration keys contradict each other";

  /**
   * Returns the validation groups.
   *
   * @return none by default
   */
  Class<?>[] groups() default {};

  /**
   * Returns the payload.
   *
   * @return none by default
   */
  Class<? extends Payload>[] payload() default {};
}
