package io.verglas.cache.cluster.peer;

import io.verglas.cache.cluster.ClusterSecret;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.TooLongFrameException;
import io.verglas.cache.block.BlockRead;
import io.verglas.cache.cluster.peer.PeerFrames.BlockRequest;
import io.verglas.cache.cluster.peer.PeerFrames.ForgetRequest;
import io.verglas.cache.cluster.peer.PeerFrames.ReplicateRequest;
import io.verglas.cache.cluster.peer.PeerFrames.Request;
import io.verglas.cache.cluster.peer.PeerFrames.Status;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers each request frame on its own: validates it on arrival (a wrong tag is answered
 * DENIED and the connection closed), then reads the block from {@link PeerService} and writes it
 * when it is there, whatever the order requests arrived in. A failed read is a MISS: the
 * requester reads the origin itself.
 */
final class PeerServerHandler extends SimpleChannelInboundHandler<ByteBuf> {
  private static final Logger LOG = LoggerFactory.getLogger(PeerServerHandler.class);
  private static final java.util.concurrent.atomic.AtomicLong CONNECTIONS = new java.util.concurrent.atomic.AtomicLong();
  private final long connection = CONNECTIONS.incrementAndGet();
  private final ClusterSecret auth;
  private final PeerService blocks;
  private final LongAdder served;
  private final LongAdder refused;

  PeerServerHandler(ClusterSecret auth, PeerService blocks, LongAdder served, LongAdder refused) {
    this.auth = auth;
    this.blocks = blocks;
    this.served = served;
    this.refused = refused;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
    Request parsed;
    try {
      parsed = PeerFrames.parseRequest(frame, auth);
    } catch (SecurityException | IllegalArgumentException | IndexOutOfBoundsException e) {
      refused.increment();
      Status status = e instanceof SecurityException ? Status.DENIED : Status.BAD_REQUEST;
      ctx.writeAndFlush(PeerFrames.responseHead(ctx.alloc(), status, 0)).addListener(f -> ctx.close());
      return;
    }
    if (parsed instanceof ForgetRequest forget) {
      blocks.forget(forget.bucket(), forget.key());
      ctx.writeAndFlush(PeerFrames.responseHead(ctx.alloc(), Status.OK, forget.requestId()));
      return;
    }
    if (parsed instanceof PeerFrames.WriteBackRequest request) {
      writeBack(ctx, request);
      return;
    }
    if (parsed instanceof ReplicateRequest offer) {
      blocks.replicate(offer.id(), offer.length());
      ctx.writeAndFlush(PeerFrames.responseHead(ctx.alloc(), Status.OK, offer.requestId()));
      return;
    }
    BlockRequest request = (BlockRequest) parsed;
    java.util.concurrent.CompletableFuture<BlockRead> read;
    try {
      read = blocks.read(request.id(), request.length());
    } catch (RuntimeException e) {
      read = java.util.concurrent.CompletableFuture.failedFuture(e);
    }
    read.whenComplete((block, error) -> answer(ctx, request, block, error));
  }

  private void answer(ChannelHandlerContext ctx, BlockRequest request, BlockRead block, Throwable error) {
    if (error != null || block.data().readableBytes() != request.length()) {
      if (block != null) {
        block.data().release();
      }
      ctx.writeAndFlush(PeerFrames.responseHead(ctx.alloc(), Status.MISS, request.requestId()));
      return;
    }
    if (!ctx.channel().isActive()) {
      block.data().release();
      return;
    }
    served.increment();
    ctx.writeAndFlush(Unpooled.wrappedBuffer(
        PeerFrames.responseHead(ctx.alloc(), Status.OK, request.requestId()), block.data()));
  }

  private void writeBack(ChannelHandlerContext ctx, PeerFrames.WriteBackRequest request) {
    java.util.concurrent.CompletableFuture<byte[]> answer;
    try {
      answer = blocks.writeBack(connection, request.body());
    } catch (RuntimeException e) {
      answer = java.util.concurrent.CompletableFuture.failedFuture(e);
    }
    answer.whenComplete((bytes, error) -> {
      boolean ok = error == null && bytes != null && bytes.length <= PeerFrames.MAX_WRITE_BACK_BYTES;
      ByteBuf head = PeerFrames.responseHead(ctx.alloc(), ok ? Status.OK : Status.FAILED, request.requestId());
      byte[] body = ok ? bytes : failure(error, bytes).getBytes(java.nio.charset.StandardCharsets.UTF_8);
      ctx.writeAndFlush(Unpooled.wrappedBuffer(head, Unpooled.wrappedBuffer(body)));
    });
  }

  private static String failure(Throwable error, byte[] bytes) {
    Throwable cause = error;
    while ((cause instanceof java.util.concurrent.CompletionException || cause instanceof java.io.UncheckedIOException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    String message = cause == null ? "an answer of " + (bytes == null ? "nothing" : bytes.length + " bytes")
        : cause.getClass().getSimpleName() + ": " + cause.getMessage();
    return message.length() > 1000 ? message.substring(0, 1000) : message;
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    blocks.disconnected(connection);
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof TooLongFrameException tooLong) {
      refused.increment();
      LOG.warn("Refusing a peer request from {}: {}", ctx.channel().remoteAddress(), tooLong.getMessage());
      ctx.writeAndFlush(PeerFrames.responseHead(ctx.alloc(), Status.BAD_REQUEST, 0)).addListener(f -> ctx.close());
      return;
    }
    ctx.close();
  }
}
