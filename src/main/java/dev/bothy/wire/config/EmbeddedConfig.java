package dev.bothy.wire.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;

/** The {@code database.embedded} section: the embedded PostgreSQL used when no URL is set. */
@Doc("The embedded PostgreSQL 18 that starts when `database.url` is absent (development only).")
public class EmbeddedConfig {
  /** Default of {@code database.embedded.dataDirectory}. */
  public static final String DEFAULT_DATA_DIRECTORY = "./bothy-data/postgres";

  /** Default of {@code database.embedded.port}: not a standard port, so it never meets 5432. */
  public static final int DEFAULT_PORT = 54329;

  /** Upper bound of {@code database.embedded.port}: the largest TCP port. */
  public static final int MAX_PORT = 65535;

  /** Default of {@code database.embedded.startupWait}. */
  public static final Duration DEFAULT_STARTUP_WAIT = Duration.seconds(60);

  @Doc(
      "Directory of the embedded server's data; created on first start, kept across starts. Its"
          + " file `bothy_password` holds the generated password every connection needs; a"
          + " second process on the same server sets it as `database.password`.")
  @NotBlank
  @JsonProperty
  private String dataDirectory = DEFAULT_DATA_DIRECTORY;

  @Doc("Loopback port of the embedded server; 0 picks a free port at each start.")
  @Min(0)
  @Max(MAX_PORT)
  @JsonProperty
  private int port = DEFAULT_PORT;

  @Doc("How long to wait for the embedded server to accept connections at start.")
  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.SECONDS)
  @JsonProperty
  private Duration startupWait = DEFAULT_STARTUP_WAIT;

  @Doc(
      "Whether each commit waits for the disk (fsync and synchronous_commit on), so an answered"
          + " write survives a crash of PostgreSQL or the machine; false is faster, loses the"
          + " last writes when PostgreSQL is killed and can corrupt the whole data directory on"
          + " a machine crash (throwaway data only).")
  @JsonProperty
  private boolean durable = true;

  /**
   * Returns {@code database.embedded.dataDirectory}.
   *
   * @return the data directory path
   */
  public String dataDirectory() {
    return dataDirectory;
  }

  /**
   * Returns {@code database.embedded.port}.
   *
   * @return the port, 0 for a free one
   */
  public int port() {
    return port;
  }

  /**
   * Returns {@code database.embedded.startupWait}.
   *
   * @return the wait
   */
  public Duration startupWait() {
    return startupWait;
  }

  /**
   * Returns {@code database.embedded.durable}.
   *
   * @return true when commits are synced to disk
   */
  public boolean durable() {
    return durable;
  }
}
