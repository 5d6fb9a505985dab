package io.verglas.cache.s3;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.LastHttpContent;
import io.verglas.cache.block.BlockRead;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

/**
 * Streams the bytes {@code [start, end]} of one object version block by block.
 *
 * <p>Design: at most {@code 1 + READAHEAD} blocks are requested ahead of the socket, and the next
 * block is written only while the channel is writable, so a slow client holds a few blocks of
 * memory however large the object. Blocks are written as heap buffers wrapping the cached arrays
 * (no copy, nothing to release). Every block comes from the same ETag (the {@link BlockSource}
 * is bound to it); if one fails after the head is sent, the promise fails and the handler closes
 * the connection, so the client sees a truncated body, never a mixed one. All state is touched
 * on the channel's event loop only.
 */
final class ObjectStreamer implements S3Response.BodyStream {
  private static final int READAHEAD = 2;

  /** Fetches block {@code index} of the bound object version. */
  interface BlockSource {
    CompletableFuture<BlockRead> block(long index);
  }

  private final BlockSource source;
  private final int blockSize;
  private final long start;
  private final long end;
  private final long lastBlock;
  private final LongAdder bytesFromCache;
  private final ArrayDeque<CompletableFuture<BlockRead>> ahead = new ArrayDeque<>();
  private long nextToRequest;
  private long nextToWrite;
  private ChannelHandlerContext ctx;
  private ChannelPromise done;
  private boolean waitingForWritability;
  private boolean finished;

  ObjectStreamer(BlockSource source, int blockSize, long start, long end, LongAdder bytesFromCache) {
    this.source = source;
    this.blockSize = blockSize;
    this.start = start;
    this.end = end;
    this.lastBlock = end / blockSize;
    this.nextToRequest = start / blockSize;
    this.nextToWrite = nextToRequest;
    this.bytesFromCache = bytesFromCache;
  }

  /** Requests the first blocks; the returned future completes when the first one is there. */
  CompletableFuture<BlockRead> prefetch() {
    requestAhead();
    return ahead.peek();
  }

  private void requestAhead() {
    while (ahead.size() <= READAHEAD && nextToRequest <= lastBlock) {
      ahead.add(source.block(nextToRequest++));
    }
  }

  @Override
  public void start(ChannelHandlerContext context, ChannelPromise promise) {
    this.ctx = context;
    this.done = promise;
    writeNext();
  }

  private void writeNext() {
    if (finished) {
      return;
    }
    if (!ctx.channel().isActive()) {
      fail(new ClosedChannelException());
      return;
    }
    if (!ctx.channel().isWritable()) {
      waitingForWritability = true;
      return;
    }
    CompletableFuture<BlockRead> next = ahead.peek();
    next.whenComplete((read, error) -> ctx.executor().execute(() -> onBlock(read, error)));
  }

  private void onBlock(BlockRead read, Throwable error) {
    if (finished) {
      return;
    }
    if (error != null) {
      fail(error);
      return;
    }
    ahead.poll();
    long index = nextToWrite++;
    requestAhead();
    long blockStart = index * blockSize;
    int from = (int) (Math.max(start, blockStart) - blockStart);
    int to = (int) (Math.min(end, blockStart + read.data().length - 1) - blockStart);
    if (to < from || blockStart + read.data().length - 1 < Math.min(end, blockStart + blockSize - 1)) {
      fail(new IllegalStateException("Block " + index + " is shorter than expected: "
          + read.data().length + " bytes"));
      return;
    }
    int length = to - from + 1;
    if (read.fromCache()) {
      bytesFromCache.add(length);
    }
    DefaultHttpContent content = new DefaultHttpContent(Unpooled.wrappedBuffer(read.data(), from, length));
    if (index == lastBlock) {
      finished = true;
      ctx.write(content);
      ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT).addListener(f -> {
        if (f.isSuccess()) {
          done.trySuccess();
        } else {
          done.tryFailure(f.cause());
        }
      });
    } else {
      ctx.writeAndFlush(content);
      writeNext();
    }
  }

  @Override
  public void writabilityChanged() {
    if (waitingForWritability && ctx.channel().isWritable()) {
      waitingForWritability = false;
      writeNext();
    }
  }

  @Override
  public void abort() {
    finished = true;
    ahead.clear();
  }

  private void fail(Throwable error) {
    finished = true;
    ahead.clear();
    done.tryFailure(error);
  }
}
