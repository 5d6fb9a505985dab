package io.verglas.cache.cluster.peer;

import io.verglas.cache.cluster.ClusterSecret;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.LongAdder;

/**
 * The peer protocol's listener (see {@link PeerFrames}): serves authenticated requests with
 * {@link PeerService}. {@link #close()} drops open connections too, so requesters in
 * mid-transfer see the connection close and fall through to the origin at once.
 */
public final class PeerServer implements AutoCloseable {
  private final String host;
  private final int port;
  private final EventLoopGroup group;
  private final ClusterSecret auth;
  private final PeerService blocks;
  private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final LongAdder served = new LongAdder();
  private final LongAdder refused = new LongAdder();
  private Channel channel;

  public PeerServer(String host, int port, EventLoopGroup group, String secret, PeerService blocks) {
    this.host = host;
    this.port = port;
    this.group = group;
    this.auth = new ClusterSecret(secret);
    this.blocks = blocks;
  }

  /** Binds and returns the bound port. */
  public synchronized int start() {
    if (channel != null) {
      throw new IllegalStateException("Cannot start the peer server twice");
    }
    try {
      channel = new ServerBootstrap()
          .group(group)
          .channel(NioServerSocketChannel.class)
          .childHandler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
              connections.add(ch);
              ch.pipeline()
                  .addLast(new PeerRequestDecoder())
                  .addLast(new LengthFieldPrepender(4))
                  .addLast(new PeerServerHandler(auth, blocks, served, refused));
            }
          })
          .bind(host, port)
          .syncUninterruptibly()
          .channel();
    } catch (RuntimeException e) {
      throw new IllegalStateException("Cannot bind the peer endpoint to " + host + ":" + port + ": " + e, e);
    }
    return ((InetSocketAddress) channel.localAddress()).getPort();
  }

  /** Blocks sent to peers. */
  public long served() {
    return served.sum();
  }

  /** Requests refused: wrong secret or malformed. */
  public long refused() {
    return refused.sum();
  }

  @Override
  public synchronized void close() {
    if (channel != null) {
      channel.close().syncUninterruptibly();
    }
    connections.close().awaitUninterruptibly();
  }
}
