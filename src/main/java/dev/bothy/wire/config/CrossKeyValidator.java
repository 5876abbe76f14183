package dev.bothy.wire.config;

import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import java.util.List;

/** Reports each failed {@link CrossKeyChecks} rule as its own violation. */
public class CrossKeyValidator implements ConstraintValidator<CrossKeyChecked, BothyConfiguration> {

  /** Creates the validator; Hibernate Validator instantiates it. */
  public CrossKeyValidator() {}

  @Override
  public boolean isValid(BothyConfiguration configuration, ConstraintValidatorContext context) {
    if (configuration == null) {
      return true;
    }
    List<String> problems = CrossKeyChecks.check(configuration);
    if (problems.isEmpty()) {
      return true;
    }
    context.disableDefaultConstraintViolation();
    for (String problem : problems) {
      context.buildConstraintViolationWithTemplate(escape(problem)).addConstraintViolation();
    }
    return false;
  }

  // Messages are templates: braces, dollars and backslashes would be interpolated.
  private static String escape(String message) {
    return message
        .replace("\\", "\\\\")
        .replace("{", "\\{")
        .replace("}", "\\}")
        .replace("$", "\\$");
  }
}
