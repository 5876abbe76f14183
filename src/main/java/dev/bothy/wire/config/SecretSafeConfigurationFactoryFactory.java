package dev.bothy.wire.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.type.LogicalType;
import io.dropwizard.configuration.ConfigurationException;
import io.dropwizard.configuration.ConfigurationFactory;
import io.dropwizard.configuration.ConfigurationFactoryFactory;
import io.dropwizard.configuration.ConfigurationParsingException;
import io.dropwizard.configuration.ConfigurationSourceProvider;
import io.dropwizard.configuration.ConfigurationValidationException;
import io.dropwizard.configuration.DefaultConfigurationFactoryFactory;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validator;
import java.io.IOException;
import java.util.List;
import java.util.Set;

/**
 * Dropwizard's configuration factory, except that its parse errors never show a value: a malformed
 * YAML file is reported by line and column only (Dropwizard would print the offending line), and a
 * value that cannot be read as its key's type by the key and the type expected (Dropwizard and
 * Jackson would quote the value, in the message and in the causes a stack trace prints). Either may
 * be a password.
 *
 * @param <T> the configuration class
 */
public final class SecretSafeConfigurationFactoryFactory<T>
    implements ConfigurationFactoryFactory<T> {
  private final DefaultConfigurationFactoryFactory<T> delegate =
      new DefaultConfigurationFactoryFactory<>();

  /** Creates the factory factory. */
  public SecretSafeConfigurationFactoryFactory() {}

  /**
   * Creates a configuration factory that hides the text of malformed YAML.
   *
   * @param klass the configuration class
   * @param validator validates the loaded configuration
   * @param objectMapper reads the YAML
   * @param propertyPrefix the prefix of system property overrides, {@code dw}
   * @return the factory
   */
  @Override
  public ConfigurationFactory<T> create(
      Class<T> klass, Validator validator, ObjectMapper objectMapper, String propertyPrefix) {
    ConfigurationFactory<T> factory =
        delegate.create(klass, validator, strict(objectMapper), propertyPrefix);
    return new ConfigurationFactory<>() {
      @Override
      public T build(ConfigurationSourceProvider provider, String path)
          throws IOException, ConfigurationException {
        try {
          return factory.build(provider, path);
        } catch (JsonMappingException e) {
          // Thrown while the file is read into a tree, before Dropwizard maps it: a key twice.
          String twice = duplicateKey(e);
          if (twice == null) {
            throw e;
          }
          throw new DuplicateKeyException(path, twice, location(e));
        } catch (ConfigurationParsingException e) {
          if (String.valueOf(e.getMessage()).contains("Malformed YAML")) {
            throw new MalformedYamlException(path, location(e));
          }
          JsonMappingException mapping = mappingCause(e);
          if (mapping == null || mapping instanceof UnrecognizedPropertyException) {
            // An unknown key's message names keys only, and suggests the known ones.
            throw e;
          }
          throw new UnreadableValueException(path, keyOf(mapping), expected(mapping));
        } catch (ConfigurationValidationException e) {
          throw new InvalidValuesException(path, e.getConstraintViolations());
        }
      }

      @Override
      public T build() throws IOException, ConfigurationException {
        return factory.build();
      }
    };
  }

  /**
   * The mapper that reads the configuration: Jackson's defaults, except that a fraction is not cut
   * to a whole number, a number is not a flag, and a key given twice is refused instead of the last
   * one winning silently. Text stays readable as a number or a flag: {@code -Ddw.} overrides reach
   * the configuration as text.
   */
  static ObjectMapper strict(ObjectMapper objectMapper) {
    ObjectMapper strict =
        objectMapper
            .copy()
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);
    strict
        .coercionConfigFor(LogicalType.Boolean)
        .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
        .setCoercion(CoercionInputShape.Float, CoercionAction.Fail);
    return strict;
  }

  /** The dotted key a duplicate refers to, or null when the failure is something else. */
  private static String duplicateKey(JsonMappingException e) {
    if (!String.valueOf(e.getOriginalMessage()).startsWith("Duplicate field")
        || !(e.getProcessor() instanceof JsonParser parser)) {
      return null;
    }
    java.util.ArrayDeque<String> parts = new java.util.ArrayDeque<>();
    for (JsonStreamContext c = parser.getParsingContext(); c != null; c = c.getParent()) {
      if (c.inObject() && c.getCurrentName() != null) {
        parts.addFirst("." + c.getCurrentName());
      } else if (c.inArray()) {
        parts.addFirst("[" + c.getCurrentIndex() + "]");
      }
    }
    String key = String.join("", parts);
    return key.isEmpty() ? null : key.startsWith(".") ? key.substring(1) : key;
  }

  private static String location(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof JsonProcessingException json && json.getLocation() != null) {
        JsonLocation at = json.getLocation();
        return "line " + at.getLineNr() + ", column " + at.getColumnNr();
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return "an unknown position";
  }

  private static JsonMappingException mappingCause(Throwable failure) {
    for (Throwable t = failure; t != null && t.getCause() != t; t = t.getCause()) {
      if (t instanceof JsonMappingException mapping) {
        return mapping;
      }
    }
    return null;
  }

  /**
   * The key as the configuration reference writes it: {@code database.maxPoolSize}, {@code a[0]}.
   */
  static String keyOf(JsonMappingException mapping) {
    StringBuilder key = new StringBuilder();
    for (JsonMappingException.Reference reference : mapping.getPath()) {
      if (reference.getFieldName() != null) {
        key.append(key.length() == 0 ? "" : ".").append(reference.getFieldName());
      } else if (reference.getIndex() >= 0) {
        key.append('[').append(reference.getIndex()).append(']');
      }
    }
    return key.length() == 0 ? "the top level" : key.toString();
  }

  /** What the key takes, in words, from the type Jackson was reading. */
  static String expected(JsonMappingException mapping) {
    Class<?> type = null;
    if (mapping instanceof MismatchedInputException mismatch) {
      type = mismatch.getTargetType();
    } else if (mapping instanceof ValueInstantiationException instantiation) {
      type = instantiation.getType().getRawClass();
    }
    for (Throwable t = mapping; type == null && t != null && t.getCause() != t; t = t.getCause()) {
      if (t instanceof InputCoercionException outOfRange) {
        // A whole number too large for its key's type: the range says what fits.
        type = outOfRange.getTargetType();
        if (type == int.class || type == Integer.class) {
          return "a whole number from " + Integer.MIN_VALUE + " to " + Integer.MAX_VALUE;
        }
        if (type == long.class || type == Long.class) {
          return "a whole number from " + Long.MIN_VALUE + " to " + Long.MAX_VALUE;
        }
      }
    }
    if (type == null) {
      return "a value of the type the configuration reference gives";
    }
    if (type == int.class
        || type == long.class
        || type == Integer.class
        || type == Long.class
        || type == short.class
        || type == Short.class) {
      return "a whole number";
    }
    if (type == boolean.class || type == Boolean.class) {
      return "true or false";
    }
    if (type == double.class || type == Double.class || type == float.class) {
      return "a number";
    }
    if (type == io.dropwizard.util.Duration.class || type == java.time.Duration.class) {
      return "a duration such as 30s, 500ms or 2h";
    }
    if (type == io.dropwizard.util.DataSize.class) {
      return "a size such as 512KiB or 10MiB";
    }
    if (type == String.class || CharSequence.class.isAssignableFrom(type)) {
      return "text";
    }
    if (type.isEnum()) {
      return "one of "
          + java.util.Arrays.stream(type.getEnumConstants())
              .map(c -> ((Enum<?>) c).name().toLowerCase(java.util.Locale.ROOT))
              .toList();
    }
    if (java.util.Collection.class.isAssignableFrom(type) || type.isArray()) {
      return "a list";
    }
    return "a mapping of keys (see the configuration reference)";
  }

  /** A value its key cannot take, reported by key and expected type, without the value. */
  static final class UnreadableValueException extends ConfigurationException {
    private static final long serialVersionUID = 1L;

    UnreadableValueException(String path, String key, String expected) {
      super(
          path,
          List.of(
              key
                  + " cannot take the value given: it takes "
                  + expected
                  + " (the value is not shown, it may be a secret)"));
    }
  }

  /**
   * Values that break a rule: one line per rule, the key then the rule. Dropwizard's own lines show
   * Hibernate Validator's {@code .<list element>} after the index of a list item, and a space
   * before the rule of a cross-key check, whose path is empty since its message names the keys.
   */
  static final class InvalidValuesException extends ConfigurationException {
    private static final long serialVersionUID = 1L;

    InvalidValuesException(String path, Set<? extends ConstraintViolation<?>> violations) {
      super(path, lines(violations));
    }

    /**
     * The lines of the violations, sorted.
     *
     * @param violations what the validator found
     * @return one line per violation: the key, then the rule
     */
    static List<String> lines(Set<? extends ConstraintViolation<?>> violations) {
      java.util.TreeSet<String> sorted = new java.util.TreeSet<>();
      for (ConstraintViolation<?> v : violations) {
        String key = String.valueOf(v.getPropertyPath()).replace(".<list element>", "");
        String rule = durationBound(v.getConstraintDescriptor().getAnnotation(), v.getMessage());
        sorted.add(key.isEmpty() ? rule : key + " " + rule);
      }
      return List.copyOf(sorted);
    }

    // Dropwizard's duration bounds read "1 SECONDS"; the bound in the key's own syntax ("1s") is
    // what an operator can type back.
    private static String durationBound(java.lang.annotation.Annotation rule, String message) {
      if (rule instanceof io.dropwizard.validation.MinDuration min) {
        return (min.inclusive() ? "must be at least " : "must be longer than ")
            + ConfigurationReference.compact(min.value(), min.unit());
      }
      if (rule instanceof io.dropwizard.validation.MaxDuration max) {
        return (max.inclusive() ? "must be at most " : "must be shorter than ")
            + ConfigurationReference.compact(max.value(), max.unit());
      }
      return message;
    }
  }

  /** A key given twice in one mapping, named with its position and without either value. */
  static final class DuplicateKeyException extends ConfigurationException {
    private static final long serialVersionUID = 1L;

    DuplicateKeyException(String path, String key, String where) {
      super(
          path,
          List.of(
              key
                  + " is given twice (the second at "
                  + where
                  + "): keep one, since which one counts is not obvious"));
    }
  }

  /** A malformed YAML file, reported without its text. */
  static final class MalformedYamlException extends ConfigurationException {
    private static final long serialVersionUID = 1L;

    MalformedYamlException(String path, String where) {
      super(
          path,
          List.of(
              "Malformed YAML at "
                  + where
                  + " (the line is not shown, it may hold a password); check the"
                  + " indentation, quotes and brackets there"));
    }
  }
}
