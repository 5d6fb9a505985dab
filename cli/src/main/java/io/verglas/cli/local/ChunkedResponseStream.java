package io.verglas.cli.local;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.LastHttpContent;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.time.Duration;

/**
 * A response body written as HTTP chunks from a worker thread (never the event loop): bytes
 * gather until {@link #flush()}, which sends them as one chunk and waits until the socket took
 * them. So a stream holds at most what its writer puts between flushes, however slowly the
 * client reads; a client that takes nothing for {@code writeTimeout} is disconnected, which
 * frees the thread.
 */
final class ChunkedResponseStream extends OutputStream {
  private final Channel channel;
  private final Duration writeTimeout;
  private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
  private boolean closed;

  ChunkedResponseStream(Channel channel, Duration writeTimeout) {
    this.channel = channel;
    this.writeTimeout = writeTimeout;
  }

  @Override
  public void write(int b) {
    pending.write(b);
  }

  @Override
  public void write(byte[] bytes, int offset, int length) {
    pending.write(bytes, offset, length);
  }

  @Override
  public void flush() throws IOException {
    if (pending.size() > 0) {
      byte[] chunk = pending.toByteArray();
      pending.reset();
      await(channel.writeAndFlush(new DefaultHttpContent(Unpooled.wrappedBuffer(chunk))));
    }
  }

  /** Sends what is pending and ends the response. */
  @Override
  public void close() throws IOException {
    if (!closed) {
      closed = true;
      flush();
      await(channel.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT));
    }
  }

  private void await(ChannelFuture write) throws IOException {
    try {
      if (!write.await(writeTimeout.toMillis())) {
        channel.close();
        throw new IOException("Cannot stream to " + channel.remoteAddress()
            + ": the client took nothing for " + writeTimeout.toMillis() + " ms");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      channel.close();
      throw new InterruptedIOException("Interrupted while streaming to "
          + channel.remoteAddress());
    }
    if (!write.isSuccess()) {
      throw new IOException("Cannot stream to " + channel.remoteAddress() + ": "
          + write.cause(), write.cause());
    }
  }
}
