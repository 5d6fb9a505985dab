package io.verglas.cli.local;

import io.verglas.cli.status.Readiness;
import io.verglas.ingest.metrics.PrometheusText;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.verglas.events.FeedEventParser;
import io.verglas.events.feed.ChangeFeed;
import io.verglas.events.feed.FeedAccess;
import io.verglas.events.feed.FeedQuery;
import io.verglas.events.feed.FeedStreamer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers the admin requests that {@link RequestGate} let through, whole (aggregated, within
 * the max body). Answers are computed on {@link AdminWorkers}, never on the event loop, and
 * written back from there; {@code GET /events} streams JSON lines in chunks
 * ({@link ChunkedResponseStream}) and closes the connection at its end. One request at a time
 * per connection: a client that sends the next before its answer (HTTP pipelining, which no
 * common client does) is disconnected rather than answered out of order.
 */
final class AdminHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
  private static final Logger LOG = LoggerFactory.getLogger(AdminHandler.class);
  /** How long a stream waits for a client to take a chunk before it disconnects it. */
  private static final Duration WRITE_TIMEOUT = Duration.ofSeconds(30);

  private final AdminPages pages;
  private final TablePageHandler maintenance;
  private final TablePageHandler heat;
  private final ChangeFeed feed;
  private final FeedStreamer streamer;
  private final AdminWorkers workers;
  private final AdminWebhooks webhooks;
  private final FeedAccess access;
  private boolean busy;

  AdminHandler(AdminPages pages, ChangeFeed feed, FeedStreamer streamer, AdminWorkers workers,
      AdminWebhooks webhooks, FeedAccess access) {
    this.access = access;
    this.pages = pages;
    this.maintenance = new TablePageHandler(pages.maintenance());
    this.heat = new TablePageHandler(pages.heat());
    this.feed = feed;
    this.streamer = streamer;
    this.workers = workers;
    this.webhooks = webhooks;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
    if (busy) {
      LOG.debug("Closing admin connection {}: a request arrived before the last was answered",
          ctx.channel());
      ctx.close();
      return;
    }
    busy = true;
    QueryStringDecoder uri = new QueryStringDecoder(request.uri());
    AdminRoute route = AdminRoute.find(uri.path(), request.method()).orElseThrow(); // gated
    boolean keepAlive = HttpUtil.isKeepAlive(request);
    if (route == AdminRoute.READ_EVENTS) {
      readEvents(ctx, uri, request.headers().get(HttpHeaderNames.AUTHORIZATION), keepAlive);
      return;
    }
    if (route == AdminRoute.WEBHOOK) {
      FullHttpRequest copy = request.retainedDuplicate(); // released here after the answer
      if (!workers.submit(false, () -> respondWebhook(ctx, copy, uri.path(), keepAlive))) {
        copy.release();
        respond(ctx, overloaded(), keepAlive);
      }
      return;
    }
    String body = route == AdminRoute.PUBLISH_EVENT
        ? request.content().toString(StandardCharsets.UTF_8) : null;
    if (!workers.submit(false, () -> respond(ctx, answer(route, uri, body), keepAlive))) {
      respond(ctx, overloaded(), keepAlive);
    }
  }

  private static FullHttpResponse ready(Readiness.Answer answer) {
    return AdminResponses.json(answer.ready() ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE,
        answer.json());
  }

  private FullHttpResponse answer(AdminRoute route, QueryStringDecoder uri, String body) {
    try {
      return switch (route) {
        case STATUS_PAGE -> AdminResponses.html(io.verglas.cli.status.StatusPage.html());
        case HEALTH -> AdminResponses.json(HttpResponseStatus.OK, pages.health().get());
        case STATUS -> AdminResponses.json(HttpResponseStatus.OK, pages.status().get());
        case READY -> ready(pages.ready().get());
        case METRICS -> AdminResponses.text(PrometheusText.CONTENT_TYPE, pages.metrics().get());
        case STATS -> AdminResponses.json(HttpResponseStatus.OK, pages.stats().get());
        case MAINTENANCE -> maintenance.answer(uri);
        case HEAT -> heat.answer(uri);
        case PUBLISH_EVENT -> publish(body);
        case READ_EVENTS, WEBHOOK -> throw new IllegalStateException("not answered here");
      };
    } catch (RuntimeException e) {
      LOG.warn("Admin request {} {} failed", route.path(), uri.uri(), e);
      return AdminResponses.error(HttpResponseStatus.INTERNAL_SERVER_ERROR,
          "Cannot answer " + route.path() + ": " + e);
    }
  }

  private void respondWebhook(ChannelHandlerContext ctx, FullHttpRequest request, String path,
      boolean keepAlive) {
    try {
      respond(ctx, webhooks.handle(request, path), keepAlive);
    } finally {
      request.release();
    }
  }

  private FullHttpResponse publish(String body) {
    try {
      return AdminResponses.json(HttpResponseStatus.OK,
          FeedEventParser.toJson(feed.appendJson(body)));
    } catch (IllegalArgumentException e) {
      return AdminResponses.error(HttpResponseStatus.BAD_REQUEST, e.getMessage());
    }
  }

  /**
   * Streams the events asked for; a scoped token's only those of its tables (its decision is
   * taken again here, where the query is, after the gate let the request in).
   */
  private void readEvents(ChannelHandlerContext ctx, QueryStringDecoder uri, String authorization,
      boolean keepAlive) {
    FeedAccess.Decision decision = access.check(FeedAccess.Need.EVENTS, authorization);
    if (!decision.allowed()) { // a scoped token that expired since the gate
      respond(ctx, AdminResponses.error(HttpResponseStatus.valueOf(decision.status()),
          "Cannot read events: " + decision.reason()), keepAlive);
      return;
    }
    FeedQuery query;
    try {
      FeedQuery parsed = FeedQuery.parse(uri.rawQuery());
      query = decision.scope().map(parsed::within).orElse(parsed);
    } catch (IllegalArgumentException e) {
      respond(ctx, AdminResponses.error(HttpResponseStatus.BAD_REQUEST, e.getMessage()),
          keepAlive);
      return;
    }
    if (!workers.submit(query.follow(), () -> stream(ctx.channel(), query))) {
      respond(ctx, overloaded(), keepAlive);
    }
  }

  /** Streams the events on a worker; the connection closes at the end of the stream. */
  private void stream(Channel channel, FeedQuery query) {
    HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
    head.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/x-ndjson")
        .set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED)
        .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    channel.writeAndFlush(head); // at once: a follower waits for the head before any event
    try (ChunkedResponseStream out = new ChunkedResponseStream(channel, WRITE_TIMEOUT)) {
      streamer.stream(query, out);
    } catch (IOException e) {
      LOG.debug("Change feed stream to {} ended: {}", channel.remoteAddress(), e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      channel.close();
    }
  }

  private static FullHttpResponse overloaded() {
    FullHttpResponse response = AdminResponses.error(HttpResponseStatus.SERVICE_UNAVAILABLE,
        "Cannot answer now: too many requests or followers at once; retry later");
    response.headers().set(HttpHeaderNames.RETRY_AFTER, "1");
    return response;
  }

  /** Writes a whole answer (from any thread); the next request may come once it is out. */
  /**
   * Writes the answer, then takes the next request. The listener is attached before the write
   * (a worker thread answers): attached after, it could find the write done and run in a later
   * event-loop task than the client's next request, which would then find the connection still
   * busy and close it unanswered.
   */
  private void respond(ChannelHandlerContext ctx, FullHttpResponse response, boolean keepAlive) {
    HttpUtil.setKeepAlive(response, keepAlive);
    ChannelPromise written = ctx.newPromise();
    written.addListener(done -> {
      if (keepAlive && done.isSuccess()) {
        busy = false; // runs on the event loop with the write, before any later read
      } else {
        ctx.close();
      }
    });
    ctx.writeAndFlush(response, written);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    LOG.debug("Closing an admin connection after an error", cause);
    ctx.close();
  }
}
