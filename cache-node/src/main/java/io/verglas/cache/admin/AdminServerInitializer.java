package io.verglas.cache.admin;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;

/** The pipeline of an admin connection: HTTP/1.1, whole requests (small), the handler. */
final class AdminServerInitializer extends ChannelInitializer<SocketChannel> {
  private static final int MAX_REQUEST = 64 * 1024;

  private final CacheAdmin admin;
  private final String token;

  AdminServerInitializer(CacheAdmin admin, String token) {
    this.admin = admin;
    this.token = token;
  }

  @Override
  protected void initChannel(SocketChannel ch) {
    ch.pipeline()
        .addLast("http", new HttpServerCodec())
        .addLast("aggregate", new HttpObjectAggregator(MAX_REQUEST))
        .addLast("admin", new AdminHandler(admin, token));
  }
}
