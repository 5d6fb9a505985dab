package io.verglas.cache.writeback.fragment;

import io.verglas.cache.writeback.code.StripeSink;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Sends each stripe's cell {@code i} to fragment output {@code i}. An output that fails is
 * closed (its temporary file and reservation released) and dropped, with its error kept: the
 * write goes on with the others, and the caller decides whether enough fragments remain.
 */
public final class FragmentSink implements StripeSink {
  private final FragmentOutput[] outputs;
  private final IOException[] failures;

  /** @param outputs by fragment index; null where no node took the fragment */
  public FragmentSink(List<FragmentOutput> outputs) {
    this.outputs = outputs.toArray(new FragmentOutput[0]);
    this.failures = new IOException[this.outputs.length];
  }

  @Override
  public void accept(long stripe, ByteBuffer[] cells) {
    for (int i = 0; i < outputs.length; i++) {
      if (outputs[i] != null) {
        try {
          outputs[i].writeCell(cells[i]);
        } catch (IOException | RuntimeException e) {
          fail(i, e);
        }
      }
    }
  }

  /** Commits every remaining output; returns the indexes of the fragments now durable. */
  public List<Integer> commit() {
    List<Integer> durable = new ArrayList<>();
    for (int i = 0; i < outputs.length; i++) {
      if (outputs[i] != null) {
        try {
          outputs[i].commit();
          durable.add(i);
        } catch (IOException | RuntimeException e) {
          fail(i, e);
        }
      }
    }
    return durable;
  }

  /** Abandons every output not committed. */
  public void abandon() {
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
