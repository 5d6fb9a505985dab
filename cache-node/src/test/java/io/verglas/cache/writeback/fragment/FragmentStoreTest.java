package io.verglas.cache.writeback.fragment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.verglas.cache.writeback.code.Geometry;
import io.verglas.cache.writeback.code.NotEnoughFragmentsException;
import io.verglas.cache.writeback.code.StripeDecoder;
import io.verglas.cache.writeback.code.StripeEncoder;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fragment stores on local disk, one per simulated node: commit, reopen, read back through the
 * decoder with corruption inside and beyond the parity budget, the ceiling, release and listing.
 */
class FragmentStoreTest {
  static final Geometry RS_2_1 = new Geometry(2, 1, 1000);
  static final ObjectIdentity ID = new ObjectIdentity("bucket", "db/t/data/a.parquet", "w-1");

  @TempDir Path dir;

  @Test
  void committedFragmentsSurviveReopeningAndReconstructTheBody() throws IOException {
    byte[] body = body(12_345);
    List<FragmentStore> stores = stores(3, 1 << 20);
    stage(stores, body, ID);
    List<FragmentStore> reopened = new ArrayList<>();
    for (FragmentStore store : stores) {
      FragmentStore again = FragmentStore.open(store.directory(), store.ceilingBytes());
      assertThat(again.usedBytes()).isEqualTo(store.usedBytes()).isEqualTo(header(0, body.length).fileLength());
      reopened.add(again);
    }
    assertThat(read(reopened, body.length)).isEqualTo(body);
  }

  @Test
  void oneCorruptFragmentIsAnErasureAndTwoAreBeyondTheBudget() throws IOException {
    byte[] body = body(5_000);
    List<FragmentStore> stores = stores(3, 1 << 20);
    stage(stores, body, ID);
    TestingCorruption.flipLastCellByte(stores.get(0));
    FragmentCells cells = cells(stores, body.length);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    new StripeDecoder(RS_2_1).decode(body.length, cells, out);
    assertThat(out.toByteArray()).isEqualTo(body);
    assertThat(cells.corruptCells()).isEqualTo(1);
    TestingCorruption.flipLastCellByte(stores.get(2));
    assertThatThrownBy(() -> read(stores, body.length)).isInstanceOf(NotEnoughFragmentsException.class)
        .hasMessageContaining("only 1 intact fragments of the 2 needed");
  }

  @Test
  void aFragmentBeyondTheCeilingIsRefusedAndNothingChanges() throws IOException {
    FragmentHeader header = header(0, 100_000);
    FragmentStore store = FragmentStore.open(dir.resolve("small"), header.fileLength() - 1);
    assertThatThrownBy(() -> store.create(header)).isInstanceOf(FragmentStoreFullException.class)
        .hasMessage("Cannot reserve " + header.fileLength() + " bytes for fragment 0 of " + ID
            + ": fragment store full (0 of " + (header.fileLength() - 1) + " bytes used)");
    assertThat(store.usedBytes()).isZero();
    assertThat(store.list()).isEmpty();
    assertThat(store.hasRoomFor(header.fileLength() - 1)).isTrue();
  }

  @Test
  void anAbandonedFragmentLeavesNothingAndACommitTwiceCountsOnce() throws IOException {
    FragmentStore store = FragmentStore.open(dir.resolve("s"), 1 << 20);
    FragmentHeader header = header(1, 1500);
    try (FragmentOutput output = store.create(header)) {
      output.writeCell(ByteBuffer.allocate(750));
      assertThat(store.usedBytes()).isEqualTo(header.fileLength());
    }
    assertThat(store.usedBytes()).isZero();
    assertThat(Files.list(store.directory()).count()).isZero();
    FragmentOutput output = store.create(header);
    output.writeCell(ByteBuffer.allocate(750));
    output.commit();
    output.commit();
    output.close();
    assertThat(store.usedBytes()).isEqualTo(header.fileLength());
    assertThatThrownBy(() -> store.create(header)).isInstanceOf(FileAlreadyExistsException.class)
        .hasMessageContaining("Cannot write fragment 1 of " + ID + ": already stored");
    assertThat(store.list()).singleElement().satisfies(f -> {
      assertThat(f.header()).contains(header);
      assertThat(f.bytes()).isEqualTo(header.fileLength());
    });
    assertThat(store.release(ID, 1)).isTrue();
    assertThat(store.release(ID, 1)).isFalse();
    assertThat(store.usedBytes()).isZero();
    assertThatThrownBy(() -> store.open(ID, 1)).isInstanceOf(NoSuchFileException.class);
  }

  @Test
  void reopeningDeletesUnfinishedFragmentsAndListsCorruptOnes() throws IOException {
    FragmentStore store = FragmentStore.open(dir.resolve("s"), 1 << 20);
    FragmentOutput unfinished = store.create(header(0, 10));
    Files.write(store.directory().resolve("0123-0.frag"), new byte[] {1, 2, 3});
    FragmentStore reopened = FragmentStore.open(store.directory(), 1 << 20);
    assertThat(reopened.usedBytes()).isEqualTo(3);
    assertThat(reopened.list()).singleElement().satisfies(f -> assertThat(f.header()).isEmpty());
    assertThat(Files.list(store.directory()).filter(p -> p.toString().endsWith(".tmp"))).isEmpty();
    unfinished.close();
  }

  static byte[] body(int length) {
    byte[] body = new byte[length];
    new Random(length).nextBytes(body);
    return body;
  }

  private List<FragmentStore> stores(int n, long ceiling) throws IOException {
    List<FragmentStore> stores = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      stores.add(FragmentStore.open(dir.resolve("node-" + i), ceiling));
    }
    return stores;
  }

  private static FragmentHeader header(int index, long length) {
    return new FragmentHeader(ID, RS_2_1, index, length);
  }

  private static void stage(List<FragmentStore> stores, byte[] body, ObjectIdentity id) throws IOException {
    List<FragmentOutput> outputs = new ArrayList<>();
    for (int i = 0; i < stores.size(); i++) {
      outputs.add(stores.get(i).create(new FragmentHeader(id, RS_2_1, i, body.length)));
    }
    FragmentSink sink = new FragmentSink(outputs);
    StripeEncoder encoder = new StripeEncoder(RS_2_1, sink);
    encoder.transfer(new ByteArrayInputStream(body));
    encoder.finish();
    assertThat(sink.commit()).containsExactly(0, 1, 2);
  }

  private static FragmentCells cells(List<FragmentStore> stores, long length) throws IOException {
    List<FragmentReader> readers = new ArrayList<>();
    for (int i = 0; i < stores.size(); i++) {
      readers.add(stores.get(i).open(ID, i));
    }
    return new FragmentCells(header(0, length), readers);
  }

  private static byte[] read(List<FragmentStore> stores, long length) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    new StripeDecoder(RS_2_1).decode(length, cells(stores, length), out);
    return out.toByteArray();
  }
}
