package io.verglas.cache.cluster.peer;

import io.verglas.cache.cluster.ClusterSecret;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.verglas.cache.block.BlockId;
import io.verglas.cache.cluster.peer.PeerFrames.Status;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Fetches blocks from peers over one pipelined connection per peer endpoint (see
 * {@link PeerFrames}).
 *
 * <p>Failures: every fetch completes within the timeout: with the bytes, with null when the
 * owner answered that it has no such block, or exceptionally (timeout, connection refused or
 * closed, refused secret). A connection that closes fails all its fetches in flight at once, and
 * the next fetch to that endpoint connects again. Nothing here retries: the caller falls
 * through to the origin.
 */
public final class PeerClient implements AutoCloseable {
  /** The largest write-back request or answer, in bytes. */
  public static final int MAX_WRITE_BACK_BYTES = PeerFrames.MAX_WRITE_BACK_BYTES;
  /** Request ids in flight on a connection, failed together when it closes. */
  private static final io.netty.util.AttributeKey<java.util.Set<Long>> IN_FLIGHT =
      io.netty.util.AttributeKey.valueOf("verglas-peer-in-flight");

  private final Bootstrap bootstrap;
  private final ClusterSecret auth;
  private final Duration timeout;
  private final AtomicLong requestIds = new AtomicLong();
  private final Map<String, CompletableFuture<Channel>> connections = new ConcurrentHashMap<>();
  private final Map<Long, CompletableFuture<byte[]>> pending = new ConcurrentHashMap<>();
  private volatile boolean closed;

  public PeerClient(EventLoopGroup group, String secret, Duration timeout) {
    this.auth = new ClusterSecret(secret);
    this.timeout = timeout;
    this.bootstrap = new Bootstrap()
        .group(group)
        .channel(NioSocketChannel.class)
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.max(1, timeout.toMillis()))
        .handler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            ch.pipeline()
                .addLast(new LengthFieldBasedFrameDecoder(PeerFrames.MAX_FRAME, 0, 4, 0, 4))
                .addLast(new LengthFieldPrepender(4))
                .addLast(new ResponseHandler(inFlight(ch)));
          }
        });
  }

  /** {@code length} bytes of block {@code id} from the peer at host:port (see the class comment). */
  public CompletableFuture<byte[]> fetch(String host, int port, BlockId id, int length) {
    return send(host, port, (channel, requestId) -> PeerFrames.request(channel.alloc(), auth, requestId, id, length))
        .thenApply(bytes -> bytes == null || bytes.length == length ? bytes : reject(bytes, length));
  }

  /** Offers the peer at host:port a standby copy of block {@code id}; completes when it heard. */
  public CompletableFuture<Void> replicate(String host, int port, BlockId id, int length) {
    return send(host, port, (channel, requestId) -> PeerFrames.replicate(channel.alloc(), auth, requestId, id, length))
        .thenApply(answer -> null);
  }

  /** Tells the peer at host:port to drop its resolved ETag of the key; completes when it did. */
  public CompletableFuture<Void> forget(String host, int port, String bucket, String key) {
    return send(host, port, (channel, requestId) -> PeerFrames.forget(channel.alloc(), auth, requestId, bucket, key))
        .thenApply(answer -> null);
  }

  /**
   * Sends a write-back request to the peer at host:port; completes with its answer, or
   * exceptionally with the message the peer failed it with (or on timeout or a closed
   * connection).
   */
  public CompletableFuture<byte[]> writeBack(String host, int port, byte[] request) {
    return send(host, port, (channel, requestId) -> PeerFrames.writeBack(channel.alloc(), auth, requestId, request));
  }

  private CompletableFuture<byte[]> send(String host, int port,
      java.util.function.BiFunction<Channel, Long, ByteBuf> frame) {
    if (closed) {
      return CompletableFuture.failedFuture(new IOException("Cannot send to a peer: the client is closed"));
    }
    long requestId = requestIds.incrementAndGet();
    CompletableFuture<byte[]> answer = new CompletableFuture<>();
    pending.put(requestId, answer);
    answer.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
        .whenComplete((bytes, error) -> pending.remove(requestId));
    connection(host, port).whenComplete((channel, error) -> {
      if (error != null) {
        answer.completeExceptionally(error);
        return;
      }
      channel.attr(IN_FLIGHT).get().add(requestId);
      channel.writeAndFlush(frame.apply(channel, requestId))
          .addListener(f -> {
            if (!f.isSuccess()) {
              answer.completeExceptionally(f.cause());
            }
          });
    });
    return answer;
  }

  private static java.util.Set<Long> inFlight(Channel ch) {
    java.util.Set<Long> ids = ConcurrentHashMap.newKeySet();
    ch.attr(IN_FLIGHT).set(ids);
    return ids;
  }

  private static byte[] reject(byte[] bytes, int length) {
    throw new IllegalStateException("A peer returned " + bytes.length + " bytes for a block of " + length);
  }

  private CompletableFuture<Channel> connection(String host, int port) {
    String endpoint = host + ":" + port;
    while (true) {
      CompletableFuture<Channel> current = connections.get(endpoint);
      if (current != null && (!current.isDone() || usable(current))) {
        return current;
      }
      CompletableFuture<Channel> mine = new CompletableFuture<>();
      boolean won = current == null ? connections.putIfAbsent(endpoint, mine) == null
          : connections.replace(endpoint, current, mine);
      if (won) {
        connect(endpoint, host, port, mine);
        return mine;
      }
    }
  }

  private static boolean usable(CompletableFuture<Channel> done) {
    Channel channel = done.getNow(null);
    return channel != null && channel.isActive();
  }

  private void connect(String endpoint, String host, int port, CompletableFuture<Channel> mine) {
    bootstrap.connect(host, port).addListener(f -> {
      if (!f.isSuccess()) {
        connections.remove(endpoint, mine);
        mine.completeExceptionally(f.cause());
        return;
      }
      Channel channel = ((io.netty.channel.ChannelFuture) f).channel();
      channel.closeFuture().addListener(c -> connections.remove(endpoint, mine));
      mine.complete(channel);
    });
  }

  /** Completes fetches by request id; fails them all when the connection goes away. */
  private final class ResponseHandler extends SimpleChannelInboundHandler<ByteBuf> {
    private final java.util.Set<Long> mine;

    ResponseHandler(java.util.Set<Long> mine) {
      this.mine = mine;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
      if (frame.readableBytes() < 10 || frame.readByte() != PeerFrames.VERSION) {
        ctx.close();
        return;
      }
      Status status = Status.of(frame.readByte());
      long requestId = frame.readLong();
      mine.remove(requestId);
      CompletableFuture<byte[]> answer = pending.remove(requestId);
      if (status == Status.DENIED || status == Status.BAD_REQUEST) {
        ctx.close();
        return;
      }
      if (answer != null && status == Status.FAILED) {
        answer.completeExceptionally(new IOException("The peer " + ctx.channel().remoteAddress() + " failed: "
            + frame.toString(java.nio.charset.StandardCharsets.UTF_8)));
      } else if (answer != null) {
        answer.complete(status == Status.OK ? ByteBufUtil.getBytes(frame) : null);
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      IOException closed = new IOException("Peer connection " + ctx.channel().remoteAddress() + " closed");
      for (Long id : mine) {
        CompletableFuture<byte[]> answer = pending.remove(id);
        if (answer != null) {
          answer.completeExceptionally(closed);
        }
      }
      mine.clear();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  @Override
  public void close() {
    closed = true;
    connections.values().forEach(c -> c.thenAccept(Channel::close));
    connections.clear();
  }
}
