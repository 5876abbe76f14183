package dev.bothy.platform.jobs.domain;

import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * Which args record types may travel in a job row (the seeds' {@code ValidateArgsType}): only IDs,
 * numbers, enums and booleans, so a payload, a secret or a whole object can never slip into the
 * {@code args} column. A job looks up what it needs by ID when it runs.
 */
public final class ArgsRules {
  private static final Set<Class<?>> ALLOWED =
      Set.of(
          UUID.class,
          boolean.class,
          Boolean.class,
          byte.class,
          Byte.class,
          short.class,
          Short.class,
          int.class,
          Integer.class,
          long.class,
          Long.class,
          float.class,
          Float.class,
          double.class,
          Double.class,
          BigInteger.class,
          BigDecimal.class);

  private ArgsRules() {}

  /**
   * Lists what is wrong with an args type.
   *
   * @param type the args class
   * @return one line per problem, naming the component; empty when the type is fine
   */
  public static List<String> problems(Class<?> type) {
    List<String> problems = new ArrayList<>();
    if (!type.isRecord()) {
      problems.add(type.getName() + " is not a record");
      return problems;
    }
    if (type.getTypeParameters().length > 0) {
      problems.add(type.getName() + " is generic");
    }
    for (RecordComponent c : type.getRecordComponents()) {
      Class<?> t = c.getType();
      if (!ALLOWED.contains(t) && !t.isEnum()) {
        problems.add(
            type.getSimpleName()
                + "."
                + c.getName()
                + " is a "
                + t.getSimpleName()
                + "; job args hold only IDs (UUID), numbers, enums and booleans");
      }
    }
    return problems;
  }
}
