package io.verglas.cache.writeback.fragment;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/** {@link FragmentOutput} of a {@link FragmentStore}: a temporary file renamed when committed. */
final class StoreOutput implements FragmentOutput {
  private final FragmentStore store;
  private final FragmentHeader header;
  private final Path target;
  private final Path temporary;
  private final long reserved;
  private final FileChannel channel;
  private final FragmentWriter writer;
  private boolean committed;
  private boolean closed;

  StoreOutput(FragmentStore store, FragmentHeader header, Path target, long reserved) throws IOException {
    this.store = store;
    this.header = header;
    this.target = target;
    this.temporary = target.resolveSibling(target.getFileName() + FragmentStore.TEMPORARY);
    this.reserved = reserved;
    this.channel = FileChannel.open(temporary, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    try {
      this.writer = new FragmentWriter(channel, header);
    } catch (IOException | RuntimeException e) {
      channel.close();
      Files.deleteIfExists(temporary);
      throw e;
    }
  }

  @Override
  public FragmentHeader header() {
    return header;
  }

  @Override
  public void writeCell(ByteBuffer cell) throws IOException {
    if (closed) {
      throw new IllegalStateException("Cannot write fragment " + header.index() + " of " + header.identity() + ": closed");
    }
    writer.writeCell(cell);
  }

  @Override
  public void commit() throws IOException {
    if (committed) {
      return;
    }
    if (closed) {
      throw new IllegalStateException("Cannot commit fragment " + header.index() + " of " + header.identity() + ": abandoned");
    }
    writer.finish();
    channel.force(true);
    channel.close();
    Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE);
    committed = true;
    closed = true;
    LocalFiles.forceDirectory(target.getParent());
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try {
      channel.close();
      Files.deleteIfExists(temporary);
    } finally {
      store.unreserve(reserved);
    }
  }
}
