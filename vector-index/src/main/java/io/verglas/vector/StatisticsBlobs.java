package io.verglas.vector;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.puffin.BlobMetadata;
import org.apache.iceberg.puffin.Puffin;
import org.apache.iceberg.puffin.PuffinReader;
import org.apache.iceberg.util.Pair;

/** Reads blobs of a published statistics file through a FileIO (the cache endpoint's, say). */
final class StatisticsBlobs {
  private StatisticsBlobs() {}

  /** The blobs of {@code file} that {@code wanted} selects, with their metadata, in file order. */
  static List<Pair<BlobMetadata, ByteBuffer>> read(FileIO io, StatisticsFile file,
      Predicate<BlobMetadata> wanted) {
    try (PuffinReader reader = Puffin.read(io.newInputFile(file.path(), file.fileSizeInBytes()))
        .withFileSize(file.fileSizeInBytes())
        .withFooterSize(file.fileFooterSizeInBytes())
        .build()) {
      List<BlobMetadata> selected = new ArrayList<>();
      for (BlobMetadata blob : reader.fileMetadata().blobs()) {
        if (wanted.test(blob)) {
          selected.add(blob);
        }
      }
      List<Pair<BlobMetadata, ByteBuffer>> blobs = new ArrayList<>(selected.size());
      for (Pair<BlobMetadata, ByteBuffer> blob : reader.readAll(selected)) {
        blobs.add(blob);
      }
      return blobs;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read statistics file " + file.path(), e);
    }
  }
}
