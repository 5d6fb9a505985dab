package io.verglas.bench.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FashionMnistTest {
  @TempDir Path dir;

  @Test
  void readsGzippedIdx3ImagesAsFloatVectors() throws IOException {
    Path file = idx(0x00000803, 3, new byte[] {0, 1, 2, (byte) 255, 4, 5, 6, 7, 8, 9, 10, 11});
    List<float[]> images = FashionMnist.read(file, 2);
    assertThat(images).hasSize(2);
    assertThat(images.get(0)).containsExactly(0f, 1f, 2f, 255f);
    assertThat(images.get(1)).containsExactly(4f, 5f, 6f, 7f);
  }

  @Test
  void refusesFilesThatAreNotIdx3Images() throws IOException {
    Path labels = idx(0x00000801, 1, new byte[4]);
    assertThatThrownBy(() -> FashionMnist.read(labels, 1))
        .hasMessageContaining("magic 801 is not an IDX3 image file");
  }

  /** An IDX3 file of {@code count} 2×2 images. */
  private Path idx(int magic, int count, byte[] pixels) throws IOException {
    Path file = Files.createTempFile(dir, "images", ".gz");
    try (OutputStream raw = Files.newOutputStream(file);
        DataOutputStream out = new DataOutputStream(new GZIPOutputStream(raw))) {
      out.writeInt(magic);
      out.writeInt(count);
      out.writeInt(2);
      out.writeInt(2);
      out.write(pixels);
    }
    return file;
  }
}
