package io.verglas.cache.s3;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.SocketChannelConfig;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.util.concurrent.Future;
import io.verglas.cache.block.BlockRead;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.LongAdder;

/**
 * Streams the bytes {@code [start, end]} of one object version block by block.
 *
 * <p>Design: at most {@code 1 + READAHEAD} blocks are requested ahead of the socket, and the next
 * block is written only while the channel is writable, so a slow client holds a few blocks of
 * memory however large the object. Each block is written as a retained slice of the reader's
 * reference (a DRAM hit is a direct buffer: no copy on its way to the socket), and every block
 * that was requested is released exactly once, written or not (see {@link #releaseAhead}).
 * Every block comes from the same ETag (the {@link BlockSource}
 * is bound to it); if one fails after the head is sent, the promise fails and the handler closes
 * the connection, so the client sees a truncated body, never a mixed one. All state is touched
 * on the channel's event loop only.
 *
 * <p>Delivery: when the response ends the {@link Delivery} is told once what the client got:
 * the whole range once the last write completed, else (the client went away, or a failure) the
 * bytes up to where it was cut short. A write completes when Netty has handed all its bytes to
 * the kernel, and writes complete in order, so one shared listener counting completed blocks is
 * the whole cost (no allocation per block). A response cut short with a write still pending
 * (the kernel had no room: the client had stopped reading) left this node's socket send buffer
 * full of bytes the client never got, so it counts up to the last completed write less the send
 * buffer's size (the largest the kernel reported: at the start, when writes stalled, at the
 * cut), never less than its first byte; one cut short while waiting for a block counts up to
 * the last completed write. What the client's own receive buffer held unread is not known here
 * and still counts.
 */
final class ObjectStreamer implements S3Response.BodyStream {
  private static final int READAHEAD = 2;
  private static final int MAX_INLINE = 8;

  /** Fetches block {@code index} of the bound object version. */
  interface BlockSource {
    CompletableFuture<BlockRead> block(long index);
  }

  /** Told once, when the response ends, of the bytes {@code [first, last]} the client got. */
  @FunctionalInterface
  interface Delivery {
    Delivery NONE = (first, last, whole) -> { };

    /** {@code whole}: the response completed; else it was cut short about {@code last}. */
    void delivered(long first, long last, boolean whole);
  }

  private final BlockSource source;
  private final int blockSize;
  private final long start;
  private final long end;
  private final long lastBlock;
  private final LongAdder bytesFromCache;
  private final Delivery delivery;
  private final ChannelFutureListener countWritten = this::onWritten;
  private final ArrayDeque<CompletableFuture<BlockRead>> ahead = new ArrayDeque<>();
  private long nextToRequest;
  private long nextToWrite;
  private ChannelHandlerContext ctx;
  private ChannelPromise done;
  private boolean waitingForWritability;
  private boolean finished;
  private int inlineDepth;
  /** True while an {@link #onBlock} callback is registered on the head of {@code ahead}. */
  private boolean headClaimed;
  /** Blocks whose write to the socket completed, in order from the first. */
  private long blocksWritten;
  private boolean reported;
  /** The largest socket send buffer size seen (at the start, when writes stalled, at the cut). */
  private long sendBuffer;

