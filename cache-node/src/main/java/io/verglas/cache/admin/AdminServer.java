package io.verglas.cache.admin;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The admin endpoint's lifecycle: one event loop thread, its own port. Endpoints are described
 * in {@link AdminHandler}.
 */
public final class AdminServer implements AutoCloseable {
  private final String host;
  private final int port;
  private final AdminServerInitializer initializer;
  private EventLoopGroup group;
  private Channel channel;

  /** @param token if not null, every endpoint but /health requires {@code Authorization: Bearer <token>} */
  public AdminServer(String host, int port, CacheAdmin admin, String token) {
    this.host = host;
    this.port = port;
    this.initializer = new AdminServerInitializer(admin, token);
  }

  /** Binds and returns the bound port. */
  public synchronized int start() {
    if (channel != null) {
      throw new IllegalStateException("Cannot start the admin server twice");
    }
    group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    try {
      channel = new ServerBootstrap()
          .group(group)
          .channel(NioServerSocketChannel.class)
          .childHandler(initializer)
          .bind(host, port)
          .syncUninterruptibly()
          .channel();
    } catch (RuntimeException e) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
      throw new IllegalStateException("Cannot bind the admin endpoint to " + host + ":" + port + ": " + e, e);
    }
    return ((InetSocketAddress) channel.localAddress()).getPort();
  }

  @Override
  public synchronized void close() {
    if (channel != null) {
      channel.close().syncUninterruptibly();
    }
    if (group != null) {
      group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }
}
