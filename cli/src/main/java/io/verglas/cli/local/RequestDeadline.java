package io.verglas.cli.local;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a connection that does not send a whole request within the timeout: counted from
 * the moment it opens, and again from the end of each response (an idle keep-alive connection
 * is closed the same way). Slow-loris clients (silent sockets, a head trickled byte by byte, a
 * body that never ends) thus hold a connection for at most the timeout, and never a thread:
 * the timer runs on the connection's event loop. While the server works on a request the
 * timer is off, so a long answer (a follow stream) is not cut.
 */
final class RequestDeadline extends ChannelDuplexHandler {
  private static final Logger LOG = LoggerFactory.getLogger(RequestDeadline.class);
  private final long timeoutNanos;
  private ScheduledFuture<?> deadline;

  RequestDeadline(Duration timeout) {
    this.timeoutNanos = timeout.toNanos();
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    if (ctx.channel().isActive()) {
      arm(ctx);
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    arm(ctx);
    ctx.fireChannelActive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof LastHttpContent) {
      disarm();
    }
    ctx.fireChannelRead(msg);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (msg instanceof LastHttpContent && !informational(msg)) {
      promise = promise.unvoid();
      promise.addListener(written -> {
        if (ctx.channel().isActive()) {
          arm(ctx);
        }
      });
    }
    ctx.write(msg, promise);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    disarm();
    ctx.fireChannelInactive();
  }

  /** A 100 Continue: the request's body is still to come, under the same deadline. */
  private static boolean informational(Object msg) {
    return msg instanceof HttpResponse response
        && response.status().codeClass() == HttpStatusClass.INFORMATIONAL;
  }

  private void arm(ChannelHandlerContext ctx) {
    disarm();
    deadline = ctx.executor().schedule(() -> {
      LOG.debug("Closing admin connection {}: no whole request within {} ms", ctx.channel(),
          TimeUnit.NANOSECONDS.toMillis(timeoutNanos));
      ctx.close();
    }, timeoutNanos, TimeUnit.NANOSECONDS);
  }

  private void disarm() {
    if (deadline != null) {
      deadline.cancel(false);
      deadline = null;
    }
  }
}
