package io.verglas.cache.writeback.fragment;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/** {@link FragmentOutput} of a {@link FragmentStore}: a temporary file renamed when committed. */
final class StoreOutput extends GuardedFragmentOutput {
  private final FragmentStore store;
  private final Path target;
  private final Path temporary;
  private final long reserved;
  private final FileChannel channel;
  private final FragmentWriter writer;

  StoreOutput(FragmentStore store, FragmentHeader header, Path target, long reserved) throws IOException {
    super(header);
    this.store = store;
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
  protected void write(ByteBuffer cell) throws IOException {
    writer.writeCell(cell);
  }

  @Override
  protected void makeDurable() throws IOException {
    writer.finish();
    channel.force(true);
    channel.close();
    Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE);
  }

  @Override
  protected void afterCommit() throws IOException {
    LocalFiles.forceDirectory(target.getParent());
  }

  @Override
  protected void abandon() throws IOException {
    try {
      channel.close();
      Files.deleteIfExists(temporary);
    } finally {
      store.unreserve(reserved);
    }
  }
}