  ObjectStreamer(BlockSource source, int blockSize, long start, long end, LongAdder bytesFromCache,
      Delivery delivery) {
    this.source = source;
    this.delivery = delivery;
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
    noteSendBuffer();
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
      noteSendBuffer();
      return;
    }
    CompletableFuture<BlockRead> next = ahead.peek();
    if (next.isDone() && inlineDepth < MAX_INLINE && ctx.executor().inEventLoop()) {
      // A cached block: write it now rather than after a trip through the task queue (bounded,
      // so a long run of cached blocks to a fast client cannot grow the stack without limit).
      BlockRead read = next.isCompletedExceptionally() ? null : next.join();
      Throwable error = read == null ? failure(next) : null;
      inlineDepth++;
      try {
        onBlock(read, error);
      } finally {
        inlineDepth--;
      }
      return;
    }
    headClaimed = true;
    next.whenComplete((read, error) -> onEventLoop(read, error));
  }

  /** Hands a block that arrived on another thread to the event loop, or frees it if that ended. */
  private void onEventLoop(BlockRead read, Throwable error) {
    try {
      ctx.executor().execute(() -> onBlock(read, error));
    } catch (RejectedExecutionException shutDown) {
      if (read != null) {
        read.data().release();
      }
    }
  }

  private static Throwable failure(CompletableFuture<?> failed) {
    try {
      failed.join();
      return new IllegalStateException("Block future failed without a cause");
    } catch (java.util.concurrent.CompletionException | java.util.concurrent.CancellationException e) {
      return e.getCause() != null ? e.getCause() : e;
    }
  }

  /** Consumes the head of {@code ahead}: writes its part of the response and releases it. */
  private void onBlock(BlockRead read, Throwable error) {
    headClaimed = false;
    if (finished) {
      if (read != null) {
        read.data().release();
      }
      return;
    }
    ahead.poll();
    if (error != null) {
      fail(error);
      return;
    }
    long index = nextToWrite++;
    requestAhead();
    ByteBuf data = read.data();
    int available = data.readableBytes();
    long blockStart = index * blockSize;
    int from = (int) (Math.max(start, blockStart) - blockStart);
    int to = (int) (Math.min(end, blockStart + available - 1) - blockStart);
    if (to < from || blockStart + available - 1 < Math.min(end, blockStart + blockSize - 1)) {
      data.release();
      fail(new IllegalStateException("Block " + index + " is shorter than expected: "
          + available + " bytes"));
      return;
    }
    int length = to - from + 1;
    if (read.fromCache()) {
      bytesFromCache.add(length);
    }
    // The slice keeps the block alive until Netty has written it; our own reference goes now.
    ByteBuf slice = data.retainedSlice(data.readerIndex() + from, length);
    data.release();
    if (index == lastBlock) {
      finished = true;
      // The last piece ends the message itself: one encoder pass and one flush fewer per response.
      ctx.writeAndFlush(new DefaultLastHttpContent(slice, EmptyHttpHeaders.INSTANCE)).addListener(f -> {
        onWritten(f);
        report(f.isSuccess());
        if (f.isSuccess()) {
          done.trySuccess();
        } else {
          done.tryFailure(f.cause());
        }
      });
    } else {
      ctx.writeAndFlush(new DefaultHttpContent(slice)).addListener(countWritten);
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

  /** Stops, releasing every block requested and not written (now or when it arrives). */
  @Override
  public void abort() {
    finished = true;
    releaseAhead();
    report(false);
  }

  private void fail(Throwable error) {
    finished = true;
    releaseAhead();
    report(false);
    if (done != null) {
      done.tryFailure(error);
    }
  }

  private void onWritten(Future<?> write) {
    if (write.isSuccess()) {
      blocksWritten++;
    }
  }

  /** Tells the delivery, once the head was sent, what the client got (see the class comment). */
  private void report(boolean whole) {
    if (reported || ctx == null) {
      return;
    }
    reported = true;
    if (whole) {
      delivery.delivered(start, end, true);
      return;
    }
    long firstBlock = start / blockSize;
    long written = Math.min(end, (firstBlock + blocksWritten) * blockSize - 1);
    boolean stalled = blocksWritten < nextToWrite - firstBlock; // a write the kernel had no room for
    if (stalled) {
      noteSendBuffer();
    }
    long unread = stalled ? sendBuffer : 0;
    delivery.delivered(start, Math.max(start, written - unread), false);
  }

  private void noteSendBuffer() {
    if (ctx.channel().isOpen() && ctx.channel().config() instanceof SocketChannelConfig socket) {
      try {
        sendBuffer = Math.max(sendBuffer, socket.getSendBufferSize());
      } catch (RuntimeException e) {
        // closed already: the size seen before stands
      }
    }
  }

  /**
   * Each block future has one consumer: {@link #onBlock} if it was claimed for it (it will
   * release the block when it runs and finds the stream finished), else this.
   */
  private void releaseAhead() {
    boolean head = true;
    for (CompletableFuture<BlockRead> f : ahead) {
      if (!(head && headClaimed)) {
        f.thenAccept(read -> read.data().release());
      }
      head = false;
    }
    ahead.clear();
  }
}
