package io.verglas.bench.cache;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.traffic.ChannelTrafficShapingHandler;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy that makes a local origin behave like S3 over a network: every response starts
 * {@code firstByteLatency} after the request that asked for it, and each connection (= one
 * stream) is capped at {@code bytesPerSecond} towards the client.
 *
 * <p>Design: protocol-blind. Bytes from the client mark the time of a request; the first bytes
 * coming back after that are held until the request time plus the latency, and everything behind
 * them queues in order. With HTTP/1.1 keep-alive a client sends the next request only after the
 * previous response, so each request pays the latency once, as against S3 (where time to first
 * byte is tens of milliseconds). The cap is Netty's {@link ChannelTrafficShapingHandler} on the
 * client side of each connection; backpressure pauses reading from the origin. Uploads are not
 * capped. Both sides of a connection share one event loop, so the handlers need no locks.
 */
public final class LatencyProxy implements AutoCloseable {
  private final String backendHost;
  private final int backendPort;
  private final long latencyNanos;
  private final long bytesPerSecond;
  private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
  private final AtomicLong connections = new AtomicLong();
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong bytesToClients = new AtomicLong();
  private Channel server;

  public LatencyProxy(String backendHost, int backendPort, Duration firstByteLatency, long bytesPerSecond) {
    this.backendHost = backendHost;
    this.backendPort = backendPort;
    this.latencyNanos = firstByteLatency.toNanos();
    this.bytesPerSecond = bytesPerSecond;
  }

  /** Binds 127.0.0.1 on a free port and returns it. */
  /** The bound port; after {@link #start}. */
  public int port() {
    return ((InetSocketAddress) server.localAddress()).getPort();
  }

  public int start() {
    server = new ServerBootstrap()
        .group(group)
        .channel(NioServerSocketChannel.class)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childOption(ChannelOption.AUTO_READ, false)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            ch.pipeline()
                .addLast("shape", new ChannelTrafficShapingHandler(bytesPerSecond, 0, 50))
                .addLast("front", new Frontend());
          }
        })
        .bind("127.0.0.1", 0)
        .syncUninterruptibly()
        .channel();
    return ((InetSocketAddress) server.localAddress()).getPort();
  }

  long connections() {
    return connections.get();
  }

  /** Client writes that started a new request (approximately: requests). */
  public long requests() {
    return requests.get();
  }

  /** Bytes the origin sent back through the proxy (responses: heads and bodies). */
  public long bytesToClients() {
    return bytesToClients.get();
  }

  @Override
  public void close() {
    if (server != null) {
      server.close().syncUninterruptibly();
    }
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** The client side of one proxied connection. */
  private final class Frontend extends ChannelInboundHandlerAdapter {
    private final ArrayDeque<Object> toClient = new ArrayDeque<>();
    private Channel front;
    private Channel back;
    private boolean awaitingResponse;
    private long requestAt;
    private long releaseAt;
    private boolean drainScheduled;
    private boolean backendClosed;

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      connections.incrementAndGet();
      front = ctx.channel();
      new Bootstrap()
          .group(front.eventLoop())
          .channel(NioSocketChannel.class)
          .option(ChannelOption.TCP_NODELAY, true)
          .handler(new Backend(this))
          .connect(backendHost, backendPort)
          .addListener((ChannelFutureListener) f -> {
            if (f.isSuccess()) {
              back = f.channel();
              front.read();
              front.config().setAutoRead(true);
            } else {
              front.close();
            }
          });
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (!awaitingResponse) {
        requests.incrementAndGet();
      }
      awaitingResponse = true;
      requestAt = System.nanoTime();
      back.writeAndFlush(msg).addListener((ChannelFutureListener) f -> {
        if (!f.isSuccess()) {
          front.close();
        }
      });
      if (!back.isWritable()) {
        front.config().setAutoRead(false);
      }
    }

    /** Bytes from the origin, on the shared event loop. */
    void fromBackend(Object msg) {
      if (msg instanceof ByteBuf bytes) {
        bytesToClients.addAndGet(bytes.readableBytes());
      }
      if (awaitingResponse) {
        awaitingResponse = false;
        releaseAt = requestAt + latencyNanos;
      }
      toClient.add(msg);
      drain();
    }

    private void drain() {
      long wait = releaseAt - System.nanoTime();
      if (wait > 0) {
        if (!drainScheduled) {
          drainScheduled = true;
          front.eventLoop().schedule(() -> {
            drainScheduled = false;
            drain();
          }, wait, TimeUnit.NANOSECONDS);
        }
        return;
      }
      boolean wrote = false;
      while (!toClient.isEmpty()) {
        front.write(toClient.poll());
        wrote = true;
      }
      if (wrote) {
        front.flush();
      }
      if (back != null && !front.isWritable()) {
        back.config().setAutoRead(false);
      }
      if (backendClosed) {
        front.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
      }
    }

    void backendClosed() {
      backendClosed = true;
      drain();
    }

    void backendWritabilityChanged(boolean writable) {
      front.config().setAutoRead(writable);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
      if (back != null) {
        back.config().setAutoRead(front.isWritable());
      }
      ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      while (!toClient.isEmpty()) {
        ReferenceCountUtil.release(toClient.poll());
      }
      if (back != null) {
        back.close();
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  /** The origin side of one proxied connection. */
  private static final class Backend extends ChannelInboundHandlerAdapter {
    private final Frontend frontend;

    Backend(Frontend frontend) {
      this.frontend = frontend;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      frontend.fromBackend(msg);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
      frontend.backendWritabilityChanged(ctx.channel().isWritable());
      ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      frontend.backendClosed();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }
}
