package io.verglas.cli.local;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.verglas.events.feed.ChangeFeed;
import io.verglas.events.feed.FeedAccess;
import io.verglas.events.feed.FeedStreamer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pipeline of an admin connection: HTTP/1.1 with bounded heads, the request deadline, the
 * gate (route, credential, size), whole requests within the max body, the handler. Connections
 * beyond the bound are closed as they arrive.
 */
final class AdminServerInitializer extends ChannelInitializer<SocketChannel> {
  private static final Logger LOG = LoggerFactory.getLogger(AdminServerInitializer.class);
  private static final int MAX_INITIAL_LINE = 4096;
  private static final int MAX_HEADERS = 8192;
  private static final int MAX_CHUNK = 8192;

  private final AdminConfig config;
  private final FeedAccess access;
  private final AdminPages pages;
  private final ChangeFeed feed;
  private final FeedStreamer streamer;
  private final AdminWorkers workers;
  private final AdminWebhooks webhooks;
  private final ChannelGroup connections;

  AdminServerInitializer(AdminConfig config, FeedAccess access, AdminPages pages,
      ChangeFeed feed, FeedStreamer streamer, AdminWorkers workers, AdminWebhooks webhooks,
      ChannelGroup connections) {
    this.config = config;
    this.access = access;
    this.pages = pages;
    this.feed = feed;
    this.streamer = streamer;
    this.workers = workers;
    this.webhooks = webhooks;
    this.connections = connections;
  }

  @Override
  protected void initChannel(SocketChannel ch) {
    if (connections.size() >= config.maxConnections()) {
      LOG.warn("Refusing admin connection from {}: {} are open, the most allowed",
          ch.remoteAddress(), connections.size());
      ch.close();
      return;
    }
    connections.add(ch);
    int maxBody = config.feedBounds().maxEventBytes();
    ch.pipeline()
        .addLast("http", new HttpServerCodec(MAX_INITIAL_LINE, MAX_HEADERS, MAX_CHUNK))
        .addLast("deadline", new RequestDeadline(config.requestTimeout()))
        .addLast("gate", new RequestGate(access, maxBody, webhooks))
        .addLast("aggregate", new HttpObjectAggregator(
            Math.max(maxBody, webhooks.settings().maxBodyBytes()))) // the gate bounds each route
        .addLast("admin", new AdminHandler(pages, feed, streamer, workers, webhooks, access));
  }
}
