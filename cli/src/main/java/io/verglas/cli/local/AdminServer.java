package io.verglas.cli.local;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.verglas.events.feed.ChangeFeed;
import io.verglas.events.feed.FeedAccess;
import io.verglas.events.feed.FeedStreamer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.concurrent.TimeUnit;

/**
 * The local stack's admin endpoint: {@code /health} (open: liveness), {@code /stats} (cache
 * node statistics as JSON), {@code /events} (the change feed: GET to read or follow, POST to
 * publish), {@code /maintenance?table=ns.t} (a table's maintenance status as JSON) and
 * {@code POST /v1/webhooks/<deployment>[/<trigger>]} (webhook triggers, {@link AdminWebhooks}).
 *
 * <p>Design. Netty, one event loop thread for every connection: a connection costs no thread
 * until it has sent a whole request, and one that does not within
 * {@link AdminConfig#requestTimeout()} is closed ({@link RequestDeadline}), so idle or
 * slow-loris sockets cannot starve {@code /health} or the feed; their number is bounded too
 * ({@link AdminConfig#maxConnections()}). Requests are checked from their head
 * ({@link RequestGate}: route, credential, size) before a byte of body is buffered, then
 * answered on {@link AdminWorkers}, where follow streams have a bounded set of their own.
 *
 * <p>Credentials ({@link FeedAccess}). Publishing needs the publish token; reads
 * ({@code /stats}, {@code GET /events}, {@code /maintenance}) need the read token or the
 * publish token unless {@link AdminConfig#publicReads()}; {@code /health} needs none.
 *
 * <p>Memory. A request is at most the feed's max event size (413 beyond, from its
 * Content-Length or as it arrives), a stream holds one page of events at a time.
 */
final class AdminServer implements AutoCloseable {
  private final EventLoopGroup group;
  private final AdminWorkers workers;
  private final FeedStreamer streamer;
  private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final Channel channel;

  /** Binds {@code host:port} (0: a free port) and serves until {@link #close()}. */
  AdminServer(String host, int port, AdminConfig config, FeedAccess access, ChangeFeed feed,
      AdminPages pages, AdminWebhooks webhooks) {
    this.streamer = new FeedStreamer(feed, config.heartbeat());
    this.workers = new AdminWorkers(config.maxRequests(), config.maxFollowers());
    this.group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    try {
      channel = new ServerBootstrap()
          .group(group)
          .channel(NioServerSocketChannel.class)
          .option(ChannelOption.SO_BACKLOG, 128)
          .childOption(ChannelOption.TCP_NODELAY, true)
          .childHandler(new AdminServerInitializer(config, access, pages, feed, streamer,
              workers, webhooks, connections))
          .bind(host, port)
          .syncUninterruptibly()
          .channel();
    } catch (RuntimeException e) {
      stopThreads();
      throw new IllegalStateException("Cannot bind the admin endpoint to " + host + ":" + port
          + ": " + e.getMessage(), e);
    }
  }

  URI uri() {
    InetSocketAddress address = (InetSocketAddress) channel.localAddress();
    return URI.create("http://" + address.getHostString() + ":" + address.getPort());
  }

  /** Stops accepting, ends follow streams, closes every connection. */
  @Override
  public void close() {
    streamer.close();
    channel.close().syncUninterruptibly();
    connections.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
    stopThreads();
  }

  private void stopThreads() {
    workers.close();
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
