package io.verglas.cli.local;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.ReferenceCountUtil;
import io.verglas.events.feed.FeedAccess;
import java.util.Optional;

/**
 * Validates a request from its head, before its body is read or buffered: a malformed head
 * gets 400, an unknown path 404, a wrong method 405, a missing or wrong credential 401 or 403
 * ({@link FeedAccess}), a Content-Length over the max body 413; a body that grows past the max
 * as it arrives (chunked) gets 413 too. A refused request's connection is closed once the
 * refusal is written and the rest of its body has been read and dropped (so the client sees
 * the answer rather than a reset; the {@link RequestDeadline} bounds how long that may take).
 */
final class RequestGate extends ChannelInboundHandlerAdapter {
  private final FeedAccess access;
  private final long maxBodyBytes;
  private final AdminWebhooks webhooks;
  private ChannelFuture refusal; // written, or being written; null while nothing was refused
  private long bodyBytes;
  private long bodyLimit; // of the request being read

  /**
   * @param maxBodyBytes the body limit of every route but the webhooks, whose limit is
   *     {@code webhooks.settings().maxBodyBytes()}
   */
  RequestGate(FeedAccess access, long maxBodyBytes, AdminWebhooks webhooks) {
    this.access = access;
    this.maxBodyBytes = maxBodyBytes;
    this.webhooks = webhooks;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (refusal != null) {
      drop(msg);
      return;
    }
    if (msg instanceof HttpRequest head) {
      bodyBytes = 0;
      bodyLimit = maxBodyBytes;
      Optional<FullHttpResponse> problem = check(head);
      if (problem.isPresent()) {
        refuse(ctx, problem.get(), msg, HttpUtil.is100ContinueExpected(head));
        return;
      }
    }
    if (msg instanceof HttpContent content) {
      bodyBytes += content.content().readableBytes();
      if (bodyBytes > bodyLimit) {
        refuse(ctx, tooLarge(), msg, false);
        return;
      }
    }
    ctx.fireChannelRead(msg);
  }

  private Optional<FullHttpResponse> check(HttpRequest head) {
    if (head.decoderResult().isFailure()) {
      return Optional.of(AdminResponses.error(HttpResponseStatus.BAD_REQUEST,
          "Cannot read the request: " + head.decoderResult().cause().getMessage()));
    }
    String path = new QueryStringDecoder(head.uri()).path();
    Optional<AdminRoute> route = AdminRoute.find(path, head.method());
    if (route.isEmpty()) {
      return Optional.of(noRoute(head, path));
    }
    FeedAccess.Decision decision =
        access.check(route.get().need(), head.headers().get(HttpHeaderNames.AUTHORIZATION));
    if (!decision.allowed()) {
      return Optional.of(unauthorized(head, path, decision));
    }
    if (route.get() == AdminRoute.WEBHOOK) {
      bodyLimit = webhooks.settings().maxBodyBytes();
      return webhooks.check(head, path); // the webhook's own refusals, 413 included
    }
    if (HttpUtil.getContentLength(head, 0L) > maxBodyBytes) {
      return Optional.of(tooLarge());
    }
    return Optional.empty();
  }

  private static FullHttpResponse noRoute(HttpRequest head, String path) {
    if (!AdminRoute.knownPath(path)) {
      return AdminResponses.error(HttpResponseStatus.NOT_FOUND,
          "No such admin endpoint: " + path + " (try " + AdminRoute.paths() + ")");
    }
    FullHttpResponse response = AdminResponses.error(HttpResponseStatus.METHOD_NOT_ALLOWED,
        "Cannot " + head.method() + " " + path + ": use " + AdminRoute.allowed(path));
    response.headers().set(HttpHeaderNames.ALLOW, AdminRoute.allowed(path));
    return response;
  }

  private static FullHttpResponse unauthorized(HttpRequest head, String path,
      FeedAccess.Decision decision) {
    FullHttpResponse response = AdminResponses.error(decision.status(), "Cannot "
        + head.method() + " " + path + ": " + decision.reason()
        + "; the tokens are in the data directory's credentials.json (admin.token of "
        + "endpoints.json reads)");
    if (decision == FeedAccess.Decision.MISSING) {
      response.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer");
    }
    return response;
  }

  private FullHttpResponse tooLarge() {
    return AdminResponses.error(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
        "Cannot accept the request: its body is over " + bodyLimit + " bytes");
  }

  /**
   * Writes the refusal and closes after it, at once if no body follows (none, or one the
   * client sends only after a 100 Continue it will not get), else once the body has ended.
   */
  private void refuse(ChannelHandlerContext ctx, FullHttpResponse response, Object msg,
      boolean awaitsContinue) {
    boolean ended = msg instanceof LastHttpContent || awaitsContinue;
    ReferenceCountUtil.release(msg);
    response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    refusal = ctx.writeAndFlush(response);
    if (ended) {
      refusal.addListener(ChannelFutureListener.CLOSE);
    }
  }

  private void drop(Object msg) {
    boolean ended = msg instanceof LastHttpContent;
    ReferenceCountUtil.release(msg);
    if (ended) {
      refusal.addListener(ChannelFutureListener.CLOSE);
    }
  }
}
