package io.verglas.cache.writeback.fragment;

import io.verglas.cache.writeback.code.StripeSink;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Sends each stripe's cell {@code i} to fragment output {@code i}. An output that fails is
 * closed (its temporary file and reservation released) and dropped, with its error kept: the
 * write goes on with the others, and the caller decides whether enough fragments remain.
 *
 * <p>Threads: each output's writes and its commit run as tasks on the sink's executor, one task
 * per output and step, so with a thread per output the fragments are written and fsynced in
 * parallel, and a stripe's writes overlap the coding of the next one ({@link StripeSink}: the
 * writes of stripe {@code s} are awaited when stripe {@code s + 1} arrives). {@link #commit}
 * returns only once every commit has finished. Outputs and errors are touched on the caller's
 * thread only, after the tasks they depend on completed.
 */
public final class FragmentSink implements StripeSink {
  private final FragmentOutput[] outputs;
  private final IOException[] failures;
  private final Executor io;
  private final CompletableFuture<?>[] running;

  /** A sink that writes and commits on the caller's thread. */
  public FragmentSink(List<FragmentOutput> outputs) {
    this(outputs, Runnable::run);
  }

  /**
   * @param outputs by fragment index; null where no node took the fragment
   * @param io runs the outputs' writes and commits; tasks never wait for other tasks
   */
  public FragmentSink(List<FragmentOutput> outputs, Executor io) {
    this.outputs = outputs.toArray(new FragmentOutput[0]);
    this.failures = new IOException[this.outputs.length];
    this.io = io;
    this.running = new CompletableFuture<?>[this.outputs.length];
  }

  @Override
  public void accept(long stripe, ByteBuffer[] cells) {
    release();
    for (int i = 0; i < outputs.length; i++) {
      FragmentOutput output = outputs[i];
      if (output != null) {
        ByteBuffer cell = cells[i];
        running[i] = start(() -> output.writeCell(cell));
      }
    }
  }

  /** Waits for the writes under way; an output whose write failed is dropped. */
  @Override
  public void release() {
    for (int i = 0; i < outputs.length; i++) {
      if (running[i] != null) {
        CompletableFuture<?> task = running[i];
        running[i] = null;
        try {
          task.join();
        } catch (CompletionException e) {
          fail(i, cause(e));
        }
      }
    }
  }

  /**
   * Commits every remaining output, each as one task, so the stores' fsyncs overlap, and returns
   * once all have finished: the indexes of the fragments now durable, those whose file and
   * directory were fsynced. A commit that fails, or that the executor refuses, drops its output.
   */
  public List<Integer> commit() {
    release();
    for (int i = 0; i < outputs.length; i++) {
      FragmentOutput output = outputs[i];
      if (output != null) {
        running[i] = start(output::commit);
      }
    }
    release();
    List<Integer> durable = new ArrayList<>();
    for (int i = 0; i < outputs.length; i++) {
      if (outputs[i] != null) {
        durable.add(i);
      }
    }
    return durable;
  }

  /** Abandons every output not committed, once its writes under way have finished. */
  public void abandon() {
    release();
    for (int i = 0; i < outputs.length; i++) {
      if (outputs[i] != null) {
        fail(i, null);
      }
    }
  }

  /** The error that dropped fragment {@code index}'s output, if one did. */
  public IOException failure(int index) {
    return failures[index];
  }

  /** One step of one output. */
  @FunctionalInterface
  private interface Step {
    void run() throws IOException;
  }

  private CompletableFuture<Void> start(Step step) {
    try {
      return CompletableFuture.runAsync(() -> {
        try {
          step.run();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }, io);
    } catch (RejectedExecutionException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private static Exception cause(CompletionException e) {
    Throwable cause = e.getCause() instanceof UncheckedIOException io ? io.getCause() : e.getCause();
    if (cause instanceof Error error) {
      throw error;
    }
    return (Exception) cause;
  }

  private void fail(int index, Exception cause) {
    FragmentOutput output = outputs[index];
    outputs[index] = null;
    if (cause != null) {
      failures[index] = cause instanceof IOException io ? io
          : new IOException("Cannot write fragment " + index + ": " + cause.getMessage(), cause);
    }
    try {
      output.close();
    } catch (IOException e) {
      if (failures[index] != null) {
        failures[index].addSuppressed(e);
      }
    }
  }
}
