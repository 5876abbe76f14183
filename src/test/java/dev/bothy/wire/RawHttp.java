package dev.bothy.wire;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * One HTTP/1.1 exchange over a plain socket, for requests the JDK client refuses to send (two
 * {@code Content-Length} or {@code Host} headers, raw bytes in the path, a header of any size).
 */
public final class RawHttp {
  private RawHttp() {}

  /**
   * An answer as it came off the wire.
   *
   * @param status the status code
   * @param headers the header lines, {@code name: value}
   * @param body the body, decoded as UTF-8
   */
  public record Answer(int status, List<String> headers, String body) {
    /** The first value of a header, by name in any case. */
    public Optional<String> header(String name) {
      String prefix = name.toLowerCase(Locale.ROOT) + ":";
      return headers.stream()
          .filter(h -> h.toLowerCase(Locale.ROOT).startsWith(prefix))
          .map(h -> h.substring(prefix.length()).strip())
          .findFirst();
    }
  }

  /**
   * Sends the request text (lines joined with CRLF, the blank line included by the caller) and
   * reads the answer until the server closes the connection or the body's length is read.
   */
  public static Answer exchange(int port, String request) throws IOException {
    return exchange(port, request.getBytes(StandardCharsets.ISO_8859_1));
  }

  /** As {@link #exchange(int, String)}, with the request as bytes. */
  public static Answer exchange(int port, byte[] request) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
      socket.setSoTimeout(30_000);
      OutputStream out = socket.getOutputStream();
      try {
        out.write(request);
        out.flush();
      } catch (SocketException e) {
        // The server may answer and close before it read everything (an over-long header).
      }
      InputStream in = socket.getInputStream();
      String statusLine = line(in);
      int status = Integer.parseInt(statusLine.split(" ")[1]);
      List<String> headers = new ArrayList<>();
      long length = -1;
      for (String h = line(in); !h.isEmpty(); h = line(in)) {
        headers.add(h);
        if (h.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
          length = Long.parseLong(h.substring("content-length:".length()).strip());
        }
      }
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      if (length >= 0) {
        body.write(in.readNBytes((int) length));
      } else {
        try {
          in.transferTo(body);
        } catch (SocketException e) {
          // A reset after the answer: the body read so far is the answer.
        }
      }
      return new Answer(status, headers, body.toString(StandardCharsets.UTF_8));
    }
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); b != -1 && b != '\n'; b = in.read()) {
      if (b != '\r') {
        line.write(b);
      }
    }
    return line.toString(StandardCharsets.ISO_8859_1);
  }
}
