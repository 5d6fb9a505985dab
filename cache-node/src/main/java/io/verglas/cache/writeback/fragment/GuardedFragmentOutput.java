package io.verglas.cache.writeback.fragment;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The life cycle every {@link FragmentOutput} shares: cells are written while it is open, a
 * commit happens at most once and closes it, a close before the commit abandons the fragment,
 * and nothing is written or committed after that. Subclasses say how a cell is written, a
 * fragment made durable and an unfinished one given up.
 */
public abstract class GuardedFragmentOutput implements FragmentOutput {
  private final FragmentHeader header;
  private boolean committed;
  private boolean closed;

  protected GuardedFragmentOutput(FragmentHeader header) {
    this.header = header;
  }

  @Override
  public final FragmentHeader header() {
    return header;
  }

  @Override
  public final void writeCell(ByteBuffer cell) throws IOException {
    if (closed) {
      throw new IllegalStateException("Cannot write fragment " + header.index() + " of " + header.identity() + ": closed");
    }
    write(cell);
  }

  @Override
  public final void commit() throws IOException {
    if (committed) {
      return;
    }
    if (closed) {
      throw new IllegalStateException("Cannot commit fragment " + header.index() + " of " + header.identity() + ": abandoned");
    }
    makeDurable();
    committed = true;
    closed = true;
    afterCommit();
  }

  @Override
  public final void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    abandon();
  }

  /** Writes one cell of the open fragment. */
  protected abstract void write(ByteBuffer cell) throws IOException;

  /** Makes the fragment durable: once this returns, it counts. */
  protected abstract void makeDurable() throws IOException;

  /** Work after the fragment counts and is closed (nothing by default). */
  protected void afterCommit() throws IOException {}

  /** Gives up the fragment that was not committed. */
  protected abstract void abandon() throws IOException;
}
