package dev.bothy.api.http;

import jakarta.ws.rs.ext.WriterInterceptor;
import jakarta.ws.rs.ext.WriterInterceptorContext;
import java.io.IOException;
import java.io.OutputStream;
import org.glassfish.jersey.message.internal.CommittingOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lets an event stream's flushes reach the client. Jersey holds the first bytes of every body (8
 * KiB by default, {@code jersey.config.server.contentLength.buffer}) to set {@code Content-Length},
 * and ignores {@code flush()} until that buffer overflows; a stream's headers, heartbeats and first
 * events would wait for it. For the body of an event stream only, this turns the buffer off before
 * the body is written, so every other response keeps its {@code Content-Length} and goes out in one
 * write.
 */
public final class StreamFlushInterceptor implements WriterInterceptor {
  private static final Logger LOG = LoggerFactory.getLogger(StreamFlushInterceptor.class);

  /** Creates the interceptor. */
  public StreamFlushInterceptor() {}

  @Override
  public void aroundWriteTo(WriterInterceptorContext context) throws IOException {
    if (context.getEntity() instanceof EventStreams.EventStream) {
      OutputStream out = context.getOutputStream();
      if (out instanceof CommittingOutputStream committing && !committing.isCommitted()) {
        committing.enableBuffering(0);
      } else {
        // Another interceptor wrapped the stream: the events still arrive, only late.
        LOG.warn(
            "event stream body is buffered by Jersey: output={}", out.getClass().getSimpleName());
      }
    }
    context.proceed();
  }
}
