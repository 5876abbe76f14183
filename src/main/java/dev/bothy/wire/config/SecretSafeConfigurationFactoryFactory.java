package dev.bothy.wire.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.configuration.ConfigurationException;
import io.dropwizard.configuration.ConfigurationFactory;
import io.dropwizard.configuration.ConfigurationFactoryFactory;
import io.dropwizard.configuration.ConfigurationParsingException;
import io.dropwizard.configuration.ConfigurationSourceProvider;
import io.dropwizard.configuration.DefaultConfigurationFactoryFactory;
import jakarta.validation.Validator;
import java.io.IOException;
import java.util.List;

/**
 * Dropwizard's configuration factory, except that a malformed YAML file is reported by line and
 * column only: Dropwizard would print the offending line, and that line may hold a password.
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
        delegate.create(klass, validator, objectMapper, propertyPrefix);
    return new ConfigurationFactory<>() {
      @Override
      public T build(ConfigurationSourceProvider provider, String path)
          throws IOException, ConfigurationException {
        try {
          return factory.build(provider, path);
        } catch (ConfigurationParsingException e) {
          if (!String.valueOf(e.getMessage()).contains("Malformed YAML")) {
            throw e;
          }
          throw new MalformedYamlException(path, location(e));
        }
      }

      @Override
      public T build() throws IOException, ConfigurationException {
        return factory.build();
      }
    };
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
