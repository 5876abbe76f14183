package dev.bothy.wire;

import dev.bothy.api.domain.TokenHash;
import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.cli.Command;
import io.dropwizard.core.setup.Bootstrap;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

/**
 * {@code tokens hash}: prints the SHA-256 of a token read from standard input, the value {@code
 * api.tokens[].sha256} takes. The token comes from standard input, never from an argument, so it
 * stays out of shell histories and process lists; one trailing line break is not part of it.
 *
 * <pre>{@code
 * openssl rand -hex 32 > robin.token
 * java -jar bothy.jar tokens hash < robin.token
 * }</pre>
 */
final class TokensCommand extends Command {
  /** The longest token read; a longer input is refused rather than read without end. */
  static final int MAX_TOKEN_BYTES = 4096;

  private final InputStream in;

  TokensCommand() {
    this(System.in);
  }

  TokensCommand(InputStream in) {
    super("tokens", "Prints the SHA-256 of an API token read from standard input (tokens hash)");
    this.in = in;
  }

  @Override
  public void configure(Subparser subparser) {
    // Dropwizard shows a command's description on its own help only; this lists it on -h too.
    subparser.help(getDescription());
    subparser
        .addSubparsers()
        .dest("action")
        .addParser("hash")
        .help("reads a token from standard input and prints its SHA-256 for api.tokens")
        .setDefault("action", "hash");
  }

  @Override
  public void run(Bootstrap<?> bootstrap, Namespace namespace) throws IOException {
    byte[] bytes = in.readNBytes(MAX_TOKEN_BYTES + 1);
    if (bytes.length > MAX_TOKEN_BYTES) {
      throw new IllegalArgumentException(
          "the token on standard input is longer than " + MAX_TOKEN_BYTES + " bytes");
    }
    String token = new String(bytes, StandardCharsets.UTF_8);
    if (token.endsWith("\n")) {
      token = token.substring(0, token.length() - 1);
    }
    if (token.endsWith("\r")) {
      token = token.substring(0, token.length() - 1);
    }
    if (token.isBlank()) {
      throw new IllegalArgumentException(
          "no token on standard input; pipe one in: tokens hash < file");
    }
    if (!token.equals(token.strip())) {
      throw new IllegalArgumentException(
          "the token starts or ends with white space; clients could not send it in a header");
    }
    if (!token.chars().allMatch(c -> c > ' ' && c < 0x7f)) {
      // The token filter takes the header's value after "Bearer " as the token, and HTTP
      // header values are ASCII: such a token could never match.
      throw new IllegalArgumentException(
          "a token is printable ASCII characters without spaces; clients could not send this one"
              + " as Authorization: Bearer TOKEN");
    }
    System.out.println(TokenHash.sha256Hex(token));
    System.out.flush();
  }

  @Override
  public void onError(Cli cli, Namespace namespace, Throwable e) {
    cli.getStdErr().println("tokens hash: " + e.getMessage());
  }
}
