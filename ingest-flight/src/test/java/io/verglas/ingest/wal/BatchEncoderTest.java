package io.verglas.ingest.wal;

import static org.assertj.core.api.Assertions.assertThat;

import io.verglas.arrow.ArrowIpc;
import io.verglas.ingest.TestVectors;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.junit.jupiter.api.Test;

class BatchEncoderTest {
  @Test
  void encodedBatchesReadBackWithArrowsOwnZstdCodecAlsoWhenEncodedConcurrently() throws Exception {
    try (BufferAllocator allocator = new RootAllocator(); TestVectors vectors = new TestVectors(allocator)) {
      Long[] ids = new Long[5_000];
      String[] names = new String[5_000];
      for (int i = 0; i < ids.length; i++) {
        ids[i] = i % 7 == 0 ? null : (long) i * 31;
        names[i] = i % 11 == 0 ? null : "name-" + (i % 97);
      }
      VectorSchemaRoot batch = vectors.root(vectors.longs("id", ids), vectors.strings("name", names),
          vectors.strings("empty"));
      batch.setRowCount(ids.length);
      String expected = batch.contentToTSVString();

      List<CompletableFuture<byte[]>> encodings = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        encodings.add(CompletableFuture.supplyAsync(() -> BatchEncoder.encode(batch)));
      }
      for (CompletableFuture<byte[]> encoding : encodings) {
        byte[] ipc = encoding.get();
        assertThat(ipc.length).isLessThan(ids.length * 8);
        try (ArrowStreamReader reader = ArrowIpc.open(ipc, allocator)) {
          assertThat(reader.loadNextBatch()).isTrue();
          assertThat(reader.getVectorSchemaRoot().contentToTSVString()).isEqualTo(expected);
        }
      }
    }
  }
}
